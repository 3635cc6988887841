//! Instructions about pointers that the memory pass leaves out (SPIR-V §2.16.1, §3.3.8,
//! §3.3.11): V-PTR-5 (pointer arguments of OpFunctionCall under the Logical addressing
//! model), V-PTR-12 (the ArrayStride of OpPtrAccessChain's Base in explicitly laid-out
//! storage), V-PTR-16 (OpImageTexelPointer), V-PTR-17 (OpPtrEqual, OpPtrNotEqual and
//! OpPtrDiff: Result Type and matching operand types), V-PTR-18 (the generic-pointer casts
//! of Kernel modules) and V-PSB-4 (no pointer comparison or difference on
//! PhysicalStorageBuffer pointers; a null PhysicalStorageBuffer pointer is V-CONST-4).
//!
//! Not enforced, because spirv-val 2025.5 accepts modules breaking them: V-PSB-3
//! (PhysicalStorageBuffer matrix pointers only from access chains, only for loads and
//! stores) and V-PTR-16's "only atomics use a texel pointer".

use spv_reader::spirv::{Dim, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::{Ctx, Inst};

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(&'static str, InstIndex, Id, String)> = Vec::new();
    let candidates = ctx.ix.with_ops(&[
        Op::FunctionCall,
        Op::PtrEqual,
        Op::PtrNotEqual,
        Op::PtrDiff,
        Op::ImageTexelPointer,
        Op::PtrAccessChain,
        Op::InBoundsPtrAccessChain,
        Op::PtrCastToGeneric,
        Op::GenericCastToPtr,
        Op::GenericCastToPtrExplicit,
    ]);
    for inst in candidates.into_iter().copied() {
        match ctx.reader_op(inst) {
            Some(Op::FunctionCall) if ctx.addressing == 0 => {
                check_call(ctx, inst, &mut problems);
            }
            Some(op @ (Op::PtrEqual | Op::PtrNotEqual | Op::PtrDiff)) => {
                check_comparison(ctx, inst, op, &mut problems);
            }
            Some(Op::ImageTexelPointer) => check_texel_pointer(ctx, inst, &mut problems),
            Some(Op::PtrAccessChain | Op::InBoundsPtrAccessChain) if ctx.shader => {
                check_ptr_chain_stride(ctx, inst, &mut problems);
            }
            Some(
                op @ (Op::PtrCastToGeneric | Op::GenericCastToPtr | Op::GenericCastToPtrExplicit),
            ) => check_generic_cast(ctx, inst, op, &mut problems),
            _ => {}
        }
    }
    for (rule, at, id, message) in problems {
        ctx.err(rule, at, &[id], message);
    }
}

type Problems = Vec<(&'static str, InstIndex, Id, String)>;

/// V-PTR-5: what a pointer argument may be when pointers are logical (spirv-val 2025.5
/// judges the parameter's storage class and whether the argument is a memory object
/// declaration, under the Logical addressing model only).
fn check_call(ctx: &Ctx<'_>, inst: Inst<'_>, problems: &mut Problems) {
    let [_, _, _, callee, args @ ..] = inst.words() else {
        return;
    };
    let Some((_, f)) = ctx.function(Id(*callee)) else {
        return;
    };
    let Some(Type::Function { params, .. }) = ctx.ty(f.function_type) else {
        return;
    };
    let vpsb = ctx.has_cap(spv_reader::spirv::Capability::VariablePointersStorageBuffer);
    let vp = ctx.has_cap(spv_reader::spirv::Capability::VariablePointers);
    for (&arg, &param) in args.iter().zip(params) {
        let Some(Type::Pointer { storage_class, .. }) = ctx.ty(param) else {
            continue;
        };
        let class = S::from_u32(*storage_class);
        let arg = Id(arg);
        match class {
            Some(
                S::UniformConstant | S::Function | S::Private | S::Workgroup | S::AtomicCounter,
            ) => {}
            Some(S::StorageBuffer) if vpsb => {}
            Some(S::StorageBuffer) => {
                problems.push((
                    "V-PTR-5",
                    inst.index(),
                    arg,
                    format!("StorageBuffer pointer argument {arg} requires a variable pointers capability"),
                ));
                continue;
            }
            _ => {
                problems.push((
                    "V-PTR-5",
                    inst.index(),
                    arg,
                    format!("invalid storage class for the pointer argument {arg}"),
                ));
                continue;
            }
        }
        let declaration = matches!(ctx.def_op(arg), Some(Op::Variable | Op::FunctionParameter));
        let allowed = declaration
            || class == Some(S::UniformConstant)
            || (vpsb && class == Some(S::StorageBuffer))
            || (vp && class == Some(S::Workgroup));
        if !allowed {
            problems.push((
                "V-PTR-5",
                inst.index(),
                arg,
                format!("pointer argument {arg} must be a memory object declaration"),
            ));
        }
    }
}

/// V-PTR-12 (shaders): the Base of OpPtrAccessChain steps by its type's ArrayStride when its
/// storage class is explicitly laid out (Uniform, StorageBuffer, PushConstant,
/// PhysicalStorageBuffer, and Workgroup with WorkgroupMemoryExplicitLayoutKHR).
fn check_ptr_chain_stride(ctx: &Ctx<'_>, inst: Inst<'_>, problems: &mut Problems) {
    let Some(&base) = inst.words().get(3) else {
        return;
    };
    let Some(base_type) = ctx.type_of(Id(base)) else {
        return;
    };
    let Some((class, _)) = ctx.pointer(base_type) else {
        return;
    };
    let laid_out = match S::from_u32(class) {
        Some(S::Uniform | S::StorageBuffer | S::PushConstant | S::PhysicalStorageBuffer) => true,
        Some(S::Workgroup) => {
            ctx.has_cap(spv_reader::spirv::Capability::WorkgroupMemoryExplicitLayoutKHR)
        }
        _ => false,
    };
    if laid_out
        && ctx
            .m
            .decoration(base_type, spv_reader::spirv::Decoration::ArrayStride)
            .is_none()
    {
        problems.push((
            "V-PTR-12",
            inst.index(),
            Id(base),
            format!(
                "OpPtrAccessChain must have a Base whose type is decorated with ArrayStride \
                 ({base_type} is not)"
            ),
        ));
    }
}

/// The storage class and pointee of the pointer value `id`.
fn pointer_of(ctx: &Ctx<'_>, id: Id) -> Option<(u32, Id)> {
    ctx.type_of(id).and_then(|t| ctx.pointer(t))
}

/// V-PTR-17 and V-PSB-4 for OpPtrEqual, OpPtrNotEqual and OpPtrDiff.
fn check_comparison(ctx: &Ctx<'_>, inst: Inst<'_>, op: Op, problems: &mut Problems) {
    let (Some(ty), Some(r), [.., a, b]) = (inst.result_type(), inst.result_id(), inst.words())
    else {
        return;
    };
    let result_ok = if op == Op::PtrDiff {
        ctx.is_int_scalar(ty)
    } else {
        ctx.is_bool_scalar(ty)
    };
    if !result_ok {
        let wanted = if op == Op::PtrDiff {
            "an integer scalar"
        } else {
            "OpTypeBool"
        };
        problems.push((
            "V-PTR-17",
            inst.index(),
            r,
            format!("Op{op:?}: Result Type must be {wanted}"),
        ));
    }
    let (ta, tb) = (ctx.type_of(Id(*a)), ctx.type_of(Id(*b)));
    if ta != tb {
        problems.push((
            "V-PTR-17",
            inst.index(),
            r,
            format!("Op{op:?}: the types of Operand 1 and Operand 2 must match"),
        ));
    }
    if pointer_of(ctx, Id(*a)).is_some_and(|(c, _)| c == S::PhysicalStorageBuffer as u32) {
        problems.push((
            "V-PSB-4",
            inst.index(),
            r,
            format!("Op{op:?} cannot use a pointer in the PhysicalStorageBuffer storage class"),
        ));
    }
}

/// V-PTR-16: OpImageTexelPointer's Result Type, Image and Coordinate.
fn check_texel_pointer(ctx: &Ctx<'_>, inst: Inst<'_>, problems: &mut Problems) {
    let (Some(ty), Some(r), [_, _, _, image, coordinate, ..]) =
        (inst.result_type(), inst.result_id(), inst.words())
    else {
        return;
    };
    let mut fail = |message: String| problems.push(("V-PTR-16", inst.index(), r, message));
    let Some((class, pointee)) = ctx.pointer(ty) else {
        fail("OpImageTexelPointer: expected Result Type to be OpTypePointer".into());
        return;
    };
    if class != S::Image as u32 {
        fail(
            "OpImageTexelPointer: expected Result Type to be a pointer whose Storage Class operand \
             is Image"
                .into(),
        );
        return;
    }
    let Some(Type::Image {
        sampled_type,
        dim,
        arrayed,
        ..
    }) = pointer_of(ctx, Id(*image)).and_then(|(_, t)| ctx.ty(t))
    else {
        fail("OpImageTexelPointer: expected Image to be a pointer to OpTypeImage".into());
        return;
    };
    if *sampled_type != pointee {
        fail(
            "OpImageTexelPointer: expected the image's Sampled Type to be the type the Result \
             Type points to"
                .into(),
        );
    }
    let plane = match Dim::from_u32(*dim) {
        Some(Dim::Dim1D | Dim::DimBuffer) => 1,
        Some(Dim::Dim2D | Dim::DimRect | Dim::DimSubpassData) => 2,
        Some(Dim::Dim3D | Dim::DimCube) => 3,
        _ => return,
    };
    let expected = match (*arrayed, Dim::from_u32(*dim)) {
        (0, _) => plane,
        (_, Some(Dim::Dim1D)) => 2,
        (_, Some(Dim::Dim2D | Dim::DimCube)) => 3,
        _ => return,
    };
    let Some(coordinate_type) = ctx.type_of(Id(*coordinate)) else {
        return;
    };
    match ctx.scalar_and_count(coordinate_type) {
        Some((scalar, count)) if ctx.is_int_scalar(scalar) => {
            if count != expected {
                fail(format!(
                    "OpImageTexelPointer: expected Coordinate to have {expected} components, but \
                     given {count}"
                ));
            }
        }
        _ => fail("OpImageTexelPointer: expected Coordinate to be integer scalar or vector".into()),
    }
}

/// V-PTR-18: the casts between Generic and the Workgroup, CrossWorkgroup and Function
/// storage classes keep the pointee.
fn check_generic_cast(ctx: &Ctx<'_>, inst: Inst<'_>, op: Op, problems: &mut Problems) {
    let (Some(ty), Some(r), Some(&source)) =
        (inst.result_type(), inst.result_id(), inst.words().get(3))
    else {
        return;
    };
    let mut fail = |message: String| problems.push(("V-PTR-18", inst.index(), r, message));
    let (Some((to, to_pointee)), Some((from, from_pointee))) =
        (ctx.pointer(ty), pointer_of(ctx, Id(source)))
    else {
        fail(format!(
            "Op{op:?}: expected Result Type and the input to be pointers"
        ));
        return;
    };
    let castable = |c: u32| {
        [S::Workgroup, S::CrossWorkgroup, S::Function]
            .iter()
            .any(|&s| s as u32 == c)
    };
    let generic = S::Generic as u32;
    let (specific, generic_side, what) = match op {
        Op::PtrCastToGeneric => (from, to, "input"),
        _ => (to, from, "Result Type"),
    };
    if generic_side != generic {
        let side = if op == Op::PtrCastToGeneric {
            "Result Type"
        } else {
            "input"
        };
        fail(format!(
            "Op{op:?}: expected {side} to have storage class Generic"
        ));
    } else if !castable(specific) {
        fail(format!(
            "Op{op:?}: expected {what} to have storage class Workgroup, CrossWorkgroup or Function"
        ));
    } else if op == Op::GenericCastToPtrExplicit && inst.words().get(4) != Some(&to) {
        fail(format!(
            "Op{op:?}: expected Result Type to be of the target storage class"
        ));
    }
    if to_pointee != from_pointee {
        fail(format!(
            "Op{op:?}: expected the input and Result Type to point to the same type"
        ));
    }
}
