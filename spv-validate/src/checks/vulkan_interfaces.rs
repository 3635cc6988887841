//! Vulkan interpolation decorations on stage interfaces ([client] rule V-VK-INTERFACE-1,
//! only when the target environment is Vulkan; Vulkan spec "Standalone SPIR-V",
//! VUID-StandaloneSpirv-Flat-04744 and -06202): a Fragment entry point's Input variable of
//! integer or 64-bit float scalar or vector type is decorated Flat, and a Vertex entry point's
//! Input variables carry none of Flat, NoPerspective, Sample and Centroid (vertex inputs are
//! not interpolated).
//!
//! [impl] As spirv-val 2025.5, only the variable's own type and decorations count: arrays and
//! struct members are not looked into.

use spv_reader::spirv::{Decoration as D, ExecutionModel as X, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    if !ctx.env.is_vulkan() {
        return;
    }
    let mut problems: Vec<(InstIndex, Id, String)> = Vec::new();
    for ep in ctx.m.entry_points() {
        let model = ep.model();
        if !matches!(model, Some(X::Fragment | X::Vertex)) {
            continue;
        }
        for &v in &ep.interface {
            let Some(def) = ctx.m.def(v) else { continue };
            if ctx.reader_op(def) != Some(Op::Variable)
                || def.words().get(3) != Some(&(S::Input as u32))
            {
                continue;
            }
            let has = |d: D| ctx.m.decoration(v, d).is_some();
            if model == Some(X::Vertex) {
                if let Some(d) = [D::Flat, D::NoPerspective, D::Sample, D::Centroid]
                    .into_iter()
                    .find(|&d| has(d))
                {
                    problems.push((
                        def.index(),
                        v,
                        format!(
                            "[VUID-StandaloneSpirv-Flat-06202] a {d:?} decorated variable must not \
                             be an Input of a Vertex entry point"
                        ),
                    ));
                }
                continue;
            }
            let Some(pointee) = ctx.type_of(v).and_then(|t| ctx.pointer(t)).map(|(_, p)| p) else {
                continue;
            };
            let needs_flat = ctx
                .scalar_and_count(pointee)
                .and_then(|(scalar, _)| ctx.ty(scalar))
                .is_some_and(|t| matches!(t, Type::Int { .. } | Type::Float { width: 64 }));
            if needs_flat && !has(D::Flat) {
                problems.push((
                    def.index(),
                    v,
                    format!(
                        "[VUID-StandaloneSpirv-Flat-04744] the Fragment Input {v} of integer or \
                         64-bit float type must be decorated Flat"
                    ),
                ));
            }
        }
    }
    for (at, id, message) in problems {
        ctx.err("V-VK-INTERFACE-1", at, &[id], message);
    }
}
