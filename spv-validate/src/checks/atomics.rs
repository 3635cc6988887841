//! Atomic instructions: operand types (V-ATOM-2), the storage classes atomics may use in
//! shaders (V-ATOM-1) and constant scopes and semantics in shaders (V-MM-3).
//!
//! Operand positions follow SPIR-V §3.3.18: Pointer, Memory (scope), Semantics, then for
//! compare-exchange a second (Unequal) Semantics, then Value and Comparator. `OpAtomicStore`
//! has no result: Pointer, Scope, Semantics, Value.

use spv_reader::spirv::{Op, StorageClass};
use spv_reader::{Id, Type};

use crate::ctx::{Ctx, Inst};

/// Whether `op` is an atomic this pass checks.
pub(crate) fn is_atomic(op: Op) -> bool {
    matches!(
        op,
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
            | Op::AtomicXor
    )
}

/// The opcodes of [`is_atomic`], for the opcode sets of other rules (`is_atomic` itself
/// keeps its `matches!`, which the per-instruction dispatch folds into its jump table).
pub(crate) const ATOMIC_OPS: &[Op] = &[
    Op::AtomicLoad,
    Op::AtomicStore,
    Op::AtomicExchange,
    Op::AtomicCompareExchange,
    Op::AtomicIIncrement,
    Op::AtomicIDecrement,
    Op::AtomicIAdd,
    Op::AtomicISub,
    Op::AtomicSMin,
    Op::AtomicUMin,
    Op::AtomicSMax,
    Op::AtomicUMax,
    Op::AtomicAnd,
    Op::AtomicOr,
    Op::AtomicXor,
];

/// Checks one atomic instruction.
pub(crate) fn check(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op) {
    // The words after Result Type and Result, as the reader delimits them.
    let Some(operands) = ctx.m.inst(inst.index()).map(|i| i.operands()) else {
        return;
    };
    let id = |n: usize| operands.get(n).map(|w| Id(*w));
    let Some(pointer) = id(0) else { return };
    let (scope, semantics) = (id(1), id(2));
    let pointee = ctx.type_of(pointer).and_then(|t| ctx.pointer(t));

    // V-ATOM-2: the type the atomic works on is the result type, or for OpAtomicStore the
    // stored value's type; it must be the pointee type.
    let value_type = match op {
        Op::AtomicStore => id(3).and_then(|v| ctx.type_of(v)),
        _ => inst.result_type(),
    };
    let Some(value_type) = value_type else { return };
    let any_scalar = matches!(op, Op::AtomicLoad | Op::AtomicStore | Op::AtomicExchange);
    let legal = match ctx.ty(value_type) {
        Some(Type::Int { .. }) => true,
        Some(Type::Float { .. }) => any_scalar,
        _ => false,
    };
    if !legal {
        let expected = if any_scalar {
            "int or float scalar"
        } else {
            "int scalar"
        };
        ctx.err(
            "V-ATOM-2",
            inst.index(),
            &[value_type],
            format!("Op{op:?}: expected the value type to be {expected}"),
        );
        return;
    }
    if let Some((_, pointee)) = pointee
        && pointee != value_type
    {
        ctx.err(
            "V-ATOM-2",
            inst.index(),
            &[pointer],
            format!("Op{op:?}: the pointer's pointee type must be the value type"),
        );
    }
    let values: &[usize] = match op {
        Op::AtomicCompareExchange => &[4, 5],
        Op::AtomicLoad | Op::AtomicIIncrement | Op::AtomicIDecrement | Op::AtomicStore => &[],
        _ => &[3],
    };
    for &n in values {
        if let Some(v) = id(n)
            && ctx.type_of(v) != Some(value_type)
        {
            ctx.err(
                "V-ATOM-2",
                inst.index(),
                &[v],
                format!("Op{op:?}: operand types must equal the value type"),
            );
        }
    }

    if !ctx.shader {
        return;
    }
    // V-ATOM-1 (shaders): no atomics on Function memory.
    if let Some((class, _)) = pointee
        && StorageClass::from_u32(class) == Some(StorageClass::Function)
    {
        ctx.err(
            "V-ATOM-1",
            inst.index(),
            &[pointer],
            format!("Op{op:?}: a shader may not use atomics on Function memory"),
        );
    }
    // V-MM-3 (shaders): scope and semantics are OpConstant, not specialization constants.
    let mut semantics_ids = vec![semantics];
    if op == Op::AtomicCompareExchange {
        semantics_ids.push(id(3));
    }
    for operand in std::iter::once(scope).chain(semantics_ids).flatten() {
        if ctx.def_op(operand) != Some(Op::Constant) {
            ctx.err(
                "V-MM-3",
                inst.index(),
                &[operand],
                format!("Op{op:?}: scope and memory semantics must be OpConstant in a shader"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spv_reader::rspirv::grammar;

    #[test]
    fn atomic_ops_lists_the_atomics() {
        for inst in grammar::INSTRUCTION_TABLE.iter() {
            let op = inst.opcode;
            assert_eq!(is_atomic(op), ATOMIC_OPS.contains(&op), "{op:?}");
        }
    }
}
