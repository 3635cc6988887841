//! 8- and 16-bit values that only the storage capabilities admit (SPIR-V §2.16.1 data rules,
//! V-DATA-3): without Int8, Int16 or Float16 a value whose type holds such a scalar may only
//! be stored, copied with OpCopyObject, converted by width (OpUConvert, OpSConvert,
//! OpFConvert) or decorated — no arithmetic, comparison or composite operation.
//!
//! As in spirv-val 2025.5, a use counts when it comes after the definition in module order
//! (a back-edge OpPhi operand is not a use here), pointers are exempt (their pointee is what
//! the storage capabilities are about), and the types reachable from the value's type through
//! vectors, matrices, arrays and structs are searched.

use spv_reader::spirv::{Capability as C, Op};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;

/// Instructions that may use a restricted 8- or 16-bit value.
fn allowed_use(op: Option<Op>) -> bool {
    matches!(
        op,
        Some(
            Op::Decorate
                | Op::DecorateId
                | Op::CopyObject
                | Op::Store
                | Op::FConvert
                | Op::UConvert
                | Op::SConvert
        )
    )
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let int8 = ctx.has_cap(C::Int8);
    let int16 = ctx.has_cap(C::Int16);
    let float16 = ctx.has_cap(C::Float16);
    if int8 && int16 && float16 {
        return;
    }
    let restricted = |t: &Type| match t {
        Type::Int { width: 8, .. } => !int8,
        Type::Int { width: 16, .. } => !int16,
        Type::Float { width: 16 } => !float16,
        _ => false,
    };
    // Every type a value's type can hold is declared: without a restricted scalar type
    // there is nothing to find.
    if !ctx
        .ix
        .type_decls()
        .filter_map(|inst| inst.result_id().and_then(|t| ctx.ty(t)))
        .any(restricted)
    {
        return;
    }
    // Per type id: whether it holds a restricted scalar (0 not known yet, 1 no, 2 yes).
    let mut limited_types: Vec<u8> = vec![0; ctx.ix.id_count()];
    // Per id: whether it is a value defined so far whose type holds a restricted scalar.
    let mut limited_values: Vec<bool> = vec![false; ctx.ix.id_count()];
    let limited = |values: &[bool], id: Id| values.get(id.0 as usize).copied().unwrap_or(false);
    let mut problems: Vec<(InstIndex, Id)> = Vec::new();
    for inst in ctx.ix.insts() {
        if !allowed_use(inst.opcode()) {
            let result = inst.result_id();
            if let Some(r) = ctx
                .ix
                .refs_of(inst)
                .iter()
                .filter(|r| Some(r.id) != result)
                .find(|r| limited(&limited_values, r.id))
            {
                problems.push((inst.index(), r.id));
            }
        }
        if let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type())
            && !ctx.is_pointer(ty)
        {
            let holds = match limited_types.get(ty.0 as usize) {
                Some(1) => false,
                Some(2) => true,
                _ => {
                    let holds = ctx.contains(ty, &restricted);
                    if let Some(slot) = limited_types.get_mut(ty.0 as usize) {
                        *slot = if holds { 2 } else { 1 };
                    }
                    holds
                }
            };
            if holds && let Some(slot) = limited_values.get_mut(r.0 as usize) {
                *slot = true;
            }
        }
    }
    for (at, id) in problems {
        ctx.err(
            "V-DATA-3",
            at,
            &[id],
            format!(
                "invalid use of the 8- or 16-bit result {id}: without Int8, Int16 or Float16 it \
                 may only be stored, copied, converted by width or decorated"
            ),
        );
    }
}
