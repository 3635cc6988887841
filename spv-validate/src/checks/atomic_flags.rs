//! The atomic-flag instructions of Kernel modules (SPIR-V §3.3.18): V-ATOM-4 (OpAtomicFlagTestAndSet
//! and OpAtomicFlagClear use a pointer to a 32-bit integer; TestAndSet's Result Type is a
//! Boolean scalar). Clear's semantics (no Acquire or AcquireRelease) are checked with the other
//! semantics in `memory_model`.
//!
//! V-ATOM-5 (AtomicCounter pointers only for OpAtomicLoad, IIncrement and IDecrement) is not
//! enforced: spirv-val 2025.5 accepts other atomics on them.

use spv_reader::spirv::Op;
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(InstIndex, Id, String)> = Vec::new();
    let flags = ctx
        .ix
        .with_ops(&[Op::AtomicFlagTestAndSet, Op::AtomicFlagClear]);
    for inst in flags.into_iter().copied() {
        let op = ctx.reader_op(inst);
        let pointer_word = match op {
            Some(Op::AtomicFlagTestAndSet) => 3,
            Some(Op::AtomicFlagClear) => 1,
            _ => continue,
        };
        let name = crate::diag::opcode_name(inst.raw_opcode());
        if op == Some(Op::AtomicFlagTestAndSet)
            && let Some(ty) = inst.result_type()
            && !ctx.is_bool_scalar(ty)
        {
            problems.push((
                inst.index(),
                ty,
                format!("{name}: expected Result Type to be bool scalar type"),
            ));
        }
        let Some(&pointer) = inst.words().get(pointer_word) else {
            continue;
        };
        let pointee_is_int32 = ctx
            .type_of(Id(pointer))
            .and_then(|t| ctx.pointer(t))
            .is_some_and(|(_, p)| matches!(ctx.ty(p), Some(Type::Int { width: 32, .. })));
        if !pointee_is_int32 {
            problems.push((
                inst.index(),
                Id(pointer),
                format!("{name}: expected Pointer to point to a value of 32-bit integer type"),
            ));
        }
    }
    for (at, id, message) in problems {
        ctx.err("V-ATOM-4", at, &[id], message);
    }
}
