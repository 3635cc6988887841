//! Image instructions: storage images are typed UAVs, sampled images are resources.
//!
//! * `OpImageRead` / `OpImageWrite` on a storage image → `uav_load_id(n)` / `uav_store_id(n)`,
//!   addressed in elements (amd-il.md §6.3: typed UAV addresses are element indices).
//! * `OpImageFetch` on a sampled image → `load_resource(n)` with integer coordinates and the
//!   mip level in `.w` (the DX10 `ld` convention the guide's LOAD page follows).
//! * `OpImageSampleExplicitLod` with a `Lod` operand → `sample_l_resource(n)_sampler(n)`
//!   (compute shaders have no implicit derivatives, so only explicit-LOD sampling exists).
//! * `OpSampledImage` and `OpImage` pass the handle through.
//! * `OpImageQuerySize` on a storage image reads the size the runtime puts in the driver
//!   constant buffer.
//!
//! Other image instructions are refused as not supported yet.

use il_model::{Control, Inst, Opcode, Reg, RegType};
use spv_reader::{Id, Inst as SpvInst, spirv};

use super::Lowerer;
use super::memory::{ImageRef, Place, located};
use super::types;
use super::values::{Value, dst_at, dst_first};
use crate::error::{Error, Unsupported};

/// Image Operands bit for an explicit level of detail (SPIR-V §3.2.14).
const IMAGE_OPERAND_LOD: u32 = 0x2;

/// Samplers IL has: ids 0 to 15 (amd-il.md §8.5).
const MAX_SAMPLERS: u16 = il_model::limits::SAMPLER_IDS as u16;

impl<'m> Lowerer<'m> {
    /// The image an operand names.
    fn image(&mut self, inst: SpvInst<'m>, operand: usize) -> Result<ImageRef, Error> {
        let module = self.module;
        let id = inst
            .operands()
            .get(operand)
            .map(|w| Id(*w))
            .ok_or_else(|| {
                Unsupported::at(
                    module,
                    inst.index(),
                    "an image instruction without an image",
                )
            })?;
        match self.place(id, inst)? {
            Place::Image(image) => Ok(image),
            _ => Err(Unsupported::at(
                module,
                inst.index(),
                "an image that is not a resource variable",
            )
            .into()),
        }
    }

    /// Lowers an image instruction.
    // Out of line: rarer than the instructions `lower_inst` lowers itself, and inlined
    // into the block loop it would widen the loop's frame and spread its code.
    #[inline(never)]
    pub(super) fn lower_image(&mut self, op: spirv::Op, inst: SpvInst<'m>) -> Result<(), Error> {
        use spirv::Op;
        let module = self.module;
        let unsupported = |what: &str| Error::from(Unsupported::at(module, inst.index(), what));
        // Texels and coordinates are 32-bit in IL's image instructions (amd-il.md §6.7); the
        // texel of a write is operand 2, and operand 2 of the others may be a literal mask.
        let wide_id = |n: usize| {
            inst.operands()
                .get(n)
                .and_then(|word| module.result_type(Id(*word)))
                .is_some_and(|ty| self.is_wide_type(ty))
        };
        if inst.result_type().is_some_and(|ty| self.is_wide_type(ty))
            || wide_id(1)
            || (op == Op::ImageWrite && wide_id(2))
        {
            return Err(unsupported("64-bit texels or coordinates"));
        }
        match op {
            Op::SampledImage | Op::Image => {
                let image = self.image(inst, 0)?;
                if let Some(result) = inst.result_id() {
                    self.set_place(result, Place::Image(image));
                }
                Ok(())
            }
            Op::ImageWrite => {
                let ImageRef::Uav(uav) = self.image(inst, 0)? else {
                    return Err(unsupported("writing an image that is not a storage image"));
                };
                let [_, coordinate, texel, ..] = inst.operands() else {
                    return Err(unsupported("an OpImageWrite without a texel"));
                };
                let coordinate = self.value(Id(*coordinate), inst)?;
                let texel = self.value(Id(*texel), inst)?;
                self.emit(
                    Inst::new(Opcode::UavStore)
                        .ctrl(Control::id(uav as u16))
                        .src(coordinate.src())
                        .src(texel.src()),
                );
                Ok(())
            }
            Op::ImageRead | Op::ImageFetch | Op::ImageSampleExplicitLod => {
                let (Some(result), Some(ty)) = (inst.result_id(), inst.result_type()) else {
                    return Err(unsupported("an image read without a result"));
                };
                let shape = types::shape_of(module, ty).map_err(|u| located(module, inst, u))?;
                let image = self.image(inst, 0)?;
                let Some(coordinate) = inst.operands().get(1) else {
                    return Err(unsupported("an image read without coordinates"));
                };
                let coordinate = self.value(Id(*coordinate), inst)?;
                let lod = self.lod_operand(inst)?;
                let texel = self.regs.temp();
                let il = match (op, image) {
                    (Op::ImageRead, ImageRef::Uav(uav)) => Inst::new(Opcode::UavLoad)
                        .ctrl(Control::id(uav as u16))
                        .dst(dst_first(texel, 4))
                        .src(coordinate.src()),
                    (Op::ImageFetch, ImageRef::Texture(resource)) => {
                        // Integer coordinates with the mip level in .w.
                        let address = self.regs.temp();
                        self.emit_mov(dst_first(address, 3), coordinate.src());
                        let level = lod.unwrap_or_else(|| self.regs.scalar(0));
                        self.emit_mov(dst_at(address, 3), level.element(0));
                        // Resource ids are 0 to 255 (control bits 7:0), which
                        // `Resources::collect` has checked.
                        Inst::new(Opcode::Load)
                            .ctrl(Control(resource as u16 & 0xFF))
                            .dst(dst_first(texel, 4))
                            .src(Value::in_reg(Reg::new(RegType::Temp, address), 4).src())
                    }
                    (Op::ImageSampleExplicitLod, ImageRef::Texture(resource)) => {
                        let Some(level) = lod else {
                            return Err(unsupported("sampling with explicit gradients"));
                        };
                        // sample: resource in control bits 7:0, sampler in 11:8 (amd-il.md §1.12);
                        // texture `n` samples with sampler `n`, and samplers are 0 to 15.
                        let id = u16::try_from(resource)
                            .ok()
                            .filter(|&id| id < MAX_SAMPLERS)
                            .ok_or_else(|| {
                                unsupported(&format!(
                                    "sampling texture {resource} (IL has samplers 0 to {}, and \
                                     texture n samples with sampler n)",
                                    MAX_SAMPLERS - 1
                                ))
                            })?;
                        Inst::new(Opcode::SampleL)
                            .ctrl(Control(id | id << 8))
                            .dst(dst_first(texel, 4))
                            .src(coordinate.src())
                            .src(level.element(0))
                    }
                    _ => return Err(unsupported("this image access")),
                };
                self.emit(il);
                self.define_fresh(
                    result,
                    Value::in_reg(Reg::new(RegType::Temp, texel), shape.count),
                );
                Ok(())
            }
            Op::ImageQuerySize => {
                // A storage image's size comes from the driver constant buffer: element
                // `1 + uav` holds (width, height, depth) for a typed UAV, as the reflection
                // documents; IL's `resinfo` only describes resources, not UAVs.
                let ImageRef::Uav(uav) = self.image(inst, 0)? else {
                    return Err(unsupported("OpImageQuerySize on a sampled image"));
                };
                let (Some(result), Some(ty)) = (inst.result_id(), inst.result_type()) else {
                    return Err(unsupported("an OpImageQuerySize without a result"));
                };
                let shape = types::shape_of(module, ty).map_err(|u| located(module, inst, u))?;
                let driver = self.resources.driver_cb_for_sizes(self.module)?;
                let reg = Reg::new(RegType::ConstBuff, driver)
                    .at(super::resources::DRIVER_CB_FIRST_UAV_SIZE + uav);
                let size = self.regs.temp();
                self.emit_mov(
                    dst_first(size, shape.count),
                    Value::in_reg(reg, shape.count).src(),
                );
                self.define_fresh(
                    result,
                    Value::in_reg(Reg::new(RegType::Temp, size), shape.count),
                );
                Ok(())
            }
            _ => Err(unsupported(&format!("Op{op:?}"))),
        }
    }

    /// The value of a `Lod` image operand, if the instruction has one (SPIR-V §3.2.14: the
    /// operands after the mask appear in the order of their bits; Bias (0x1) precedes Lod).
    fn lod_operand(&mut self, inst: SpvInst<'m>) -> Result<Option<Value>, Error> {
        let operands = inst.operands();
        let (mask_at, first_operand) = match inst.opcode() {
            Some(
                spirv::Op::ImageRead | spirv::Op::ImageFetch | spirv::Op::ImageSampleExplicitLod,
            ) => (2, 3),
            _ => return Ok(None),
        };
        let Some(mask) = operands.get(mask_at).copied() else {
            return Ok(None);
        };
        if mask & IMAGE_OPERAND_LOD == 0 {
            return Ok(None);
        }
        let position = first_operand + usize::from(mask & 0x1 != 0);
        match operands.get(position) {
            Some(lod) => Ok(Some(self.value(Id(*lod), inst)?)),
            None => {
                Err(
                    Unsupported::at(self.module, inst.index(), "a Lod operand that is missing")
                        .into(),
                )
            }
        }
    }
}
