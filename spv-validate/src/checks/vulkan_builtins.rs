//! Vulkan's rules for built-in variables ([client] rules, only when the target environment
//! is Vulkan; Vulkan spec §15.9 "Built-In Variables" and the `VUID-<BuiltIn>-*` valid-usage
//! ids spirv-val cites). Rule ids of this client rule set:
//!
//! | Id | Rule |
//! |---|---|
//! | V-VK-BUILTIN-1 | A built-in object has the type its built-in requires (e.g. `GlobalInvocationId`: 3-component vector of 32-bit integers; `Position`: 4-component vector of 32-bit floats, per vertex in an array for tessellation and geometry stages). |
//! | V-VK-BUILTIN-2 | A built-in object lives in the storage class its built-in allows (Input, Output, or either). |
//! | V-VK-BUILTIN-3 | A built-in is used only from entry points of the execution models it allows, and not in the (storage class, model) pairs it forbids (e.g. no `Position` input in a Vertex shader). |
//! | V-VK-BUILTIN-4 | Built-ins Vulkan forbids in a form: `VertexId` at all, subgroup built-ins as struct members, a built-in variable with a Location or Component decoration, a `TessLevelInner`/`TessLevelOuter` variable without Patch. |
//! | V-VK-BUILTIN-5 | `Layer` and `ViewportIndex` in Vertex or TessellationEvaluation shaders need the ShaderViewportIndexLayerEXT capability (or ShaderLayer, ShaderViewportIndex). |
//!
//! Related core rules spirv-val enforces only under Vulkan live in `builtin_objects` (V-DEC-7:
//! each built-in once per interface storage class). `FragDepth` without `DepthReplacing` is
//! accepted, as spirv-val 2025.5 accepts it.
//!
//! "Used from" follows spirv-val: the decorated variable (or struct type) is followed through
//! the module-scope declarations that name it — array and pointer types, variables — and every
//! instruction inside a function that names one of those ids uses the built-in in the execution
//! models of the entry points whose call tree reaches that function. A built-in nobody uses is
//! checked only for its type and storage class.

use std::collections::HashMap;

use spv_reader::spirv::{
    BuiltIn as B, Capability as C, Decoration as D, ExecutionModel as X, Op, StorageClass as S,
};
use spv_reader::{Id, InstIndex, Type};

use crate::checks::Facts;
use crate::ctx::{Ctx, NONE};

/// The shape a built-in's type must have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// Any type (only the storage class and the models are checked).
    Any,
    /// A Boolean scalar.
    Bool,
    /// A 32-bit integer scalar.
    I32,
    /// A 32-bit float scalar.
    F32,
    /// A vector of this many 32-bit integers.
    I32Vec(u32),
    /// A vector of this many 32-bit floats.
    F32Vec(u32),
    /// An array of 32-bit integers.
    I32Array,
    /// An array of this many 32-bit floats (0: any length).
    F32Array(u32),
    /// An array of vectors of this many 32-bit integers.
    I32VecArray(u32),
    /// A matrix of 4 columns of 3-component 32-bit float vectors.
    F32Mat4x3,
}

/// Which storage classes a built-in object may use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Classes {
    Input,
    Output,
    InputOutput,
    /// Not checked (WorkgroupSize is a constant).
    Unchecked,
}

/// Vulkan's requirements for one built-in.
struct Spec {
    /// The type every object must have, checked where it is declared.
    shape: Shape,
    /// Whether a declaration that is not a struct member may wrap `shape` in one array
    /// (per-vertex or per-primitive objects of tessellation, geometry and mesh stages).
    arrayed: bool,
    /// The type required where the built-in is used, per execution model, for the built-ins
    /// whose shape depends on the stage (Position, PointSize, ClipDistance, CullDistance):
    /// the shape, and the models where a non-member declaration may be an array of it.
    per_model: Option<(Shape, &'static [X])>,
    classes: Classes,
    /// The execution models that may use it (`None`: any).
    models: Option<&'static [X]>,
    /// Models that must not use it as an Input object.
    not_input: &'static [X],
    /// Models that must not use it as an Output object.
    not_output: &'static [X],
}

const FRAGMENT: &[X] = &[X::Fragment];
const VERTEX: &[X] = &[X::Vertex];
const COMPUTE: &[X] = &[X::GLCompute, X::TaskNV, X::MeshNV, X::TaskEXT, X::MeshEXT];
const TESSELLATION: &[X] = &[X::TessellationControl, X::TessellationEvaluation];
/// Stages whose per-vertex outputs (or inputs) are arrays.
const PER_VERTEX_ARRAYED: &[X] = &[
    X::TessellationControl,
    X::TessellationEvaluation,
    X::Geometry,
    X::MeshNV,
    X::MeshEXT,
];
const PRE_RASTER: &[X] = &[
    X::Vertex,
    X::TessellationControl,
    X::TessellationEvaluation,
    X::Geometry,
    X::MeshNV,
    X::MeshEXT,
];
const CLIP_CULL: &[X] = &[
    X::Fragment,
    X::Vertex,
    X::TessellationControl,
    X::TessellationEvaluation,
    X::Geometry,
    X::MeshNV,
    X::MeshEXT,
];
const RAY_HIT: &[X] = &[X::IntersectionKHR, X::AnyHitKHR, X::ClosestHitKHR];
const RAY_HIT_MISS: &[X] = &[
    X::IntersectionKHR,
    X::AnyHitKHR,
    X::ClosestHitKHR,
    X::MissKHR,
];
const RAY_ALL: &[X] = &[
    X::RayGenerationKHR,
    X::IntersectionKHR,
    X::AnyHitKHR,
    X::ClosestHitKHR,
    X::MissKHR,
    X::CallableKHR,
];
const PRIMITIVE_ID: &[X] = &[
    X::Fragment,
    X::TessellationControl,
    X::TessellationEvaluation,
    X::Geometry,
    X::MeshNV,
    X::MeshEXT,
    X::IntersectionKHR,
    X::AnyHitKHR,
    X::ClosestHitKHR,
];
/// Layer and ViewportIndex: Vertex and TessellationEvaluation also, with a capability
/// (V-VK-BUILTIN-5).
const LAYER: &[X] = &[
    X::Geometry,
    X::Fragment,
    X::MeshNV,
    X::MeshEXT,
    X::Vertex,
    X::TessellationEvaluation,
];
/// Every model but GLCompute, for ViewIndex.
const NOT_COMPUTE: &[X] = &[
    X::Vertex,
    X::TessellationControl,
    X::TessellationEvaluation,
    X::Geometry,
    X::Fragment,
    X::Kernel,
    X::TaskNV,
    X::MeshNV,
    X::TaskEXT,
    X::MeshEXT,
    X::RayGenerationKHR,
    X::IntersectionKHR,
    X::AnyHitKHR,
    X::ClosestHitKHR,
    X::MissKHR,
    X::CallableKHR,
];

/// A built-in with a fixed shape, one storage class and a model list.
const fn simple(shape: Shape, classes: Classes, models: Option<&'static [X]>) -> Spec {
    Spec {
        shape,
        arrayed: false,
        per_model: None,
        classes,
        models,
        not_input: &[],
        not_output: &[],
    }
}

/// Vulkan's requirements for `b`, `None` for built-ins without Vulkan rules here.
fn spec(b: B) -> Option<Spec> {
    use Classes::{Input, InputOutput, Output};
    use Shape::*;
    Some(match b {
        B::Position => Spec {
            per_model: Some((F32Vec(4), PER_VERTEX_ARRAYED)),
            not_input: &[X::Vertex, X::MeshNV, X::MeshEXT],
            ..simple(Any, InputOutput, Some(PRE_RASTER))
        },
        B::PointSize => Spec {
            per_model: Some((F32, PER_VERTEX_ARRAYED)),
            not_input: VERTEX,
            ..simple(Any, InputOutput, Some(PRE_RASTER))
        },
        B::ClipDistance | B::CullDistance => Spec {
            per_model: Some((F32Array(0), PER_VERTEX_ARRAYED)),
            not_input: &[X::Vertex, X::MeshNV, X::MeshEXT],
            not_output: FRAGMENT,
            ..simple(Any, InputOutput, Some(CLIP_CULL))
        },
        B::FragCoord => simple(F32Vec(4), Input, Some(FRAGMENT)),
        B::FragDepth => simple(F32, Output, Some(FRAGMENT)),
        B::FrontFacing | B::HelperInvocation => simple(Bool, Input, Some(FRAGMENT)),
        B::InvocationId => simple(I32, Input, Some(&[X::TessellationControl, X::Geometry])),
        B::InstanceIndex | B::VertexIndex | B::BaseVertex | B::BaseInstance => {
            simple(I32, Input, Some(VERTEX))
        }
        B::DrawIndex => simple(
            I32,
            Input,
            Some(&[X::Vertex, X::MeshNV, X::TaskNV, X::MeshEXT, X::TaskEXT]),
        ),
        B::PatchVertices => simple(I32, Input, Some(TESSELLATION)),
        B::PointCoord | B::SamplePosition => simple(F32Vec(2), Input, Some(FRAGMENT)),
        B::PrimitiveId => Spec {
            arrayed: true,
            not_output: &[
                X::TessellationControl,
                X::TessellationEvaluation,
                X::Fragment,
                X::IntersectionKHR,
                X::AnyHitKHR,
                X::ClosestHitKHR,
            ],
            ..simple(I32, InputOutput, Some(PRIMITIVE_ID))
        },
        B::SampleId => simple(I32, Input, Some(FRAGMENT)),
        B::SampleMask => simple(I32Array, InputOutput, Some(FRAGMENT)),
        B::TessCoord => simple(F32Vec(3), Input, Some(&[X::TessellationEvaluation])),
        B::TessLevelOuter | B::TessLevelInner => Spec {
            not_input: &[X::TessellationControl],
            not_output: &[X::TessellationEvaluation],
            ..simple(
                F32Array(if b == B::TessLevelOuter { 4 } else { 2 }),
                InputOutput,
                Some(TESSELLATION),
            )
        },
        B::Layer | B::ViewportIndex => Spec {
            arrayed: true,
            not_input: &[
                X::Vertex,
                X::TessellationEvaluation,
                X::Geometry,
                X::MeshNV,
                X::MeshEXT,
            ],
            not_output: FRAGMENT,
            ..simple(I32, InputOutput, Some(LAYER))
        },
        B::GlobalInvocationId | B::LocalInvocationId | B::NumWorkgroups | B::WorkgroupId => {
            simple(I32Vec(3), Input, Some(COMPUTE))
        }
        B::SubgroupId | B::NumSubgroups => simple(I32, Input, Some(COMPUTE)),
        B::BaryCoordKHR | B::BaryCoordNoPerspKHR => simple(F32Vec(3), Input, Some(FRAGMENT)),
        B::ViewIndex => simple(I32, Input, Some(NOT_COMPUTE)),
        B::DeviceIndex => simple(I32, Input, None),
        B::WorkgroupSize => simple(I32Vec(3), Classes::Unchecked, Some(COMPUTE)),
        B::ShadingRateKHR => simple(I32, Input, Some(FRAGMENT)),
        B::PrimitiveShadingRateKHR => simple(
            I32,
            Output,
            Some(&[X::Vertex, X::Geometry, X::MeshNV, X::MeshEXT]),
        ),
        B::RayTminKHR | B::RayTmaxKHR => simple(F32, Input, Some(RAY_HIT_MISS)),
        B::HitTNV => simple(F32, Input, Some(&[X::AnyHitKHR, X::ClosestHitKHR])),
        B::HitKindKHR => simple(I32, Input, Some(&[X::AnyHitKHR, X::ClosestHitKHR])),
        B::InstanceCustomIndexKHR | B::InstanceId | B::RayGeometryIndexKHR => {
            simple(I32, Input, Some(RAY_HIT))
        }
        B::IncomingRayFlagsKHR | B::CullMaskKHR => simple(I32, Input, Some(RAY_HIT_MISS)),
        B::ObjectRayDirectionKHR | B::ObjectRayOriginKHR => simple(F32Vec(3), Input, Some(RAY_HIT)),
        B::WorldRayDirectionKHR | B::WorldRayOriginKHR => {
            simple(F32Vec(3), Input, Some(RAY_HIT_MISS))
        }
        B::ObjectToWorldKHR | B::WorldToObjectKHR => simple(F32Mat4x3, Input, Some(RAY_HIT)),
        B::LaunchIdKHR | B::LaunchSizeKHR => simple(I32Vec(3), Input, Some(RAY_ALL)),
        B::PrimitivePointIndicesEXT => simple(I32Array, Output, Some(&[X::MeshEXT])),
        B::PrimitiveLineIndicesEXT => simple(I32VecArray(2), Output, Some(&[X::MeshEXT])),
        B::PrimitiveTriangleIndicesEXT => simple(I32VecArray(3), Output, Some(&[X::MeshEXT])),
        _ => return None,
    })
}

/// Built-ins whose objects spirv-val checks only where they are declared: subgroup values
/// and masks (never struct members, always Input).
fn declaration_only(b: B) -> Option<Shape> {
    match b {
        B::SubgroupLocalInvocationId | B::SubgroupSize => Some(Shape::I32),
        B::SubgroupEqMask
        | B::SubgroupGeMask
        | B::SubgroupGtMask
        | B::SubgroupLeMask
        | B::SubgroupLtMask => Some(Shape::I32Vec(4)),
        _ => None,
    }
}

/// One `BuiltIn` decoration: the decorated id, the member (or `None`), the built-in and the
/// decorating instruction.
#[derive(Clone, Copy)]
struct Applied {
    target: Id,
    member: Option<u32>,
    builtin: B,
    inst: InstIndex,
}

/// Every `OpDecorate`/`OpMemberDecorate ... BuiltIn` of the module, in module order.
fn builtin_decorations(ctx: &Ctx<'_>) -> Vec<(Id, Option<u32>, u32, InstIndex)> {
    let builtin = D::BuiltIn as u32;
    let mut out = Vec::new();
    for inst in ctx.ix.insts().copied() {
        match (ctx.reader_op(inst), inst.words()) {
            (Some(Op::Decorate), [_, t, d, b]) if *d == builtin => {
                out.push((Id(*t), None, *b, inst.index()));
            }
            (Some(Op::MemberDecorate), [_, t, m, d, b]) if *d == builtin => {
                out.push((Id(*t), Some(*m), *b, inst.index()));
            }
            _ => {}
        }
    }
    out
}

/// The execution models of the entry points whose call tree reaches each function.
fn function_models(ctx: &Ctx<'_>, facts: &Facts) -> HashMap<u32, Vec<X>> {
    let mut models: HashMap<u32, Vec<X>> = HashMap::new();
    for (ep, tree) in ctx.m.entry_points().iter().zip(&facts.call_trees) {
        let Some(model) = ep.model() else { continue };
        for f in tree {
            let list = models.entry(f.0).or_default();
            if !list.contains(&model) {
                list.push(model);
            }
        }
    }
    models
}

/// The type an object decorated by `a` has: a member's type, a constant's type, a
/// variable's pointee.
fn underlying_type(ctx: &Ctx<'_>, a: &Applied) -> Option<Id> {
    if let Some(member) = a.member {
        return match ctx.ty(a.target) {
            Some(Type::Struct { members }) => members.get(member as usize).copied(),
            _ => None,
        };
    }
    if ctx.m.constant(a.target).is_some() {
        return ctx.type_of(a.target);
    }
    ctx.type_of(a.target)
        .and_then(|t| ctx.pointer(t))
        .map(|(_, pointee)| pointee)
}

/// Whether `ty` is a 32-bit scalar of the given kind.
fn scalar32(ctx: &Ctx<'_>, ty: Id, float: bool) -> bool {
    match ctx.ty(ty) {
        Some(Type::Float { width: 32 }) => float,
        Some(Type::Int { width: 32, .. }) => !float,
        _ => false,
    }
}

/// Whether `ty` is a vector of `count` 32-bit scalars of the given kind.
fn vector32(ctx: &Ctx<'_>, ty: Id, count: u32, float: bool) -> bool {
    matches!(ctx.ty(ty), Some(Type::Vector { component, count: c })
        if *c == count && scalar32(ctx, *component, float))
}

/// The element of a fixed-size array type.
fn array_element(ctx: &Ctx<'_>, ty: Id) -> Option<(Id, Id)> {
    match ctx.ty(ty) {
        Some(Type::Array { element, length }) => Some((*element, *length)),
        _ => None,
    }
}

/// Whether `ty` has `shape`; `arrayed` allows one enclosing fixed-size array (for
/// `F32Array`, only when the element is itself an array, as spirv-val strips it).
fn has_shape(ctx: &Ctx<'_>, ty: Id, shape: Shape, arrayed: bool) -> bool {
    let ty = match (arrayed, array_element(ctx, ty)) {
        (true, Some((element, _))) => match shape {
            Shape::F32Array(_) if array_element(ctx, element).is_none() => ty,
            _ => element,
        },
        _ => ty,
    };
    match shape {
        Shape::Any => true,
        Shape::Bool => ctx.is_bool_scalar(ty),
        Shape::I32 => scalar32(ctx, ty, false),
        Shape::F32 => scalar32(ctx, ty, true),
        Shape::I32Vec(n) => vector32(ctx, ty, n, false),
        Shape::F32Vec(n) => vector32(ctx, ty, n, true),
        Shape::I32Array => array_element(ctx, ty).is_some_and(|(e, _)| scalar32(ctx, e, false)),
        Shape::F32Array(n) => array_element(ctx, ty).is_some_and(|(e, len)| {
            scalar32(ctx, e, true) && (n == 0 || ctx.const_scalar(len) == Some(u64::from(n)))
        }),
        Shape::I32VecArray(n) => {
            array_element(ctx, ty).is_some_and(|(e, _)| vector32(ctx, e, n, false))
        }
        Shape::F32Mat4x3 => matches!(ctx.ty(ty), Some(Type::Matrix { column, count: 4 })
            if vector32(ctx, *column, 3, true)),
    }
}

/// What the shape requires, for messages.
fn describe(shape: Shape) -> String {
    match shape {
        Shape::Any => "any type".to_owned(),
        Shape::Bool => "a bool scalar".to_owned(),
        Shape::I32 => "a 32-bit int scalar".to_owned(),
        Shape::F32 => "a 32-bit float scalar".to_owned(),
        Shape::I32Vec(n) => format!("a {n}-component 32-bit int vector"),
        Shape::F32Vec(n) => format!("a {n}-component 32-bit float vector"),
        Shape::I32Array => "a 32-bit int array".to_owned(),
        Shape::F32Array(0) => "a 32-bit float array".to_owned(),
        Shape::F32Array(n) => format!("a {n}-component 32-bit float array"),
        Shape::I32VecArray(n) => format!("an array of {n}-component 32-bit int vectors"),
        Shape::F32Mat4x3 => "a matrix with 4 columns of 3-component 32-bit float vectors".into(),
    }
}

/// The storage class an instruction gives the objects it declares (spirv-val's
/// `GetStorageClass`): pointer types, variables and explicit generic casts.
fn declared_class(ctx: &Ctx<'_>, inst: crate::ctx::Inst<'_>) -> Option<u32> {
    let words = inst.words();
    match ctx.reader_op(inst)? {
        Op::TypePointer | Op::TypeUntypedPointerKHR | Op::TypeForwardPointer => {
            words.get(2).copied()
        }
        Op::Variable => words.get(3).copied(),
        Op::UntypedVariableKHR | Op::GenericCastToPtrExplicit => words.get(4).copied(),
        _ => None,
    }
}

/// An id that depends on a built-in: which decoration, and whether the chain from the
/// decorated id to it passed through Input or Output declarations.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Dependent {
    decoration: usize,
    input: bool,
    output: bool,
}

/// Checks every built-in under Vulkan (V-VK-BUILTIN-1…5; the Location part of
/// V-VK-BUILTIN-4 is checked with the interfaces, in `builtin_objects`).
pub(crate) fn check(ctx: &mut Ctx<'_>, facts: &Facts) {
    if !ctx.env.is_vulkan() {
        return;
    }
    let applied: Vec<Applied> = builtin_decorations(ctx)
        .into_iter()
        .filter_map(|(target, member, b, inst)| {
            Some(Applied {
                target,
                member,
                builtin: B::from_u32(b)?,
                inst,
            })
        })
        .collect();
    if applied.is_empty() {
        return;
    }
    let mut found = Found::default();
    let mut dependents: HashMap<u32, Vec<Dependent>> = HashMap::new();
    for (k, a) in applied.iter().enumerate() {
        check_declaration(ctx, k, a, &mut found);
        let Some(sp) = spec(a.builtin) else { continue };
        // The decorated object is its own first use: a variable's storage class counts.
        let mut dep = Dependent {
            decoration: k,
            input: false,
            output: false,
        };
        if let Some(def) = ctx.ix.def(a.target).copied() {
            let class = declared_class(ctx, def).and_then(S::from_u32);
            if let Some(message) = class_problem(a, &sp, class) {
                found.add(k, "V-VK-BUILTIN-2", def.index(), a.target, message);
            }
            dep.input = class == Some(S::Input);
            dep.output = class == Some(S::Output);
        }
        dependents.entry(a.target.0).or_default().push(dep);
    }
    let models = function_models(ctx, facts);
    let no_models: Vec<X> = Vec::new();
    for inst in ctx.ix.insts().copied() {
        let func = ctx.inst_func(inst.index()).copied();
        let in_function = func.is_some_and(|f| f != NONE);
        let result = inst.result_id();
        let mut seen: Vec<u32> = Vec::new();
        let mut inherited: Vec<Dependent> = Vec::new();
        for (_, id) in ctx.id_refs(inst) {
            if Some(id) == result || seen.contains(&id.0) {
                continue;
            }
            seen.push(id.0);
            let Some(deps) = dependents.get(&id.0) else {
                continue;
            };
            // Each (decoration, classes) once: an id naming several dependents of one
            // built-in would otherwise multiply the entries at every level of nesting.
            for &dep in deps {
                if !inherited.contains(&dep) {
                    inherited.push(dep);
                }
            }
        }
        if inherited.is_empty() {
            continue;
        }
        let class = declared_class(ctx, inst).and_then(S::from_u32);
        let fn_models = if in_function {
            func.and_then(|f| ctx.m.functions().get(f as usize))
                .and_then(|f| models.get(&f.id.0))
                .unwrap_or(&no_models)
        } else {
            &no_models
        };
        for dep in &mut inherited {
            let Some(a) = applied.get(dep.decoration) else {
                continue;
            };
            let Some(sp) = spec(a.builtin) else { continue };
            let at = inst.index();
            // V-VK-BUILTIN-2: the storage class of every declaration on the way.
            if let Some(message) = class_problem(a, &sp, class) {
                found.add(dep.decoration, "V-VK-BUILTIN-2", at, a.target, message);
            }
            dep.input |= class == Some(S::Input);
            dep.output |= class == Some(S::Output);
            for &model in fn_models {
                check_use(ctx, a, &sp, *dep, model, at, &mut found);
            }
        }
        // Module-scope declarations pass the dependence on (spirv-val stops at functions).
        if !in_function && let Some(r) = result {
            let entry = dependents.entry(r.0).or_default();
            for dep in inherited {
                if !entry.contains(&dep) {
                    entry.push(dep);
                }
            }
        }
    }
    for (rule, at, id, message) in found.problems {
        ctx.err(rule, at, &[id], message);
    }
}

/// The problems found, at most one per (decoration, rule): every use of a wrong built-in
/// would otherwise repeat the same error.
#[derive(Default)]
struct Found {
    problems: Vec<(&'static str, InstIndex, Id, String)>,
    reported: Vec<(usize, &'static str)>,
}

impl Found {
    fn add(&mut self, k: usize, rule: &'static str, at: InstIndex, id: Id, message: String) {
        if !self.reported.contains(&(k, rule)) {
            self.reported.push((k, rule));
            self.problems.push((rule, at, id, message));
        }
    }
}

/// V-VK-BUILTIN-2: why a declaration of storage class `class` cannot hold built-in `a`.
fn class_problem(a: &Applied, sp: &Spec, class: Option<S>) -> Option<String> {
    let (allowed, ok) = match (sp.classes, class) {
        (_, None) | (Classes::Unchecked, _) => return None,
        (Classes::Input, Some(c)) => ("Input", c == S::Input),
        (Classes::Output, Some(c)) => ("Output", c == S::Output),
        (Classes::InputOutput, Some(c)) => ("Input or Output", matches!(c, S::Input | S::Output)),
    };
    (!ok).then(|| {
        format!(
            "Vulkan spec allows BuiltIn {:?} to be only used for variables with {allowed} \
             storage class (this declaration uses {class:?})",
            a.builtin
        )
    })
}

/// The checks of one use of built-in `a` from a function called with `model`.
fn check_use(
    ctx: &Ctx<'_>,
    a: &Applied,
    sp: &Spec,
    dep: Dependent,
    model: X,
    at: InstIndex,
    found: &mut Found,
) {
    let mut report = |rule: &'static str, message: String| {
        found.add(dep.decoration, rule, at, a.target, message);
    };
    let name = format!("{:?}", a.builtin);
    if let Some(models) = sp.models
        && !models.contains(&model)
    {
        report(
            "V-VK-BUILTIN-3",
            format!(
                "Vulkan spec does not allow BuiltIn {name} to be used with the {model:?} execution model"
            ),
        );
        return;
    }
    if (dep.input && sp.not_input.contains(&model))
        || (dep.output && sp.not_output.contains(&model))
    {
        let class = if dep.input && sp.not_input.contains(&model) {
            "Input"
        } else {
            "Output"
        };
        report(
            "V-VK-BUILTIN-3",
            format!(
                "Vulkan spec doesn't allow BuiltIn {name} to be used for variables with {class} \
                 storage class if execution model is {model:?}"
            ),
        );
    }
    if let Some((shape, arrayed_models)) = sp.per_model {
        let arrayed = a.member.is_none() && arrayed_models.contains(&model);
        if !underlying_type(ctx, a).is_some_and(|ty| has_shape(ctx, ty, shape, arrayed)) {
            report(
                "V-VK-BUILTIN-1",
                format!(
                    "according to the Vulkan spec BuiltIn {name} variable needs to be {} in the \
                     {model:?} execution model",
                    describe(shape)
                ),
            );
        }
    }
    // V-VK-BUILTIN-5: Layer and ViewportIndex before the rasterizer's last stage need a
    // capability (Vulkan: VUID-Layer-Layer-04273, VUID-ViewportIndex-ViewportIndex-04405).
    if matches!(a.builtin, B::Layer | B::ViewportIndex)
        && matches!(model, X::Vertex | X::TessellationEvaluation)
    {
        let (own, own_name) = if a.builtin == B::Layer {
            (C::ShaderLayer, "ShaderLayer")
        } else {
            (C::ShaderViewportIndex, "ShaderViewportIndex")
        };
        if !ctx.has_cap(C::ShaderViewportIndexLayerEXT) && !ctx.has_cap(own) {
            report(
                "V-VK-BUILTIN-5",
                format!(
                    "using BuiltIn {name} in Vertex or Tessellation execution model requires the \
                     ShaderViewportIndexLayerEXT or {own_name} capability"
                ),
            );
        }
    }
}

/// The checks where built-in `a` is declared (V-VK-BUILTIN-1, -2 for declaration-only
/// built-ins, -4).
fn check_declaration(ctx: &Ctx<'_>, k: usize, a: &Applied, found: &mut Found) {
    let mut report = |k: usize, rule: &'static str, at: InstIndex, id: Id, message: String| {
        found.add(k, rule, at, id, message);
    };
    let name = format!("{:?}", a.builtin);
    let at = ctx.m.def(a.target).map_or(a.inst, |d| d.index());
    if a.builtin == B::VertexId {
        report(
            k,
            "V-VK-BUILTIN-4",
            at,
            a.target,
            "Vulkan spec doesn't allow BuiltIn VertexId to be used".to_owned(),
        );
        return;
    }
    // Tessellation levels are per patch: their variables carry Patch
    // (VUID-StandaloneSpirv-TessLevelInner-10880; struct members are not judged).
    if matches!(a.builtin, B::TessLevelInner | B::TessLevelOuter)
        && a.member.is_none()
        && ctx.def_op(a.target) == Some(Op::Variable)
        && ctx.m.decoration(a.target, D::Patch).is_none()
    {
        report(
            k,
            "V-VK-BUILTIN-4",
            at,
            a.target,
            format!("BuiltIn {name} variable needs to also have a Patch decoration"),
        );
    }
    let declaration_only = declaration_only(a.builtin);
    let member_forbidden =
        declaration_only.is_some() || matches!(a.builtin, B::SubgroupId | B::NumSubgroups);
    if member_forbidden && a.member.is_some() {
        report(
            k,
            "V-VK-BUILTIN-4",
            at,
            a.target,
            format!("BuiltIn {name} cannot be used as a member decoration"),
        );
        return;
    }
    let (shape, arrayed) = match (declaration_only, spec(a.builtin)) {
        (Some(shape), _) => (shape, false),
        (None, Some(sp)) => (sp.shape, sp.arrayed && a.member.is_none()),
        (None, None) => return,
    };
    if shape != Shape::Any {
        let ty = underlying_type(ctx, a);
        if !ty.is_some_and(|ty| has_shape(ctx, ty, shape, arrayed)) {
            report(
                k,
                "V-VK-BUILTIN-1",
                at,
                a.target,
                format!(
                    "according to the Vulkan spec BuiltIn {name} variable needs to be {}",
                    describe(shape)
                ),
            );
            return;
        }
    }
    if declaration_only.is_some()
        && let Some(def) = ctx.ix.def(a.target).copied()
        && let Some(class) = declared_class(ctx, def)
        && class != S::Input as u32
    {
        report(
            k,
            "V-VK-BUILTIN-2",
            at,
            a.target,
            format!(
                "Vulkan spec allows BuiltIn {name} to be only used for variables with Input storage class"
            ),
        );
    }
}
