//! The per-instruction pass: dispatches every instruction to the rules of its family
//! (memory, values, functions, constants) and checks the function-level rules that need
//! only one instruction (V-FN-2, V-FN-3, V-CONST-1…7).

use spv_reader::spirv::Op;
use spv_reader::{Constant, Id, Type};

use crate::checks::{atomics, images, memory, values};
use crate::ctx::{Ctx, Inst};
use crate::limits::MAX_FUNCTION_ARGS;

/// Runs the pass.
pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut shapes = values::ShapeCache::new();
    for inst in ctx.ix.insts() {
        let Some(op) = ctx.op_of(inst) else { continue };
        match op {
            Op::TypePointer => memory::check_type_pointer(ctx, inst),
            Op::Variable => memory::check_variable(ctx, inst),
            Op::Load => memory::check_load(ctx, inst),
            Op::Store => memory::check_store(ctx, inst),
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => memory::check_access_chain(ctx, inst, op),
            Op::CopyObject => memory::check_copy_object(ctx, inst),
            Op::CopyMemory | Op::CopyMemorySized => memory::check_copy_memory(ctx, inst),
            Op::ArrayLength => memory::check_array_length(ctx, inst),
            Op::Function => check_function(ctx, inst),
            Op::FunctionCall => check_call(ctx, inst),
            Op::Constant
            | Op::ConstantTrue
            | Op::ConstantFalse
            | Op::ConstantComposite
            | Op::ConstantNull
            | Op::SpecConstant
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstantComposite => check_constant(ctx, inst, op),
            Op::MemberName => {
                let target = Id(inst.words().get(1).copied().unwrap_or(0));
                if !matches!(ctx.ty(target), Some(Type::Struct { .. })) {
                    ctx.err(
                        "V-SSA-5",
                        inst.index(),
                        &[target],
                        format!("OpMemberName Type {target} is not a struct type"),
                    );
                }
            }
            op if atomics::is_atomic(op) => atomics::check(ctx, inst, op),
            _ => {
                if !images::check(ctx, inst, op) {
                    values::check(ctx, inst, op, &mut shapes);
                }
            }
        }
    }
}

/// V-FN-2: OpFunction's Result Type is its function type's return type; its parameters
/// match the parameter types.
fn check_function(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let Some(id) = inst.result_id() else { return };
    let ty = inst.result_type().unwrap_or(Id(0));
    let fn_ty = Id(inst.words().get(4).copied().unwrap_or(0));
    let Some(&Type::Function { ret, ref params }) = ctx.ty(fn_ty) else {
        ctx.err(
            "V-FN-2",
            i,
            &[id, fn_ty],
            format!("OpFunction Function Type {fn_ty} is not a function type"),
        );
        return;
    };
    if ret != ty {
        ctx.err(
            "V-FN-2",
            i,
            &[id],
            format!(
                "OpFunction Result Type {ty} does not match the Function Type's return type {ret}"
            ),
        );
    }
    if let Some((_, f)) = ctx.function(id) {
        let f_params = &f.params;
        if f_params.len() != params.len() {
            ctx.err(
                "V-FN-2",
                i,
                &[id],
                format!(
                    "function declares {} parameters but its type has {}",
                    f_params.len(),
                    params.len()
                ),
            );
        }
        for (k, (&p, &pt)) in f_params.iter().zip(params).enumerate() {
            if ctx.type_of(p) != Some(pt) {
                let at = ctx.ix.def(p).map_or(i, |d| d.index());
                ctx.err("V-FN-2", at, &[p], format!("OpFunctionParameter {k}'s Result Type does not match the function type's parameter type"));
            }
        }
    }
}

/// V-FN-3: OpFunctionCall.
fn check_call(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let words = inst.words();
    let ty = inst.result_type().unwrap_or(Id(0));
    let callee = Id(words.get(3).copied().unwrap_or(0));
    let Some((_, f)) = ctx.function(callee) else {
        ctx.err(
            "V-FN-3",
            i,
            &[callee],
            format!("OpFunctionCall Function {callee} is not a function"),
        );
        return;
    };
    let Some(&Type::Function { ret, ref params }) = ctx.ty(f.function_type) else {
        return;
    };
    if ret != ty {
        ctx.err(
            "V-FN-3",
            i,
            &[callee],
            "OpFunctionCall Result Type does not match the callee's return type",
        );
    }
    let args = words.get(4..).unwrap_or(&[]);
    if args.len() > MAX_FUNCTION_ARGS {
        ctx.err(
            "V-LIM-1",
            i,
            &[],
            format!("OpFunctionCall has more than {MAX_FUNCTION_ARGS} arguments"),
        );
    }
    if args.len() != params.len() {
        ctx.err("V-FN-3", i, &[callee], format!("OpFunctionCall Function {callee}'s parameter count does not match the argument count"));
        return;
    }
    for (&a, &p) in args.iter().zip(params) {
        let a = Id(a);
        if ctx.type_of(a) != Some(p) {
            ctx.err("V-FN-3", i, &[a], format!("OpFunctionCall Argument {a}'s type does not match the callee's parameter type {p}"));
        }
    }
}

/// V-CONST-1…5: constant instructions.
fn check_constant(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op) {
    let i = inst.index();
    let ty = inst.result_type().unwrap_or(Id(0));
    let Some(id) = inst.result_id() else { return };
    let t = ctx.ty(ty);
    match op {
        Op::ConstantTrue | Op::ConstantFalse | Op::SpecConstantTrue | Op::SpecConstantFalse => {
            if !matches!(t, Some(Type::Bool)) {
                ctx.err(
                    "V-CONST-1",
                    i,
                    &[id],
                    "OpConstantTrue/False Result Type must be a boolean type",
                );
            }
        }
        Op::Constant | Op::SpecConstant => {
            if !matches!(t, Some(Type::Int { .. } | Type::Float { .. })) {
                ctx.err(
                    "V-CONST-1",
                    i,
                    &[id],
                    "OpConstant Result Type must be a numerical scalar type",
                );
            }
        }
        Op::ConstantNull => {
            let ok = match &t {
                Some(
                    Type::Bool
                    | Type::Int { .. }
                    | Type::Float { .. }
                    | Type::Vector { .. }
                    | Type::Matrix { .. }
                    | Type::Array { .. }
                    | Type::Struct { .. }
                    | Type::Other { .. },
                ) => true,
                Some(Type::Pointer { storage_class, .. }) => *storage_class != 5349,
                _ => false,
            };
            if !ok {
                ctx.err(
                    "V-CONST-4",
                    i,
                    &[id],
                    "OpConstantNull Result Type cannot have a null value",
                );
            }
        }
        _ => {
            let Some(Constant::Composite { parts, .. }) = ctx.m.constant(id) else {
                return;
            };
            let spec = op == Op::SpecConstantComposite;
            // (number of constituents, type of constituent k): computed, never allocated,
            // so that a huge declared count cannot exhaust memory.
            let (len, member_types): (u64, Option<&Vec<Id>>) = match &t {
                Some(Type::Vector { count, .. } | Type::Matrix { count, .. }) => {
                    (u64::from(*count), None)
                }
                Some(Type::Array { length, .. }) => match ctx.const_scalar(*length) {
                    Some(n) => (n, None),
                    None => return,
                },
                Some(Type::Struct { members }) => (members.len() as u64, Some(members)),
                _ => {
                    ctx.err(
                        "V-CONST-2",
                        i,
                        &[id],
                        "Result Type of a composite constant must be a composite type",
                    );
                    return;
                }
            };
            let uniform = match &t {
                Some(Type::Vector { component, .. }) => Some(*component),
                Some(Type::Matrix { column, .. }) => Some(*column),
                Some(Type::Array { element, .. }) => Some(*element),
                _ => None,
            };
            if len != parts.len() as u64 {
                ctx.err(
                    "V-CONST-2",
                    i,
                    &[id],
                    format!(
                        "composite constant has {} constituents, its type needs {len}",
                        parts.len()
                    ),
                );
                return;
            }
            for (k, &p) in parts.iter().enumerate() {
                let e = uniform
                    .or_else(|| member_types.as_ref().and_then(|m| m.get(k).copied()))
                    .unwrap_or(Id(0));
                // [impl] spirv-val 2025.5 also accepts specialization constants inside an
                // OpConstantComposite, so only "is a constant or OpUndef" is checked.
                let is_const = ctx.m.constant(p).is_some();
                if !is_const {
                    ctx.err(
                        if spec { "V-CONST-3" } else { "V-CONST-2" },
                        i,
                        &[p],
                        format!("constituent {p} is not a constant or undef of the right kind"),
                    );
                } else if ctx.type_of(p) != Some(e) {
                    ctx.err(
                        "V-CONST-2",
                        i,
                        &[p],
                        format!(
                            "constituent {p}'s type does not match the Result Type's member type {e}"
                        ),
                    );
                }
            }
        }
    }
}
