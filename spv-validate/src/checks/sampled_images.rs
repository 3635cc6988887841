//! Sampled images stay in their block (SPIR-V §2.16.1, V-DATA-2): every instruction using
//! the result of an OpSampledImage is in the block that defines it.
//!
//! [impl] spirv-val 2025.5 holds only OpSampledImage to this; loads of images and samplers
//! may be used in other blocks, so this pass does not restrict them.

use std::collections::HashMap;

use spv_reader::spirv::Op;
use spv_reader::{Id, InstIndex};

use crate::ctx::Ctx;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    // The (function, block) each OpSampledImage result is defined in.
    let mut defined: HashMap<u32, (u32, u32)> = HashMap::new();
    for inst in ctx.ix.with_op(Op::SampledImage) {
        if let Some(r) = inst.result_id()
            && let Some(at) = ctx.def_block(r)
        {
            defined.insert(r.0, at);
        }
    }
    if defined.is_empty() {
        return;
    }
    let mut problems: Vec<(InstIndex, Id)> = Vec::new();
    for f in ctx.m.functions() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for inst in ctx.m.instructions_in(b.label_inst.0..b.terminator.0 + 1) {
                for (_, id) in ctx.id_refs(inst) {
                    let Some(&(func, block)) = defined.get(&id.0) else {
                        continue;
                    };
                    let here = ctx.inst_func(inst.index()).copied();
                    if here != Some(func) || block != bi as u32 {
                        problems.push((inst.index(), id));
                    }
                }
            }
        }
    }
    for (at, id) in problems {
        ctx.err(
            "V-DATA-2",
            at,
            &[id],
            format!(
                "all OpSampledImage instructions must be in the same block in which their \
                 Result <id> are consumed ({id} is used in another block)"
            ),
        );
    }
}
