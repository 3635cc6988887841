//! Block and BufferBlock structs (SPIR-V §2.16.2, §3.2.19): V-DEC-5 (not both on one struct;
//! neither on a struct nested, at any depth and through arrays, inside a Block or
//! BufferBlock struct) and the Vulkan part of V-LAYOUT-10 (a Uniform, StorageBuffer or
//! PushConstant variable's struct is a Block, or for Uniform a BufferBlock; Vulkan spec
//! VUID-StandaloneSpirv-Uniform-06676 and VUID-StandaloneSpirv-PushConstant-06675).
//!
//! Also under Vulkan, V-LAYOUT-8: a struct's runtime-array member has the largest Offset
//! (VUID-StandaloneSpirv-OpTypeRuntimeArray-04680; core SPIR-V only orders members, which is
//! V-TYPE-7, and spirv-val checks offsets only for Vulkan).
//!
//! V-DEC-10 (no StorageBuffer blocks beside Uniform BufferBlocks) is not enforced: spirv-val
//! 2025.5 accepts such modules in every environment, and a disagreement in that direction
//! would reject modules drivers take.

use spv_reader::spirv::{Decoration as D, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;
use crate::limits::MAX_TYPE_DEPTH;

/// Whether struct `st` is decorated Block or BufferBlock.
fn is_block(ctx: &Ctx<'_>, st: Id) -> bool {
    ctx.m.decoration(st, D::Block).is_some() || ctx.m.decoration(st, D::BufferBlock).is_some()
}

/// [`contains_block`]'s memo entries.
const UNKNOWN: u8 = 0;
const NOT_FOUND: u8 = 1;
const FOUND: u8 = 2;

/// Whether `ty` contains (through arrays and struct members, not counting `ty` itself) a
/// Block or BufferBlock struct; `memo` caches the answer per struct id ([`UNKNOWN`] until
/// known; a dense table, as it is indexed by defined ids).
fn contains_block(ctx: &Ctx<'_>, ty: Id, memo: &mut Vec<u8>, depth: usize) -> bool {
    if depth > MAX_TYPE_DEPTH {
        return false;
    }
    match ctx.ty(ty) {
        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
            let element = *element;
            (matches!(ctx.ty(element), Some(Type::Struct { .. })) && is_block(ctx, element))
                || contains_block(ctx, element, memo, depth + 1)
        }
        Some(Type::Struct { members }) => {
            match memo.get(ty.0 as usize) {
                Some(&FOUND) => return true,
                Some(&NOT_FOUND) => return false,
                _ => {}
            }
            let found = members.iter().any(|&m| {
                (matches!(ctx.ty(m), Some(Type::Struct { .. })) && is_block(ctx, m))
                    || contains_block(ctx, m, memo, depth + 1)
            });
            let slot = ty.0 as usize;
            if slot >= memo.len() {
                // Sized for every defined id at once (one allocation per module).
                memo.resize(ctx.ix.id_count().max(slot + 1), UNKNOWN);
            }
            if let Some(m) = memo.get_mut(slot) {
                *m = if found { FOUND } else { NOT_FOUND };
            }
            found
        }
        _ => false,
    }
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(&'static str, InstIndex, Id, String)> = Vec::new();
    let mut memo: Vec<u8> = Vec::new();
    for inst in ctx.ix.with_op(Op::TypeStruct).copied() {
        if ctx.reader_op(inst) != Some(Op::TypeStruct) {
            continue;
        }
        let Some(st) = inst.result_id() else { continue };
        let block = ctx.m.decoration(st, D::Block).is_some();
        let buffer_block = ctx.m.decoration(st, D::BufferBlock).is_some();
        if block && buffer_block {
            problems.push((
                "V-DEC-5",
                inst.index(),
                st,
                format!("{st} is decorated with both BufferBlock and Block, which is not allowed"),
            ));
        }
        if (block || buffer_block) && contains_block(ctx, st, &mut memo, 0) {
            problems.push((
                "V-DEC-5",
                inst.index(),
                st,
                format!(
                    "a Block or BufferBlock cannot be nested within another Block or BufferBlock \
                     ({st} contains one)"
                ),
            ));
        }
    }
    if ctx.env.is_vulkan() {
        check_runtime_array_offsets(ctx, &mut problems);
        for g in ctx.m.global_variables() {
            let class = S::from_u32(g.storage_class);
            let wanted = match class {
                Some(S::Uniform) => "Block or BufferBlock",
                Some(S::StorageBuffer | S::PushConstant) => "Block",
                _ => continue,
            };
            let Some((_, mut ty)) = ctx.pointer(g.ty) else {
                continue;
            };
            for _ in 0..MAX_TYPE_DEPTH {
                match ctx.ty(ty) {
                    Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                        ty = *element
                    }
                    _ => break,
                }
            }
            if !matches!(ctx.ty(ty), Some(Type::Struct { .. })) {
                continue;
            }
            let ok = match class {
                Some(S::Uniform) => is_block(ctx, ty),
                _ => ctx.m.decoration(ty, D::Block).is_some(),
            };
            if !ok {
                problems.push((
                    "V-LAYOUT-10",
                    g.inst,
                    g.id,
                    format!(
                        "{} variable {} is missing the {wanted} decoration on its struct {ty}",
                        class.map_or_else(String::new, |c| format!("{c:?}")),
                        g.id
                    ),
                ));
            }
        }
    }
    for (rule, at, id, message) in problems {
        ctx.err(rule, at, &[id], message);
    }
}

/// V-LAYOUT-8 (Vulkan): no member of a struct lies at a larger Offset than its runtime array.
fn check_runtime_array_offsets(
    ctx: &Ctx<'_>,
    problems: &mut Vec<(&'static str, InstIndex, Id, String)>,
) {
    let offset = |st: Id, k: u32| {
        ctx.m
            .member_decorations(st, k)
            .find(|d| d.kind == D::Offset as u32)
            .and_then(|d| d.operands.first().copied())
    };
    for inst in ctx.ix.with_op(Op::TypeStruct).copied() {
        if ctx.reader_op(inst) != Some(Op::TypeStruct) {
            continue;
        }
        let Some(st) = inst.result_id() else { continue };
        let Some(Type::Struct { members }) = ctx.ty(st) else {
            continue;
        };
        for (k, &m) in members.iter().enumerate() {
            if !matches!(ctx.ty(m), Some(Type::RuntimeArray { .. })) {
                continue;
            }
            let Some(at) = offset(st, k as u32) else {
                continue;
            };
            let later = (0..members.len() as u32)
                .filter(|&j| j as usize != k)
                .any(|j| offset(st, j).is_some_and(|o| o > at));
            if later {
                problems.push((
                    "V-LAYOUT-8",
                    inst.index(),
                    st,
                    format!(
                        "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] structure {st} has a \
                         runtime array at offset {at}, but other members at larger offsets"
                    ),
                ));
            }
        }
    }
}
