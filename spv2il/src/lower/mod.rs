//! Lowering: a validated SPIR-V module and an entry point become an IL compute program.
//!
//! The lowering walks the entry function's structured region tree (spv-cfg) and emits IL for each
//! block body in order. Values go to fresh temporaries ([`values`]); memory accesses become UAV,
//! constant-buffer or register operations ([`memory`]); arithmetic maps one instruction to one or
//! a few IL instructions ([`ops`]). The program is assembled at the end in the order AMD's own
//! compiler used for compute kernels (amd-il.md §3.8): version, thread-group size, literals,
//! resource declarations, code, `ret_dyn`, `end`.

mod double;
mod flow;
mod glsl;
mod id_table;
mod images;
mod memory;
mod ops;
mod resources;
mod spec;
mod types;
mod values;
mod wide;

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::ops::Range;
use std::rc::Rc;

use il_model::limits::MAX_TEMP_REGISTERS;
use il_model::{Inst, Opcode, Program, ShaderKind};
use spv_reader::{Function, Id, Inst as SpvInst, InstIndex, Module, spirv};

use crate::Options;
use crate::error::{Error, Unsupported};
use crate::reflect::Reflection;
use id_table::IdTable;
use memory::Place;
use resources::Resources;
use values::{Registers, Value};

/// Lowers the entry point `options.entry` (or the only GLCompute one) of `module`.
pub fn lower(
    module: &Module,
    info: &spv_validate::ModuleInfo,
    options: &Options,
) -> Result<(Program, Reflection), Error> {
    let entry = pick_entry(module, options)?;
    let function = module.function(entry.function).ok_or_else(|| {
        Error::Options(format!(
            "entry point function {} is not defined",
            entry.function
        ))
    })?;
    refuse_float_controls(module, entry.function)?;
    refuse_target_without_raw_uavs(options.target)?;
    let mut scratch = SCRATCH.take();
    let mut lowerer = Lowerer::new(module, info, options, &mut scratch);
    let reachable = reachable_functions(module, info, function, std::mem::take(&mut scratch.uses))?;
    let functions = reachable.functions;
    lowerer.reserve_code(&functions);
    // `NumWorkgroups` is read from the driver constants; a size query reserves them itself
    // (`Resources::driver_cb_for_sizes`).
    let needs_driver_cb = module
        .global_variables()
        .iter()
        .any(|v| memory::builtin_of(module, v.id) == Some(spirv::BuiltIn::NumWorkgroups));
    lowerer.resources = Resources::collect(
        module,
        &reachable.mentioned,
        needs_driver_cb,
        &mut lowerer.constants,
    )?;
    lowerer.uses = reachable.mentioned;
    lowerer.declare_private_globals()?;
    lowerer.lower_function_body(function)?;
    lowerer.check_register_budget()?;
    let workgroup_size = lowerer.workgroup_size(entry.function)?;
    check_workgroup_size(workgroup_size)?;
    let reflection = Reflection {
        entry_point: entry.name.clone(),
        workgroup_size,
        resources: lowerer.resources.bindings(module),
        lds_bytes: lowerer.resources.lds_bytes(),
        spec_constants: lowerer.constants.used(),
    };
    Ok((lowerer.assemble(workgroup_size), reflection))
}

/// An [`Error::Internal`] (a bug of the translator's, not a property of the module) saying
/// `message`.
// Cold and out of line: the checks that report one sit on hot paths (every block, every
// operand), and their message formatting, inlined, would spread those paths' code.
#[cold]
#[inline(never)]
fn internal(message: std::fmt::Arguments<'_>) -> Error {
    Error::Internal(message.to_string())
}

/// The Result Type, Result id and operands of `inst`, whose opcode has both a Result Type and a
/// Result id (the caller dispatched on it): read from their fixed word positions (SPIR-V §2.3),
/// as `Inst::result_type`, `Inst::result_id` and `Inst::operands` would give them, without the
/// opcode-table lookup each of those makes.
fn typed_parts(inst: SpvInst<'_>) -> (Option<Id>, Option<Id>, &[u32]) {
    let words = inst.words();
    (
        words.get(1).map(|&w| Id(w)),
        words.get(2).map(|&w| Id(w)),
        words.get(3..).unwrap_or(&[]),
    )
}

/// The operands of `inst`, whose opcode has neither a Result Type nor a Result id (the
/// terminators, SPIR-V §3.3.17): every word after the opcode word, as `Inst::operands` would
/// give them, without the opcode-table lookup it makes.
fn untyped_operands(inst: SpvInst<'_>) -> &[u32] {
    inst.words().get(1..).unwrap_or(&[])
}

/// Whether `inst` has opcode `op`. Compares the raw opcode number: decoding it into
/// `spirv::Op` is a large match, and the scans of function bodies ask this of every instruction.
fn has_opcode(inst: SpvInst<'_>, op: spirv::Op) -> bool {
    u32::from(inst.raw_opcode()) == op as u32
}

/// Float-control execution modes IL cannot honour (SPIR-V §3.2.5, SPV_KHR_float_controls):
/// Evergreen-era IL flushes fp32 denormals (amd-il.md §0.3), so a module that asks for them to be
/// preserved is refused rather than silently computed differently.
fn refuse_float_controls(module: &Module, function: Id) -> Result<(), Error> {
    for mode in module.execution_modes() {
        if mode.target == function
            && mode.execution_mode() == Some(spirv::ExecutionMode::DenormPreserve)
            && mode.operands.first() == Some(&32)
        {
            return Err(Unsupported::at(
                module,
                mode.inst,
                "DenormPreserve for 32-bit floats (IL flushes fp32 denormals)",
            )
            .into());
        }
    }
    Ok(())
}

/// Families before Evergreen: a translation's storage buffers are raw UAVs written through the
/// `mem` register (`uav_raw_store`, amd-il.md §2.2), which begin with Evergreen (guide Appendix
/// D), so IL for R600 or R700 would fail il-model's verifier. They are refused up front, as a
/// target the translator does not support, rather than reported as a bug after lowering.
fn refuse_target_without_raw_uavs(target: il_model::Family) -> Result<(), Error> {
    if il_model::RegType::GenericMem
        .info()
        .families
        .contains(target)
    {
        return Ok(());
    }
    Err(Unsupported::new(format!(
        "translating for {} (raw UAVs and the `mem` register begin with Evergreen, guide \
         Appendix D; the targets are evergreen, cayman and si)",
        target.name()
    ))
    .into())
}

/// A work-group size IL can declare (`il_model::limits::declarable_group`: 1 to 1024
/// invocations, amd-il.md §8.5). A validated module can still ask for more (the SPIR-V limit is
/// the device's), or for none once specialization constants are applied; both are refused
/// rather than written into `dcl_num_thread_per_group`.
fn check_workgroup_size(size: [u32; 3]) -> Result<(), Error> {
    if il_model::limits::declarable_group(&size) {
        return Ok(());
    }
    let [x, y, z] = size;
    Err(Unsupported::new(format!(
        "a work-group of {x} × {y} × {z} = {} invocations (IL work-groups have 1 to {}, \
         amd-il.md §8.5)",
        il_model::limits::group_invocations(&size),
        il_model::limits::MAX_GROUP_INVOCATIONS
    ))
    .into())
}

/// The module-scope instructions (SPIR-V §2.4: everything before the first `OpFunction`), read
/// from the words directly (SPIR-V §2.3: a five-word header, then each instruction's word count
/// in the high half of its first word), each as its words, or `None` for a word count that is
/// zero or runs past the end, after which the walk stops. The reader has already refused both,
/// so `None` never comes from a module it read; each caller still says what it would mean.
/// Reading the words costs far less than asking the module's tables id by id.
fn module_scope_insts(module: &Module) -> impl Iterator<Item = Option<&[u32]>> {
    const HEADER_WORDS: usize = 5;
    let words = module.words();
    let mut start = HEADER_WORDS;
    let mut ended = false;
    std::iter::from_fn(move || {
        if ended {
            return None;
        }
        let &first = words.get(start)?;
        let (count, op) = ((first >> 16) as usize, first & 0xFFFF);
        if op == spirv::Op::Function as u32 {
            return None;
        }
        let inst = words.get(start..start + count).filter(|_| count > 0);
        ended = inst.is_none();
        start += count;
        Some(inst)
    })
}

/// Every id that may carry `BuiltIn WorkgroupSize` (SPIR-V §3.21): the targets of the
/// `OpDecorate … BuiltIn WorkgroupSize` instructions. Annotations precede every type declaration
/// (SPIR-V §2.4 logical layout, checked by the validator), so the walk stops at the first core
/// `OpType…`. A decoration group can pass the decoration on to ids its own `OpDecorate` does not
/// name, so a module with `OpGroupDecorate` (or `OpDecorateId`, which the reader indexes alike)
/// gets every id instead.
fn workgroup_size_candidates(module: &Module) -> Vec<Id> {
    const HEADER_WORDS: usize = 5;
    let first_type = spirv::Op::TypeVoid as u32;
    let last_type = spirv::Op::TypeForwardPointer as u32;
    let mut candidates = Vec::new();
    // The module-scope instructions as `module_scope_insts` walks them, in one plain loop over
    // the words: the debug names before the annotations make this walk a hundred
    // instructions or so per module. A malformed instruction (a word count that is zero or
    // runs past the end) ends the annotations like a type would, and so does `OpFunction`
    // (no annotation follows it).
    let mut rest = module.words().get(HEADER_WORDS..).unwrap_or(&[]);
    while let Some(&first) = rest.first() {
        let (count, op) = ((first >> 16) as usize, first & 0xFFFF);
        let (Some(inst), Some(next)) = (rest.get(..count), rest.get(count..)) else {
            break;
        };
        if count == 0 || op == spirv::Op::Function as u32 || (first_type..=last_type).contains(&op)
        {
            break;
        }
        if op == spirv::Op::GroupDecorate as u32 || op == spirv::Op::DecorateId as u32 {
            return (0..module.header().bound).map(Id).collect();
        }
        if op == spirv::Op::Decorate as u32
            && let [_, target, decoration, builtin, ..] = inst
            && *decoration == spirv::Decoration::BuiltIn as u32
            && *builtin == spirv::BuiltIn::WorkgroupSize as u32
        {
            candidates.push(Id(*target));
        }
        rest = next;
    }
    candidates
}

/// Capabilities that neither are nor imply (directly or through others, SPIR-V §3.2.30)
/// `Int64` or `Float64`; the test `narrow_only_capabilities_imply_no_64_bit_one` checks it
/// against the grammar.
const NARROW_ONLY_CAPABILITIES: [spirv::Capability; 5] = [
    spirv::Capability::Matrix,
    spirv::Capability::Shader,
    spirv::Capability::StorageImageExtendedFormats,
    spirv::Capability::ImageQuery,
    spirv::Capability::VulkanMemoryModel,
];

/// Whether `module` declares a 64-bit integer or float type (`OpTypeInt 64` or
/// `OpTypeFloat 64`, SPIR-V §3.3.6). Types are declared before the first `OpFunction` (SPIR-V
/// §2.4 logical layout, checked by the validator), so only the module-scope instructions are
/// read. Every 64-bit scalar, vector or matrix type is built on one of these, so a module
/// without one has no 64-bit value.
fn declares_wide_type(module: &Module) -> bool {
    // The validator refuses a 64-bit integer type without the Int64 capability and a 64-bit
    // float type without Float64, counting those the declared ones imply (SPIR-V §2.16.1,
    // §3.2.30); lowering only sees validated modules. When every declared capability is one
    // that implies neither, no declaration needs reading.
    if module.capabilities().iter().all(|&cap| {
        NARROW_ONLY_CAPABILITIES
            .iter()
            .any(|&narrow| narrow as u32 == cap)
    }) {
        return false;
    }
    module_scope_insts(module).any(|inst| match inst {
        // OpTypeInt and OpTypeFloat: Result id, then Width (SPIR-V §3.3.6).
        Some([first, _, width, ..]) => {
            let op = first & 0xFFFF;
            (op == spirv::Op::TypeInt as u32 || op == spirv::Op::TypeFloat as u32) && *width == 64
        }
        Some(_) => false,
        // "Yes" keeps every type asked about one by one.
        None => true,
    })
}

/// What one walk over the reachable functions' instructions finds.
struct Reachable<'m> {
    /// The entry function and every function it calls, directly or not.
    functions: Vec<&'m Function>,
    /// Indexed by id: how many words of the instructions of those functions (after their
    /// opcode words) equal it: the result id of its definition, and its uses as an operand. A
    /// literal that happens to equal an id counts too, which only costs an unused declaration
    /// (of a variable) or a copy that is kept (see [`Lowerer::uses`]).
    mentioned: Vec<u32>,
}

impl Reachable<'_> {
    /// Counts what instruction `words` (opcode word first) mentions.
    fn visit(&mut self, words: &[u32]) {
        // Every word after the opcode word is marked, Result Type and Result id included:
        // those are types and function-local results, never module-scope variables, the
        // only ids `mentioned` is asked about; skipping them would cost a grammar lookup.
        let mentioned = self.mentioned.as_mut_slice();
        for &word in words.get(1..).unwrap_or(&[]) {
            if let Some(count) = mentioned.get_mut(word as usize) {
                // A count is at most the number of words of the module, which the reader
                // keeps below `spv_reader::limits::MAX_WORDS` (2^26), far below u32::MAX.
                *count += 1;
            }
        }
    }

    /// Counts every word of `words`, whole instructions opcode words included, as
    /// [`Reachable::visit`] counts the words after the opcode words: `mentioned` has one slot
    /// past the bound, which every word naming no id counts into, so that the loop has no
    /// branch but its own. The caller makes sure no opcode word can equal an id: an opcode
    /// word holds a word count of at least 1 in its high half (SPIR-V §2.3), so it is at least
    /// 2^16, and the bound is at most that.
    fn count_words(&mut self, words: &[u32]) {
        let mentioned = self.mentioned.as_mut_slice();
        // The slot past the bound (`mentioned` is never empty here); every index below is at
        // most it, which lets the compiler drop the bounds checks.
        let Some(past_bound) = mentioned.len().checked_sub(1) else {
            return;
        };
        let mut count = |word: u32| {
            if let Some(count) = mentioned.get_mut((word as usize).min(past_bound)) {
                *count += 1;
            }
        };
        // Four words a round: the loop's own step and test are paid once per four words.
        let mut quads = words.chunks_exact(4);
        for &[a, b, c, d] in quads.by_ref().filter_map(|q| <&[u32; 4]>::try_from(q).ok()) {
            count(a);
            count(b);
            count(c);
            count(d);
        }
        for &word in quads.remainder() {
            count(word);
        }
    }
}

/// The words of the instructions with indices in `range`, one slice from the first one's start
/// to the next one's, so that a walk reads them without building a view of each; `None` when
/// the byte offsets the reader gives cannot place them (a module past 4 GiB).
fn function_words(module: &Module, range: Range<u32>) -> Option<&[u32]> {
    let words = module.words();
    let word_at = |index: u32| -> Option<usize> {
        match module.inst(InstIndex(index)) {
            Some(inst) => {
                let offset = inst.location().byte_offset;
                // `byte_offset` saturates; a saturated one cannot be trusted.
                (offset != u32::MAX).then_some(offset as usize / 4)
            }
            None => Some(words.len()),
        }
    };
    if range.start >= range.end {
        return Some(&[]);
    }
    words.get(word_at(range.start)?..word_at(range.end)?)
}

/// Counts the words of `entry` and every function it calls, directly or not (the call tree
/// the validator found for the entry point: every `OpFunctionCall` of those functions, as
/// written). `mentioned` is a buffer to count in (its contents are discarded).
fn reachable_functions<'m>(
    module: &'m Module,
    info: &spv_validate::ModuleInfo,
    entry: &'m Function,
    mut mentioned: Vec<u32>,
) -> Result<Reachable<'m>, Error> {
    let tree = info
        .entry_points
        .iter()
        .find(|point| point.function == entry.id)
        .map(|point| point.call_tree.as_slice())
        .ok_or_else(|| {
            internal(format_args!(
                "no validator facts for the entry point function {}",
                entry.id
            ))
        })?;
    let functions: Vec<&Function> = tree.iter().filter_map(|&id| module.function(id)).collect();
    let bound = module.header().bound as usize;
    // Below this bound no opcode word can equal an id (see `Reachable::count_words`).
    let flat = bound <= 1 << 16;
    mentioned.clear();
    mentioned.resize(bound + usize::from(flat), 0);
    let mut reachable = Reachable {
        functions,
        mentioned,
    };
    for at in 0..reachable.functions.len() {
        let Some(function) = reachable.functions.get(at).copied() else {
            continue;
        };
        let Some(start) = function.def.0.checked_add(1) else {
            continue;
        };
        let range = start..function.end.0;
        match function_words(module, range.clone()) {
            // The reader checked that the words are whole instructions (SPIR-V §2.3: each
            // one's word count, the high half of its first word, is at least 1 and fits).
            Some(words) if flat => reachable.count_words(words),
            Some(mut rest) => {
                while let Some(&first) = rest.first() {
                    let count = (first >> 16) as usize;
                    let (Some(words), Some(next)) = (rest.get(..count), rest.get(count..)) else {
                        break;
                    };
                    if count == 0 {
                        break;
                    }
                    reachable.visit(words);
                    rest = next;
                }
            }
            None => {
                for inst in module.instructions_in(range) {
                    reachable.visit(inst.words());
                }
            }
        }
    }
    // The slot past the bound counted the words that name no id.
    reachable.mentioned.truncate(bound);
    Ok(reachable)
}

/// The entry point to translate: the one named in the options, else the only GLCompute one.
fn pick_entry<'m>(
    module: &'m Module,
    options: &Options,
) -> Result<&'m spv_reader::EntryPoint, Error> {
    let compute = |e: &&spv_reader::EntryPoint| e.model() == Some(spirv::ExecutionModel::GLCompute);
    if let Some(name) = &options.entry {
        let entry = module
            .entry_points()
            .iter()
            .find(|e| &e.name == name)
            .ok_or_else(|| Error::Options(format!("no entry point named `{name}`")))?;
        if !compute(&entry) {
            return Err(Unsupported::at(
                module,
                entry.inst,
                format!("entry point `{name}`: only GLCompute entry points are translated"),
            )
            .into());
        }
        return Ok(entry);
    }
    let mut candidates = module.entry_points().iter().filter(compute);
    match (candidates.next(), candidates.next()) {
        (Some(entry), None) => Ok(entry),
        (None, _) => match module.entry_points().first() {
            Some(other) => Err(Unsupported::at(
                module,
                other.inst,
                "only GLCompute entry points are translated",
            )
            .into()),
            None => Err(Error::Options("the module has no entry point".to_string())),
        },
        (Some(_), Some(_)) => Err(Error::Options(
            "the module has several GLCompute entry points; choose one with --entry".to_string(),
        )),
    }
}

/// One instance of a called function as an IL subroutine (`func label` … `endfunc`).
pub(crate) struct Subroutine {
    /// The callee.
    function: Id,
    /// The pointer arguments (parameter and place), which the instance is specialised for.
    pointer_args: Vec<(Id, Place)>,
    /// The `func` / `call` label (1, 2, ...).
    label: u32,
    /// Value parameters and the registers the caller fills before `call`.
    params: Vec<(Id, u32, u8)>,
    /// The register and element count of the returned value.
    result: Option<(u32, u8)>,
    /// The body's code.
    body: Vec<Inst>,
}

/// `dcl_global_flags enableDoublePrecisionFloatOps`: control bit 3 (guide §7.5, amd-il.md §1.12).
const ENABLE_DOUBLE_PRECISION: il_model::Control = il_model::Control(1 << 3);

/// IL instructions reserved beyond the estimate for the code: declarations are spliced in front
/// of the code at the end ([`Lowerer::assemble`]).
const CODE_HEADROOM: usize = 64;

/// The most IL instructions [`Lowerer::reserve_code`] reserves before lowering.
const MAX_CODE_RESERVATION: usize = 1 << 14;

/// Room for the IL code of `spirv_instructions` SPIR-V instructions (see
/// [`Lowerer::reserve_code`]).
fn code_capacity(spirv_instructions: usize) -> usize {
    spirv_instructions
        .saturating_mul(2)
        .saturating_add(CODE_HEADROOM)
        .min(MAX_CODE_RESERVATION)
}

/// The member number that stands for "the type itself" in [`Lowerer::layout_decorations`]
/// keys (SPIR-V struct member numbers are far below it: a struct has at most as many members
/// as a module has words).
const NO_MEMBER: u32 = u32::MAX;

/// How deeply constant structs and arrays may nest.
const MAX_CONSTANT_NESTING: u32 = 64;

/// An imported extended-instruction set, as far as the lowering cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExtSet {
    /// `GLSL.std.450`.
    Glsl,
    /// A `NonSemantic.*` set, whose instructions have no effect.
    NonSemantic,
    /// Any other set (or an id that names none).
    Other,
}

/// The per-id tables of a translation (see [`Lowerer`]), kept per thread between
/// translations: a module then costs no allocation (and no free) for them once one at least as
/// large has been lowered on the thread. The lists are empty between translations.
///
/// So are the lists that grow with the lowering (the member places of composite variables,
/// the members of aggregate values, the layout decorations and function plans looked up, the
/// stack of aggregate parts, the literal set) and the declarations' list of
/// [`Lowerer::assemble`], each of which would otherwise be allocated and grown again per
/// translation.
#[derive(Default)]
struct Scratch {
    value_slots: Vec<u32>,
    values: Vec<Value>,
    place_slots: Vec<u32>,
    places: Vec<Place>,
    shapes: Vec<Cell<Option<types::Shape>>>,
    wide_types: Vec<u8>,
    uses: Vec<u32>,
    composite_places: Vec<Place>,
    members: values::MemberValues,
    layout_decorations: HashMap<(u32, u32), Option<u32>, BuildHasherDefault<values::WordHasher>>,
    plans: HashMap<Id, Rc<flow::FunctionPlan>, BuildHasherDefault<values::WordHasher>>,
    part_stack: Vec<(Place, Id)>,
    literals: values::Literals,
    header: Vec<Inst>,
}

/// The most entries a [`Scratch`] list may have room for to be kept: the tables of one huge
/// module are dropped rather than pinned for the rest of the thread's life.
const MAX_KEPT_SCRATCH: usize = 1 << 16;

/// The most declarations the kept declarations' list may have room for: an IL instruction is
/// about 150 bytes, so its bound is lower than that of the lists of words.
const MAX_KEPT_HEADER: usize = 1 << 10;

thread_local! {
    /// This thread's [`Scratch`], taken for the length of one translation (a translation
    /// that fails leaves a fresh one behind).
    static SCRATCH: Cell<Scratch> = const { Cell::new(Scratch::EMPTY) };
}

impl Scratch {
    /// No lists yet.
    const EMPTY: Scratch = Scratch {
        value_slots: Vec::new(),
        values: Vec::new(),
        place_slots: Vec::new(),
        places: Vec::new(),
        shapes: Vec::new(),
        wide_types: Vec::new(),
        uses: Vec::new(),
        composite_places: Vec::new(),
        members: values::MemberValues::EMPTY,
        layout_decorations: HashMap::with_hasher(BuildHasherDefault::new()),
        plans: HashMap::with_hasher(BuildHasherDefault::new()),
        part_stack: Vec::new(),
        literals: values::Literals::with_hasher(BuildHasherDefault::new()),
        header: Vec::new(),
    };

    /// Keeps the lists (emptied already) for the next translation on this thread, unless one
    /// of them grew past [`MAX_KEPT_SCRATCH`] (the declarations' list past
    /// [`MAX_KEPT_HEADER`]).
    fn keep(self) {
        let largest = [
            self.value_slots.capacity(),
            self.values.capacity(),
            self.place_slots.capacity(),
            self.places.capacity(),
            self.shapes.capacity(),
            self.wide_types.capacity(),
            self.uses.capacity(),
            self.composite_places.capacity(),
            self.members.capacity(),
            self.layout_decorations.capacity(),
            self.plans.capacity(),
            self.part_stack.capacity(),
            self.literals.capacity(),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        if largest <= MAX_KEPT_SCRATCH && self.header.capacity() <= MAX_KEPT_HEADER {
            SCRATCH.set(self);
        }
    }
}

/// The state of one translation.
pub(crate) struct Lowerer<'m> {
    module: &'m Module,
    #[allow(dead_code, reason = "read by spec-constant and family-gated lowering")]
    options: &'m Options,
    regs: Registers,
    /// The value of each SSA id that has been lowered, by id.
    values: IdTable<Value>,
    /// The place each pointer id designates, by id.
    places: IdTable<Place>,
    /// The member places of every composite variable made so far, each variable's members
    /// one range of it ([`memory::Members`]); a composite place names its range, so that
    /// places stay plain words.
    composite_places: Vec<Place>,
    /// The members of every aggregate value and the parts of every split 64-bit vector made
    /// so far ([`values::MemberValues`]); a value names its range, so that values are plain
    /// words.
    members: values::MemberValues,
    /// What validation found out about the module (result types by id).
    info: &'m spv_validate::ModuleInfo,
    /// Whether the module declares a 64-bit integer or float type ([`declares_wide_type`]):
    /// without one no type is 64-bit, and the wide-type questions answer at once.
    declares_wide: bool,
    /// Per type id: whether it is a 64-bit type (0 = not yet asked, 1 = no, 2 = yes).
    wide_types: Vec<u8>,
    /// Per type id: its register shape, once asked for (see [`Lowerer::shape_of`]).
    shapes: Vec<Cell<Option<types::Shape>>>,
    /// Explicit-layout decorations read so far (see [`Lowerer::member_offset`]): the `Offset`
    /// of (struct, member), and the `ArrayStride` of (array, [`NO_MEMBER`]). Looked up, never
    /// iterated.
    layout_decorations: HashMap<(u32, u32), Option<u32>, BuildHasherDefault<values::WordHasher>>,
    resources: Resources,
    /// Per id, how many words of the reachable functions' instructions name it (see
    /// `Reachable::mentioned`): one for its definition plus one per use, at least. Load and
    /// store forwarding ([`memory`]) rely on it to know every use of a value.
    uses: Vec<u32>,
    /// The end (exclusive) of the body of the block being lowered, as a word offset into the
    /// module: load forwarding looks for the uses of a loaded value up to it.
    block_body_end: usize,
    /// How many temporaries had been handed out when the instruction being lowered began
    /// ([`Lowerer::lower_inst`]): a result in a temporary numbered from it on was made by
    /// that instruction.
    inst_temp_mark: u32,
    /// The value whose fresh temporary the last IL instruction emitted writes whole, and the
    /// length of the code then ([`Lowerer::define_fresh`]); store and phi forwarding make
    /// that instruction write the destination instead of copying the value.
    fresh: Option<(Id, usize)>,
    /// Per opcode number below [`ops::TYPED_OPCODES_CACHED`]: whether its instructions have a
    /// Result Type and a Result id, once an instruction with it has been split (0 = not yet,
    /// 1 = yes, 2 = no; see `Lowerer::split_parts`).
    typed_opcodes: [u8; ops::TYPED_OPCODES_CACHED],
    /// Element counts of the indexed temporary arrays `x0`, `x1`, ... declared so far.
    indexed_temps: Vec<u32>,
    /// The operands nested in the operands emitted so far (register-relative indices); the
    /// program takes them over.
    nested: il_model::Nested,
    /// The declarations' list while the program is assembled, kept per thread.
    header: Vec<Inst>,
    /// IL subroutines made from called functions that return early, in label order.
    subroutines: Vec<Subroutine>,
    /// The last `func` label handed out.
    last_subroutine_label: u32,
    /// How many inlined calls enclose the code being lowered.
    call_depth: u32,
    /// Evaluates constants with the `--spec` overrides applied.
    constants: spec::ConstantEvaluator<'m>,
    /// The code emitted so far, in program order.
    code: Vec<Inst>,
    /// Whether any instruction emitted so far (subroutine bodies included) is a double-precision
    /// one: noted as each is emitted, so that [`Lowerer::assemble`] need not read the whole code
    /// again for the `dcl_global_flags` decision.
    uses_doubles: bool,
    /// Scratch list of the elements a vector is gathered from (OpVectorShuffle,
    /// OpCompositeConstruct), kept between instructions so that each does not allocate one.
    element_scratch: Vec<Value>,
    /// Working lists of the phi copies of an edge (see [`flow::EdgeScratch`]).
    edge_scratch: flow::EdgeScratch,
    /// The member places and types of the aggregates being loaded or stored, innermost last
    /// (see [`Lowerer::parts`]).
    part_stack: Vec<(Place, Id)>,
    /// The kind of each extended-instruction set asked about so far (see
    /// [`Lowerer::ext_set`]); a module imports a handful.
    ext_sets: Vec<(Id, ExtSet)>,
    /// The plan (region tree, phis, block bounds) of each function lowered so far, by function
    /// id (looked up, never iterated, so the map's order cannot reach the output). Keyed by
    /// ids the module chose, hashed like the literal set ([`values::WordHasher`]): SipHash and
    /// its per-map random keys cost more than the few lookups a translation makes.
    plans: HashMap<Id, Rc<flow::FunctionPlan>, BuildHasherDefault<values::WordHasher>>,
}

impl<'m> Lowerer<'m> {
    /// A lowerer for `module`, its per-id tables made in the buffers of `scratch`.
    fn new(
        module: &'m Module,
        info: &'m spv_validate::ModuleInfo,
        options: &'m Options,
        scratch: &mut Scratch,
    ) -> Lowerer<'m> {
        let bound = module.header().bound as usize;
        let declares_wide = declares_wide_type(module);
        use std::mem::take;
        let mut wide_types = take(&mut scratch.wide_types);
        wide_types.clear();
        // Only asked when the module declares a 64-bit type (see `is_wide_type_cached`).
        if declares_wide {
            wide_types.resize(bound, 0);
        }
        let mut shapes = take(&mut scratch.shapes);
        shapes.clear();
        shapes.resize(bound, Cell::new(None));
        Lowerer {
            module,
            options,
            regs: Registers::reusing(take(&mut scratch.literals)),
            values: IdTable::reusing(
                bound,
                take(&mut scratch.value_slots),
                take(&mut scratch.values),
            ),
            places: IdTable::reusing(
                bound,
                take(&mut scratch.place_slots),
                take(&mut scratch.places),
            ),
            composite_places: take(&mut scratch.composite_places),
            members: take(&mut scratch.members),
            info,
            declares_wide,
            wide_types,
            shapes,
            layout_decorations: take(&mut scratch.layout_decorations),
            resources: Resources::default(),
            uses: Vec::new(),
            block_body_end: 0,
            inst_temp_mark: 0,
            fresh: None,
            typed_opcodes: [0; ops::TYPED_OPCODES_CACHED],
            indexed_temps: Vec::new(),
            nested: il_model::Nested::new(),
            header: take(&mut scratch.header),
            subroutines: Vec::new(),
            last_subroutine_label: 0,
            call_depth: 0,
            constants: spec::ConstantEvaluator::new(module, &options.spec_overrides),
            code: Vec::new(),
            uses_doubles: false,
            element_scratch: Vec::new(),
            edge_scratch: flow::EdgeScratch::default(),
            part_stack: take(&mut scratch.part_stack),
            ext_sets: Vec::new(),
            plans: take(&mut scratch.plans),
        }
    }

    /// The work-group size: a constant decorated `WorkgroupSize` wins over the execution modes
    /// (SPIR-V §3.2.20 WorkgroupSize); then `LocalSizeId` or `LocalSize` (SPIR-V §3.2.5);
    /// (1, 1, 1) when the module gives none. Specialization constants are evaluated.
    fn workgroup_size(&mut self, function: Id) -> Result<[u32; 3], Error> {
        let module = self.module;
        // The first such constant in module order. Only ids some decoration names as
        // `WorkgroupSize` are looked at (and then asked the same questions as any other id).
        let decorated = workgroup_size_candidates(module)
            .into_iter()
            .filter(|&id| {
                module.constant(id).is_some()
                    && memory::builtin_of(module, id) == Some(spirv::BuiltIn::WorkgroupSize)
            })
            .filter_map(|id| Some((module.def(id)?.index(), id)))
            .min();
        if let Some((_, id)) = decorated {
            return Ok([
                self.constant_word(id, 0)?,
                self.constant_word(id, 1)?,
                self.constant_word(id, 2)?,
            ]);
        }
        for mode in module.execution_modes() {
            if mode.target != function {
                continue;
            }
            match (mode.execution_mode(), &mode.operands[..]) {
                (Some(spirv::ExecutionMode::LocalSizeId), [x, y, z, ..]) => {
                    let (x, y, z) = (Id(*x), Id(*y), Id(*z));
                    return Ok([
                        self.constant_word(x, 0)?,
                        self.constant_word(y, 0)?,
                        self.constant_word(z, 0)?,
                    ]);
                }
                (Some(spirv::ExecutionMode::LocalSize), [x, y, z, ..]) => return Ok([*x, *y, *z]),
                _ => {}
            }
        }
        Ok([1, 1, 1])
    }

    /// Temporaries and indexed-temporary elements together may not exceed the 4096 vec4
    /// registers IL gives a program (amd-il.md §8.5); every SSA value takes a fresh temporary,
    /// so a very large function can run out.
    fn check_register_budget(&self) -> Result<(), Error> {
        let indexed: u64 = self.indexed_temps.iter().map(|&n| u64::from(n)).sum();
        let used = u64::from(self.regs.temps_used()) + indexed;
        if used > u64::from(MAX_TEMP_REGISTERS) {
            return Err(Unsupported::new(format!(
                "programs needing {used} temporary registers (IL allows {MAX_TEMP_REGISTERS})"
            ))
            .into());
        }
        Ok(())
    }

    /// Reserves room for the code (and the values and places) of `functions` up front: the corpus emits at most about two IL
    /// instructions per SPIR-V instruction of a function, and an IL instruction is about 150
    /// bytes, so growing the vector by doubling would copy the code several times. The
    /// reservation is capped so that a huge module does not reserve memory it may not use.
    fn reserve_code(&mut self, functions: &[&Function]) {
        let spirv_instructions: usize = functions
            .iter()
            .map(|f| f.end.0.saturating_sub(f.def.0) as usize)
            .sum();
        self.code.reserve(code_capacity(spirv_instructions));
        // At most one value per instruction of the functions, plus the constants they use;
        // the same bound as the code keeps a huge module from reserving memory it may not use.
        self.values
            .reserve(spirv_instructions.min(MAX_CODE_RESERVATION));
        // Pointers (variables, access chains, pointer parameters) are a share of the
        // instructions; half of them covers every corpus module without growing.
        self.places
            .reserve((spirv_instructions / 2).min(MAX_CODE_RESERVATION));
    }

    /// A new indexed temporary array of `length` elements; returns its number.
    fn new_indexed_temp(&mut self, length: u32) -> u32 {
        self.indexed_temps.push(length);
        u32::try_from(self.indexed_temps.len() - 1).unwrap_or(u32::MAX)
    }

    /// Emits one IL instruction into the code stream.
    fn emit(&mut self, inst: Inst) {
        self.uses_doubles |= inst.info().fp64;
        self.code.push(inst);
    }

    /// Emits `mov dst, src`, built whole in the push: the builder methods move the
    /// (150-byte) instruction through each call, and `mov` is the commonest
    /// instruction of a translation.
    fn emit_mov(&mut self, dst: il_model::Dst, src: il_model::Src) {
        let mut srcs = il_model::Srcs::new();
        srcs.push(src);
        self.push_whole(Opcode::Mov, il_model::Control::NONE, dst, srcs);
    }

    /// Emits `op` with one destination and the sources `srcs`, built whole in the push (see
    /// [`Lowerer::emit_mov`]).
    fn emit_whole(
        &mut self,
        op: Opcode,
        ctrl: il_model::Control,
        dst: il_model::Dst,
        srcs: il_model::Srcs,
    ) {
        self.uses_doubles |= op.info().fp64;
        self.push_whole(op, ctrl, dst, srcs);
    }

    /// Pushes `op` with one destination and the sources `srcs` without noting double precision:
    /// [`Lowerer::emit_whole`] has noted it, and the `mov` of [`Lowerer::emit_mov`] is single.
    fn push_whole(
        &mut self,
        op: Opcode,
        ctrl: il_model::Control,
        dst: il_model::Dst,
        srcs: il_model::Srcs,
    ) {
        let mut dsts = il_model::Dsts::new();
        dsts.push(dst);
        self.code.push(Inst {
            op,
            ctrl,
            mods: None,
            dst: dsts,
            src: srcs,
            extra: il_model::ExtraWords::new(),
        });
    }

    /// The value of `id`: a lowered result, or a constant turned into a literal.
    fn value(&mut self, id: Id, at: SpvInst<'_>) -> Result<Value, Error> {
        if let Some(value) = self.values.get(id) {
            return Ok(*value);
        }
        if let Some(value) = self.constant_value(id)? {
            self.values.set(id, value);
            return Ok(value);
        }
        Err(Unsupported::at(
            self.module,
            at.index(),
            format!("operand {id} (its definition is not lowered)"),
        )
        .into())
    }

    /// Element `i` of the value of `id` as a scalar source ([`Value::element`]), read in place
    /// when `id` has been lowered (no copy of the value is made).
    fn value_element(&mut self, id: Id, at: SpvInst<'_>, i: usize) -> Result<il_model::Src, Error> {
        if let Some(value) = self.values.get(id) {
            return Ok(value.element(i));
        }
        Ok(self.value(id, at)?.element(i))
    }

    /// Makes sure the value table holds the value of `id` ([`Lowerer::value`], whose errors
    /// it reports), so that it can be read in place.
    fn resolve_value(&mut self, id: Id, at: SpvInst<'_>) -> Result<(), Error> {
        if self.values.get(id).is_none() {
            self.value(id, at)?;
        }
        Ok(())
    }

    /// Records the value of result `id`.
    #[inline]
    fn set_value(&mut self, id: Id, value: Value) {
        self.values.set(id, value);
    }

    /// Records `value` as the result `id` of the instruction being lowered, and notes it as
    /// fresh ([`Lowerer::fresh`]) when it is a scalar or vector of 32-bit elements in positions
    /// `0..count` of a temporary the instruction made (numbered from
    /// [`Lowerer::inst_temp_mark`] on), which no other value, variable or phi names.
    /// [`Lowerer::retarget_fresh`] checks the last IL instruction writes those components.
    fn define_fresh(&mut self, id: Id, value: Value) {
        self.values.set(id, value);
        if value.reg.num >= self.inst_temp_mark && Self::fresh_shape(&value) {
            self.fresh = Some((id, self.code.len()));
        }
    }

    /// [`Lowerer::define_fresh`] for the result of an instruction whose operand words are
    /// `operands`, which may also re-label the value noted fresh before: when no IL has been
    /// emitted since, this instruction holds every use of that value ([`Lowerer::uses`]), and
    /// `value` reads the first components of its temporary (an
    /// `OpVectorShuffle` or `OpCompositeExtract` of a loaded vector), the temporary has no
    /// other reader left, and `id` becomes the fresh value.
    fn define_relabelled(&mut self, id: Id, value: Value, operands: &[u32]) {
        if let Some((source, len)) = self.fresh
            && value.reg.num < self.inst_temp_mark
            && len == self.code.len()
            && self.uses.get(source.0 as usize).is_some_and(|&uses| {
                // Every word naming the source, its definition aside, is in this instruction
                // (an `OpVectorShuffle` names its vector twice).
                let here = operands.iter().filter(|&&w| w == source.0).count();
                here > 0 && uses as usize == here + 1
            })
            && Self::fresh_shape(&value)
            && self
                .values
                .get(source)
                .is_some_and(|s| s.reg == value.reg && s.count >= value.count)
        {
            self.values.set(id, value);
            self.fresh = Some((id, len));
            return;
        }
        self.define_fresh(id, value);
    }

    /// Whether `value` is a scalar or vector of 32-bit elements in positions `0..count` of a
    /// temporary, as a fresh value must be.
    fn fresh_shape(value: &Value) -> bool {
        let count = usize::from(value.count);
        value.reg.ty == il_model::RegType::Temp
            && value.reg.index.is_none()
            && !value.wide
            && count > 0
            && value.comps.get(..count) == values::XYZW.get(..count)
    }

    /// Makes the last IL instruction, which wrote the fresh value `id` ([`Lowerer::fresh`]),
    /// write the first `count` components of temporary `target` instead, when it still is
    /// the last instruction, wrote at least those components of the value's temporary, and
    /// `id` has no use but the one being forwarded (its definition and that use are the only
    /// words naming it, [`Lowerer::uses`]). Components the instruction wrote past the value's
    /// are no longer written. Returns whether it did; the caller then omits its copy. Sound
    /// because nothing else reads the fresh temporary (only ids derived from `id`, which would
    /// be uses, could share it), and the copy would have followed the instruction at once,
    /// writing the same components with the same bits (an IL instruction computes each
    /// written component alone, AMD IL guide §2.2.5 write masks); the instruction reads its
    /// sources before it writes, so they may name `target`.
    fn retarget_fresh(&mut self, id: Id, count: u8, target: u32) -> bool {
        if self.fresh != Some((id, self.code.len())) || self.uses.get(id.0 as usize) != Some(&2) {
            return false;
        }
        let Some(value) = self.values.get(id).copied() else {
            return false;
        };
        if value.count != count {
            return false;
        }
        let Some(last) = self.code.last_mut() else {
            return false;
        };
        let count = usize::from(count);
        match &mut last.dst[..] {
            [dst]
                if dst.reg.ty == il_model::RegType::Temp
                    && dst.reg.num == value.reg.num
                    && dst.reg.index.is_none()
                    && dst.reg.dim2.is_none()
                    && dst
                        .mask
                        .iter()
                        .take(count)
                        .all(|&c| c == il_model::DstComp::Write) =>
            {
                for comp in dst.mask.iter_mut().skip(count) {
                    *comp = il_model::DstComp::NoWrite;
                }
                dst.reg.num = target;
                self.fresh = None;
                true
            }
            _ => false,
        }
    }

    /// A literal for a scalar or vector constant, `None` when `id` is no constant.
    fn constant_value(&mut self, id: Id) -> Result<Option<Value>, Error> {
        self.constant_value_at(id, 0)
    }

    fn constant_value_at(&mut self, id: Id, depth: u32) -> Result<Option<Value>, Error> {
        let Some(constant) = self.module.constant(id) else {
            return Ok(None);
        };
        if let spv_reader::Constant::Composite { parts, ty, .. } = constant
            && !matches!(self.module.ty(*ty), Some(spv_reader::Type::Vector { .. }))
        {
            // A struct, array or matrix constant: an aggregate of its constant members. Types
            // nest finitely (SPIR-V §2.4); the depth bound guards against hostile modules.
            if depth > MAX_CONSTANT_NESTING {
                return Err(Unsupported::new(format!("constant {id} nested too deeply")).into());
            }
            let mut members = Vec::with_capacity(parts.len());
            for part in parts.clone() {
                let member = self.constant_value_at(part, depth + 1)?.ok_or_else(|| {
                    Unsupported::new(format!("constant {id}: member {part} is no constant"))
                })?;
                members.push(member);
            }
            return Ok(Some(self.members.aggregate(&members)));
        }
        let shape = self.shape_of(constant.ty())?;
        if shape.is_wide() {
            let mut elements = Vec::with_capacity(usize::from(shape.count));
            for element in 0..usize::from(shape.count) {
                elements.push(self.constants.bits64(id, element)?);
            }
            return Ok(Some(self.regs.wide_vector(&mut self.members, &elements)));
        }
        let mut words = [0u32; 4];
        for (element, word) in words.iter_mut().enumerate().take(usize::from(shape.count)) {
            *word = self.constant_word(id, element)?;
        }
        if shape.count == 1 {
            return Ok(Some(self.regs.scalar(words[0])));
        }
        Ok(Some(Value::in_reg(self.regs.literal(words), shape.count)))
    }

    /// The register shape of type `ty` ([`types::shape_of`]), remembered per type: loads,
    /// stores and arithmetic ask it for every instruction, and a module has few types. Only
    /// shapes are remembered; a type without one is looked at again (its error is reported
    /// once anyway).
    fn shape_of(&self, ty: Id) -> Result<types::Shape, Unsupported> {
        let slot = self.shapes.get(ty.0 as usize);
        if let Some(shape) = slot.and_then(Cell::get) {
            return Ok(shape);
        }
        let shape = types::shape_of(self.module, ty)?;
        if let Some(slot) = slot {
            slot.set(Some(shape));
        }
        Ok(shape)
    }

    /// The register layout of `ty` ([`types::layout_of`]); a scalar or vector type is answered
    /// from [`Lowerer::shape_of`] without building anything.
    fn layout_of(&self, ty: Id) -> Result<types::Layout, Unsupported> {
        match self.module.ty(ty) {
            Some(
                spv_reader::Type::Struct { .. }
                | spv_reader::Type::Array { .. }
                | spv_reader::Type::Matrix { .. }
                | spv_reader::Type::RuntimeArray { .. },
            ) => types::layout_of(self.module, ty),
            // `layout_of` gives every other type the one-leaf layout of its shape.
            _ => Ok(types::Layout::Vector(self.shape_of(ty)?)),
        }
    }

    /// The `Offset` decoration of member `member` of struct `ty` ([`types::member_offset`]),
    /// remembered: every access chain into a buffer struct asks for it, and finding a
    /// decoration searches the module's decoration table twice.
    fn member_offset(&mut self, ty: Id, member: u32) -> Option<u32> {
        let module = self.module;
        *self
            .layout_decorations
            .entry((ty.0, member))
            .or_insert_with(|| types::member_offset(module, ty, member))
    }

    /// The `ArrayStride` decoration of `ty` ([`types::array_stride`]), remembered like
    /// [`Lowerer::member_offset`].
    fn array_stride(&mut self, ty: Id) -> Option<u32> {
        let module = self.module;
        *self
            .layout_decorations
            .entry((ty.0, NO_MEMBER))
            .or_insert_with(|| types::array_stride(module, ty))
    }

    /// Element `element` of constant `id` as a 32-bit word, specialization applied.
    fn constant_word(&mut self, id: Id, element: usize) -> Result<u32, Error> {
        self.constants.word(id, element)
    }

    /// Lowers one non-terminator instruction.
    fn lower_inst(&mut self, inst: SpvInst<'m>) -> Result<(), Error> {
        use spirv::Op;
        // The memory instructions and calls, more than half of what a function body holds, are
        // told apart by the opcode number as written (SPIR-V §2.3): their handlers read their
        // words by position, so the opcode-table lookup that decodes the number into
        // `spirv::Op` is made only for the other instructions, whose lowerings match on it.
        const VARIABLE: u32 = Op::Variable as u32;
        const ACCESS_CHAIN: u32 = Op::AccessChain as u32;
        const IN_BOUNDS_ACCESS_CHAIN: u32 = Op::InBoundsAccessChain as u32;
        const LOAD: u32 = Op::Load as u32;
        const STORE: u32 = Op::Store as u32;
        const FUNCTION_CALL: u32 = Op::FunctionCall as u32;
        self.inst_temp_mark = self.regs.temps_used();
        let op = match u32::from(inst.raw_opcode()) {
            VARIABLE => return self.lower_local_variable(inst),
            ACCESS_CHAIN | IN_BOUNDS_ACCESS_CHAIN => return self.lower_access_chain(inst),
            LOAD => return self.lower_load(inst),
            STORE => return self.lower_store(inst),
            FUNCTION_CALL => return self.lower_call(inst),
            // The elementwise instructions, the commonest of the rest, are told apart by one
            // table lookup on the number as well.
            raw => match ops::elementwise(raw) {
                Some(mapping) => return self.lower_elementwise_op(mapping, inst),
                None => inst.opcode(),
            },
        };
        let Some(op) = op else {
            return Err(Unsupported::at(
                self.module,
                inst.index(),
                "an opcode unknown to this version",
            )
            .into());
        };
        match op {
            // Debug lines and NonSemantic instructions have no effect (SPIR-V §2.2.6, 1.6).
            Op::Line | Op::NoLine | Op::Nop => Ok(()),
            Op::ExtInst if self.is_non_semantic(inst) => Ok(()),
            Op::ControlBarrier | Op::MemoryBarrier => self.lower_barrier(op, inst),
            Op::ArrayLength => self.lower_array_length(inst),
            Op::SampledImage
            | Op::Image
            | Op::ImageRead
            | Op::ImageWrite
            | Op::ImageFetch
            | Op::ImageSampleExplicitLod
            | Op::ImageQuerySize => self.lower_image(op, inst),
            Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor => self.lower_atomic(op, inst),
            _ => self.lower_op(op, inst),
        }
    }

    /// Whether `inst` is an `OpExtInst` of a `NonSemantic.*` set, which has no effect.
    fn is_non_semantic(&mut self, inst: SpvInst<'_>) -> bool {
        // OpExtInst has a Result Type and a Result id; the set is the next word.
        let (_, _, operands) = typed_parts(inst);
        let set = operands.first().copied();
        has_opcode(inst, spirv::Op::ExtInst)
            && set.is_some_and(|set| self.ext_set(Id(set)) == ExtSet::NonSemantic)
    }

    /// What the extended-instruction set imported as `set` is, remembered: every
    /// `OpExtInst` asks, and naming the set decodes its name string.
    fn ext_set(&mut self, set: Id) -> ExtSet {
        if let Some((_, kind)) = self.ext_sets.iter().find(|(id, _)| *id == set) {
            return *kind;
        }
        let kind = match self.module.ext_inst_set(set) {
            Some("GLSL.std.450") => ExtSet::Glsl,
            Some(name) if name.starts_with("NonSemantic.") => ExtSet::NonSemantic,
            _ => ExtSet::Other,
        };
        self.ext_sets.push((set, kind));
        kind
    }

    /// The finished program: declarations first, then the code, then `end`.
    fn assemble(mut self, workgroup_size: [u32; 3]) -> Program {
        // The region trees go back to spv-cfg, whose next structurizing reuses their lists
        // (the order the plans are taken in does not matter).
        for (_, plan) in self.plans.drain() {
            if let Ok(plan) = Rc::try_unwrap(plan) {
                plan.recycle();
            }
        }
        let mut program = Program::new(ShaderKind::Compute);
        program.nested = self.nested;
        // Flag, thread-group size, literals, resources and indexed temporaries, in a list kept
        // per thread (`Scratch::header`).
        let mut header = self.header;
        header.clear();
        // A program with double instructions says so, as DX11 shaders do with the same flag; the
        // guide marks it "currently not used" (the compiler checks the hardware itself), so it
        // documents the need and costs nothing (guide §7.5 DCL_GLOBAL_FLAGS).
        if self.uses_doubles {
            header.push(Inst::new(Opcode::DclGlobalFlags).ctrl(ENABLE_DOUBLE_PRECISION));
        }
        // The writer derives the control field (the number of values) from the extra words.
        header.push(Inst::new(Opcode::DclNumThreadPerGroup).extra(&workgroup_size));
        header.extend(self.regs.literal_decls());
        self.resources.push_declarations(&mut header);
        for (array, length) in (0u32..).zip(&self.indexed_temps) {
            let reg = il_model::Reg::new(il_model::RegType::ITemp, array).at(*length);
            header.push(Inst::new(Opcode::DclIndexedTempArray).src(il_model::Src::new(reg)));
        }
        // The declarations go in front of the code: splicing them into the code vector moves
        // the code once within its own buffer (an overlapping move, done in wide steps) instead
        // of copying it into a new one. Room for everything that follows is reserved first, so
        // the vector does not grow again; subroutine bodies are drained into it one instruction
        // at a time (which costs fewer instructions than a `for` loop pushing each one the
        // body's iterator yields), avoiding the byte-wise `rep movsb` copy a large bulk move
        // takes.
        let mut subroutines = self.subroutines;
        let subroutine_len: usize = subroutines.iter().map(|s| s.body.len() + 3).sum();
        let mut body = self.code;
        body.reserve(header.len() + subroutine_len + 3);
        body.splice(0..0, header.drain(..));
        if body.last().map(|i| i.op) != Some(Opcode::RetDyn) {
            body.push(Inst::new(Opcode::RetDyn));
        }
        // Subroutines follow `endmain` (AMD IL guide §4.1); each ends with `ret`, the lexical end
        // of a subroutine, then `endfunc`.
        if !subroutines.is_empty() {
            body.push(Inst::new(Opcode::Endmain));
            subroutines.sort_by_key(|s| s.label);
            for mut subroutine in subroutines {
                body.push(Inst::new(Opcode::Func).extra(&[subroutine.label]));
                #[allow(
                    clippy::extend_with_drain,
                    reason = "moved one by one on purpose: `append` is one bulk byte copy \
                              (see above), which measured dearer"
                )]
                body.extend(subroutine.body.drain(..));
                body.push(Inst::new(Opcode::Ret));
                body.push(Inst::new(Opcode::Endfunc));
            }
        }
        program.body = body;
        program.push(Inst::new(Opcode::End));
        // The tables are emptied (their entries dropped) and their buffers kept for the next
        // translation on this thread.
        let (value_slots, mut values) = self.values.into_parts();
        values.clear();
        let (place_slots, mut places) = self.places.into_parts();
        places.clear();
        let mut composite_places = self.composite_places;
        composite_places.clear();
        let mut members = self.members;
        members.clear();
        let mut layout_decorations = self.layout_decorations;
        layout_decorations.clear();
        let mut part_stack = self.part_stack;
        part_stack.clear();
        Scratch {
            value_slots,
            values,
            place_slots,
            places,
            shapes: self.shapes,
            wide_types: self.wide_types,
            uses: self.uses,
            composite_places,
            members,
            layout_decorations,
            plans: self.plans,
            part_stack,
            literals: self.regs.into_literals(),
            header,
        }
        .keep();
        program
    }
}

/// The integration tests' walker of the test shaders, for the unit tests below.
#[cfg(test)]
#[path = "../../tests/common/mod.rs"]
mod test_common;

#[cfg(test)]
mod tests {
    use super::*;
    use spv_reader::rspirv::dr::Operand;
    use spv_reader::spirv::Capability;

    /// Work-group sizes: 1 to 1024 invocations pass, none or more are refused, and three
    /// 32-bit sizes whose product needs 96 bits are refused too (they overflowed 64 bits).
    #[test]
    fn workgroup_sizes_il_can_declare() {
        for ok in [[1, 1, 1], [64, 1, 1], [1024, 1, 1], [8, 8, 16]] {
            assert!(check_workgroup_size(ok).is_ok(), "{ok:?}");
        }
        for refused in [
            [0, 1, 1],
            [64, 0, 1],
            [1025, 1, 1],
            [64, 32, 1],
            [u32::MAX; 3],
        ] {
            assert!(
                matches!(check_workgroup_size(refused), Err(Error::Unsupported(_))),
                "{refused:?}"
            );
        }
    }

    /// The closure of each of [`NARROW_ONLY_CAPABILITIES`] under "Implicitly Declares", read
    /// from the SPIR-V grammar tables rspirv carries (as the validator reads it), holds neither
    /// `Int64` nor `Float64`.
    #[test]
    fn narrow_only_capabilities_imply_no_64_bit_one() {
        for &narrow in &NARROW_ONLY_CAPABILITIES {
            let mut closure = vec![narrow];
            let mut next = 0;
            while let Some(&cap) = closure.get(next) {
                for implied in Operand::Capability(cap).required_capabilities() {
                    if !closure.contains(&implied) {
                        closure.push(implied);
                    }
                }
                next += 1;
            }
            assert!(
                !closure.contains(&Capability::Int64) && !closure.contains(&Capability::Float64),
                "{closure:?}"
            );
        }
    }

    /// The word-position readings stand in for the reader's accessors exactly: over every
    /// instruction of every valid test shader, `split_parts` (both when it first meets an
    /// opcode and once it remembers it) gives what `Inst::split` gives, and `untyped_operands`
    /// the reader's operands of every instruction without a Result Type or Result id. The reader's accessors, which read the
    /// SPIR-V grammar, are the independent reference.
    #[test]
    fn word_positions_read_what_the_reader_does() {
        let mut files = Vec::new();
        super::test_common::shader_modules(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders"),
            &mut files,
        );
        let mut checked = 0;
        for file in files {
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            let Ok(module) = spv_reader::read(&bytes) else {
                continue;
            };
            let Ok(info) = spv_validate::validate(&module, &spv_validate::Options::default())
            else {
                continue;
            };
            let options = Options::default();
            let mut scratch = Scratch::default();
            let mut lowerer = Lowerer::new(&module, &info, &options, &mut scratch);
            for inst in module.instructions() {
                for _ in 0..2 {
                    assert_eq!(
                        lowerer.split_parts(inst),
                        inst.split(),
                        "{}",
                        file.display()
                    );
                }
                if inst.result_type().is_none() && inst.result_id().is_none() {
                    assert_eq!(
                        untyped_operands(inst),
                        inst.operands(),
                        "{}",
                        file.display()
                    );
                }
                checked += 1;
            }
        }
        // The test shaders hold thousands of instructions; none read means none was checked.
        assert!(checked > 1000, "only {checked} instructions checked");
    }
}
