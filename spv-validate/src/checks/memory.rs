//! Pointers and memory instructions (V-PTR, V-PSB, V-SSA-6, V-TYPE-7/12, SPIR-V §3.3.8,
//! §2.16.1): pointer types and their storage classes, OpVariable, OpLoad, OpStore,
//! OpCopyMemory, OpCopyObject, the access chains, OpArrayLength, and the logical-pointer
//! restrictions of the Logical addressing model.

use spv_reader::spirv::{Capability as C, Decoration, Op, StorageClass as S};
use spv_reader::{Id, Type};

use crate::ctx::{Ctx, Holds, Inst, NONE};
use crate::limits::MAX_ACCESS_CHAIN_INDEXES;

/// Storage classes a Vulkan module may use (Vulkan spec, "Standalone SPIR-V":
/// VUID-StandaloneSpirv-None-04643).
fn vulkan_storage_class(sc: u32) -> bool {
    let ok = [
        S::UniformConstant,
        S::Uniform,
        S::StorageBuffer,
        S::Input,
        S::Output,
        S::Private,
        S::Function,
        S::Workgroup,
        S::PushConstant,
        S::PhysicalStorageBuffer,
        S::Image,
        S::CallableDataKHR,
        S::IncomingCallableDataKHR,
        S::RayPayloadKHR,
        S::HitAttributeKHR,
        S::IncomingRayPayloadKHR,
        S::ShaderRecordBufferKHR,
        S::TaskPayloadWorkgroupEXT,
        S::TileImageEXT,
        S::HitObjectAttributeNV,
        S::NodePayloadAMDX,
        S::TileAttachmentQCOM,
    ];
    ok.iter().any(|&s| s as u32 == sc)
}

/// Whether the pointer type `ty` is a logical pointer (SPIR-V §2.16.1: every pointer under
/// the Logical addressing model, and non-PhysicalStorageBuffer ones under
/// PhysicalStorageBuffer64).
fn logical_model(ctx: &Ctx<'_>) -> bool {
    ctx.addressing == 0 || ctx.addressing == 5348
}

fn has_variable_pointers(ctx: &Ctx<'_>) -> bool {
    ctx.has_cap(C::VariablePointersStorageBuffer)
}

pub(crate) fn check_type_pointer(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let Some(id) = inst.result_id() else { return };
    let Some((sc, _)) = ctx.pointer(id) else {
        return;
    };
    if ctx.env.is_vulkan() && !vulkan_storage_class(sc) {
        ctx.err(
            "V-PTR-10",
            i,
            &[id],
            "[VUID-StandaloneSpirv-None-04643] invalid storage class for target environment",
        );
    }
    check_storage_class_gate(ctx, inst, sc);
}

/// V-CAP-1/V-CAP-2 for a storage-class operand: version, extension and capability gates.
fn check_storage_class_gate(ctx: &mut Ctx<'_>, inst: &Inst<'_>, sc: u32) {
    let i = inst.index();
    if sc == S::StorageBuffer as u32
        && !ctx.at_least(3)
        && !ctx.has_ext("SPV_KHR_storage_buffer_storage_class")
        && !ctx.has_ext("SPV_KHR_variable_pointers")
    {
        ctx.err(
            "V-CAP-2",
            i,
            &[],
            "operand StorageBuffer(12) requires SPIR-V 1.3 or the extension \
             SPV_KHR_storage_buffer_storage_class",
        );
    }
    if sc == S::PhysicalStorageBuffer as u32 && ctx.addressing != 5348 {
        ctx.err(
            "V-PSB-1",
            i,
            &[],
            "the PhysicalStorageBuffer storage class requires the PhysicalStorageBuffer64 \
             addressing model",
        );
    }
    let caps: &[C] = match S::from_u32(sc) {
        Some(S::Uniform | S::Output | S::Private | S::PushConstant | S::StorageBuffer) => {
            &[C::Shader]
        }
        Some(S::Generic) => &[C::GenericPointer],
        Some(S::AtomicCounter) => &[C::AtomicStorage],
        Some(S::PhysicalStorageBuffer) => &[C::PhysicalStorageBufferAddresses],
        _ => &[],
    };
    if !ctx.caps.any(caps) {
        let name = S::from_u32(sc).map_or_else(|| sc.to_string(), |s| format!("{s:?}"));
        ctx.err(
            "V-CAP-1",
            i,
            &[],
            format!("storage class {name} requires one of these capabilities: {caps:?}"),
        );
    }
}

/// Whether `id` is a constant instruction or a module-scope variable (valid initializers).
fn is_constant_or_global(ctx: &Ctx<'_>, id: Id) -> bool {
    ctx.m
        .constant(id)
        .is_some_and(|c| !matches!(c, spv_reader::Constant::Undef { .. }))
        || ctx.m.global_variables().iter().any(|g| g.id == id)
}

pub(crate) fn check_variable(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let words = inst.words();
    let Some(id) = inst.result_id() else { return };
    let ty = inst.result_type().unwrap_or(Id(0));
    let sc = words.get(3).copied().unwrap_or(0);
    let in_function = inst.func() != NONE;
    let Some((ptr_sc, pointee)) = ctx.pointer(ty) else {
        ctx.err(
            "V-PTR-10",
            i,
            &[id, ty],
            format!("OpVariable Result Type {ty} is not a pointer type"),
        );
        return;
    };
    if ptr_sc != sc {
        ctx.err(
            "V-PTR-10",
            i,
            &[id],
            "storage class must match result type storage class",
        );
    }
    check_storage_class_gate(ctx, inst, sc);
    if in_function && sc != S::Function as u32 {
        ctx.err(
            "V-PTR-10",
            i,
            &[id],
            "variables must have a Function storage class inside of a function",
        );
    }
    if !in_function && sc == S::Function as u32 {
        ctx.err(
            "V-PTR-10",
            i,
            &[id],
            "variables can not have a Function storage class outside of a function",
        );
    }
    if sc == S::Generic as u32 {
        ctx.err(
            "V-PTR-10",
            i,
            &[id],
            "OpVariable storage class cannot be Generic",
        );
    }
    if sc == S::PhysicalStorageBuffer as u32 {
        ctx.err(
            "V-PSB-2",
            i,
            &[id],
            "PhysicalStorageBuffer must not be used with OpVariable",
        );
    }
    if let Some(&init) = words.get(4) {
        let init = Id(init);
        if !is_constant_or_global(ctx, init) {
            ctx.err(
                "V-PTR-10",
                i,
                &[id, init],
                format!("OpVariable Initializer {init} is not a constant or module-scope variable"),
            );
        } else if ctx.type_of(init) != Some(pointee)
            && !(ctx.m.global_variables().iter().any(|g| g.id == init)
                && ctx.type_of(init) == Some(ty))
        {
            ctx.err(
                "V-PTR-10",
                i,
                &[id, init],
                "initializer type must match the type pointed to by the Result Type",
            );
        }
        if matches!(S::from_u32(sc), Some(S::Input | S::PushConstant))
            || (ctx.env.is_vulkan()
                && !matches!(
                    S::from_u32(sc),
                    Some(S::Output | S::Private | S::Function | S::Workgroup)
                ))
        {
            ctx.err(
                "V-PTR-10",
                i,
                &[id],
                format!("OpVariable in storage class {sc} has a disallowed initializer"),
            );
        }
    }
    // V-PTR-1: logical pointers are not stored in variables without variable pointers.
    if logical_model(ctx)
        && ctx.holds(pointee, Holds::LogicalPointer)
        && !(has_variable_pointers(ctx)
            && matches!(S::from_u32(sc), Some(S::Function | S::Private)))
    {
        ctx.err(
            "V-PTR-1",
            i,
            &[id],
            "in the Logical addressing model, variables may not allocate a pointer type",
        );
    }
    // V-TYPE-12: booleans only in non-externally-visible storage classes. (The storage
    // class first: it is the cheap test, and most variables are in other classes.)
    if matches!(
        S::from_u32(sc),
        Some(S::Uniform | S::StorageBuffer | S::PushConstant | S::PhysicalStorageBuffer)
    ) && ctx.holds(pointee, Holds::Bool)
        && !is_builtin_block(ctx, pointee)
    {
        ctx.err(
            "V-TYPE-12",
            i,
            &[id],
            "if OpTypeBool is stored in conjunction with OpVariable, it can only be used with \
             non-externally visible shader storage classes",
        );
    }
    if ctx.env.is_vulkan() && ctx.shader {
        check_vulkan_variable(ctx, inst, id, sc, pointee);
    }
}

fn is_builtin_block(ctx: &Ctx<'_>, ty: Id) -> bool {
    ctx.m
        .member_decorations(ty, 0)
        .any(|d| d.kind == Decoration::BuiltIn as u32)
}

fn decorated(ctx: &Ctx<'_>, id: Id, d: Decoration) -> bool {
    ctx.m.decoration(id, d).is_some()
}

/// Strips arrays (sized and runtime) off `ty`.
fn strip_arrays(ctx: &Ctx<'_>, mut ty: Id) -> Id {
    for _ in 0..crate::limits::MAX_TYPE_DEPTH {
        match ctx.ty(ty) {
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => ty = *element,
            _ => break,
        }
    }
    ty
}

/// Vulkan's rules on descriptor and interface variables (Vulkan "Standalone SPIR-V").
fn check_vulkan_variable(ctx: &mut Ctx<'_>, inst: &Inst<'_>, id: Id, sc: u32, pointee: Id) {
    let i = inst.index();
    let sc_enum = S::from_u32(sc);
    let top_runtime = matches!(ctx.ty(pointee), Some(Type::RuntimeArray { .. }));
    if top_runtime {
        let allowed = matches!(
            sc_enum,
            Some(S::StorageBuffer | S::Uniform | S::UniformConstant)
        );
        if !ctx.has_cap(C::RuntimeDescriptorArray) {
            ctx.err(
                "V-TYPE-7",
                i,
                &[id],
                "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] OpVariable is attempting to \
                 create memory for an illegal type, OpTypeRuntimeArray",
            );
        } else if !allowed {
            ctx.err(
                "V-TYPE-7",
                i,
                &[id],
                "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] a variable containing \
                 OpTypeRuntimeArray must have storage class StorageBuffer, Uniform or \
                 UniformConstant",
            );
        }
    }
    let base = strip_arrays(ctx, pointee);
    match sc_enum {
        Some(S::StorageBuffer | S::PhysicalStorageBuffer)
            if matches!(ctx.ty(base), Some(Type::Struct { .. }))
                && ctx.holds(base, Holds::RuntimeArray)
                && !decorated(ctx, base, Decoration::Block) =>
        {
            ctx.err(
                "V-TYPE-7",
                i,
                &[id],
                "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] an OpTypeStruct variable \
                 containing an OpTypeRuntimeArray must be decorated with Block in StorageBuffer",
            );
        }
        Some(S::Uniform | S::StorageBuffer | S::PushConstant)
            if !(matches!(ctx.ty(base), Some(Type::Struct { .. }))
                || (top_runtime && sc_enum != Some(S::PushConstant))) =>
        {
            ctx.err(
                "V-LAYOUT-10",
                i,
                &[id],
                format!(
                    "[VUID-StandaloneSpirv-Uniform-06807] {} OpVariable must be a structure (or an \
                     array of structures)",
                    sc_enum.map_or_else(String::new, |s| format!("{s:?}"))
                ),
            );
        }
        Some(S::UniformConstant) => {
            let ok = matches!(
                ctx.ty(base),
                Some(
                    Type::Image { .. }
                        | Type::Sampler
                        | Type::SampledImage { .. }
                        | Type::Other { .. }
                )
            );
            if !ok {
                ctx.err(
                    "V-TYPE-13",
                    i,
                    &[id],
                    "[VUID-StandaloneSpirv-UniformConstant-04655] UniformConstant OpVariable has \
                     an illegal type (only images, samplers, sampled images, acceleration \
                     structures and arrays of them)",
                );
            }
        }
        Some(S::Workgroup | S::Private | S::Function)
            if ctx.holds(pointee, Holds::RuntimeArray) && !top_runtime =>
        {
            ctx.err(
                "V-TYPE-7",
                i,
                &[id],
                "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] OpVariable is attempting to \
                 create memory for an illegal type containing OpTypeRuntimeArray",
            );
        }
        _ => {}
    }
    let no_explicit_layout = matches!(sc_enum, Some(S::Function | S::Private | S::UniformConstant))
        || (sc_enum == Some(S::Workgroup) && !ctx.has_cap(C::WorkgroupMemoryExplicitLayoutKHR));
    if ctx.at_least(5)
        && no_explicit_layout
        && let Some(d) = explicit_layout_decoration(ctx, pointee, 0)
    {
        ctx.err(
            "V-LAYOUT-10",
            i,
            &[id],
            format!(
                "[VUID-StandaloneSpirv-None-10684] invalid explicit layout decorations on the type \
                 of {id}: its storage class has no explicit layout, but the type has {d:?}"
            ),
        );
    }
    if matches!(
        sc_enum,
        Some(S::UniformConstant | S::Uniform | S::StorageBuffer)
    ) {
        for (d, name) in [
            (Decoration::Binding, "Binding"),
            (Decoration::DescriptorSet, "DescriptorSet"),
        ] {
            if !decorated(ctx, id, d) {
                ctx.err(
                    "V-DEC-2",
                    i,
                    &[id],
                    format!(
                        "[VUID-StandaloneSpirv-UniformConstant-06677] descriptor variable {id} \
                         is missing the {name} decoration"
                    ),
                );
            }
        }
    }
}

/// The pointer type of value `ptr`: (storage class, pointee), or `None` when `ptr` is not a
/// pointer-typed value.
fn pointer_value(ctx: &Ctx<'_>, ptr: Id) -> Option<(u32, Id)> {
    ctx.type_of(ptr).and_then(|t| ctx.pointer(t))
}

pub(crate) fn check_load(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let words = inst.words();
    let ty = inst.result_type().unwrap_or(Id(0));
    let ptr = Id(words.get(3).copied().unwrap_or(0));
    let Some((_, pointee)) = pointer_value(ctx, ptr) else {
        ctx.err(
            "V-SSA-6",
            i,
            &[ptr],
            format!("OpLoad Pointer {ptr} is not a logical pointer"),
        );
        return;
    };
    if ty != pointee {
        ctx.err(
            "V-PTR-13",
            i,
            &[ptr],
            format!("OpLoad Result Type {ty} does not match Pointer {ptr}'s type"),
        );
    }
    let logical_result = ctx
        .pointer(ty)
        .is_some_and(|(sc, _)| sc != S::PhysicalStorageBuffer as u32);
    if logical_model(ctx) && logical_result && !has_variable_pointers(ctx) {
        ctx.err(
            "V-PTR-3",
            i,
            &[ptr],
            "in the Logical addressing model, OpLoad cannot produce a pointer",
        );
    }
}

pub(crate) fn check_store(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let words = inst.words();
    let ptr = Id(words.get(1).copied().unwrap_or(0));
    let obj = Id(words.get(2).copied().unwrap_or(0));
    let Some((sc, pointee)) = pointer_value(ctx, ptr) else {
        ctx.err(
            "V-SSA-6",
            i,
            &[ptr],
            format!("OpStore Pointer {ptr} is not a logical pointer"),
        );
        return;
    };
    if matches!(ctx.ty(pointee), Some(Type::Void)) {
        ctx.err(
            "V-PTR-13",
            i,
            &[ptr],
            "OpStore Pointer's type cannot be void",
        );
    }
    let obj_ty = ctx.type_of(obj);
    if obj_ty.is_none_or(|t| matches!(ctx.ty(t), Some(Type::Void))) {
        ctx.err(
            "V-PTR-13",
            i,
            &[obj],
            format!("OpStore Object {obj}'s type is void or absent"),
        );
        return;
    }
    if obj_ty != Some(pointee) {
        ctx.err(
            "V-PTR-13",
            i,
            &[ptr, obj],
            format!("OpStore Pointer {ptr}'s type does not match Object {obj}'s type"),
        );
    }
    if matches!(
        S::from_u32(sc),
        Some(S::UniformConstant | S::Input | S::PushConstant)
    ) || (ctx.shader && sc == S::Uniform as u32 && !uniform_is_buffer_block(ctx, ptr))
    {
        ctx.err(
            "V-PTR-13",
            i,
            &[ptr],
            format!("OpStore Pointer {ptr} storage class is read-only"),
        );
    }
}

/// Whether the Uniform-class pointer `ptr` reaches memory of a BufferBlock struct (writable
/// before SPIR-V 1.4 StorageBuffer existed).
fn uniform_is_buffer_block(ctx: &Ctx<'_>, ptr: Id) -> bool {
    let mut cur = ptr;
    for _ in 0..crate::limits::MAX_TYPE_DEPTH {
        let Some(def) = ctx.ix.def(cur) else {
            return false;
        };
        match ctx.op_of(def) {
            Some(
                Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::CopyObject,
            ) => {
                cur = Id(def.words().get(3).copied().unwrap_or(0));
            }
            Some(Op::Variable) => {
                let Some((_, pointee)) = pointer_value(ctx, cur) else {
                    return false;
                };
                let base = strip_arrays(ctx, pointee);
                return decorated(ctx, base, Decoration::BufferBlock);
            }
            _ => return true,
        }
    }
    true
}

/// V-PTR-11: OpAccessChain / OpInBoundsAccessChain (and the Ptr forms' indexes).
pub(crate) fn check_access_chain(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op) {
    let i = inst.index();
    let words = inst.words();
    let ty = inst.result_type().unwrap_or(Id(0));
    let base = Id(words.get(3).copied().unwrap_or(0));
    // Formatted only for diagnostics.
    let name = || format!("Op{op:?}");
    let Some((base_sc, base_pointee)) = pointer_value(ctx, base) else {
        ctx.err(
            "V-PTR-11",
            i,
            &[base],
            format!(
                "the Base {base} in {name} instruction must be a pointer",
                name = name()
            ),
        );
        return;
    };
    let Some((res_sc, res_pointee)) = ctx.pointer(ty) else {
        ctx.err(
            "V-PTR-11",
            i,
            &[ty],
            format!(
                "the Result Type of {name} must be OpTypePointer",
                name = name()
            ),
        );
        return;
    };
    if res_sc != base_sc {
        ctx.err(
            "V-PTR-11",
            i,
            &[base],
            format!("the result pointer storage class and base pointer storage class in {name} do not match", name = name()),
        );
    }
    let ptr_form = matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
    let first_index = if ptr_form { 5 } else { 4 };
    if ptr_form
        && let Some(&element) = words.get(4)
        && !ctx
            .type_of(Id(element))
            .is_some_and(|t| ctx.is_int_scalar(t))
    {
        ctx.err(
            "V-PTR-12",
            i,
            &[Id(element)],
            format!(
                "the Element of {name} must be an integer scalar",
                name = name()
            ),
        );
    }
    let indexes = words.get(first_index..).unwrap_or(&[]);
    if indexes.len() > MAX_ACCESS_CHAIN_INDEXES {
        ctx.err(
            "V-LIM-1",
            i,
            &[],
            format!(
                "the number of indexes in {name} may not exceed {MAX_ACCESS_CHAIN_INDEXES}",
                name = name()
            ),
        );
        return;
    }
    let mut cur = base_pointee;
    for &index in indexes {
        let index = Id(index);
        if !ctx.type_of(index).is_some_and(|t| ctx.is_int_scalar(t)) {
            ctx.err(
                "V-PTR-11",
                i,
                &[index],
                format!(
                    "indexes passed to {name} must be of type integer",
                    name = name()
                ),
            );
            return;
        }
        match ctx.ty(cur) {
            Some(Type::Struct { members }) => {
                let value = match ctx.m.constant(index) {
                    Some(spv_reader::Constant::Scalar {
                        bits, spec: false, ..
                    }) if ctx.def_op(index) == Some(Op::Constant) => Some(*bits as u32),
                    _ => None,
                };
                let Some(v) = value else {
                    ctx.err(
                        "V-PTR-11",
                        i,
                        &[index],
                        "the index into a structure must be an OpConstant",
                    );
                    return;
                };
                match members.get(v as usize) {
                    Some(&m) => cur = m,
                    None => {
                        ctx.err(
                            "V-PTR-11",
                            i,
                            &[index],
                            format!(
                                "index {v} is out of bounds: {name} cannot find index {v} into the \
                                 structure {cur}, which has {} members",
                                members.len(),
                                name = name()
                            ),
                        );
                        return;
                    }
                }
            }
            Some(
                Type::Array { element, .. }
                | Type::RuntimeArray { element }
                | Type::Vector {
                    component: element, ..
                }
                | Type::Matrix {
                    column: element, ..
                },
            ) => {
                if logical_model(ctx)
                    && matches!(ctx.ty(cur), Some(Type::Array { .. }))
                    && let Some(spv_reader::Constant::Scalar { bits, ty: ity, .. }) =
                        ctx.m.constant(index)
                    && matches!(ctx.ty(*ity), Some(Type::Int { signed: true, .. }))
                    && ctx
                        .width(*ity)
                        .is_some_and(|w| w <= 64 && (bits >> (w - 1)) & 1 == 1)
                    && ctx.def_op(index) == Some(Op::Constant)
                {
                    ctx.err(
                        "V-PTR-4",
                        i,
                        &[index],
                        "a signed constant index into an array must not be negative",
                    );
                }
                cur = *element;
            }
            _ => {
                ctx.err(
                    "V-PTR-11",
                    i,
                    &[],
                    "reached non-composite type while indexes still remain to be traversed",
                );
                return;
            }
        }
    }
    if cur != res_pointee {
        ctx.err(
            "V-PTR-11",
            i,
            &[ty],
            format!(
                "the result type of {name} does not match the type that results from indexing into \
                 the base ({res_pointee} vs {cur})",
                name = name()
            ),
        );
    }
}

pub(crate) fn check_copy_object(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let ty = inst.result_type().unwrap_or(Id(0));
    let operand = Id(inst.words().get(3).copied().unwrap_or(0));
    if matches!(ctx.ty(ty), Some(Type::Void)) {
        ctx.err("V-DATA-4", i, &[ty], "OpCopyObject cannot have void type");
    }
    if ctx.type_of(operand) != Some(ty) {
        ctx.err(
            "V-INST-7",
            i,
            &[operand],
            "Result Type and Operand type of OpCopyObject must be the same",
        );
    }
}

pub(crate) fn check_copy_memory(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let words = inst.words();
    let target = Id(words.get(1).copied().unwrap_or(0));
    let source = Id(words.get(2).copied().unwrap_or(0));
    let (Some((_, t)), Some((_, s))) = (pointer_value(ctx, target), pointer_value(ctx, source))
    else {
        ctx.err(
            "V-PTR-14",
            i,
            &[target, source],
            "OpCopyMemory Target and Source must be pointers",
        );
        return;
    };
    if ctx.op_of(inst) == Some(Op::CopyMemory) && t != s {
        ctx.err(
            "V-PTR-14",
            i,
            &[target, source],
            "OpCopyMemory Target and Source must point to the same type",
        );
    }
    if matches!(ctx.ty(t), Some(Type::Void)) {
        ctx.err(
            "V-PTR-14",
            i,
            &[target],
            "OpCopyMemory Target cannot point to void",
        );
    }
}

pub(crate) fn check_array_length(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let i = inst.index();
    let words = inst.words();
    let ty = inst.result_type().unwrap_or(Id(0));
    let st = Id(words.get(3).copied().unwrap_or(0));
    let member = words.get(4).copied().unwrap_or(0);
    if !matches!(
        ctx.ty(ty),
        Some(Type::Int {
            width: 32,
            signed: false
        })
    ) {
        ctx.err(
            "V-PTR-15",
            i,
            &[ty],
            "the Result Type of OpArrayLength must be OpTypeInt with width 32 and signedness 0",
        );
    }
    let ok = pointer_value(ctx, st).is_some_and(|(_, p)| match ctx.ty(p) {
        Some(Type::Struct { members }) => {
            members.len() as u32 == member + 1
                && members
                    .last()
                    .is_some_and(|&m| matches!(ctx.ty(m), Some(Type::RuntimeArray { .. })))
        }
        _ => false,
    });
    if !ok {
        ctx.err("V-PTR-15", i, &[st], "OpArrayLength Structure must be a pointer to a struct whose member at the given index is its last, a runtime array");
    }
}

/// The first explicit-layout decoration (Offset, ArrayStride, MatrixStride) found on `ty`
/// or, recursively, on its members and elements. Each type is visited once (types that share
/// members would otherwise unfold exponentially), at most `MAX_TYPE_DEPTH` levels deep.
fn explicit_layout_decoration(ctx: &Ctx<'_>, ty: Id, depth: usize) -> Option<Decoration> {
    let mut visited: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut stack: Vec<(Id, usize)> = vec![(ty, depth)];
    while let Some((ty, depth)) = stack.pop() {
        if depth > crate::limits::MAX_TYPE_DEPTH || !visited.insert(ty.0) {
            continue;
        }
        match ctx.ty(ty) {
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                if decorated(ctx, ty, Decoration::ArrayStride) {
                    return Some(Decoration::ArrayStride);
                }
                stack.push((*element, depth + 1));
            }
            Some(Type::Struct { members }) => {
                for k in 0..members.len() as u32 {
                    for d in [Decoration::Offset, Decoration::MatrixStride] {
                        if ctx.m.member_decorations(ty, k).any(|x| x.kind == d as u32) {
                            return Some(d);
                        }
                    }
                }
                // Members in order: the stack pops the first member first.
                stack.extend(members.iter().rev().map(|&m| (m, depth + 1)));
            }
            _ => {}
        }
    }
    None
}
