//! 8- and 16-bit values that only the storage capabilities admit (SPIR-V §2.16.1 data rules,
//! V-DATA-3): without Int8, Int16 or Float16 a value whose type holds such a scalar may only
//! be stored, copied with OpCopyObject, converted by width (OpUConvert, OpSConvert,
//! OpFConvert) or decorated — no arithmetic, comparison or composite operation.
//!
//! As in spirv-val 2025.5, a use counts when it comes after the definition in module order
//! (a back-edge OpPhi operand is not a use here), pointers are exempt (their pointee is what
//! the storage capabilities are about), and the types reachable from the value's type through
//! vectors, matrices, arrays and structs are searched.

use std::collections::{HashMap, HashSet};

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
    // Values defined so far whose type holds a restricted scalar (a cache per type id).
    let mut limited_types: HashMap<u32, bool> = HashMap::new();
    let mut limited_values: HashSet<u32> = HashSet::new();
    let mut problems: Vec<(InstIndex, Id)> = Vec::new();
    for inst in ctx.ix.insts().copied() {
        let op = ctx.reader_op(inst);
        if !allowed_use(op) {
            let result = inst.result_id();
            if let Some((_, id)) = ctx
                .id_refs(inst)
                .filter(|(_, id)| Some(*id) != result)
                .find(|(_, id)| limited_values.contains(&id.0))
            {
                problems.push((inst.index(), id));
            }
        }
        if let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type())
            && !ctx.is_pointer(ty)
            && *limited_types
                .entry(ty.0)
                .or_insert_with(|| ctx.contains(ty, &restricted))
        {
            limited_values.insert(r.0);
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
