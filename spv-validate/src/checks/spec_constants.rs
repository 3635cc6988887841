//! Specialization-constant operations and sampler constants (SPIR-V §3.3.7, §2.12): V-CONST-6
//! (the opcodes OpSpecConstantOp may embed: a common list, QuantizeToF16 only with Shader, a
//! Kernel-only list, UConvert from SPIR-V 1.4 or with Kernel or SPV_AMD_gpu_shader_int16; its
//! operands are checked as logical-pointer operands in `logical_pointers`) and V-CONST-7
//! (OpConstantSampler's Result Type is a sampler; the LiteralSampler capability is V-CAP-1).
//!
//! Aliases, enforced elsewhere: V-CONST-3 (OpSpecConstantComposite constituents) with V-CONST-2
//! in `instructions`; V-CONST-5 by V-CONST-1 (scalar types of OpSpecConstant*) and V-DEC-2
//! (SpecId only on scalar specialization constants); V-CONST-8 (default values never make a
//! module invalid) in `types` (an array length's default) and wherever a rule reads
//! constants, which all skip specialization constants. OpConstantSampler's Param may be any
//! literal: spirv-val 2025.5 accepts values other than 0 and 1.

use spv_reader::spirv::Op;
use spv_reader::{Id, Type};

use crate::ctx::Ctx;

/// Whether OpSpecConstantOp may embed `op` in every module (SPIR-V §3.3.7).
fn common(op: Op) -> bool {
    matches!(
        op,
        Op::SConvert
            | Op::UConvert
            | Op::FConvert
            | Op::SNegate
            | Op::Not
            | Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::UDiv
            | Op::SDiv
            | Op::UMod
            | Op::SRem
            | Op::SMod
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic
            | Op::ShiftLeftLogical
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::BitwiseAnd
            | Op::VectorShuffle
            | Op::CompositeExtract
            | Op::CompositeInsert
            | Op::LogicalOr
            | Op::LogicalAnd
            | Op::LogicalNot
            | Op::LogicalEqual
            | Op::LogicalNotEqual
            | Op::Select
            | Op::IEqual
            | Op::INotEqual
            | Op::ULessThan
            | Op::SLessThan
            | Op::UGreaterThan
            | Op::SGreaterThan
            | Op::ULessThanEqual
            | Op::SLessThanEqual
            | Op::UGreaterThanEqual
            | Op::SGreaterThanEqual
            | Op::QuantizeToF16
    )
}

/// The opcodes OpSpecConstantOp may embed only with the Kernel capability.
fn kernel_only(op: Op) -> bool {
    matches!(
        op,
        Op::ConvertFToS
            | Op::ConvertSToF
            | Op::ConvertFToU
            | Op::ConvertUToF
            | Op::ConvertPtrToU
            | Op::ConvertUToPtr
            | Op::GenericCastToPtr
            | Op::PtrCastToGeneric
            | Op::Bitcast
            | Op::FNegate
            | Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FRem
            | Op::FMod
            | Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
    )
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(spv_reader::InstIndex, Id, String)> = Vec::new();
    let candidates = ctx.ix.with_ops(&[Op::SpecConstantOp, Op::ConstantSampler]);
    for inst in candidates.into_iter().copied() {
        match ctx.reader_op(inst) {
            Some(Op::SpecConstantOp) => {
                let (Some(r), Some(&raw)) = (inst.result_id(), inst.words().get(3)) else {
                    continue;
                };
                let embedded = u16::try_from(raw)
                    .ok()
                    .and_then(|o| Op::from_u32(u32::from(o)));
                let why = match embedded {
                    None => Some(format!("{raw} is not an opcode OpSpecConstantOp may embed")),
                    Some(op) if !common(op) && !kernel_only(op) => Some(format!(
                        "Op{op:?} is not an opcode OpSpecConstantOp may embed"
                    )),
                    Some(op) if kernel_only(op) && !ctx.kernel => Some(format!(
                        "specialization constant operation Op{op:?} requires Kernel capability"
                    )),
                    Some(Op::QuantizeToF16) if !ctx.shader => Some(
                        "specialization constant operation OpQuantizeToF16 requires Shader \
                         capability"
                            .to_owned(),
                    ),
                    Some(Op::UConvert)
                        if !ctx.at_least(4)
                            && !ctx.kernel
                            && !ctx.has_ext("SPV_AMD_gpu_shader_int16") =>
                    {
                        Some(
                            "prior to SPIR-V 1.4, specialization constant operation UConvert \
                             requires Kernel capability or extension SPV_AMD_gpu_shader_int16"
                                .to_owned(),
                        )
                    }
                    _ => None,
                };
                if let Some(why) = why {
                    problems.push((inst.index(), r, why));
                }
            }
            Some(Op::ConstantSampler) => {
                let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type()) else {
                    continue;
                };
                if !matches!(ctx.ty(ty), Some(Type::Sampler)) {
                    problems.push((
                        inst.index(),
                        r,
                        format!("OpConstantSampler Result Type {ty} is not a sampler type"),
                    ));
                }
            }
            _ => {}
        }
    }
    for (at, id, message) in problems {
        let rule = match ctx.m.inst(at).and_then(|i| ctx.reader_op(i)) {
            Some(Op::ConstantSampler) => "V-CONST-7",
            _ => "V-CONST-6",
        };
        ctx.err(rule, at, &[id], message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_opcode_is_both_common_and_kernel_only() {
        // A kernel-only opcode listed as common too would never need Kernel (SPIR-V §3.3.7
        // lists them apart); UConvert is common from SPIR-V 1.4.
        for op in (0..u32::from(u16::MAX)).filter_map(Op::from_u32) {
            assert!(!(common(op) && kernel_only(op)), "{op:?}");
        }
        assert!(common(Op::UConvert) && kernel_only(Op::FAdd));
    }
}
