//! Logical pointers (SPIR-V §2.16.1, under the Logical and PhysicalStorageBuffer64
//! addressing models; every pointer but a PhysicalStorageBuffer one is logical): which
//! instructions may take one as an operand (V-PTR-2; OpPtrEqual, OpPtrNotEqual and OpPtrDiff
//! only with variable pointers, V-PTR-6), which may produce one (V-PTR-3, completing the
//! OpPhi, OpSelect and OpLoad cases their own passes report), and what a *variable pointer*
//! may not do (V-PTR-8: be OpArrayLength's operand, point to an array of Block structs, or
//! point to or into a matrix).
//!
//! A variable pointer is, as spirv-val 2025.5 computes it, the result of OpPtrAccessChain,
//! OpLoad, OpSelect, OpPhi, OpFunctionCall or OpConstantNull, a pointer parameter some call
//! passes a variable pointer to, or any instruction with a variable pointer operand.
//!
//! The per-value facts ([`PointerFacts`]) are gathered during the ids pass's walk, which
//! runs first, and so are the operand and result rules (V-PTR-2, V-PTR-3, V-PTR-6): they
//! need only the classes of values: a value's class is its Result Type's (the index's
//! table of Result Types, [`Ctx::type_of`]), and a type's class is known before the walk
//! from the module's pointer type declarations, so that an earlier definition and a later
//! one (an OpPhi's back edge, a forward label) are looked up alike. Their
//! findings are held until [`check`], which adds the variable-pointer rule (V-PTR-8, which
//! needs the completed fixed point) and reports everything in instruction order, and only
//! when the ids pass found every id sound: without a walk of its own in the common case
//! (no logical variable pointer).

use std::collections::{HashMap, HashSet};

use spv_reader::spirv::{Capability as C, Decoration as D, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::checks::layout::is_non_semantic;
use crate::ctx::{Ctx, Inst};
use crate::limits::MAX_TYPE_DEPTH;
use crate::operands::Kind;
use crate::opset::OpSet;

/// Most propagation rounds of the variable-pointer fixed point: module order settles
/// everything but pointers passed back to earlier functions' parameters, which need a round
/// per level of such calls.
const MAX_ROUNDS: usize = 64;

/// Most instructions followed back from one variable pointer.
const MAX_TRACE: usize = 1024;

/// The storage class of a logical pointer of type `ty` (`None` when it is not one).
fn logical_class_of_type(ctx: &Ctx<'_>, ty: Id) -> Option<u32> {
    let class = match ctx.ty(ty)? {
        Type::Pointer { storage_class, .. } | Type::UntypedPointer { storage_class } => {
            *storage_class
        }
        _ => return None,
    };
    (class != S::PhysicalStorageBuffer as u32).then_some(class)
}

/// What the rules look up per value and per callee, gathered in one walk over the
/// instructions (which is also the first round of [`variable_pointers`]).
struct Values<'a> {
    /// Per type id: the storage class of a logical pointer type ([`TypeClasses`]).
    type_class: &'a [Option<u32>],
    /// Per function (index in `m.functions()`): its `OpFunctionCall` instructions (and
    /// empty lists past the last function).
    calls: &'a [Vec<InstIndex>],
}

/// [`Values`] and the first round of [`variable_pointers`] while they are being gathered:
/// the ids pass's walk over the instructions feeds each one to [`PointerFacts::visit`], so
/// that this pass needs no walk of its own to gather them.
pub(crate) struct PointerFacts {
    /// [`Values::type_class`].
    type_class: Vec<Option<u32>>,
    /// [`Values::calls`] so far (at least one list per function).
    calls: Vec<Vec<InstIndex>>,
    /// Per id: whether the first round of [`variable_pointers`] finds a variable pointer.
    var: Vec<bool>,
    /// How many of those are logical pointers.
    logical_vars: usize,
    /// Whether the first round found any.
    changed: bool,
    /// Whether `VariablePointersStorageBuffer` is declared (or implied).
    vpsb: bool,
    /// Whether `VariablePointers` is declared (or implied).
    vp: bool,
    /// The operand and result rules' findings so far, in instruction order.
    problems: Vec<Problem>,
}

/// The storage class of every logical pointer type, by type id (`None` for every other id):
/// `logical_class_of_type` of each pointer type declaration, the only instructions whose
/// types are pointers (so that no other id needs the type query).
trait TypeClasses {
    /// The storage class of the logical pointer type `ty` (`None` when it is not one).
    fn of_type(&self, ty: u32) -> Option<u32>;
    /// The storage class of value `id` if it is a logical pointer, by its Result Type.
    fn of_value(&self, ctx: &Ctx<'_>, id: Id) -> Option<u32> {
        self.of_type(ctx.type_of(id).map_or(0, |t| t.0))
    }
}

impl TypeClasses for [Option<u32>] {
    #[inline(always)]
    fn of_type(&self, ty: u32) -> Option<u32> {
        self.get(ty as usize).copied().flatten()
    }
}

/// A broken rule found for an instruction: the rule, the instruction, the id named and the
/// message; reported by [`check`] in instruction order, and within an instruction in the
/// order operand rule, result rule, variable-pointer rule.
type Problem = (&'static str, InstIndex, Id, String);

/// The buffers of [`PointerFacts`], empty, kept between modules (see `crate::scratch`).
#[derive(Default)]
pub(crate) struct PointerStorage {
    type_class: Vec<Option<u32>>,
    calls: Vec<Vec<InstIndex>>,
    var: Vec<bool>,
    problems: Vec<Problem>,
}

impl PointerFacts {
    /// Empty facts for the module in `ctx`, in the buffers of `storage` (taken from it);
    /// `None` when its addressing model has no logical pointers (only Logical = 0 and
    /// PhysicalStorageBuffer64 = 5348 have them), so that [`check`] has nothing to do.
    pub(crate) fn new(ctx: &Ctx<'_>, storage: &mut PointerStorage) -> Option<PointerFacts> {
        if ctx.addressing != 0 && ctx.addressing != 5348 {
            return None;
        }
        let PointerStorage {
            mut type_class,
            mut calls,
            mut var,
            mut problems,
        } = std::mem::take(storage);
        let ids = ctx.ix.id_count();
        problems.clear();
        type_class.clear();
        type_class.resize(ids, None);
        for inst in ctx.ix.type_decls() {
            if matches!(
                inst.opcode(),
                Some(Op::TypePointer | Op::TypeUntypedPointerKHR)
            ) && let Some(ty) = inst.result_id()
                && let Some(slot) = type_class.get_mut(ty.0 as usize)
            {
                *slot = logical_class_of_type(ctx, ty);
            }
        }
        var.clear();
        var.resize(ids, false);
        // The call lists keep their capacity too, those past this module's functions
        // included (they stay empty, and every use goes by function index), so that a
        // module with fewer functions does not drop lists the next one grows again.
        let functions = ctx.m.functions().len();
        calls.iter_mut().for_each(Vec::clear);
        if calls.len() < functions {
            calls.resize_with(functions, Vec::new);
        }
        Some(PointerFacts {
            type_class,
            calls,
            var,
            logical_vars: 0,
            changed: false,
            vpsb: ctx.has_cap(C::VariablePointersStorageBuffer),
            vp: ctx.has_cap(C::VariablePointers),
            problems,
        })
    }

    /// Gives back the buffers for another module.
    pub(crate) fn into_storage(mut self) -> PointerStorage {
        self.problems.clear();
        PointerStorage {
            type_class: self.type_class,
            calls: self.calls,
            var: self.var,
            problems: self.problems,
        }
    }

    /// The bit of [`PointerFacts::visit`]'s `bits` for [`LOGICAL_POINTER_USERS`]: their
    /// operands need no look for the operand rules (V-PTR-2, V-PTR-6).
    pub(crate) const LISTED_USER: u8 = 2;
    /// The bit of [`PointerFacts::visit`]'s `bits` for [`VARIABLE_POINTER_SOURCES`].
    pub(crate) const SOURCE: u8 = 4;

    /// The operand rules for `inst` (not one of [`LOGICAL_POINTER_USERS`]): its first
    /// logical pointer operand, if any, is judged (before its own Result is taken in, so
    /// that an OpPhi naming itself finds its class in the index).
    #[inline(always)]
    fn scan_operands(&mut self, ctx: &Ctx<'_>, inst: &Inst<'_>, op: Op) {
        let mut found = None;
        // The class first: it is `None` for nearly every operand, and for every Result
        // Type, scope and semantics operand (types and constants are no pointers), so that
        // the kind is asked about only for a logical pointer.
        for r in ctx.ix.refs_of(inst) {
            if let Some(c) = self.type_class.of_value(ctx, r.id)
                && matches!(r.kind, Kind::Id)
            {
                found = Some((r.id, c));
                break;
            }
        }
        if let Some((pointer, class)) = found {
            self.operand_rule(inst, op, pointer, class);
        }
    }

    /// Takes in the next instruction in module order; `bits` are its opcode's in a table of
    /// opcode sets whose bits [`PointerFacts::LISTED_USER`] and [`PointerFacts::SOURCE`]
    /// stand for [`LOGICAL_POINTER_USERS`] and [`VARIABLE_POINTER_SOURCES`] (0 for an
    /// unknown opcode), so that the ids walk looks its opcode up once for every set.
    // Called once per instruction from the ids pass's loop: inlined there, so that the walk
    // does not pay a call per instruction (the optimizer's own choice varies with the size
    // of the functions around it).
    #[inline(always)]
    pub(crate) fn visit(&mut self, ctx: &Ctx<'_>, inst: &Inst<'_>, bits: u8) {
        let op = inst.opcode();
        if let Some(op) = op
            && bits & Self::LISTED_USER == 0
        {
            self.scan_operands(ctx, inst, op);
        }
        // The Result's class (0, no type, when it has no Result Type).
        let c = self
            .type_class
            .of_type(inst.result_type().map_or(0, |t| t.0));
        if let Some(r) = inst.result_id()
            && let (Some(class), Some(op)) = (c, op)
        {
            // Results (V-PTR-3).
            self.result_rule(inst, op, r, class);
        }
        if inst.opcode() == Some(Op::FunctionCall)
            && let Some(&callee) = inst.words().get(3)
            && let Some(list) = ctx
                .ix
                .function_index(Id(callee))
                .and_then(|f| self.calls.get_mut(f))
        {
            list.push(inst.index());
        }
        // The first round of `variable_pointers`: its parameter step finds nothing yet
        // (no value is a variable pointer before it), and the classes and variable
        // pointers of the operands it looks at are those of earlier instructions, known
        // by now (a later id is no variable pointer yet in the first round).
        if let Some(r) = inst.result_id()
            && (bits & Self::SOURCE != 0
                || variable_result(ctx, inst, &self.var, &self.type_class, self.logical_vars))
            && let Some(slot) = self.var.get_mut(r.0 as usize)
            && !*slot
        {
            *slot = true;
            self.changed = true;
            if c.is_some() {
                self.logical_vars += 1;
            }
        }
    }

    /// The operand rules (V-PTR-2, V-PTR-6) for `inst`, whose first logical pointer operand
    /// is `pointer`, into storage class `class`.
    #[cold]
    #[inline(never)]
    fn operand_rule(&mut self, inst: &Inst<'_>, op: Op, pointer: Id, class: u32) {
        if takes_logical_pointer(op) {
            return;
        }
        if matches!(op, Op::ReturnValue | Op::Phi | Op::Select) && !self.vpsb {
            // Reported with the result (OpPhi, OpSelect) or the return (V-PTR-7).
        } else if !takes_variable_pointer(op) {
            self.problems.push((
                "V-PTR-2",
                inst.index(),
                pointer,
                format!("Op{op:?} may not have a logical pointer operand"),
            ));
        } else if !self.allow(class) {
            let rule = if matches!(op, Op::PtrEqual | Op::PtrNotEqual | Op::PtrDiff) {
                "V-PTR-6"
            } else {
                "V-PTR-2"
            };
            self.problems.push((
                rule,
                inst.index(),
                pointer,
                format!(
                    "Op{op:?} may only have a logical pointer operand in the StorageBuffer or \
                     Workgroup storage classes with the matching variable pointers capability"
                ),
            ));
        }
    }

    /// The result rule (V-PTR-3) for `inst`, whose Result `r` is a logical pointer into
    /// storage class `class`. OpPhi, OpSelect and OpLoad without variable pointers are
    /// reported by their own passes.
    #[inline(always)]
    fn result_rule(&mut self, inst: &Inst<'_>, op: Op, r: Id, class: u32) {
        match op {
            Op::Variable
            | Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::FunctionParameter
            | Op::ImageTexelPointer
            | Op::CopyObject
            | Op::Undef
            | Op::UntypedAccessChainKHR
            | Op::UntypedInBoundsAccessChainKHR
            | Op::UntypedVariableKHR
            | Op::RawAccessChainNV => {}
            _ => self.result_rule_rare(inst, op, r, class),
        }
    }

    /// [`PointerFacts::result_rule`] past the common pointer-producing opcodes.
    #[cold]
    #[inline(never)]
    fn result_rule_rare(&mut self, inst: &Inst<'_>, op: Op, r: Id, class: u32) {
        match op {
            Op::Phi | Op::Select | Op::Load if !self.vpsb => {}
            Op::Select
            | Op::Phi
            | Op::FunctionCall
            | Op::PtrAccessChain
            | Op::Load
            | Op::ConstantNull
            | Op::Function
            | Op::UntypedPtrAccessChainKHR => {
                if !self.allow(class) {
                    self.problems.push((
                        "V-PTR-3",
                        inst.index(),
                        r,
                        format!(
                            "Op{op:?} may only return a logical pointer in the StorageBuffer or \
                             Workgroup storage classes with the matching variable pointers \
                             capability"
                        ),
                    ));
                }
            }
            _ => self.problems.push((
                "V-PTR-3",
                inst.index(),
                r,
                format!("Op{op:?} may not return a logical pointer"),
            )),
        }
    }

    /// Whether the capabilities let a logical pointer into `class` be a variable pointer.
    fn allow(&self, class: u32) -> bool {
        (self.vpsb && class == S::StorageBuffer as u32) || (self.vp && class == S::Workgroup as u32)
    }
}

impl Values<'_> {
    /// The storage class of a logical pointer value (`None` when `id` is not one).
    fn logical_class(&self, ctx: &Ctx<'_>, id: Id) -> Option<u32> {
        self.type_class.of_value(ctx, id)
    }
}

/// The opcodes whose results are variable pointers whatever their operands.
pub(crate) const VARIABLE_POINTER_SOURCES: OpSet = OpSet::of(&[
    Op::PtrAccessChain,
    Op::UntypedPtrAccessChainKHR,
    Op::UntypedInBoundsPtrAccessChainKHR,
    Op::Load,
    Op::Select,
    Op::Phi,
    Op::FunctionCall,
    Op::ConstantNull,
]);

/// Whether the result of `inst` is a variable pointer given the variable pointers `var`
/// found so far (`logical_vars` of them logical pointers) and the storage classes of the
/// logical pointer types `type_class` (see the module documentation).
fn variable_result(
    ctx: &Ctx<'_>,
    inst: &Inst<'_>,
    var: &[bool],
    type_class: &[Option<u32>],
    logical_vars: usize,
) -> bool {
    match inst.opcode() {
        Some(op) if VARIABLE_POINTER_SOURCES.contains(op) => true,
        Some(Op::FunctionParameter) => false,
        _ => {
            logical_vars > 0
                && id_operands(ctx, inst).any(|id| {
                    var.get(id.0 as usize).copied().unwrap_or(false)
                        && type_class.of_value(ctx, id).is_some()
                })
        }
    }
}

/// The plain `<id>` operands (not Result Type, scopes or semantics) of `inst`.
fn id_operands<'a>(ctx: &'a Ctx<'_>, inst: &Inst<'_>) -> impl Iterator<Item = Id> + 'a {
    ctx.ix
        .refs_of(inst)
        .iter()
        .filter(|r| matches!(r.kind, Kind::Id))
        .map(|r| r.id)
}

/// Instructions that may take a logical pointer operand without variable pointers.
fn takes_logical_pointer(op: Op) -> bool {
    takes_logical_pointer_listed(op)
        // The names last: they are formatted.
        || format!("{op:?}").starts_with("RayQuery")
        || format!("{op:?}").starts_with("HitObject")
}

/// The opcodes [`takes_logical_pointer`] names one by one (it also accepts the ray query
/// and hit object families): the cheap part of the test.
fn takes_logical_pointer_listed(op: Op) -> bool {
    LOGICAL_POINTER_USERS.contains(op)
}

/// The opcodes of [`takes_logical_pointer_listed`].
pub(crate) const LOGICAL_POINTER_USERS: OpSet = OpSet::of(&[
    Op::Load,
    Op::Store,
    Op::AccessChain,
    Op::InBoundsAccessChain,
    Op::FunctionCall,
    Op::ImageTexelPointer,
    Op::CopyMemory,
    Op::CopyMemorySized,
    Op::CopyObject,
    Op::ArrayLength,
    Op::ExtInst,
    Op::Decorate,
    Op::DecorateId,
    Op::DecorateString,
    Op::GroupDecorate,
    Op::EntryPoint,
    Op::Name,
    Op::UntypedArrayLengthKHR,
    Op::UntypedAccessChainKHR,
    Op::UntypedInBoundsAccessChainKHR,
    Op::CooperativeMatrixLoadKHR,
    Op::CooperativeMatrixLoadNV,
    Op::CooperativeMatrixStoreKHR,
    Op::CooperativeMatrixStoreNV,
    Op::TraceRayKHR,
    Op::ExecuteCallableKHR,
    Op::EmitMeshTasksEXT,
    Op::RawAccessChainNV,
    Op::AtomicFlagTestAndSet,
    Op::AtomicFlagClear,
    Op::AtomicCompareExchangeWeak,
    Op::AtomicFAddEXT,
    Op::AtomicFMinEXT,
    Op::AtomicFMaxEXT,
])
.with(super::atomics::ATOMIC_OPS);

/// Instructions that may take a logical pointer operand with variable pointers.
fn takes_variable_pointer(op: Op) -> bool {
    matches!(
        op,
        Op::ReturnValue
            | Op::PtrAccessChain
            | Op::PtrEqual
            | Op::PtrNotEqual
            | Op::PtrDiff
            | Op::Select
            | Op::Phi
            | Op::Variable
            | Op::UntypedPtrAccessChainKHR
    )
}

/// Completes `var`, which holds the first round (with its `logical_vars` and `changed`, see
/// [`PointerFacts::visit`]), into which values are variable pointers, indexed by id (see the
/// module documentation); returns how many of them are logical pointers.
fn variable_pointers(
    ctx: &Ctx<'_>,
    values: &Values<'_>,
    var: &mut [bool],
    mut logical_vars: usize,
    changed: bool,
) -> usize {
    let is_var = |var: &[bool], id: Id| var.get(id.0 as usize).copied().unwrap_or(false);
    // The arguments of call `at`: the words after the callee.
    let args = |at: InstIndex| ctx.ix.inst(at).and_then(|i| i.words().get(4..));
    // This pass runs only when the id rules hold, so an instruction with a Result names a
    // later id only as an OpPhi (a variable pointer whatever its operands), a non-semantic
    // OpExtInst, or a function or label (never variable pointers): the instruction loop sees
    // every other operand final, and a round after a change matters only when it can reach
    // a parameter (through some call's arguments) or a non-semantic OpExtInst.
    let non_semantic = ctx
        .ix
        .with_op(Op::ExtInst)
        .any(|inst| is_non_semantic(ctx, inst));
    let later_rounds_matter = changed
        && (non_semantic
            || ctx
                .ix
                .with_op(Op::FunctionCall)
                .any(|call| call.words().len() > 4));
    if !later_rounds_matter {
        return logical_vars;
    }
    // `logical_vars` counts the ids that are both variable pointers and logical pointers:
    // while there are none, no operand can make a result a variable pointer, so the
    // operands need no look.
    for _ in 1..MAX_ROUNDS {
        let mut changed = false;
        for (f, calls) in ctx.m.functions().iter().zip(values.calls) {
            for (k, &p) in f.params.iter().enumerate() {
                if is_var(var, p) || values.logical_class(ctx, p).is_none() {
                    continue;
                }
                let passed = calls.iter().any(|&at| {
                    args(at)
                        .and_then(|a| a.get(k))
                        .is_some_and(|&a| is_var(var, Id(a)))
                });
                if passed && let Some(slot) = var.get_mut(p.0 as usize) {
                    *slot = true;
                    changed = true;
                    // `p` is a logical pointer (checked above).
                    logical_vars += 1;
                }
            }
        }
        // The instruction loop of the round before saw every operand final (see above), so
        // without new parameters this one would find nothing new.
        if !changed && !non_semantic {
            break;
        }
        for inst in ctx.ix.insts() {
            let Some(r) = inst.result_id() else { continue };
            if is_var(var, r) {
                continue;
            }
            if variable_result(ctx, inst, var, values.type_class, logical_vars)
                && let Some(slot) = var.get_mut(r.0 as usize)
            {
                *slot = true;
                changed = true;
                if values.logical_class(ctx, r).is_some() {
                    logical_vars += 1;
                }
            }
        }
        if !changed {
            break;
        }
    }
    logical_vars
}

/// Applies the rules, with the facts the ids pass gathered (`None` when the addressing
/// model has no logical pointers): completes the variable pointers, adds the
/// variable-pointer rule's findings (V-PTR-8) to the operand and result rules' ones, and
/// reports them all in instruction order.
pub(crate) fn check(ctx: &mut Ctx<'_>, facts: Option<&mut PointerFacts>) {
    let Some(facts) = facts else {
        return;
    };
    let PointerFacts {
        type_class,
        calls,
        var,
        logical_vars,
        changed,
        problems,
        ..
    } = facts;
    let values = Values { type_class, calls };
    // `var` holds the first round; this completes it in place.
    let logical_vars = variable_pointers(ctx, &values, var, *logical_vars, *changed);
    let var = &*var;
    // V-PTR-8 applies to variable pointers that are logical pointers (none when
    // `logical_vars` is 0) and to OpArrayLength's operand.
    let mut late: Vec<Problem> = Vec::new();
    if logical_vars > 0 {
        let mut tracer: Option<Tracer> = None;
        for inst in ctx.ix.insts() {
            if inst.opcode().is_none() {
                continue;
            }
            if let Some(r) = inst.result_id()
                && values.logical_class(ctx, r).is_some()
                && var.get(r.0 as usize).copied().unwrap_or(false)
                && let Some(why) = tracer
                    .get_or_insert_with(|| Tracer::new(ctx))
                    .variable_pointer_problem(ctx, *inst)
            {
                late.push(("V-PTR-8", inst.index(), r, why.to_owned()));
            }
        }
    }
    for inst in ctx.ix.with_op(Op::ArrayLength) {
        if let Some(r) = inst.result_id()
            && values.logical_class(ctx, r).is_none()
            && let Some(&p) = inst.words().get(3)
            && var.get(p as usize).copied().unwrap_or(false)
        {
            late.push((
                "V-PTR-8",
                inst.index(),
                Id(p),
                "OpArrayLength's pointer operand must not be a variable pointer".into(),
            ));
        }
    }
    if !late.is_empty() {
        // An instruction's V-PTR-8 follows its other findings: a stable sort by instruction
        // keeps that order.
        problems.append(&mut late);
        problems.sort_by_key(|p| p.1.0);
    }
    for (rule, at, id, message) in problems.drain(..) {
        ctx.err(rule, at, &[id], message);
    }
}

/// Follows variable pointers back to where they come from (spirv-val's
/// `TraceVariablePointers`).
struct Tracer {
    /// The objects stored through each Function or Private variable (directly or through
    /// access chains into it).
    stores: HashMap<u32, Vec<Id>>,
    /// The values each function returns.
    returns: HashMap<u32, Vec<Id>>,
    /// The arguments every call passes, per callee.
    calls: HashMap<u32, Vec<Vec<Id>>>,
}

impl Tracer {
    fn new(ctx: &Ctx<'_>) -> Tracer {
        let mut stores: HashMap<u32, Vec<Id>> = HashMap::new();
        let mut returns: HashMap<u32, Vec<Id>> = HashMap::new();
        let mut calls: HashMap<u32, Vec<Vec<Id>>> = HashMap::new();
        for inst in ctx.ix.insts().copied() {
            match (ctx.reader_op(inst), inst.words()) {
                (Some(Op::Store), [_, pointer, object, ..]) => {
                    let root = root_variable(ctx, Id(*pointer));
                    stores.entry(root.0).or_default().push(Id(*object));
                }
                (Some(Op::ReturnValue), [_, value]) => {
                    let func = ctx
                        .inst_func(inst.index())
                        .and_then(|&f| ctx.m.functions().get(f as usize));
                    if let Some(f) = func {
                        returns.entry(f.id.0).or_default().push(Id(*value));
                    }
                }
                (Some(Op::FunctionCall), [_, _, _, callee, args @ ..]) => {
                    calls
                        .entry(*callee)
                        .or_default()
                        .push(args.iter().map(|&a| Id(a)).collect());
                }
                _ => {}
            }
        }
        Tracer {
            stores,
            returns,
            calls,
        }
    }

    /// Why the variable pointer `inst` breaks V-PTR-8, if it does.
    fn variable_pointer_problem(&self, ctx: &Ctx<'_>, inst: Inst<'_>) -> Option<&'static str> {
        let ty = inst.result_type()?;
        let (_, pointee) = ctx.pointer(ty)?;
        if is_block_array(ctx, pointee) {
            return Some(
                "a variable pointer must not point to an array of Block- or BufferBlock-decorated \
                 structs",
            );
        }
        if ctx.contains(pointee, &|t| matches!(t, Type::Matrix { .. })) {
            return Some(
                "a variable pointer must not point to an object that is or contains a matrix",
            );
        }
        if ctx.is_float(pointee) && self.reaches_matrix_element(ctx, inst) {
            return Some(
                "a variable pointer must not point to a column or a component of a column of a \
                 matrix",
            );
        }
        None
    }

    /// Whether some access chain `inst` comes from steps into a matrix.
    fn reaches_matrix_element(&self, ctx: &Ctx<'_>, inst: Inst<'_>) -> bool {
        let mut stack: Vec<Id> = inst.result_id().into_iter().collect();
        let mut seen: HashSet<u32> = HashSet::new();
        while let Some(id) = stack.pop() {
            if seen.len() >= MAX_TRACE {
                break;
            }
            if !seen.insert(id.0) {
                continue;
            }
            let Some(def) = ctx.ix.def(id).copied() else {
                continue;
            };
            let words = def.words();
            let operand = |n: usize| words.get(n).map(|&w| Id(w));
            match ctx.reader_op(def) {
                Some(op @ (Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain)) => {
                    if chain_enters_matrix(ctx, def, op == Op::PtrAccessChain) {
                        return true;
                    }
                    stack.extend(operand(3));
                }
                Some(Op::Phi) => {
                    stack.extend(words.iter().skip(3).step_by(2).map(|&w| Id(w)));
                }
                Some(Op::Select) => stack.extend(operand(4).into_iter().chain(operand(5))),
                Some(Op::CopyObject | Op::Load) => stack.extend(operand(3)),
                Some(Op::FunctionParameter) => {
                    if let Some(f) = ctx
                        .id_func(id)
                        .and_then(|&f| ctx.m.functions().get(f as usize))
                        && let Some(k) = f.params.iter().position(|&p| p == id)
                    {
                        for args in self.calls.get(&f.id.0).into_iter().flatten() {
                            stack.extend(args.get(k));
                        }
                    }
                }
                Some(Op::FunctionCall) => {
                    if let Some(callee) = operand(3) {
                        stack.extend(self.returns.get(&callee.0).into_iter().flatten());
                    }
                }
                Some(Op::Variable) => {
                    let class = words.get(3).copied();
                    if class == Some(S::Function as u32) || class == Some(S::Private as u32) {
                        stack.extend(operand(4));
                        stack.extend(self.stores.get(&id.0).into_iter().flatten());
                    }
                }
                _ => {}
            }
        }
        false
    }
}

/// The variable an access chain (or a chain of them) starts from.
fn root_variable(ctx: &Ctx<'_>, mut pointer: Id) -> Id {
    for _ in 0..MAX_TYPE_DEPTH {
        let Some(def) = ctx.ix.def(pointer).copied() else {
            break;
        };
        match (ctx.reader_op(def), def.words().get(3)) {
            (Some(Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain), Some(&base)) => {
                pointer = Id(base)
            }
            _ => break,
        }
    }
    pointer
}

/// Whether `ty` is an array of Block or BufferBlock structs.
fn is_block_array(ctx: &Ctx<'_>, ty: Id) -> bool {
    match ctx.ty(ty) {
        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
            matches!(ctx.ty(*element), Some(Type::Struct { .. }))
                && (ctx.m.decoration(*element, D::Block).is_some()
                    || ctx.m.decoration(*element, D::BufferBlock).is_some())
        }
        _ => false,
    }
}

/// Whether access chain `inst` starts at or passes through a matrix.
fn chain_enters_matrix(ctx: &Ctx<'_>, inst: Inst<'_>, ptr_chain: bool) -> bool {
    let words = inst.words();
    let Some(mut ty) = words
        .get(3)
        .and_then(|&b| ctx.type_of(Id(b)))
        .and_then(|t| ctx.pointer(t))
        .map(|(_, p)| p)
    else {
        return false;
    };
    if matches!(ctx.ty(ty), Some(Type::Matrix { .. })) {
        return true;
    }
    let first_index = if ptr_chain { 5 } else { 4 };
    for &index in words.iter().skip(first_index) {
        ty = match ctx.ty(ty) {
            Some(Type::Struct { members }) => {
                let k = ctx.const_scalar(Id(index)).unwrap_or(0);
                match usize::try_from(k).ok().and_then(|k| members.get(k)) {
                    Some(&m) => m,
                    None => return false,
                }
            }
            Some(
                Type::Array { element: e, .. }
                | Type::RuntimeArray { element: e }
                | Type::Vector { component: e, .. }
                | Type::Matrix { column: e, .. },
            ) => *e,
            _ => return false,
        };
        if matches!(ctx.ty(ty), Some(Type::Matrix { .. })) {
            return true;
        }
    }
    false
}
