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
use std::cell::Cell;

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

/// What a label of the walk's context stack ends or starts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CtxKind {
    /// The merge block of a construct or a continue target: a jump there leaves code.
    Scope,
    /// A loop header: a jump there starts the next iteration.
    Loop,
    /// A case target of the open switch with this index in `falls_into`.
    Case(usize),
}

/// A label of the walk's context stack.
pub(crate) struct Ctx {
    /// The labeled block.
    pub(crate) block: BlockIdx,
    /// What the label is.
    pub(crate) kind: CtxKind,
    /// Whether jumps see the label (a case's own label is not seen while its arm is emitted).
    pub(crate) active: bool,
    /// The [`MergeWalk::level`] at which a jump to this label is local (see
    /// [`MergeWalk::local_jumps`]).
    pub(crate) level: u32,
    /// Position in `MergeWalk::ctx` of the next entry out for the same block, or [`NO_ENTRY`].
    pub(crate) outer_same_block: u32,
}

/// Marks the absence of a context entry in [`MergeWalk::innermost`] and [`Ctx::outer_same_block`].
pub(crate) const NO_ENTRY: u32 = u32::MAX;

struct MergeWalk<'a> {
    cfg: &'a Cfg,
    /// Per block: reachable from the entry along branch edges.
    reachable: Vec<bool>,
    emitted: Vec<bool>,
    ctx: Vec<Ctx>,
    /// Per block, the position in `ctx` of the innermost entry for that block (the others
    /// are chained through [`Ctx::outer_same_block`]), so that `lookup` does not scan the
    /// whole stack (a long switch puts every case on it).
    innermost: Vec<u32>,
    /// Per block, [`NO_ENTRY`] except while [`MergeWalk::switch`] uses it to find a target's
    /// entry in one of its tables (it sets and resets the entries of its own targets only).
    slot: Vec<u32>,
    /// Per open switch: the case the arm being emitted falls through to.
    falls_into: Vec<Option<BlockIdx>>,
    /// How many `Loop`s and `Switch`es of the labeled form enclose the code being emitted.
    level: u32,
    /// The lowest level whose scope and case labels are local at the current level: the
    /// current one, or lower through the arms of switches with a single case target (whose
    /// only case label is inactive while its arm is emitted, so nothing stops the search
    /// for local labels there).
    floor: u32,
    /// Per block, how many `Br` to it have been emitted.
    jump_count: Vec<u32>,
    /// The targets of the emitted `Br`s that lie outside every loop and switch opened since the
    /// label was pushed, for labels that are still open (scope and case labels whose
    /// [`Ctx::level`] is the current level). A selection reads the entries added while its
    /// body was built instead of scanning the body; entries of a loop body or switch arm are
    /// dropped when it ends, and a selection's own label is dropped when it closes.
    local_jumps: Vec<u32>,
    depth: usize,
    budget: &'a mut Budget,
    /// Where new sequences come from (see [`LabPool`]).
    pool: LabPool,
}

/// The walk's tables, kept per thread between calls so that a function costs no allocation
/// for them once a larger one has been structurized (see [`WalkTables::bounded`]).
/// (The fields are those of [`MergeWalk`], which the direct walk of `direct.rs` shares.)
#[derive(Default)]
pub(crate) struct WalkTables {
    pub(crate) reachable: Vec<bool>,
    pub(crate) stack: Vec<BlockIdx>,
    pub(crate) emitted: Vec<bool>,
    pub(crate) ctx: Vec<Ctx>,
    pub(crate) innermost: Vec<u32>,
    pub(crate) slot: Vec<u32>,
    pub(crate) falls_into: Vec<Option<BlockIdx>>,
    pub(crate) jump_count: Vec<u32>,
    pub(crate) local_jumps: Vec<u32>,
}

impl WalkTables {
    /// The tables, or fresh ones when a table grew past [`crate::MAX_KEPT_ENTRIES`] (one huge
    /// function must not pin its memory for the rest of the thread's life).
    fn bounded(self) -> WalkTables {
        let largest = [
            self.reachable.capacity(),
            self.stack.capacity(),
            self.emitted.capacity(),
            self.ctx.capacity(),
            self.innermost.capacity(),
            self.slot.capacity(),
            self.falls_into.capacity(),
            self.jump_count.capacity(),
            self.local_jumps.capacity(),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        if largest > crate::MAX_KEPT_ENTRIES {
            WalkTables::default()
        } else {
            self
        }
    }
}

thread_local! {
    /// This thread's [`WalkTables`], taken for the length of one walk.
    static WALK_TABLES: Cell<WalkTables> = Cell::new(WalkTables::default());
}

/// This thread's walk tables, set up for a walk of `cfg`: reachability filled in, every
/// per-block entry reset, the stacks empty. Give them back with [`keep_walk_tables`].
pub(crate) fn take_walk_tables(cfg: &Cfg) -> WalkTables {
    let mut tables = WALK_TABLES.take();
    let n = cfg.len();
    cfg.fill_reachable(&mut tables.reachable, &mut tables.stack);
    let reset = |table: &mut Vec<u32>, value: u32| {
        table.clear();
        table.resize(n, value);
    };
    reset(&mut tables.innermost, NO_ENTRY);
    reset(&mut tables.slot, NO_ENTRY);
    reset(&mut tables.jump_count, 0);
    tables.emitted.clear();
    tables.emitted.resize(n, false);
    tables.ctx.clear();
    tables.falls_into.clear();
    tables.local_jumps.clear();
    tables
}

/// Gives tables taken with [`take_walk_tables`] back to this thread.
pub(crate) fn keep_walk_tables(tables: WalkTables) {
    WALK_TABLES.set(tables.bounded());
}

/// Builds the labeled form from merge instructions, or explains why it cannot.
pub(crate) fn structurize_merges(cfg: &Cfg, budget: &mut Budget) -> Result<Vec<Lab>, Fail> {
    let tables = take_walk_tables(cfg);
    let mut walk = MergeWalk {
        cfg,
        reachable: tables.reachable,
        emitted: tables.emitted,
        ctx: tables.ctx,
        innermost: tables.innermost,
        slot: tables.slot,
        falls_into: tables.falls_into,
        level: 0,
        floor: 0,
        jump_count: tables.jump_count,
        local_jumps: tables.local_jumps,
        depth: 0,
        budget,
        pool: take_lab_pool(),
    };
    let result = walk.run();
    keep_lab_pool(std::mem::take(&mut walk.pool));
    keep_walk_tables(WalkTables {
        reachable: walk.reachable,
        stack: tables.stack,
        emitted: walk.emitted,
        ctx: walk.ctx,
        innermost: walk.innermost,
        slot: walk.slot,
        falls_into: walk.falls_into,
        jump_count: walk.jump_count,
        local_jumps: walk.local_jumps,
    });
    result
}

impl MergeWalk<'_> {
    /// Walks the whole function from its entry.
    fn run(&mut self) -> Result<Vec<Lab>, Fail> {
        let cfg = self.cfg;
        let mut out = self.new_seq();
        if !cfg.preds(cfg.entry()).is_empty() {
            return Err(unstructured("the entry block is a branch target (V-CFG-2)"));
        }
        self.emit(cfg.entry(), &mut out)?;
        if let Some(b) = cfg
            .blocks()
            .find(|b| self.reachable[b.index()] && !self.emitted[b.index()])
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

    fn lookup(&self, t: BlockIdx) -> Option<CtxKind> {
        self.lookup_entry(t).map(|c| c.kind)
    }

    /// The innermost active context entry for `t`.
    fn lookup_entry(&self, t: BlockIdx) -> Option<&Ctx> {
        let mut position = *self.innermost.get(t.index())?;
        // Each step moves to a smaller position, so the walk ends.
        while let Some(c) = self.ctx.get(position as usize) {
            if c.active {
                return Some(c);
            }
            position = c.outer_same_block;
        }
        None
    }

    /// Counts a `Br(to)` placed at the current level, noting it in `local_jumps` when its
    /// label is local here (`local`, from [`MergeWalk::is_local_entry`]).
    fn note_jump(&mut self, to: BlockIdx, local: bool) {
        if let Some(n) = self.jump_count.get_mut(to.index()) {
            *n = n.saturating_add(1);
        }
        if local {
            self.local_jumps.push(to.0);
        }
    }

    /// Whether a jump to `t` from the current level reaches its label without leaving a loop
    /// or switch.
    fn is_local(&self, t: BlockIdx) -> bool {
        self.lookup_entry(t).is_some_and(|c| self.is_local_entry(c))
    }

    /// Whether the label of `c` is local at the current level: an open scope or case label at
    /// a level from [`MergeWalk::floor`] up.
    fn is_local_entry(&self, c: &Ctx) -> bool {
        c.kind != CtxKind::Loop && c.level >= self.floor
    }

    /// Notes the jumps of `seq` that lie outside its loops and switches as placed at the
    /// current level (a switch case body moved after its switch). Recursion follows the
    /// nesting of `seq`, which the walk bounds by [`MAX_REGION_DEPTH`].
    fn note_moved_jumps(&mut self, seq: &[Lab]) {
        for item in seq {
            match item {
                Lab::Br(l) if self.is_local(BlockIdx(*l)) => self.local_jumps.push(*l),
                Lab::If(_, a, b) => {
                    self.note_moved_jumps(a);
                    self.note_moved_jumps(b);
                }
                Lab::Scope(_, body) => self.note_moved_jumps(body),
                _ => {}
            }
        }
    }

    /// Pops the innermost context entry.
    fn pop_ctx(&mut self) {
        if let Some(c) = self.ctx.pop()
            && let Some(innermost) = self.innermost.get_mut(c.block.index())
        {
            *innermost = c.outer_same_block;
        }
    }

    /// Pops context entries until `len` remain.
    fn truncate_ctx(&mut self, len: usize) {
        while self.ctx.len() > len {
            self.pop_ctx();
        }
    }

    fn push(&mut self, block: BlockIdx, kind: CtxKind) {
        // Positions fit in u32: the stack never holds more entries than the CFG has blocks
        // times the constructs naming them, and `Cfg` bounds the block count by u32.
        let position = u32::try_from(self.ctx.len()).unwrap_or(NO_ENTRY);
        let outer_same_block = match self.innermost.get_mut(block.index()) {
            Some(innermost) => std::mem::replace(innermost, position),
            None => NO_ENTRY,
        };
        self.ctx.push(Ctx {
            block,
            kind,
            active: true,
            level: self.level,
            outer_same_block,
        });
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
            .lookup_entry(to)
            .map(|c| (c.kind, self.is_local_entry(c)))
        {
            if let CtxKind::Case(sw) = kind {
                let Some(slot) = self.falls_into.get_mut(sw) else {
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
            self.note_jump(to, local);
            return Ok(None);
        }
        if self.emitted[to.index()] {
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
            if !self.reachable[x.index()] {
                // Never taken: labels are only made for reachable blocks and inline targets
                // are successors of emitted (reachable) blocks. Kept as a safe answer.
                out.push(Lab::Unreachable);
                return Ok(());
            }
            if self.emitted[x.index()] {
                return Err(self.twice(x));
            }
            self.emitted[x.index()] = true;
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

    /// A label block that must be new: not yet emitted and not already a label.
    fn new_label(&self, b: BlockIdx) -> Result<bool, Fail> {
        if self.lookup(b).is_some() {
            return Ok(false);
        }
        if self.emitted[b.index()] {
            return Err(self.twice(b));
        }
        Ok(true)
    }

    fn emit_loop(
        &mut self,
        h: BlockIdx,
        m: BlockIdx,
        c: BlockIdx,
        out: &mut Vec<Lab>,
    ) -> Result<Option<BlockIdx>, Fail> {
        if !matches!(
            self.cfg.block(h).terminator,
            Terminator::Branch(_) | Terminator::BranchConditional { .. }
        ) {
            return Err(unstructured(
                "OpLoopMerge not followed by a branch (V-CFG-8)",
            ));
        }
        if m == h || c == m {
            return Err(unstructured(
                "loop merge equals its header or continue target (V-SCF-7)",
            ));
        }
        // A merge block or continue target that no branch reaches needs no label: nothing
        // jumps there, and the code after it would be dead.
        let m_new = self.reachable[m.index()] && self.new_label(m)?;
        let c_new = c != h && self.reachable[c.index()] && self.new_label(c)?;
        let base = self.ctx.len();
        if m_new {
            self.push(m, CtxKind::Scope);
        }
        self.push(h, CtxKind::Loop);
        // The loop body: one level deeper, its local jumps dropped when it ends.
        self.level += 1;
        let floor = std::mem::replace(&mut self.floor, self.level);
        let frame = self.local_jumps.len();
        if c_new {
            self.push(c, CtxKind::Scope);
        }
        let mut inner = self.seq_of(Lab::Block(h));
        let r = self.terminator(h, &mut inner).and_then(|next| match next {
            Some(t) => self.emit(t, &mut inner),
            None => Ok(()),
        });
        if c_new {
            self.pop_ctx();
        }
        let r = match r {
            Ok(()) if c_new => {
                let mut body = self.seq_of(Lab::Scope(c.0, inner));
                self.emit(c, &mut body).map(|()| body)
            }
            Ok(()) => Ok(inner),
            Err(e) => Err(e),
        };
        self.truncate_ctx(base);
        self.level -= 1;
        self.floor = floor;
        self.local_jumps.truncate(frame);
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
        if !self.reachable[m.index()] || !self.new_label(m)? {
            out.push(Lab::Block(x));
            return self.terminator(x, out);
        }
        let start = self.local_jumps.len();
        let before = self.jump_count.get(m.index()).copied().unwrap_or(0);
        self.push(m, CtxKind::Scope);
        let mut inner = self.seq_of(Lab::Block(x));
        let r = self.terminator(x, &mut inner).and_then(|next| match next {
            Some(t) => self.emit(t, &mut inner),
            None => Ok(()),
        });
        self.pop_ctx();
        r?;
        // `inner`'s jumps outside its loops and switches to labels that are local here: to
        // the merge, or past it to an enclosing scope or case label.
        let jumps = self
            .jump_count
            .get(m.index())
            .map_or(0, |&n| n.saturating_sub(before));
        let local = self.local_jumps.get(start..).unwrap_or_default();
        let single = jumps == 1 && local.contains(&m.0);
        let past_merge = single && local.iter().any(|&l| l != m.0);
        // The merge label closes here: its entries go.
        let mut kept = start;
        for i in start..self.local_jumps.len() {
            let l = self.local_jumps[i];
            if l != m.0 {
                self.local_jumps[kept] = l;
                kept += 1;
            }
        }
        self.local_jumps.truncate(kept);
        if past_merge {
            // Some path jumps past the merge block's code to an enclosing label (`if (c) {
            // ..; continue; } merge-code`): that would take an exit flag, but since only one
            // place reaches the merge, its code (and everything after it) can run there
            // instead; see `place_after`.
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
                let t_label = self.lookup(t).is_some();
                let f_label = self.lookup(f).is_some();
                if t_label != f_label {
                    // `if (c) break;` and friends: the jump arm goes into the `If`, the other
                    // arm's code continues the sequence.
                    let (jump_to, value, other) =
                        if t_label { (t, true, f) } else { (f, false, t) };
                    let mut arm = self.new_seq();
                    self.jump(x, jump_to, &mut arm)?;
                    out.push(Lab::If(cond(value), arm, Vec::new()));
                    return self.jump(x, other, out);
                }
                // An arm that is a single exiting block (`if (c) return;`) goes into the `If`
                // alone and the other arm's code continues the sequence, keeping chains flat.
                let exits = |b: BlockIdx| {
                    let d = self.cfg.block(b);
                    d.terminator.is_function_exit() && d.merge == Merge::None
                };
                for (arm, value, other) in [(t, true, f), (f, false, t)] {
                    if exits(arm) && !exits(other) || (arm == t && exits(t) && exits(f)) {
                        let mut then_ = self.new_seq();
                        if let Some(next) = self.jump(x, arm, &mut then_)? {
                            self.emit(next, &mut then_)?;
                        }
                        out.push(Lab::If(cond(value), then_, Vec::new()));
                        return self.jump(x, other, out);
                    }
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
        // Distinct targets in order of first appearance, with their literals. `slot` finds a
        // target's entry in one step (a long switch would otherwise cost cases²); the order
        // comes from the vector.
        let mut targets: Vec<(BlockIdx, Vec<u64>, bool)> = Vec::new();
        for (lit, t, is_default) in cases
            .iter()
            .map(|&(lit, t)| (Some(lit), t, false))
            .chain([(None, default, true)])
        {
            let entry = match self.slot.get(t.index()).copied() {
                Some(i) if i != NO_ENTRY => targets.get_mut(i as usize),
                _ => None,
            };
            match entry {
                Some(e) => {
                    e.1.extend(lit);
                    e.2 |= is_default;
                }
                None => {
                    if let Some(s) = self.slot.get_mut(t.index()) {
                        // Positions fit in u32: at most one per case, and the case list
                        // comes from a module whose length is bounded by u32 words.
                        *s = u32::try_from(targets.len()).unwrap_or(NO_ENTRY);
                    }
                    targets.push((t, lit.into_iter().collect(), is_default));
                }
            }
        }
        // The slots go back to "none" before anything else uses the table (the arms below
        // may contain switches of their own).
        for (t, _, _) in &targets {
            if let Some(s) = self.slot.get_mut(t.index()) {
                *s = NO_ENTRY;
            }
        }
        // A declared switch with a single target is kept (Slang's `switch (0) { default: .. }`
        // idiom for a breakable block): its breaks then stay IL `break`s instead of flags.
        let declared =
            matches!(self.cfg.block(x).merge, Merge::Selection { merge } if merge != default);
        if targets.len() == 1 && !declared {
            return self.jump(x, default, out);
        }
        // Case constructs: targets that are not labels of enclosing constructs.
        let mut case_targets = Vec::new();
        // Per case target: its position in `targets`.
        let mut case_position = Vec::new();
        for (position, (t, _, _)) in targets.iter().enumerate() {
            if self.lookup(*t).is_none() {
                if self.emitted[t.index()] {
                    return Err(self.twice(*t));
                }
                case_targets.push(*t);
                case_position.push(position);
            }
        }
        let sw = self.falls_into.len();
        self.falls_into.push(None);
        let base = self.ctx.len();
        // The arms: one level deeper until they are built (a failed walk is abandoned, so the
        // early returns below need not restore the level).
        self.level += 1;
        let floor = self.floor;
        if case_targets.len() > 1 {
            self.floor = self.level;
        }
        let frame = self.local_jumps.len();
        for &t in &case_targets {
            self.push(t, CtxKind::Case(sw));
        }
        let mut bodies: Vec<(Vec<Lab>, Option<BlockIdx>)> = Vec::new();
        let mut result = Ok(());
        for (i, &target) in case_targets.iter().enumerate() {
            self.ctx[base + i].active = false;
            self.falls_into[sw] = None;
            let mut body = self.new_seq();
            result = self.emit(target, &mut body);
            self.ctx[base + i].active = true;
            if result.is_err() {
                break;
            }
            bodies.push((body, self.falls_into[sw]));
        }
        self.truncate_ctx(base);
        self.falls_into.pop();
        result?;

        // Fall-through chains: next[i] = index of the case that case i falls into. The case
        // index of a block is found through `slot`, which holds it from here until the chains
        // and `target_case` are known (no switch runs in between).
        for (i, t) in case_targets.iter().enumerate() {
            if let Some(s) = self.slot.get_mut(t.index()) {
                // Fits: there are fewer cases than `targets` entries, whose positions fit.
                *s = u32::try_from(i).unwrap_or(NO_ENTRY);
            }
        }
        let slot = &self.slot;
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
            if let Some(s) = self.slot.get_mut(t.index()) {
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
        let take_literals = |targets: &mut Vec<(BlockIdx, Vec<u64>, bool)>, position: usize| {
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
                self.note_jump(target, false);
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
        self.level -= 1;
        self.floor = floor;
        self.local_jumps.truncate(frame);
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
