//! Type rules of the value-computing instructions (V-INST-1…7, V-DATA-4/5, SPIR-V §3.3.11
//! to §3.3.15): arithmetic, bit, relational and logical instructions, conversions, and the
//! composite instructions. Each operand's type is compared with the Result Type the way the
//! instruction text requires (same type, same component count, same width, ...).

// Every rule below stops at its first failure with `return fail(..)`; the last check of a
// rule is written the same way so that rules can be extended without restructuring.
#![allow(clippy::needless_return)]

use spv_reader::spirv::{Capability as C, Op};
use spv_reader::{Id, Type};

use crate::ctx::{Ctx, Inst};
use crate::limits::MAX_ACCESS_CHAIN_INDEXES;
use crate::opset::OpSet;

/// The operand words after Result Type and Result, read in place (each an id for the
/// opcodes with rules here) rather than copied out as [`Id`]s.
fn args<'m>(inst: &Inst<'m>) -> &'m [u32] {
    inst.words().get(3..).unwrap_or(&[])
}

/// Operand `k` of [`args`] as an id.
fn arg(a: &[u32], k: usize) -> Option<Id> {
    a.get(k).map(|&w| Id(w))
}

/// The operands of [`args`] as ids.
fn ids(a: &[u32]) -> impl Iterator<Item = Id> + '_ {
    a.iter().map(|&w| Id(w))
}

/// Shape of a numeric value type: (scalar kind, width, component count).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scalar {
    Bool,
    Int { signed: bool },
    Float,
}

fn shape(ctx: &Ctx<'_>, ty: Id) -> Option<(Scalar, u32, u32)> {
    let (s, n) = ctx.scalar_and_count(ty)?;
    Some(match ctx.ty(s)? {
        Type::Bool => (Scalar::Bool, 0, n),
        Type::Int { width, signed } => (Scalar::Int { signed: *signed }, *width, n),
        Type::Float { width } => (Scalar::Float, *width, n),
        _ => return None,
    })
}

fn value_shape(ctx: &Ctx<'_>, v: Id) -> Option<(Scalar, u32, u32)> {
    ctx.type_of(v).and_then(|t| shape(ctx, t))
}

fn is_int_shape(s: Option<(Scalar, u32, u32)>) -> bool {
    matches!(s, Some((Scalar::Int { .. }, _, _)))
}

fn is_float_shape(s: Option<(Scalar, u32, u32)>) -> bool {
    matches!(s, Some((Scalar::Float, _, _)))
}

fn is_bool_shape(s: Option<(Scalar, u32, u32)>) -> bool {
    matches!(s, Some((Scalar::Bool, _, _)))
}

/// V-INST-4: comparisons and logical operations produce booleans. Reports and returns `false`
/// when the result type is not a bool scalar or vector.
fn expect_bool_result(
    ctx: &mut Ctx<'_>,
    inst: &Inst<'_>,
    ty: Id,
    rs: Option<(Scalar, u32, u32)>,
) -> bool {
    if is_bool_shape(rs) {
        return true;
    }
    fail(
        ctx,
        "V-INST-4",
        inst,
        &[ty],
        "Expected bool scalar or vector type as Result Type",
    );
    false
}

/// Reports `msg` under `rule` for `inst`, naming the opcode like spirv-val does.
fn fail(ctx: &mut Ctx<'_>, rule: &'static str, inst: &Inst<'_>, ids: &[Id], msg: &str) {
    let op = ctx
        .op_of(inst)
        .map_or_else(String::new, |o| format!("{o:?}"));
    ctx.err(rule, inst.index(), ids, format!("{msg}: {op}"));
}

/// Whether [`check`] has rules for `op`: exactly the opcodes its match names (a test reads
/// them from the source).
fn has_rules(op: Op) -> bool {
    WITH_RULES.contains(op)
}

/// The opcodes of [`has_rules`].
const WITH_RULES: OpSet = OpSet::of(&[
    Op::FAdd,
    Op::FSub,
    Op::FMul,
    Op::FDiv,
    Op::FRem,
    Op::FMod,
    Op::FNegate,
    Op::UDiv,
    Op::UMod,
    Op::IAdd,
    Op::ISub,
    Op::IMul,
    Op::SDiv,
    Op::SRem,
    Op::SMod,
    Op::SNegate,
    Op::BitwiseOr,
    Op::BitwiseXor,
    Op::BitwiseAnd,
    Op::Not,
    Op::ShiftRightLogical,
    Op::ShiftRightArithmetic,
    Op::ShiftLeftLogical,
    Op::BitFieldInsert,
    Op::BitFieldSExtract,
    Op::BitFieldUExtract,
    Op::BitReverse,
    Op::BitCount,
    Op::Dot,
    Op::VectorTimesScalar,
    Op::MatrixTimesScalar,
    Op::VectorTimesMatrix,
    Op::MatrixTimesVector,
    Op::MatrixTimesMatrix,
    Op::OuterProduct,
    Op::IAddCarry,
    Op::ISubBorrow,
    Op::UMulExtended,
    Op::SMulExtended,
    Op::Any,
    Op::All,
    Op::IsNan,
    Op::IsInf,
    Op::IsFinite,
    Op::IsNormal,
    Op::SignBitSet,
    Op::LessOrGreater,
    Op::Ordered,
    Op::Unordered,
    Op::FOrdEqual,
    Op::FUnordEqual,
    Op::FOrdNotEqual,
    Op::FUnordNotEqual,
    Op::FOrdLessThan,
    Op::FUnordLessThan,
    Op::FOrdGreaterThan,
    Op::FUnordGreaterThan,
    Op::FOrdLessThanEqual,
    Op::FUnordLessThanEqual,
    Op::FOrdGreaterThanEqual,
    Op::FUnordGreaterThanEqual,
    Op::LogicalEqual,
    Op::LogicalNotEqual,
    Op::LogicalOr,
    Op::LogicalAnd,
    Op::LogicalNot,
    Op::IEqual,
    Op::INotEqual,
    Op::UGreaterThan,
    Op::SGreaterThan,
    Op::UGreaterThanEqual,
    Op::SGreaterThanEqual,
    Op::ULessThan,
    Op::SLessThan,
    Op::ULessThanEqual,
    Op::SLessThanEqual,
    Op::Select,
    Op::ConvertFToU,
    Op::ConvertFToS,
    Op::ConvertSToF,
    Op::ConvertUToF,
    Op::UConvert,
    Op::SConvert,
    Op::FConvert,
    Op::QuantizeToF16,
    Op::Bitcast,
    Op::VectorExtractDynamic,
    Op::VectorInsertDynamic,
    Op::VectorShuffle,
    Op::CompositeConstruct,
    Op::CompositeExtract,
    Op::CompositeInsert,
    Op::Transpose,
    Op::Undef,
]);

/// Checks one instruction.
// Inlined so that the many instructions without value rules cost only the opcode test.
#[inline]
pub(crate) fn check(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op, shapes: &mut ShapeCache) {
    if has_rules(op) {
        check_rules(ctx, inst, op, shapes);
    }
}

/// Entries of [`ShapeCache`] (a power of two).
const SHAPE_CACHE_ENTRIES: usize = 16;

/// The shapes of the Result Types seen last, direct-mapped by type id: a module's value
/// instructions use few result types, so most [`shape`] questions are answered without
/// looking the type (and its component type) up again. Valid for one module.
pub(crate) struct ShapeCache([(u32, Shape); SHAPE_CACHE_ENTRIES]);

/// What [`shape`] answers.
type Shape = Option<(Scalar, u32, u32)>;

impl ShapeCache {
    /// An empty cache (id 0 is never a type, so it marks a free entry).
    pub(crate) fn new() -> Self {
        ShapeCache([(0, None); SHAPE_CACHE_ENTRIES])
    }

    /// [`shape`] of `ty`, from the cache when it holds it.
    fn shape(&mut self, ctx: &Ctx<'_>, ty: Id) -> Shape {
        if ty.0 == 0 {
            return shape(ctx, ty);
        }
        let slot = self.0.get_mut(ty.0 as usize % SHAPE_CACHE_ENTRIES);
        match slot {
            Some(&mut (id, known)) if id == ty.0 => known,
            Some(entry) => {
                let known = shape(ctx, ty);
                *entry = (ty.0, known);
                known
            }
            // The index is below the array's length.
            None => shape(ctx, ty),
        }
    }
}

/// [`check`] for an opcode with rules.
fn check_rules(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op, shapes: &mut ShapeCache) {
    let ty = inst.result_type().unwrap_or(Id(0));
    let rs = shapes.shape(ctx, ty);
    let a = args(inst);
    match op {
        Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod | Op::FNegate => {
            if !is_float_shape(rs) {
                return fail(
                    ctx,
                    "V-INST-2",
                    inst,
                    &[ty],
                    "Expected floating scalar or vector type as Result Type",
                );
            }
            for x in ids(a) {
                if ctx.type_of(x) != Some(ty) {
                    return fail(
                        ctx,
                        "V-INST-2",
                        inst,
                        &[x],
                        "Expected arithmetic operands to be of Result Type",
                    );
                }
            }
        }
        Op::UDiv | Op::UMod => {
            if !matches!(rs, Some((Scalar::Int { signed: false }, _, _))) {
                return fail(
                    ctx,
                    "V-INST-1",
                    inst,
                    &[ty],
                    "Expected unsigned int scalar or vector type as Result Type",
                );
            }
            for x in ids(a) {
                if ctx.type_of(x) != Some(ty) {
                    return fail(
                        ctx,
                        "V-INST-1",
                        inst,
                        &[x],
                        "Expected arithmetic operands to be of Result Type",
                    );
                }
            }
        }
        Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::SDiv
        | Op::SRem
        | Op::SMod
        | Op::SNegate
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::BitwiseAnd
        | Op::Not => {
            if !is_int_shape(rs) {
                return fail(
                    ctx,
                    "V-INST-1",
                    inst,
                    &[ty],
                    "Expected int scalar or vector type as Result Type",
                );
            }
            same_int_shape(ctx, inst, a, rs);
        }
        Op::ShiftRightLogical | Op::ShiftRightArithmetic | Op::ShiftLeftLogical => {
            if !is_int_shape(rs) {
                return fail(
                    ctx,
                    "V-INST-3",
                    inst,
                    &[ty],
                    "Expected int scalar or vector type as Result Type",
                );
            }
            let (Some(base), Some(shift)) = (arg(a, 0), arg(a, 1)) else {
                return;
            };
            let bs = value_shape(ctx, base);
            if !is_int_shape(bs) {
                return fail(
                    ctx,
                    "V-INST-3",
                    inst,
                    &[base],
                    "Expected Base to be int scalar or vector",
                );
            }
            if bs.map(|s| s.2) != rs.map(|s| s.2) {
                return fail(
                    ctx,
                    "V-INST-3",
                    inst,
                    &[base],
                    "Expected Base to have the same dimension as Result Type",
                );
            }
            if bs.map(|s| s.1) != rs.map(|s| s.1) {
                return fail(
                    ctx,
                    "V-INST-3",
                    inst,
                    &[base],
                    "Expected Base to have the same bit width as Result Type",
                );
            }
            let ss = value_shape(ctx, shift);
            if !is_int_shape(ss) {
                return fail(
                    ctx,
                    "V-INST-3",
                    inst,
                    &[shift],
                    "Expected Shift to be int scalar or vector",
                );
            }
            if ss.map(|s| s.2) != rs.map(|s| s.2) {
                return fail(
                    ctx,
                    "V-INST-3",
                    inst,
                    &[shift],
                    "Expected Shift to have the same dimension as Result Type",
                );
            }
        }
        Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract | Op::BitReverse => {
            if !is_int_shape(rs) {
                return fail(
                    ctx,
                    "V-INST-1",
                    inst,
                    &[ty],
                    "Expected int scalar or vector type as Result Type",
                );
            }
            let n_same = if op == Op::BitFieldInsert { 2 } else { 1 };
            for x in ids(a).take(n_same) {
                if ctx.type_of(x) != Some(ty) {
                    return fail(
                        ctx,
                        "V-INST-1",
                        inst,
                        &[x],
                        "Expected Base (and Insert) type to be equal to Result Type",
                    );
                }
            }
            for x in ids(a).skip(n_same) {
                if !ctx.type_of(x).is_some_and(|t| ctx.is_int_scalar(t)) {
                    return fail(
                        ctx,
                        "V-INST-1",
                        inst,
                        &[x],
                        "Expected Offset and Count to be int scalars",
                    );
                }
            }
        }
        Op::BitCount => {
            if !is_int_shape(rs) {
                return fail(
                    ctx,
                    "V-INST-1",
                    inst,
                    &[ty],
                    "Expected int scalar or vector type as Result Type",
                );
            }
            let bs = arg(a, 0).and_then(|b| value_shape(ctx, b));
            if !is_int_shape(bs) || bs.map(|s| s.2) != rs.map(|s| s.2) {
                return fail(
                    ctx,
                    "V-INST-1",
                    inst,
                    &ids(a).collect::<Vec<_>>(),
                    "Expected Base to be int scalar or vector with the Result Type's dimension",
                );
            }
        }
        Op::Dot => {
            if !matches!(rs, Some((Scalar::Float, _, 1))) {
                return fail(
                    ctx,
                    "V-INST-2",
                    inst,
                    &[ty],
                    "Expected float scalar type as Result Type",
                );
            }
            let (Some(x), Some(y)) = (arg(a, 0), arg(a, 1)) else {
                return;
            };
            let xs = value_shape(ctx, x);
            let is_vec = |v: Id| {
                matches!(
                    ctx.type_of(v).and_then(|t| ctx.ty(t)),
                    Some(Type::Vector { .. })
                )
            };
            if !is_vec(x)
                || !is_vec(y)
                || !is_float_shape(xs)
                || ctx.type_of(x) != ctx.type_of(y)
                || xs.map(|s| s.1) != rs.map(|s| s.1)
            {
                return fail(
                    ctx,
                    "V-INST-2",
                    inst,
                    &[x, y],
                    "Expected float vector operands of the same type, with components of the Result Type",
                );
            }
        }
        Op::VectorTimesScalar | Op::MatrixTimesScalar => {
            let want_matrix = op == Op::MatrixTimesScalar;
            let ok_result = if want_matrix {
                matches!(ctx.ty(ty), Some(Type::Matrix { column, .. }) if ctx.is_float(*column))
            } else {
                matches!(ctx.ty(ty), Some(Type::Vector { .. })) && is_float_shape(rs)
            };
            if !ok_result {
                return fail(
                    ctx,
                    "V-INST-2",
                    inst,
                    &[ty],
                    "Expected float vector (or matrix) type as Result Type",
                );
            }
            let (Some(v), Some(s)) = (arg(a, 0), arg(a, 1)) else {
                return;
            };
            if ctx.type_of(v) != Some(ty) {
                return fail(
                    ctx,
                    "V-INST-2",
                    inst,
                    &[v],
                    "Expected vector (or matrix) operand type to be equal to Result Type",
                );
            }
            let component = component_scalar(ctx, ty);
            if ctx.type_of(s) != component {
                return fail(
                    ctx,
                    "V-INST-2",
                    inst,
                    &[s],
                    "Expected scalar operand type to be equal to the component type of the vector (or matrix)",
                );
            }
        }
        Op::VectorTimesMatrix
        | Op::MatrixTimesVector
        | Op::MatrixTimesMatrix
        | Op::OuterProduct => {
            check_matrix_op(ctx, inst, op, ty, a);
        }
        Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
            let ok = match ctx.ty(ty) {
                Some(Type::Struct { members }) => {
                    members.len() == 2
                        && members.first() == members.get(1)
                        && members.first().is_some_and(|&m| {
                            let s = shape(ctx, m);
                            is_int_shape(s)
                                && (op == Op::SMulExtended
                                    || matches!(s, Some((Scalar::Int { signed: false }, _, _))))
                        })
                }
                _ => false,
            };
            if !ok {
                return fail(
                    ctx,
                    "V-INST-1",
                    inst,
                    &[ty],
                    "Expected a struct of two identical (unsigned) int scalar or vector members as Result Type",
                );
            }
            let member = match ctx.ty(ty) {
                Some(Type::Struct { members }) => members.first().copied(),
                _ => None,
            };
            for x in ids(a) {
                if ctx.type_of(x) != member {
                    return fail(
                        ctx,
                        "V-INST-1",
                        inst,
                        &[x],
                        "Expected operands to be of the Result Type's member type",
                    );
                }
            }
        }
        Op::Any | Op::All => {
            if !matches!(rs, Some((Scalar::Bool, _, 1))) {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &[ty],
                    "Expected bool scalar type as Result Type",
                );
            }
            let v = arg(a, 0).unwrap_or(Id(0));
            let is_bool_vec = ctx.type_of(v).is_some_and(|t| {
                matches!(ctx.ty(t), Some(Type::Vector { .. }))
                    && ctx.is_bool_scalar(ctx.scalar_and_count(t).map_or(Id(0), |x| x.0))
            });
            if !is_bool_vec {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &[v],
                    "Expected operand to be vector bool",
                );
            }
        }
        Op::IsNan | Op::IsInf | Op::IsFinite | Op::IsNormal | Op::SignBitSet => {
            if !expect_bool_result(ctx, inst, ty, rs) {
                return;
            }
            let xs = arg(a, 0).and_then(|x| value_shape(ctx, x));
            if !is_float_shape(xs) || xs.map(|s| s.2) != rs.map(|s| s.2) {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &ids(a).collect::<Vec<_>>(),
                    "Expected operand to be a float scalar or vector of the Result Type's dimension",
                );
            }
        }
        Op::LessOrGreater
        | Op::Ordered
        | Op::Unordered
        | Op::FOrdEqual
        | Op::FUnordEqual
        | Op::FOrdNotEqual
        | Op::FUnordNotEqual
        | Op::FOrdLessThan
        | Op::FUnordLessThan
        | Op::FOrdGreaterThan
        | Op::FUnordGreaterThan
        | Op::FOrdLessThanEqual
        | Op::FUnordLessThanEqual
        | Op::FOrdGreaterThanEqual
        | Op::FUnordGreaterThanEqual => {
            if !expect_bool_result(ctx, inst, ty, rs) {
                return;
            }
            let (Some(x), Some(y)) = (arg(a, 0), arg(a, 1)) else {
                return;
            };
            let xs = value_shape(ctx, x);
            if !is_float_shape(xs) || xs.map(|s| s.2) != rs.map(|s| s.2) {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &[x],
                    "Expected operands to be scalar or vector float with the Result Type's dimension",
                );
            }
            if ctx.type_of(x) != ctx.type_of(y) {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &[x, y],
                    "Expected left and right operands to have the same type",
                );
            }
        }
        Op::LogicalEqual
        | Op::LogicalNotEqual
        | Op::LogicalOr
        | Op::LogicalAnd
        | Op::LogicalNot => {
            if !expect_bool_result(ctx, inst, ty, rs) {
                return;
            }
            for x in ids(a) {
                if ctx.type_of(x) != Some(ty) {
                    return fail(
                        ctx,
                        "V-INST-4",
                        inst,
                        &[x],
                        "Expected both operands to be of Result Type",
                    );
                }
            }
        }
        Op::IEqual
        | Op::INotEqual
        | Op::UGreaterThan
        | Op::SGreaterThan
        | Op::UGreaterThanEqual
        | Op::SGreaterThanEqual
        | Op::ULessThan
        | Op::SLessThan
        | Op::ULessThanEqual
        | Op::SLessThanEqual => {
            if !expect_bool_result(ctx, inst, ty, rs) {
                return;
            }
            let (Some(x), Some(y)) = (arg(a, 0), arg(a, 1)) else {
                return;
            };
            let (xs, ys) = (value_shape(ctx, x), value_shape(ctx, y));
            if !is_int_shape(xs) || xs.map(|s| s.2) != rs.map(|s| s.2) {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &[x],
                    "Expected operands to be scalar or vector int with the Result Type's dimension",
                );
            }
            if !is_int_shape(ys) || ys.map(|s| s.2) != rs.map(|s| s.2) {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &[y],
                    "Expected operands to be scalar or vector int with the Result Type's dimension",
                );
            }
            if xs.map(|s| s.1) != ys.map(|s| s.1) {
                return fail(
                    ctx,
                    "V-INST-4",
                    inst,
                    &[x, y],
                    "Expected both operands to have the same component bit width",
                );
            }
        }
        Op::Select => check_select(ctx, inst, ty, a),
        Op::ConvertFToU
        | Op::ConvertFToS
        | Op::ConvertSToF
        | Op::ConvertUToF
        | Op::UConvert
        | Op::SConvert
        | Op::FConvert
        | Op::QuantizeToF16 => check_convert(ctx, inst, op, ty, a),
        Op::Bitcast => check_bitcast(ctx, inst, ty, a),
        Op::VectorExtractDynamic | Op::VectorInsertDynamic => {
            check_vector_dynamic(ctx, inst, op, ty, a)
        }
        Op::VectorShuffle => check_shuffle(ctx, inst, ty),
        Op::CompositeConstruct => check_construct(ctx, inst, ty, a),
        Op::CompositeExtract | Op::CompositeInsert => check_extract_insert(ctx, inst, op, ty),
        Op::Transpose => {
            let m = arg(a, 0).unwrap_or(Id(0));
            let dims = |t: Id| match ctx.ty(t) {
                Some(Type::Matrix { column, count }) => ctx
                    .scalar_and_count(*column)
                    .map(|(s, rows)| (s, rows, *count)),
                _ => None,
            };
            match (dims(ty), ctx.type_of(m).and_then(dims)) {
                (Some((s1, r1, c1)), Some((s2, r2, c2))) if s1 == s2 && r1 == c2 && c1 == r2 => {}
                _ => fail(
                    ctx,
                    "V-INST-7",
                    inst,
                    &[m],
                    "Expected the Matrix operand to be the transpose of the Result Type",
                ),
            }
        }
        Op::Undef => {
            if matches!(ctx.ty(ty), Some(Type::Void)) {
                fail(
                    ctx,
                    "V-DATA-4",
                    inst,
                    &[ty],
                    "Cannot create undefined values with void type",
                );
            }
        }
        _ => {}
    }
}

/// Integer operands: int scalars/vectors with the Result Type's component count and width.
fn same_int_shape(ctx: &mut Ctx<'_>, inst: &Inst<'_>, a: &[u32], rs: Option<(Scalar, u32, u32)>) {
    for x in ids(a) {
        let xs = value_shape(ctx, x);
        if !is_int_shape(xs) {
            return fail(
                ctx,
                "V-INST-1",
                inst,
                &[x],
                "Expected int scalar or vector type as operand",
            );
        }
        if xs.map(|s| s.2) != rs.map(|s| s.2) {
            return fail(
                ctx,
                "V-INST-1",
                inst,
                &[x],
                "Expected arithmetic operands to have the same dimension as Result Type",
            );
        }
        if xs.map(|s| s.1) != rs.map(|s| s.1) {
            return fail(
                ctx,
                "V-INST-1",
                inst,
                &[x],
                "Expected arithmetic operands to have the same bit width as Result Type",
            );
        }
    }
}

/// The scalar component type of a vector or matrix type.
fn component_scalar(ctx: &Ctx<'_>, ty: Id) -> Option<Id> {
    match ctx.ty(ty)? {
        Type::Vector { component, .. } => Some(*component),
        Type::Matrix { column, .. } => ctx.scalar_and_count(*column).map(|(s, _)| s),
        _ => None,
    }
}

/// (component scalar, rows, columns) of a float matrix type.
fn matrix_dims(ctx: &Ctx<'_>, ty: Id) -> Option<(Id, u32, u32)> {
    match ctx.ty(ty)? {
        Type::Matrix { column, count } => {
            let (s, rows) = ctx.scalar_and_count(*column)?;
            matches!(ctx.ty(s), Some(Type::Float { .. })).then_some((s, rows, *count))
        }
        _ => None,
    }
}

/// (component scalar, count) of a float vector type.
fn float_vector(ctx: &Ctx<'_>, ty: Id) -> Option<(Id, u32)> {
    match ctx.ty(ty)? {
        Type::Vector { component, count }
            if matches!(ctx.ty(*component), Some(Type::Float { .. })) =>
        {
            Some((*component, *count))
        }
        _ => None,
    }
}

fn check_matrix_op(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op, ty: Id, a: &[u32]) {
    let (Some(x), Some(y)) = (arg(a, 0), arg(a, 1)) else {
        return;
    };
    let (tx, ty_) = (
        ctx.type_of(x).unwrap_or(Id(0)),
        ctx.type_of(y).unwrap_or(Id(0)),
    );
    let ok = match op {
        Op::VectorTimesMatrix => match (
            float_vector(ctx, ty),
            float_vector(ctx, tx),
            matrix_dims(ctx, ty_),
        ) {
            (Some((rc, rn)), Some((vc, vn)), Some((mc, rows, cols))) => {
                rc == vc && vc == mc && vn == rows && rn == cols
            }
            _ => false,
        },
        Op::MatrixTimesVector => match (
            float_vector(ctx, ty),
            matrix_dims(ctx, tx),
            float_vector(ctx, ty_),
        ) {
            (Some((rc, rn)), Some((mc, rows, cols)), Some((vc, vn))) => {
                rc == mc && mc == vc && vn == cols && rn == rows
            }
            _ => false,
        },
        Op::MatrixTimesMatrix => match (
            matrix_dims(ctx, ty),
            matrix_dims(ctx, tx),
            matrix_dims(ctx, ty_),
        ) {
            (Some((rc, rr, rcols)), Some((lc, lr, lcols)), Some((qc, qr, qcols))) => {
                rc == lc && lc == qc && rr == lr && rcols == qcols && lcols == qr
            }
            _ => false,
        },
        _ => match (
            matrix_dims(ctx, ty),
            float_vector(ctx, tx),
            float_vector(ctx, ty_),
        ) {
            (Some((rc, rows, cols)), Some((xc, xn)), Some((yc, yn))) => {
                rc == xc && xc == yc && xn == rows && yn == cols
            }
            _ => false,
        },
    };
    if !ok {
        fail(
            ctx,
            "V-INST-2",
            inst,
            &[x, y],
            "Expected float vector/matrix operands whose dimensions match the Result Type",
        );
    }
}

fn check_select(ctx: &mut Ctx<'_>, inst: &Inst<'_>, ty: Id, a: &[u32]) {
    let (Some(cond), Some(x), Some(y)) = (arg(a, 0), arg(a, 1), arg(a, 2)) else {
        return;
    };
    let result_ok = match ctx.ty(ty) {
        Some(Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. }) => true,
        Some(Type::Pointer { .. }) => {
            if ctx.addressing == 0 && !ctx.has_cap(C::VariablePointersStorageBuffer) {
                return fail(
                    ctx,
                    "V-PTR-3",
                    inst,
                    &[ty],
                    "Using pointers with OpSelect requires capability VariablePointers or VariablePointersStorageBuffer",
                );
            }
            true
        }
        Some(Type::Struct { .. } | Type::Array { .. } | Type::Matrix { .. }) => ctx.at_least(4),
        _ => false,
    };
    if !result_ok {
        return fail(
            ctx,
            "V-DATA-5",
            inst,
            &[ty],
            "Expected scalar or vector type (or, from 1.4, a composite or pointer) as Result Type",
        );
    }
    let cs = value_shape(ctx, cond);
    if !is_bool_shape(cs) {
        return fail(
            ctx,
            "V-DATA-5",
            inst,
            &[cond],
            "Expected bool scalar or vector type as condition",
        );
    }
    if cs.is_some_and(|s| s.2 > 1) && shape(ctx, ty).map(|s| s.2) != cs.map(|s| s.2) {
        return fail(
            ctx,
            "V-DATA-5",
            inst,
            &[cond],
            "Expected vector sizes of Result Type and the condition to be equal",
        );
    }
    if cs.is_some_and(|s| s.2 > 1) && !matches!(ctx.ty(ty), Some(Type::Vector { .. })) {
        return fail(
            ctx,
            "V-DATA-5",
            inst,
            &[cond],
            "Expected vector sizes of Result Type and the condition to be equal",
        );
    }
    if ctx.type_of(x) != Some(ty) || ctx.type_of(y) != Some(ty) {
        fail(
            ctx,
            "V-DATA-5",
            inst,
            &[x, y],
            "Expected both objects to be of Result Type",
        );
    }
}

fn check_convert(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op, ty: Id, a: &[u32]) {
    let rs = shape(ctx, ty);
    let x = arg(a, 0).unwrap_or(Id(0));
    let xs = value_shape(ctx, x);
    let (result_ok, input_ok) = match op {
        Op::ConvertFToU => (
            matches!(rs, Some((Scalar::Int { .. }, _, _))),
            is_float_shape(xs),
        ),
        Op::ConvertFToS => (is_int_shape(rs), is_float_shape(xs)),
        Op::ConvertSToF | Op::ConvertUToF => (is_float_shape(rs), is_int_shape(xs)),
        Op::UConvert => (
            matches!(rs, Some((Scalar::Int { signed: false }, _, _)))
                || (is_int_shape(rs) && !ctx.shader),
            is_int_shape(xs),
        ),
        Op::SConvert => (is_int_shape(rs), is_int_shape(xs)),
        Op::FConvert => (is_float_shape(rs), is_float_shape(xs)),
        _ => (
            matches!(rs, Some((Scalar::Float, 32, _))),
            ctx.type_of(x) == Some(ty),
        ),
    };
    if !result_ok {
        return fail(
            ctx,
            "V-INST-5",
            inst,
            &[ty],
            "Expected a scalar or vector Result Type of the kind the conversion produces",
        );
    }
    if !input_ok {
        return fail(
            ctx,
            "V-INST-5",
            inst,
            &[x],
            "Expected input to be a scalar or vector of the kind the conversion takes",
        );
    }
    if xs.map(|s| s.2) != rs.map(|s| s.2) {
        return fail(
            ctx,
            "V-INST-5",
            inst,
            &[x],
            "Expected input to have the same dimension as Result Type",
        );
    }
    if matches!(op, Op::UConvert | Op::SConvert | Op::FConvert)
        && xs.map(|s| s.1) == rs.map(|s| s.1)
    {
        fail(
            ctx,
            "V-INST-5",
            inst,
            &[x],
            "Expected input to have different bit width from Result Type",
        );
    }
}

fn check_bitcast(ctx: &mut Ctx<'_>, inst: &Inst<'_>, ty: Id, a: &[u32]) {
    let x = arg(a, 0).unwrap_or(Id(0));
    let xt = ctx.type_of(x).unwrap_or(Id(0));
    let bits = |t: Id| -> Option<u64> {
        match ctx.ty(t)? {
            Type::Pointer { .. } => Some(if ctx.addressing == 1 { 32 } else { 64 }),
            _ => shape(ctx, t)
                .filter(|s| s.0 != Scalar::Bool)
                .map(|s| u64::from(s.1) * u64::from(s.2)),
        }
    };
    let (rp, xp) = (ctx.is_pointer(ty), ctx.is_pointer(xt));
    let (ty_bits, xt_bits) = (bits(ty), bits(xt));
    if ty_bits.is_none() {
        return fail(
            ctx,
            "V-PTR-9",
            inst,
            &[ty],
            "Expected Result Type to be a pointer or int or float vector or scalar type",
        );
    }
    if xt_bits.is_none() {
        return fail(
            ctx,
            "V-PTR-9",
            inst,
            &[x],
            "Expected input to be a pointer or int or float vector or scalar",
        );
    }
    if rp || xp {
        if ctx.addressing == 0 && !(rp && xp) {
            return fail(
                ctx,
                "V-PTR-9",
                inst,
                &[x],
                "In the Logical addressing model, OpBitcast may only convert pointers to pointers",
            );
        }
        if rp && xp && ctx.pointer(ty).map(|p| p.0) != ctx.pointer(xt).map(|p| p.0) {
            return fail(
                ctx,
                "V-PTR-9",
                inst,
                &[x],
                "Expected input and Result Type to have the same storage class",
            );
        }
        return;
    }
    if ty_bits != xt_bits {
        fail(
            ctx,
            "V-PTR-9",
            inst,
            &[x],
            "Expected input to have the same total bit width as Result Type",
        );
    }
}

fn check_vector_dynamic(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op, ty: Id, a: &[u32]) {
    let vector = arg(a, 0).unwrap_or(Id(0));
    let vt = ctx.type_of(vector).unwrap_or(Id(0));
    let Some(&Type::Vector { component, .. }) = ctx.ty(vt) else {
        return fail(
            ctx,
            "V-INST-7",
            inst,
            &[vector],
            "Expected Vector type to be OpTypeVector",
        );
    };
    let index = if op == Op::VectorExtractDynamic {
        if ty != component {
            return fail(
                ctx,
                "V-INST-7",
                inst,
                &[vector],
                "Expected Vector component type to be equal to Result Type",
            );
        }
        arg(a, 1)
    } else {
        if vt != ty {
            return fail(
                ctx,
                "V-INST-7",
                inst,
                &[vector],
                "Expected Vector type to be equal to Result Type",
            );
        }
        let c = arg(a, 1).unwrap_or(Id(0));
        if ctx.type_of(c) != Some(component) {
            return fail(
                ctx,
                "V-INST-7",
                inst,
                &[c],
                "Expected Component type to be equal to Result Type component type",
            );
        }
        arg(a, 2)
    };
    let index = index.unwrap_or(Id(0));
    if !ctx.type_of(index).is_some_and(|t| ctx.is_int_scalar(t)) {
        fail(
            ctx,
            "V-INST-7",
            inst,
            &[index],
            "Expected Index to be int scalar",
        );
    }
}

fn check_shuffle(ctx: &mut Ctx<'_>, inst: &Inst<'_>, ty: Id) {
    let words = inst.words();
    let (v1, v2) = (
        Id(words.get(3).copied().unwrap_or(0)),
        Id(words.get(4).copied().unwrap_or(0)),
    );
    let Some(&Type::Vector { component, count }) = ctx.ty(ty) else {
        return fail(
            ctx,
            "V-INST-6",
            inst,
            &[ty],
            "The Result Type of OpVectorShuffle must be OpTypeVector",
        );
    };
    let lits = words.get(5..).unwrap_or(&[]);
    if lits.len() as u32 != count {
        return fail(
            ctx,
            "V-INST-6",
            inst,
            &[ty],
            "OpVectorShuffle component literals count does not match Result Type's component count",
        );
    }
    let mut total = 0u32;
    for v in [v1, v2] {
        match ctx.type_of(v).and_then(|t| ctx.ty(t)) {
            Some(Type::Vector {
                component: c,
                count: n,
            }) => {
                if *c != component {
                    return fail(
                        ctx,
                        "V-INST-6",
                        inst,
                        &[v],
                        "The Component Type of the vectors must be the same as the Result Type's",
                    );
                }
                // A hostile module may declare absurd component counts; saturate.
                total = total.saturating_add(*n);
            }
            _ => {
                return fail(
                    ctx,
                    "V-INST-6",
                    inst,
                    &[v],
                    "The type of a Vector operand must be OpTypeVector",
                );
            }
        }
    }
    for &l in lits {
        if l != 0xFFFF_FFFF && l >= total {
            return fail(
                ctx,
                "V-INST-6",
                inst,
                &[],
                &format!("Component index {l} is out of bounds for combined size of {total}"),
            );
        }
    }
}

fn check_construct(ctx: &mut Ctx<'_>, inst: &Inst<'_>, ty: Id, a: &[u32]) {
    match ctx.ty(ty) {
        Some(&Type::Vector { component, count }) => {
            let mut total = 0u32;
            for x in ids(a) {
                let xt = ctx.type_of(x).unwrap_or(Id(0));
                match ctx.ty(xt) {
                    Some(Type::Vector {
                        component: c,
                        count: n,
                    }) if *c == component => total = total.saturating_add(*n),
                    _ if xt == component => total = total.saturating_add(1),
                    _ => {
                        return fail(
                            ctx,
                            "V-INST-7",
                            inst,
                            &[x],
                            "Expected Constituents to be scalars or vectors of the same type as Result Type components",
                        );
                    }
                }
            }
            if total != count || a.len() < 2 {
                fail(
                    ctx,
                    "V-INST-7",
                    inst,
                    &[],
                    "Expected total number of given components to be equal to the size of Result Type vector",
                );
            }
        }
        Some(&Type::Matrix { column, count }) => {
            if a.len() as u32 != count {
                return fail(
                    ctx,
                    "V-INST-7",
                    inst,
                    &[],
                    "Expected total number of Constituents to be equal to the number of columns of Result Type matrix",
                );
            }
            for x in ids(a) {
                if ctx.type_of(x) != Some(column) {
                    return fail(
                        ctx,
                        "V-INST-7",
                        inst,
                        &[x],
                        "Expected Constituent type to be equal to the column type Result Type matrix",
                    );
                }
            }
        }
        Some(&Type::Array { element, length }) => {
            if let Some(n) = ctx.const_scalar(length)
                && a.len() as u64 != n
            {
                return fail(
                    ctx,
                    "V-INST-7",
                    inst,
                    &[],
                    "Expected total number of Constituents to be equal to the number of elements of Result Type array",
                );
            }
            for x in ids(a) {
                if ctx.type_of(x) != Some(element) {
                    return fail(
                        ctx,
                        "V-INST-7",
                        inst,
                        &[x],
                        "Expected Constituent type to be equal to the element type of Result Type array",
                    );
                }
            }
        }
        Some(Type::Struct { members }) => {
            if a.len() != members.len() {
                return fail(
                    ctx,
                    "V-INST-7",
                    inst,
                    &[],
                    "Expected total number of Constituents to be equal to the number of members of Result Type struct",
                );
            }
            for (x, &m) in ids(a).zip(members) {
                if ctx.type_of(x) != Some(m) {
                    return fail(
                        ctx,
                        "V-INST-7",
                        inst,
                        &[x],
                        "Expected Constituent type to be equal to the corresponding member type of Result Type struct",
                    );
                }
            }
        }
        _ => fail(
            ctx,
            "V-INST-7",
            inst,
            &[ty],
            "Expected Result Type to be a composite type",
        ),
    }
}

/// The type reached from `ty` by the literal `indexes` (CompositeExtract/Insert).
fn walk_literals(ctx: &Ctx<'_>, mut ty: Id, indexes: &[u32]) -> Result<Id, String> {
    for &k in indexes {
        ty = match ctx.ty(ty) {
            Some(Type::Vector { component, count }) => {
                if k >= *count {
                    return Err(format!(
                        "Vector access is out of bounds, vector size is {count}, but access index is {k}"
                    ));
                }
                *component
            }
            Some(Type::Matrix { column, count }) => {
                if k >= *count {
                    return Err(format!(
                        "Matrix access is out of bounds, matrix has {count} columns, but access index is {k}"
                    ));
                }
                *column
            }
            Some(Type::Array { element, length }) => {
                if let Some(n) = ctx.const_scalar(*length)
                    && u64::from(k) >= n
                    && ctx.m.constant(*length).is_some_and(|c| !c.is_spec())
                {
                    return Err(format!(
                        "Array access is out of bounds, array size is {n}, but access index is {k}"
                    ));
                }
                *element
            }
            Some(Type::Struct { members }) => match members.get(k as usize) {
                Some(&m) => m,
                None => {
                    return Err(format!(
                        "Index is out of bounds, can not find index {k} in the structure, which has {} members",
                        members.len()
                    ));
                }
            },
            Some(Type::RuntimeArray { .. }) => {
                return Err("Cannot extract from a composite of type OpTypeRuntimeArray".to_owned());
            }
            _ => {
                return Err(
                    "Reached non-composite type while indexes still remain to be traversed"
                        .to_owned(),
                );
            }
        };
    }
    Ok(ty)
}

fn check_extract_insert(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op, ty: Id) {
    let words = inst.words();
    let (composite, object, first) = if op == Op::CompositeExtract {
        (Id(words.get(3).copied().unwrap_or(0)), None, 4)
    } else {
        (
            Id(words.get(4).copied().unwrap_or(0)),
            Some(Id(words.get(3).copied().unwrap_or(0))),
            5,
        )
    };
    let indexes = words.get(first..).unwrap_or(&[]);
    if indexes.len() > MAX_ACCESS_CHAIN_INDEXES {
        return fail(ctx, "V-LIM-1", inst, &[], "too many indexes");
    }
    if indexes.is_empty() {
        return fail(ctx, "V-INST-7", inst, &[], "Expected at least one index");
    }
    let Some(ct) = ctx.type_of(composite) else {
        return fail(
            ctx,
            "V-INST-7",
            inst,
            &[composite],
            "Expected Composite to be a value",
        );
    };
    match walk_literals(ctx, ct, indexes) {
        Err(msg) => fail(ctx, "V-INST-7", inst, &[composite], &msg),
        Ok(reached) => {
            if let Some(object) = object {
                if ct != ty {
                    return fail(
                        ctx,
                        "V-INST-7",
                        inst,
                        &[composite],
                        "The Result Type must be the same as Composite type",
                    );
                }
                if ctx.type_of(object) != Some(reached) {
                    fail(
                        ctx,
                        "V-INST-7",
                        inst,
                        &[object],
                        "The Object type does not match the type that results from indexing into the Composite",
                    );
                }
            } else if reached != ty {
                fail(
                    ctx,
                    "V-INST-7",
                    inst,
                    &[ty],
                    "Result type does not match the type that results from indexing into the composite",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The opcodes named by the arms of `check`'s match, read from this file.
    fn matched_opcodes() -> Vec<String> {
        let source = include_str!("values.rs");
        let start = source
            .find("    let a = args(inst);\n    match op {")
            .expect("check's match");
        let mut opcodes = Vec::new();
        for line in source[start..].lines().skip(2) {
            if line.starts_with("    }") {
                break;
            }
            // Arm patterns sit at eight spaces; bodies are indented further.
            let Some(pattern) = line.strip_prefix("        ") else {
                continue;
            };
            if pattern.starts_with("Op::") || pattern.starts_with("| Op::") {
                let pattern = pattern.split("=>").next().unwrap_or("");
                for name in pattern.split("Op::").skip(1) {
                    let name: String = name.chars().take_while(|c| c.is_alphanumeric()).collect();
                    opcodes.push(name);
                }
            }
        }
        opcodes
    }

    #[test]
    fn has_rules_lists_exactly_the_matched_opcodes() {
        let matched = matched_opcodes();
        // Checked against the match by hand when written: 94 opcodes in 24 arms.
        assert_eq!(matched.len(), 94);
        for op in (0..=u16::MAX).filter_map(|raw| Op::from_u32(u32::from(raw))) {
            let named = matched.contains(&format!("{op:?}"));
            assert_eq!(has_rules(op), named, "{op:?}");
        }
    }
}
