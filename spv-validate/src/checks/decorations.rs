//! Decorations (V-DEC, SPIR-V §3.2.19, §2.16): no decoration twice on one id or member,
//! decorations on permitted targets only, exclusive pairs (Restrict/Aliased, RowMajor/
//! ColMajor, Block/BufferBlock, interpolation qualifiers), decoration groups, and the
//! decoration-instruction forms (V-DEC-13).

use std::collections::BTreeSet;

use spv_reader::spirv::{Decoration as D, Op, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::checks::repeats::hash_words;
use crate::ctx::{Ctx, Index};
use crate::scratch::Scratch;

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
fn applied<'m>(ctx: &Ctx<'m>) -> impl Iterator<Item = Applied<'m>> + use<'m> {
    let ix = ctx.ix;
    ix.annotations().filter_map(|inst| {
        let words = inst.words();
        let (target, member, kind, rest) = match inst.opcode() {
            Some(Op::Decorate | Op::DecorateId | Op::DecorateString) => match words {
                [_, t, k, rest @ ..] => (*t, u32::MAX, *k, rest),
                _ => return None,
            },
            Some(Op::MemberDecorate | Op::MemberDecorateString) => match words {
                [_, t, m, k, rest @ ..] => (*t, *m, *k, rest),
                _ => return None,
            },
            _ => return None,
        };
        Some(Applied {
            target: Id(target),
            member,
            kind,
            operands: rest,
            inst: inst.index(),
        })
    })
}

/// Per-id kind masks for [`surely_distinct`], stamped with a generation per module so that
/// the table is not cleared between modules (kept in `crate::scratch::Scratch`).
#[derive(Default)]
pub(crate) struct KindMasks {
    entries: Vec<KindEntry>,
    generation: u32,
}

/// One target's decorations seen so far in the module of [`KindMasks::generation`]: the
/// kinds (modulo 64) of its non-member decorations, the last member its member decorations
/// named and that member's kinds. A stamp other than the generation means none yet.
#[derive(Clone, Copy, Default)]
struct KindEntry {
    plain_stamp: u32,
    member_stamp: u32,
    member: u32,
    plain_kinds: u64,
    member_kinds: u64,
}

/// Whether no two V-DEC-1 keys (target, member, kind; the decorations that may repeat left
/// out) of the module's OpDecorate* and OpMemberDecorate* instructions are equal, by a
/// quick test that may answer `false` for distinct keys too (then the repeat table decides).
/// Per target it keeps a mask of the kinds (modulo 64) of its non-member decorations, and of
/// its member decorations the member named last with that member's kinds: writers emit a
/// struct's member decorations member by member in increasing order, so that equal member
/// keys meet while their member is the last one; a member number going down answers `false`.
/// The masks are chosen without branches, so that the order of targets costs no mispredicts.
fn surely_distinct(ix: &Index<'_>, masks: &mut KindMasks) -> bool {
    if masks.entries.len() < ix.id_count() {
        masks.entries.resize(ix.id_count(), KindEntry::default());
    }
    if masks.generation == u32::MAX {
        masks.entries.fill(KindEntry::default());
        masks.generation = 0;
    }
    masks.generation += 1;
    let now = masks.generation;
    let mut distinct = true;
    for op in [Op::Decorate, Op::DecorateId, Op::DecorateString] {
        for inst in ix.with_op(op) {
            let &[_, target, kind, ..] = inst.words() else {
                continue;
            };
            if allows_repeats(kind) {
                continue;
            }
            let Some(e) = masks.entries.get_mut(target as usize) else {
                return false;
            };
            let bit = 1u64 << (kind % 64);
            let kinds = if e.plain_stamp == now {
                e.plain_kinds
            } else {
                0
            };
            distinct &= kinds & bit == 0;
            e.plain_stamp = now;
            e.plain_kinds = kinds | bit;
        }
    }
    for op in [Op::MemberDecorate, Op::MemberDecorateString] {
        for inst in ix.with_op(op) {
            let &[_, target, member, kind, ..] = inst.words() else {
                continue;
            };
            if allows_repeats(kind) {
                continue;
            }
            // The table compares member u32::MAX with the non-member decorations.
            if member == u32::MAX {
                return false;
            }
            let Some(e) = masks.entries.get_mut(target as usize) else {
                return false;
            };
            let bit = 1u64 << (kind % 64);
            let seen = e.member_stamp == now;
            distinct &= !(seen & (member < e.member));
            let kinds = if seen & (member == e.member) {
                e.member_kinds
            } else {
                0
            };
            distinct &= kinds & bit == 0;
            e.member_stamp = now;
            e.member = member;
            e.member_kinds = kinds | bit;
        }
    }
    distinct
}

/// Runs the pass; uses the keys, flags, kind masks and repeat table of `scratch`.
pub(crate) fn check(ctx: &mut Ctx<'_>, scratch: &mut Scratch) {
    // V-DEC-1: at most once per (target, member, kind). Each key is compared with the
    // earlier ones of equal hash; all but the first of each group are reported, in list
    // order.
    let Scratch {
        keys,
        flags: repeated,
        repeats,
        kind_masks,
        ..
    } = scratch;
    repeated.clear();
    if !surely_distinct(ctx.ix, kind_masks) {
        keys.clear();
        let mut count = 0;
        for (k, a) in applied(ctx).enumerate() {
            count += 1;
            if !allows_repeats(a.kind) {
                keys.push((a.target.0, a.member, a.kind, k));
            }
        }
        repeated.resize(count, false);
        repeats.reset(keys.len());
        for (j, &(target, member, kind, at)) in keys.iter().enumerate() {
            let same = |i: u32| {
                keys.get(i as usize)
                    .is_some_and(|&(t, m, d, _)| (t, m, d) == (target, member, kind))
            };
            if repeats
                .first_or_record(hash_words([target, member, kind]), j as u32, same)
                .is_some()
                && let Some(r) = repeated.get_mut(at)
            {
                *r = true;
            }
        }
    }
    // Empty when the keys are surely distinct: nothing is reported.
    for (a, _) in applied(ctx).zip(repeated.iter()).filter(|(_, r)| **r) {
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
    for a in applied(ctx) {
        check_target(ctx, &a);
    }
    if ctx.env.is_vulkan() && ctx.shader {
        check_locations(ctx);
    }
    // V-DEC-12: FuncParamAttr — no attribute twice on one id, Zext and Sext exclusive.
    let mut attrs: BTreeSet<(u32, u32)> = BTreeSet::new();
    for a in applied(ctx).filter(|a| a.kind == D::FuncParamAttr as u32) {
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

/// Decorations that only apply to structure members (SPIR-V §3.2.19).
fn member_only(d: D) -> bool {
    // Offset may also decorate variables (transform feedback), so it is not listed.
    matches!(d, D::MatrixStride | D::RowMajor | D::ColMajor)
}

/// Decorations that never apply to structure members.
fn not_member(d: D) -> bool {
    matches!(
        d,
        D::SpecId
            | D::Block
            | D::BufferBlock
            | D::ArrayStride
            | D::GLSLShared
            | D::GLSLPacked
            | D::CPacked
            | D::Restrict
            | D::Aliased
            | D::Constant
            | D::Uniform
            | D::UniformId
            | D::SaturatedConversion
            | D::Index
            | D::Binding
            | D::DescriptorSet
            | D::FuncParamAttr
            | D::FPRoundingMode
            | D::FPFastMathMode
            | D::LinkageAttributes
            | D::NoContraction
            | D::InputAttachmentIndex
            | D::Alignment
            | D::MaxByteOffset
            | D::AlignmentId
            | D::MaxByteOffsetId
            | D::NoSignedWrap
            | D::NoUnsignedWrap
            | D::NonUniform
            | D::RestrictPointer
            | D::AliasedPointer
            | D::CounterBuffer
    )
}

/// The storage class of a variable id, if `id` is an OpVariable.
fn variable_class(ctx: &Ctx<'_>, id: Id) -> Option<u32> {
    let def = ctx.ix.def(id)?;
    (ctx.op_of(def) == Some(Op::Variable))
        .then(|| def.words().get(3).copied())
        .flatten()
}

/// V-DEC-2: the decoration's target kind (SPIR-V §3.2.19 and the Vulkan interface rules).
fn check_target(ctx: &mut Ctx<'_>, a: &Applied<'_>) {
    let Some(d) = D::from_u32(a.kind) else { return };
    let t = a.target;
    let is_member = a.member != u32::MAX;
    if is_member && not_member(d) {
        ctx.err(
            "V-DEC-2",
            a.inst,
            &[t],
            format!("{d:?} cannot be applied to structure members"),
        );
        return;
    }
    if !is_member && member_only(d) {
        ctx.err(
            "V-DEC-2",
            a.inst,
            &[t],
            format!("{d:?} can only be applied to structure members"),
        );
        return;
    }
    if is_member {
        if let Some(Type::Struct { members }) = ctx.ty(t)
            && a.member as usize >= members.len()
        {
            ctx.err(
                "V-DEC-2",
                a.inst,
                &[t],
                format!(
                    "index {} provided in OpMemberDecorate for struct {t} is out of bounds",
                    a.member
                ),
            );
        } else if !matches!(ctx.ty(t), Some(Type::Struct { .. })) {
            ctx.err(
                "V-DEC-2",
                a.inst,
                &[t],
                format!("OpMemberDecorate Structure type {t} is not a struct type"),
            );
        }
        return;
    }
    let def_op = ctx.def_op(t);
    if def_op == Some(Op::DecorationGroup) {
        // A group's decorations are judged where OpGroupDecorate applies them (spirv-val
        // 2025.5 accepts, e.g., Restrict on a group of variables).
        return;
    }
    let is_var = def_op == Some(Op::Variable);
    let fail = |ctx: &mut Ctx<'_>, what: &str| {
        ctx.err(
            "V-DEC-2",
            a.inst,
            &[t],
            format!("{d:?} decoration on target {t} must be {what}"),
        );
    };
    let memory_object = matches!(
        def_op,
        Some(Op::Variable | Op::FunctionParameter | Op::UntypedVariableKHR)
    );
    let wanted = match d {
        D::SpecId => (!matches!(
            def_op,
            Some(Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse)
        ))
        .then_some("a scalar specialization constant"),
        D::Block | D::BufferBlock | D::GLSLShared | D::GLSLPacked | D::CPacked => {
            (!matches!(ctx.ty(t), Some(Type::Struct { .. }))).then_some("a structure type")
        }
        D::ArrayStride => (!matches!(
            ctx.ty(t),
            Some(
                Type::Array { .. }
                    | Type::RuntimeArray { .. }
                    | Type::Pointer { .. }
                    | Type::UntypedPointer { .. }
            )
        ))
        .then_some("an array or pointer type"),
        D::Restrict
        | D::Aliased
        | D::RestrictPointer
        | D::AliasedPointer
        | D::Volatile
        | D::Coherent
        | D::NonWritable
        | D::NonReadable
        | D::Flat
        | D::NoPerspective
        | D::Centroid
        | D::Sample
        | D::Patch => (!memory_object).then_some("a memory object declaration"),
        D::Invariant => (!is_var).then_some("a variable"),
        _ => None,
    };
    if let Some(what) = wanted {
        fail(ctx, what);
        return;
    }
    match d {
        // WorkgroupSize decorates a constant, every other built-in a variable (spirv-val
        // 2025.5 rejects the other combinations, the deprecated forms of SPIR-V §3.2.20).
        D::BuiltIn => {
            let workgroup_size =
                a.operands.first() == Some(&(spv_reader::spirv::BuiltIn::WorkgroupSize as u32));
            let constant = ctx.m.constant(t).is_some();
            if workgroup_size && !constant {
                fail(ctx, "a constant for WorkgroupSize");
            } else if !workgroup_size && !is_var {
                fail(ctx, "a variable");
            }
        }
        D::Location
        | D::Component
        | D::Index
        | D::Binding
        | D::DescriptorSet
        | D::InputAttachmentIndex => {
            if !is_var {
                fail(ctx, "a variable");
            } else if ctx.env.is_vulkan() {
                let sc = variable_class(ctx, t).and_then(S::from_u32);
                if matches!(d, D::Binding | D::DescriptorSet)
                    && !matches!(sc, Some(S::StorageBuffer | S::Uniform | S::UniformConstant))
                {
                    ctx.err("V-DEC-2", a.inst, &[t], format!("[VUID-StandaloneSpirv-DescriptorSet-06491] {d:?} decoration on target {t} must be in the StorageBuffer, Uniform, or UniformConstant storage class"));
                }
                if matches!(d, D::Location | D::Component)
                    && !matches!(
                        sc,
                        Some(
                            S::Input
                                | S::Output
                                | S::RayPayloadKHR
                                | S::IncomingRayPayloadKHR
                                | S::HitAttributeKHR
                                | S::CallableDataKHR
                                | S::IncomingCallableDataKHR
                                | S::ShaderRecordBufferKHR
                        )
                    )
                {
                    ctx.err("V-DEC-2", a.inst, &[t], "[VUID-StandaloneSpirv-Location-06672] Location decoration must not be applied to this storage class");
                }
            }
        }
        _ => {}
    }
}

/// Whether interface variable `v` (or, for a struct, every member) carries a BuiltIn.
fn is_builtin_variable(ctx: &Ctx<'_>, v: Id) -> bool {
    if ctx.m.decoration(v, D::BuiltIn).is_some() {
        return true;
    }
    let Some(ty) = ctx.type_of(v) else {
        return false;
    };
    let Some((_, mut pointee)) = ctx.pointer(ty) else {
        return false;
    };
    for _ in 0..crate::limits::MAX_TYPE_DEPTH {
        match ctx.ty(pointee) {
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                pointee = *element
            }
            _ => break,
        }
    }
    if ctx.m.decoration(pointee, D::BuiltIn).is_some() {
        return true;
    }
    ctx.m
        .member_decorations(pointee, 0)
        .any(|d| d.kind == D::BuiltIn as u32)
}

/// Vulkan: user-defined Input/Output interface variables carry a Location (on the
/// variable or on every member of its block) — VUID-StandaloneSpirv-Location-04916.
fn check_locations(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let mut problems: Vec<(InstIndex, Id)> = Vec::new();
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    for ep in m.entry_points() {
        let model = ep.model();
        for &v in &ep.interface {
            if !seen.insert(v.0) {
                continue;
            }
            let Some(sc) = variable_class(ctx, v).and_then(S::from_u32) else {
                continue;
            };
            if !matches!(sc, S::Input | S::Output) || is_builtin_variable(ctx, v) {
                continue;
            }
            // Only the graphics stages have located user interfaces.
            use spv_reader::spirv::ExecutionModel as X;
            if !matches!(
                model,
                Some(
                    X::Vertex
                        | X::Fragment
                        | X::TessellationControl
                        | X::TessellationEvaluation
                        | X::Geometry
                )
            ) {
                continue;
            }
            if m.decoration(v, D::Location).is_some() {
                continue;
            }
            let Some(ty) = ctx.type_of(v) else { continue };
            let Some((_, mut pointee)) = ctx.pointer(ty) else {
                continue;
            };
            for _ in 0..crate::limits::MAX_TYPE_DEPTH {
                match ctx.ty(pointee) {
                    Some(Type::Array { element, .. }) => pointee = *element,
                    _ => break,
                }
            }
            let members_located = match ctx.ty(pointee) {
                Some(Type::Struct { members }) => {
                    !members.is_empty()
                        && (0..members.len() as u32).all(|k| {
                            m.member_decorations(pointee, k)
                                .any(|d| d.kind == D::Location as u32)
                        })
                }
                _ => false,
            };
            if !members_located && let Some(def) = ctx.ix.def(v) {
                problems.push((def.index(), v));
            }
        }
    }
    for (at, v) in problems {
        ctx.err(
            "V-DEC-2",
            at,
            &[v],
            "[VUID-StandaloneSpirv-Location-04916] variable must be decorated with a location",
        );
    }
}

#[cfg(test)]
mod tests {
    use spv_reader::rspirv::binary::Assemble;
    use spv_reader::rspirv::dr::{Builder, Operand};
    use spv_reader::spirv::{self, Decoration as D};

    use crate::{Options, validate};

    /// How many V-DEC-1 diagnostics a compute module gets whose storage-buffer struct of two
    /// `uint` members carries the member decorations `members` ((member, kind, value) in
    /// order, after its Block) and whose variable carries `plain` ((kind, operands), in
    /// order).
    fn repeats(members: &[(u32, D, u32)], plain: &[(D, &[u32])]) -> usize {
        let mut b = Builder::new();
        b.capability(spirv::Capability::Shader);
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let void = b.type_void();
        let uint = b.type_int(32, 0);
        let st = b.type_struct([uint, uint]);
        let ptr = b.type_pointer(None, spirv::StorageClass::StorageBuffer, st);
        let var = b.variable(ptr, None, spirv::StorageClass::StorageBuffer, None);
        let fn_ty = b.type_function(void, vec![]);
        let main = b
            .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![]);
        b.execution_mode(main, spirv::ExecutionMode::LocalSize, vec![1, 1, 1]);
        b.decorate(st, D::Block, vec![]);
        for &(m, d, v) in members {
            b.member_decorate(st, m, d, vec![Operand::LiteralBit32(v)]);
        }
        for &(d, v) in plain {
            b.decorate(
                var,
                d,
                v.iter()
                    .map(|&w| Operand::LiteralBit32(w))
                    .collect::<Vec<_>>(),
            );
        }
        let module = spv_reader::read_words(&b.module().assemble()).unwrap();
        match validate(&module, &Options::default()) {
            Ok(_) => 0,
            Err(d) => d.0.iter().filter(|x| x.rule == "V-DEC-1").count(),
        }
    }

    #[test]
    fn repeated_decorations_are_found_in_any_order() {
        let set: [(D, &[u32]); 2] = [(D::DescriptorSet, &[0]), (D::Binding, &[0])];
        let (o0, o1) = ((0, D::Offset, 0), (1, D::Offset, 4));
        // Members in increasing order (the quick test answers) and not (the table does).
        assert_eq!(repeats(&[o0, o1], &set), 0);
        assert_eq!(repeats(&[o1, o0], &set), 0);
        assert_eq!(repeats(&[o0, o1, o1], &set), 1);
        assert_eq!(repeats(&[o1, o0, o1], &set), 1);
        assert_eq!(repeats(&[o0, o1, o0], &set), 1);
        assert_eq!(repeats(&[o0, o0, o1, o1], &set), 2);
        let twice: [(D, &[u32]); 3] = [
            (D::DescriptorSet, &[0]),
            (D::Binding, &[0]),
            (D::DescriptorSet, &[1]),
        ];
        assert_eq!(repeats(&[o0, o1], &twice), 1);
        // Kinds 64 apart (NonWritable 24, BoundSamplerNV 5400) share a mask bit: the table
        // tells them apart; the same kind twice is still found.
        let apart: [(D, &[u32]); 4] = [
            (D::DescriptorSet, &[0]),
            (D::Binding, &[0]),
            (D::NonWritable, &[]),
            (D::BoundSamplerNV, &[]),
        ];
        assert_eq!(repeats(&[o0, o1], &apart), 0);
        let again: [(D, &[u32]); 4] = [
            (D::DescriptorSet, &[0]),
            (D::Binding, &[0]),
            (D::NonWritable, &[]),
            (D::NonWritable, &[]),
        ];
        assert_eq!(repeats(&[o0, o1], &again), 1);
    }
}
