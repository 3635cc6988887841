//! Objects holding built-ins (SPIR-V §2.16.1 "BuiltIn decoration", §3.2.20): V-DEC-6 (a
//! struct with built-in members has only built-in members, is not a member of another
//! struct, is a Block when it crosses an interface, and each entry point consumes at most one
//! such object per storage class) and V-DEC-7 (an entry point's Input or Output interface
//! holds each built-in once).
//!
//! [impl] spirv-val 2025.5 enforces V-DEC-7 only in Vulkan environments, and V-DEC-6's
//! per-entry-point count only over the interface list of `OpEntryPoint`, counting objects
//! whose type is such a struct directly (arrays of them, the per-vertex blocks of later
//! stages, are not counted); this pass does the same so that verdicts agree. In Vulkan a
//! built-in variable must also carry no Location or Component (V-VK-BUILTIN-4, see
//! `vulkan_builtins`).

use std::collections::HashSet;

use spv_reader::spirv::{Decoration as D, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;

/// Whether struct `st` has a member decorated BuiltIn.
fn has_builtin_member(ctx: &Ctx<'_>, st: Id) -> bool {
    let Some(Type::Struct { members }) = ctx.ty(st) else {
        return false;
    };
    (0..members.len() as u32).any(|k| {
        ctx.m
            .member_decorations(st, k)
            .any(|d| d.kind == D::BuiltIn as u32)
    })
}

/// The built-ins a member of `st` carries, with the member index.
fn member_builtins(ctx: &Ctx<'_>, st: Id) -> Vec<u32> {
    let Some(Type::Struct { members }) = ctx.ty(st) else {
        return Vec::new();
    };
    (0..members.len() as u32)
        .flat_map(|k| {
            ctx.m
                .member_decorations(st, k)
                .filter(|d| d.kind == D::BuiltIn as u32)
                .filter_map(|d| d.operands.first().copied())
                .collect::<Vec<_>>()
        })
        .collect()
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(&'static str, InstIndex, Vec<Id>, String)> = Vec::new();
    check_structs(ctx, &mut problems);
    check_interfaces(ctx, &mut problems);
    for (rule, at, ids, message) in problems {
        ctx.err(rule, at, &ids, message);
    }
}

/// V-DEC-6 on struct types: all members built-in or none, and not nested directly in
/// another struct.
fn check_structs(ctx: &Ctx<'_>, problems: &mut Vec<(&'static str, InstIndex, Vec<Id>, String)>) {
    let mut builtin_structs: HashSet<u32> = HashSet::new();
    for inst in ctx.ix.with_op(Op::TypeStruct).copied() {
        if ctx.reader_op(inst) != Some(Op::TypeStruct) {
            continue;
        }
        let Some(st) = inst.result_id() else { continue };
        let Some(Type::Struct { members }) = ctx.ty(st) else {
            continue;
        };
        if has_builtin_member(ctx, st) {
            builtin_structs.insert(st.0);
            let all = (0..members.len() as u32).all(|k| {
                ctx.m
                    .member_decorations(st, k)
                    .any(|d| d.kind == D::BuiltIn as u32)
            });
            if !all {
                problems.push((
                    "V-DEC-6",
                    inst.index(),
                    vec![st],
                    format!(
                        "when BuiltIn decoration is applied to a structure-type member, all \
                         members of that structure type must also be decorated with BuiltIn \
                         (structure {st} mixes them)"
                    ),
                ));
            }
        }
        if let Some(&inner) = members.iter().find(|m| builtin_structs.contains(&m.0)) {
            problems.push((
                "V-DEC-6",
                inst.index(),
                vec![st, inner],
                format!(
                    "structure {inner} contains members with BuiltIn decoration, so it may not be \
                     a member of another structure type ({st} contains it)"
                ),
            ));
        }
    }
}

/// Per entry point, over its interface list: V-DEC-6 (Block, one object per storage class)
/// and, under Vulkan, V-DEC-7 and V-VK-BUILTIN-4 (no Location or Component on built-ins).
fn check_interfaces(ctx: &Ctx<'_>, problems: &mut Vec<(&'static str, InstIndex, Vec<Id>, String)>) {
    let vulkan = ctx.env.is_vulkan();
    for ep in ctx.m.entry_points() {
        let (mut block_inputs, mut block_outputs) = (0, 0);
        let mut inputs: Vec<u32> = Vec::new();
        let mut outputs: Vec<u32> = Vec::new();
        for &v in &ep.interface {
            let Some(def) = ctx.m.def(v) else { continue };
            if ctx.reader_op(def) != Some(Op::Variable) {
                continue;
            }
            let class = def.words().get(3).copied().and_then(S::from_u32);
            let pointee = ctx.type_of(v).and_then(|t| ctx.pointer(t)).map(|(_, p)| p);
            // The built-ins are compared only under Vulkan (V-DEC-7, V-VK-BUILTIN-4).
            let own: Vec<u32> = if vulkan {
                ctx.m
                    .decorations(v)
                    .filter(|d| d.kind == D::BuiltIn as u32)
                    .filter_map(|d| d.operands.first().copied())
                    .collect()
            } else {
                Vec::new()
            };
            let mut builtins = own.clone();
            if let Some(st) = pointee.filter(|&p| has_builtin_member(ctx, p)) {
                if ctx.m.decoration(st, D::Block).is_none() {
                    let at = ctx.m.def(st).map_or(def.index(), |d| d.index());
                    problems.push((
                        "V-DEC-6",
                        at,
                        vec![st, v],
                        "interface struct has no Block decoration but has BuiltIn members"
                            .to_owned(),
                    ));
                }
                match class {
                    Some(S::Input) => block_inputs += 1,
                    Some(S::Output) => block_outputs += 1,
                    _ => {}
                }
                if block_inputs > 1 || block_outputs > 1 {
                    break;
                }
                if vulkan {
                    builtins.extend(member_builtins(ctx, st));
                }
            }
            if !vulkan {
                continue;
            }
            if !own.is_empty()
                && ctx
                    .m
                    .decorations(v)
                    .any(|d| d.kind == D::Location as u32 || d.kind == D::Component as u32)
            {
                problems.push((
                    "V-VK-BUILTIN-4",
                    def.index(),
                    vec![v],
                    format!(
                        "a BuiltIn variable ({v}) cannot have any Location or Component decorations"
                    ),
                ));
            }
            let (seen, what) = match class {
                Some(S::Input) => (&mut inputs, "input"),
                Some(S::Output) => (&mut outputs, "output"),
                _ => continue,
            };
            for b in builtins {
                if seen.contains(&b) {
                    let name = spv_reader::spirv::BuiltIn::from_u32(b)
                        .map_or_else(|| b.to_string(), |b| format!("{b:?}"));
                    problems.push((
                        "V-DEC-7",
                        def.index(),
                        vec![v, ep.function],
                        format!(
                            "[VUID-StandaloneSpirv-OpEntryPoint-0965{}] OpEntryPoint contains \
                             duplicate {what} variables with {name} builtin",
                            if what == "input" { 8 } else { 9 }
                        ),
                    ));
                } else {
                    seen.push(b);
                }
            }
        }
        if block_inputs > 1 || block_outputs > 1 {
            problems.push((
                "V-DEC-6",
                ep.inst,
                vec![ep.function],
                format!(
                    "there must be at most one object per storage class that can contain a \
                     structure type containing members decorated with BuiltIn, consumed per \
                     entry point (entry point {} has more)",
                    ep.function
                ),
            ));
        }
    }
}
