//! What the two merge walks share: the walk of `merges.rs`, which builds the labeled form, and
//! its direct path in `direct.rs`, which builds the region tree on the spot. Both follow the
//! same constructs with the same checks in the same order, and the direct path only ever
//! produces the tree the labeled path would have produced, so they must agree on every
//! decision that does not depend on what is built. Those decisions live here once:
//!
//! * the walk's tables ([`WalkTables`]: reachability, placed blocks, the context stack of
//!   labels with its level and floor, jump counts and local jumps), kept per thread between
//!   functions, and the operations on the context stack, among them the labels a loop opens
//!   ([`WalkTables::open_loop`]);
//! * what a loop header must look like ([`loop_header_fault`]), a switch's distinct targets
//!   ([`WalkTables::switch_targets`]) and when a switch is a plain jump ([`switch_is_jump`]),
//!   which arm of a conditional branch goes alone into an `if` ([`WalkTables::lone_arm`]),
//!   and when a selection's merge code moves to the single jump to it
//!   ([`WalkTables::splices_merge`]).
//!
//! Indexing: block indices come from a checked [`Cfg`], and the per-block tables are sized by
//! [`take_walk_tables`] for the CFG being walked.

use crate::cfg::{BlockIdx, Cfg, Merge, Terminator};
use std::cell::Cell;

/// What a label of the walk's context stack ends or starts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CtxKind {
    /// The merge block of a construct or a continue target: a jump there leaves code.
    Scope,
    /// A loop header: a jump there starts the next iteration.
    Loop,
    /// A case target of the open switch with this index in [`WalkTables::falls_into`].
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
    /// The [`WalkTables::level`] at which a jump to this label is local (see
    /// [`WalkTables::local_jumps`]).
    pub(crate) level: u32,
    /// Position in [`WalkTables::ctx`] of the next entry out for the same block, or
    /// [`NO_ENTRY`].
    pub(crate) outer_same_block: u32,
}

/// Marks the absence of a context entry in [`WalkTables::innermost`] and
/// [`Ctx::outer_same_block`].
pub(crate) const NO_ENTRY: u32 = u32::MAX;

/// A distinct target of a switch: the block, its case literals in order, and whether it is
/// also the default.
pub(crate) type SwitchTarget = (BlockIdx, Vec<u64>, bool);

/// The state of a merge walk, kept per thread between calls so that a function costs no
/// allocation for it once a larger one has been structurized (see [`WalkTables::bounded`]).
#[derive(Default)]
pub(crate) struct WalkTables {
    /// Per block: reachable from the entry along branch edges.
    pub(crate) reachable: Vec<bool>,
    /// Work stack of the reachability search.
    pub(crate) stack: Vec<BlockIdx>,
    /// Per block: placed by the walk.
    pub(crate) emitted: Vec<bool>,
    /// The context stack: the labels of the constructs enclosing the code being emitted.
    pub(crate) ctx: Vec<Ctx>,
    /// Per block, the position in `ctx` of the innermost entry for that block (the others
    /// are chained through [`Ctx::outer_same_block`]), so that a lookup does not scan the
    /// whole stack (a long switch puts every case on it).
    pub(crate) innermost: Vec<u32>,
    /// Per block, [`NO_ENTRY`] except while a switch uses it to find a target's entry in one
    /// of its tables (it sets and resets the entries of its own targets only).
    pub(crate) slot: Vec<u32>,
    /// Per open switch: the case the arm being emitted falls through to (labeled walk only).
    pub(crate) falls_into: Vec<Option<BlockIdx>>,
    /// Per block, how many `Br` to it have been emitted.
    pub(crate) jump_count: Vec<u32>,
    /// The targets of the emitted `Br`s that lie outside every loop and switch opened since the
    /// label was pushed, for labels that are still open (scope and case labels whose
    /// [`Ctx::level`] is the current level). A selection reads the entries added while its
    /// body was built instead of scanning the body; entries of a loop body or switch arm are
    /// dropped when it ends, and a selection's own label is dropped when it closes.
    pub(crate) local_jumps: Vec<u32>,
    /// How many `Loop`s and `Switch`es of the labeled form enclose the code being emitted.
    pub(crate) level: u32,
    /// The lowest level whose scope and case labels are local at the current level: the
    /// current one, or lower through the arms of switches with a single case target (whose
    /// only case label is inactive while its arm is emitted, so nothing stops the search
    /// for local labels there).
    pub(crate) floor: u32,
}

impl WalkTables {
    /// No tables yet (a thread's first walk makes them).
    const EMPTY: WalkTables = WalkTables {
        reachable: Vec::new(),
        stack: Vec::new(),
        emitted: Vec::new(),
        ctx: Vec::new(),
        innermost: Vec::new(),
        slot: Vec::new(),
        falls_into: Vec::new(),
        jump_count: Vec::new(),
        local_jumps: Vec::new(),
        level: 0,
        floor: 0,
    };

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
    static WALK_TABLES: Cell<WalkTables> = const { Cell::new(WalkTables::EMPTY) };
}

/// This thread's walk tables, set up for a walk of `cfg`: reachability filled in, every
/// per-block entry reset, the stacks empty, at level 0. Give them back with
/// [`keep_walk_tables`].
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
    // A walk that gave up may have left them raised.
    tables.level = 0;
    tables.floor = 0;
    tables
}

/// Gives tables taken with [`take_walk_tables`] back to this thread.
pub(crate) fn keep_walk_tables(tables: WalkTables) {
    WALK_TABLES.set(tables.bounded());
}

/// A loop body or a switch's arms being walked, one level deeper: what
/// [`WalkTables::leave`] restores.
pub(crate) struct Nest {
    /// The context stack's length to go back to.
    base: usize,
    /// The floor outside.
    floor: u32,
    /// The length of `local_jumps` outside: the local jumps inside are dropped when it ends.
    frame: usize,
}

/// The labels [`WalkTables::open_loop`] pushed.
pub(crate) struct LoopLabels {
    /// Whether the merge block got a label (the loop is then wrapped in its scope).
    pub(crate) m_new: bool,
    /// Whether the continue target got a label (the body is then wrapped in its scope).
    pub(crate) c_new: bool,
    /// The loop body, for [`WalkTables::leave`].
    pub(crate) nest: Nest,
}

impl WalkTables {
    /// Pushes a label for `block` at the current level.
    pub(crate) fn push(&mut self, block: BlockIdx, kind: CtxKind) {
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

    /// Pops the innermost context entry.
    pub(crate) fn pop_ctx(&mut self) {
        if let Some(c) = self.ctx.pop()
            && let Some(innermost) = self.innermost.get_mut(c.block.index())
        {
            *innermost = c.outer_same_block;
        }
    }

    /// Pops context entries until `len` remain.
    pub(crate) fn truncate_ctx(&mut self, len: usize) {
        while self.ctx.len() > len {
            self.pop_ctx();
        }
    }

    /// The innermost active context entry for `t`, with its position in the stack.
    pub(crate) fn lookup(&self, t: BlockIdx) -> Option<(usize, &Ctx)> {
        let mut position = *self.innermost.get(t.index())?;
        // Each step moves to a smaller position, so the walk ends.
        while let Some(c) = self.ctx.get(position as usize) {
            if c.active {
                return Some((position as usize, c));
            }
            position = c.outer_same_block;
        }
        None
    }

    /// Whether `t` is a label of an enclosing construct (a jump there is a `Br`).
    pub(crate) fn is_label(&self, t: BlockIdx) -> bool {
        self.lookup(t).is_some()
    }

    /// Whether the label of `c` is local at the current level: an open scope or case label at
    /// a level from [`WalkTables::floor`] up.
    pub(crate) fn is_local_entry(&self, c: &Ctx) -> bool {
        c.kind != CtxKind::Loop && c.level >= self.floor
    }

    /// Whether a jump to `t` from the current level reaches its label without leaving a loop
    /// or switch.
    pub(crate) fn is_local(&self, t: BlockIdx) -> bool {
        self.lookup(t).is_some_and(|(_, c)| self.is_local_entry(c))
    }

    /// Whether `b` can become a new label: `Ok(false)` when it already is one, `Err(b)` when
    /// it was placed already (it is reached from outside the construct that placed it).
    pub(crate) fn new_label(&self, b: BlockIdx) -> Result<bool, BlockIdx> {
        if self.is_label(b) {
            return Ok(false);
        }
        if self.emitted[b.index()] {
            return Err(b);
        }
        Ok(true)
    }

    /// Counts a `Br(to)` placed at the current level, noting it in `local_jumps` when its
    /// label is local here (`local`, from [`WalkTables::is_local_entry`]).
    pub(crate) fn note_jump(&mut self, to: BlockIdx, local: bool) {
        if let Some(n) = self.jump_count.get_mut(to.index()) {
            *n = n.saturating_add(1);
        }
        if local {
            self.local_jumps.push(to.0);
        }
    }

    /// How many `Br` to `b` have been emitted.
    pub(crate) fn jumps_to(&self, b: BlockIdx) -> u32 {
        self.jump_count.get(b.index()).copied().unwrap_or(0)
    }

    /// Opens a loop with header `h`, merge `m` and continue target `c` (checked with
    /// [`loop_header_fault`]): pushes the labels of its merge (when new), its header and its
    /// continue target (when new and not the header), and enters its body. `Err(b)`: `b` was
    /// placed already (see [`WalkTables::new_label`]).
    pub(crate) fn open_loop(
        &mut self,
        h: BlockIdx,
        m: BlockIdx,
        c: BlockIdx,
    ) -> Result<LoopLabels, BlockIdx> {
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
        let nest = self.enter(base, true);
        if c_new {
            self.push(c, CtxKind::Scope);
        }
        Ok(LoopLabels { m_new, c_new, nest })
    }

    /// Opens a loop body or a switch's arms one level deeper; the context entries from `base`
    /// on go when it is left. `own_floor`: whether labels of the levels outside stop being
    /// local (a loop, or a switch with more than one case target).
    pub(crate) fn enter(&mut self, base: usize, own_floor: bool) -> Nest {
        self.level += 1;
        let floor = self.floor;
        if own_floor {
            self.floor = self.level;
        }
        Nest {
            base,
            floor,
            frame: self.local_jumps.len(),
        }
    }

    /// Leaves what [`WalkTables::enter`] opened: its labels, level and local jumps go.
    pub(crate) fn leave(&mut self, nest: Nest) {
        self.truncate_ctx(nest.base);
        self.level -= 1;
        self.floor = nest.floor;
        self.local_jumps.truncate(nest.frame);
    }

    /// After the body of a selection with merge `m` was walked (with `local_jumps` at `start`
    /// and `before` jumps to `m` when it began): whether some path jumps past the merge
    /// block's code to an enclosing label (`if (c) { ..; continue; } merge-code`) while only
    /// one place reaches the merge. That would take an exit flag, but the merge code (and
    /// everything after it) can run at that one place instead (`place_after` in `merges.rs`).
    /// The body's jumps counted are those outside its loops and switches to labels that are
    /// local here: to the merge, or past it to an enclosing scope or case label.
    pub(crate) fn splices_merge(&self, m: BlockIdx, start: usize, before: u32) -> bool {
        let jumps = self.jumps_to(m).saturating_sub(before);
        let local = self.local_jumps.get(start..).unwrap_or_default();
        let single = jumps == 1 && local.contains(&m.0);
        single && local.iter().any(|&l| l != m.0)
    }

    /// The merge label `m` of a selection whose body's local jumps start at `start` closes:
    /// its entries go.
    pub(crate) fn close_local(&mut self, m: BlockIdx, start: usize) {
        let mut kept = start;
        for i in start..self.local_jumps.len() {
            let l = self.local_jumps[i];
            if l != m.0 {
                self.local_jumps[kept] = l;
                kept += 1;
            }
        }
        self.local_jumps.truncate(kept);
    }

    /// For a conditional branch to `t` and `f`: the arm that goes alone into a one-armed
    /// `If`, with the branch value that takes it and the other arm, whose code continues the
    /// sequence. That is the jump arm when only one target is a label (`if (c) break;` and
    /// friends), or else an arm that is a single exiting block (`if (c) return;`), which keeps
    /// chains flat (the true one when both exit); `None` when neither applies.
    pub(crate) fn lone_arm(
        &self,
        cfg: &Cfg,
        t: BlockIdx,
        f: BlockIdx,
    ) -> Option<(BlockIdx, bool, BlockIdx)> {
        let t_label = self.is_label(t);
        if t_label != self.is_label(f) {
            return Some(if t_label { (t, true, f) } else { (f, false, t) });
        }
        let exits = |b: BlockIdx| {
            let d = cfg.block(b);
            d.terminator.is_function_exit() && d.merge == Merge::None
        };
        if exits(t) {
            Some((t, true, f))
        } else if exits(f) {
            Some((f, false, t))
        } else {
            None
        }
    }

    /// The distinct targets of a switch with `cases` and `default`, in order of first
    /// appearance, with their literals.
    pub(crate) fn switch_targets(
        &mut self,
        default: BlockIdx,
        cases: &[(u64, BlockIdx)],
    ) -> Vec<SwitchTarget> {
        // `slot` finds a target's entry in one step (a long switch would otherwise cost
        // cases²); the order comes from the vector.
        let mut targets: Vec<SwitchTarget> = Vec::new();
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
        // The slots go back to "none" before anything else uses the table (the arms may
        // contain switches of their own).
        for (t, _, _) in &targets {
            if let Some(s) = self.slot.get_mut(t.index()) {
                *s = NO_ENTRY;
            }
        }
        targets
    }
}

/// Why a loop header `h` with merge `m` and continue target `c` does not make a loop, if it
/// does not.
pub(crate) fn loop_header_fault(
    cfg: &Cfg,
    h: BlockIdx,
    m: BlockIdx,
    c: BlockIdx,
) -> Option<&'static str> {
    if !matches!(
        cfg.block(h).terminator,
        Terminator::Branch(_) | Terminator::BranchConditional { .. }
    ) {
        return Some("OpLoopMerge not followed by a branch (V-CFG-8)");
    }
    if m == h || c == m {
        return Some("loop merge equals its header or continue target (V-SCF-7)");
    }
    None
}

/// Whether the switch of block `x` with `targets` distinct targets is a plain jump to
/// `default`: it has a single target, and it is not a declared construct. A declared switch
/// with a single target is kept (Slang's `switch (0) { default: .. }` idiom for a breakable
/// block): its breaks then stay IL `break`s instead of flags.
pub(crate) fn switch_is_jump(cfg: &Cfg, x: BlockIdx, default: BlockIdx, targets: usize) -> bool {
    let declared = matches!(cfg.block(x).merge, Merge::Selection { merge } if merge != default);
    targets == 1 && !declared
}
