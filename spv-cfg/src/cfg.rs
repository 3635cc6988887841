//! The abstract control-flow graph of one function.
//!
//! A [`Cfg`] knows blocks only by dense indices ([`BlockIdx`], entry = 0), their block
//! terminators (SPIR-V §3.3.17, digest `spirv.md` §3.6) and their merge instructions
//! (`spirv.md` §3.2). Everything else in this crate works on this abstraction, so it can be
//! built by hand in tests or from a SPIR-V function with [`Cfg::from_function`] (or, for a
//! validated module, [`Cfg::from_validated`]).
//!
//! Invariant established by [`Cfg::new`] and relied on by every algorithm of the crate: every
//! [`BlockIdx`] stored in a `Cfg` (terminator targets, merge blocks, continue targets) is below
//! [`Cfg::len`], which itself fits in `u32`. Internal code indexes per-block tables with such
//! indices; that indexing cannot fail.

use crate::error::CfgError;
use std::fmt;

/// Switches with at most this many cases find repeated targets by scanning their own
/// successor list instead of a per-block table.
const SHORT_SWITCH: usize = 16;

/// Dense index of a block inside one function, in the order the blocks appear in the module.
/// The entry block is `BlockIdx(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockIdx(pub u32);

impl BlockIdx {
    /// The index as a `usize`, for indexing per-block tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BlockIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

/// How a block ends (SPIR-V §2.2.5 "block termination instruction").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// `OpBranch`; also used for an `OpBranchConditional` whose two targets are equal (legal
    /// before SPIR-V 1.6, `spirv.md` §3.6), since such a branch has a single successor.
    Branch(BlockIdx),
    /// `OpBranchConditional` with two different targets.
    BranchConditional {
        /// Target taken when the condition is true.
        true_target: BlockIdx,
        /// Target taken when the condition is false.
        false_target: BlockIdx,
    },
    /// `OpSwitch`.
    Switch {
        /// Width of the selector's integer type in bits (the literals are that wide).
        selector_bits: u32,
        /// Target taken when no literal matches.
        default: BlockIdx,
        /// `(literal, target)` pairs in module order. A 64-bit literal keeps its low word in
        /// the low 32 bits; narrower literals are zero-extended words as written in the module.
        cases: Vec<(u64, BlockIdx)>,
    },
    /// `OpReturn`.
    Return,
    /// `OpReturnValue`.
    ReturnValue,
    /// `OpKill`.
    Kill,
    /// `OpTerminateInvocation`.
    TerminateInvocation,
    /// An extension's block terminator that ends the invocation (`OpIgnoreIntersectionKHR`,
    /// `OpTerminateRayKHR`, `OpEmitMeshTasksEXT`), with its raw opcode.
    OtherExit {
        /// The raw opcode.
        opcode: u16,
    },
    /// `OpUnreachable`.
    Unreachable,
}

impl Terminator {
    /// The successor blocks named by this terminator, in operand order, with repeats.
    pub fn targets(&self) -> impl Iterator<Item = BlockIdx> + '_ {
        let (first, second, cases): (_, _, &[(u64, BlockIdx)]) = match self {
            Terminator::Branch(t) => (Some(*t), None, &[]),
            Terminator::BranchConditional {
                true_target,
                false_target,
            } => (Some(*true_target), Some(*false_target), &[]),
            Terminator::Switch { default, cases, .. } => (Some(*default), None, cases),
            _ => (None, None, &[]),
        };
        first
            .into_iter()
            .chain(second)
            .chain(cases.iter().map(|c| c.1))
    }

    /// True for the function termination instructions (no successor).
    pub fn is_function_exit(&self) -> bool {
        !matches!(
            self,
            Terminator::Branch(_)
                | Terminator::BranchConditional { .. }
                | Terminator::Switch { .. }
        )
    }
}

/// The merge instruction of a block, if any (SPIR-V §2.11.1, `spirv.md` §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// No merge instruction.
    None,
    /// `OpSelectionMerge %merge`.
    Selection {
        /// The merge block.
        merge: BlockIdx,
    },
    /// `OpLoopMerge %merge %continue`.
    Loop {
        /// The merge block.
        merge: BlockIdx,
        /// The continue target.
        continue_target: BlockIdx,
    },
}

/// Everything the crate needs to know about one block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockData {
    /// The SPIR-V result id of the block's `OpLabel` (0 for abstract graphs); used for printing.
    pub label: u32,
    /// The block's terminator.
    pub terminator: Terminator,
    /// The block's merge instruction.
    pub merge: Merge,
    /// Whether the block starts with at least one `OpPhi`. The region tree reports an
    /// [`Edge`](crate::Region::Edge) only for edges into such blocks, since edges into other
    /// blocks carry no copies.
    pub has_phis: bool,
}

impl BlockData {
    /// A block with the given terminator, no merge instruction, no phis and no label id.
    pub fn new(terminator: Terminator) -> BlockData {
        BlockData {
            label: 0,
            terminator,
            merge: Merge::None,
            has_phis: false,
        }
    }
}

/// The control-flow graph of one function: blocks with terminators and merge instructions,
/// plus successor lists (predecessors are found from them on request, [`Cfg::preds`]).
///
/// Successors of a block are distinct and in operand order (`OpSwitch`: default first, then
/// cases). Predecessors are distinct and sorted by index. Only *branch* edges are successors;
/// merge and continue edges (the extra "structured" edges of SPIR-V §2.2.5) are available from
/// [`Cfg::structured_succs`].
#[derive(Clone, Debug)]
pub struct Cfg {
    blocks: Vec<BlockData>,
    /// The successor lists' starts in `edges` (`n + 1` entries).
    starts: Vec<u32>,
    /// The successor list entries.
    edges: Vec<BlockIdx>,
}

impl Cfg {
    /// Builds a CFG from per-block data, block 0 being the entry.
    ///
    /// Checks that there is at least one block, that every target, merge block and continue
    /// target is in range and that no `OpSwitch` repeats a literal (SPIR-V §3.3.17). An
    /// `OpBranchConditional` with equal targets is normalised to [`Terminator::Branch`].
    pub fn new(mut blocks: Vec<BlockData>) -> Result<Cfg, CfgError> {
        if blocks.is_empty() {
            return Err(CfgError::EmptyFunction);
        }
        let n = blocks.len();
        if u32::try_from(n).is_err() {
            return Err(CfgError::TooManyBlocks { count: n });
        }
        // One buffer for every switch's sorted literals.
        let mut lits: Vec<u64> = Vec::new();
        // Successor lists (distinct, operand order) in compressed form, built in the same
        // pass as the checks. Only a switch can name a target twice (equal conditional
        // targets are normalised first); a short one is checked against its own list, a long
        // one against a per-block table made the first time one is met.
        let mut succ_start = Vec::with_capacity(n + 1);
        let mut succ = Vec::with_capacity(
            blocks
                .iter()
                .map(|b| match &b.terminator {
                    Terminator::Branch(_) => 1,
                    Terminator::BranchConditional { .. } => 2,
                    Terminator::Switch { cases, .. } => 1 + cases.len(),
                    _ => 0,
                })
                .sum::<usize>(),
        );
        let mut seen: Vec<u32> = Vec::new();
        for (i, b) in blocks.iter_mut().enumerate() {
            let block = BlockIdx(i as u32);
            let check = |t: BlockIdx| {
                if t.index() < n {
                    Ok(())
                } else {
                    Err(CfgError::TargetOutOfRange { block, target: t.0 })
                }
            };
            match &b.terminator {
                Terminator::Branch(t) => check(*t)?,
                Terminator::BranchConditional {
                    true_target,
                    false_target,
                } => {
                    check(*true_target)?;
                    check(*false_target)?;
                }
                Terminator::Switch { default, cases, .. } => {
                    check(*default)?;
                    for &(_, t) in cases {
                        check(t)?;
                    }
                }
                _ => {}
            }
            match b.merge {
                Merge::None => {}
                Merge::Selection { merge } => check(merge)?,
                Merge::Loop {
                    merge,
                    continue_target,
                } => {
                    check(merge)?;
                    check(continue_target)?;
                }
            }
            if let Terminator::BranchConditional {
                true_target,
                false_target,
            } = b.terminator
                && true_target == false_target
            {
                b.terminator = Terminator::Branch(true_target);
            }
            if let Terminator::Switch { cases, .. } = &b.terminator {
                lits.clear();
                lits.extend(cases.iter().map(|c| c.0));
                lits.sort_unstable();
                if let Some(w) = lits.windows(2).find(|w| w[0] == w[1]) {
                    return Err(CfgError::DuplicateCaseLiteral {
                        block,
                        literal: w[0],
                    });
                }
            }
            // Every target was checked to be below `n` above, so indexing `seen` by a target
            // cannot go out of bounds.
            let start = succ.len();
            succ_start.push(start as u32);
            match &b.terminator {
                Terminator::Switch { cases, .. } if cases.len() > SHORT_SWITCH => {
                    if seen.is_empty() {
                        seen = vec![u32::MAX; n];
                    }
                    for t in b.terminator.targets() {
                        if seen[t.index()] != i as u32 {
                            seen[t.index()] = i as u32;
                            succ.push(t);
                        }
                    }
                }
                Terminator::Switch { .. } => {
                    for t in b.terminator.targets() {
                        if !succ[start..].contains(&t) {
                            succ.push(t);
                        }
                    }
                }
                Terminator::Branch(t) => succ.push(*t),
                Terminator::BranchConditional {
                    true_target,
                    false_target,
                } => {
                    succ.push(*true_target);
                    succ.push(*false_target);
                }
                _ => {}
            }
        }
        succ_start.push(succ.len() as u32);
        Ok(Cfg::from_tables(blocks, succ_start, succ))
    }

    /// The CFG of `blocks` with the successor lists `edges`, block `i`'s at
    /// `edges[starts[i]..starts[i + 1]]` (`n + 1` starts, every entry below `n`).
    pub(crate) fn from_tables(
        blocks: Vec<BlockData>,
        starts: Vec<u32>,
        edges: Vec<BlockIdx>,
    ) -> Cfg {
        Cfg {
            blocks,
            starts,
            edges,
        }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Always false: a `Cfg` has at least its entry block.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The entry block, `BlockIdx(0)`.
    pub fn entry(&self) -> BlockIdx {
        BlockIdx(0)
    }

    /// All block indices in order.
    pub fn blocks(&self) -> impl Iterator<Item = BlockIdx> + '_ {
        (0..self.blocks.len() as u32).map(BlockIdx)
    }

    /// The data of block `b`. Panics if `b` is not a block of this CFG (a caller bug).
    pub fn block(&self, b: BlockIdx) -> &BlockData {
        &self.blocks[b.index()]
    }

    /// The data of block `b`, or `None` if out of range.
    pub fn get(&self, b: BlockIdx) -> Option<&BlockData> {
        self.blocks.get(b.index())
    }

    /// Distinct successors of `b` (branch edges only), in operand order.
    pub fn succs(&self, b: BlockIdx) -> &[BlockIdx] {
        let i = b.index();
        &self.edges[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Distinct predecessors of `b` (branch edges only), sorted by index: found by scanning
    /// every successor list (each names a block at most once), so each call costs the whole
    /// edge list. Only the general structurizer's entry test and tests ask, so no
    /// predecessor table is kept: the merge walk, which structures nearly every translated
    /// function, needs none.
    pub fn preds(&self, b: BlockIdx) -> Vec<BlockIdx> {
        self.blocks()
            .filter(|&p| self.succs(p).contains(&b))
            .collect()
    }

    /// Whether some branch targets `b` (whether [`Cfg::preds`] of `b` is not empty).
    pub(crate) fn is_target(&self, b: BlockIdx) -> bool {
        self.edges.contains(&b)
    }

    /// Distinct successors along *structured* control-flow edges (SPIR-V §2.2.5): branch edges,
    /// then the merge edge, then the continue edge.
    pub fn structured_succs(&self, b: BlockIdx) -> Vec<BlockIdx> {
        let mut v = self.succs(b).to_vec();
        let mut add = |t: BlockIdx| {
            if !v.contains(&t) {
                v.push(t);
            }
        };
        match self.block(b).merge {
            Merge::None => {}
            Merge::Selection { merge } => add(merge),
            Merge::Loop {
                merge,
                continue_target,
            } => {
                add(merge);
                add(continue_target);
            }
        }
        v
    }

    /// Blocks reachable from the entry along branch edges, as a per-block flag.
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = Vec::new();
        self.fill_reachable(&mut seen, &mut Vec::new());
        seen
    }

    /// [`Cfg::reachable`] into `seen` (resized to one flag per block), with `stack` as the
    /// search's work list: callers that keep both between functions allocate nothing.
    pub(crate) fn fill_reachable(&self, seen: &mut Vec<bool>, stack: &mut Vec<BlockIdx>) {
        seen.clear();
        seen.resize(self.len(), false);
        stack.clear();
        stack.push(self.entry());
        seen[0] = true;
        while let Some(b) = stack.pop() {
            for &s in self.succs(b) {
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push(s);
                }
            }
        }
    }

    /// Whether any block carries a merge instruction.
    pub fn has_merges(&self) -> bool {
        self.blocks.iter().any(|b| b.merge != Merge::None)
    }

    /// A printable name for `b`: `%<label id>` when the label id is known, else `b<index>`.
    pub fn name(&self, b: BlockIdx) -> String {
        match self.get(b) {
            Some(d) if d.label != 0 => format!("%{}", d.label),
            _ => b.to_string(),
        }
    }
}
