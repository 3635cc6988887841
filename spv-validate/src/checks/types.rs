//! Type declarations (V-TYPE-1…14, SPIR-V §3.3.6 and §2.16.1 data rules): uniqueness of
//! non-aggregate types, legal widths and component counts with their capabilities, array
//! lengths, struct members, function types, image and sampled-image operands, and the
//! Vulkan restrictions on runtime arrays.

use spv_reader::spirv::{Capability as C, Dim, Op};
use spv_reader::{Constant, Id, InstIndex, Type};

use crate::checks::layout::is_type_decl;
use crate::checks::repeats::hash_words;
use crate::ctx::{Ctx, Inst};
use crate::diag::opcode_name;
use crate::limits::{MAX_STRUCT_DEPTH, MAX_STRUCT_MEMBERS};
use crate::scratch::Scratch;
use crate::stamped::Stamped;

/// Runs the pass; uses the repeat table and structure depths of `scratch`.
pub(crate) fn check(ctx: &mut Ctx<'_>, scratch: &mut Scratch) {
    let ix = ctx.ix;
    // OpTypeForwardPointer declarations: pointer id → announced storage class.
    // (pointer id, announced storage class), sorted by id, later declarations after earlier
    // ones (the last one counts, see `forward_class`).
    let mut forward: Vec<(u32, u32)> = ix
        .type_decls()
        .filter(|inst| inst.opcode() == Some(Op::TypeForwardPointer))
        .filter_map(|inst| Some((*inst.words().get(1)?, *inst.words().get(2)?)))
        .collect();
    forward.sort_by_key(|&(p, _)| p);
    let declarations = || {
        ix.type_decls().filter_map(|inst| {
            let op = inst.opcode()?;
            if !is_type_decl(op) || op == Op::TypeForwardPointer {
                return None;
            }
            Some((inst, op, inst.result_id()?))
        })
    };
    // V-TYPE-1: key = opcode and operand words after the result id; each non-aggregate
    // declaration is compared with the earlier ones of equal hash, and a repeat names the
    // first declaration of its type. The table holds declarations' instruction positions.
    let words = |i: u32| ix.inst(InstIndex(i)).map_or(&[][..], |inst| inst.words());
    let repeats = &mut scratch.repeats;
    repeats.reset(ix.type_decls().size_hint().1.unwrap_or(0));
    for (inst, op, id) in declarations() {
        if !aggregate_or_pointer(op) {
            let key = type_key(inst.words());
            let hash = hash_words(key.0.into_iter().chain(key.1.iter().copied()));
            let first = repeats
                .first_or_record(hash, inst.index().0, |j| type_key(words(j)) == key)
                .and_then(|j| ix.inst(InstIndex(j)))
                .and_then(|first| first.result_id());
            if let Some(first) = first {
                ctx.err(
                    "V-TYPE-1",
                    inst.index(),
                    &[id, first],
                    format!(
                        "duplicate non-aggregate type declaration: {id} declares the same type \
                         as {first} ({})",
                        opcode_name(op as u16)
                    ),
                );
            }
        }
        check_type(ctx, inst, id, &forward, &mut scratch.depths);
    }
}

/// Whether `op` declares an aggregate or pointer type (which may be declared twice).
fn aggregate_or_pointer(op: Op) -> bool {
    matches!(
        op,
        Op::TypeStruct
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypePointer
            | Op::TypeUntypedPointerKHR
    )
}

/// The V-TYPE-1 identity of a type declaration: its opcode word and the words after the
/// Result id.
fn type_key(words: &[u32]) -> (Option<u32>, &[u32]) {
    (words.first().copied(), words.get(2..).unwrap_or(&[]))
}

/// The storage class the last OpTypeForwardPointer of `id` announces.
fn forward_class(forward: &[(u32, u32)], id: Id) -> Option<u32> {
    let end = forward.partition_point(|&(p, _)| p <= id.0);
    end.checked_sub(1)
        .and_then(|k| forward.get(k))
        .filter(|&&(p, _)| p == id.0)
        .map(|&(_, sc)| sc)
}

fn check_type(
    ctx: &mut Ctx<'_>,
    inst: &Inst<'_>,
    id: Id,
    forward: &[(u32, u32)],
    depths: &mut DepthMemo,
) {
    let i = inst.index();
    let Some(ty) = ctx.ty(id) else { return };
    match ty {
        Type::Int { width, signed } => {
            let ok_width = match width {
                32 => true,
                8 => ctx.caps.any(&[
                    C::Int8,
                    C::StorageBuffer8BitAccess,
                    C::UniformAndStorageBuffer8BitAccess,
                    C::StoragePushConstant8,
                    C::WorkgroupMemoryExplicitLayout8BitAccessKHR,
                ]),
                16 => ctx.caps.any(&[
                    C::Int16,
                    C::StorageBuffer16BitAccess,
                    C::UniformAndStorageBuffer16BitAccess,
                    C::StoragePushConstant16,
                    C::StorageInputOutput16,
                    C::WorkgroupMemoryExplicitLayout16BitAccessKHR,
                ]),
                64 => ctx.has_cap(C::Int64),
                _ => false,
            };
            if !ok_width {
                let message = if matches!(width, 8 | 16 | 64) {
                    format!(
                        "using a {width}-bit integer type requires the Int{width} capability \
                         (or a storage capability that enables it)"
                    )
                } else {
                    format!("invalid number of bits ({width}) used for OpTypeInt")
                };
                ctx.err("V-TYPE-2", i, &[id], message);
            }
            let signedness = inst.words().get(3).copied().unwrap_or(0);
            if signedness > 1 {
                ctx.err(
                    "V-TYPE-2",
                    i,
                    &[id],
                    format!("OpTypeInt has invalid signedness {signedness} (must be 0 or 1)"),
                );
            } else if *signed && ctx.kernel {
                ctx.err(
                    "V-TYPE-14",
                    i,
                    &[id],
                    "the Signedness in OpTypeInt must always be 0 when the Kernel capability is \
                     used",
                );
            }
        }
        Type::Float { width } => {
            let encoded = inst.words().len() > 3;
            let ok = match width {
                32 => !encoded,
                16 => {
                    encoded
                        || ctx.caps.any(&[
                            C::Float16,
                            C::Float16Buffer,
                            C::StorageBuffer16BitAccess,
                            C::UniformAndStorageBuffer16BitAccess,
                            C::StoragePushConstant16,
                            C::StorageInputOutput16,
                            C::WorkgroupMemoryExplicitLayout16BitAccessKHR,
                        ])
                }
                64 => !encoded && ctx.has_cap(C::Float64),
                8 => encoded,
                _ => false,
            };
            if !ok {
                ctx.err(
                    "V-TYPE-3",
                    i,
                    &[id],
                    format!(
                        "a {width}-bit floating-point type is invalid or needs a capability that \
                         is not declared"
                    ),
                );
            }
        }
        Type::Vector { component, count } => {
            let (component, count) = (*component, *count);
            if !ctx.is_scalar(component) {
                ctx.err(
                    "V-TYPE-4",
                    i,
                    &[id, component],
                    format!("OpTypeVector Component Type {component} is not a scalar type"),
                );
            }
            let ok = match count {
                2..=4 => true,
                8 | 16 => ctx.has_cap(C::Vector16),
                _ => false,
            };
            if !ok {
                ctx.err(
                    "V-TYPE-4",
                    i,
                    &[id],
                    format!("illegal number of components ({count}) for OpTypeVector"),
                );
            }
        }
        Type::Matrix { column, count } => {
            let (column, count) = (*column, *count);
            let float_vector =
                matches!(ctx.ty(column), Some(Type::Vector { .. })) && ctx.is_float(column);
            if !float_vector {
                ctx.err(
                    "V-TYPE-5",
                    i,
                    &[id, column],
                    "columns in a matrix must be of type vector of float",
                );
            }
            if !(2..=4).contains(&count) {
                ctx.err(
                    "V-TYPE-5",
                    i,
                    &[id],
                    format!("matrices can only have 2, 3, or 4 columns, not {count}"),
                );
            }
        }
        Type::Array { element, length } => {
            let (element, length) = (*element, *length);
            check_element(ctx, i, id, element, "OpTypeArray");
            check_array_length(ctx, i, id, length);
        }
        Type::RuntimeArray { element } => {
            let element = *element;
            check_element(ctx, i, id, element, "OpTypeRuntimeArray");
        }
        Type::Struct { members } => {
            if members.len() > MAX_STRUCT_MEMBERS {
                ctx.err(
                    "V-LIM-1",
                    i,
                    &[id],
                    format!(
                        "number of OpTypeStruct members ({}) has exceeded the limit ({})",
                        members.len(),
                        MAX_STRUCT_MEMBERS
                    ),
                );
            }
            for (k, &member) in members.iter().enumerate() {
                let member_ty = ctx.ty(member);
                match member_ty {
                    None => ctx.err(
                        "V-TYPE-8",
                        i,
                        &[id, member],
                        format!("structure member type {member} is not a type"),
                    ),
                    Some(Type::Void) => ctx.err(
                        "V-TYPE-8",
                        i,
                        &[id, member],
                        format!("structure member {k} has void type {member}"),
                    ),
                    Some(Type::Function { .. }) => ctx.err(
                        "V-TYPE-8",
                        i,
                        &[id, member],
                        format!("structure member {k} has function type {member}"),
                    ),
                    Some(Type::RuntimeArray { .. })
                        if ctx.env.is_vulkan() && k + 1 != members.len() =>
                    {
                        ctx.err(
                            "V-TYPE-7",
                            i,
                            &[id, member],
                            "in Vulkan, OpTypeRuntimeArray must only be used for the last member \
                             of an OpTypeStruct",
                        );
                    }
                    Some(Type::Struct { .. })
                        if ctx.env.is_vulkan() && contains_runtime_array(ctx, member) =>
                    {
                        ctx.err(
                            "V-TYPE-7",
                            i,
                            &[id, member],
                            "in Vulkan, a structure containing an OpTypeRuntimeArray cannot be \
                             nested in another structure",
                        );
                    }
                    _ => {}
                }
            }
            if struct_depth(ctx, id, depths) > MAX_STRUCT_DEPTH {
                ctx.err(
                    "V-LIM-1",
                    i,
                    &[id],
                    format!("structure nesting depth exceeds the limit ({MAX_STRUCT_DEPTH})"),
                );
            }
        }
        Type::Pointer { pointee, .. } => {
            let pointee = *pointee;
            if ctx.ty(pointee).is_none() {
                ctx.err(
                    "V-TYPE-9",
                    i,
                    &[id, pointee],
                    format!("OpTypePointer Type {pointee} is not a type"),
                );
            }
            if let Some(fwd) = forward_class(forward, id)
                && let Some((sc, _)) = ctx.pointer(id)
                && fwd != sc
            {
                ctx.err(
                    "V-TYPE-9",
                    i,
                    &[id],
                    "storage class of OpTypePointer does not match its OpTypeForwardPointer",
                );
            }
        }
        Type::Function { ret, params } => {
            let ret = *ret;
            match ctx.ty(ret) {
                None => ctx.err(
                    "V-TYPE-10",
                    i,
                    &[id, ret],
                    format!("OpTypeFunction Return Type {ret} is not a type"),
                ),
                Some(Type::Function { .. }) => ctx.err(
                    "V-TYPE-10",
                    i,
                    &[id, ret],
                    "OpTypeFunction Return Type cannot be a function type",
                ),
                _ => {}
            }
            if params.len() > crate::limits::MAX_FUNCTION_ARGS {
                ctx.err(
                    "V-LIM-1",
                    i,
                    &[id],
                    format!(
                        "OpTypeFunction may not take more than {} arguments",
                        crate::limits::MAX_FUNCTION_ARGS
                    ),
                );
            }
            for (k, &p) in params.iter().enumerate() {
                match ctx.ty(p) {
                    None => ctx.err(
                        "V-TYPE-10",
                        i,
                        &[id, p],
                        format!("OpTypeFunction Parameter Type {p} (parameter {k}) is not a type"),
                    ),
                    Some(Type::Void) => ctx.err(
                        "V-TYPE-10",
                        i,
                        &[id, p],
                        format!(
                            "OpTypeFunction Parameter Type {p} (parameter {k}) cannot be OpTypeVoid"
                        ),
                    ),
                    _ => {}
                }
            }
        }
        Type::Image { .. } => check_image(ctx, inst, id),
        Type::SampledImage { image } => {
            let image = *image;
            match ctx.ty(image) {
                Some(Type::Image { dim, .. }) => {
                    if *dim == Dim::DimSubpassData as u32 {
                        ctx.err(
                            "V-TYPE-11",
                            i,
                            &[id, image],
                            "Sampled image type requires an image type with Dim other than \
                             SubpassData",
                        );
                    } else if *dim == Dim::DimBuffer as u32 && ctx.at_least(6) {
                        ctx.err(
                            "V-TYPE-11",
                            i,
                            &[id, image],
                            "in SPIR-V 1.6 or later, sampled image dimension must not be Buffer",
                        );
                    }
                }
                _ => ctx.err(
                    "V-TYPE-11",
                    i,
                    &[id, image],
                    "Sampled Image Type must be an OpTypeImage",
                ),
            }
        }
        _ => {}
    }
}

fn check_element(ctx: &mut Ctx<'_>, i: spv_reader::InstIndex, id: Id, element: Id, what: &str) {
    match ctx.ty(element) {
        None => ctx.err(
            "V-TYPE-6",
            i,
            &[id, element],
            format!("{what} Element Type {element} is not a type"),
        ),
        Some(Type::Void) => ctx.err(
            "V-TYPE-6",
            i,
            &[id, element],
            format!("{what} Element Type {element} is a void type"),
        ),
        Some(Type::Function { .. }) => ctx.err(
            "V-TYPE-6",
            i,
            &[id, element],
            format!("{what} Element Type {element} is a function type"),
        ),
        Some(Type::RuntimeArray { .. }) if ctx.env.is_vulkan() => ctx.err(
            "V-TYPE-7",
            i,
            &[id, element],
            format!("{what} Element Type {element} is not valid in Vulkan environments (a runtime array)"),
        ),
        _ => {}
    }
}

/// V-TYPE-6: the length is a constant integer scalar instruction with value ≥ 1.
fn check_array_length(ctx: &mut Ctx<'_>, i: spv_reader::InstIndex, id: Id, length: Id) {
    let m = ctx.m;
    let def_op = ctx.def_op(length);
    let is_const = matches!(
        def_op,
        Some(Op::Constant | Op::SpecConstant | Op::SpecConstantOp | Op::ConstantNull)
    );
    let ty = ctx.type_of(length);
    if !is_const || !ty.is_some_and(|t| ctx.is_int_scalar(t)) {
        ctx.err(
            "V-TYPE-6",
            i,
            &[id, length],
            format!("OpTypeArray Length {length} is not a scalar constant of integer type"),
        );
        return;
    }
    let signed = ty.is_some_and(|t| matches!(ctx.ty(t), Some(Type::Int { signed: true, .. })));
    let width = ty.and_then(|t| ctx.width(t)).unwrap_or(32);
    match m.constant(length) {
        Some(Constant::Null { .. }) => ctx.err(
            "V-TYPE-6",
            i,
            &[id, length],
            format!("OpTypeArray Length {length} default value must be at least 1: found 0"),
        ),
        // V-CONST-8: a specialization constant's default value does not make the module
        // invalid (SPIR-V §2.12); only a fixed length is judged.
        Some(Constant::Scalar {
            bits, spec: false, ..
        }) => {
            let masked = if width >= 64 {
                *bits
            } else {
                bits & ((1u64 << width) - 1)
            };
            let negative = signed && width > 0 && width <= 64 && (masked >> (width - 1)) & 1 == 1;
            if masked == 0 || negative {
                ctx.err(
                    "V-TYPE-6",
                    i,
                    &[id, length],
                    format!("OpTypeArray Length {length} default value must be at least 1"),
                );
            }
        }
        _ => {}
    }
}

fn contains_runtime_array(ctx: &Ctx<'_>, ty: Id) -> bool {
    ctx.holds(ty, crate::ctx::Holds::RuntimeArray)
}

/// Nesting depth of structures inside `ty`. Each type is measured once (`memo`), so types
/// that share members cost their size, not their unfolded size; past
/// [`MAX_STRUCT_DEPTH`] + 1 levels the walk stops with a depth over the limit.
fn struct_depth(ctx: &Ctx<'_>, ty: Id, memo: &mut DepthMemo) -> usize {
    memo.start(ctx.ix.id_count());
    struct_depth_memo(ctx, ty, 0, memo)
}

/// The memo of one [`struct_depth`] call: depths by type id, emptied per call without
/// clearing the table (kept in the pass's scratch).
#[derive(Default)]
pub(crate) struct DepthMemo(Stamped<u32>);

impl DepthMemo {
    /// Empties the memo, with room for the ids below `ids` (defined types are among them).
    fn start(&mut self, ids: usize) {
        self.0.clear_with_room(ids);
    }

    fn get(&self, ty: Id) -> Option<usize> {
        self.0.get(ty.0 as usize).map(|depth| depth as usize)
    }

    /// Records the depth of `ty` (an id beyond the table is simply not memoized).
    fn insert(&mut self, ty: Id, depth: usize) {
        // Depths stop just past MAX_STRUCT_DEPTH + 1, far inside u32.
        self.0.insert(ty.0 as usize, depth as u32);
    }
}

fn struct_depth_memo(ctx: &Ctx<'_>, ty: Id, depth: usize, memo: &mut DepthMemo) -> usize {
    if depth > MAX_STRUCT_DEPTH + 1 {
        return MAX_STRUCT_DEPTH + 2;
    }
    let t = ctx.ty(ty);
    // Scalars, vectors and the like hold no structure: they answer 0 without touching the
    // memo (most members are such leaves).
    if !matches!(
        t,
        Some(Type::Struct { .. } | Type::Array { .. } | Type::RuntimeArray { .. })
    ) {
        return 0;
    }
    if let Some(known) = memo.get(ty) {
        return known;
    }
    let below = match t {
        Some(Type::Struct { members }) => {
            let mut deepest = 0;
            for &m in members {
                deepest = deepest.max(struct_depth_memo(ctx, m, depth + 1, memo));
            }
            1 + deepest
        }
        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
            struct_depth_memo(ctx, *element, depth + 1, memo)
        }
        _ => 0,
    };
    memo.insert(ty, below);
    below
}

/// V-TYPE-11: OpTypeImage operands.
fn check_image(ctx: &mut Ctx<'_>, inst: &Inst<'_>, id: Id) {
    let i = inst.index();
    let Some(&Type::Image {
        sampled_type,
        dim,
        depth,
        arrayed,
        multisampled,
        sampled,
        format,
        ..
    }) = ctx.ty(id)
    else {
        return;
    };
    let st = ctx.ty(sampled_type);
    let scalar_or_void = matches!(st, Some(Type::Void | Type::Int { .. } | Type::Float { .. }));
    if !scalar_or_void {
        ctx.err(
            "V-TYPE-11",
            i,
            &[id, sampled_type],
            "Sampled Type must be OpTypeVoid or a scalar numerical type",
        );
    } else if ctx.shader && ctx.env.is_vulkan() {
        let width = ctx.width(sampled_type);
        let ok = match st {
            Some(Type::Void) => false,
            Some(Type::Int { .. }) => {
                width == Some(32) || (width == Some(64) && ctx.has_cap(C::Int64ImageEXT))
            }
            Some(Type::Float { .. }) => width == Some(32) || width == Some(16),
            _ => false,
        };
        if !ok {
            ctx.err(
                "V-TYPE-11",
                i,
                &[id, sampled_type],
                "in Vulkan, the Sampled Type of OpTypeImage must be a 32-bit int or float \
                 scalar (or 64-bit int with Int64ImageEXT)",
            );
        }
    }
    if depth > 2 {
        ctx.err(
            "V-TYPE-11",
            i,
            &[id],
            format!("invalid Depth {depth} (must be 0, 1 or 2)"),
        );
    }
    if arrayed > 1 {
        ctx.err(
            "V-TYPE-11",
            i,
            &[id],
            format!("invalid Arrayed {arrayed} (must be 0 or 1)"),
        );
    }
    if multisampled > 1 {
        ctx.err(
            "V-TYPE-11",
            i,
            &[id],
            format!("invalid MS {multisampled} (must be 0 or 1)"),
        );
    }
    if sampled > 2 {
        ctx.err(
            "V-TYPE-11",
            i,
            &[id],
            format!("invalid Sampled {sampled} (must be 0, 1 or 2)"),
        );
    } else if sampled == 0 && ctx.shader && ctx.env.is_vulkan() {
        ctx.err(
            "V-TYPE-11",
            i,
            &[id],
            "in Vulkan, Sampled must be 1 or 2 (0 is only for run-time choice in OpenCL)",
        );
    }
    if dim == Dim::DimSubpassData as u32 {
        if sampled != 2 {
            ctx.err(
                "V-TYPE-11",
                i,
                &[id],
                "Dim SubpassData requires Sampled to be 2",
            );
        }
        if format != 0 {
            ctx.err(
                "V-TYPE-11",
                i,
                &[id],
                "Dim SubpassData requires format Unknown",
            );
        }
    }
}
