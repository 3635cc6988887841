//! Universal control-flow rules (V-CFG-1…10, V-FN-4, SPIR-V §2.16.1, §3.3.17) and SSA
//! dominance (V-SSA-2, V-SSA-3): branch targets are labels of the same function, the entry
//! block is never a target, blocks appear after their dominators, terminator and merge
//! operands are well-formed, OpPhi has one pair per predecessor with values dominating
//! their parents, and every other use is dominated by its definition.

use spv_reader::spirv::{LoopControl, Op};
use spv_reader::{Id, InstIndex, Type};

use crate::cfg::{FuncCfg, block_of_label, branch_targets};
use crate::ctx::{Ctx, Inst, NONE, Ref};
use crate::limits::MAX_SWITCH_BRANCHES;
use crate::operands::{Kind, decode};

pub(crate) fn check(ctx: &mut Ctx<'_>, cfgs: &[FuncCfg]) {
    // The OpPhi instructions in module order: the functions and their blocks are visited in
    // module order too, so that one cursor hands each block its own.
    let mut phis = ctx.ix.with_op(Op::Phi).peekable();
    for cfg in cfgs {
        check_function(ctx, cfg, &mut phis);
    }
}

/// The rules for the function of `cfg`; `phis` is the cursor over the module's OpPhi
/// instructions, at or before the function's first.
fn check_function<'i, 'm: 'i>(
    ctx: &mut Ctx<'_>,
    cfg: &FuncCfg,
    phis: &mut std::iter::Peekable<impl Iterator<Item = &'i Inst<'m>>>,
) {
    let m = ctx.m;
    let Some(f) = m.functions().get(cfg.func as usize) else {
        return;
    };
    let fi = cfg.func;
    let n = f.blocks.len() as u32;
    // V-CFG-2: the entry block is never a branch target.
    if let Some(&p) = cfg.preds(0).first()
        && let (Some(entry), Some(pred)) = (f.blocks.first(), f.blocks.get(p as usize))
    {
        ctx.err(
            "V-CFG-2",
            pred.terminator,
            &[entry.label, f.id],
            format!(
                "first block {} of function {} is targeted by block {}",
                entry.label, f.id, pred.label
            ),
        );
    }
    for (bi, b) in f.blocks.iter().enumerate() {
        let bi = bi as u32;
        // V-CFG-3: every reachable block appears after its immediate dominator.
        if let Some(&d) = cfg.dom.idom.get(bi as usize)
            && d < n
            && d > bi
            && let Some(dom_block) = f.blocks.get(d as usize)
        {
            ctx.err(
                "V-CFG-3",
                b.label_inst,
                &[b.label, dom_block.label],
                format!(
                    "block {} appears in the binary before its dominator {}",
                    b.label, dom_block.label
                ),
            );
        }
        // V-CFG-1: targets are labels of this function (the CFG's construction noted
        // whether any is not).
        if cfg.stray_targets {
            for label in branch_targets(ctx.ix, b.terminator) {
                if block_of_label(ctx, fi, label).is_none() {
                    let what = if ctx.def_op(label) == Some(Op::Label) {
                        "a label of another function"
                    } else {
                        "not a label"
                    };
                    ctx.err(
                        "V-CFG-1",
                        b.terminator,
                        &[label],
                        format!("branch target {label} is {what}"),
                    );
                }
            }
        }
        if let Some(term) = ctx.ix.inst(b.terminator) {
            check_terminator(ctx, term, f.result_type);
        }
        if let Some(mi) = b.merge
            && let Some(merge) = ctx.ix.inst(mi)
        {
            check_merge(ctx, fi, merge, b.terminator, b.label);
        }
        // In a function of one block every definition of the function is in that block
        // (or is the function or a parameter), so every use is dominated.
        if n > 1 && cfg.is_reachable(bi) {
            check_uses(ctx, cfg, phis, b, bi);
        } else {
            // Only the OpPhi rules apply: the block's OpPhi instructions (wherever they are
            // in it) are all it needs to visit.
            while let Some(phi) = phis.next_if(|p| p.index().0 < b.terminator.0) {
                if phi.index().0 >= b.first.0 {
                    check_phi(ctx, cfg, phi, bi);
                }
            }
        }
    }
}

/// The OpPhi rules and V-SSA-2 for the instructions of block `bi` (reachable, in a
/// function of more than one block), diagnostics in instruction order; `phis` is the
/// cursor over the module's OpPhi instructions, at or before the block's first.
fn check_uses<'i, 'm: 'i>(
    ctx: &mut Ctx<'_>,
    cfg: &FuncCfg,
    phis: &mut std::iter::Peekable<impl Iterator<Item = &'i Inst<'m>>>,
    b: &spv_reader::Block,
    bi: u32,
) {
    // The OpPhi instructions opening the block (where SPIR-V §2.16.1 puts them) refer to
    // values of the predecessors, which need not dominate the block: their rules first, so
    // that the ids the rest of the block refers to can be judged in one look.
    while phis.next_if(|p| p.index().0 < b.first.0).is_some() {}
    let mut rest = b.first.0;
    while let Some(phi) = phis.next_if(|p| p.index().0 == rest && rest < b.terminator.0) {
        check_phi(ctx, cfg, phi, bi);
        rest += 1;
    }
    // Usually every id the rest of the block (terminator included) refers to is
    // dominated: then only the OpPhi rules of phis further in remain.
    let dominated_all = if cfg.dom.is_set_form() {
        // Reachable blocks other than the entry that do not dominate this one: only an id
        // defined in one of them can be undominated. The merge instruction and the
        // terminator name labels of such blocks: there labels are let through first.
        let undominated = cfg.reached & !cfg.dom.dominators(bi) & !1;
        let body_end = b.merge.map_or(b.terminator.0, |m| m.0.min(b.terminator.0));
        refs_dominated_by_mask::<false>(ctx, cfg, ctx.ix.refs_in(rest..body_end), bi, undominated)
            && refs_dominated_by_mask::<true>(
                ctx,
                cfg,
                ctx.ix.refs_in(body_end..b.terminator.0 + 1),
                bi,
                undominated,
            )
    } else {
        refs_dominated(ctx, cfg, ctx.ix.refs_in(rest..b.terminator.0 + 1), bi)
    };
    if dominated_all {
        while let Some(phi) = phis.next_if(|p| p.index().0 < b.terminator.0) {
            check_phi(ctx, cfg, phi, bi);
        }
        return;
    }
    for inst in ctx.ix.insts_in(rest..b.terminator.0) {
        if ctx.op_of(inst) == Some(Op::Phi) {
            check_phi(ctx, cfg, inst, bi);
        } else if !dominated(ctx, cfg, inst, bi) {
            check_dominance(ctx, cfg, inst, bi);
        }
    }
    if let Some(term) = ctx.ix.inst(b.terminator)
        && !dominated(ctx, cfg, term, bi)
    {
        check_dominance(ctx, cfg, term, bi);
    }
}

/// V-CFG-5, V-CFG-6, V-FN-4: terminator operands.
fn check_terminator(ctx: &mut Ctx<'_>, term: &Inst<'_>, return_type: Id) {
    let i = term.index();
    let words = term.words();
    match ctx.op_of(term) {
        Some(Op::BranchConditional) => {
            let cond = Id(words.get(1).copied().unwrap_or(0));
            if !ctx.type_of(cond).is_some_and(|t| ctx.is_bool_scalar(t)) {
                ctx.err(
                    "V-CFG-5",
                    i,
                    &[cond],
                    "Condition operand for OpBranchConditional must be of boolean type",
                );
            }
            if ctx.at_least(6) && words.get(2).is_some() && words.get(2) == words.get(3) {
                ctx.err(
                    "V-CFG-5",
                    i,
                    &[],
                    "In SPIR-V 1.6 or later, True Label and False Label must be different labels",
                );
            }
            match words.get(4..) {
                Some([]) | None => {}
                Some([a, b]) => {
                    if *a == 0 && *b == 0 {
                        ctx.err(
                            "V-CFG-5",
                            i,
                            &[],
                            "at least one branch weight of OpBranchConditional must be non-zero",
                        );
                    } else if a.checked_add(*b).is_none() {
                        ctx.err(
                            "V-CFG-5",
                            i,
                            &[],
                            "the sum of the branch weights of OpBranchConditional must fit in \
                             32 bits",
                        );
                    }
                }
                Some(_) => ctx.err(
                    "V-CFG-5",
                    i,
                    &[],
                    "OpBranchConditional requires either 3 or 5 parameters",
                ),
            }
        }
        Some(Op::Switch) => check_switch(ctx, term),
        Some(Op::Return) if !matches!(ctx.ty(return_type), Some(Type::Void)) => {
            ctx.err(
                "V-FN-4",
                i,
                &[],
                "OpReturn can only be called from a function with void return type",
            );
        }
        Some(Op::ReturnValue) => {
            let value = Id(words.get(1).copied().unwrap_or(0));
            let ty = ctx.type_of(value);
            if matches!(ctx.ty(return_type), Some(Type::Void)) {
                ctx.err(
                    "V-FN-4",
                    i,
                    &[value],
                    "OpReturnValue is not allowed in a function that returns void",
                );
            } else if ty.is_some_and(|t| matches!(ctx.ty(t), Some(Type::Void))) {
                ctx.err(
                    "V-DATA-4",
                    i,
                    &[value],
                    "OpReturnValue value's type cannot be void",
                );
            } else if ty != Some(return_type) {
                ctx.err(
                    "V-FN-4",
                    i,
                    &[value],
                    format!(
                        "OpReturnValue Value {value}'s type does not match the function's return \
                         type {return_type}"
                    ),
                );
            } else if let Some(t) = ty
                && ctx.is_pointer(t)
                && ctx.addressing == 0
                && !ctx.has_cap(spv_reader::spirv::Capability::VariablePointersStorageBuffer)
            {
                ctx.err(
                    "V-PTR-7",
                    i,
                    &[value],
                    "OpReturnValue value's type is a pointer, which requires VariablePointers in \
                     the Logical addressing model",
                );
            }
        }
        _ => {}
    }
}

/// V-CFG-6: OpSwitch selector, labels and case literals.
fn check_switch(ctx: &mut Ctx<'_>, term: &Inst<'_>) {
    let i = term.index();
    let words = term.words();
    let selector = Id(words.get(1).copied().unwrap_or(0));
    if !ctx.type_of(selector).is_some_and(|t| ctx.is_int_scalar(t)) {
        ctx.err("V-CFG-6", i, &[selector], "Selector type must be OpTypeInt");
        return;
    }
    // The case literals, as wide as the selector; the operand check decoded them before.
    let mut ops = Vec::new();
    if ctx.m.inst(i).is_none_or(|t| decode(t, &mut ops).is_err()) {
        return;
    }
    let mut literals: Vec<&[u32]> = ops
        .iter()
        .filter(|o| o.kind == Kind::Literal)
        .map(|op| {
            let start = usize::from(op.word);
            words.get(start..start + usize::from(op.len)).unwrap_or(&[])
        })
        .collect();
    let pairs = literals.len();
    literals.sort_unstable();
    literals.dedup();
    // One diagnostic per literal that repeats an earlier one.
    for _ in literals.len()..pairs {
        ctx.err("V-CFG-6", i, &[], "OpSwitch has duplicate case literals");
    }
    if pairs > MAX_SWITCH_BRANCHES {
        ctx.err(
            "V-LIM-1",
            i,
            &[],
            format!("number of (literal, label) pairs in OpSwitch ({pairs}) exceeds the limit ({MAX_SWITCH_BRANCHES})"),
        );
    }
}

/// V-CFG-8, V-CFG-9: the merge instruction's terminator and operands.
fn check_merge(ctx: &mut Ctx<'_>, fi: u32, merge: &Inst<'_>, term: InstIndex, header: Id) {
    let i = merge.index();
    let words = merge.words();
    let term_op = ctx.ix.inst(term).and_then(|t| t.opcode());
    let is_loop = ctx.op_of(merge) == Some(Op::LoopMerge);
    let term_ok = if is_loop {
        matches!(term_op, Some(Op::Branch | Op::BranchConditional))
    } else {
        matches!(term_op, Some(Op::BranchConditional | Op::Switch))
    };
    let rule = if is_loop { "V-CFG-8" } else { "V-CFG-9" };
    if !term_ok {
        ctx.err(
            rule,
            i,
            &[],
            if is_loop {
                "OpLoopMerge must immediately precede either an OpBranch or OpBranchConditional \
                 instruction"
            } else {
                "OpSelectionMerge must immediately precede either an OpBranchConditional or \
                 OpSwitch instruction"
            },
        );
    }
    let targets = if is_loop { 2 } else { 1 };
    for k in 1..=targets {
        let label = Id(words.get(k).copied().unwrap_or(0));
        if block_of_label(ctx, fi, label).is_none() {
            ctx.err(
                rule,
                i,
                &[label],
                format!("merge operand {label} is not a label of this function"),
            );
        } else if label == header && k == 1 {
            ctx.err(
                rule,
                i,
                &[label],
                "Merge Block may not be the block containing the merge instruction",
            );
        }
    }
    if is_loop {
        if words.get(1) == words.get(2) {
            ctx.err(
                "V-SCF-7",
                i,
                &[],
                "Merge Block may not be the Continue Target",
            );
        }
        let control = words.get(3).copied().unwrap_or(0);
        let has = |bit: LoopControl| control & bit.bits() != 0;
        if has(LoopControl::UNROLL) && has(LoopControl::DONT_UNROLL) {
            ctx.err(
                "V-CFG-8",
                i,
                &[],
                "Unroll and DontUnroll loop controls must not both be specified",
            );
        }
        if has(LoopControl::DONT_UNROLL)
            && (has(LoopControl::PEEL_COUNT) || has(LoopControl::PARTIAL_COUNT))
        {
            ctx.err(
                "V-CFG-8",
                i,
                &[],
                "PeelCount and PartialCount loop controls must not be specified with DontUnroll",
            );
        }
        if has(LoopControl::DEPENDENCY_INFINITE) && has(LoopControl::DEPENDENCY_LENGTH) {
            ctx.err(
                "V-CFG-8",
                i,
                &[],
                "DependencyInfinite and DependencyLength loop controls must not both be specified",
            );
        }
        let min_version = [
            (LoopControl::DEPENDENCY_INFINITE, 1u8),
            (LoopControl::DEPENDENCY_LENGTH, 1),
            (LoopControl::MIN_ITERATIONS, 4),
            (LoopControl::MAX_ITERATIONS, 4),
            (LoopControl::ITERATION_MULTIPLE, 4),
            (LoopControl::PEEL_COUNT, 4),
            (LoopControl::PARTIAL_COUNT, 4),
        ];
        for (bit, v) in min_version {
            if has(bit) && !ctx.at_least(v) {
                ctx.err(
                    "V-CAP-2",
                    i,
                    &[],
                    format!("loop control {bit:?} requires SPIR-V version 1.{v} or later"),
                );
            }
        }
        if has(LoopControl::ITERATION_MULTIPLE) {
            // Parameters follow in bit order: DependencyLength, MinIterations, MaxIterations.
            let before = [
                LoopControl::DEPENDENCY_LENGTH,
                LoopControl::MIN_ITERATIONS,
                LoopControl::MAX_ITERATIONS,
            ]
            .iter()
            .filter(|&&b| has(b))
            .count();
            if words.get(4 + before) == Some(&0) {
                ctx.err(
                    "V-CFG-8",
                    i,
                    &[],
                    "IterationMultiple loop control operand must be greater than zero",
                );
            }
        }
    }
}

/// V-CFG-7, V-SSA-3, V-DATA-1, V-DATA-4: OpPhi.
fn check_phi(ctx: &mut Ctx<'_>, cfg: &FuncCfg, phi: &Inst<'_>, bi: u32) {
    let i = phi.index();
    let words = phi.words();
    let ty = phi.result_type().unwrap_or(Id(0));
    match ctx.ty(ty) {
        Some(Type::Void) => {
            ctx.err("V-DATA-4", i, &[ty], "OpPhi must not have void result type");
            return;
        }
        Some(Type::Image { .. } | Type::Sampler | Type::SampledImage { .. }) if ctx.shader => {
            ctx.err("V-DATA-1", i, &[ty], "result type of OpPhi cannot be an image, sampler or sampled image in a Shader module");
        }
        _ => {}
    }
    if ctx.is_pointer(ty)
        && ctx.addressing == 0
        && !ctx.has_cap(spv_reader::spirv::Capability::VariablePointersStorageBuffer)
    {
        ctx.err("V-PTR-3", i, &[ty], "using pointers with OpPhi requires capability VariablePointers or VariablePointersStorageBuffer");
    }
    let pairs = words.get(3..).unwrap_or(&[]);
    if pairs.len() % 2 != 0 {
        ctx.err(
            "V-CFG-7",
            i,
            &[],
            "OpPhi does not have an equal number of incoming values and basic blocks",
        );
        return;
    }
    let preds = cfg.preds(bi);
    if pairs.len() / 2 != preds.len() {
        ctx.err(
            "V-CFG-7",
            i,
            &[],
            format!(
                "OpPhi's number of incoming blocks ({}) does not match block's predecessor count ({})",
                pairs.len() / 2,
                preds.len()
            ),
        );
    }
    // A merge block may have thousands of predecessors (one per case of a long switch), and
    // both the predecessor test and the repeated-parent test below scan a list per pair; past
    // a few pairs they use per-block marks instead, so an OpPhi costs time linear in its pairs.
    let mut marks = (pairs.len() / 2 > PHI_SCAN_PAIRS).then(|| PhiMarks::new(cfg, preds));
    for (k, pair) in pairs.chunks_exact(2).enumerate() {
        let (value, parent) = match pair {
            &[v, p] => (Id(v), Id(p)),
            _ => continue,
        };
        if ctx.type_of(value) != Some(ty) {
            ctx.err(
                "V-CFG-7",
                i,
                &[value],
                format!("OpPhi's result type {ty} does not match incoming value {value}'s type"),
            );
        }
        let Some(pb) = block_of_label(ctx, cfg.func, parent) else {
            ctx.err(
                "V-CFG-7",
                i,
                &[parent],
                format!("OpPhi's incoming basic block {parent} is not an OpLabel of this function"),
            );
            continue;
        };
        let is_pred = match &marks {
            Some(marks) => marks.is_pred(pb),
            None => preds.contains(&pb),
        };
        if !is_pred {
            ctx.err(
                "V-CFG-7",
                i,
                &[parent],
                format!("OpPhi's incoming basic block {parent} is not a predecessor of its block"),
            );
        }
        // An earlier pair names the same block exactly when it names the same label (each
        // block has one label, and a label that resolved here resolved there too, so it was
        // marked at this point of the loop).
        let repeated = match &mut marks {
            Some(marks) => marks.note_parent(pb),
            None => pairs
                .chunks_exact(2)
                .take(k)
                .any(|earlier| earlier.get(1) == Some(&parent.0)),
        };
        if repeated {
            ctx.err(
                "V-CFG-7",
                i,
                &[parent],
                format!("OpPhi references incoming basic block {parent} multiple times"),
            );
        }
        // V-SSA-3: the value's definition dominates the parent (when the parent is reachable).
        if cfg.is_reachable(pb)
            && cfg.is_reachable(bi)
            && let Some((vf, vb)) = ctx.def_block(value)
            && vf == cfg.func
            && cfg.is_reachable(vb)
            && !cfg.dom.dominates(vb, pb)
        {
            ctx.err(
                "V-SSA-3",
                i,
                &[value, parent],
                format!("in OpPhi, ID {value}'s definition does not dominate its parent {parent}"),
            );
        }
    }
}

/// Incoming pairs up to which [`check_phi`] scans the predecessor list and the earlier pairs
/// (cheaper than making marks for the few pairs most phis have).
const PHI_SCAN_PAIRS: usize = 16;

/// Per-block facts for the pairs of one OpPhi with many of them: whether a block is a
/// predecessor of the phi's block, and whether an earlier pair named it.
struct PhiMarks {
    marks: Vec<u8>,
}

impl PhiMarks {
    const PRED: u8 = 1;
    const PARENT: u8 = 2;

    /// Marks for the blocks of `cfg`'s function, with `preds` marked as predecessors.
    fn new(cfg: &FuncCfg, preds: &[u32]) -> PhiMarks {
        // One byte per block of the function: bounded by the module's size.
        let mut marks = vec![0u8; cfg.reachable.len()];
        for &p in preds {
            if let Some(mark) = marks.get_mut(p as usize) {
                *mark |= Self::PRED;
            }
        }
        PhiMarks { marks }
    }

    /// Whether block `b` is a predecessor of the phi's block.
    fn is_pred(&self, b: u32) -> bool {
        self.marks
            .get(b as usize)
            .is_some_and(|&mark| mark & Self::PRED != 0)
    }

    /// Notes that a pair names block `b`; whether an earlier pair named it already.
    fn note_parent(&mut self, b: u32) -> bool {
        self.marks.get_mut(b as usize).is_some_and(|mark| {
            let seen = *mark & Self::PARENT != 0;
            *mark |= Self::PARENT;
            seen
        })
    }
}

/// Whether [`check_dominance`] would find nothing to report for `inst` in block `bi`.
#[inline]
fn dominated(ctx: &Ctx<'_>, cfg: &FuncCfg, inst: &Inst<'_>, bi: u32) -> bool {
    refs_dominated(ctx, cfg, ctx.ix.refs_of(inst), bi)
}

/// [`dominated`] for the ids `refs` (of instructions in block `bi`, which is reachable).
///
/// Undefined, a label, defined outside the function or outside any block (a parameter), in
/// block `bi` itself or in the entry block (block 0, which dominates every block it
/// reaches) is dominated. Only the others (definitions in other blocks) ask the dominator
/// tree. The compiler splits the first test into a branch per condition, which mispredict
/// as ids of each kind alternate: functions of at most 64 blocks take
/// [`refs_dominated_by_mask`] instead.
fn refs_dominated(ctx: &Ctx<'_>, cfg: &FuncCfg, refs: &[Ref], bi: u32) -> bool {
    refs.iter().all(|r| {
        ctx.ix.id(r.id).is_none_or(|def| {
            let plain = (def.func != cfg.func)
                | (def.block == bi)
                // Block 0 or NONE (u32::MAX): the entry block or no block.
                | (def.block.wrapping_add(1) <= 1)
                | def.is(Op::Label);
            plain
                || r.kind == Kind::ResultType
                || !cfg.is_reachable(def.block)
                || cfg.dom.dominates(def.block, bi)
        })
    })
}

/// [`refs_dominated`] in a function of at most 64 blocks, given the blocks whose
/// definitions may not dominate block `bi` as bits: one bit test per id, without the
/// branches on the kind of definition that mispredict; the few ids defined in such a block
/// take the full test ([`refs_dominated`]). With `LABELS` (for merge instructions and
/// terminators, which name successors' labels) a label is let through first.
fn refs_dominated_by_mask<const LABELS: bool>(
    ctx: &Ctx<'_>,
    cfg: &FuncCfg,
    refs: &[Ref],
    bi: u32,
    undominated: u64,
) -> bool {
    refs.iter().all(|r| {
        let Some(def) = ctx.ix.id(r.id) else {
            return true;
        };
        // The shift takes the block modulo 64: ids outside blocks (NONE) test bit 63, and
        // any id whose bit is set gets the full test, which decides.
        undominated.wrapping_shr(def.block) & 1 == 0
            || (LABELS && def.is(Op::Label))
            || refs_dominated(ctx, cfg, std::slice::from_ref(r), bi)
    })
}

/// V-SSA-2: a definition in another block of the function dominates this use.
fn check_dominance(ctx: &mut Ctx<'_>, cfg: &FuncCfg, inst: &Inst<'_>, bi: u32) {
    let mut bad: Vec<(Id, u32)> = Vec::new();
    for r in ctx.ix.refs_of(inst) {
        if r.kind == Kind::ResultType {
            continue;
        }
        // One look at the id: its definition's opcode, function and block.
        let Some(def) = ctx.ix.id(r.id) else {
            continue;
        };
        let (df, db) = (def.func, def.block);
        if !def.is(Op::Label)
            && df != NONE
            && db != NONE
            && df == cfg.func
            && db != bi
            && cfg.is_reachable(db)
            && !cfg.dom.dominates(db, bi)
        {
            bad.push((r.id, db));
        }
    }
    let m = ctx.m;
    let f = m.functions().get(cfg.func as usize);
    for (id, db) in bad {
        let label = |b: u32| {
            f.and_then(|f| f.blocks.get(b as usize))
                .map_or(Id(0), |b| b.label)
        };
        ctx.err(
            "V-SSA-2",
            inst.index(),
            &[id],
            format!(
                "ID {id} defined in block {} does not dominate its use in block {}",
                label(db),
                label(bi)
            ),
        );
    }
}
