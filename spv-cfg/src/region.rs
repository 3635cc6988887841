//! The structured region tree: what the lowering to a structured target (AMD IL) consumes.
//!
//! # Semantics
//!
//! A function body is a sequence of regions executed in order. The tree is flat: every
//! sequence (a function body, an arm of an `If`, a loop body, a switch arm) is a [`Seq`], a
//! range of the [`Structured`] tree's one node list, read with [`Structured::regions`]. The
//! constructs and their control transfers are exactly those of AMD IL (`amd-il.md` §6.1,
//! §7.6), so each maps 1:1 onto IL flow-control instructions with no further analysis:
//!
//! | Region | Meaning | IL |
//! |---|---|---|
//! | [`Region::Block`]`(b)` | Execute the body of block `b`: every instruction except `OpLabel`, `OpPhi`, the merge instruction and the terminator. | the block's instructions |
//! | [`Region::Edge`]`{from, to}` | The CFG edge `from → to` is taken *here*: perform the `OpPhi` copies of `to` for predecessor `from`, as one parallel copy. Emitted only for edges into blocks with phis ([`BlockData::has_phis`](crate::BlockData::has_phis)), and always after `Block(from)` and before `Block(to)`. | copies |
//! | [`Region::If`] | Test [`Cond`]; run `then_` or `else_`; continue after the `If`. | `if_logicalnz`/`else`/`endif` |
//! | [`Region::Loop`] | Run `body` forever: falling off its end starts the next iteration. Only `Break` (or a function exit) leaves it. | `whileloop` … `endloop` |
//! | [`Region::Switch`] | Select the arm whose `literals` contain the selector value of block `selector`'s `OpSwitch`, else the arm marked `default`, else skip the switch. Run arm bodies from there on **with C fall-through**: falling off an arm's end enters the next arm's body; falling off the last arm leaves the switch. | `switch`/`case`/`default`/`endswitch` |
//! | [`Region::Break`] | Leave the innermost enclosing `Loop` **or** `Switch`. | `break` |
//! | [`Region::Continue`] | Start the next iteration of the innermost enclosing `Loop`, crossing any `Switch` in between (AMD IL guide §7.4: CONTINUE resumes at the previous LOOP/WHILELOOP). | `continue` |
//! | [`Region::SetVar`] | Assign a synthetic variable. | `mov` |
//! | [`Region::Return`], [`Region::Kill`], [`Region::Unreachable`] | Function exits. | `ret_dyn`, `discard`…, nothing/trap |
//!
//! `Break` and `Continue` always refer to the *innermost* construct of the kind above, never to
//! an outer one: exits that cross several loops or switches are already expanded into synthetic
//! variables and single-level breaks, so the lowering never needs labels.
//!
//! # Conditions and when they may be read
//!
//! [`Cond::Branch`]`{block, value}` is true when the condition operand of `block`'s
//! `OpBranchConditional` equals `value`; a [`Region::Switch`] reads the selector of `block`'s
//! `OpSwitch`. Both are only read after `Block(block)` has executed and before it executes
//! again, so the SSA value is current; no `Edge` or `SetVar` between them changes it.
//!
//! # Synthetic variables
//!
//! Variables are numbered `0..num_vars` ([`Structured::num_vars`]); each holds a small unsigned
//! integer (an IL register component is enough). The tree always assigns a variable before
//! any path reads it, so no initialisation is needed. Two kinds exist:
//! * the *exit variable* carries a pending multi-level exit (a `break` out of a loop from inside
//!   a switch, a `continue` past code that must be skipped, ...): 0 means nothing is pending.
//!   The tree sets it, leaves constructs with `Break`, tests it after each construct
//!   ("ladder"), and resets it to 0 where the exit arrives. When used, the body starts with
//!   `SetVar { var, value: 0 }`;
//! * the *dispatch variable* of an irreducible loop (one per such loop) tells the loop's
//!   dispatcher which entry block runs next.
//!
//! # Which blocks appear
//!
//! Every block reachable from the entry over branch edges appears in exactly one `Block` node
//! (nothing is duplicated, so barriers are never duplicated either; `spirv.md` §3.8).
//! Unreachable blocks do not appear. Every path through the body ends in `Return`, `Kill` or
//! `Unreachable`.
//!
//! # Lowering notes
//!
//! * `If { cond, then_: [Break], else_: [] }` is `break_logicalnz`/`break_logicalz`, and the
//!   same for `Continue`; `Return` inside any construct is `ret_dyn`.
//! * [`Cond::Branch`] with `value: false` tests the condition for zero (`if_logicalz`).
//! * `then_` is never empty unless `else_` is too (the condition is negated instead).
//! * A switch arm may have several literals (several `case` lines before one body); an arm
//!   with `default: true` may also have literals. Literals are raw SPIR-V words (see
//!   [`Terminator::Switch`](crate::Terminator::Switch), whose `selector_bits` gives the
//!   width); IL `case` takes 32 bits, so 64-bit selectors need care.
//! * Phi copies of one `Edge` must be parallel (`spirv.md` §3.6, the "swap problem").
//!
//! # Example
//!
//! A loop whose body ends in a switch, where case 1 breaks the *loop* (legal SPIR-V that C
//! cannot say), prints (with [`region_text`](crate::region_text)) as:
//!
//! ```text
//! v0 = 0                   exit variable: nothing pending
//! block b0
//! loop {
//!   block b1
//!   block b2
//!   switch b2 {            OpSwitch of b2
//!   case 1:
//!     block b3
//!     v0 = 7               pending: jump to b6 (label + 1)
//!     break                leaves the switch only
//!   default:
//!     block b4
//!   }
//!   if v0 == 7 {           ladder after the switch
//!     v0 = 0
//!     break                leaves the loop
//!   }
//!   block b7
//!   block b5
//!   if !b5 {               b5's OpBranchConditional is false: the exit edge
//!     break
//!   }
//! }
//! block b6
//! return (b6)
//! ```

use crate::cfg::BlockIdx;

/// A synthetic variable of the region tree, numbered from 0 per function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// The condition of an [`Region::If`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// The `OpBranchConditional` condition of `block` is `value`.
    Branch {
        /// The block ending in `OpBranchConditional`.
        block: BlockIdx,
        /// `true`: the branch to the true label is taken; `false`: the false label.
        value: bool,
    },
    /// The synthetic variable `var` holds `value`.
    VarEq {
        /// The variable.
        var: Var,
        /// The compared value.
        value: u32,
    },
    /// The synthetic variable `var` does not hold `value`.
    VarNe {
        /// The variable.
        var: Var,
        /// The compared value.
        value: u32,
    },
}

impl Cond {
    /// The opposite condition.
    pub fn negated(self) -> Cond {
        match self {
            Cond::Branch { block, value } => Cond::Branch {
                block,
                value: !value,
            },
            Cond::VarEq { var, value } => Cond::VarNe { var, value },
            Cond::VarNe { var, value } => Cond::VarEq { var, value },
        }
    }
}

/// One arm of a [`Region::Switch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchArm {
    /// Case literals that enter this arm, as written in the `OpSwitch` (see
    /// [`Terminator::Switch`](crate::Terminator::Switch) for their encoding).
    pub literals: Vec<u64>,
    /// Whether this arm is also the `default` entry (at most one arm is).
    pub default: bool,
    /// The arm's body; falling off its end continues into the next arm's body.
    pub body: Seq,
}

/// The arms of a [`Region::Switch`]: a range of the switch arms of the [`Structured`] tree it
/// belongs to, read with [`Structured::arms`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Arms {
    /// The first arm's position in the tree's arm list.
    start: u32,
    /// The number of arms.
    len: u32,
}

impl Arms {
    /// The arms `start..start + len` of a tree's arm list (crate-internal: only the builders
    /// of a tree know its arm list).
    pub(crate) fn new(start: u32, len: u32) -> Arms {
        Arms { start, len }
    }

    /// The number of arms.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether there is no arm.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The arm positions.
    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

/// A sequence of regions: a range of the nodes of the [`Structured`] tree it belongs to,
/// read with [`Structured::regions`]. The tree keeps all its nodes in one list (children
/// before the sequences that name them), so a tree is one allocation and its walk stays in
/// one buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Seq {
    /// The first node's position in the tree's node list.
    start: u32,
    /// The number of regions.
    len: u32,
}

impl Seq {
    /// The empty sequence.
    pub const EMPTY: Seq = Seq { start: 0, len: 0 };

    /// The sequence of `len` nodes from position `start` (crate-internal: only the builders
    /// of a tree know its node list).
    pub(crate) fn new(start: u32, len: u32) -> Seq {
        Seq { start, len }
    }

    /// The number of regions in the sequence.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether the sequence has no region.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The node positions of the sequence.
    pub(crate) fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

/// A node of the region tree; see the [module documentation](crate::region) for the exact
/// semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Execute the body of a block.
    Block(BlockIdx),
    /// Take the CFG edge `from → to` here (phi copies of `to` for predecessor `from`).
    Edge {
        /// The predecessor block.
        from: BlockIdx,
        /// The successor block (which has phis).
        to: BlockIdx,
    },
    /// Two-way selection. `then_` is never empty unless `else_` is too (the condition is
    /// negated instead).
    If {
        /// The tested condition.
        cond: Cond,
        /// Runs when the condition holds.
        then_: Seq,
        /// Runs otherwise (often empty).
        else_: Seq,
    },
    /// An infinite loop, left only by `Break` or a function exit.
    Loop {
        /// The loop body; falling off its end starts the next iteration.
        body: Seq,
    },
    /// A C-style switch with fall-through between consecutive arms.
    Switch {
        /// The block whose `OpSwitch` selector is tested.
        selector: BlockIdx,
        /// The arms in order (read with [`Structured::arms`]).
        arms: Arms,
    },
    /// Leave the innermost enclosing `Loop` or `Switch`.
    Break,
    /// Next iteration of the innermost enclosing `Loop`.
    Continue,
    /// Assign `value` to a synthetic variable.
    SetVar {
        /// The variable.
        var: Var,
        /// The assigned value.
        value: u32,
    },
    /// Leave the function through `block`'s `OpReturn` / `OpReturnValue`.
    Return {
        /// The returning block (its terminator holds the returned value, if any).
        block: BlockIdx,
    },
    /// End the invocation through `block`'s `OpKill`, `OpTerminateInvocation` or extension
    /// terminator ([`Terminator::OtherExit`](crate::Terminator::OtherExit)).
    Kill {
        /// The block ending in the kill.
        block: BlockIdx,
    },
    /// Control never gets here (`OpUnreachable`, or an unreachable merge block).
    Unreachable,
}

/// Which algorithm produced a region tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Built from the merge instructions (SPIR-V §2.11 structured control flow).
    Merges,
    /// Built by the general structurizer from dominance and loop analysis alone.
    General,
}

/// Counts describing a region tree, for reports and code-growth measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionStats {
    /// `Block` nodes (equals the number of reachable blocks: nothing is duplicated).
    pub blocks: usize,
    /// `Edge` nodes.
    pub edges: usize,
    /// All nodes.
    pub nodes: usize,
    /// Nodes that exist only for structuring: `SetVar` and `If`s testing a variable.
    pub synthetic: usize,
    /// `Loop` nodes.
    pub loops: usize,
    /// Deepest nesting of `If`/`Loop`/`Switch`.
    pub depth: usize,
}

/// The structured form of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    /// Every region of the tree; the sequences ([`Seq`]) are ranges of this list. A sequence
    /// only names nodes placed before the node that holds it, so every walk from
    /// [`Structured::body`] ends.
    nodes: Vec<Region>,
    /// Every switch arm of the tree; [`Region::Switch`] names a range of this list.
    switch_arms: Vec<SwitchArm>,
    /// The function body.
    pub body: Seq,
    /// Number of synthetic variables used (`Var(0)..Var(num_vars)`).
    pub num_vars: u32,
    /// The algorithm that produced `body`.
    pub strategy: Strategy,
    /// When merge instructions were requested but could not be followed, why the general
    /// structurizer was used instead.
    pub fallback_reason: Option<String>,
}

impl Structured {
    /// A tree of the node list `nodes` and arm list `switch_arms` whose body is `body` (the
    /// builders' constructor).
    pub(crate) fn new(
        (nodes, switch_arms): (Vec<Region>, Vec<SwitchArm>),
        body: Seq,
        num_vars: u32,
        strategy: Strategy,
        fallback_reason: Option<String>,
    ) -> Structured {
        Structured {
            nodes,
            switch_arms,
            body,
            num_vars,
            strategy,
            fallback_reason,
        }
    }

    /// The regions of the sequence `seq` of this tree, in order (empty for a sequence of
    /// another tree that does not fit this one's nodes).
    pub fn regions(&self, seq: Seq) -> &[Region] {
        self.nodes.get(seq.range()).unwrap_or(&[])
    }

    /// The arms `arms` of a switch of this tree, in order (empty for arms of another tree
    /// that do not fit this one's arm list).
    pub fn arms(&self, arms: Arms) -> &[SwitchArm] {
        self.switch_arms.get(arms.range()).unwrap_or(&[])
    }

    /// Drops the tree, keeping its node list (within fixed bounds) for the next
    /// [`structurize`](crate::structurize) on this thread, whose tree then mostly costs no
    /// allocation. Dropping the tree instead is always correct, only slower when many
    /// functions are structurized one after another.
    pub fn recycle(self) {
        crate::lab::recycle_nodes(self.nodes, self.switch_arms);
    }

    /// Counts nodes of the tree (iteratively; no recursion).
    pub fn stats(&self) -> RegionStats {
        let mut s = RegionStats::default();
        let mut stack: Vec<(Seq, usize)> = vec![(self.body, 0)];
        while let Some((seq, depth)) = stack.pop() {
            s.depth = s.depth.max(depth);
            for r in self.regions(seq) {
                s.nodes += 1;
                match r {
                    Region::Block(_) => s.blocks += 1,
                    Region::Edge { .. } => s.edges += 1,
                    Region::SetVar { .. } => s.synthetic += 1,
                    Region::If { cond, then_, else_ } => {
                        if matches!(cond, Cond::VarEq { .. } | Cond::VarNe { .. }) {
                            s.synthetic += 1;
                        }
                        stack.push((*then_, depth + 1));
                        stack.push((*else_, depth + 1));
                    }
                    Region::Loop { body } => {
                        s.loops += 1;
                        stack.push((*body, depth + 1));
                    }
                    Region::Switch { arms, .. } => {
                        for a in self.arms(*arms) {
                            stack.push((a.body, depth + 1));
                        }
                    }
                    _ => {}
                }
            }
        }
        s
    }
}
