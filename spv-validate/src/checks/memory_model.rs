//! Scopes, memory semantics and memory operands (SPIR-V §3.2.24–3.2.26, §2.16.1): V-MM-1
//! (semantics: a 32-bit integer with at most one ordering bit, orderings an instruction
//! allows), V-MM-2 (scope: a 32-bit integer with a Scope value), V-MM-3 for the instructions
//! that are not atomics (`atomics` covers those), V-MM-4 (NonPrivatePointer and the
//! MakePointer* operands), V-MM-5 (the Vulkan memory model's restrictions), V-MM-6 (Aligned is
//! a power of two), V-ATOM-3 (compare-exchange's Unequal semantics) and V-ATOM-4
//! (OpAtomicFlagClear's semantics).
//!
//! Values are judged only when the id is an `OpConstant` (or `OpConstantNull`): the spec
//! makes other bit patterns undefined behaviour rather than invalid where non-constant ids
//! are allowed (Kernel modules). Under a Vulkan environment ([client], Vulkan spec
//! "Standalone SPIR-V") the same rule ids also cover the scopes and orderings Vulkan limits:
//! execution scope Workgroup or Subgroup for barriers (VUID-StandaloneSpirv-None-04636),
//! memory scope not CrossDevice (-04638) and Relaxed with Invocation (-04641), no
//! SequentiallyConsistent (-MemorySemantics-10866), and no Relaxed OpMemoryBarrier (-10869).

use std::sync::LazyLock;

use spv_reader::rspirv::grammar::OperandKind;
use spv_reader::spirv::{
    Capability as C, Decoration as D, MemoryModel, Op, Scope, StorageClass as S,
};
use spv_reader::{Id, Type};

use crate::ctx::{Ctx, Index, Inst, OpSet};
use crate::operands::{Kind, OperandKinds, operand_kinds};

/// Memory-semantics bits (SPIR-V §3.2.24).
const ACQUIRE: u32 = 0x2;
const RELEASE: u32 = 0x4;
const ACQUIRE_RELEASE: u32 = 0x8;
const SEQUENTIALLY_CONSISTENT: u32 = 0x10;
const ORDERING: u32 = ACQUIRE | RELEASE | ACQUIRE_RELEASE | SEQUENTIALLY_CONSISTENT;

/// Memory-operand bits (SPIR-V §3.2.25).
const ALIGNED: u32 = 0x2;
const MAKE_POINTER_AVAILABLE: u32 = 0x8;
const MAKE_POINTER_VISIBLE: u32 = 0x10;
const NON_PRIVATE_POINTER: u32 = 0x20;

/// What a Scope operand scopes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The set of invocations that execute together (barriers, group operations).
    Execution,
    /// The set of invocations memory accesses are ordered against.
    Memory,
    /// Anything else (clocks, cooperative types, ...): only the core checks apply.
    Other,
}

/// The role of the `n`-th Scope operand of `op`.
fn scope_role(op: Op, n: usize) -> Role {
    match op {
        Op::ControlBarrier if n == 0 => Role::Execution,
        Op::ControlBarrier | Op::MemoryBarrier | Op::Load | Op::Store => Role::Memory,
        Op::CopyMemory | Op::CopyMemorySized => Role::Memory,
        _ if super::atomics::is_atomic(op) || is_flag_atomic(op) => Role::Memory,
        _ if format!("{op:?}").starts_with("Group") && n == 0 => Role::Execution,
        _ => Role::Other,
    }
}

/// The atomic-flag instructions (Kernel), which `atomics::is_atomic` leaves out.
fn is_flag_atomic(op: Op) -> bool {
    matches!(op, Op::AtomicFlagTestAndSet | Op::AtomicFlagClear)
}

/// (is a 32-bit integer scalar, its value when it is a constant).
fn int32_value(ctx: &Ctx<'_>, id: Id) -> (bool, Option<u32>) {
    let is_int32 = ctx
        .type_of(id)
        .is_some_and(|t| matches!(ctx.ty(t), Some(Type::Int { width: 32, .. })));
    let value = match ctx.def_op(id) {
        Some(Op::Constant) => ctx.const_scalar(id).map(|v| v as u32),
        Some(Op::ConstantNull) => Some(0),
        _ => None,
    };
    (is_int32, value)
}

/// The instructions that may have a Scope, Memory Semantics or Memory Access operand, in
/// module order: those of the opcodes whose grammar has one (but OpDecorateId and
/// OpExecutionModeId, whose ids are no operands of theirs), where loads and stores count only
/// with their optional memory-operand mask (SPIR-V §3.3.8: the word after the pointer, and
/// the object for a store), which few have.
fn candidates<'m>(ix: &'m Index<'m>) -> Vec<&'m Inst<'m>> {
    static WITH_KINDS: LazyLock<OpSet> = LazyLock::new(|| {
        let kinds = OperandKinds::SCOPE | OperandKinds::SEMANTICS | OperandKinds::MEMORY_ACCESS;
        OpSet::new(|op| {
            !matches!(
                op,
                Op::DecorateId | Op::ExecutionModeId | Op::Load | Op::Store
            ) && u16::try_from(op as u32).map_or(0, operand_kinds) & kinds != 0
        })
    });
    let mut found = ix.with_ops_in(&WITH_KINDS);
    let before = found.len();
    found.extend(ix.with_op(Op::Load).filter(|inst| inst.words().len() > 4));
    found.extend(ix.with_op(Op::Store).filter(|inst| inst.words().len() > 3));
    if found.len() > before {
        found.sort_unstable_by_key(|inst| inst.index());
    }
    found
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(&'static str, Inst<'_>, Id, String)> = Vec::new();
    let vulkan_model = ctx.memory_model == MemoryModel::Vulkan as u32;
    // One buffer for the operands of every candidate.
    let mut operands = Vec::new();
    for inst in candidates(ctx.ix) {
        let Some(op) = ctx.reader_op(inst) else {
            continue;
        };
        // The common loads and stores without a memory-operand mask have none of these
        // operands (SPIR-V §3.3.8: the mask is the optional word after the pointer, and the
        // object for a store); no need to decode them.
        match (op, inst.words().len()) {
            (Op::Load, ..=4) | (Op::Store, ..=3) => continue,
            _ => {}
        }
        // Copied only past the cheap filters.
        let inst = *inst;
        ctx.operands_into(inst.index(), &mut operands);
        if !operands.iter().any(|o| {
            matches!(
                o.kind,
                Kind::Scope | Kind::Semantics | Kind::Enum(OperandKind::MemoryAccess)
            )
        }) {
            continue;
        }
        let words = inst.words();
        let word = |at: u16| words.get(usize::from(at)).copied();
        let mut scopes = 0;
        let mut semantics = 0;
        let mut memory_scope: Option<u32> = None;
        for operand in &operands {
            match operand.kind {
                Kind::Scope => {
                    let Some(id) = word(operand.word).map(Id) else {
                        continue;
                    };
                    let role = if operand_in_memory_access(&operands, operand.word) {
                        Role::Memory
                    } else {
                        scope_role(op, scopes)
                    };
                    scopes += 1;
                    let value = check_scope(ctx, inst, op, id, role, vulkan_model, &mut problems);
                    if role == Role::Memory && memory_scope.is_none() {
                        memory_scope = value;
                    }
                }
                Kind::Semantics => {
                    let Some(id) = word(operand.word).map(Id) else {
                        continue;
                    };
                    let unequal = op == Op::AtomicCompareExchange && semantics == 1;
                    semantics += 1;
                    check_semantics(ctx, inst, op, id, unequal, memory_scope, &mut problems);
                }
                Kind::Enum(OperandKind::MemoryAccess) => {
                    check_memory_access(ctx, inst, op, operand.word, &mut problems);
                }
                _ => {}
            }
        }
    }
    // V-MM-5: Volatile and Coherent are banned under the Vulkan memory model (SPIR-V §3.2.19;
    // it expresses them with memory operands and semantics instead).
    if vulkan_model {
        for inst in ctx.ix.insts().copied() {
            let (target, kind) = match (ctx.reader_op(inst), inst.words()) {
                (Some(Op::Decorate), [_, t, k, ..]) => (*t, *k),
                (Some(Op::MemberDecorate), [_, t, _, k, ..]) => (*t, *k),
                _ => continue,
            };
            if kind == D::Volatile as u32 || kind == D::Coherent as u32 {
                let name = if kind == D::Volatile as u32 {
                    "Volatile"
                } else {
                    "Coherent"
                };
                problems.push((
                    "V-MM-5",
                    inst,
                    Id(target),
                    format!("{name} decoration targeting {} is banned when using the Vulkan memory model", Id(target)),
                ));
            }
        }
    }
    let problems: Vec<_> = problems
        .into_iter()
        .map(|(rule, inst, id, message)| (rule, inst.index(), id, message))
        .collect();
    for (rule, at, id, message) in problems {
        ctx.err(rule, at, &[id], message);
    }
}

/// Whether the operand at word `at` is a parameter of a memory-operand mask (MakePointer*
/// scopes), whose scopes are memory scopes.
fn operand_in_memory_access(operands: &[crate::operands::Operand], at: u16) -> bool {
    operands
        .iter()
        .any(|o| o.kind == Kind::Enum(OperandKind::MemoryAccess) && o.word < at)
}

/// V-MM-2 (and V-MM-3, V-MM-5) for one Scope operand; returns its constant value.
fn check_scope<'m>(
    ctx: &Ctx<'m>,
    inst: Inst<'m>,
    op: Op,
    id: Id,
    role: Role,
    vulkan_model: bool,
    problems: &mut Vec<(&'static str, Inst<'m>, Id, String)>,
) -> Option<u32> {
    let mut fail = |rule: &'static str, message: String| problems.push((rule, inst, id, message));
    let (is_int32, value) = int32_value(ctx, id);
    if !is_int32 {
        fail(
            "V-MM-2",
            format!("Op{op:?}: expected scope to be a 32-bit int"),
        );
        return None;
    }
    let Some(value) = value else {
        if ctx.shader && !super::atomics::is_atomic(op) {
            fail(
                "V-MM-3",
                "Scope ids must be OpConstant when Shader capability is present".into(),
            );
        }
        return None;
    };
    let Some(scope) = Scope::from_u32(value) else {
        fail("V-MM-2", format!("Op{op:?}: invalid scope value {value}"));
        return Some(value);
    };
    if role == Role::Memory && scope == Scope::QueueFamily && !ctx.has_cap(C::VulkanMemoryModel) {
        fail(
            "V-MM-2",
            format!(
                "Op{op:?}: Memory Scope QueueFamilyKHR requires capability VulkanMemoryModelKHR"
            ),
        );
    }
    if vulkan_model && scope == Scope::Device && !ctx.has_cap(C::VulkanMemoryModelDeviceScope) {
        fail(
            "V-MM-5",
            "use of device scope with the Vulkan memory model requires the \
             VulkanMemoryModelDeviceScope capability"
                .into(),
        );
    }
    if ctx.env.is_vulkan() {
        if role == Role::Execution
            && op == Op::ControlBarrier
            && !matches!(scope, Scope::Workgroup | Scope::Subgroup)
        {
            fail(
                "V-MM-2",
                format!(
                    "[VUID-StandaloneSpirv-None-04636] Op{op:?}: in Vulkan environment Execution Scope is limited to Workgroup and Subgroup"
                ),
            );
        }
        if role == Role::Memory && scope == Scope::CrossDevice {
            fail(
                "V-MM-2",
                format!(
                    "[VUID-StandaloneSpirv-None-04638] Op{op:?}: in Vulkan environment Memory Scope is limited to Device, QueueFamily, Workgroup, ShaderCallKHR, Subgroup, or Invocation"
                ),
            );
        }
    }
    Some(value)
}

/// V-MM-1 (and V-MM-3, V-MM-5, V-ATOM-3, V-ATOM-4) for one Memory Semantics operand.
fn check_semantics<'m>(
    ctx: &Ctx<'m>,
    inst: Inst<'m>,
    op: Op,
    id: Id,
    unequal: bool,
    memory_scope: Option<u32>,
    problems: &mut Vec<(&'static str, Inst<'m>, Id, String)>,
) {
    let mut fail = |rule: &'static str, message: String| problems.push((rule, inst, id, message));
    let (is_int32, value) = int32_value(ctx, id);
    if !is_int32 {
        fail(
            "V-MM-1",
            format!("Op{op:?}: expected Memory Semantics to be a 32-bit int"),
        );
        return;
    }
    let Some(value) = value else {
        if ctx.shader && !super::atomics::is_atomic(op) {
            fail(
                "V-MM-3",
                "Memory Semantics ids must be OpConstant when Shader capability is present".into(),
            );
        }
        return;
    };
    let ordering = value & ORDERING;
    if ordering.count_ones() > 1 {
        fail(
            "V-MM-1",
            format!(
                "Op{op:?}: Memory Semantics must have at most one non-relaxed memory order bit set"
            ),
        );
        return;
    }
    if ctx.memory_model == MemoryModel::Vulkan as u32 && ordering == SEQUENTIALLY_CONSISTENT {
        fail(
            "V-MM-5",
            "SequentiallyConsistent memory semantics cannot be used with the Vulkan memory model"
                .into(),
        );
    }
    let acquire_like = ordering & (ACQUIRE | ACQUIRE_RELEASE) != 0;
    let release_like = ordering & (RELEASE | ACQUIRE_RELEASE) != 0;
    if unequal && release_like {
        fail(
            "V-ATOM-3",
            "OpAtomicCompareExchange Unequal Memory Semantics must not use Release or \
             AcquireRelease memory order"
                .into(),
        );
    }
    if op == Op::AtomicFlagClear && acquire_like {
        fail(
            "V-ATOM-4",
            "Memory Semantics Acquire and AcquireRelease cannot be used with OpAtomicFlagClear"
                .into(),
        );
    }
    if op == Op::AtomicLoad && release_like {
        fail(
            "V-MM-1",
            "OpAtomicLoad: MemorySemantics must not use Release or AcquireRelease memory order"
                .into(),
        );
    }
    if op == Op::AtomicStore && acquire_like {
        fail(
            "V-MM-1",
            "OpAtomicStore: MemorySemantics must not use Acquire or AcquireRelease memory order"
                .into(),
        );
    }
    if ctx.env.is_vulkan() {
        if ordering == SEQUENTIALLY_CONSISTENT {
            fail(
                "V-MM-1",
                format!(
                    "[VUID-StandaloneSpirv-MemorySemantics-10866] Op{op:?}: Memory Semantics with SequentiallyConsistent memory order must not be used in the Vulkan API"
                ),
            );
        }
        if op == Op::MemoryBarrier && ordering == 0 {
            fail(
                "V-MM-1",
                "[VUID-StandaloneSpirv-MemorySemantics-10869] OpMemoryBarrier: MemorySemantics must not use Relaxed memory order".into(),
            );
        }
        if memory_scope == Some(Scope::Invocation as u32) && ordering != 0 {
            fail(
                "V-MM-1",
                format!(
                    "[VUID-StandaloneSpirv-None-04641] Op{op:?}: Vulkan specification requires Memory Semantics to be Relaxed if used with Invocation Memory Scope"
                ),
            );
        }
    }
}

/// The storage classes a NonPrivatePointer access may use (SPIR-V §3.2.25).
fn non_private_class(class: u32) -> bool {
    [
        S::Uniform,
        S::Workgroup,
        S::CrossWorkgroup,
        S::Generic,
        S::Image,
        S::StorageBuffer,
        S::PhysicalStorageBuffer,
    ]
    .iter()
    .any(|&s| s as u32 == class)
}

/// V-MM-4 and V-MM-6 for the memory-operand mask at word `at`.
fn check_memory_access<'m>(
    ctx: &Ctx<'m>,
    inst: Inst<'m>,
    op: Op,
    at: u16,
    problems: &mut Vec<(&'static str, Inst<'m>, Id, String)>,
) {
    let words = inst.words();
    let Some(&mask) = words.get(usize::from(at)) else {
        return;
    };
    // The pointers the mask applies to: Pointer for loads and stores; for copies, the Target
    // with the first mask and the Source with the second (both with a single mask).
    let pointer_word: &[usize] = match op {
        Op::Load => &[3],
        Op::Store => &[1],
        Op::CopyMemory | Op::CopyMemorySized => {
            let first_mask = if op == Op::CopyMemory { 3 } else { 4 };
            let later = ctx
                .operands(inst.index())
                .iter()
                .any(|o| o.kind == Kind::Enum(OperandKind::MemoryAccess) && o.word > at);
            match (usize::from(at) == first_mask, later) {
                (true, true) => &[1],
                (true, false) => &[1, 2],
                _ => &[2],
            }
        }
        _ => &[],
    };
    let anchor = pointer_word
        .first()
        .and_then(|&w| words.get(w))
        .map_or(Id(0), |&w| Id(w));
    let mut fail =
        |rule: &'static str, message: String| problems.push((rule, inst, anchor, message));
    if mask & ALIGNED != 0
        && let Some(&alignment) = words.get(usize::from(at) + 1)
        && !alignment.is_power_of_two()
    {
        fail(
            "V-MM-6",
            format!("memory access Aligned operand value {alignment} is not a power of two"),
        );
    }
    if mask & NON_PRIVATE_POINTER != 0 {
        for &w in pointer_word {
            let class = words
                .get(w)
                .and_then(|&p| ctx.type_of(Id(p)))
                .and_then(|t| match ctx.ty(t) {
                    Some(
                        Type::Pointer { storage_class, .. }
                        | Type::UntypedPointer { storage_class },
                    ) => Some(*storage_class),
                    _ => None,
                });
            if let Some(class) = class
                && !non_private_class(class)
            {
                fail(
                    "V-MM-4",
                    "NonPrivatePointer requires a pointer in Uniform, Workgroup, CrossWorkgroup, \
                     Generic, Image or StorageBuffer storage classes"
                        .into(),
                );
            }
        }
    }
    for (bit, name) in [
        (MAKE_POINTER_AVAILABLE, "MakePointerAvailable"),
        (MAKE_POINTER_VISIBLE, "MakePointerVisible"),
    ] {
        if mask & bit != 0 && mask & NON_PRIVATE_POINTER == 0 {
            fail(
                "V-MM-4",
                format!("NonPrivatePointer must be specified if {name} is specified"),
            );
        }
    }
    if op == Op::Load && mask & MAKE_POINTER_AVAILABLE != 0 {
        fail(
            "V-MM-4",
            "MakePointerAvailable cannot be used with OpLoad".into(),
        );
    }
    if op == Op::Store && mask & MAKE_POINTER_VISIBLE != 0 {
        fail(
            "V-MM-4",
            "MakePointerVisible cannot be used with OpStore".into(),
        );
    }
}
