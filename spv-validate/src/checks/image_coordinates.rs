//! Image coordinates (V-INST-9, SPIR-V §3.3.10): a sampling, gather or level-of-detail query
//! takes float coordinates, a fetch, read or write integer ones, and the Coordinate has at
//! least the components the image needs — 1 for 1D and Buffer, 2 for 2D, Rect and
//! SubpassData, 3 for 3D and Cube, one more when Arrayed (not for OpImageQueryLod) and one
//! more for projective sampling; reads and writes of a Cube image take 3 (face-layer
//! coordinates).

use spv_reader::spirv::{Dim, Op};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;

/// The opcodes [`coordinate_form`] knows.
const COORDINATE_OPS: [Op; 26] = [
    Op::ImageSampleImplicitLod,
    Op::ImageSampleExplicitLod,
    Op::ImageSampleDrefImplicitLod,
    Op::ImageSampleDrefExplicitLod,
    Op::ImageSparseSampleImplicitLod,
    Op::ImageSparseSampleExplicitLod,
    Op::ImageSparseSampleDrefImplicitLod,
    Op::ImageSparseSampleDrefExplicitLod,
    Op::ImageGather,
    Op::ImageDrefGather,
    Op::ImageSparseGather,
    Op::ImageSparseDrefGather,
    Op::ImageQueryLod,
    Op::ImageSampleProjImplicitLod,
    Op::ImageSampleProjExplicitLod,
    Op::ImageSampleProjDrefImplicitLod,
    Op::ImageSampleProjDrefExplicitLod,
    Op::ImageSparseSampleProjImplicitLod,
    Op::ImageSparseSampleProjExplicitLod,
    Op::ImageSparseSampleProjDrefImplicitLod,
    Op::ImageSparseSampleProjDrefExplicitLod,
    Op::ImageFetch,
    Op::ImageSparseFetch,
    Op::ImageRead,
    Op::ImageSparseRead,
    Op::ImageWrite,
];

/// How an image instruction reads its coordinate: the image and coordinate word positions,
/// whether the coordinate is float (else integer), and whether the sampling is projective.
fn coordinate_form(op: Op) -> Option<(usize, usize, bool, bool)> {
    Some(match op {
        Op::ImageSampleImplicitLod
        | Op::ImageSampleExplicitLod
        | Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleDrefExplicitLod
        | Op::ImageSparseSampleImplicitLod
        | Op::ImageSparseSampleExplicitLod
        | Op::ImageSparseSampleDrefImplicitLod
        | Op::ImageSparseSampleDrefExplicitLod
        | Op::ImageGather
        | Op::ImageDrefGather
        | Op::ImageSparseGather
        | Op::ImageSparseDrefGather
        | Op::ImageQueryLod => (3, 4, true, false),
        Op::ImageSampleProjImplicitLod
        | Op::ImageSampleProjExplicitLod
        | Op::ImageSampleProjDrefImplicitLod
        | Op::ImageSampleProjDrefExplicitLod
        | Op::ImageSparseSampleProjImplicitLod
        | Op::ImageSparseSampleProjExplicitLod
        | Op::ImageSparseSampleProjDrefImplicitLod
        | Op::ImageSparseSampleProjDrefExplicitLod => (3, 4, true, true),
        Op::ImageFetch | Op::ImageSparseFetch | Op::ImageRead | Op::ImageSparseRead => {
            (3, 4, false, false)
        }
        Op::ImageWrite => (1, 2, false, false),
        _ => return None,
    })
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(InstIndex, Id, String)> = Vec::new();
    for inst in ctx.ix.with_ops(&COORDINATE_OPS).into_iter().copied() {
        let Some(op) = ctx.reader_op(inst) else {
            continue;
        };
        let Some((image_word, coordinate_word, float, projective)) = coordinate_form(op) else {
            continue;
        };
        let words = inst.words();
        let (Some(&image), Some(&coordinate)) = (words.get(image_word), words.get(coordinate_word))
        else {
            continue;
        };
        // The image type, through a sampled image for the sampling instructions.
        let image_type = ctx.type_of(Id(image)).and_then(|t| match ctx.ty(t) {
            Some(Type::SampledImage { image }) => ctx.ty(*image),
            other => other,
        });
        let Some(Type::Image { dim, arrayed, .. }) = image_type else {
            continue;
        };
        let Some(coordinate_type) = ctx.type_of(Id(coordinate)) else {
            continue;
        };
        let Some((scalar, count)) = ctx.scalar_and_count(coordinate_type) else {
            problems.push((
                inst.index(),
                Id(coordinate),
                format!("Op{op:?}: expected Coordinate to be a scalar or vector"),
            ));
            continue;
        };
        let kind_ok = if float {
            matches!(ctx.ty(scalar), Some(Type::Float { .. }))
        } else {
            ctx.is_int_scalar(scalar)
        };
        if !kind_ok {
            let kind = if float { "float" } else { "int" };
            problems.push((
                inst.index(),
                Id(coordinate),
                format!("Op{op:?}: expected Coordinate to be {kind} scalar or vector"),
            ));
            continue;
        }
        let plane = match Dim::from_u32(*dim) {
            Some(Dim::Dim1D | Dim::DimBuffer) => 1,
            Some(Dim::Dim2D | Dim::DimRect | Dim::DimSubpassData) => 2,
            Some(Dim::Dim3D | Dim::DimCube) => 3,
            _ => continue,
        };
        let cube_texels = *dim == Dim::DimCube as u32
            && matches!(op, Op::ImageRead | Op::ImageWrite | Op::ImageSparseRead);
        let needed = if cube_texels {
            3
        } else if op == Op::ImageQueryLod {
            // A level-of-detail query ignores the array layer.
            plane
        } else {
            plane + u32::from(*arrayed != 0) + u32::from(projective)
        };
        if count < needed {
            problems.push((
                inst.index(),
                Id(coordinate),
                format!(
                    "Op{op:?}: expected Coordinate to have at least {needed} components, but \
                     given only {count}"
                ),
            ));
        }
    }
    for (at, id, message) in problems {
        ctx.err("V-INST-9", at, &[id], message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spv_reader::rspirv::grammar;

    /// The pass visits the instructions of [`COORDINATE_OPS`]: exactly the opcodes of the
    /// grammar that [`coordinate_form`] knows.
    #[test]
    fn coordinate_ops_are_the_known_forms() {
        let known: Vec<Op> = grammar::INSTRUCTION_TABLE
            .iter()
            .map(|i| i.opcode)
            .filter(|&op| coordinate_form(op).is_some())
            .collect();
        assert_eq!(known.len(), COORDINATE_OPS.len());
        assert!(known.iter().all(|op| COORDINATE_OPS.contains(op)));
    }
}
