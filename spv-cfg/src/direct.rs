//! The merge walk's direct path: the region tree built straight from the merge instructions,
//! without the labeled form ([`Lab`](crate::lab::Lab)) and its exit lowering, for functions
//! whose every jump lowers to nothing, a `break` or a `continue` (no exit variable).
//!
//! The walk is the one of `merges.rs` (same context stack, same checks, same order; what the
//! two share is in `walk.rs`), and each piece of labeled form it would build is lowered on the
//! spot, as `lab.rs` would lower it: a jump's kind depends on its *tail* (the labels reached by
//! falling off its position), and the walk knows the tail of every sequence when it starts it,
//! because the labeled form only ever appends after a construct that the walk places before
//! more code (a selection's or a loop's merge code, the code after a one-armed `if`). Two
//! rewrites of the labeled form are followed too:
//!
//! * the push-in rewrite of `lab.rs`: a one-armed `if` whose jump would set the exit variable
//!   takes the rest of its sequence as its other arm; the walk opens that arm and closes it
//!   where the labeled sequence ends;
//! * the selection splice of `merges.rs` (`place_after`): whether the merge code moves to the
//!   single jump to the merge is only known once the selection's body is walked, so the body
//!   is walked as a `Scope` first and, when the splice applies, undone and walked again with
//!   the merge code emitted at that jump.
//!
//! Anything else (an exit variable, switch fall-through, a splice into a nested construct, a
//! function the walk rejects, a deep or long function) gives up, and the caller runs the
//! labeled path, which then decides everything as before: this path only ever produces the
//! tree that path would have produced, so the output does not depend on which one ran.

use crate::cfg::{BlockIdx, Cfg, Merge, Terminator};
use crate::error::CfgError;
use crate::lab::{
    Frame, Jump, Kind, Label, Lowered, Lowerer, Tail, TreeLists, list_range, with_lowerer,
};
use crate::limits::{Budget, MAX_REGION_DEPTH};
use crate::region::{Arms, Cond, Region, SwitchArm, Var};
use crate::walk::{
    CtxKind, LoopLabels, WalkTables, keep_walk_tables, loop_header_fault, switch_is_jump,
    take_walk_tables,
};
use std::cell::Cell;

/// The direct path gave up; the labeled path decides.
struct GiveUp;

impl From<CfgError> for GiveUp {
    fn from(_: CfgError) -> GiveUp {
        GiveUp
    }
}

type Step<T> = Result<T, GiveUp>;

/// How a walked chain of code ends, as the labeled form would have it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// The code continues with this block's code, inline.
    Inline(BlockIdx),
    /// The sequence ends in a jump to this label.
    Br(Label),
    /// The sequence ends in something else (a construct or a function exit).
    Done,
}

/// A push-in arm being built: when its labeled sequence ends, the regions from `start` on
/// become the other arm of `If(cond){jump}`.
struct PushIn {
    start: usize,
    cond: Cond,
    jump: crate::region::Seq,
}

/// A selection walked for the splice: the jump to `merge` from `entry`'s construct, outside
/// nested constructs, continues with the merge code instead.
struct Splice {
    merge: BlockIdx,
    /// The position of the merge label in the context stack.
    entry: usize,
    used: bool,
}

/// Where a walk can be taken back to (the splice's second walk).
struct Mark {
    open: usize,
    nodes: usize,
    arms: usize,
    tails: usize,
    emitted: usize,
    jumps: usize,
    local_jumps: usize,
    exits: u32,
    push_ins: usize,
    /// Whether the open splice (if any) had taken place.
    spliced: bool,
}

/// The direct walk's own tables ([`Direct::emitted_log`], [`Direct::jump_log`],
/// [`Direct::push_ins`], [`Direct::splices`]), kept per thread between functions.
#[derive(Default)]
struct DirectTables {
    emitted_log: Vec<BlockIdx>,
    jump_log: Vec<BlockIdx>,
    push_ins: Vec<PushIn>,
    splices: Vec<Splice>,
}

impl DirectTables {
    /// No tables yet (a thread's first walk makes them).
    const EMPTY: DirectTables = DirectTables {
        emitted_log: Vec::new(),
        jump_log: Vec::new(),
        push_ins: Vec::new(),
        splices: Vec::new(),
    };

    /// The tables emptied, or fresh ones when one grew past [`crate::MAX_KEPT_ENTRIES`].
    fn bounded(mut self) -> DirectTables {
        let largest = self
            .emitted_log
            .capacity()
            .max(self.jump_log.capacity())
            .max(self.push_ins.capacity())
            .max(self.splices.capacity());
        if largest > crate::MAX_KEPT_ENTRIES {
            return DirectTables::default();
        }
        self.emitted_log.clear();
        self.jump_log.clear();
        self.push_ins.clear();
        self.splices.clear();
        self
    }
}

thread_local! {
    /// This thread's [`DirectTables`], taken for the length of one walk.
    static DIRECT_TABLES: Cell<DirectTables> = const { Cell::new(DirectTables::EMPTY) };
}

/// Builds the tree of `cfg` directly into `lists`, or gives up (`Err` hands the lists back).
/// `budget` bounds the work as the labeled path would: this path spends at most half of it.
pub(crate) fn structurize_direct(
    cfg: &Cfg,
    budget: &Budget,
    lists: TreeLists,
) -> Result<Lowered, TreeLists> {
    let mut own = Budget::with_limit(budget.left() / 2);
    let mut tables = Some(take_walk_tables(cfg));
    let own_tables = DIRECT_TABLES.take();
    let mut own_tables = Some(own_tables);
    let (result, lists, _) = with_lowerer(Var(0), &mut own, lists, |low| {
        let d = own_tables.take().unwrap_or_default();
        let mut walk = Direct {
            cfg,
            tables: tables.take().unwrap_or_default(),
            depth: 0,
            seq_depth: 0,
            exits: 0,
            emitted_log: d.emitted_log,
            jump_log: d.jump_log,
            push_ins: d.push_ins,
            splices: d.splices,
            low,
        };
        let body = walk.run();
        tables = Some(walk.tables);
        own_tables = Some(DirectTables {
            emitted_log: walk.emitted_log,
            jump_log: walk.jump_log,
            push_ins: walk.push_ins,
            splices: walk.splices,
        });
        body
    });
    if let Some(d) = own_tables {
        DIRECT_TABLES.set(d.bounded());
    }
    if let Some(t) = tables {
        keep_walk_tables(t);
    }
    match result {
        Ok(body) => Ok((lists, body, false)),
        Err(_) => Err(lists),
    }
}

struct Direct<'a, 'l, 'b> {
    cfg: &'a Cfg,
    /// The tables and context stack, as in the labeled walk (see [`WalkTables`]).
    tables: WalkTables,
    depth: usize,
    /// The nesting of labeled sequences, as the exit lowering would count it.
    seq_depth: usize,
    /// Jumps that would need the exit variable: the walk gives up at its end if any remain.
    exits: u32,
    /// The blocks emitted, in order (to undo a walk).
    emitted_log: Vec<BlockIdx>,
    /// The labels jumped to, in order (to undo a walk).
    jump_log: Vec<BlockIdx>,
    push_ins: Vec<PushIn>,
    splices: Vec<Splice>,
    low: &'l mut Lowerer<'b>,
}

impl Direct<'_, '_, '_> {
    fn run(&mut self) -> Step<crate::region::Seq> {
        let cfg = self.cfg;
        if cfg.is_target(cfg.entry()) {
            return Err(GiveUp);
        }
        self.enter_seq()?;
        self.emit(cfg.entry(), Tail::EMPTY)?;
        self.close_push_ins(0)?;
        if self.exits > 0
            || cfg
                .blocks()
                .any(|b| self.tables.reachable[b.index()] && !self.tables.emitted[b.index()])
        {
            return Err(GiveUp);
        }
        Ok(self.low.finish(0)?)
    }

    fn enter_seq(&mut self) -> Step<()> {
        if self.seq_depth >= MAX_REGION_DEPTH {
            return Err(GiveUp);
        }
        self.seq_depth += 1;
        Ok(())
    }

    /// Opens the sequence of a `Scope(label)` that code follows: returns its tail, just
    /// `label`. Close it with [`Direct::close_frame`].
    fn open_scope(&mut self, label: BlockIdx) -> Step<Tail> {
        self.low
            .frames
            .push(Frame::new(Kind::Scope, label.0, Tail::EMPTY));
        self.enter_seq()?;
        Ok(self.low.tail_with(Tail::EMPTY, label.0)?)
    }

    /// Closes the sequence of the innermost frame (a scope or a loop).
    fn close_frame(&mut self) {
        self.seq_depth -= 1;
        self.low.frames.pop();
    }

    /// Opens the other arm of `If(cond){jump}` for the push-in rewrite: the rest of the
    /// labeled sequence, closed by [`Direct::close_push_ins`].
    fn open_push_in(&mut self, cond: Cond, jump: crate::region::Seq) -> Step<()> {
        self.enter_seq()?;
        self.push_ins.push(PushIn {
            start: self.low.open.len(),
            cond,
            jump,
        });
        Ok(())
    }

    /// Ends the push-in arms opened since `mark` (their labeled sequence ends here).
    fn close_push_ins(&mut self, mark: usize) -> Step<()> {
        while self.push_ins.len() > mark {
            let Some(p) = self.push_ins.pop() else { break };
            let other = self.low.finish(p.start)?;
            self.low.push_if(p.cond, p.jump, other);
            self.seq_depth -= 1;
        }
        Ok(())
    }

    fn mark(&self) -> Mark {
        Mark {
            open: self.low.open.len(),
            nodes: self.low.nodes.len(),
            arms: self.low.switch_arms.len(),
            tails: self.low.tails.len(),
            emitted: self.emitted_log.len(),
            jumps: self.jump_log.len(),
            local_jumps: self.tables.local_jumps.len(),
            exits: self.exits,
            push_ins: self.push_ins.len(),
            spliced: self.splices.last().is_some_and(|s| s.used),
        }
    }

    /// Takes the walk back to `mark` (the context stack is already back where it was).
    fn undo(&mut self, mark: &Mark) {
        self.low.open.truncate(mark.open);
        self.low.nodes.truncate(mark.nodes);
        self.low.switch_arms.truncate(mark.arms);
        self.low.tails.truncate(mark.tails);
        for b in self.emitted_log.drain(mark.emitted..) {
            if let Some(e) = self.tables.emitted.get_mut(b.index()) {
                *e = false;
            }
        }
        for b in self.jump_log.drain(mark.jumps..) {
            if let Some(n) = self.tables.jump_count.get_mut(b.index()) {
                *n = n.saturating_sub(1);
            }
        }
        self.tables.local_jumps.truncate(mark.local_jumps);
        self.exits = mark.exits;
        self.push_ins.truncate(mark.push_ins);
        if let Some(s) = self.splices.last_mut()
            && s.used
            && !mark.spliced
        {
            s.used = false;
            if let Some(c) = self.tables.ctx.get_mut(s.entry) {
                c.active = true;
            }
        }
    }

    /// The regions of `Br(l)` with tail `tail`: nothing, `break` or `continue`; a jump that
    /// needs the exit variable is counted (the walk then gives up unless it is undone).
    fn br(&mut self, l: Label, tail: Tail) -> Step<()> {
        match self.low.classify(l, tail)? {
            Jump::Free => {}
            Jump::Continue => self.low.open.push(Region::Continue),
            Jump::Break => self.low.open.push(Region::Break),
            Jump::Local | Jump::Ladder => self.exits += 1,
        }
        Ok(())
    }

    /// The edge `from → to` (as `MergeWalk::jump`), its jump lowered with `tail`.
    fn jump(&mut self, from: BlockIdx, to: BlockIdx, tail: Tail) -> Step<Next> {
        self.low.budget.charge(2)?;
        if self.cfg.block(to).has_phis {
            self.low.open.push(Region::Edge { from, to });
        }
        if let Some((position, kind, local)) = self
            .tables
            .lookup(to)
            .map(|(p, c)| (p, c.kind, self.tables.is_local_entry(c)))
        {
            if let CtxKind::Case(_) = kind {
                return Err(GiveUp);
            }
            if let Some(s) = self.splices.last_mut()
                && s.merge == to
                && !s.used
                && local
                && s.entry == position
                && position + 1 == self.tables.ctx.len()
            {
                // The splice: the merge code runs here, its label closed as after the
                // selection.
                s.used = true;
                self.tables.ctx[position].active = false;
                return Ok(Next::Inline(to));
            }
            self.tables.note_jump(to, local);
            self.jump_log.push(to);
            self.br(to.0, tail)?;
            return Ok(Next::Br(to.0));
        }
        if self.tables.emitted[to.index()] {
            return Err(GiveUp);
        }
        Ok(Next::Inline(to))
    }

    fn emit(&mut self, x: BlockIdx, tail: Tail) -> Step<Next> {
        if self.depth >= MAX_REGION_DEPTH {
            return Err(GiveUp);
        }
        self.depth += 1;
        let r = self.emit_chain(x, tail);
        self.depth -= 1;
        r
    }

    fn emit_chain(&mut self, mut x: BlockIdx, tail: Tail) -> Step<Next> {
        loop {
            self.low.budget.charge(4)?;
            if !self.tables.reachable[x.index()] {
                self.low.open.push(Region::Unreachable);
                return Ok(Next::Done);
            }
            if self.tables.emitted[x.index()] {
                return Err(GiveUp);
            }
            self.tables.emitted[x.index()] = true;
            self.emitted_log.push(x);
            let next = match self.cfg.block(x).merge {
                Merge::Loop {
                    merge,
                    continue_target,
                } => self.emit_loop(x, merge, continue_target, tail)?,
                Merge::Selection { merge } => self.emit_selection(x, merge, tail)?,
                Merge::None => {
                    self.low.open.push(Region::Block(x));
                    self.terminator(x, tail)?
                }
            };
            match next {
                Next::Inline(t) => x = t,
                end => return Ok(end),
            }
        }
    }

    /// Continues a chain that `next` left off: the inline block's code, if any.
    fn follow(&mut self, next: Next, tail: Tail) -> Step<Next> {
        match next {
            Next::Inline(t) => self.emit(t, tail),
            end => Ok(end),
        }
    }

    fn emit_loop(&mut self, h: BlockIdx, m: BlockIdx, c: BlockIdx, tail: Tail) -> Step<Next> {
        if loop_header_fault(self.cfg, h, m, c).is_some() {
            return Err(GiveUp);
        }
        let LoopLabels { m_new, c_new, nest } =
            self.tables.open_loop(h, m, c).map_err(|_| GiveUp)?;
        // Labeled form: `Scope(m){ Loop(h){ Scope(c){ h..; } c.. } }`, then m's code.
        let loop_tail = if m_new {
            // The scope is followed by m's code: its body's tail is just `m`.
            self.open_scope(m)?
        } else {
            tail
        };
        let body_tail = self.low.tail_with(Tail::EMPTY, h.0)?;
        self.low.frames.push(Frame::new(Kind::Loop, h.0, loop_tail));
        self.enter_seq()?;
        let start = self.low.open.len();
        let body_mark = self.push_ins.len();
        let inner_tail = if c_new {
            self.open_scope(c)?
        } else {
            body_tail
        };
        self.low.open.push(Region::Block(h));
        let next = self.terminator(h, inner_tail)?;
        self.follow(next, inner_tail)?;
        self.close_push_ins(body_mark)?;
        if c_new {
            self.close_frame();
            self.tables.pop_ctx();
            self.emit(c, body_tail)?;
            self.close_push_ins(body_mark)?;
        }
        self.tables.leave(nest);
        self.close_frame();
        let body = self.low.finish(start)?;
        self.low.open.push(Region::Loop { body });
        if m_new {
            self.close_frame();
            Ok(Next::Inline(m))
        } else {
            Ok(Next::Done)
        }
    }

    fn emit_selection(&mut self, x: BlockIdx, m: BlockIdx, tail: Tail) -> Step<Next> {
        if m == x {
            return Err(GiveUp);
        }
        if !self.tables.reachable[m.index()] || !self.tables.new_label(m).map_err(|_| GiveUp)? {
            self.low.open.push(Region::Block(x));
            return self.terminator(x, tail);
        }
        let start = self.tables.local_jumps.len();
        let before = self.tables.jumps_to(m);
        let undo = self.mark();
        // First as `Scope(m){ x.. }` followed by m's code.
        self.tables.push(m, CtxKind::Scope);
        let inner_tail = self.open_scope(m)?;
        let push_ins = self.push_ins.len();
        self.low.open.push(Region::Block(x));
        let r = self
            .terminator(x, inner_tail)
            .and_then(|next| self.follow(next, inner_tail));
        self.tables.pop_ctx();
        r?;
        self.close_push_ins(push_ins)?;
        self.close_frame();
        if !self.tables.splices_merge(m, start, before) {
            self.tables.close_local(m, start);
            return Ok(Next::Inline(m));
        }
        // The splice (`place_after`): again, the merge code emitted at the single jump and
        // the whole continuing the sequence.
        self.undo(&undo);
        self.tables.push(m, CtxKind::Scope);
        self.splices.push(Splice {
            merge: m,
            entry: self.tables.ctx.len() - 1,
            used: false,
        });
        self.low.open.push(Region::Block(x));
        let r = self
            .terminator(x, tail)
            .and_then(|next| self.follow(next, tail));
        let splice = self.splices.pop();
        self.tables.pop_ctx();
        let end = r?;
        let again = self.tables.jumps_to(m).saturating_sub(before);
        if !splice.is_some_and(|s| s.used) || again != 0 {
            return Err(GiveUp);
        }
        Ok(end)
    }

    /// A one-armed `if (cond) { x → arm }` followed by more of the sequence (whose tail is
    /// `tail`): a plain jump arm takes the push-in rewrite when its jump would set the exit
    /// variable.
    fn one_armed(&mut self, x: BlockIdx, cond: Cond, arm: BlockIdx, tail: Tail) -> Step<()> {
        let spliced = self
            .splices
            .last()
            .is_some_and(|s| s.merge == arm && !s.used);
        let start = self.low.open.len();
        if self.tables.is_label(arm) && !spliced {
            let push_in = self.low.classify(arm.0, Tail::EMPTY)? == Jump::Local;
            self.enter_seq()?;
            let arm_tail = if push_in { tail } else { Tail::EMPTY };
            if self.jump(x, arm, arm_tail)? != Next::Br(arm.0) {
                return Err(GiveUp);
            }
            self.seq_depth -= 1;
            let jump = self.low.finish(start)?;
            if push_in {
                self.open_push_in(cond, jump)?;
            } else {
                self.low.push_if(cond, jump, crate::region::Seq::EMPTY);
            }
            return Ok(());
        }
        let undo = self.mark();
        let end = self.arm_code(x, arm, Tail::EMPTY)?;
        // An arm ending in a jump that would set the exit variable takes the push-in rewrite:
        // the arm again, lowered with the sequence's tail, and the rest as the other arm.
        if let Next::Br(l) = end
            && self.low.classify(l, Tail::EMPTY)? == Jump::Local
        {
            self.undo(&undo);
            if self.arm_code(x, arm, tail)? != end {
                return Err(GiveUp);
            }
            let jump = self.low.finish(start)?;
            self.open_push_in(cond, jump)?;
            return Ok(());
        }
        let then_ = self.low.finish(start)?;
        self.low.push_if(cond, then_, crate::region::Seq::EMPTY);
        Ok(())
    }

    /// The code of the arm `x → arm` as its own labeled sequence with tail `tail`, onto the
    /// open sequence (the caller finishes it); returns how it ends.
    fn arm_code(&mut self, x: BlockIdx, arm: BlockIdx, tail: Tail) -> Step<Next> {
        self.enter_seq()?;
        let mark = self.push_ins.len();
        let next = self.jump(x, arm, tail)?;
        let end = self.follow(next, tail)?;
        self.close_push_ins(mark)?;
        self.seq_depth -= 1;
        Ok(end)
    }

    /// One arm of a full `if`: a new sequence with tail `tail`.
    fn arm(&mut self, x: BlockIdx, to: BlockIdx, tail: Tail) -> Step<crate::region::Seq> {
        self.enter_seq()?;
        let start = self.low.open.len();
        let mark = self.push_ins.len();
        let next = self.jump(x, to, tail)?;
        self.follow(next, tail)?;
        self.close_push_ins(mark)?;
        self.seq_depth -= 1;
        Ok(self.low.finish(start)?)
    }

    fn terminator(&mut self, x: BlockIdx, tail: Tail) -> Step<Next> {
        let cfg = self.cfg;
        match &cfg.block(x).terminator {
            Terminator::Return | Terminator::ReturnValue => {
                self.low.open.push(Region::Return { block: x })
            }
            Terminator::Kill | Terminator::TerminateInvocation | Terminator::OtherExit { .. } => {
                self.low.open.push(Region::Kill { block: x })
            }
            Terminator::Unreachable => self.low.open.push(Region::Unreachable),
            Terminator::Branch(t) => return self.jump(x, *t, tail),
            Terminator::BranchConditional {
                true_target,
                false_target,
            } => {
                let (t, f) = (*true_target, *false_target);
                let cond = |value| Cond::Branch { block: x, value };
                if let Some((arm, value, other)) = self.tables.lone_arm(cfg, t, f) {
                    self.one_armed(x, cond(value), arm, tail)?;
                    return self.jump(x, other, tail);
                }
                let then_ = self.arm(x, t, tail)?;
                let else_ = self.arm(x, f, tail)?;
                self.low.push_if(cond(true), then_, else_);
            }
            Terminator::Switch { default, cases, .. } => {
                return self.switch(x, *default, cases, tail);
            }
        }
        Ok(Next::Done)
    }

    // Out of line: switches are few beside branches, and their code, inlined, would spread
    // `terminator`'s, which runs for every block.
    #[inline(never)]
    fn switch(
        &mut self,
        x: BlockIdx,
        default: BlockIdx,
        cases: &[(u64, BlockIdx)],
        tail: Tail,
    ) -> Step<Next> {
        self.low.budget.charge(2 * cases.len() + 2)?;
        let targets = self.tables.switch_targets(default, cases);
        if switch_is_jump(self.cfg, x, default, targets.len()) {
            return self.jump(x, default, tail);
        }
        // Per target: whether it is a case construct (not a label of an enclosing one).
        let mut is_case = Vec::with_capacity(targets.len());
        let mut case_count = 0;
        for (t, _, _) in &targets {
            let case = !self.tables.is_label(*t);
            if case {
                if self.tables.emitted[t.index()] {
                    return Err(GiveUp);
                }
                case_count += 1;
            }
            is_case.push(case);
        }
        let base = self.tables.ctx.len();
        let nest = self.tables.enter(base, case_count > 1);
        for ((t, _, _), &case) in targets.iter().zip(&is_case) {
            if case {
                self.tables.push(*t, CtxKind::Case(0));
            }
        }
        self.low
            .frames
            .push(Frame::new(Kind::Switch, Label::MAX, tail));
        let count = targets.len();
        let mut arms = Vec::with_capacity(count);
        let mut case_entry = base;
        for (i, ((target, literals, is_default), case)) in
            targets.into_iter().zip(is_case).enumerate()
        {
            // Falling off an arm enters the next one; only the last arm's end is the tail.
            let arm_tail = if i + 1 == count { tail } else { Tail::EMPTY };
            self.enter_seq()?;
            let start = self.low.open.len();
            let mark = self.push_ins.len();
            if case {
                if self.cfg.block(target).has_phis {
                    self.low.open.push(Region::Edge {
                        from: x,
                        to: target,
                    });
                }
                self.tables.ctx[case_entry].active = false;
                let r = self.emit(target, arm_tail);
                self.tables.ctx[case_entry].active = true;
                case_entry += 1;
                r?;
            } else if self.jump(x, target, arm_tail)? == Next::Inline(target) {
                return Err(GiveUp);
            }
            self.close_push_ins(mark)?;
            self.seq_depth -= 1;
            let body = self.low.finish(start)?;
            arms.push(SwitchArm {
                literals,
                default: is_default,
                body,
            });
        }
        self.tables.leave(nest);
        self.low.frames.pop();
        let arms = self.low.prune_break_arms(arms)?;
        if !arms.is_empty() {
            let (at, len) = list_range(self.low.switch_arms.len(), arms.len()).ok_or(GiveUp)?;
            self.low.switch_arms.extend(arms);
            self.low.open.push(Region::Switch {
                selector: x,
                arms: Arms::new(at, len),
            });
        }
        Ok(Next::Done)
    }
}

/// The test modules' file finder, shared with the integration tests.
#[cfg(test)]
#[path = "../tests/common/files.rs"]
mod test_files;

#[cfg(test)]
mod tests {
    use super::test_files::spv_files;
    use super::*;
    use crate::lab::{lower_exits, spare_nodes};
    use crate::merges::structurize_merges;
    use crate::region::Structured;
    use std::path::Path;

    /// Every function with merges of the workspace's test modules and of the corpus (when
    /// present): where the direct path builds a tree, it is the labeled path's tree, node for
    /// node; and it builds one for most of them.
    #[test]
    fn direct_trees_are_the_labeled_trees() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        spv_files(&root.join(".."), &mut files);
        spv_files(&root.join("../../shared/corpus"), &mut files);
        let (mut direct, mut labeled) = (0, 0);
        for path in &files {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            let Ok(module) = spv_reader::read(&bytes) else {
                continue;
            };
            for f in module.functions() {
                let Ok(cfg) = Cfg::from_function(&module, f) else {
                    continue;
                };
                if !cfg.has_merges() {
                    continue;
                }
                let Ok((lists, body, _)) = structurize_direct(&cfg, &Budget::new(), spare_nodes(0))
                else {
                    labeled += 1;
                    continue;
                };
                direct += 1;
                let tree = Structured::new(lists, body, 0, crate::Strategy::Merges, None);
                let lab = structurize_merges(&cfg, &mut Budget::new())
                    .ok()
                    .unwrap_or_else(|| panic!("{}: the labeled walk fails", path.display()));
                let (lists, body, used) =
                    lower_exits(lab, Var(0), &mut Budget::new(), spare_nodes(0)).unwrap();
                let expected =
                    Structured::new(lists, body, u32::from(used), crate::Strategy::Merges, None);
                assert_eq!(tree, expected, "{} function {}", path.display(), f.id);
            }
        }
        assert!(direct > 3 * labeled, "{direct} direct, {labeled} labeled");
    }

    /// A budget too small for the function makes the direct path give up (the labeled path
    /// then reports the limit).
    #[test]
    fn small_budget_gives_up() {
        use crate::cfg::BlockData;
        let mut blocks = Vec::new();
        for i in 0..50u32 {
            let mut header = BlockData::new(Terminator::BranchConditional {
                true_target: BlockIdx(3 * i + 1),
                false_target: BlockIdx(3 * i + 2),
            });
            header.merge = Merge::Selection {
                merge: BlockIdx(3 * i + 3),
            };
            blocks.push(header);
            blocks.push(BlockData::new(Terminator::Branch(BlockIdx(3 * i + 3))));
            blocks.push(BlockData::new(Terminator::Branch(BlockIdx(3 * i + 3))));
        }
        blocks.push(BlockData::new(Terminator::Return));
        let cfg = Cfg::new(blocks).unwrap();
        assert!(structurize_direct(&cfg, &Budget::with_limit(100), spare_nodes(0)).is_err());
        assert!(structurize_direct(&cfg, &Budget::new(), spare_nodes(0)).is_ok());
    }
}
