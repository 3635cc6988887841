//! Which IL resource each SPIR-V module-scope variable becomes, with deterministic ids.
//!
//! * Storage buffers → raw UAVs `dcl_raw_uav_id(n)`, numbered in (set, binding) order.
//! * Uniform buffers, then the push-constant block, then the driver constants (values IL has no
//!   register for, such as NumWorkgroups) → constant buffers `dcl_cb cbN[size]`, numbered in that
//!   order (uniform buffers in (set, binding) order).
//! * Workgroup variables → one LDS allocation `dcl_lds_id(0) bytes`, each variable at its own
//!   4-byte-aligned offset in declaration order.
//!
//! Only variables that the entry point's functions mention are given resources.

use il_model::{Inst, Opcode, Src, limits};
use spv_reader::{Id, Module, Type, spirv};

use super::types;
use crate::error::{Error, Unsupported};
use crate::reflect::{ResourceBinding, ResourceKind};

/// Byte size limit for Workgroup memory: the 32 KiB of LDS a program may declare (amd-il.md
/// §8.5); larger Workgroup memory is refused rather than silently truncated.
const LDS_BYTES_LIMIT: u32 = limits::MAX_LDS_BYTES;

/// UAV ids a program may declare (amd-il.md §8.5). Storage buffers and storage images share
/// them.
const MAX_UAVS: usize = limits::UAV_IDS as usize;

/// Constant buffers a program may declare: `cb0` to `cb14` (amd-il.md §8.5). Uniform buffers,
/// the push constants and the driver's constants share them.
const MAX_CONSTANT_BUFFERS: usize = limits::MAX_CB_ID as usize + 1;

/// Resources (sampled images) a program may declare (amd-il.md §8.5).
const MAX_RESOURCES: usize = limits::RESOURCE_IDS as usize;

/// The driver constant buffer's first element holds NumWorkgroups (x, y, z); element `1 + n`
/// describes UAV `n`: its byte size in `.x` for a raw UAV (OpArrayLength), for a typed UAV its
/// size in the order OpImageQuerySize returns it (width, then height or layers, then depth or
/// layers). The runtime fills it.
pub const DRIVER_CB_FIRST_UAV_SIZE: u32 = 1;

/// A constant buffer the program reads.
#[derive(Clone, Debug)]
pub struct ConstantBuffer {
    /// The variable, or `None` for the driver constants.
    pub var: Option<Id>,
    /// (set, binding) of a uniform buffer; `None` for push constants and driver constants.
    pub binding: Option<(u32, u32)>,
    /// Size in 16-byte elements.
    pub elements: u32,
    /// The reflection kind.
    pub kind: ResourceKind,
}

/// The resources of one translation.
#[derive(Default)]
pub struct Resources {
    /// Storage buffers and storage images in (set, binding) order; the position is the UAV id.
    uavs: Vec<(u32, u32, Id, UavKind)>,
    /// Sampled images in (set, binding) order; the position is the resource (and sampler) id.
    textures: Vec<(u32, u32, Id, ImageFormat)>,
    /// Constant buffers; the position is the cb number.
    cbs: Vec<ConstantBuffer>,
    /// Workgroup variables and their byte offsets in LDS 0.
    lds: Vec<(Id, u32)>,
    /// Total LDS bytes.
    lds_bytes: u32,
}

impl Resources {
    /// Finds the module-scope variables that the translated functions refer to and assigns
    /// their IL ids. `used` says per id how many words of the instructions of those functions
    /// (after their opcode words) equal it, so non-zero when some instruction has it as an
    /// operand word (a literal that happens to equal a variable id only costs an unused
    /// declaration). `needs_driver_cb` reserves the driver constant buffer (for
    /// `NumWorkgroups`; a size query reserves it as it is lowered,
    /// [`Resources::driver_cb_for_sizes`]).
    pub fn collect(
        module: &Module,
        used: &[u32],
        needs_driver_cb: bool,
        constants: &mut super::spec::ConstantEvaluator<'_>,
    ) -> Result<Resources, Error> {
        let mut resources = Resources::default();
        let mut uniforms = Vec::new();
        let mut push_constant = None;
        for variable in module.global_variables() {
            if used.get(variable.id.0 as usize).copied().unwrap_or(0) == 0 {
                continue;
            }
            let Some((class, pointee)) = types::pointer_parts(module, variable.ty) else {
                continue;
            };
            let (set, binding) = set_and_binding(module, variable.id);
            let buffer_block = module
                .decoration(pointee, spirv::Decoration::BufferBlock)
                .is_some();
            match class {
                spirv::StorageClass::StorageBuffer => {
                    resources
                        .uavs
                        .push((set, binding, variable.id, UavKind::Raw));
                }
                spirv::StorageClass::Uniform if buffer_block => {
                    resources
                        .uavs
                        .push((set, binding, variable.id, UavKind::Raw));
                }
                spirv::StorageClass::UniformConstant => match image_of(module, pointee) {
                    Some((format, 2)) => {
                        resources
                            .uavs
                            .push((set, binding, variable.id, UavKind::Typed(format)));
                    }
                    Some((format, _)) => {
                        resources.textures.push((set, binding, variable.id, format));
                    }
                    // Samplers carry no IL declaration of their own: a sample instruction names
                    // the sampler with the same number as its resource.
                    None => {}
                },
                spirv::StorageClass::Uniform => uniforms.push((set, binding, variable.id, pointee)),
                spirv::StorageClass::PushConstant => push_constant = Some((variable.id, pointee)),
                spirv::StorageClass::Workgroup => {
                    let size = natural_size(module, pointee, &mut |id| constants.word(id, 0).ok())
                        .ok_or_else(|| {
                            Unsupported::at(module, variable.inst, "this Workgroup variable's type")
                        })?;
                    resources.lds.push((variable.id, resources.lds_bytes));
                    resources.lds_bytes =
                        resources.lds_bytes.saturating_add(size.next_multiple_of(4));
                    if resources.lds_bytes > LDS_BYTES_LIMIT {
                        return Err(Unsupported::at(
                            module,
                            variable.inst,
                            format!("more than {LDS_BYTES_LIMIT} bytes of Workgroup memory"),
                        )
                        .into());
                    }
                }
                _ => {}
            }
        }
        resources
            .uavs
            .sort_by_key(|(set, binding, var, _)| (*set, *binding, *var));
        resources
            .textures
            .sort_by_key(|(set, binding, var, _)| (*set, *binding, *var));
        uniforms.sort();
        for (set, binding, var, pointee) in uniforms {
            resources.cbs.push(ConstantBuffer {
                var: Some(var),
                binding: Some((set, binding)),
                elements: cb_elements(module, pointee),
                kind: ResourceKind::ConstantBuffer,
            });
        }
        if let Some((var, pointee)) = push_constant {
            resources.cbs.push(ConstantBuffer {
                var: Some(var),
                binding: None,
                elements: cb_elements(module, pointee),
                kind: ResourceKind::PushConstants,
            });
        }
        if needs_driver_cb {
            resources.push_driver_cb();
        }
        resources.check_limits(module)?;
        Ok(resources)
    }

    /// Refuses what IL cannot declare (amd-il.md §8.5): more UAVs, resources or constant
    /// buffers than it has ids for, or a constant buffer larger than 4096 elements. Each is valid SPIR-V (its
    /// limits are the device's), and IL with them is invalid, so they are "not supported",
    /// located at the first variable past the limit.
    fn check_limits(&self, module: &Module) -> Result<(), Error> {
        let at = |var: Id, feature: String| -> Error {
            match module.def(var) {
                Some(inst) => Unsupported::at(module, inst.index(), feature).into(),
                None => Unsupported::new(feature).into(),
            }
        };
        if let Some((_, _, var, _)) = self.uavs.get(MAX_UAVS) {
            return Err(at(
                *var,
                format!(
                    "more than {MAX_UAVS} storage buffers and storage images (IL UAV ids 0 to {})",
                    MAX_UAVS - 1
                ),
            ));
        }
        if let Some((_, _, var, _)) = self.textures.get(MAX_RESOURCES) {
            return Err(at(
                *var,
                format!(
                    "more than {MAX_RESOURCES} sampled images (IL resource ids 0 to {})",
                    MAX_RESOURCES - 1
                ),
            ));
        }
        if let Some(cb) = self.cbs.get(MAX_CONSTANT_BUFFERS) {
            let feature = format!(
                "more than {MAX_CONSTANT_BUFFERS} constant buffers (uniform buffers, push \
                 constants and the driver's; IL has cb0 to cb{})",
                MAX_CONSTANT_BUFFERS - 1
            );
            return Err(match cb.var {
                Some(var) => at(var, feature),
                None => Unsupported::new(feature).into(),
            });
        }
        if let Some(cb) = self
            .cbs
            .iter()
            .find(|cb| cb.elements > limits::MAX_CB_ELEMENTS)
        {
            let feature = format!(
                "a constant buffer of {} bytes (IL constant buffers hold at most {} \
                 16-byte elements)",
                u64::from(cb.elements) * 16,
                limits::MAX_CB_ELEMENTS
            );
            return Err(match cb.var {
                Some(var) => at(var, feature),
                None => Unsupported::new(feature).into(),
            });
        }
        Ok(())
    }

    /// The UAV id of storage-buffer variable `id`.
    pub fn uav_of(&self, id: Id) -> Option<u32> {
        let position = self.uavs.iter().position(|(_, _, var, _)| *var == id)?;
        u32::try_from(position).ok()
    }

    /// Whether UAV `uav` is a typed UAV (a storage image).
    pub fn is_typed_uav(&self, uav: u32) -> bool {
        matches!(
            self.uavs.get(uav as usize),
            Some((_, _, _, UavKind::Typed(_)))
        )
    }

    /// The resource id of sampled-image variable `id`.
    pub fn texture_of(&self, id: Id) -> Option<u32> {
        let position = self.textures.iter().position(|(_, _, var, _)| *var == id)?;
        u32::try_from(position).ok()
    }

    /// The cb number of uniform or push-constant variable `id`.
    pub fn cb_of(&self, id: Id) -> Option<u32> {
        let position = self.cbs.iter().position(|cb| cb.var == Some(id))?;
        u32::try_from(position).ok()
    }

    /// The cb number of the driver constants for a size query (`OpArrayLength`,
    /// `OpImageQuerySize`), which reserves them (as the last constant buffer, where
    /// [`Resources::collect`] puts them) when the first query is lowered: the declarations are
    /// written after the lowering. Refused, like in [`Resources::collect`], when the buffer
    /// goes past IL's limits.
    pub fn driver_cb_for_sizes(&mut self, module: &Module) -> Result<u32, Error> {
        if let Some(cb) = self.driver_cb() {
            return Ok(cb);
        }
        self.push_driver_cb();
        self.check_limits(module)?;
        self.driver_cb()
            .ok_or_else(|| Error::Internal("no driver constant buffer".to_string()))
    }

    /// Reserves the driver constant buffer after every other constant buffer.
    fn push_driver_cb(&mut self) {
        self.cbs.push(ConstantBuffer {
            var: None,
            binding: None,
            elements: DRIVER_CB_FIRST_UAV_SIZE + u32::try_from(self.uavs.len()).unwrap_or(u32::MAX),
            kind: ResourceKind::DriverConstants,
        });
    }

    /// The cb number of the driver constants, when reserved.
    pub fn driver_cb(&self) -> Option<u32> {
        let position = self
            .cbs
            .iter()
            .position(|cb| cb.kind == ResourceKind::DriverConstants)?;
        u32::try_from(position).ok()
    }

    /// The LDS byte offset of Workgroup variable `id`.
    pub fn lds_offset_of(&self, id: Id) -> Option<u32> {
        self.lds
            .iter()
            .find(|(var, _)| *var == id)
            .map(|(_, offset)| *offset)
    }

    /// Appends the declarations to `decls`, in the order AMD's compiler wrote them (amd-il.md
    /// §3.8): constant buffers, then UAVs, then resources, then LDS.
    pub fn push_declarations(&self, decls: &mut Vec<Inst>) {
        for (n, cb) in (0u32..).zip(&self.cbs) {
            decls.push(Inst::new(Opcode::DclConstBuffer).src(Src::cb(n, cb.elements)));
        }
        for (n, (_, _, _, kind)) in (0u16..).zip(&self.uavs) {
            decls.push(match kind {
                UavKind::Raw => Inst::new(Opcode::DclRawUav).ctrl(il_model::Control::id(n)),
                // dcl_uav: id in control bits 3:0, element format 7:4, type 11:8 (amd-il.md
                // §1.12, with the guide page's swapped labels corrected).
                UavKind::Typed(format) => Inst::new(Opcode::DclUav).ctrl(il_model::Control(
                    (n & 0xF) | u16::from(format.element) << 4 | u16::from(format.usage) << 8,
                )),
            });
        }
        for (n, (_, _, _, format)) in (0u16..).zip(&self.textures) {
            // dcl_resource: id in control bits 7:0, type 11:8; one format word with the same
            // element format for x, y, z and w in bits 22:20, 25:23, 28:26, 31:29 (§1.11).
            let element = u32::from(format.element);
            let word = element << 20 | element << 23 | element << 26 | element << 29;
            decls.push(
                Inst::new(Opcode::DclResource)
                    .ctrl(il_model::Control((n & 0xFF) | u16::from(format.usage) << 8))
                    .extra(&[word]),
            );
        }
        if self.lds_bytes > 0 {
            decls.push(
                Inst::new(Opcode::DclLds)
                    .ctrl(il_model::Control::id(0))
                    .extra(&[self.lds_bytes]),
            );
        }
    }

    /// Bytes of LDS the program declares.
    pub fn lds_bytes(&self) -> u32 {
        self.lds_bytes
    }

    /// The reflection entries: UAVs, then constant buffers.
    pub fn bindings(&self, module: &Module) -> Vec<ResourceBinding> {
        let name = |var: Id| {
            module
                .name(var)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
        };
        // Made at its final size: the list is the reflection's, handed to the caller.
        let mut out = Vec::with_capacity(self.uavs.len() + self.textures.len() + self.cbs.len());
        for (il_id, (set, binding, var, kind)) in (0u32..).zip(&self.uavs) {
            out.push(ResourceBinding {
                set: Some(*set),
                binding: Some(*binding),
                kind: match kind {
                    UavKind::Raw => ResourceKind::RawUav,
                    UavKind::Typed(_) => ResourceKind::TypedUav,
                },
                il_id,
                name: name(*var),
                size: None,
            });
        }
        for (il_id, (set, binding, var, _)) in (0u32..).zip(&self.textures) {
            out.push(ResourceBinding {
                set: Some(*set),
                binding: Some(*binding),
                kind: ResourceKind::Texture,
                il_id,
                name: name(*var),
                size: None,
            });
        }
        for (il_id, cb) in (0u32..).zip(&self.cbs) {
            out.push(ResourceBinding {
                set: cb.binding.map(|(set, _)| set),
                binding: cb.binding.map(|(_, binding)| binding),
                kind: cb.kind,
                il_id,
                name: cb.var.and_then(name),
                size: Some(cb.elements * 16),
            });
        }
        out
    }
}

/// The kind of a UAV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UavKind {
    /// A raw, byte-addressed UAV (a storage buffer).
    Raw,
    /// A typed UAV addressed in elements (a storage image).
    Typed(ImageFormat),
}

/// How an image is declared in IL: its `ILPixTexUsage` and `ILElementFormat` values
/// (amd-il.md §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageFormat {
    /// `ILPixTexUsage`: 1d 1, 2d 2, 3d 3, cubemap 4, buffer 7, 1darray 8, 2darray 9.
    pub usage: u8,
    /// `ILElementFormat`: snorm 1, unorm 2, sint 3, uint 4, float 5.
    pub element: u8,
}

/// The IL format and the SPIR-V `Sampled` operand of an image or sampled-image type, `None` for
/// other types (samplers) and for image kinds IL cannot declare.
fn image_of(module: &Module, ty: Id) -> Option<(ImageFormat, u32)> {
    let image = match module.ty(ty)? {
        Type::SampledImage { image } => *image,
        Type::Image { .. } => ty,
        _ => return None,
    };
    let Some(Type::Image {
        sampled_type,
        dim,
        arrayed,
        multisampled,
        sampled,
        format,
        ..
    }) = module.ty(image)
    else {
        return None;
    };
    if *multisampled != 0 {
        return None;
    }
    let usage = match (spirv::Dim::from_u32(*dim)?, *arrayed != 0) {
        (spirv::Dim::Dim1D, false) => 1,
        (spirv::Dim::Dim2D, false) => 2,
        (spirv::Dim::Dim3D, false) => 3,
        (spirv::Dim::DimCube, false) => 4,
        (spirv::Dim::DimBuffer, false) => 7,
        (spirv::Dim::Dim1D, true) => 8,
        (spirv::Dim::Dim2D, true) => 9,
        _ => return None,
    };
    use spirv::ImageFormat as F;
    let element = match spirv::ImageFormat::from_u32(*format)? {
        F::Rgba8 | F::Rg8 | F::R8 | F::Rgba16 | F::Rg16 | F::R16 | F::Rgb10A2 => 2,
        F::Rgba8Snorm | F::Rg8Snorm | F::R8Snorm | F::Rgba16Snorm | F::Rg16Snorm | F::R16Snorm => 1,
        F::Unknown => match module.ty(*sampled_type)? {
            Type::Float { .. } => 5,
            Type::Int { signed: true, .. } => 3,
            Type::Int { signed: false, .. } => 4,
            _ => return None,
        },
        other => {
            let name = format!("{other:?}");
            if name.ends_with("ui") {
                4
            } else if name.ends_with('i') {
                3
            } else {
                5
            }
        }
    };
    Some((ImageFormat { usage, element }, *sampled))
}

/// Size in 16-byte elements of a constant-buffer block with explicit layout (at least 1).
fn cb_elements(module: &Module, ty: Id) -> u32 {
    explicit_size(module, ty, 0)
        .unwrap_or(16)
        .div_ceil(16)
        .max(1)
}

/// Byte size of a type with explicit layout (Offset/ArrayStride/MatrixStride, SPIR-V §2.18.1).
fn explicit_size(module: &Module, ty: Id, depth: u32) -> Option<u32> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    match module.ty(ty)? {
        Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => {
            // Scalars and vectors: no array lengths to resolve.
            natural_size(module, ty, &mut |_| None)
        }
        Type::Array { element: _, length } => {
            let stride = types::array_stride(module, ty)?;
            stride.checked_mul(types::constant_u32(module, *length)?)
        }
        Type::RuntimeArray { .. } => Some(0),
        Type::Struct { members } => {
            let mut end = 0u32;
            for (index, member) in (0u32..).zip(members) {
                let offset = types::member_offset(module, ty, index)?;
                let size = match module.ty(*member)? {
                    Type::Matrix { count, .. } => {
                        let stride = module
                            .member_decorations(ty, index)
                            .find(|d| d.decoration() == Some(spirv::Decoration::MatrixStride))
                            .and_then(|d| d.operands.first().copied())?;
                        stride.checked_mul(*count)?
                    }
                    _ => explicit_size(module, *member, depth + 1)?,
                };
                end = end.max(offset.checked_add(size)?);
            }
            Some(end)
        }
        _ => None,
    }
}

/// Nesting limit for type walks: types are acyclic (SPIR-V §2.4), but a bound keeps a hostile
/// module from recursing deeply.
const MAX_TYPE_DEPTH: u32 = 64;

/// Byte size of a type in our own packed layout (for Workgroup memory, which has no explicit
/// layout): 4 bytes per 32-bit scalar, 8 per 64-bit one, vectors and structs packed, arrays of
/// packed elements.
/// `lengths` gives the value of an array-length constant (specialization constants included).
pub fn natural_size(
    module: &Module,
    ty: Id,
    lengths: &mut dyn FnMut(Id) -> Option<u32>,
) -> Option<u32> {
    natural_size_at(module, ty, lengths, 0)
}

fn natural_size_at(
    module: &Module,
    ty: Id,
    lengths: &mut dyn FnMut(Id) -> Option<u32>,
    depth: u32,
) -> Option<u32> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    match module.ty(ty)? {
        Type::Bool => Some(4),
        Type::Int { width: 32, .. } | Type::Float { width: 32 } => Some(4),
        Type::Int { width: 64, .. } | Type::Float { width: 64 } => Some(8),
        Type::Vector { component, count } => {
            natural_size_at(module, *component, lengths, depth + 1)?.checked_mul(*count)
        }
        Type::Array { element, length } => {
            natural_size_at(module, *element, lengths, depth + 1)?.checked_mul(lengths(*length)?)
        }
        Type::Struct { members } => members.iter().try_fold(0u32, |sum, m| {
            sum.checked_add(natural_size_at(module, *m, lengths, depth + 1)?)
        }),
        _ => None,
    }
}

/// Byte offset of member `member` of `ty` in the packed layout of [`natural_size`].
pub fn natural_member_offset(
    module: &Module,
    ty: Id,
    member: u32,
    lengths: &mut dyn FnMut(Id) -> Option<u32>,
) -> Option<u32> {
    match module.ty(ty)? {
        Type::Struct { members } => members
            .iter()
            .take(member as usize)
            .try_fold(0u32, |sum, m| {
                sum.checked_add(natural_size(module, *m, lengths)?)
            }),
        _ => None,
    }
}

/// The `DescriptorSet` and `Binding` literals of `variable` (0 where absent), from one walk
/// over its decorations: the first decoration of each kind counts, as
/// [`types::decoration_literal`] would find it, and finding a variable's decorations is a
/// search of the module's table.
fn set_and_binding(module: &Module, variable: Id) -> (u32, u32) {
    let (mut set, mut binding) = (None, None);
    for decoration in module.decorations(variable) {
        let slot = if decoration.kind == spirv::Decoration::DescriptorSet as u32 {
            &mut set
        } else if decoration.kind == spirv::Decoration::Binding as u32 {
            &mut binding
        } else {
            continue;
        };
        if slot.is_none() {
            *slot = Some(decoration.operands.first().copied());
        }
        if set.is_some() && binding.is_some() {
            break;
        }
    }
    (set.flatten().unwrap_or(0), binding.flatten().unwrap_or(0))
}
