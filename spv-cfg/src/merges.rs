//! The structurizer that follows merge instructions (SPIR-V §2.11, `spirv.md` §3.3–3.5).
//!
//! Each construct becomes labels of the labeled form ([`Lab`]):
//!
//! * selection header `x` with merge `m`: `Scope(m){ x; branches }` followed by `m`'s code;
//! * loop header `h` with merge `m` and continue target `c`:
//!   `Scope(m){ Loop(h){ Scope(c){ h; branches }; c's code } }` followed by `m`'s code (no
//!   `Scope(c)` when `c == h`, the single-block loop);
//! * switch header with merge `m`: `Scope(m){ x; Switch{ one arm per case construct } }`,
//!   where a case that falls through to the next case (SPIR-V §2.11.3) wraps its body in a
//!   `Scope` of the next case, whose arm then follows it (C fall-through). A case target that
//!   has phis cannot be entered both directly and by fall-through in IL without running the
//!   direct entry's copies on the fall-through path; such a target (and the rest of its chain)
//!   is placed after the switch instead, behind a `Scope` of its own.
//!
//! A merge block or continue target that no branch reaches gets no label (its code would be
//! dead). A selection merge reached from a single place, when some other path of the
//! selection jumps past it (`if (c) { ..; continue; } merge-code`), is emitted at that place
//! instead of after a `Scope`, which saves an exit flag. A switch with a single target keeps
//! its `Switch` when it is a declared construct (Slang's breakable-block idiom).
//!
//! A branch to a label of an enclosing construct (merge, continue target, loop header, next
//! case) becomes `Br`; a branch to any other block emits that block inline, where the branch
//! is taken. The walk never trusts the merge instructions: whenever a block would have to be
//! emitted twice (the function is not structured the way its merges say), it gives up with a
//! reason and the caller falls back to the general structurizer. So the output is correct by
//! construction for any input; only its shape depends on the merges.
//!
//! Indexing: block indices come from a checked [`Cfg`]; per-switch tables are indexed by
//! positions in the lists they were built from.

use crate::cfg::{BlockIdx, Cfg, Merge, Terminator};
use crate::error::CfgError;
use crate::lab::{Lab, LabArm, LabPool, keep_lab_pool, pooled_seq, splice_jump, take_lab_pool};
use crate::limits::{Budget, MAX_REGION_DEPTH};
use crate::region::Cond;
use crate::walk::{
    CtxKind, LoopLabels, NO_ENTRY, SwitchTarget, WalkTables, keep_walk_tables, loop_header_fault,
    switch_is_jump, take_walk_tables,
};

/// `inner` with `code` (the label's code) spliced in where `inner` jumps to the label, which
/// the caller knows happens from a single place outside `inner`'s loops and switches — or, if
/// that jump is not found after all, `Scope(label){inner}` followed by `code`. The spliced form
/// runs the label's code for exactly the invocations that reached it, as before, and code never
/// moves into a loop (code after a loop stays after it).
fn place_after(mut inner: Vec<Lab>, label: BlockIdx, mut code: Vec<Lab>) -> Vec<Lab> {
    if splice_jump(&mut inner, label.0, &mut code) {
        return inner;
    }
    let mut out = vec![Lab::Scope(label.0, inner)];
    out.append(&mut code);
    out
}

/// The room a new labeled sequence starts with: most hold a block, a branch or two and a jump,
/// but a chain of blocks (each with its edge) often needs more than four, and every growth
/// copies the sequence. Buffers come from the [`LabPool`], so the room is seldom allocated;
/// eight measured cheaper than four or sixteen on the corpus.
const SEQ_CAPACITY: usize = 8;

/// Why the merge-driven walk stopped.
pub(crate) enum Failure {
    /// The merges do not describe the CFG; fall back to the general structurizer.
    Unstructured(String),
    /// A hard error (limits).
    Error(CfgError),
}

/// A [`Failure`], boxed: the walk returns a `Result` from every step, and with a pointer for
/// its error the common `Ok` results fit in registers instead of going through memory.
pub(crate) struct Fail(pub(crate) Box<Failure>);

impl From<CfgError> for Fail {
    #[cold]
    fn from(e: CfgError) -> Fail {
        Fail(Box::new(Failure::Error(e)))
    }
}

impl Fail {
    /// The merges do not describe the CFG, for the reason `why`.
    #[cold]
    fn unstructured(why: String) -> Fail {
        Fail(Box::new(Failure::Unstructured(why)))
    }
}

struct MergeWalk<'a> {
    cfg: &'a Cfg,
    /// The tables and context stack shared with the direct path (see [`WalkTables`]).
    tables: WalkTables,
    depth: usize,
    budget: &'a mut Budget,
    /// Where new sequences come from (see [`LabPool`]).
    pool: LabPool,
}

/// Builds the labeled form from merge instructions, or explains why it cannot.
pub(crate) fn structurize_merges(cfg: &Cfg, budget: &mut Budget) -> Result<Vec<Lab>, Fail> {
    let mut walk = MergeWalk {
        cfg,
        tables: take_walk_tables(cfg),
        depth: 0,
        budget,
        pool: take_lab_pool(),
    };
    let result = walk.run();
    keep_lab_pool(std::mem::take(&mut walk.pool));
    keep_walk_tables(walk.tables);
    result
}

impl MergeWalk<'_> {
    /// Walks the whole function from its entry.
    fn run(&mut self) -> Result<Vec<Lab>, Fail> {
        let cfg = self.cfg;
        let mut out = self.new_seq();
        if cfg.is_target(cfg.entry()) {
            return Err(unstructured("the entry block is a branch target (V-CFG-2)"));
        }
        self.emit(cfg.entry(), &mut out)?;
        if let Some(b) = cfg
            .blocks()
            .find(|b| self.tables.reachable[b.index()] && !self.tables.emitted[b.index()])
        {
            return Err(Fail::unstructured(format!(
                "block {} was never placed",
                cfg.name(b)
            )));
        }
        Ok(out)
    }
}

#[cold]
fn unstructured(why: &str) -> Fail {
    Fail::unstructured(why.to_string())
}

impl MergeWalk<'_> {
    /// An empty labeled sequence with room for [`SEQ_CAPACITY`] items.
    fn new_seq(&mut self) -> Vec<Lab> {
        pooled_seq(&mut self.pool, SEQ_CAPACITY)
    }

    /// A labeled sequence starting with `first`, with room for more.
    fn seq_of(&mut self, first: Lab) -> Vec<Lab> {
        let mut seq = self.new_seq();
        seq.push(first);
        seq
    }

    /// Notes the jumps of `seq` that lie outside its loops and switches as placed at the
    /// current level (a switch case body moved after its switch). Recursion follows the
    /// nesting of `seq`, which the walk bounds by [`MAX_REGION_DEPTH`].
    fn note_moved_jumps(&mut self, seq: &[Lab]) {
        for item in seq {
            match item {
                Lab::Br(l) if self.tables.is_local(BlockIdx(*l)) => {
                    self.tables.local_jumps.push(*l)
                }
                Lab::If(_, a, b) => {
                    self.note_moved_jumps(a);
                    self.note_moved_jumps(b);
                }
                Lab::Scope(_, body) => self.note_moved_jumps(body),
                _ => {}
            }
        }
    }

    fn twice(&self, b: BlockIdx) -> Fail {
        Fail::unstructured(format!(
            "block {} is reached from outside the construct that placed it",
            self.cfg.name(b)
        ))
    }

    /// Emits the edge `from → to`: its phi copies, then `Br` to an enclosing label (returns
    /// `None`) or `Some(to)` when the caller must continue with `to`'s code inline.
    fn jump(
        &mut self,
        from: BlockIdx,
        to: BlockIdx,
        out: &mut Vec<Lab>,
    ) -> Result<Option<BlockIdx>, Fail> {
        if self.cfg.block(to).has_phis {
            out.push(Lab::Edge(from, to));
        }
        if let Some((kind, local)) = self
            .tables
            .lookup(to)
            .map(|(_, c)| (c.kind, self.tables.is_local_entry(c)))
        {
            if let CtxKind::Case(sw) = kind {
                let Some(slot) = self.tables.falls_into.get_mut(sw) else {
                    return Err(Fail::from(CfgError::Internal(
                        "case label of a closed switch",
                    )));
                };
                match *slot {
                    None => *slot = Some(to),
                    Some(other) if other == to => {}
                    Some(_) => {
                        return Err(unstructured("a case falls through to two cases (V-SCF-17)"));
                    }
                }
            }
            out.push(Lab::Br(to.0));
            self.tables.note_jump(to, local);
            return Ok(None);
        }
        if self.tables.emitted[to.index()] {
            return Err(self.twice(to));
        }
        Ok(Some(to))
    }

    /// Appends the code starting at block `x` (and everything placed after it).
    fn emit(&mut self, x: BlockIdx, out: &mut Vec<Lab>) -> Result<(), Fail> {
        if self.depth >= MAX_REGION_DEPTH {
            return Err(Fail::from(CfgError::DepthLimit {
                limit: MAX_REGION_DEPTH,
            }));
        }
        self.depth += 1;
        let r = self.emit_chain(x, out);
        self.depth -= 1;
        r
    }

    fn emit_chain(&mut self, mut x: BlockIdx, out: &mut Vec<Lab>) -> Result<(), Fail> {
        loop {
            self.budget.charge(1)?;
            if !self.tables.reachable[x.index()] {
                // Never taken: labels are only made for reachable blocks and inline targets
                // are successors of emitted (reachable) blocks. Kept as a safe answer.
                out.push(Lab::Unreachable);
                return Ok(());
            }
            if self.tables.emitted[x.index()] {
                return Err(self.twice(x));
            }
            self.tables.emitted[x.index()] = true;
            let data = self.cfg.block(x);
            let next = match data.merge {
                Merge::Loop {
                    merge,
                    continue_target,
                } => self.emit_loop(x, merge, continue_target, out)?,
                Merge::Selection { merge } => self.emit_selection(x, merge, out)?,
                Merge::None => {
                    out.push(Lab::Block(x));
                    self.terminator(x, out)?
                }
            };
            match next {
                Some(t) => x = t,
                None => return Ok(()),
            }
        }
    }

    fn emit_loop(
        &mut self,
        h: BlockIdx,
        m: BlockIdx,
        c: BlockIdx,
        out: &mut Vec<Lab>,
    ) -> Result<Option<BlockIdx>, Fail> {
        if let Some(why) = loop_header_fault(self.cfg, h, m, c) {
            return Err(unstructured(why));
        }
        let LoopLabels { m_new, c_new, nest } =
            self.tables.open_loop(h, m, c).map_err(|b| self.twice(b))?;
        let mut inner = self.seq_of(Lab::Block(h));
        let r = self.terminator(h, &mut inner).and_then(|next| match next {
            Some(t) => self.emit(t, &mut inner),
            None => Ok(()),
        });
        if c_new {
            self.tables.pop_ctx();
        }
        let r = match r {
            Ok(()) if c_new => {
                let mut body = self.seq_of(Lab::Scope(c.0, inner));
                self.emit(c, &mut body).map(|()| body)
            }
            Ok(()) => Ok(inner),
            Err(e) => Err(e),
        };
        self.tables.leave(nest);
        let inner = r?;
        let lp = Lab::Loop(h.0, inner);
        if m_new {
            out.push(Lab::Scope(m.0, self.seq_of(lp)));
            Ok(Some(m))
        } else {
            out.push(lp);
            Ok(None)
        }
    }

    fn emit_selection(
        &mut self,
        x: BlockIdx,
        m: BlockIdx,
        out: &mut Vec<Lab>,
    ) -> Result<Option<BlockIdx>, Fail> {
        if m == x {
            return Err(unstructured("a header is its own merge block (V-SCF-5)"));
        }
        if !self.tables.reachable[m.index()]
            || !self.tables.new_label(m).map_err(|b| self.twice(b))?
        {
            out.push(Lab::Block(x));
            return self.terminator(x, out);
        }
        let start = self.tables.local_jumps.len();
        let before = self.tables.jumps_to(m);
        self.tables.push(m, CtxKind::Scope);
        let mut inner = self.seq_of(Lab::Block(x));
        let r = self.terminator(x, &mut inner).and_then(|next| match next {
            Some(t) => self.emit(t, &mut inner),
            None => Ok(()),
        });
        self.tables.pop_ctx();
        r?;
        let past_merge = self.tables.splices_merge(m, start, before);
        // The merge label closes here: its entries go.
        self.tables.close_local(m, start);
        if past_merge {
            // Only one place reaches the merge and some path jumps past it: the merge code
            // runs at that place; see `place_after`.
            let mut code = self.new_seq();
            self.emit(m, &mut code)?;
            out.extend(place_after(inner, m, code));
            return Ok(None);
        }
        out.push(Lab::Scope(m.0, inner));
        Ok(Some(m))
    }

    /// Emits `x`'s terminator; returns the block whose code continues the sequence, if any.
    fn terminator(&mut self, x: BlockIdx, out: &mut Vec<Lab>) -> Result<Option<BlockIdx>, Fail> {
        // The CFG outlives the walk: borrowing it through a copy of the reference leaves
        // `self` free for the arms (no copy of a switch's cases).
        let cfg = self.cfg;
        match &cfg.block(x).terminator {
            Terminator::Return | Terminator::ReturnValue => out.push(Lab::Return(x)),
            Terminator::Kill | Terminator::TerminateInvocation | Terminator::OtherExit { .. } => {
                out.push(Lab::Kill(x))
            }
            Terminator::Unreachable => out.push(Lab::Unreachable),
            Terminator::Branch(t) => return self.jump(x, *t, out),
            Terminator::BranchConditional {
                true_target,
                false_target,
            } => {
                let (t, f) = (*true_target, *false_target);
                let cond = |value| Cond::Branch { block: x, value };
                if let Some((arm, value, other)) = self.tables.lone_arm(cfg, t, f) {
                    // A jump arm (a label) continues with no code of its own.
                    let mut then_ = self.new_seq();
                    if let Some(next) = self.jump(x, arm, &mut then_)? {
                        self.emit(next, &mut then_)?;
                    }
                    out.push(Lab::If(cond(value), then_, Vec::new()));
                    return self.jump(x, other, out);
                }
                let mut then_ = self.new_seq();
                if let Some(next) = self.jump(x, t, &mut then_)? {
                    self.emit(next, &mut then_)?;
                }
                let mut else_ = self.new_seq();
                if let Some(next) = self.jump(x, f, &mut else_)? {
                    self.emit(next, &mut else_)?;
                }
                out.push(Lab::If(cond(true), then_, else_));
            }
            Terminator::Switch { default, cases, .. } => {
                return self.switch(x, *default, cases, out);
            }
        }
        Ok(None)
    }

    fn switch(
        &mut self,
        x: BlockIdx,
        default: BlockIdx,
        cases: &[(u64, BlockIdx)],
        out: &mut Vec<Lab>,
    ) -> Result<Option<BlockIdx>, Fail> {
        let mut targets = self.tables.switch_targets(default, cases);
        if switch_is_jump(self.cfg, x, default, targets.len()) {
            return self.jump(x, default, out);
        }
        // Case constructs: targets that are not labels of enclosing constructs.
        let mut case_targets = Vec::new();
        // Per case target: its position in `targets`.
        let mut case_position = Vec::new();
        for (position, (t, _, _)) in targets.iter().enumerate() {
            if !self.tables.is_label(*t) {
                if self.tables.emitted[t.index()] {
                    return Err(self.twice(*t));
                }
                case_targets.push(*t);
                case_position.push(position);
            }
        }
        let sw = self.tables.falls_into.len();
        self.tables.falls_into.push(None);
        let base = self.tables.ctx.len();
        // The arms: one level deeper until they are built (a failed walk is abandoned, so the
        // early returns below need not restore the level).
        let nest = self.tables.enter(base, case_targets.len() > 1);
        for &t in &case_targets {
            self.tables.push(t, CtxKind::Case(sw));
        }
        let mut bodies: Vec<(Vec<Lab>, Option<BlockIdx>)> = Vec::new();
        let mut result = Ok(());
        for (i, &target) in case_targets.iter().enumerate() {
            self.tables.ctx[base + i].active = false;
            self.tables.falls_into[sw] = None;
            let mut body = self.new_seq();
            result = self.emit(target, &mut body);
            self.tables.ctx[base + i].active = true;
            if result.is_err() {
                break;
            }
            bodies.push((body, self.tables.falls_into[sw]));
        }
        self.tables.truncate_ctx(base);
        self.tables.falls_into.pop();
        result?;

        // Fall-through chains: next[i] = index of the case that case i falls into. The case
        // index of a block is found through `slot`, which holds it from here until the chains
        // and `target_case` are known (no switch runs in between).
        for (i, t) in case_targets.iter().enumerate() {
            if let Some(s) = self.tables.slot.get_mut(t.index()) {
                // Fits: there are fewer cases than `targets` entries, whose positions fit.
                *s = u32::try_from(i).unwrap_or(NO_ENTRY);
            }
        }
        let slot = &self.tables.slot;
        let index_of = |b: BlockIdx| {
            slot.get(b.index())
                .copied()
                .filter(|&i| i != NO_ENTRY)
                .map(|i| i as usize)
        };
        // The indexing below cannot panic: `bodies` (every case emitted, or we returned
        // above), `next`, `prev` and `moved` hold one entry per case target, and every index
        // kept in them or found in `slot` is below `k` (`usize::MAX`, "none", is tested
        // before use).
        let k = case_targets.len();
        let mut next = vec![usize::MAX; k];
        let mut prev = vec![usize::MAX; k];
        let mut chains = Ok(());
        for (i, (_, f)) in bodies.iter().enumerate() {
            if let Some(j) = f.and_then(index_of) {
                if prev[j] != usize::MAX || j == i {
                    chains = Err(unstructured(
                        "a case is fallen into by two cases (V-SCF-18)",
                    ));
                    break;
                }
                next[i] = j;
                prev[j] = i;
            }
        }
        // Per target: its case index, if it is a case target.
        let target_case: Vec<Option<usize>> = targets.iter().map(|e| index_of(e.0)).collect();
        for t in &case_targets {
            if let Some(s) = self.tables.slot.get_mut(t.index()) {
                *s = NO_ENTRY;
            }
        }
        chains?;
        // A fallen-into case with phis, and every case after it in its chain, moves after
        // the switch; the others stay in place for IL fall-through.
        let mut moved = vec![false; k];
        for i in 0..k {
            if prev[i] != usize::MAX && self.cfg.block(case_targets[i]).has_phis {
                let mut j = i;
                let mut steps = 0;
                while j != usize::MAX && !moved[j] {
                    moved[j] = true;
                    j = next[j];
                    steps += 1;
                    if steps > k {
                        return Err(unstructured("switch cases fall through in a cycle"));
                    }
                }
            }
        }
        let mut bodies: Vec<Option<Vec<Lab>>> = bodies.into_iter().map(|(b, _)| Some(b)).collect();
        let mut arms = Vec::new();
        let mut moved_order = Vec::new();
        // Each target makes exactly one arm, which takes (moves out) the target's literals.
        let take_literals = |targets: &mut Vec<SwitchTarget>, position: usize| {
            targets
                .get_mut(position)
                .map(|e| std::mem::take(&mut e.1))
                .unwrap_or_default()
        };
        for position in 0..targets.len() {
            let Some(&(target, _, is_default)) = targets.get(position) else {
                break;
            };
            let arm = |body: Vec<Lab>, literals: Vec<u64>| LabArm {
                literals,
                default: is_default,
                body,
            };
            let Some(i) = target_case.get(position).copied().flatten() else {
                // A label of an enclosing construct (usually the switch's merge).
                let mut body = Vec::new();
                self.jump(x, target, &mut body)?;
                arms.push(arm(body, take_literals(&mut targets, position)));
                continue;
            };
            if moved[i] {
                // Direct entry: the edge's copies, then a jump to the code after the switch.
                let mut body = Vec::new();
                if self.cfg.block(target).has_phis {
                    body.push(Lab::Edge(x, target));
                }
                body.push(Lab::Br(target.0));
                // Inside the switch, and the case label is closed: never local.
                self.tables.note_jump(target, false);
                arms.push(arm(body, take_literals(&mut targets, position)));
                if prev[i] == usize::MAX || !moved[prev[i]] {
                    // Head of a moved chain segment: record the segment in chain order.
                    let mut j = i;
                    while j != usize::MAX {
                        moved_order.push(j);
                        j = next[j];
                        if moved_order.len() > k {
                            return Err(unstructured("switch cases fall through in a cycle"));
                        }
                    }
                }
                continue;
            }
            if prev[i] != usize::MAX {
                // Placed right after the case that falls into it.
                continue;
            }
            // Head of an in-place chain: the arm and the arms it falls through to.
            let mut j = i;
            let mut steps = 0;
            while j != usize::MAX && !moved[j] {
                steps += 1;
                if steps > k {
                    return Err(unstructured("switch cases fall through in a cycle"));
                }
                let (target_position, dflt) = case_position
                    .get(j)
                    .and_then(|&t| Some((t, targets.get(t)?.2)))
                    .ok_or_else(|| Fail::from(CfgError::Internal("case target lost")))?;
                let case_body = bodies[j].take().unwrap_or_default();
                let mut body = if self.cfg.block(case_targets[j]).has_phis {
                    let mut body = Vec::with_capacity(case_body.len() + 1);
                    body.push(Lab::Edge(x, case_targets[j]));
                    body.extend(case_body);
                    body
                } else {
                    case_body
                };
                if next[j] != usize::MAX && !moved[next[j]] {
                    body = self.seq_of(Lab::Scope(case_targets[next[j]].0, body));
                }
                arms.push(LabArm {
                    literals: take_literals(&mut targets, target_position),
                    default: dflt,
                    body,
                });
                j = next[j];
            }
        }
        let moved_bodies: Vec<Vec<Lab>> = moved_order
            .iter()
            .map(|&j| bodies[j].take().unwrap_or_default())
            .collect();
        if bodies.iter().any(Option::is_some) {
            return Err(unstructured("switch cases fall through in a cycle"));
        }
        self.tables.leave(nest);
        // Moved bodies lie outside the switch: their jumps are placed at this level.
        for body in &moved_bodies {
            self.note_moved_jumps(body);
        }
        let mut core = vec![Lab::Switch(x, arms)];
        for (j, body) in moved_order.into_iter().zip(moved_bodies) {
            core = vec![Lab::Scope(case_targets[j].0, core)];
            core.extend(body);
        }
        out.extend(core);
        Ok(None)
    }
}
