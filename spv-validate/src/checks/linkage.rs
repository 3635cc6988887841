//! Linkage (SPIR-V §2.16.1, §3.2.19 LinkageAttributes): V-FN-1 (a function declaration —
//! no blocks — is an Import, a definition is not) and V-FN-5 (no LinkageAttributes on an
//! entry point's function; a module-scope variable with an Initializer is not an Import).

use spv_reader::spirv::{Decoration as D, LinkageType, Op};
use spv_reader::{Id, InstIndex};

use crate::ctx::Ctx;

/// The linkage type of `id`'s LinkageAttributes decoration: the last operand word, after the
/// name string.
fn linkage_type(ctx: &Ctx<'_>, id: Id) -> Option<u32> {
    ctx.m
        .decoration(id, D::LinkageAttributes)
        .and_then(|d| d.operands.last().copied())
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let import = LinkageType::Import as u32;
    let mut problems: Vec<(&'static str, InstIndex, Id, String)> = Vec::new();
    for f in ctx.m.functions() {
        let linkage = linkage_type(ctx, f.id);
        if f.blocks.is_empty() && linkage != Some(import) {
            problems.push((
                "V-FN-1",
                f.def,
                f.id,
                format!(
                    "function declaration {} must have a LinkageAttributes decoration with the \
                     Import linkage type",
                    f.id
                ),
            ));
        } else if !f.blocks.is_empty() && linkage == Some(import) {
            problems.push((
                "V-FN-1",
                f.def,
                f.id,
                format!(
                    "function definition {} may not be decorated with the Import linkage type",
                    f.id
                ),
            ));
        }
    }
    for ep in ctx.m.entry_points() {
        if let Some(d) = ctx.m.decoration(ep.function, D::LinkageAttributes) {
            problems.push((
                "V-FN-5",
                d.inst,
                ep.function,
                format!(
                    "the LinkageAttributes decoration cannot be applied to function {} because \
                     it is targeted by an OpEntryPoint instruction",
                    ep.function
                ),
            ));
        }
    }
    for g in ctx.m.global_variables() {
        if g.initializer.is_some()
            && ctx.def_op(g.id) == Some(Op::Variable)
            && linkage_type(ctx, g.id) == Some(import)
        {
            problems.push((
                "V-FN-5",
                g.inst,
                g.id,
                "a module-scope OpVariable with an initializer cannot be marked with the Import \
                 linkage type"
                    .to_owned(),
            ));
        }
    }
    for (rule, at, id, message) in problems {
        ctx.err(rule, at, &[id], message);
    }
}
