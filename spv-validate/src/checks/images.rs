//! Image, sampler and extended-instruction operand kinds (V-INST-8, V-INST-9, V-DATA-1,
//! SPIR-V §3.3.10, §3.3.11): sampling instructions take a sampled image, fetch/read/write
//! and queries take an image, OpSampledImage combines an image with a sampler, and OpExtInst
//! names an imported set.

use spv_reader::spirv::Op;
use spv_reader::{Id, Type};

use crate::ctx::{Ctx, Inst};

/// What word 3 (word 1 for OpImageWrite) of an image instruction must be.
enum Needs {
    SampledImage,
    Image,
}

fn needs(op: Op) -> Option<(usize, Needs)> {
    Some(match op {
        Op::ImageSampleImplicitLod
        | Op::ImageSampleExplicitLod
        | Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleDrefExplicitLod
        | Op::ImageSampleProjImplicitLod
        | Op::ImageSampleProjExplicitLod
        | Op::ImageSampleProjDrefImplicitLod
        | Op::ImageSampleProjDrefExplicitLod
        | Op::ImageGather
        | Op::ImageDrefGather
        | Op::ImageSparseSampleImplicitLod
        | Op::ImageSparseSampleExplicitLod
        | Op::ImageSparseSampleDrefImplicitLod
        | Op::ImageSparseSampleDrefExplicitLod
        | Op::ImageSparseGather
        | Op::ImageSparseDrefGather
        | Op::ImageQueryLod
        | Op::Image => (3, Needs::SampledImage),
        Op::ImageFetch
        | Op::ImageRead
        | Op::ImageSparseFetch
        | Op::ImageSparseRead
        | Op::ImageQuerySizeLod
        | Op::ImageQuerySize
        | Op::ImageQueryLevels
        | Op::ImageQuerySamples
        | Op::ImageQueryFormat
        | Op::ImageQueryOrder => (3, Needs::Image),
        Op::ImageWrite => (1, Needs::Image),
        _ => return None,
    })
}

/// Checks one instruction; returns whether `op` was an image-family instruction.
// Inlined so that the many instructions of other families cost only the opcode tests.
#[inline]
pub(crate) fn check(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op) -> bool {
    if op != Op::ExtInst && op != Op::SampledImage && needs(op).is_none() {
        return false;
    }
    check_image_family(ctx, inst, op)
}

/// [`check`] for an image-family instruction (OpExtInst and OpSampledImage included).
fn check_image_family(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op) -> bool {
    let i = inst.index();
    let words = inst.words();
    if op == Op::ExtInst {
        let set = Id(words.get(3).copied().unwrap_or(0));
        if ctx.def_op(set) != Some(Op::ExtInstImport) {
            ctx.err(
                "V-INST-8",
                i,
                &[set],
                format!("OpExtInst set {set} does not reference an OpExtInstImport result id"),
            );
        }
        return true;
    }
    if op == Op::SampledImage {
        let ty = inst.result_type().unwrap_or(Id(0));
        let image = Id(words.get(3).copied().unwrap_or(0));
        let sampler = Id(words.get(4).copied().unwrap_or(0));
        let image_ty = ctx.type_of(image);
        match ctx.ty(ty) {
            Some(Type::SampledImage { image: inner }) => {
                if image_ty != Some(*inner) {
                    ctx.err(
                        "V-INST-9",
                        i,
                        &[image],
                        "Expected Image to have the same type as the Result Type's image type",
                    );
                }
            }
            _ => ctx.err(
                "V-INST-9",
                i,
                &[ty],
                "Expected Result Type to be OpTypeSampledImage",
            ),
        }
        if !image_ty.is_some_and(|t| matches!(ctx.ty(t), Some(Type::Image { .. }))) {
            ctx.err(
                "V-INST-9",
                i,
                &[image],
                "Expected Image to be of type OpTypeImage",
            );
        }
        if !ctx
            .type_of(sampler)
            .is_some_and(|t| matches!(ctx.ty(t), Some(Type::Sampler)))
        {
            ctx.err(
                "V-INST-9",
                i,
                &[sampler],
                "Expected Sampler to be of type OpTypeSampler",
            );
        }
        return true;
    }
    let Some((word, need)) = needs(op) else {
        return false;
    };
    let operand = Id(words.get(word).copied().unwrap_or(0));
    let ty = ctx.type_of(operand).and_then(|t| ctx.ty(t));
    match need {
        Needs::SampledImage if !matches!(ty, Some(Type::SampledImage { .. })) => {
            ctx.err(
                "V-INST-9",
                i,
                &[operand],
                "Expected Sampled Image to be of type OpTypeSampledImage",
            );
        }
        Needs::Image if !matches!(ty, Some(Type::Image { .. })) => {
            ctx.err(
                "V-INST-9",
                i,
                &[operand],
                "Expected Image to be of type OpTypeImage",
            );
        }
        _ => {}
    }
    if op == Op::Image {
        let result = inst.result_type().unwrap_or(Id(0));
        if !matches!(ctx.ty(result), Some(Type::Image { .. })) {
            ctx.err(
                "V-INST-9",
                i,
                &[result],
                "Expected Result Type to be OpTypeImage",
            );
        }
    }
    true
}
