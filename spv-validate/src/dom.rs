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

/// A directed graph over nodes `0..len`, its successor and predecessor lists stored back to
/// back (one allocation each, whatever the number of nodes).
#[derive(Default)]
pub(crate) struct Graph {
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    pred_start: Vec<u32>,
    pred: Vec<u32>,
}

impl Graph {
    /// Makes this the graph of `n` nodes with `edges` (`from → to`; edges naming nodes
    /// outside `0..n` are ignored), reusing the storage. Each node's successors, and its
    /// predecessors, keep the edges' order.
    pub(crate) fn rebuild(&mut self, n: usize, edges: &[(u32, u32)]) {
        let inside = |&&(a, b): &&(u32, u32)| (a as usize) < n && (b as usize) < n;
        group(
            n,
            edges.iter().filter(inside).map(|&(a, b)| (a, b)),
            &mut self.succ_start,
            &mut self.succ,
        );
        group(
            n,
            edges.iter().filter(inside).map(|&(a, b)| (b, a)),
            &mut self.pred_start,
            &mut self.pred,
        );
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.succ_start.len().saturating_sub(1)
    }

    /// Successors of node `b` (empty for nodes outside the graph).
    pub(crate) fn succs(&self, b: u32) -> &[u32] {
        slice(&self.succ_start, &self.succ, b)
    }

    /// Predecessors of node `b` (empty for nodes outside the graph).
    pub(crate) fn preds(&self, b: u32) -> &[u32] {
        slice(&self.pred_start, &self.pred, b)
    }

    /// The nodes reachable from `root` in post-order (iterative DFS, successors in list
    /// order) into `order`, with `seen` and `stack` as scratch space.
    pub(crate) fn post_order_into(
        &self,
        root: u32,
        seen: &mut Vec<bool>,
        stack: &mut Vec<(u32, usize)>,
        order: &mut Vec<u32>,
    ) {
        seen.clear();
        seen.resize(self.len(), false);
        stack.clear();
        order.clear();
        if let Some(s) = seen.get_mut(root as usize) {
            *s = true;
            stack.push((root, 0));
        }
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.succs(node).get(*next) {
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
    }
}

/// Groups `(key, value)` pairs by key (keys below `n`), keeping their order: `start` gets
/// the start of each key's run (and the end of the last), `values` the values.
fn group(
    n: usize,
    pairs: impl Iterator<Item = (u32, u32)> + Clone,
    start: &mut Vec<u32>,
    values: &mut Vec<u32>,
) {
    start.clear();
    start.resize(n + 2, 0);
    // Count into start[k + 2], prefix-sum so that start[k + 1] is where key k begins, then
    // fill by bumping start[k + 1]: it ends where key k ends, which is key k + 1's start.
    for (k, _) in pairs.clone() {
        if let Some(c) = start.get_mut(k as usize + 2) {
            *c += 1;
        }
    }
    for i in 2..n + 2 {
        let before = start.get(i - 1).copied().unwrap_or(0);
        if let Some(c) = start.get_mut(i) {
            *c += before;
        }
    }
    values.clear();
    values.resize(start.get(n + 1).copied().unwrap_or(0) as usize, 0);
    for (k, v) in pairs {
        if let Some(at) = start.get_mut(k as usize + 1) {
            if let Some(slot) = values.get_mut(*at as usize) {
                *slot = v;
            }
            *at += 1;
        }
    }
    start.truncate(n + 1);
}

/// The run of node `b` in grouped lists.
fn slice<'a>(start: &[u32], values: &'a [u32], b: u32) -> &'a [u32] {
    match (start.get(b as usize), start.get(b as usize + 1)) {
        (Some(&s), Some(&e)) => values.get(s as usize..e as usize).unwrap_or(&[]),
        _ => &[],
    }
}

/// Scratch space for building dominator trees, reused from tree to tree.
#[derive(Default)]
pub(crate) struct DomScratch {
    order: Vec<u32>,
    seen: Vec<bool>,
    stack: Vec<(u32, usize)>,
    post_index: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<u32>,
}

/// Immediate dominators of every node reachable from `root` into `idom` (`idom[root] ==
/// root`); nodes not reachable from `root` get [`UNDEF`].
///
/// `known_post` is the post-order of the nodes reachable from `root` when the caller has it
/// (from the same traversal, [`Graph::post_order_into`]); otherwise it is computed here.
fn immediate_dominators(
    g: &Graph,
    root: u32,
    known_post: Option<&[u32]>,
    idom: &mut Vec<u32>,
    scratch: &mut DomScratch,
) {
    let n = g.len();
    let DomScratch {
        order,
        seen,
        stack,
        post_index,
        ..
    } = scratch;
    let post: &[u32] = match known_post {
        Some(post) => post,
        None => {
            g.post_order_into(root, seen, stack, order);
            order
        }
    };
    // post_index[node] = position in post-order; higher = earlier in reverse post-order.
    post_index.clear();
    post_index.resize(n, UNDEF);
    for (i, &node) in post.iter().enumerate() {
        if let Some(slot) = post_index.get_mut(node as usize) {
            *slot = i as u32;
        }
    }
    idom.clear();
    idom.resize(n, UNDEF);
    if let Some(r) = idom.get_mut(root as usize) {
        *r = root;
    } else {
        return;
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
            let mut new = UNDEF;
            for &p in g.preds(node) {
                if idom.get(p as usize).copied().unwrap_or(UNDEF) == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    p
                } else {
                    intersect(idom, p, new)
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
}

/// A dominator tree with constant-time ancestor queries (DFS entry/exit numbers).
#[derive(Default)]
pub(crate) struct DomTree {
    /// Immediate dominator of each node ([`UNDEF`] for the root and unreached nodes).
    pub(crate) idom: Vec<u32>,
    /// (entry, exit) number of each node ([`UNDEF`] outside the tree).
    order: Vec<(u32, u32)>,
    /// The nodes of the tree in pre-order (children in node order).
    pub(crate) preorder: Vec<u32>,
}

impl DomTree {
    /// Makes this the dominator tree of `g` rooted at `root`, reusing the storage and
    /// `scratch`.
    pub(crate) fn rebuild(&mut self, g: &Graph, root: u32, scratch: &mut DomScratch) {
        self.rebuild_from(g, root, None, scratch);
    }

    /// [`DomTree::rebuild`] given the post-order of the nodes reachable from `root`, as
    /// [`Graph::post_order_into`] computes it.
    pub(crate) fn rebuild_with_post_order(
        &mut self,
        g: &Graph,
        root: u32,
        post: &[u32],
        scratch: &mut DomScratch,
    ) {
        self.rebuild_from(g, root, Some(post), scratch);
    }

    fn rebuild_from(
        &mut self,
        g: &Graph,
        root: u32,
        post: Option<&[u32]>,
        scratch: &mut DomScratch,
    ) {
        let n = g.len();
        immediate_dominators(g, root, post, &mut self.idom, scratch);
        if let Some(r) = self.idom.get_mut(root as usize) {
            *r = UNDEF;
        }
        let DomScratch {
            stack,
            child_start,
            children,
            ..
        } = scratch;
        group(
            n,
            self.idom
                .iter()
                .enumerate()
                .filter(|&(_, &parent)| parent != UNDEF)
                .map(|(node, &parent)| (parent, node as u32)),
            child_start,
            children,
        );
        self.order.clear();
        self.order.resize(n, (UNDEF, UNDEF));
        self.preorder.clear();
        let mut clock = 0u32;
        stack.clear();
        if (root as usize) < n {
            stack.push((root, 0));
        }
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if *next == 0
                && let Some(p) = self.order.get_mut(node as usize)
            {
                p.0 = clock;
                clock += 1;
                self.preorder.push(node);
            }
            let kids = slice(child_start, children, node);
            if let Some(&child) = kids.get(*next) {
                *next += 1;
                stack.push((child, 0));
            } else {
                if let Some(p) = self.order.get_mut(node as usize) {
                    p.1 = clock;
                    clock += 1;
                }
                stack.pop();
            }
        }
    }

    /// Makes this the empty tree (no node dominates any).
    pub(crate) fn clear(&mut self) {
        self.idom.clear();
        self.order.clear();
        self.preorder.clear();
    }

    /// Whether `a` dominates `b` (reflexive); false if either is not in the tree.
    pub(crate) fn dominates(&self, a: u32, b: u32) -> bool {
        match (self.order.get(a as usize), self.order.get(b as usize)) {
            (Some(&(pa, qa)), Some(&(pb, qb))) => {
                pa != UNDEF && pb != UNDEF && pa <= pb && qb <= qa
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
        let mut g = Graph::default();
        g.rebuild(n, edges);
        g
    }

    fn tree(g: &Graph, root: u32) -> DomTree {
        let mut t = DomTree::default();
        t.rebuild(g, root, &mut DomScratch::default());
        t
    }

    #[test]
    fn diamond_and_loop() {
        // 0 → 1, 0 → 2, 1 → 3, 2 → 3, 3 → 1 (a loop back into an arm): 0 dominates all,
        // 3's idom is 0 because it is reached through 1 or 2.
        let g = graph(4, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 1)]);
        let t = tree(&g, 0);
        assert_eq!(t.idom, vec![UNDEF, 0, 0, 0]);
        assert!(t.dominates(0, 3));
        assert!(!t.dominates(1, 3));
        assert!(t.dominates(3, 3));
    }

    #[test]
    fn unreachable_nodes_are_outside_the_tree() {
        let g = graph(3, &[(0, 1), (2, 1)]);
        let t = tree(&g, 0);
        assert!(t.dominates(1, 1));
        assert!(!t.dominates(2, 2));
        assert!(!t.dominates(2, 1));
        assert!(t.dominates(0, 1));
    }
}
