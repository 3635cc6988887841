//! Each function's control-flow graph over dense block indices: branch successors and
//! predecessors, the merge instruction of each header, and the plain dominator tree from the
//! entry block.
//!
//! Built once by [`build`] and shared by the CFG, structured-CFG and SSA-dominance checks.

use spv_reader::spirv::Op;
use spv_reader::{Id, InstIndex};

use crate::ctx::{Ctx, Index, NONE};
use crate::dom::{DomTree, Graph, bit};
use crate::operands::Kind;
use crate::scratch::Scratch;

/// A header's merge instruction, resolved to block indices.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Merge {
    /// The `OpSelectionMerge`/`OpLoopMerge` instruction.
    pub(crate) inst: InstIndex,
    /// Merge block index ([`NONE`] when the operand is not a label of this function).
    pub(crate) merge: u32,
    /// Continue target index for `OpLoopMerge` ([`NONE`] when not a label of this
    /// function); `None` for `OpSelectionMerge`.
    pub(crate) cont: Option<u32>,
}

/// The control-flow facts of one function definition.
#[derive(Default)]
pub(crate) struct FuncCfg {
    /// Index of the function in `Module::functions()`.
    pub(crate) func: u32,
    /// Branch edges between blocks (duplicates removed, target order kept).
    pub(crate) graph: Graph,
    /// The merge instruction of each block, if any.
    pub(crate) merges: Vec<Option<Merge>>,
    /// Whether each block is reachable from the entry block along branch edges.
    pub(crate) reachable: Vec<bool>,
    /// The reachable blocks as bits, for a function of at most 64 blocks (0 otherwise).
    pub(crate) reached: u64,
    /// Plain dominators from the entry block (unreachable blocks are outside the tree).
    pub(crate) dom: DomTree,
    /// Whether some branch target is not a label of this function (so that the CFG check
    /// looks for them; V-CFG-1).
    pub(crate) stray_targets: bool,
}

impl FuncCfg {
    /// Successor block indices of block `b`.
    pub(crate) fn succs(&self, b: u32) -> &[u32] {
        self.graph.succs(b)
    }

    /// Predecessor block indices of block `b`.
    pub(crate) fn preds(&self, b: u32) -> &[u32] {
        self.graph.preds(b)
    }

    /// Whether block `b` is reachable from the entry along branch edges.
    pub(crate) fn is_reachable(&self, b: u32) -> bool {
        self.reachable.get(b as usize).copied().unwrap_or(false)
    }
}

/// The block index of `label` in function `func`, if it is an `OpLabel` of that function.
pub(crate) fn block_of_label(ctx: &Ctx<'_>, func: u32, label: Id) -> Option<u32> {
    // One look at the id (`Ctx::def_block` and `Ctx::def_op` would look twice).
    let info = ctx.ix.id(label)?;
    (info.func == func && info.func != NONE && info.block != NONE && info.is(Op::Label))
        .then_some(info.block)
}

/// The branch targets (label ids) named by a terminator, in operand order.
pub(crate) fn branch_targets<'m>(
    ix: &'m Index<'m>,
    term: InstIndex,
) -> impl Iterator<Item = Id> + 'm {
    let (skip, take) = match ix.inst(term).and_then(|t| t.opcode()) {
        Some(Op::Branch) => (0, 1),
        // Condition first, then the two labels.
        Some(Op::BranchConditional) => (1, 2),
        // Selector first, then Default and the case labels.
        Some(Op::Switch) => (1, usize::MAX),
        _ => (0, 0),
    };
    ix.refs(term)
        .iter()
        .filter(|r| r.kind == Kind::Id)
        .skip(skip)
        .take(take)
        .map(|r| r.id)
}

/// Builds the CFG of every function definition (declarations have none); uses the edge,
/// mark, traversal and dominator buffers of `scratch`.
pub(crate) fn build(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Vec<FuncCfg> {
    // The CFGs of an earlier module, rebuilt in place.
    let mut out = std::mem::take(&mut scratch.cfgs);
    let mut used = 0;
    for (fi, f) in ctx.m.functions().iter().enumerate() {
        if f.blocks.is_empty() {
            continue;
        }
        if used == out.len() {
            out.push(scratch.spare_cfgs.pop().unwrap_or_default());
        }
        let Some(cfg) = out.get_mut(used) else {
            continue;
        };
        used += 1;
        let fi = fi as u32;
        let n = f.blocks.len();
        let edges = &mut scratch.edges;
        edges.clear();
        // The block whose targets last named each block: duplicates are dropped.
        let named_by = &mut scratch.marks;
        named_by.clear();
        named_by.resize(n, NONE);
        let merges = &mut cfg.merges;
        merges.clear();
        let mut stray_targets = false;
        for (bi, b) in f.blocks.iter().enumerate() {
            for label in branch_targets(ctx.ix, b.terminator) {
                let Some(t) = block_of_label(ctx, fi, label) else {
                    stray_targets = true;
                    continue;
                };
                if let Some(by) = named_by.get_mut(t as usize)
                    && *by != bi as u32
                {
                    *by = bi as u32;
                    edges.push((bi as u32, t));
                }
            }
            let merge = b.merge.and_then(|mi| {
                let inst = ctx.ix.inst(mi)?;
                let words = inst.words();
                let label = |i: usize| {
                    words
                        .get(i)
                        .and_then(|&w| block_of_label(ctx, fi, Id(w)))
                        .unwrap_or(NONE)
                };
                Some(Merge {
                    inst: mi,
                    merge: label(1),
                    cont: (ctx.op_of(inst) == Some(Op::LoopMerge)).then(|| label(2)),
                })
            });
            merges.push(merge);
        }
        cfg.func = fi;
        cfg.stray_targets = stray_targets;
        cfg.graph.rebuild(n, edges);
        if n == 1 && edges.is_empty() {
            // One block that does not branch (most functions of straight-line shaders):
            // reachable, and alone in its dominator tree, without a traversal.
            cfg.reachable.clear();
            cfg.reachable.push(true);
            cfg.reached = 1;
            cfg.dom.set_root_only();
            continue;
        }
        if n <= 64 {
            // A small function whose branches to earlier blocks all go to dominators of their
            // source gets its dominators by one sweep in block order, without a traversal
            // (see `DomTree::rebuild_sets_in_order`; the same tree, unreached blocks outside).
            let mut masks = [0u64; 64];
            for &(a, b) in edges.iter() {
                if let Some(m) = masks.get_mut(a as usize) {
                    *m |= bit(b);
                }
            }
            if let Some(reached) = cfg
                .dom
                .rebuild_sets_in_order(masks.get(..n).unwrap_or(&[]), &mut scratch.dom)
            {
                cfg.reachable.clear();
                cfg.reachable
                    .extend((0..n as u32).map(|b| reached >> b & 1 != 0));
                cfg.reached = reached;
                continue;
            }
        }
        let order = &mut scratch.order;
        cfg.graph
            .post_order_into(0, &mut scratch.seen, &mut scratch.stack, order);
        cfg.reachable.clear();
        cfg.reachable.resize(n, false);
        let mut reached = 0u64;
        for &b in order.iter() {
            if let Some(x) = cfg.reachable.get_mut(b as usize) {
                *x = true;
            }
            reached |= bit(b);
        }
        cfg.reached = if n <= 64 { reached } else { 0 };
        // spirv-val computes dominators by a traversal from the entry block, so blocks the
        // entry does not reach have no dominator and are not ordered (checked with probes).
        cfg.dom
            .rebuild_with_post_order(&cfg.graph, 0, order, &mut scratch.dom);
    }
    // The CFGs this module did not need keep their buffers for a later module's.
    scratch.spare_cfgs.extend(out.drain(used..));
    out
}
