//! Memory: which IL storage each SPIR-V variable becomes, and how pointers, loads and stores
//! are lowered.
//!
//! * StorageBuffer variables (and Uniform variables of `BufferBlock` structs, the pre-1.3 spelling)
//!   become raw UAVs (`dcl_raw_uav_id(n)`), addressed in bytes (amd-il.md §0.8); the byte offset
//!   of every access comes from the module's Offset and ArrayStride decorations.
//! * Function variables of scalar or vector type become one temporary register each.
//! * Built-in inputs (GlobalInvocationId, ...) are IL system registers (amd-il.md §9 "Built-ins").
//!
//! A pointer is lowered to a [`Place`]: the storage plus, for buffers, a byte offset made of a
//! constant part and an optional dynamic part held in a register.

use il_model::{Control, Inst, Opcode, Reg, RegType, Src};
use spv_reader::{Function, Id, Inst as SpvInst, Module, Type, spirv};

use super::Lowerer;
use super::types::{self, Shape};
use super::values::{Value, dst_first};
use crate::error::{Error, Unsupported};
use crate::reflect::{ResourceBinding, ResourceKind};

/// What a pointer id designates.
#[derive(Clone, Debug)]
pub enum Place {
    /// A register-backed variable, or elements `first..first+shape.count` of one.
    Register {
        /// The temporary holding the variable.
        reg: u32,
        /// The pointee's shape.
        shape: Shape,
        /// The first element of the variable this pointer designates.
        first: u8,
    },
    /// A read-only built-in input, already a value.
    Builtin(Value),
    /// Bytes of a raw UAV.
    Buffer {
        /// The IL UAV id.
        uav: u32,
        /// Byte offset from the start of the buffer.
        offset: ByteOffset,
        /// The pointee type.
        pointee: Id,
    },
}

/// A byte offset: a constant plus, optionally, a dynamic part in a register component.
#[derive(Clone, Debug)]
pub struct ByteOffset {
    /// The constant part.
    pub constant: u32,
    /// The dynamic part (a one-element value), if any.
    pub dynamic: Option<Value>,
}

/// The resource variables a program uses and the IL ids they get.
#[derive(Default)]
pub struct Resources {
    /// Storage-buffer variables in (set, binding) order; the position is the UAV id.
    uavs: Vec<(u32, u32, Id)>,
}

impl Resources {
    /// Finds the resource variables that `functions` refer to and numbers them by
    /// (set, binding), so the same module always gets the same ids (DESIGN.md "Built-ins").
    pub fn collect(module: &Module, functions: &[&Function]) -> Result<Resources, Error> {
        let mut used = vec![false; module.header().bound as usize];
        for function in functions {
            let Some(range) = function
                .def
                .0
                .checked_add(1)
                .map(|start| start..function.end.0)
            else {
                continue;
            };
            for inst in module.instructions_in(range) {
                for word in inst.operands() {
                    if let Some(flag) = used.get_mut(*word as usize) {
                        *flag = true;
                    }
                }
            }
        }
        let mut uavs = Vec::new();
        for variable in module.global_variables() {
            if !used.get(variable.id.0 as usize).copied().unwrap_or(false) {
                continue;
            }
            if !is_storage_buffer(module, variable.ty) {
                continue;
            }
            let set =
                types::decoration_literal(module, variable.id, spirv::Decoration::DescriptorSet);
            let binding =
                types::decoration_literal(module, variable.id, spirv::Decoration::Binding);
            uavs.push((set.unwrap_or(0), binding.unwrap_or(0), variable.id));
        }
        uavs.sort();
        Ok(Resources { uavs })
    }

    /// The UAV id of storage-buffer variable `id`.
    pub fn uav_of(&self, id: Id) -> Option<u32> {
        let position = self.uavs.iter().position(|(_, _, var)| *var == id)?;
        u32::try_from(position).ok()
    }

    /// `dcl_raw_uav_id(n)` for every UAV, in id order.
    pub fn declarations(&self) -> impl Iterator<Item = Inst> + '_ {
        (0u16..)
            .zip(&self.uavs)
            .map(|(n, _)| Inst::new(Opcode::DclRawUav).ctrl(Control::id(n)))
    }

    /// The reflection entries.
    pub fn bindings(&self, module: &Module) -> Vec<ResourceBinding> {
        (0u32..)
            .zip(&self.uavs)
            .map(|(il_id, (set, binding, var))| ResourceBinding {
                set: *set,
                binding: *binding,
                kind: ResourceKind::RawUav,
                il_id,
                name: module
                    .name(*var)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string),
            })
            .collect()
    }
}

/// Whether pointer type `ty` points at a storage buffer block (SPIR-V §2.16.2: StorageBuffer
/// class, or Uniform class with a `BufferBlock` struct before SPIR-V 1.3).
fn is_storage_buffer(module: &Module, ty: Id) -> bool {
    match types::pointer_parts(module, ty) {
        Some((spirv::StorageClass::StorageBuffer, _)) => true,
        Some((spirv::StorageClass::Uniform, pointee)) => module
            .decoration(pointee, spirv::Decoration::BufferBlock)
            .is_some(),
        _ => false,
    }
}

/// The IL register holding a compute built-in, and how many elements it has.
fn builtin_register(builtin: spirv::BuiltIn) -> Option<(RegType, u8)> {
    use spirv::BuiltIn as B;
    Some(match builtin {
        B::GlobalInvocationId => (RegType::AbsoluteThreadId, 3),
        B::LocalInvocationId => (RegType::ThreadIdInGroup, 3),
        B::WorkgroupId => (RegType::ThreadGroupId, 3),
        B::LocalInvocationIndex => (RegType::ThreadIdInGroupFlat, 1),
        _ => return None,
    })
}

impl<'m> Lowerer<'m> {
    /// The place a pointer id designates: a lowered access chain or local variable, or a global
    /// variable seen for the first time.
    fn place(&mut self, id: Id, at: SpvInst<'_>) -> Result<Place, Error> {
        if let Some(Some(place)) = self.places.get(id.0 as usize) {
            return Ok(place.clone());
        }
        let place = self.global_place(id, at)?;
        if let Some(slot) = self.places.get_mut(id.0 as usize) {
            *slot = Some(place.clone());
        }
        Ok(place)
    }

    fn global_place(&mut self, id: Id, at: SpvInst<'_>) -> Result<Place, Error> {
        let module = self.module;
        let unsupported = |what: String| Error::from(Unsupported::at(module, at.index(), what));
        let ty = module
            .result_type(id)
            .ok_or_else(|| unsupported(format!("pointer {id}")))?;
        let (class, pointee) =
            types::pointer_parts(module, ty).ok_or_else(|| unsupported(format!("pointer {id}")))?;
        if let Some(uav) = self.resources.uav_of(id) {
            return Ok(Place::Buffer {
                uav,
                offset: ByteOffset {
                    constant: 0,
                    dynamic: None,
                },
                pointee,
            });
        }
        if class == spirv::StorageClass::Input {
            let builtin = module
                .decoration(id, spirv::Decoration::BuiltIn)
                .and_then(|d| d.operands.first().copied())
                .and_then(spirv::BuiltIn::from_u32);
            if let Some((reg_type, count)) = builtin.and_then(builtin_register) {
                return Ok(Place::Builtin(Value::in_reg(Reg::new(reg_type, 0), count)));
            }
            let name = builtin.map_or_else(
                || "an input variable".to_string(),
                |b| format!("the {b:?} built-in"),
            );
            return Err(unsupported(name));
        }
        Err(unsupported(format!(
            "variables in the {class:?} storage class"
        )))
    }

    /// `OpVariable` inside a function: a register, initialised when the variable has an
    /// initializer.
    pub(super) fn lower_local_variable(&mut self, inst: SpvInst<'m>) -> Result<(), Error> {
        let module = self.module;
        let (Some(result), Some(ty)) = (inst.result_id(), inst.result_type()) else {
            return Err(
                Unsupported::at(module, inst.index(), "a variable without a result").into(),
            );
        };
        let (_, pointee) = types::pointer_parts(module, ty).ok_or_else(|| {
            Unsupported::at(module, inst.index(), "a variable of non-pointer type")
        })?;
        let shape = types::shape_of(module, pointee).map_err(|u| located(module, inst, u))?;
        let reg = self.regs.temp();
        if let Some(initializer) = inst.operands().get(1) {
            let value = self.value(Id(*initializer), inst)?;
            self.emit(
                Inst::new(Opcode::Mov)
                    .dst(dst_first(reg, shape.count))
                    .src(value.src()),
            );
        }
        self.places[result.0 as usize] = Some(Place::Register {
            reg,
            shape,
            first: 0,
        });
        Ok(())
    }

    /// `OpAccessChain`: walks the indices through the pointee type, accumulating a byte offset
    /// for buffers (SPIR-V §2.18.1 explicit layout) or an element for registers.
    pub(super) fn lower_access_chain(&mut self, inst: SpvInst<'m>) -> Result<(), Error> {
        let module = self.module;
        let operands = inst.operands();
        let (Some(result), Some(base)) = (inst.result_id(), operands.first()) else {
            return Err(
                Unsupported::at(module, inst.index(), "an access chain without a base").into(),
            );
        };
        let indices = &operands[1..];
        let place = match self.place(Id(*base), inst)? {
            Place::Buffer {
                uav,
                offset,
                pointee,
            } => {
                let (offset, pointee) = self.buffer_chain(inst, offset, pointee, indices)?;
                Place::Buffer {
                    uav,
                    offset,
                    pointee,
                }
            }
            Place::Builtin(value) => match indices {
                [index] => {
                    let element = self.constant_index(inst, Id(*index))?;
                    Place::Builtin(value.extract(element as usize))
                }
                _ => {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "this access into a built-in",
                    )
                    .into());
                }
            },
            Place::Register { reg, shape, first } => match indices {
                [index] if shape.count > 1 => {
                    let element = self.constant_index(inst, Id(*index))?;
                    let first = first.saturating_add(u8::try_from(element).unwrap_or(u8::MAX));
                    Place::Register {
                        reg,
                        shape: Shape { count: 1, ..shape },
                        first,
                    }
                }
                _ => {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "dynamic or nested access into a function variable",
                    )
                    .into());
                }
            },
        };
        self.places[result.0 as usize] = Some(place);
        Ok(())
    }

    /// A constant index operand (structure member numbers and other indices that must be known).
    fn constant_index(&self, inst: SpvInst<'_>, id: Id) -> Result<u32, Error> {
        types::constant_u32(self.module, id).ok_or_else(|| {
            Unsupported::at(
                self.module,
                inst.index(),
                format!("a non-constant index {id} here"),
            )
            .into()
        })
    }

    /// Applies `indices` to a buffer pointer, returning the new offset and pointee type.
    fn buffer_chain(
        &mut self,
        inst: SpvInst<'m>,
        mut offset: ByteOffset,
        mut pointee: Id,
        indices: &[u32],
    ) -> Result<(ByteOffset, Id), Error> {
        let module = self.module;
        for index in indices {
            let index = Id(*index);
            match module.ty(pointee) {
                Some(Type::Struct { members }) => {
                    let member = self.constant_index(inst, index)?;
                    let Some(member_type) = members.get(member as usize) else {
                        return Err(Unsupported::at(
                            module,
                            inst.index(),
                            "a member index past the struct",
                        )
                        .into());
                    };
                    let member_offset =
                        types::member_offset(module, pointee, member).ok_or_else(|| {
                            Unsupported::at(
                                module,
                                inst.index(),
                                "a struct member without an Offset",
                            )
                        })?;
                    offset.constant = offset.constant.wrapping_add(member_offset);
                    pointee = *member_type;
                }
                Some(Type::Array { element, .. }) | Some(Type::RuntimeArray { element }) => {
                    let stride = types::array_stride(module, pointee).ok_or_else(|| {
                        Unsupported::at(module, inst.index(), "an array without an ArrayStride")
                    })?;
                    let element = *element;
                    self.add_scaled(inst, &mut offset, index, stride)?;
                    pointee = element;
                }
                Some(Type::Vector { component, .. }) => {
                    let component = *component;
                    self.add_scaled(inst, &mut offset, index, 4)?;
                    pointee = component;
                }
                _ => {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "this access chain into a buffer",
                    )
                    .into());
                }
            }
        }
        Ok((offset, pointee))
    }

    /// `offset += index * stride`, folding constants and emitting `imul`/`ishl` and `iadd` for
    /// dynamic indices.
    fn add_scaled(
        &mut self,
        inst: SpvInst<'m>,
        offset: &mut ByteOffset,
        index: Id,
        stride: u32,
    ) -> Result<(), Error> {
        if let Some(constant) = types::constant_u32(self.module, index) {
            offset.constant = offset.constant.wrapping_add(constant.wrapping_mul(stride));
            return Ok(());
        }
        let index = self.value(index, inst)?;
        let scaled = self.regs.temp();
        if stride.is_power_of_two() {
            let shift = self.regs.scalar(stride.trailing_zeros());
            self.emit(
                Inst::new(Opcode::IShl)
                    .dst(dst_first(scaled, 1))
                    .src(index.element(0))
                    .src(shift.element(0)),
            );
        } else {
            let factor = self.regs.scalar(stride);
            self.emit(
                Inst::new(Opcode::IMul)
                    .dst(dst_first(scaled, 1))
                    .src(index.element(0))
                    .src(factor.element(0)),
            );
        }
        let scaled = Value::in_reg(Reg::new(RegType::Temp, scaled), 1);
        offset.dynamic = Some(match offset.dynamic.take() {
            None => scaled,
            Some(previous) => {
                let sum = self.regs.temp();
                self.emit(
                    Inst::new(Opcode::IAdd)
                        .dst(dst_first(sum, 1))
                        .src(previous.element(0))
                        .src(scaled.element(0)),
                );
                Value::in_reg(Reg::new(RegType::Temp, sum), 1)
            }
        });
        Ok(())
    }

    /// The byte address of a buffer access as a scalar source.
    fn address(&mut self, offset: &ByteOffset) -> Src {
        match &offset.dynamic {
            None => self.regs.scalar(offset.constant).element(0),
            Some(dynamic) if offset.constant == 0 => dynamic.element(0),
            Some(dynamic) => {
                let constant = self.regs.scalar(offset.constant);
                let sum = self.regs.temp();
                self.emit(
                    Inst::new(Opcode::IAdd)
                        .dst(dst_first(sum, 1))
                        .src(dynamic.element(0))
                        .src(constant.element(0)),
                );
                Src::temp(sum).swz("x")
            }
        }
    }

    /// `OpLoad`.
    pub(super) fn lower_load(&mut self, inst: SpvInst<'m>) -> Result<(), Error> {
        let module = self.module;
        let (Some(result), Some(ty), Some(pointer)) = (
            inst.result_id(),
            inst.result_type(),
            inst.operands().first(),
        ) else {
            return Err(Unsupported::at(module, inst.index(), "a load without a result").into());
        };
        let shape = types::shape_of(module, ty).map_err(|u| located(module, inst, u))?;
        let value = match self.place(Id(*pointer), inst)? {
            Place::Builtin(value) => value,
            Place::Register { reg, first, .. } => {
                let copy = self.regs.temp();
                let mut source = Value::in_reg(Reg::new(RegType::Temp, reg), shape.count);
                source.comps.rotate_left(usize::from(first.min(3)));
                self.emit(
                    Inst::new(Opcode::Mov)
                        .dst(dst_first(copy, shape.count))
                        .src(source.src()),
                );
                Value::in_reg(Reg::new(RegType::Temp, copy), shape.count)
            }
            Place::Buffer { uav, offset, .. } => {
                if shape.scalar == types::Scalar::Bool {
                    return Err(Unsupported::at(module, inst.index(), "booleans in buffers").into());
                }
                let address = self.address(&offset);
                let loaded = self.regs.temp();
                self.emit(
                    Inst::new(Opcode::UavRawLoad)
                        .ctrl(Control::id(uav as u16))
                        .dst(dst_first(loaded, shape.count))
                        .src(address),
                );
                Value::in_reg(Reg::new(RegType::Temp, loaded), shape.count)
            }
        };
        self.set_value(result, value);
        Ok(())
    }

    /// `OpStore`.
    pub(super) fn lower_store(&mut self, inst: SpvInst<'m>) -> Result<(), Error> {
        let module = self.module;
        let [pointer, object, ..] = inst.operands() else {
            return Err(Unsupported::at(module, inst.index(), "a store without operands").into());
        };
        let value = self.value(Id(*object), inst)?;
        match self.place(Id(*pointer), inst)? {
            Place::Register { reg, first, .. } => {
                let mut dst = dst_first(reg, 0);
                for element in 0..usize::from(value.count) {
                    if let Some(comp) = dst.mask.get_mut(usize::from(first) + element) {
                        *comp = il_model::DstComp::Write;
                    }
                }
                let mut src = value.src();
                src.swizzle.rotate_right(usize::from(first.min(3)));
                self.emit(Inst::new(Opcode::Mov).dst(dst).src(src));
            }
            Place::Buffer { uav, offset, .. } => {
                let address = self.address(&offset);
                self.emit(
                    Inst::new(Opcode::UavRawStore)
                        .ctrl(Control::id(uav as u16))
                        .dst(il_model::Dst::mem().mask(mask_text(value.count)))
                        .src(address)
                        .src(value.src()),
                );
            }
            Place::Builtin(_) => {
                return Err(
                    Unsupported::at(module, inst.index(), "a store to a built-in input").into(),
                );
            }
        }
        Ok(())
    }
}

/// The positional mask text writing the first `count` components.
fn mask_text(count: u8) -> &'static str {
    match count {
        1 => "x___",
        2 => "xy__",
        3 => "xyz_",
        _ => "xyzw",
    }
}

/// Attaches the location of `inst` to an unlocated [`Unsupported`].
pub(super) fn located(module: &Module, inst: SpvInst<'_>, unsupported: Unsupported) -> Error {
    if unsupported.location.is_some() {
        return unsupported.into();
    }
    Unsupported::at(module, inst.index(), unsupported.feature).into()
}
