//! Dominator trees over small dense graphs (the blocks of one function), by the iterative
//! algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001):
//! number the nodes in reverse post-order, then intersect predecessors' dominators until
//! nothing changes.
//!
//! The graph given may be augmented (spirv.md §3.1, spirv-val's approach): callers add a
//! pseudo entry with edges to every node without predecessors, so that unreachable nodes
//! get a parent too; post-dominators are dominators of the reversed graph with a pseudo exit.

/// Marks "no dominator" (the root, or a node the root does not reach).
pub(crate) const UNDEF: u32 = u32::MAX;

/// A directed graph with `succs[n]` and `preds[n]` lists over nodes `0..len`.
pub(crate) struct Graph {
    /// Successors of each node.
    pub(crate) succs: Vec<Vec<u32>>,
    /// Predecessors of each node.
    pub(crate) preds: Vec<Vec<u32>>,
}

impl Graph {
    /// A graph of `n` nodes without edges.
    pub(crate) fn new(n: usize) -> Self {
        Graph {
            succs: vec![Vec::new(); n],
            preds: vec![Vec::new(); n],
        }
    }

    /// Adds the edge `from → to` (both must be nodes; out-of-range edges are ignored).
    pub(crate) fn add_edge(&mut self, from: u32, to: u32) {
        let n = self.succs.len() as u32;
        if from >= n || to >= n {
            return;
        }
        if let Some(s) = self.succs.get_mut(from as usize) {
            s.push(to);
        }
        if let Some(p) = self.preds.get_mut(to as usize) {
            p.push(from);
        }
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.succs.len()
    }

    /// Nodes reachable from `root` in post-order (iterative DFS, successors in list order).
    pub(crate) fn post_order(&self, root: u32) -> Vec<u32> {
        let n = self.len();
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack: Vec<(u32, usize)> = Vec::new();
        if (root as usize) < n {
            stack.push((root, 0));
            if let Some(s) = seen.get_mut(root as usize) {
                *s = true;
            }
        }
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let succs = self.succs.get(node as usize).map_or(&[][..], |v| &v[..]);
            if let Some(&s) = succs.get(*next) {
                *next += 1;
                if let Some(flag) = seen.get_mut(s as usize)
                    && !*flag
                {
                    *flag = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(node);
                stack.pop();
            }
        }
        order
    }
}

/// Immediate dominators of every node reachable from `root` (`idom[root] == root`); nodes
/// not reachable from `root` get [`UNDEF`].
pub(crate) fn immediate_dominators(g: &Graph, root: u32) -> Vec<u32> {
    let n = g.len();
    let post = g.post_order(root);
    // post_index[node] = position in post-order; higher = earlier in reverse post-order.
    let mut post_index = vec![UNDEF; n];
    for (i, &node) in post.iter().enumerate() {
        if let Some(slot) = post_index.get_mut(node as usize) {
            *slot = i as u32;
        }
    }
    let mut idom = vec![UNDEF; n];
    if let Some(r) = idom.get_mut(root as usize) {
        *r = root;
    } else {
        return idom;
    }
    let intersect = |idom: &[u32], mut a: u32, mut b: u32| -> u32 {
        // Walk up from the node with the smaller post-order index; both chains end at the
        // root, which has the largest index, so the loop ends.
        while a != b {
            let pa = post_index.get(a as usize).copied().unwrap_or(UNDEF);
            let pb = post_index.get(b as usize).copied().unwrap_or(UNDEF);
            if pa < pb {
                a = idom.get(a as usize).copied().unwrap_or(root);
            } else {
                b = idom.get(b as usize).copied().unwrap_or(root);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &node in post.iter().rev() {
            if node == root {
                continue;
            }
            let preds = g.preds.get(node as usize).map_or(&[][..], |v| &v[..]);
            let mut new = UNDEF;
            for &p in preds {
                if idom.get(p as usize).copied().unwrap_or(UNDEF) == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if let Some(slot) = idom.get_mut(node as usize)
                && *slot != new
            {
                *slot = new;
                changed = true;
            }
        }
    }
    idom
}

/// A dominator tree with constant-time ancestor queries (DFS entry/exit numbers).
pub(crate) struct DomTree {
    /// Immediate dominator of each node ([`UNDEF`] for the root and unreached nodes).
    pub(crate) idom: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    /// Builds the tree of `g` rooted at `root`.
    pub(crate) fn new(g: &Graph, root: u32) -> Self {
        let mut idom = immediate_dominators(g, root);
        if let Some(r) = idom.get_mut(root as usize) {
            *r = UNDEF;
        }
        let n = g.len();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (node, &parent) in idom.iter().enumerate() {
            if parent != UNDEF
                && let Some(c) = children.get_mut(parent as usize)
            {
                c.push(node as u32);
            }
        }
        let mut pre = vec![UNDEF; n];
        let mut post = vec![UNDEF; n];
        let mut clock = 0u32;
        let mut stack: Vec<(u32, usize)> = Vec::new();
        if (root as usize) < n {
            stack.push((root, 0));
        }
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if *next == 0
                && let Some(p) = pre.get_mut(node as usize)
            {
                *p = clock;
                clock += 1;
            }
            let kids = children.get(node as usize).map_or(&[][..], |v| &v[..]);
            if let Some(&child) = kids.get(*next) {
                *next += 1;
                stack.push((child, 0));
            } else {
                if let Some(p) = post.get_mut(node as usize) {
                    *p = clock;
                    clock += 1;
                }
                stack.pop();
            }
        }
        DomTree { idom, pre, post }
    }

    /// Whether `a` dominates `b` (reflexive); false if either is not in the tree.
    pub(crate) fn dominates(&self, a: u32, b: u32) -> bool {
        match (
            self.pre.get(a as usize),
            self.pre.get(b as usize),
            self.post.get(a as usize),
            self.post.get(b as usize),
        ) {
            (Some(&pa), Some(&pb), Some(&qa), Some(&qb)) => {
                pa != UNDEF && pb != UNDEF && pa <= pb && qb <= qa
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond_and_loop() {
        // 0 → 1, 0 → 2, 1 → 3, 2 → 3, 3 → 1 (a loop back into an arm): 0 dominates all,
        // 3's idom is 0 because it is reached through 1 or 2.
        let mut g = Graph::new(4);
        for (a, b) in [(0, 1), (0, 2), (1, 3), (2, 3), (3, 1)] {
            g.add_edge(a, b);
        }
        let t = DomTree::new(&g, 0);
        assert_eq!(t.idom, vec![UNDEF, 0, 0, 0]);
        assert!(t.dominates(0, 3));
        assert!(!t.dominates(1, 3));
        assert!(t.dominates(3, 3));
    }

    #[test]
    fn unreachable_nodes_are_outside_the_tree() {
        let mut g = Graph::new(3);
        g.add_edge(0, 1);
        g.add_edge(2, 1);
        let t = DomTree::new(&g, 0);
        assert!(t.dominates(1, 1));
        assert!(!t.dominates(2, 2));
        assert!(!t.dominates(2, 1));
        assert!(t.dominates(0, 1));
    }
}
