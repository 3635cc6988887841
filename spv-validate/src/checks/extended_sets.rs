//! Extended instruction set imports (SPIR-V §3.3.2 OpExtInstImport, §2.4): V-CAP-2 for the
//! non-semantic sets — an import whose name starts with `NonSemantic.` needs SPIR-V 1.6 or
//! the SPV_KHR_non_semantic_info extension.

use spv_reader::spirv::Op;

use crate::ctx::Ctx;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    if ctx.at_least(6) || ctx.has_ext("SPV_KHR_non_semantic_info") {
        return;
    }
    let mut problems = Vec::new();
    for inst in ctx.ix.with_op(Op::ExtInstImport).copied() {
        if ctx.reader_op(inst) != Some(Op::ExtInstImport) {
            continue;
        }
        let Some(r) = inst.result_id() else { continue };
        if ctx
            .m
            .ext_inst_set(r)
            .is_some_and(|name| name.starts_with("NonSemantic."))
        {
            problems.push((inst.index(), r));
        }
    }
    for (at, id) in problems {
        ctx.err(
            "V-CAP-2",
            at,
            &[id],
            "non-semantic extended instruction sets cannot be declared without \
             SPV_KHR_non_semantic_info before SPIR-V 1.6",
        );
    }
}
