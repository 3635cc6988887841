//! Dominator and post-dominator trees.
//!
//! The algorithm is Cooper, Harvey and Kennedy's "A Simple, Fast Dominance Algorithm"
//! (iterating `idom(b) = ⋂ idom(preds)` over reverse postorder, intersecting by postorder
//! numbers), which is near-linear on real control flow.
//!
//! Trees are built on an *augmented* graph, as `spirv.md` §3.1 recommends (spirv-val's
//! approach): a pseudo-root gets an edge to the entry, to every block without predecessors and,
//! if blocks are still uncovered (unreachable cycles), to the lowest-indexed uncovered block,
//! repeatedly. So every block has a place in the tree; blocks that hang directly off the
//! pseudo-root report `idom() == None`. Post-dominator trees do the same on the reversed graph:
//! the pseudo-exit is reached from every block without successors and, for blocks that cannot
//! reach a function exit (infinite loops), from the highest-indexed uncovered block.
//!
//! Indexing: every node number comes from a [`Graph`] (entries checked against its size when
//! built) or is the pseudo-root `n`, for which the tables have an extra slot.

use crate::cfg::{BlockIdx, Cfg, Merge};
use crate::error::CfgError;
use crate::graph::{Graph, postorder_from};
use crate::limits::Budget;

/// Marks a node the dominator iteration has not reached.
pub(crate) const UNDEF: u32 = u32::MAX;

/// Immediate dominators on `g` (predecessors in `rg`) below a virtual root (index `g.len()`)
/// that has an edge to each of `roots`, in order. Returns `idom` indexed by node, with
/// `g.len()` for the roots and [`UNDEF`] for nodes no root reaches, plus the reverse postorder.
pub(crate) fn compute_idoms(
    g: &Graph,
    rg: &Graph,
    roots: &[u32],
    budget: &mut Budget,
) -> Result<(Vec<u32>, Vec<u32>), CfgError> {
    let n = g.len();
    let virt = n as u32;
    let mut visited = vec![false; n];
    let post = postorder_from(g, roots.iter().copied(), &mut visited, budget)?;
    // Postorder numbers; the virtual root comes last, i.e. is the highest.
    let mut po = vec![UNDEF; n + 1];
    for (i, &u) in post.iter().enumerate() {
        po[u as usize] = i as u32;
    }
    po[n] = post.len() as u32;
    let mut is_root = vec![false; n];
    for &r in roots {
        is_root[r as usize] = true;
    }
    let mut idom = vec![UNDEF; n + 1];
    idom[n] = virt;
    let rpo: Vec<u32> = post.iter().rev().copied().collect();
    // Predecessors of each reached node, lowest postorder number (deepest) first: then the running intersection only climbs, and a block with many predecessors on one
    // long dominator chain (a unified return block) costs linear, not quadratic, time.
    let mut pstart = Vec::with_capacity(n + 1);
    let mut preds: Vec<u32> = Vec::new();
    for b in 0..n as u32 {
        pstart.push(preds.len());
        let from = preds.len();
        preds.extend(
            rg.succ(b)
                .iter()
                .copied()
                .filter(|&p| po[p as usize] != UNDEF),
        );
        preds[from..].sort_unstable_by_key(|&p| po[p as usize]);
    }
    pstart.push(preds.len());
    let intersect = |idom: &[u32], mut a: u32, mut b: u32, steps: &mut usize| -> u32 {
        while a != b {
            while po[a as usize] < po[b as usize] {
                a = idom[a as usize];
                *steps += 1;
            }
            while po[b as usize] < po[a as usize] {
                b = idom[b as usize];
                *steps += 1;
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo {
            let preds = &preds[pstart[b as usize]..pstart[b as usize + 1]];
            let mut steps = 1 + preds.len();
            let mut new = if is_root[b as usize] { virt } else { UNDEF };
            for &p in preds {
                if idom[p as usize] == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    p
                } else {
                    intersect(&idom, p, new, &mut steps)
                };
            }
            budget.charge(steps)?;
            if new != UNDEF && idom[b as usize] != new {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    idom.truncate(n);
    Ok((idom, rpo))
}

/// Roots for an augmented graph: `primary` first, then every node of `candidates` (in that
/// order) that the roots chosen so far do not reach.
fn augmented_roots(
    g: &Graph,
    primary: impl IntoIterator<Item = u32>,
    candidates: impl IntoIterator<Item = u32>,
    budget: &mut Budget,
) -> Result<Vec<u32>, CfgError> {
    let mut visited = vec![false; g.len()];
    let mut roots = Vec::new();
    for r in primary.into_iter().chain(candidates) {
        if !visited[r as usize] {
            roots.push(r);
            postorder_from(g, [r], &mut visited, budget)?;
        }
    }
    Ok(roots)
}

/// The graph a tree is computed on, with its pseudo-root's edges.
///
/// The *primary* roots are the entry (dominators) or the blocks without successors
/// (post-dominators). Edges from blocks the primary roots do not reach into blocks they do
/// reach are dropped, so that unreachable code (or code that never returns) does not change
/// the trees of the blocks the definitions are about (SPIR-V §2.2.5: paths from the entry, or
/// to a function termination instruction). The remaining blocks get extra roots.
pub(crate) fn augmented_graph(
    cfg: &Cfg,
    post: bool,
    structured: bool,
    budget: &mut Budget,
) -> Result<(Graph, Graph, Vec<u32>), CfgError> {
    let n = cfg.len();
    // Merge and continue edges may repeat a branch edge; repeated edges change no dominator.
    let fwd = Graph::from_lists(
        n,
        cfg.blocks().map(|b| {
            let extra = match (structured, cfg.block(b).merge) {
                (true, Merge::Selection { merge }) => [Some(merge.0), None],
                (
                    true,
                    Merge::Loop {
                        merge,
                        continue_target,
                    },
                ) => [Some(merge.0), Some(continue_target.0)],
                _ => [None, None],
            };
            cfg.succs(b)
                .iter()
                .map(|s| s.0)
                .chain(extra.into_iter().flatten())
        }),
    )?;
    let bwd = fwd.reverse();
    let (g, rg) = if post { (bwd, fwd) } else { (fwd, bwd) };
    let primary: Vec<u32> = if post {
        (0..n as u32).filter(|&u| rg.succ(u).is_empty()).collect()
    } else {
        vec![0]
    };
    let mut covered = vec![false; n];
    postorder_from(&g, primary.iter().copied(), &mut covered, budget)?;
    let covered = &covered;
    let g = Graph::from_lists(
        n,
        (0..n as u32).map(|u| {
            g.succ(u)
                .iter()
                .copied()
                .filter(move |&v| covered[u as usize] || !covered[v as usize])
        }),
    )?;
    let rg = g.reverse();
    // Sources of `g`: nodes without predecessors in `g`.
    let sources = (0..n as u32).filter(|&u| rg.succ(u).is_empty());
    let roots = if post {
        augmented_roots(
            &g,
            primary.iter().copied().chain(sources),
            (0..n as u32).rev(),
            budget,
        )?
    } else {
        augmented_roots(
            &g,
            primary.iter().copied().chain(sources),
            0..n as u32,
            budget,
        )?
    };
    Ok((g, rg, roots))
}

/// A dominator (or post-dominator) tree over the blocks of one function.
#[derive(Clone, Debug)]
pub struct DomTree {
    /// Immediate dominator per block; `n` (the pseudo-root) for the tree's roots.
    idom: Vec<u32>,
    /// Preorder / postorder numbers of a walk of the tree (pseudo-root excluded).
    pre: Vec<u32>,
    post: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<BlockIdx>,
    roots: Vec<BlockIdx>,
}

impl DomTree {
    /// Builds the tree from an immediate-dominator table over `n` nodes (`n` = pseudo-root).
    fn from_idoms(idom: Vec<u32>) -> Result<DomTree, CfgError> {
        let n = idom.len();
        if idom.iter().any(|&d| d as usize > n) {
            return Err(CfgError::Internal("dominator tree has an uncovered block"));
        }
        // Children lists by counting sort (children in increasing index order).
        let mut count = vec![0u32; n + 2];
        for &d in &idom {
            count[d as usize + 1] += 1;
        }
        for i in 0..=n {
            count[i + 1] += count[i];
        }
        let child_start = count.clone();
        let mut fill = count;
        let mut children = vec![BlockIdx(0); n];
        for (b, &d) in idom.iter().enumerate() {
            children[fill[d as usize] as usize] = BlockIdx(b as u32);
            fill[d as usize] += 1;
        }
        let roots = children[child_start[n] as usize..child_start[n + 1] as usize].to_vec();
        let mut tree = DomTree {
            idom,
            pre: vec![0; n],
            post: vec![0; n],
            child_start,
            children,
            roots,
        };
        // Iterative preorder/postorder numbering.
        let (mut pre_c, mut post_c) = (0u32, 0u32);
        let mut stack: Vec<(u32, usize)> = vec![(n as u32, 0)];
        while let Some(top) = stack.last_mut() {
            let (u, i) = *top;
            let kids = tree.kids(u);
            if i < kids.len() {
                top.1 += 1;
                let c = kids[i].0;
                tree.pre[c as usize] = pre_c;
                pre_c += 1;
                stack.push((c, 0));
            } else {
                if (u as usize) < n {
                    tree.post[u as usize] = post_c;
                    post_c += 1;
                }
                stack.pop();
            }
        }
        if pre_c as usize != n {
            return Err(CfgError::Internal("dominator tree is not a tree"));
        }
        Ok(tree)
    }

    fn kids(&self, u: u32) -> &[BlockIdx] {
        let u = u as usize;
        &self.children[self.child_start[u] as usize..self.child_start[u + 1] as usize]
    }

    /// Plain dominators over branch edges (SPIR-V §2.2.5 "dominate"), augmented so that
    /// unreachable blocks are covered too.
    pub fn dominators(cfg: &Cfg) -> Result<DomTree, CfgError> {
        Self::build(cfg, false, false, &mut Budget::new())
    }

    /// Plain post-dominators over branch edges, augmented (see the module docs).
    pub fn post_dominators(cfg: &Cfg) -> Result<DomTree, CfgError> {
        Self::build(cfg, true, false, &mut Budget::new())
    }

    /// Structural dominators: dominance over structured control-flow edges (branch, merge
    /// and continue edges; SPIR-V §2.2.5, `spirv.md` §3.1).
    pub fn structural_dominators(cfg: &Cfg) -> Result<DomTree, CfgError> {
        Self::build(cfg, false, true, &mut Budget::new())
    }

    /// Structural post-dominators: post-dominance over structured control-flow edges.
    pub fn structural_post_dominators(cfg: &Cfg) -> Result<DomTree, CfgError> {
        Self::build(cfg, true, true, &mut Budget::new())
    }

    pub(crate) fn build(
        cfg: &Cfg,
        post: bool,
        structured: bool,
        budget: &mut Budget,
    ) -> Result<DomTree, CfgError> {
        let (g, rg, roots) = augmented_graph(cfg, post, structured, budget)?;
        let (idom, _) = compute_idoms(&g, &rg, &roots, budget)?;
        DomTree::from_idoms(idom)
    }

    /// Number of blocks covered (all blocks of the function).
    pub fn len(&self) -> usize {
        self.idom.len()
    }

    /// Always false for a tree built from a [`Cfg`].
    pub fn is_empty(&self) -> bool {
        self.idom.is_empty()
    }

    /// The immediate (post-)dominator of `b`, or `None` when `b` hangs off the pseudo-root
    /// (the entry block, blocks without predecessors, roots of unreachable cycles; for
    /// post-dominators: function exits and roots of cycles that never exit).
    pub fn idom(&self, b: BlockIdx) -> Option<BlockIdx> {
        match self.idom.get(b.index()) {
            Some(&d) if (d as usize) < self.idom.len() => Some(BlockIdx(d)),
            _ => None,
        }
    }

    /// Whether `a` (post-)dominates `b`; every block dominates itself.
    pub fn dominates(&self, a: BlockIdx, b: BlockIdx) -> bool {
        match (self.pre.get(a.index()), self.pre.get(b.index())) {
            (Some(&pa), Some(&pb)) => pa <= pb && self.post[b.index()] <= self.post[a.index()],
            _ => false,
        }
    }

    /// Whether `a` strictly (post-)dominates `b`.
    pub fn strictly_dominates(&self, a: BlockIdx, b: BlockIdx) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The blocks whose immediate (post-)dominator is `b`, in increasing index order.
    pub fn children(&self, b: BlockIdx) -> &[BlockIdx] {
        if b.index() < self.idom.len() {
            self.kids(b.0)
        } else {
            &[]
        }
    }

    /// The blocks hanging off the pseudo-root, in increasing index order.
    pub fn roots(&self) -> &[BlockIdx] {
        &self.roots
    }
}

#[cfg(test)]
pub(crate) mod naive {
    //! A slow, obviously correct reference: `a` dominates `b` iff `b` is unreachable from the
    //! pseudo-root once `a` is removed. Used only to check [`super::compute_idoms`].

    use super::*;

    /// Immediate dominators on the same augmented graph as [`compute_idoms`] (roots given),
    /// computed from the removal definition.
    pub(crate) fn idoms(g: &Graph, roots: &[u32]) -> Vec<u32> {
        let n = g.len();
        let reach_without = |removed: Option<u32>| -> Vec<bool> {
            let mut seen = vec![false; n];
            let mut stack: Vec<u32> = roots
                .iter()
                .copied()
                .filter(|&r| Some(r) != removed)
                .collect();
            for &r in &stack {
                seen[r as usize] = true;
            }
            while let Some(u) = stack.pop() {
                for &v in g.succ(u) {
                    if Some(v) != removed && !seen[v as usize] {
                        seen[v as usize] = true;
                        stack.push(v);
                    }
                }
            }
            seen
        };
        let all = reach_without(None);
        // dom[a][b]: a dominates b.
        let dom: Vec<Vec<bool>> = (0..n)
            .map(|a| {
                let r = reach_without(Some(a as u32));
                (0..n).map(|b| all[b] && (a == b || !r[b])).collect()
            })
            .collect();
        (0..n)
            .map(|b| {
                if !all[b] {
                    return UNDEF;
                }
                // The strict dominator dominated by all other strict dominators.
                let strict: Vec<usize> = (0..n).filter(|&a| a != b && dom[a][b]).collect();
                strict
                    .iter()
                    .copied()
                    .find(|&d| strict.iter().all(|&o| dom[o][d]))
                    .map_or(n as u32, |d| d as u32)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{BlockData, Merge, Terminator};

    /// xorshift64*, enough randomness for test graphs.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn random_cfg(rng: &mut Rng) -> Cfg {
        let n = 1 + rng.below(14) as u32;
        let blocks = (0..n)
            .map(|_| {
                let t = |rng: &mut Rng| BlockIdx(rng.below(n as u64) as u32);
                let terminator = match rng.below(10) {
                    0 | 1 => Terminator::Return,
                    2..=4 => Terminator::Branch(t(rng)),
                    5..=8 => Terminator::BranchConditional {
                        true_target: t(rng),
                        false_target: t(rng),
                    },
                    _ => Terminator::Switch {
                        selector_bits: 32,
                        default: t(rng),
                        cases: vec![(1, t(rng)), (2, t(rng))],
                    },
                };
                let mut d = BlockData::new(terminator);
                if rng.below(4) == 0 {
                    d.merge = Merge::Selection { merge: t(rng) };
                } else if rng.below(6) == 0 {
                    d.merge = Merge::Loop {
                        merge: t(rng),
                        continue_target: t(rng),
                    };
                }
                d
            })
            .collect();
        Cfg::new(blocks).expect("random CFGs are in range")
    }

    /// The fast trees agree with the removal definition on thousands of random graphs, for
    /// all four kinds of tree (plain/structural, dominators/post-dominators).
    #[test]
    fn chk_matches_naive_reference() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..1500 {
            let cfg = random_cfg(&mut rng);
            for post in [false, true] {
                for structured in [false, true] {
                    let mut budget = Budget::new();
                    let tree = DomTree::build(&cfg, post, structured, &mut budget).unwrap();
                    let (g, _, roots) =
                        augmented_graph(&cfg, post, structured, &mut budget).unwrap();
                    let expect = naive::idoms(&g, &roots);
                    assert_eq!(
                        tree.idom, expect,
                        "post={post} structured={structured} {cfg:?}"
                    );
                    // dominates() agrees with walking up the idom chain.
                    for a in cfg.blocks() {
                        for b in cfg.blocks() {
                            let mut x = Some(b);
                            let mut chain = false;
                            while let Some(y) = x {
                                if y == a {
                                    chain = true;
                                    break;
                                }
                                x = tree.idom(y);
                            }
                            assert_eq!(tree.dominates(a, b), chain);
                        }
                    }
                }
            }
        }
    }

    /// For blocks reachable from the entry, the augmented tree equals the textbook definition
    /// on the unaugmented graph (paths from the entry only): unreachable predecessors change
    /// nothing.
    #[test]
    fn unreachable_code_does_not_change_reachable_dominators() {
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        for _ in 0..2000 {
            let cfg = random_cfg(&mut rng);
            let tree = DomTree::dominators(&cfg).unwrap();
            let g = Graph::from_lists(
                cfg.len(),
                cfg.blocks().map(|b| cfg.succs(b).iter().map(|s| s.0)),
            )
            .unwrap();
            let expect = naive::idoms(&g, &[0]);
            let reachable = cfg.reachable();
            for b in cfg.blocks() {
                if reachable[b.index()] {
                    let want = expect[b.index()];
                    let want = (want as usize) < cfg.len();
                    assert_eq!(tree.idom(b).is_some(), want, "{cfg:?}");
                    if want {
                        assert_eq!(tree.idom(b).map(|d| d.0), Some(expect[b.index()]));
                    }
                }
            }
        }
    }

    /// `if (c) return; else return;` with an `OpUnreachable` merge: the merge block is
    /// unreachable over branch edges (a pseudo-root child in the plain tree) but structurally
    /// dominated by the header (`spirv.md` §2.16 item 1). Checked by hand against the
    /// definitions of §3.1.
    #[test]
    fn merge_reached_only_through_merge_edge() {
        let mut header = BlockData::new(Terminator::BranchConditional {
            true_target: BlockIdx(1),
            false_target: BlockIdx(2),
        });
        header.merge = Merge::Selection { merge: BlockIdx(3) };
        let cfg = Cfg::new(vec![
            header,
            BlockData::new(Terminator::Return),
            BlockData::new(Terminator::Return),
            BlockData::new(Terminator::Unreachable),
        ])
        .unwrap();
        let plain = DomTree::dominators(&cfg).unwrap();
        assert_eq!(plain.idom(BlockIdx(3)), None);
        assert!(!plain.dominates(BlockIdx(0), BlockIdx(3)));
        assert_eq!(plain.roots(), &[BlockIdx(0), BlockIdx(3)]);
        let sdom = DomTree::structural_dominators(&cfg).unwrap();
        assert_eq!(sdom.idom(BlockIdx(3)), Some(BlockIdx(0)));
        assert!(sdom.strictly_dominates(BlockIdx(0), BlockIdx(3)));
        // Structural post-dominance: block 0 reaches exits through 1, 2 and 3, so nothing but
        // the pseudo-exit post-dominates it.
        let spdom = DomTree::structural_post_dominators(&cfg).unwrap();
        assert_eq!(spdom.idom(BlockIdx(0)), None);
        assert_eq!(spdom.idom(BlockIdx(1)), None);
    }

    /// A diamond: 0 → {1, 2} → 3 → return. Hand-checked.
    #[test]
    fn diamond() {
        let cfg = Cfg::new(vec![
            BlockData::new(Terminator::BranchConditional {
                true_target: BlockIdx(1),
                false_target: BlockIdx(2),
            }),
            BlockData::new(Terminator::Branch(BlockIdx(3))),
            BlockData::new(Terminator::Branch(BlockIdx(3))),
            BlockData::new(Terminator::Return),
        ])
        .unwrap();
        let d = DomTree::dominators(&cfg).unwrap();
        assert_eq!(d.idom(BlockIdx(3)), Some(BlockIdx(0)));
        assert_eq!(
            d.children(BlockIdx(0)),
            &[BlockIdx(1), BlockIdx(2), BlockIdx(3)]
        );
        let p = DomTree::post_dominators(&cfg).unwrap();
        assert_eq!(p.idom(BlockIdx(0)), Some(BlockIdx(3)));
        assert_eq!(p.idom(BlockIdx(1)), Some(BlockIdx(3)));
        assert_eq!(p.idom(BlockIdx(3)), None);
        assert!(p.dominates(BlockIdx(3), BlockIdx(0)));
    }

    /// An infinite loop 0 → 1 → 2 → 1: the highest-indexed block becomes the post-dominator
    /// root, so 2 post-dominates 1 and 1 post-dominates 0.
    #[test]
    fn infinite_loop_post_dominators() {
        let cfg = Cfg::new(vec![
            BlockData::new(Terminator::Branch(BlockIdx(1))),
            BlockData::new(Terminator::Branch(BlockIdx(2))),
            BlockData::new(Terminator::Branch(BlockIdx(1))),
        ])
        .unwrap();
        let p = DomTree::post_dominators(&cfg).unwrap();
        assert_eq!(p.roots(), &[BlockIdx(2)]);
        assert_eq!(p.idom(BlockIdx(1)), Some(BlockIdx(2)));
        assert_eq!(p.idom(BlockIdx(0)), Some(BlockIdx(1)));
    }
}
