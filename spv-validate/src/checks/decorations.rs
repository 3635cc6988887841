//! Decorations (V-DEC, SPIR-V §3.2.19, §2.16): no decoration twice on one id or member,
//! decorations on permitted targets only, exclusive pairs (Restrict/Aliased, RowMajor/
//! ColMajor, Block/BufferBlock, interpolation qualifiers), decoration groups, and the
//! decoration-instruction forms (V-DEC-13).

use std::collections::HashSet;

use spv_reader::spirv::{Decoration as D, Op};
use spv_reader::{Id, InstIndex};

use crate::ctx::Ctx;

/// Whether a decoration may legitimately be applied several times to one target
/// (SPIR-V §3.2.19: UserSemantic with different strings; FuncParamAttr with different
/// attributes is checked separately; vendor cache controls list several levels).
fn allows_repeats(kind: u32) -> bool {
    [
        D::UserSemantic,
        D::FuncParamAttr,
        D::CacheControlLoadINTEL,
        D::CacheControlStoreINTEL,
    ]
    .iter()
    .any(|&d| d as u32 == kind)
}

/// One decorating instruction: (target, member or `u32::MAX`, kind, operand words, where).
struct Applied<'m> {
    target: Id,
    member: u32,
    kind: u32,
    operands: &'m [u32],
    inst: InstIndex,
}

/// Every decoration written directly by OpDecorate* / OpMemberDecorate* instructions, in
/// module order (groups are checked as instructions of their own).
fn applied<'m>(ctx: &Ctx<'m>) -> Vec<Applied<'m>> {
    let mut out = Vec::new();
    for inst in ctx.m.instructions() {
        let words = inst.words();
        let (target, member, kind, rest) = match inst.opcode() {
            Some(Op::Decorate | Op::DecorateId | Op::DecorateString) => match words {
                [_, t, k, rest @ ..] => (*t, u32::MAX, *k, rest),
                _ => continue,
            },
            Some(Op::MemberDecorate | Op::MemberDecorateString) => match words {
                [_, t, m, k, rest @ ..] => (*t, *m, *k, rest),
                _ => continue,
            },
            _ => continue,
        };
        out.push(Applied {
            target: Id(target),
            member,
            kind,
            operands: rest,
            inst: inst.index(),
        });
    }
    out
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let list = applied(ctx);
    // V-DEC-1: at most once per (target, member, kind).
    let mut seen: HashSet<(u32, u32, u32)> = HashSet::new();
    for a in &list {
        if allows_repeats(a.kind) {
            continue;
        }
        if !seen.insert((a.target.0, a.member, a.kind)) {
            let name = D::from_u32(a.kind).map_or_else(|| a.kind.to_string(), |d| format!("{d:?}"));
            let what = if a.member == u32::MAX {
                format!("ID {}", a.target)
            } else {
                format!("member {} of {}", a.member, a.target)
            };
            ctx.err(
                "V-DEC-1",
                a.inst,
                &[a.target],
                format!("{what} is decorated with {name} multiple times, which is not allowed"),
            );
        }
    }
    // V-DEC-12: FuncParamAttr — no attribute twice on one id, Zext and Sext exclusive.
    let mut attrs: HashSet<(u32, u32)> = HashSet::new();
    for a in list.iter().filter(|a| a.kind == D::FuncParamAttr as u32) {
        let Some(&attr) = a.operands.first() else {
            continue;
        };
        if !attrs.insert((a.target.0, attr)) {
            ctx.err(
                "V-DEC-12",
                a.inst,
                &[a.target],
                format!("{} has the same FuncParamAttr twice", a.target),
            );
        }
        // Zext = 0, Sext = 1 (SPIR-V §3.2.18).
        if attr <= 1 && attrs.contains(&(a.target.0, 1 - attr)) {
            ctx.err(
                "V-DEC-12",
                a.inst,
                &[a.target],
                format!("{} has both Zext and Sext FuncParamAttr", a.target),
            );
        }
    }
}
