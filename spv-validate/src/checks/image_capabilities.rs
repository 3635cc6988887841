//! Capabilities image instructions need (V-CAP-1, SPIR-V §3.2.33 and §3.3.10): every Image
//! Operands bit its enabling capability (MinLod, ImageGatherExtended for Offset and
//! ConstOffsets, ...; read from the grammar), and under Vulkan ([client], Vulkan spec
//! "Storage image formats") reading or writing a storage image of Unknown format the
//! StorageImageReadWithoutFormat or StorageImageWriteWithoutFormat capability.

use spv_reader::rspirv::dr::Operand;
use spv_reader::rspirv::grammar::OperandKind;
use spv_reader::spirv::{Capability as C, Dim, ImageFormat, ImageOperands, Op};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;
use crate::operands::{Kind, OperandKinds, ops_with_image_operands};

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(InstIndex, Id, String)> = Vec::new();
    // The instructions with Image Operands, and those of the Vulkan format rule.
    let mut candidates = ctx.ix.with_ops(ops_with_image_operands());
    if ctx.env.is_vulkan() {
        candidates.extend(
            ctx.ix
                .with_ops(&[Op::ImageRead, Op::ImageSparseRead, Op::ImageWrite]),
        );
        candidates.sort_unstable_by_key(|inst| inst.index());
        candidates.dedup_by_key(|inst| inst.index());
    }
    for inst in candidates.into_iter().copied() {
        let Some(op) = ctx.reader_op(inst) else {
            continue;
        };
        let words = inst.words();
        let operands = if ctx.may_have_operand(inst, OperandKinds::IMAGE_OPERANDS) {
            ctx.operands(inst.index())
        } else {
            Vec::new()
        };
        for operand in operands {
            if operand.kind != Kind::Enum(OperandKind::ImageOperands) {
                continue;
            }
            let Some(&mask) = words.get(usize::from(operand.word)) else {
                continue;
            };
            for bit in (0..32).map(|k| 1u32 << k).filter(|b| mask & b != 0) {
                let Some(flag) = ImageOperands::from_bits(bit) else {
                    continue;
                };
                let caps = Operand::ImageOperands(flag).required_capabilities();
                if !ctx.caps.any(&caps) {
                    problems.push((
                        inst.index(),
                        Id(0),
                        format!(
                            "image operand {} of Op{op:?} requires one of these \
                             capabilities: {caps:?}",
                            flag.iter_names()
                                .map(|(name, _)| name)
                                .collect::<Vec<_>>()
                                .join("|")
                        ),
                    ));
                }
            }
        }
        if !ctx.env.is_vulkan() {
            continue;
        }
        let (image_word, capability, verb) = match op {
            Op::ImageRead | Op::ImageSparseRead => (3, C::StorageImageReadWithoutFormat, "read"),
            Op::ImageWrite => (1, C::StorageImageWriteWithoutFormat, "write"),
            _ => continue,
        };
        let Some(&image) = words.get(image_word) else {
            continue;
        };
        let unknown_storage = ctx.type_of(Id(image)).is_some_and(|t| {
            matches!(ctx.ty(t), Some(Type::Image { format, dim, .. })
                if *format == ImageFormat::Unknown as u32 && *dim != Dim::DimSubpassData as u32)
        });
        if unknown_storage && !ctx.has_cap(capability) {
            problems.push((
                inst.index(),
                Id(image),
                format!("capability {capability:?} is required to {verb} a storage image of Unknown format"),
            ));
        }
    }
    for (at, id, message) in problems {
        let ids: Vec<Id> = [id].into_iter().filter(|i| i.0 != 0).collect();
        ctx.err("V-CAP-1", at, &ids, message);
    }
}
