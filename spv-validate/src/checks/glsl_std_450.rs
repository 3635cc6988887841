//! Types of the GLSL.std.450 extended instructions (V-INST-8, the extended-instruction digest
//! §7): the component-wise float functions (rounding, trigonometric, exponential, min/max,
//! clamp, mix, step, fma, ...) take and return one float scalar or vector type; the integer
//! ones (SAbs, SSign, U/S Min, Max, Clamp) take integer scalars or vectors of the Result
//! Type's component count and width (signedness is the instruction's, not the type's).
//!
//! The geometric, packing, matrix and pointer-taking instructions are left unchecked here.

use spv_reader::spirv::Op;
use spv_reader::{Id, InstIndex};

use crate::ctx::Ctx;

/// What a GLSL.std.450 instruction number computes on.
enum Kind {
    /// Float scalars or vectors of the Result Type, operands identical to it.
    Float,
    /// Integer scalars or vectors with the Result Type's component count and width.
    Int,
}

/// The kind of GLSL.std.450 instruction `number` (digest §7), `None` when unchecked.
fn kind(number: u32) -> Option<(&'static str, Kind)> {
    let name = match number {
        1 => "Round",
        2 => "RoundEven",
        3 => "Trunc",
        4 => "FAbs",
        6 => "FSign",
        8 => "Floor",
        9 => "Ceil",
        10 => "Fract",
        11 => "Radians",
        12 => "Degrees",
        13 => "Sin",
        14 => "Cos",
        15 => "Tan",
        16 => "Asin",
        17 => "Acos",
        18 => "Atan",
        19 => "Sinh",
        20 => "Cosh",
        21 => "Tanh",
        22 => "Asinh",
        23 => "Acosh",
        24 => "Atanh",
        25 => "Atan2",
        26 => "Pow",
        27 => "Exp",
        28 => "Log",
        29 => "Exp2",
        30 => "Log2",
        31 => "Sqrt",
        32 => "InverseSqrt",
        37 => "FMin",
        40 => "FMax",
        43 => "FClamp",
        46 => "FMix",
        48 => "Step",
        49 => "SmoothStep",
        50 => "Fma",
        79 => "NMin",
        80 => "NMax",
        81 => "NClamp",
        5 => return Some(("SAbs", Kind::Int)),
        7 => return Some(("SSign", Kind::Int)),
        38 => return Some(("UMin", Kind::Int)),
        39 => return Some(("SMin", Kind::Int)),
        41 => return Some(("UMax", Kind::Int)),
        42 => return Some(("SMax", Kind::Int)),
        44 => return Some(("UClamp", Kind::Int)),
        45 => return Some(("SClamp", Kind::Int)),
        _ => return None,
    };
    Some((name, Kind::Float))
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(InstIndex, Id, String)> = Vec::new();
    for inst in ctx.ix.with_op(Op::ExtInst).copied() {
        if ctx.reader_op(inst) != Some(Op::ExtInst) {
            continue;
        }
        let [_, ty, _, set, number, operands @ ..] = inst.words() else {
            continue;
        };
        if ctx.m.ext_inst_set(Id(*set)) != Some("GLSL.std.450") {
            continue;
        }
        let Some((name, kind)) = kind(*number) else {
            continue;
        };
        let ty = Id(*ty);
        // Read in place: no list per instruction.
        let mut operands = operands.iter().map(|&w| Id(w));
        let why = match kind {
            Kind::Float if !ctx.is_float(ty) => {
                Some("expected Result Type to be a float scalar or vector type".to_owned())
            }
            Kind::Float => operands
                .find(|&o| ctx.type_of(o) != Some(ty))
                .map(|o| format!("expected the type of operand {o} to be the Result Type")),
            Kind::Int => {
                let shape = |t: Id| {
                    ctx.scalar_and_count(t)
                        .filter(|&(s, _)| ctx.is_int_scalar(s))
                        .map(|(_, n)| (n, ctx.width(t)))
                };
                match shape(ty) {
                    None => {
                        Some("expected Result Type to be an int scalar or vector type".to_owned())
                    }
                    Some(want) => operands
                        .find(|&o| ctx.type_of(o).and_then(shape) != Some(want))
                        .map(|o| {
                            format!(
                                "expected operand {o} to be an int scalar or vector with the \
                                 Result Type's component count and bit width"
                            )
                        }),
                }
            }
        };
        if let Some(why) = why
            && let Some(r) = inst.result_id()
        {
            problems.push((inst.index(), r, format!("GLSL.std.450 {name}: {why}")));
        }
    }
    for (at, id, message) in problems {
        ctx.err("V-INST-8", at, &[id], message);
    }
}
