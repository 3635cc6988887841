//! The loop nesting forest, with irreducible loops detected rather than rejected.
//!
//! Loops are found the way Steensgaard's forest defines them: the outermost loops are the
//! non-trivial strongly connected components of the (reachable) CFG; the *entries* of a loop
//! are its blocks with a predecessor outside it; the loops nested in a loop are the
//! non-trivial components of its blocks once the edges into its entries are removed. A loop
//! with one entry is a natural (reducible) loop whose header dominates it; a loop with several
//! entries is irreducible (`spirv.md` §3.7: Kernel modules may contain such loops). Unlike a
//! DFS-based forest, the result does not depend on the search order, only the choice of the
//! irreducible loop's nominal header does (its first entry in reverse postorder).
//!
//! Indexing: node numbers come from a [`Graph`] and loop numbers from the list being built,
//! so indexing per-node and per-loop tables cannot fail.

use crate::cfg::{BlockIdx, Cfg};
use crate::error::CfgError;
use crate::graph::{Graph, SccScratch, postorder_from, sccs};
use crate::limits::Budget;

/// Marks "no loop".
pub(crate) const NO_LOOP: u32 = u32::MAX;

/// One loop found by [`decompose`], on raw node numbers.
#[derive(Clone, Debug)]
pub(crate) struct RawLoop {
    /// Nodes with a predecessor outside the loop, in reverse postorder.
    pub(crate) entries: Vec<u32>,
    /// The enclosing loop (an index into the same list), or [`NO_LOOP`].
    pub(crate) parent: u32,
    /// All nodes of the loop, nested loops included, in reverse postorder.
    pub(crate) members: Vec<u32>,
}

/// Loop decomposition of the nodes reachable from `entry` in `g` (predecessors in `rg`).
/// `rpo_pos` gives each reachable node's position in a reverse postorder from `entry`
/// ([`NO_LOOP`] for unreachable nodes). Returns the loops, parents before children and
/// ordered by the reverse-postorder position of their first entry, and the innermost loop of
/// every node ([`NO_LOOP`] outside all loops).
pub(crate) fn decompose(
    g: &Graph,
    rg: &Graph,
    entry: u32,
    rpo: &[u32],
    rpo_pos: &[u32],
    budget: &mut Budget,
) -> Result<(Vec<RawLoop>, Vec<u32>), CfgError> {
    let n = g.len();
    let mut member = vec![0u32; n];
    let mut cut = vec![0u32; n];
    let mut in_scc = vec![0u32; n];
    let mut stamp = 0u32;
    let mut scc_stamp = 0u32;
    let mut scratch = SccScratch::default();
    let mut loops: Vec<RawLoop> = Vec::new();
    let mut innermost = vec![NO_LOOP; n];
    let mut work: Vec<(Vec<u32>, u32, Vec<u32>)> = vec![(rpo.to_vec(), NO_LOOP, Vec::new())];
    while let Some((nodes, parent, cuts)) = work.pop() {
        stamp += 1;
        for &v in &nodes {
            member[v as usize] = stamp;
        }
        for &c in &cuts {
            cut[c as usize] = stamp;
        }
        let comps = sccs(g, &nodes, &member, &cut, stamp, &mut scratch, budget)?;
        for mut comp in comps {
            let first = comp[0];
            let nontrivial =
                comp.len() > 1 || (cut[first as usize] != stamp && g.succ(first).contains(&first));
            if !nontrivial {
                continue;
            }
            scc_stamp += 1;
            for &v in &comp {
                in_scc[v as usize] = scc_stamp;
            }
            let mut entries: Vec<u32> = Vec::new();
            for &v in &comp {
                let preds = rg.succ(v);
                budget.charge(1 + preds.len())?;
                let outside = preds
                    .iter()
                    .any(|&p| rpo_pos[p as usize] != NO_LOOP && in_scc[p as usize] != scc_stamp);
                if v == entry || outside {
                    entries.push(v);
                }
            }
            if entries.is_empty() {
                return Err(CfgError::Internal("loop without entry"));
            }
            entries.sort_unstable_by_key(|&v| rpo_pos[v as usize]);
            comp.sort_unstable_by_key(|&v| rpo_pos[v as usize]);
            let idx = loops.len() as u32;
            for &v in &comp {
                innermost[v as usize] = idx;
            }
            loops.push(RawLoop {
                entries: entries.clone(),
                parent,
                members: comp.clone(),
            });
            work.push((comp, idx, entries));
        }
    }
    // Order loops by their first entry; parents precede children because a parent's first
    // entry is visited first by any DFS and so comes first in reverse postorder.
    let mut order: Vec<u32> = (0..loops.len() as u32).collect();
    order.sort_by_key(|&l| rpo_pos[loops[l as usize].entries[0] as usize]);
    let mut new_index = vec![0u32; loops.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old as usize] = new as u32;
    }
    let mut sorted: Vec<RawLoop> = order
        .iter()
        .map(|&old| loops[old as usize].clone())
        .collect();
    for l in &mut sorted {
        if l.parent != NO_LOOP {
            l.parent = new_index[l.parent as usize];
        }
    }
    for v in innermost.iter_mut() {
        if *v != NO_LOOP {
            *v = new_index[*v as usize];
        }
    }
    Ok((sorted, innermost))
}

/// Reverse postorder from `entry` and each node's position in it ([`NO_LOOP`] if unreached).
pub(crate) fn rpo_from(
    g: &Graph,
    entry: u32,
    budget: &mut Budget,
) -> Result<(Vec<u32>, Vec<u32>), CfgError> {
    let mut visited = vec![false; g.len()];
    let mut rpo = postorder_from(g, [entry], &mut visited, budget)?;
    rpo.reverse();
    let mut pos = vec![NO_LOOP; g.len()];
    for (i, &v) in rpo.iter().enumerate() {
        pos[v as usize] = i as u32;
    }
    Ok((rpo, pos))
}

/// Index of a loop in a [`LoopForest`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopIdx(pub u32);

/// One loop of the forest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The loop header: its only entry for a reducible loop, the first entry in reverse
    /// postorder for an irreducible one.
    pub header: BlockIdx,
    /// Blocks of the loop with a predecessor outside it, in reverse postorder. More than one
    /// entry means the loop is irreducible.
    pub entries: Vec<BlockIdx>,
    /// The innermost enclosing loop.
    pub parent: Option<LoopIdx>,
    /// All blocks of the loop including nested loops, in reverse postorder.
    pub blocks: Vec<BlockIdx>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
}

impl Loop {
    /// Whether the loop has more than one entry.
    pub fn is_irreducible(&self) -> bool {
        self.entries.len() > 1
    }
}

/// The loop nesting forest of the blocks reachable from the entry (unreachable blocks belong
/// to no loop).
#[derive(Clone, Debug)]
pub struct LoopForest {
    loops: Vec<Loop>,
    innermost: Vec<Option<LoopIdx>>,
}

impl LoopForest {
    /// Computes the forest of `cfg` over branch edges.
    pub fn new(cfg: &Cfg) -> Result<LoopForest, CfgError> {
        Self::build(cfg, &mut Budget::new())
    }

    pub(crate) fn build(cfg: &Cfg, budget: &mut Budget) -> Result<LoopForest, CfgError> {
        let n = cfg.len();
        let g = Graph::from_lists(n, cfg.blocks().map(|b| cfg.succs(b).iter().map(|s| s.0)))?;
        let rg = g.reverse();
        let (rpo, pos) = rpo_from(&g, 0, budget)?;
        let (raw, inner) = decompose(&g, &rg, 0, &rpo, &pos, budget)?;
        let mut loops: Vec<Loop> = Vec::with_capacity(raw.len());
        for l in &raw {
            let parent = (l.parent != NO_LOOP).then_some(LoopIdx(l.parent));
            let depth = match parent {
                Some(p) => loops.get(p.0 as usize).map_or(1, |pl: &Loop| pl.depth + 1),
                None => 1,
            };
            loops.push(Loop {
                header: BlockIdx(l.entries[0]),
                entries: l.entries.iter().map(|&e| BlockIdx(e)).collect(),
                parent,
                blocks: l.members.iter().map(|&m| BlockIdx(m)).collect(),
                depth,
            });
        }
        Ok(LoopForest {
            loops,
            innermost: inner
                .into_iter()
                .map(|l| (l != NO_LOOP).then_some(LoopIdx(l)))
                .collect(),
        })
    }

    /// All loops, outer loops before the loops they contain.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The loop with index `l`.
    pub fn get(&self, l: LoopIdx) -> Option<&Loop> {
        self.loops.get(l.0 as usize)
    }

    /// The innermost loop containing `b`.
    pub fn innermost(&self, b: BlockIdx) -> Option<LoopIdx> {
        self.innermost.get(b.index()).copied().flatten()
    }

    /// Whether loop `l` contains block `b` (directly or through a nested loop).
    pub fn contains(&self, l: LoopIdx, b: BlockIdx) -> bool {
        let mut cur = self.innermost(b);
        while let Some(c) = cur {
            if c == l {
                return true;
            }
            cur = self.get(c).and_then(|x| x.parent);
        }
        false
    }

    /// Number of loops containing `b`.
    pub fn depth(&self, b: BlockIdx) -> u32 {
        self.innermost(b)
            .and_then(|l| self.get(l))
            .map_or(0, |l| l.depth)
    }

    /// Whether every loop has a single entry, i.e. the reachable CFG is reducible.
    pub fn is_reducible(&self) -> bool {
        self.loops.iter().all(|l| !l.is_irreducible())
    }

    /// Whether `from → to` is a back edge: `to` is an entry of a loop that contains `from`
    /// (for reducible loops: the edge goes to the header from inside the loop).
    pub fn is_back_edge(&self, from: BlockIdx, to: BlockIdx) -> bool {
        let mut cur = self.innermost(from);
        while let Some(c) = cur {
            let Some(l) = self.get(c) else { break };
            if l.entries.contains(&to) {
                return true;
            }
            cur = l.parent;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{BlockData, Terminator};

    fn br(t: u32) -> BlockData {
        BlockData::new(Terminator::Branch(BlockIdx(t)))
    }
    fn cond(t: u32, f: u32) -> BlockData {
        BlockData::new(Terminator::BranchConditional {
            true_target: BlockIdx(t),
            false_target: BlockIdx(f),
        })
    }
    fn ret() -> BlockData {
        BlockData::new(Terminator::Return)
    }

    /// Two nested natural loops: 0 → 1 (outer header) → 2 (inner header) ⇄ 3, 3 → 4 → 1,
    /// 1 → 5 exit. Hand-checked: outer = {1,2,3,4}, inner = {2,3}.
    #[test]
    fn nested_natural_loops() {
        let cfg = Cfg::new(vec![br(1), cond(2, 5), br(3), cond(2, 4), br(1), ret()]).unwrap();
        let f = LoopForest::new(&cfg).unwrap();
        assert!(f.is_reducible());
        assert_eq!(f.loops().len(), 2);
        let outer = &f.loops()[0];
        assert_eq!(outer.header, BlockIdx(1));
        let mut ob = outer.blocks.clone();
        ob.sort();
        assert_eq!(ob, vec![BlockIdx(1), BlockIdx(2), BlockIdx(3), BlockIdx(4)]);
        let inner = &f.loops()[1];
        assert_eq!(inner.header, BlockIdx(2));
        assert_eq!(inner.parent, Some(LoopIdx(0)));
        assert_eq!(inner.depth, 2);
        assert!(f.is_back_edge(BlockIdx(3), BlockIdx(2)));
        assert!(f.is_back_edge(BlockIdx(4), BlockIdx(1)));
        assert!(!f.is_back_edge(BlockIdx(1), BlockIdx(2)));
        assert_eq!(f.depth(BlockIdx(3)), 2);
        assert_eq!(f.depth(BlockIdx(5)), 0);
        assert!(f.contains(LoopIdx(0), BlockIdx(3)));
    }

    /// The classic irreducible graph: 0 → {1, 2}, 1 ⇄ 2, both may exit to 3. One loop with
    /// entries 1 and 2 (spirv.md §3.7's "loop with two entries").
    #[test]
    fn two_entry_loop_is_irreducible() {
        let cfg = Cfg::new(vec![cond(1, 2), cond(2, 3), cond(1, 3), ret()]).unwrap();
        let f = LoopForest::new(&cfg).unwrap();
        assert!(!f.is_reducible());
        assert_eq!(f.loops().len(), 1);
        let l = &f.loops()[0];
        assert!(l.is_irreducible());
        let mut e = l.entries.clone();
        e.sort();
        assert_eq!(e, vec![BlockIdx(1), BlockIdx(2)]);
        assert!(f.is_back_edge(BlockIdx(1), BlockIdx(2)));
        assert!(f.is_back_edge(BlockIdx(2), BlockIdx(1)));
    }

    /// A self loop is a loop of one block; a block behind it is in no loop; unreachable
    /// cycles are ignored.
    #[test]
    fn self_loop_and_unreachable_cycle() {
        let cfg = Cfg::new(vec![br(1), cond(1, 2), ret(), br(4), br(3)]).unwrap();
        let f = LoopForest::new(&cfg).unwrap();
        assert_eq!(f.loops().len(), 1);
        assert_eq!(f.loops()[0].blocks, vec![BlockIdx(1)]);
        assert_eq!(f.innermost(BlockIdx(3)), None);
        assert!(f.is_back_edge(BlockIdx(1), BlockIdx(1)));
    }
}
