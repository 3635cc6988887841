//! Vulkan interface locations ([client] rule V-VK-LOCATION-1, only when the target
//! environment is Vulkan; Vulkan spec §15.1.4 "Location Assignment" and
//! VUID-StandaloneSpirv-OpEntryPoint-08721 for inputs, -08722 for outputs): within one entry point of a graphics
//! stage, no two Input (or two Output) interface variables claim the same location component,
//! a variable with a Location does not also locate its struct's members, and Index decorates
//! only Fragment outputs.
//!
//! Locations are counted as spirv-val 2025.5 counts them: a scalar or vector takes one
//! location (two for 64-bit vectors of three or four components), a matrix one per column,
//! an array one per element, a struct the sum of its members; a scalar or vector also says
//! which components (one, or two for 64-bit scalars, per component) it takes from the
//! Component decoration on. The extra array level of per-vertex interfaces (tessellation and
//! geometry inputs, tessellation control outputs) is not counted. A variable without a
//! Location must be a Block whose members carry them; the missing-Location cases are V-DEC-2
//! (`decorations`).

use std::collections::{HashMap, HashSet};

use spv_reader::spirv::{Decoration as D, ExecutionModel as X, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;
use crate::limits::MAX_TYPE_DEPTH;

/// Location components past this are not tracked (4096 locations of 4 components, as
/// spirv-val; far beyond any device's limits).
const MAX_LOCATION_COMPONENTS: u32 = 4096 * 4;

/// Why counting failed: a struct member inside a located variable has its own Location.
struct MemberLocated(Id);

/// The locations `ty` consumes (see the module documentation).
fn locations(ctx: &Ctx<'_>, ty: Id) -> Result<u32, MemberLocated> {
    locations_memo(ctx, ty, 0, &mut HashMap::new())
}

/// [`locations`], each type measured once (`memo`): types that share members cost their
/// size, not their unfolded size.
fn locations_memo(
    ctx: &Ctx<'_>,
    ty: Id,
    depth: usize,
    memo: &mut HashMap<u32, u32>,
) -> Result<u32, MemberLocated> {
    if depth > MAX_TYPE_DEPTH {
        return Ok(0);
    }
    if let Some(&known) = memo.get(&ty.0) {
        return Ok(known);
    }
    let count = match ctx.ty(ty) {
        Some(Type::Int { .. } | Type::Float { .. }) => 1,
        Some(Type::Vector { component, count }) => {
            if ctx.width(*component) == Some(64) && *count > 2 {
                2
            } else {
                1
            }
        }
        Some(Type::Matrix { column, count }) => {
            locations_memo(ctx, *column, depth + 1, memo)?.saturating_mul(*count)
        }
        Some(Type::Array { element, length }) => {
            let per = locations_memo(ctx, *element, depth + 1, memo)?;
            match int32_constant(ctx, *length) {
                Some(n) => per.saturating_mul(n),
                None => per,
            }
        }
        Some(Type::Struct { members }) => {
            let located = (0..members.len() as u32).any(|k| {
                ctx.m
                    .member_decorations(ty, k)
                    .any(|d| d.kind == D::Location as u32)
            }) || ctx.m.decoration(ty, D::Location).is_some();
            if located {
                return Err(MemberLocated(ty));
            }
            let mut sum = 0u32;
            for &m in members {
                sum = sum.saturating_add(locations_memo(ctx, m, depth + 1, memo)?);
            }
            sum
        }
        _ => 0,
    };
    memo.insert(ty.0, count);
    Ok(count)
}

/// The components a scalar or vector consumes (0 for other types).
fn components(ctx: &Ctx<'_>, ty: Id) -> u32 {
    match ctx.ty(ty) {
        Some(Type::Int { width, .. } | Type::Float { width }) => {
            if *width == 64 {
                2
            } else {
                1
            }
        }
        Some(Type::Vector { component, count }) => {
            components(ctx, *component).saturating_mul(*count)
        }
        _ => 0,
    }
}

/// The value of a 32-bit integer `OpConstant` (not a specialization constant).
fn int32_constant(ctx: &Ctx<'_>, id: Id) -> Option<u32> {
    let ty = ctx.type_of(id)?;
    (ctx.def_op(id) == Some(Op::Constant) && ctx.width(ty) == Some(32) && ctx.is_int_scalar(ty))
        .then(|| ctx.const_scalar(id).map(|v| v as u32))
        .flatten()
}

/// The first value of decoration `d` on `id`.
fn decoration_value(ctx: &Ctx<'_>, id: Id, d: D) -> Option<u32> {
    ctx.m
        .decoration(id, d)
        .and_then(|x| x.operands.first().copied())
}

/// The location components of one entry point's Input or Output interface.
struct Claimed {
    what: &'static str,
    taken: HashSet<u32>,
}

impl Claimed {
    /// Claims `count` locations from `location`, or the components `component ..
    /// component + width` of each when `width` is not 0; the first component already taken.
    fn claim(&mut self, location: u32, count: u32, component: u32, width: u32) -> Option<u32> {
        let start = location.saturating_mul(4);
        if start >= MAX_LOCATION_COMPONENTS {
            return None;
        }
        let (start, end) = if width == 0 {
            (start, location.saturating_add(count).saturating_mul(4))
        } else {
            let first = start.saturating_add(component);
            (first, first.saturating_add(width))
        };
        (start..end.min(MAX_LOCATION_COMPONENTS)).find(|&c| !self.taken.insert(c))
    }
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    if !ctx.env.is_vulkan() {
        return;
    }
    let mut problems: Vec<(InstIndex, Id, String)> = Vec::new();
    for ep in ctx.m.entry_points() {
        let Some(model) = ep.model() else { continue };
        if !matches!(
            model,
            X::Vertex
                | X::TessellationControl
                | X::TessellationEvaluation
                | X::Geometry
                | X::Fragment
        ) {
            continue;
        }
        let mut inputs = Claimed {
            what: "input",
            taken: HashSet::new(),
        };
        let mut outputs = Claimed {
            what: "output",
            taken: HashSet::new(),
        };
        // Dual-source blending: Fragment outputs with Index 1 have locations of their own.
        let mut outputs_index1 = Claimed {
            what: "output",
            taken: HashSet::new(),
        };
        for &v in &ep.interface {
            let Some(def) = ctx.m.def(v) else { continue };
            if ctx.reader_op(def) != Some(Op::Variable) {
                continue;
            }
            let output = match def.words().get(3).copied().and_then(S::from_u32) {
                Some(S::Input) => false,
                Some(S::Output) => true,
                _ => continue,
            };
            if ctx.m.decoration(v, D::BuiltIn).is_some() {
                continue;
            }
            let index = decoration_value(ctx, v, D::Index);
            if index.is_some() && !(output && model == X::Fragment) {
                problems.push((
                    def.index(),
                    v,
                    "Index can only be applied to Fragment output variables".into(),
                ));
                continue;
            }
            let claimed = match (output, index) {
                (false, _) => &mut inputs,
                (true, Some(1)) => &mut outputs_index1,
                (true, _) => &mut outputs,
            };
            if let Err((at, id, message)) = claim_variable(ctx, model, v, output, claimed) {
                problems.push((at.unwrap_or(def.index()), id, message));
                // spirv-val stops at the first conflict of an entry point.
                break;
            }
        }
    }
    for (at, id, message) in problems {
        ctx.err("V-VK-LOCATION-1", at, &[id], message);
    }
}

type Problem = (Option<InstIndex>, Id, String);

/// Claims the locations of interface variable `v` of an entry point of `model`.
fn claim_variable(
    ctx: &Ctx<'_>,
    model: X,
    v: Id,
    output: bool,
    claimed: &mut Claimed,
) -> Result<(), Problem> {
    let patch = ctx.m.decoration(v, D::Patch).is_some();
    let per_vertex = ctx.m.decoration(v, D::PerVertexKHR).is_some();
    let arrayed = match model {
        X::TessellationControl => !patch,
        X::TessellationEvaluation => !output && !patch,
        X::Geometry => !output,
        X::Fragment => !output && per_vertex,
        _ => false,
    };
    let Some(mut ty) = ctx.type_of(v).and_then(|t| ctx.pointer(t)).map(|(_, p)| p) else {
        return Ok(());
    };
    if arrayed
        && let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) = ctx.ty(ty)
    {
        ty = *element;
    }
    let is_struct = matches!(ctx.ty(ty), Some(Type::Struct { .. }));
    if is_struct {
        let builtin_members = (0..struct_len(ctx, ty)).any(|k| {
            ctx.m
                .member_decorations(ty, k)
                .any(|d| d.kind == D::BuiltIn as u32)
        });
        if builtin_members || ctx.m.decoration(ty, D::BuiltIn).is_some() {
            return Ok(());
        }
    }
    let member_located = |id: Id| {
        (
            ctx.m.def(id).map(|d| d.index()),
            id,
            "members cannot be assigned a location when their variable has one".to_owned(),
        )
    };
    let conflict = |c: u32, claimed: &Claimed| {
        (
            None,
            v,
            format!(
                "[VUID-StandaloneSpirv-OpEntryPoint-0872{}] entry point has conflicting {} \
                 location assignment at location {}, component {}",
                if claimed.what == "input" { 1 } else { 2 },
                claimed.what,
                c / 4,
                c % 4
            ),
        )
    };
    if let Some(location) = decoration_value(ctx, v, D::Location) {
        let component = decoration_value(ctx, v, D::Component).unwrap_or(0);
        let (element, count) = match ctx.ty(ty) {
            Some(Type::Array { element, length }) => {
                (*element, int32_constant(ctx, *length).unwrap_or(1))
            }
            _ => (ty, 1),
        };
        let per = locations(ctx, element).map_err(|MemberLocated(id)| member_located(id))?;
        let width = components(ctx, element);
        // Bounded by the tracked components: elements past them claim nothing (and an
        // element of no locations would otherwise repeat the same claim).
        for k in 0..count.min(MAX_LOCATION_COMPONENTS) {
            let at = location.saturating_add(per.saturating_mul(k));
            if at.saturating_mul(4) >= MAX_LOCATION_COMPONENTS {
                break;
            }
            if let Some(c) = claimed.claim(at, per, component, width) {
                return Err(conflict(c, claimed));
            }
        }
        return Ok(());
    }
    if !is_struct || ctx.m.decoration(ty, D::Block).is_none() {
        // A missing Location is V-DEC-2.
        return Ok(());
    }
    let Some(Type::Struct { members }) = ctx.ty(ty) else {
        return Ok(());
    };
    for (k, &member) in members.iter().enumerate() {
        let value = |d: D| {
            ctx.m
                .member_decorations(ty, k as u32)
                .find(|x| x.kind == d as u32)
                .and_then(|x| x.operands.first().copied())
        };
        // A member without a Location is V-DEC-2.
        let Some(location) = value(D::Location) else {
            return Ok(());
        };
        let per = locations(ctx, member).map_err(|MemberLocated(id)| member_located(id))?;
        let component = value(D::Component).unwrap_or(0);
        if let Some(c) = claimed.claim(location, per, component, components(ctx, member)) {
            return Err(conflict(c, claimed));
        }
    }
    Ok(())
}

/// The number of members of struct `st`.
fn struct_len(ctx: &Ctx<'_>, st: Id) -> u32 {
    match ctx.ty(st) {
        Some(Type::Struct { members }) => members.len() as u32,
        _ => 0,
    }
}
