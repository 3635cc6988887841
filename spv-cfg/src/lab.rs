//! The labeled intermediate form both structurizers produce, and its lowering to the region
//! tree's single-level `Break`/`Continue` (the "exit lowering").
//!
//! # The labeled form
//!
//! [`Lab`] is a WebAssembly-like structured form: `Scope(L){..}` is a block whose *end* is a
//! jump target, `Loop(L){..}` a loop whose *start* is one, and `Br(L)` jumps to the enclosing
//! construct labeled `L`. Labels are node numbers: `Br(L)` means "continue with the code of
//! node `L`", which is exactly what follows `Scope(L)` or starts `Loop(L)`. Every control path
//! of a structurizer's output ends in an explicit `Br`, a function exit, or the end of a
//! `Scope` reached by such a `Br`; a `Loop` body falls off its end only through `Br(L)`.
//!
//! # Exit lowering
//!
//! AMD IL has no labels (`amd-il.md` §7.6): `break` leaves the innermost loop or switch,
//! `continue` restarts the innermost loop. [`lower_exits`] maps each `Br(L)` to the cheapest
//! equivalent, given what falling off the current position does (its *tail*: the labels whose
//! target is reached by just falling off):
//!
//! * **free**: `L` is in the tail: nothing to emit;
//! * **continue**: `L` is the innermost loop (switches in between are fine);
//! * **break**: `L`'s target is right after the innermost loop or switch;
//! * **local**: no loop or switch lies between the jump and `Scope(L)`: set the exit variable
//!   to `L`, fall off, skip the rest of every enclosing sequence with `if (exit == 0)`, and
//!   reset the variable at the end of `Scope(L)`;
//! * **ladder**: otherwise set the exit variable, `break`, and after that loop/switch test the
//!   variable and continue the exit from there (recursively one of the five kinds).
//!
//! One shape is rewritten to avoid a flag: in `[If(c){A; Br L}{B}, rest..]`, when `Br L`
//! would be local, the rest moves into the other arm (`If(c){A; Br L}{B; rest..}`), where the
//! jump is usually free. This is valid because an arm ending in `Br` never falls through.

use crate::cfg::BlockIdx;
use crate::error::CfgError;
use crate::limits::{Budget, MAX_REGION_DEPTH};
use crate::region::{Arms, Cond, Region, Seq, SwitchArm, Var};
use std::cell::Cell;

/// A jump label: the node whose code runs after the jump.
pub(crate) type Label = u32;

/// The labeled structured form (see the module docs).
#[derive(Clone, Debug)]
pub(crate) enum Lab {
    Block(BlockIdx),
    Edge(BlockIdx, BlockIdx),
    Set(Var, u32),
    If(Cond, Vec<Lab>, Vec<Lab>),
    /// `Br(L)` inside jumps to just after this scope.
    Scope(Label, Vec<Lab>),
    /// `Br(L)` inside restarts the body.
    Loop(Label, Vec<Lab>),
    /// C switch: arms fall through to the next arm when their body falls off its end.
    Switch(BlockIdx, Vec<LabArm>),
    Br(Label),
    Return(BlockIdx),
    Kill(BlockIdx),
    Unreachable,
}

/// A switch arm of the labeled form.
#[derive(Clone, Debug)]
pub(crate) struct LabArm {
    pub(crate) literals: Vec<u64>,
    pub(crate) default: bool,
    pub(crate) body: Vec<Lab>,
}

/// Replaces the `Br(label)` of `seq` that lies outside its loops and switches (the caller
/// knows there is exactly one `Br(label)`) with `code` (which must never fall through, like
/// every sequence the structurizers build): the jump's target code then runs where the jump
/// was. Returns whether the jump was found. Recursion follows the nesting of
/// `seq`, which the builders bound by [`MAX_REGION_DEPTH`].
pub(crate) fn splice_jump(seq: &mut Vec<Lab>, label: Label, code: &mut Vec<Lab>) -> bool {
    if let Some(i) = seq
        .iter()
        .position(|x| matches!(x, Lab::Br(l) if *l == label))
    {
        seq.truncate(i);
        seq.append(code);
        return true;
    }
    seq.iter_mut().any(|item| match item {
        Lab::If(_, a, b) => splice_jump(a, label, code) || splice_jump(b, label, code),
        Lab::Scope(_, body) => splice_jump(body, label, code),
        _ => false,
    })
}

/// The region of a leaf statement (a block, an edge, a variable set or a function exit), or
/// `None` when `item` is a construct or a jump. A leaf lowers to itself whatever follows it,
/// and leaves no exit pending. Taking the statement by reference leaves constructs in place
/// (they are large) until their lowering takes them.
#[inline]
fn leaf(item: &Lab) -> Option<Region> {
    Some(match *item {
        Lab::Block(b) => Region::Block(b),
        Lab::Edge(from, to) => Region::Edge { from, to },
        Lab::Set(var, value) => Region::SetVar { var, value },
        Lab::Return(block) => Region::Return { block },
        Lab::Kill(block) => Region::Kill { block },
        Lab::Unreachable => Region::Unreachable,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Scope,
    Loop,
    Switch,
}

/// A tail (the labels reached by falling off the current position), as a node of the
/// lowerer's tail tree: tails only ever grow by one label at a scope, so each is its parent
/// plus a label, and sharing the parents saves copying a list for every construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tail(u32);

impl Tail {
    /// The empty tail.
    pub(crate) const EMPTY: Tail = Tail(u32::MAX);
}

pub(crate) struct Frame {
    kind: Kind,
    label: Label,
    /// The tail of the construct's own statement.
    tail: Tail,
    /// Labels that left this loop/switch through the exit variable and a `break`.
    escapes: Vec<Label>,
}

impl Frame {
    /// The frame of a construct of `kind` labeled `label` (`Label::MAX` for a switch), whose
    /// statement has the tail `tail`.
    pub(crate) fn new(kind: Kind, label: Label, tail: Tail) -> Frame {
        Frame {
            kind,
            label,
            tail,
            escapes: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Jump {
    Free,
    Continue,
    Break,
    Local,
    Ladder,
}

/// Labels an exit may still be pending for when a statement falls off its end.
type Pending = Vec<Label>;

pub(crate) struct Lowerer<'b> {
    /// The enclosing constructs, innermost last.
    pub(crate) frames: Vec<Frame>,
    /// The tail tree: node `i` is the label `tails[i].0` added to the tail `tails[i].1`.
    pub(crate) tails: Vec<(Label, Tail)>,
    exit: Var,
    exit_used: bool,
    depth: usize,
    /// The work budget (the direct merge walk charges its steps here too).
    pub(crate) budget: &'b mut Budget,
    /// Where the sequences read go (see [`LabPool`]).
    pool: LabPool,
    /// The tree's node list: every finished sequence is moved here as one range.
    pub(crate) nodes: Vec<Region>,
    /// The tree's switch arms: the arms of each switch are added here as one range.
    pub(crate) switch_arms: Vec<SwitchArm>,
    /// The sequences being built, innermost last: a sequence is started at the current end,
    /// and every sequence started after it is finished (moved to `nodes`) before it grows
    /// again, so each is a contiguous run at the end until it is finished itself.
    pub(crate) open: Vec<Region>,
}

/// Empty labeled-sequence buffers, handed from the lowering (which reads every sequence once)
/// back to the structurizers (which build them), so that most sequences cost no allocation.
pub(crate) type LabPool = Vec<Vec<Lab>>;

/// The most buffers a [`LabPool`] keeps.
const MAX_POOLED: usize = 256;

/// The largest capacity of a buffer a [`LabPool`] keeps.
const MAX_POOLED_CAPACITY: usize = 64;

thread_local! {
    /// This thread's [`LabPool`], taken for the length of one walk or lowering.
    static LAB_POOL: Cell<LabPool> = const { Cell::new(Vec::new()) };
}

/// Takes this thread's [`LabPool`]; give it back with [`keep_lab_pool`].
pub(crate) fn take_lab_pool() -> LabPool {
    LAB_POOL.take()
}

/// Gives a pool taken with [`take_lab_pool`] back to this thread.
pub(crate) fn keep_lab_pool(pool: LabPool) {
    LAB_POOL.set(pool);
}

/// An empty sequence with room for at least `capacity` items, from `pool` when it has one.
#[inline]
pub(crate) fn pooled_seq(pool: &mut LabPool, capacity: usize) -> Vec<Lab> {
    match pool.pop() {
        Some(mut seq) => {
            seq.reserve(capacity);
            seq
        }
        None => Vec::with_capacity(capacity),
    }
}

/// Empties `seq` and keeps its buffer in `pool`, within the pool's bounds.
#[inline]
pub(crate) fn recycle_seq(pool: &mut LabPool, mut seq: Vec<Lab>) {
    let capacity = seq.capacity();
    if capacity > 0 && capacity <= MAX_POOLED_CAPACITY && pool.len() < MAX_POOLED {
        seq.clear();
        pool.push(seq);
    }
}

/// The node and arm lists of a tree ([`Structured`](crate::Structured)).
pub(crate) type TreeLists = (Vec<Region>, Vec<SwitchArm>);

/// The most trees whose lists this thread keeps: a translation keeps every function's tree
/// until its end and then hands them all back, for the functions of the next module.
const MAX_SPARE_TREES: usize = 32;

/// The largest node (or arm) list kept for another tree: with [`MAX_SPARE_TREES`], the lists
/// a thread keeps stay under 1 MiB.
const MAX_SPARE_NODES: usize = 256;

thread_local! {
    /// The lists of trees handed back by [`Structured::recycle`](crate::Structured::recycle),
    /// for the next trees on this thread (at most [`MAX_SPARE_TREES`]).
    static SPARE_LISTS: Cell<Vec<TreeLists>> = const { Cell::new(Vec::new()) };
    /// This thread's open-sequence list of the exit lowering ([`Lowerer::open`]), kept
    /// between lowerings.
    static OPEN_SEQS: Cell<Vec<Region>> = const { Cell::new(Vec::new()) };
}

/// Empty node and arm lists for a new tree with room for `room` nodes: lists handed back on
/// this thread when there are some, so that a tree mostly costs no allocation, and room made
/// at once, so that the node list seldom grows while the tree is built.
pub(crate) fn spare_nodes(room: usize) -> TreeLists {
    let mut spare = SPARE_LISTS.take();
    let (mut nodes, switch_arms) = spare.pop().unwrap_or_default();
    SPARE_LISTS.set(spare);
    nodes.reserve(room);
    (nodes, switch_arms)
}

/// Keeps the lists of a finished tree for a later one on this thread (emptied, within
/// [`MAX_SPARE_TREES`] and [`MAX_SPARE_NODES`]; other lists are freed).
pub(crate) fn recycle_nodes(mut nodes: Vec<Region>, mut switch_arms: Vec<SwitchArm>) {
    if nodes.capacity() > MAX_SPARE_NODES || switch_arms.capacity() > MAX_SPARE_NODES {
        return;
    }
    let mut spare = SPARE_LISTS.take();
    if spare.len() < MAX_SPARE_TREES {
        // Regions are plain values: clearing them frees nothing; arms free their literals.
        nodes.clear();
        switch_arms.clear();
        spare.push((nodes, switch_arms));
    }
    SPARE_LISTS.set(spare);
}

/// [`Lowerer::frames`] and [`Lowerer::tails`], kept between lowerings.
type LowerTables = (Vec<Frame>, Vec<(Label, Tail)>);

thread_local! {
    /// This thread's [`Lowerer::frames`] and [`Lowerer::tails`] tables, taken for the length
    /// of one lowering so that a function costs no allocation for them.
    static LOWER_TABLES: Cell<LowerTables> = const { Cell::new((Vec::new(), Vec::new())) };
}

/// A lowered function body: the tree's node and arm lists, the body's sequence in them, and
/// whether the exit variable is used (then the body starts by zeroing it).
pub(crate) type Lowered = (TreeLists, Seq, bool);

/// Lowers a labeled body to region-tree form, using `exit` as the exit variable, into the
/// (empty) lists `lists`.
pub(crate) fn lower_exits(
    body: Vec<Lab>,
    exit: Var,
    budget: &mut Budget,
    lists: TreeLists,
) -> Result<Lowered, CfgError> {
    let (body, lists, used) = with_lowerer(exit, budget, lists, |l| l.body(body));
    Ok((lists, body?, used))
}

/// Runs `run` with a lowerer that writes into the (emptied) lists `lists` and takes its
/// tables from this thread's kept ones (given back afterwards); returns `run`'s result, the
/// lists and whether the exit variable was used.
pub(crate) fn with_lowerer<T>(
    exit: Var,
    budget: &mut Budget,
    lists: TreeLists,
    run: impl FnOnce(&mut Lowerer<'_>) -> T,
) -> (T, TreeLists, bool) {
    let (frames, tails) = LOWER_TABLES.take();
    let (nodes, switch_arms) = lists;
    let open = OPEN_SEQS.take();
    let mut l = Lowerer {
        frames,
        tails,
        pool: take_lab_pool(),
        nodes,
        switch_arms,
        open,
        exit,
        exit_used: false,
        depth: 0,
        budget,
    };
    l.frames.clear();
    l.tails.clear();
    l.nodes.clear();
    l.switch_arms.clear();
    l.open.clear();
    let result = run(&mut l);
    // Kept for the next function unless one huge function grew them (its memory must not
    // stay pinned for the rest of the thread's life).
    keep_lab_pool(std::mem::take(&mut l.pool));
    let mut open = std::mem::take(&mut l.open);
    if open.capacity() > crate::MAX_KEPT_ENTRIES {
        open = Vec::new();
    }
    open.clear();
    OPEN_SEQS.set(open);
    if l.frames.capacity().max(l.tails.capacity()) <= crate::MAX_KEPT_ENTRIES {
        LOWER_TABLES.set((l.frames, l.tails));
    }
    (result, (l.nodes, l.switch_arms), l.exit_used)
}

/// A source of labeled statements that knows whether more follow: the rest of a sequence,
/// possibly continued by the rest of an enclosing sequence (the push-in rewrite moves code
/// into an arm without copying it).
trait Items {
    fn next_item(&mut self) -> Option<Lab>;
    fn is_empty(&self) -> bool;
    /// `self` as a trait object, for the paths that read a sequence's rest through a
    /// [`Chain`] (the common paths are compiled for the concrete source).
    fn as_dyn(&mut self) -> &mut dyn Items;
}

/// A labeled sequence read front to back. Draining leaves the buffer empty but allocated, so
/// that it can go back to the [`LabPool`] once read.
impl Items for std::vec::Drain<'_, Lab> {
    fn next_item(&mut self) -> Option<Lab> {
        self.next()
    }
    fn is_empty(&self) -> bool {
        ExactSizeIterator::len(self) == 0
    }
    fn as_dyn(&mut self) -> &mut dyn Items {
        self
    }
}

/// `head` followed by what is left of `tail`.
struct Chain<'h, 't> {
    head: std::vec::Drain<'h, Lab>,
    tail: &'t mut dyn Items,
}

impl Items for Chain<'_, '_> {
    fn next_item(&mut self) -> Option<Lab> {
        self.head.next().or_else(|| self.tail.next_item())
    }
    fn is_empty(&self) -> bool {
        self.head.len() == 0 && self.tail.is_empty()
    }
    fn as_dyn(&mut self) -> &mut dyn Items {
        self
    }
}

/// The label of the jump an arm ends with: such an arm never falls through.
fn final_jump(arm: &[Lab]) -> Option<Label> {
    match arm.last() {
        Some(Lab::Br(l)) => Some(*l),
        _ => None,
    }
}

fn union(mut a: Pending, b: Pending) -> Pending {
    for l in b {
        if !a.contains(&l) {
            a.push(l);
        }
    }
    a
}

/// Whether control can never fall off the end of `body` (conservatively: it ends in a jump).
fn ends_in_jump(body: &[Region]) -> bool {
    matches!(
        body.last(),
        Some(
            Region::Break
                | Region::Continue
                | Region::Return { .. }
                | Region::Kill { .. }
                | Region::Unreachable
        )
    )
}

/// The range of `len` entries appended at position `at` of a tree list, as the `u32` pair a
/// [`Seq`] or [`Arms`] holds; `None` when it does not fit (a list past four billion entries,
/// which the work budget stops long before).
pub(crate) fn list_range(at: usize, len: usize) -> Option<(u32, u32)> {
    let at = u32::try_from(at).ok()?;
    let len = u32::try_from(len).ok()?;
    at.checked_add(len).map(|_| (at, len))
}

impl Lowerer<'_> {
    fn enter(&mut self) -> Result<(), CfgError> {
        if self.depth >= MAX_REGION_DEPTH {
            return Err(CfgError::DepthLimit {
                limit: MAX_REGION_DEPTH,
            });
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The value the exit variable holds while a jump to `l` is pending (0 means none).
    fn value(l: Label) -> Result<u32, CfgError> {
        l.checked_add(1)
            .ok_or(CfgError::Internal("label does not fit the exit variable"))
    }

    fn set_exit(&mut self, l: Label) -> Result<Region, CfgError> {
        self.exit_used = true;
        Ok(Region::SetVar {
            var: self.exit,
            value: Self::value(l)?,
        })
    }

    /// The tail `tail` with `l` added.
    pub(crate) fn tail_with(&mut self, tail: Tail, l: Label) -> Result<Tail, CfgError> {
        let node = u32::try_from(self.tails.len())
            .ok()
            .filter(|&n| n != Tail::EMPTY.0)
            .ok_or(CfgError::Internal("too many scopes"))?;
        self.tails.push((l, tail));
        Ok(Tail(node))
    }

    /// Whether `l` is in `tail`. Each node's parent was made before it (or is the empty tail),
    /// so the walk ends.
    fn in_tail(&self, tail: Tail, l: Label) -> bool {
        let mut at = tail;
        while let Some(&(label, parent)) = self.tails.get(at.0 as usize) {
            if label == l {
                return true;
            }
            at = parent;
        }
        false
    }

    pub(crate) fn classify(&self, l: Label, tail: Tail) -> Result<Jump, CfgError> {
        if self.in_tail(tail, l) {
            return Ok(Jump::Free);
        }
        let j = self
            .frames
            .iter()
            .rposition(|f| f.kind != Kind::Switch && f.label == l)
            .ok_or(CfgError::Internal(
                "jump to a label that does not enclose it",
            ))?;
        let crossing = &self.frames[j + 1..];
        Ok(match self.frames[j].kind {
            Kind::Loop => {
                if crossing.iter().any(|f| f.kind == Kind::Loop) {
                    Jump::Ladder
                } else {
                    Jump::Continue
                }
            }
            _ => match crossing.iter().rev().find(|f| f.kind != Kind::Scope) {
                None => Jump::Local,
                Some(b) if self.in_tail(b.tail, l) => Jump::Break,
                Some(_) => Jump::Ladder,
            },
        })
    }

    fn record_escape(&mut self, l: Label) -> Result<(), CfgError> {
        let f = self
            .frames
            .iter_mut()
            .rev()
            .find(|f| f.kind != Kind::Scope)
            .ok_or(CfgError::Internal("ladder without a loop or switch"))?;
        if !f.escapes.contains(&l) {
            f.escapes.push(l);
        }
        Ok(())
    }

    /// Moves the open sequence that starts at `start` (the last one opened) to the tree's
    /// node list.
    pub(crate) fn finish(&mut self, start: usize) -> Result<Seq, CfgError> {
        let len = self.open.len().saturating_sub(start);
        if len == 0 {
            return Ok(Seq::EMPTY);
        }
        let (at, len) =
            list_range(self.nodes.len(), len).ok_or(CfgError::Internal("too many regions"))?;
        let seq = Seq::new(at, len);
        // Regions are plain values: the run is copied as one block.
        self.nodes
            .extend_from_slice(self.open.get(start..).unwrap_or(&[]));
        self.open.truncate(start);
        Ok(seq)
    }

    /// A sequence of the regions `items`, added to the node list directly (it holds no
    /// construct whose sequences would have to be finished first).
    fn list<const N: usize>(&mut self, items: [Region; N]) -> Result<Seq, CfgError> {
        let start = self.open.len();
        self.open.extend(items);
        self.finish(start)
    }

    /// The regions of a finished sequence.
    fn regions(&self, seq: Seq) -> &[Region] {
        self.nodes.get(seq.range()).unwrap_or(&[])
    }

    /// Lowers the function body `items`: the tree's top-level sequence.
    fn body(&mut self, items: Vec<Lab>) -> Result<Seq, CfgError> {
        if !self.seq_open(items, Tail::EMPTY)?.is_empty() {
            return Err(CfgError::Internal(
                "exit pending at the end of the function",
            ));
        }
        if self.exit_used {
            self.open.insert(
                0,
                Region::SetVar {
                    var: self.exit,
                    value: 0,
                },
            );
        }
        self.finish(0)
    }

    /// Lowers the sequence `items` into a new sequence of the tree.
    fn seq(&mut self, items: Vec<Lab>, tail: Tail) -> Result<(Seq, Pending), CfgError> {
        let start = self.open.len();
        let pending = self.seq_open(items, tail)?;
        Ok((self.finish(start)?, pending))
    }

    /// Lowers the sequence `items` onto the end of the open sequence, then hands its emptied
    /// buffer back to the pool.
    fn seq_open(&mut self, mut items: Vec<Lab>, tail: Tail) -> Result<Pending, CfgError> {
        let pending = self.seq_into(&mut items.drain(..), tail);
        recycle_seq(&mut self.pool, items);
        pending
    }

    /// Lowers the sequence `items` onto the end of the open sequence.
    fn seq_into<I: Items + ?Sized>(
        &mut self,
        items: &mut I,
        tail: Tail,
    ) -> Result<Pending, CfgError> {
        self.enter()?;
        let r = self.seq_inner(items, tail);
        self.leave();
        r
    }

    fn seq_inner<I: Items + ?Sized>(
        &mut self,
        items: &mut I,
        tail: Tail,
    ) -> Result<Pending, CfgError> {
        while let Some(item) = items.next_item() {
            self.budget.charge(1)?;
            // A leaf is one region that never leaves an exit pending, wherever it stands.
            if let Some(region) = leaf(&item) {
                self.open.push(region);
                continue;
            }
            if items.is_empty() {
                return self.stmt(item, tail);
            }
            if let Some(p) = self.followed(item, items.as_dyn(), tail)? {
                return Ok(p);
            }
        }
        Ok(Vec::new())
    }

    /// Lowers `item` (a construct or a jump), which `rest` follows, onto the open sequence.
    /// Returns `Some(pending)` when it also consumed `rest` (moved into an arm, or guarded
    /// because an exit may be pending).
    fn followed(
        &mut self,
        item: Lab,
        rest: &mut dyn Items,
        tail: Tail,
    ) -> Result<Option<Pending>, CfgError> {
        if let Some(jump_is_then) = self.push_in(&item)?
            && let Lab::If(cond, a, b) = item
        {
            let (jump, other) = if jump_is_then { (a, b) } else { (b, a) };
            // The rest of the sequence continues the non-jumping arm; it is read from
            // `rest` in place, never copied.
            let (rj, pj) = self.seq(jump, tail)?;
            let start = self.open.len();
            let mut other = other;
            let po = self.seq_into(
                &mut Chain {
                    head: other.drain(..),
                    tail: rest,
                },
                tail,
            );
            recycle_seq(&mut self.pool, other);
            let po = po?;
            let ro = self.finish(start)?;
            let (then_, else_) = if jump_is_then { (rj, ro) } else { (ro, rj) };
            self.push_if(cond, then_, else_);
            return Ok(Some(union(pj, po)));
        }
        let p = self.stmt(item, Tail::EMPTY)?;
        if p.is_empty() {
            return Ok(None);
        }
        let start = self.open.len();
        let rp = self.seq_into(rest, tail)?;
        let guarded = self.finish(start)?;
        if !guarded.is_empty() {
            self.open.push(Region::If {
                cond: Cond::VarEq {
                    var: self.exit,
                    value: 0,
                },
                then_: guarded,
                else_: Seq::EMPTY,
            });
        }
        Ok(Some(union(p, rp)))
    }

    /// Appends an `If` to the open sequence, normalised: nothing when both arms are empty;
    /// arms swapped (condition negated) when only `then_` is empty.
    pub(crate) fn push_if(&mut self, cond: Cond, then_: Seq, else_: Seq) {
        match (then_.is_empty(), else_.is_empty(), cond) {
            (true, true, _) => {}
            (true, false, cond) => self.open.push(Region::If {
                cond: cond.negated(),
                then_: else_,
                else_: then_,
            }),
            _ => self.open.push(Region::If { cond, then_, else_ }),
        }
    }

    /// The push-in rewrite of the module docs: when `item` is an `If` with an arm ending in
    /// a jump that would be a local exit, whether that arm is `then` (`Some(true)`) or `else`
    /// (`Some(false)`); `None` otherwise.
    fn push_in(&self, item: &Lab) -> Result<Option<bool>, CfgError> {
        let Lab::If(_, a, b) = item else {
            return Ok(None);
        };
        let local = |arm: &[Lab]| -> Result<bool, CfgError> {
            match final_jump(arm) {
                Some(l) => Ok(self.classify(l, Tail::EMPTY)? == Jump::Local),
                None => Ok(false),
            }
        };
        Ok(if local(a)? {
            Some(true)
        } else if local(b)? {
            Some(false)
        } else {
            None
        })
    }

    // The lowering recurses once per nesting level of the labeled form, so each construct
    // gets its own small function: one large `match` would give every level the stack frame
    // of all arms together (several KiB in debug builds).
    // Each construct appends its regions to the open sequence (the enclosing one) and returns
    // the labels an exit may be pending for.
    fn stmt(&mut self, item: Lab, tail: Tail) -> Result<Pending, CfgError> {
        if let Some(region) = leaf(&item) {
            self.open.push(region);
            return Ok(Vec::new());
        }
        match item {
            Lab::Block(_)
            | Lab::Edge(..)
            | Lab::Set(..)
            | Lab::Return(_)
            | Lab::Kill(_)
            | Lab::Unreachable => Err(CfgError::Internal("a leaf that is not one")),
            Lab::Br(l) => self.br(l, tail),
            Lab::If(cond, a, b) => self.if_(cond, a, b, tail),
            Lab::Scope(l, body) => self.scope(l, body, tail),
            Lab::Loop(l, body) => self.loop_(l, body, tail),
            Lab::Switch(selector, arms) => self.switch(selector, arms, tail),
        }
    }

    fn br(&mut self, l: Label, tail: Tail) -> Result<Pending, CfgError> {
        Ok(match self.classify(l, tail)? {
            Jump::Free => Vec::new(),
            Jump::Continue => {
                self.open.push(Region::Continue);
                Vec::new()
            }
            Jump::Break => {
                self.open.push(Region::Break);
                Vec::new()
            }
            Jump::Local => {
                let set = self.set_exit(l)?;
                self.open.push(set);
                vec![l]
            }
            Jump::Ladder => {
                self.record_escape(l)?;
                let set = self.set_exit(l)?;
                self.open.push(set);
                self.open.push(Region::Break);
                Vec::new()
            }
        })
    }

    fn if_(
        &mut self,
        cond: Cond,
        a: Vec<Lab>,
        b: Vec<Lab>,
        tail: Tail,
    ) -> Result<Pending, CfgError> {
        let (ra, pa) = self.seq(a, tail)?;
        let (rb, pb) = self.seq(b, tail)?;
        self.push_if(cond, ra, rb);
        Ok(union(pa, pb))
    }

    /// A scope's body continues the enclosing sequence: its regions go straight onto it.
    fn scope(&mut self, l: Label, body: Vec<Lab>, tail: Tail) -> Result<Pending, CfgError> {
        let body_tail = self.tail_with(tail, l)?;
        self.frames.push(Frame {
            kind: Kind::Scope,
            label: l,
            tail,
            escapes: Vec::new(),
        });
        let res = self.seq_open(body, body_tail);
        self.frames.pop();
        let mut p = res?;
        if let Some(i) = p.iter().position(|&x| x == l) {
            p.remove(i);
            let reset = Region::SetVar {
                var: self.exit,
                value: 0,
            };
            if p.is_empty() {
                // Only 0 or `l` can be pending here, so an unconditional reset is exact.
                self.open.push(reset);
            } else {
                let then_ = self.list([reset])?;
                self.open.push(Region::If {
                    cond: Cond::VarEq {
                        var: self.exit,
                        value: Self::value(l)?,
                    },
                    then_,
                    else_: Seq::EMPTY,
                });
            }
        }
        Ok(p)
    }

    fn loop_(&mut self, l: Label, body: Vec<Lab>, tail: Tail) -> Result<Pending, CfgError> {
        let body_tail = self.tail_with(Tail::EMPTY, l)?;
        self.frames.push(Frame {
            kind: Kind::Loop,
            label: l,
            tail,
            escapes: Vec::new(),
        });
        let res = self.seq(body, body_tail);
        let frame = self.frames.pop();
        let (r, p) = res?;
        if !p.is_empty() {
            return Err(CfgError::Internal("exit pending at the end of a loop body"));
        }
        self.open.push(Region::Loop { body: r });
        let escapes = frame.map(|f| f.escapes).unwrap_or_default();
        self.ladder(escapes, tail)
    }

    fn switch(
        &mut self,
        selector: BlockIdx,
        arms: Vec<LabArm>,
        tail: Tail,
    ) -> Result<Pending, CfgError> {
        self.frames.push(Frame {
            kind: Kind::Switch,
            label: Label::MAX,
            tail,
            escapes: Vec::new(),
        });
        let res = self.arms(arms, tail);
        let frame = self.frames.pop();
        let arms = self.prune_break_arms(res?)?;
        if !arms.is_empty() {
            let (at, len) = list_range(self.switch_arms.len(), arms.len())
                .ok_or(CfgError::Internal("too many switch arms"))?;
            self.switch_arms.extend(arms);
            let arms = Arms::new(at, len);
            self.open.push(Region::Switch { selector, arms });
        }
        let escapes = frame.map(|f| f.escapes).unwrap_or_default();
        self.ladder(escapes, tail)
    }

    fn arms(&mut self, arms: Vec<LabArm>, tail: Tail) -> Result<Vec<SwitchArm>, CfgError> {
        let count = arms.len();
        let mut out = Vec::with_capacity(count);
        for (i, arm) in arms.into_iter().enumerate() {
            // Falling off an arm enters the next one; only the last arm's end is the tail.
            let arm_tail = if i + 1 == count { tail } else { Tail::EMPTY };
            let (body, p) = self.seq(arm.body, arm_tail)?;
            if !p.is_empty() {
                return Err(CfgError::Internal("exit pending at the end of an arm"));
            }
            out.push(SwitchArm {
                literals: arm.literals,
                default: arm.default,
                body,
            });
        }
        Ok(out)
    }

    /// Drops switch arms that only `break`: entering them is the same as matching no arm,
    /// provided no default arm remains and the arm before cannot fall into them.
    pub(crate) fn prune_break_arms(
        &mut self,
        arms: Vec<SwitchArm>,
    ) -> Result<Vec<SwitchArm>, CfgError> {
        let count = arms.len();
        // An arm that only leaves the switch: `break`, or nothing at all in the last arm.
        let only_break = |nodes: &Self, i: usize, a: &SwitchArm| match nodes.regions(a.body) {
            [Region::Break] => true,
            [] => i + 1 == count,
            _ => false,
        };
        let mut kept: Vec<SwitchArm> = Vec::with_capacity(count);
        // First the default: a default arm that only leaves is no default at all.
        let mut arms = arms;
        for i in 0..count {
            let prev_falls = i > 0 && !ends_in_jump(self.regions(arms[i - 1].body));
            if arms[i].default && only_break(self, i, &arms[i]) && !prev_falls {
                arms[i].default = false;
            }
        }
        let has_default = arms.iter().any(|a| a.default);
        for (i, arm) in arms.into_iter().enumerate() {
            let prev_falls = kept
                .last()
                .is_some_and(|p| !ends_in_jump(self.regions(p.body)));
            if arm.literals.is_empty() && !arm.default {
                // No longer enterable directly: only the fall-through from the arm before
                // reaches it, so it becomes the tail of that arm (or disappears). The joined
                // body is a new sequence: copies of both bodies' regions, which name the same
                // nested sequences.
                if prev_falls && let Some(p) = kept.last_mut() {
                    let start = self.open.len();
                    for seq in [p.body, arm.body] {
                        let regions = self.nodes.get(seq.range()).unwrap_or(&[]);
                        self.open.extend_from_slice(regions);
                    }
                    p.body = self.finish(start)?;
                }
                continue;
            }
            if !has_default && only_break(self, i, &arm) && !prev_falls {
                continue;
            }
            kept.push(arm);
        }
        Ok(kept)
    }

    /// After a loop or switch that exits were routed out of, continue each exit from here.
    fn ladder(&mut self, escapes: Vec<Label>, tail: Tail) -> Result<Pending, CfgError> {
        let mut kinds = Vec::with_capacity(escapes.len());
        for l in escapes {
            self.budget.charge(1)?;
            kinds.push((l, self.classify(l, tail)?));
        }
        let pending: Pending = kinds
            .iter()
            .filter(|k| k.1 == Jump::Local)
            .map(|k| k.0)
            .collect();
        // Exits that only pass through (another `break` outward) share one test when no exit
        // stays pending here: after the arriving exits are handled, any non-zero value is one
        // of them.
        let pass_through = kinds.iter().filter(|k| k.1 == Jump::Ladder).count();
        let combine = pass_through > 1 && pending.is_empty();
        for &(l, kind) in &kinds {
            let reset = Region::SetVar {
                var: self.exit,
                value: 0,
            };
            let arm = match kind {
                Jump::Free => self.list([reset])?,
                Jump::Continue => self.list([reset, Region::Continue])?,
                Jump::Break => self.list([reset, Region::Break])?,
                Jump::Local => continue,
                Jump::Ladder => {
                    self.record_escape(l)?;
                    if combine {
                        continue;
                    }
                    self.list([Region::Break])?
                }
            };
            self.open.push(Region::If {
                cond: Cond::VarEq {
                    var: self.exit,
                    value: Self::value(l)?,
                },
                then_: arm,
                else_: Seq::EMPTY,
            });
        }
        if combine {
            let then_ = self.list([Region::Break])?;
            self.open.push(Region::If {
                cond: Cond::VarNe {
                    var: self.exit,
                    value: 0,
                },
                then_,
                else_: Seq::EMPTY,
            });
        }
        Ok(pending)
    }
}
