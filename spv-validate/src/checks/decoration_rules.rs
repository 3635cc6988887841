//! Decoration rules that relate several decorations or instructions (SPIR-V §3.2.19,
//! §2.16.2, §3.3.3): more V-DEC-2 targets (RelaxedPrecision not on types; Component,
//! Invariant and NonWritable only on the variables they describe), V-DEC-3 (not both Restrict and Aliased, nor RestrictPointer and
//! AliasedPointer), V-DEC-4 (not both RowMajor and ColMajor on a member), V-DEC-9 (in
//! shaders, FPRoundingMode only on OpFConvert whose every use stores it into 16-bit float
//! memory of an interface or buffer storage class) and V-LAY-11 (a decoration group is named
//! only by OpName, OpDecorate, OpDecorateId, OpGroupDecorate and OpGroupMemberDecorate, and
//! never as a target of OpGroupDecorate/OpGroupMemberDecorate).
//!
//! Not enforced, because spirv-val 2025.5 accepts modules breaking them: V-DEC-8 (at most one
//! interpolation and one auxiliary decoration per object), V-DEC-10 (StorageBuffer beside
//! Uniform BufferBlock), V-DEC-11 (equal XfbStride per XfbBuffer), V-DEC-14 (the decorations
//! per target; V-DEC-1 already bounds them by the decorations that may repeat), and
//! V-LAY-11's ordering part (an OpDecorationGroup after the decorations that target it).

use std::collections::{HashMap, HashSet};

use spv_reader::spirv::{Decoration as D, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;

/// An (id, member) and the (decoration, instruction) pairs written on it.
type Decorated = ((Id, u32), Vec<(u32, InstIndex)>);

/// The decorations written directly on each (id, member) — `u32::MAX` for none — by
/// OpDecorate* and OpMemberDecorate* instructions, in module order. [impl] spirv-val 2025.5
/// judges the exclusive pairs only among these: a group's Restrict beside a direct Aliased
/// is accepted.
fn direct_decorations(ctx: &Ctx<'_>) -> Vec<Decorated> {
    let mut index: HashMap<(u32, u32), usize> = HashMap::new();
    let mut out: Vec<Decorated> = Vec::new();
    for inst in ctx.ix.annotations().copied() {
        let (target, member, kind) = match (ctx.reader_op(inst), inst.words()) {
            (Some(Op::Decorate | Op::DecorateId | Op::DecorateString), [_, t, k, ..]) => {
                (*t, u32::MAX, *k)
            }
            (Some(Op::MemberDecorate | Op::MemberDecorateString), [_, t, m, k, ..]) => (*t, *m, *k),
            _ => continue,
        };
        let slot = *index.entry((target, member)).or_insert_with(|| {
            out.push(((Id(target), member), Vec::new()));
            out.len() - 1
        });
        if let Some((_, kinds)) = out.get_mut(slot) {
            kinds.push((kind, inst.index()));
        }
    }
    out
}

/// The pairs of decorations that may not be written on the same (id, member).
const EXCLUSIVE: [(D, D, &str); 3] = [
    (D::Restrict, D::Aliased, "V-DEC-3"),
    (D::RestrictPointer, D::AliasedPointer, "V-DEC-3"),
    (D::RowMajor, D::ColMajor, "V-DEC-4"),
];

/// Whether both decorations of some [`EXCLUSIVE`] pair are written somewhere in the module:
/// unless they are, no (id, member) can have both, and [`direct_decorations`] need not be
/// gathered.
fn exclusive_pair_written(ctx: &Ctx<'_>) -> bool {
    let mut written = 0u8;
    for inst in ctx.ix.annotations() {
        let kind = match (inst.opcode(), inst.words()) {
            (Some(Op::Decorate | Op::DecorateId | Op::DecorateString), [_, _, k, ..])
            | (Some(Op::MemberDecorate | Op::MemberDecorateString), [_, _, _, k, ..]) => *k,
            _ => continue,
        };
        for (pair, (a, b, _)) in EXCLUSIVE.iter().enumerate() {
            if kind == *a as u32 {
                written |= 1 << (2 * pair);
            } else if kind == *b as u32 {
                written |= 2 << (2 * pair);
            }
        }
    }
    (0..EXCLUSIVE.len()).any(|pair| (written >> (2 * pair)) & 3 == 3)
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(&'static str, InstIndex, Id, String)> = Vec::new();
    let decorated = if exclusive_pair_written(ctx) {
        direct_decorations(ctx)
    } else {
        Vec::new()
    };
    for ((target, member), kinds) in decorated {
        let has = |d: D| kinds.iter().find(|(k, _)| *k == d as u32).map(|&(_, i)| i);
        for (a, b, rule) in EXCLUSIVE {
            if let (Some(_), Some(at)) = (has(a), has(b)) {
                let what = if member == u32::MAX {
                    format!("{target}")
                } else {
                    format!("member {member} of {target}")
                };
                problems.push((
                    rule,
                    at,
                    target,
                    format!("{what} is decorated with both {a:?} and {b:?}, which is not allowed"),
                ));
            }
        }
    }
    check_targets(ctx, &mut problems);
    if ctx.shader {
        check_rounding_modes(ctx, &mut problems);
    }
    check_group_uses(ctx, &mut problems);
    for (rule, at, id, message) in problems {
        ctx.err(rule, at, &[id], message);
    }
}

/// V-DEC-2 cases the target pass does not judge (as spirv-val 2025.5 judges them): no
/// RelaxedPrecision on a type; Component only on Input or Output variables; under Vulkan,
/// Invariant only on Input or Output variables (VUID-StandaloneSpirv-Invariant-04677);
/// NonWritable only on a storage image, a uniform block, a storage buffer, or a Private or
/// Function variable.
fn check_targets(ctx: &Ctx<'_>, problems: &mut Vec<(&'static str, InstIndex, Id, String)>) {
    for inst in ctx.ix.annotations() {
        let (Some(Op::Decorate), [_, t, d, ..]) = (inst.opcode(), inst.words()) else {
            continue;
        };
        // Only these decorations have rules here.
        if ![
            D::RelaxedPrecision,
            D::Component,
            D::Invariant,
            D::NonWritable,
        ]
        .iter()
        .any(|&k| k as u32 == *d)
        {
            continue;
        }
        let (t, d) = (Id(*t), D::from_u32(*d));
        let mut fail = |message: String| problems.push(("V-DEC-2", inst.index(), t, message));
        let pointer = ctx.type_of(t).and_then(|ty| ctx.pointer(ty));
        let variable_class = (ctx.def_op(t) == Some(Op::Variable))
            .then_some(pointer.map(|(c, _)| c))
            .flatten();
        let interface = |c: u32| c == S::Input as u32 || c == S::Output as u32;
        match d {
            Some(D::RelaxedPrecision) if ctx.ty(t).is_some() => {
                fail("RelaxedPrecision decoration cannot be applied to a type".into());
            }
            Some(D::Component) if variable_class.is_some_and(|c| !interface(c)) => {
                fail(format!(
                    "target of the Component decoration must be an Input or Output variable ({t} \
                     is not)"
                ));
            }
            Some(D::Invariant)
                if ctx.env.is_vulkan() && variable_class.is_some_and(|c| !interface(c)) =>
            {
                fail(format!(
                    "[VUID-StandaloneSpirv-Invariant-04677] a variable decorated Invariant must \
                     be in the Input or Output storage class in the Vulkan environment ({t} is \
                     not)"
                ));
            }
            Some(D::NonWritable) => {
                if let Some((class, pointee)) = pointer
                    && !non_writable_target(ctx, class, pointee)
                {
                    fail(format!(
                        "target of the NonWritable decoration must point to a storage image, a \
                         uniform block, a storage buffer, or a variable in the Private or \
                         Function storage class ({t} does not)"
                    ));
                }
            }
            _ => {}
        }
    }
}

/// Whether a pointer into `class` to `pointee` may be NonWritable (spirv-val 2025.5's list).
fn non_writable_target(ctx: &Ctx<'_>, class: u32, mut pointee: Id) -> bool {
    for _ in 0..crate::limits::MAX_TYPE_DEPTH {
        match ctx.ty(pointee) {
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                pointee = *element
            }
            _ => break,
        }
    }
    match S::from_u32(class) {
        Some(S::StorageBuffer | S::PhysicalStorageBuffer | S::Private | S::Function) => true,
        Some(S::Uniform) => {
            ctx.m.decoration(pointee, D::Block).is_some()
                || ctx.m.decoration(pointee, D::BufferBlock).is_some()
        }
        Some(S::UniformConstant) => match ctx.ty(pointee) {
            Some(Type::Image { sampled, .. }) => *sampled == 2,
            // Tensors and other opaque handles (SPV_ARM_tensors) are left to their rules.
            Some(Type::Other { .. }) => true,
            _ => false,
        },
        _ => false,
    }
}

/// V-DEC-9: FPRoundingMode targets and their uses (shaders).
fn check_rounding_modes(ctx: &Ctx<'_>, problems: &mut Vec<(&'static str, InstIndex, Id, String)>) {
    let mut targets: Vec<(Id, InstIndex)> = Vec::new();
    for inst in ctx.ix.annotations().copied() {
        if let (Some(Op::Decorate), [_, t, d, ..]) = (ctx.reader_op(inst), inst.words())
            && *d == D::FPRoundingMode as u32
        {
            targets.push((Id(*t), inst.index()));
        }
    }
    if targets.is_empty() {
        return;
    }
    let mut convert_targets: HashSet<u32> = HashSet::new();
    for &(t, at) in &targets {
        if ctx.def_op(t) == Some(Op::FConvert) {
            convert_targets.insert(t.0);
        } else {
            problems.push((
                "V-DEC-9",
                at,
                t,
                "FPRoundingMode decoration can be applied only to a width-only conversion \
                 instruction for floating-point object"
                    .to_owned(),
            ));
        }
    }
    for inst in ctx.ix.insts().copied() {
        if ctx.inst_func(inst.index()) == Some(&crate::ctx::NONE) {
            continue;
        }
        for (_, id) in ctx.id_refs(inst) {
            if !convert_targets.contains(&id.0) {
                continue;
            }
            let words = inst.words();
            let is_store_object =
                ctx.reader_op(inst) == Some(Op::Store) && words.get(2) == Some(&id.0);
            let pointer = words
                .get(1)
                .and_then(|&p| ctx.type_of(Id(p)))
                .and_then(|t| ctx.pointer(t));
            let why = if !is_store_object {
                Some("can be applied only to the Object operand of an OpStore")
            } else if !pointer.is_some_and(|(class, _)| {
                [
                    S::StorageBuffer,
                    S::PhysicalStorageBuffer,
                    S::Uniform,
                    S::PushConstant,
                    S::Input,
                    S::Output,
                ]
                .iter()
                .any(|&s| s as u32 == class)
            }) {
                Some(
                    "can be applied only to the Object operand of an OpStore in the \
                     StorageBuffer, PhysicalStorageBuffer, Uniform, PushConstant, Input, or \
                     Output storage classes",
                )
            } else if !pointer
                .is_some_and(|(_, pointee)| ctx.is_float(pointee) && ctx.width(pointee) == Some(16))
            {
                Some(
                    "can be applied only to the Object operand of an OpStore storing through a \
                     pointer to a 16-bit floating-point scalar or vector object",
                )
            } else {
                None
            };
            if let Some(why) = why {
                problems.push((
                    "V-DEC-9",
                    inst.index(),
                    id,
                    format!("FPRoundingMode decoration {why}"),
                ));
            }
        }
    }
}

/// V-LAY-11: where a decoration group's id may appear.
fn check_group_uses(ctx: &Ctx<'_>, problems: &mut Vec<(&'static str, InstIndex, Id, String)>) {
    let groups: HashSet<u32> = ctx
        .ix
        .with_op(Op::DecorationGroup)
        .filter_map(|i| i.result_id())
        .map(|id| id.0)
        .collect();
    if groups.is_empty() {
        return;
    }
    for inst in ctx.ix.insts().copied() {
        let op = ctx.reader_op(inst);
        let words = inst.words();
        match op {
            Some(Op::GroupDecorate | Op::GroupMemberDecorate) => {
                let step = if op == Some(Op::GroupDecorate) { 1 } else { 2 };
                for &t in words.iter().skip(2).step_by(step) {
                    if groups.contains(&t) {
                        problems.push((
                            "V-LAY-11",
                            inst.index(),
                            Id(t),
                            format!(
                                "Op{:?} may not target the decoration group {}",
                                op.unwrap_or(Op::GroupDecorate),
                                Id(t)
                            ),
                        ));
                    }
                }
            }
            Some(Op::Name | Op::Decorate | Op::DecorateId | Op::DecorationGroup) => {}
            _ => {
                if let Some((_, g)) = ctx.id_refs(inst).find(|(_, id)| groups.contains(&id.0)) {
                    problems.push((
                        "V-LAY-11",
                        inst.index(),
                        g,
                        format!(
                            "the decoration group {g} can only be named by OpName, OpGroupDecorate, \
                             OpDecorate, OpDecorateId and OpGroupMemberDecorate"
                        ),
                    ));
                }
            }
        }
    }
}
