//! Dominator trees over small dense graphs (the blocks of one function), by the iterative
//! algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001):
//! number the nodes in reverse post-order, then intersect predecessors' dominators until
//! nothing changes (one pass when every back edge's target dominates its source).
//!
//! Most functions have few blocks: a graph of at most [`SET_NODES`] nodes gets each node's
//! dominators as a bit set instead (the same iteration over sets, in reverse post-order), and
//! dominance is one bit test; larger graphs keep the tree as pre-order intervals.
//!
//! The graph given may be augmented (spirv.md §3.1, spirv-val's approach): callers add a
//! pseudo entry with edges to every node without predecessors, so that unreachable nodes
//! get a parent too; post-dominators are dominators of the reversed graph with a pseudo exit.

/// Marks "no dominator" (the root, or a node the root does not reach).
pub(crate) const UNDEF: u32 = u32::MAX;

/// The most nodes of a graph whose dominators [`DomTree`] keeps as bit sets (one `u64` per
/// node); larger graphs get pre-order intervals.
const SET_NODES: usize = 64;

/// The bit of node `b` in a set of at most [`SET_NODES`] nodes, such as a dominator set or a
/// function's blocks as bits (none for nodes past it, and for [`crate::ctx::NONE`]).
pub(crate) fn bit(b: u32) -> u64 {
    1u64.checked_shl(b).unwrap_or(0)
}

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
        // One counting sort for both directions: count into start[k + 2], prefix-sum so
        // that start[k + 1] is where node k's run begins, then fill by bumping start[k + 1]:
        // it ends where node k's run ends, which is node k + 1's start.
        let Graph {
            succ_start,
            succ,
            pred_start,
            pred,
        } = self;
        for start in [&mut *succ_start, &mut *pred_start] {
            start.clear();
            start.resize(n + 2, 0);
        }
        let mut total = 0usize;
        for &(a, b) in edges {
            if (a as usize) < n && (b as usize) < n {
                total += 1;
                if let Some(c) = succ_start.get_mut(a as usize + 2) {
                    *c += 1;
                }
                if let Some(c) = pred_start.get_mut(b as usize + 2) {
                    *c += 1;
                }
            }
        }
        for start in [&mut *succ_start, &mut *pred_start] {
            let mut sum = 0;
            for c in start.iter_mut().skip(2) {
                sum += *c;
                *c = sum;
            }
        }
        for values in [&mut *succ, &mut *pred] {
            values.clear();
            values.resize(total, 0);
        }
        for &(a, b) in edges {
            if (a as usize) < n && (b as usize) < n {
                place(succ_start, succ, a, b);
                place(pred_start, pred, b, a);
            }
        }
        succ_start.truncate(n + 1);
        pred_start.truncate(n + 1);
    }

    /// Makes this the graph of `n` nodes with `edges`, successors only: [`Graph::preds`]
    /// is empty for every node. The edges must come grouped by their source in increasing
    /// order (each node's successors keep the edges' order); edges naming nodes outside
    /// `0..n` are ignored. Cheaper than [`Graph::rebuild`] for callers that walk forward
    /// only (no counting sort, no predecessor lists).
    pub(crate) fn rebuild_forward(&mut self, n: usize, edges: &[(u32, u32)]) {
        let Graph {
            succ_start,
            succ,
            pred_start,
            pred,
        } = self;
        succ.clear();
        pred.clear();
        pred_start.clear();
        pred_start.resize(n + 1, 0);
        succ_start.clear();
        succ_start.push(0);
        // Node `node`'s run ends where the first edge of a later node begins.
        let mut node = 0usize;
        for &(a, b) in edges {
            if (a as usize) < n && (b as usize) < n {
                while node < a as usize {
                    succ_start.push(succ.len() as u32);
                    node += 1;
                }
                succ.push(b);
            }
        }
        while node < n {
            succ_start.push(succ.len() as u32);
            node += 1;
        }
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.succ_start.len().saturating_sub(1)
    }

    /// Number of edges (the graph's edges naming its nodes).
    pub(crate) fn edge_count(&self) -> usize {
        self.succ.len()
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

/// Puts `value` at the next free place of `key`'s run (see [`Graph::rebuild`]).
fn place(start: &mut [u32], values: &mut [u32], key: u32, value: u32) {
    if let Some(at) = start.get_mut(key as usize + 1) {
        if let Some(slot) = values.get_mut(*at as usize) {
            *slot = value;
        }
        *at += 1;
    }
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
    /// Each node's reverse post-order number ([`UNDEF`] when unreached).
    number: Vec<u32>,
    /// Immediate dominator of each node, both by reverse post-order number.
    doms: Vec<u32>,
    /// Size of each node's subtree, by number; then the next free pre-order position
    /// under each placed node.
    size: Vec<u32>,
    /// Edges to a node that does not come later in reverse post-order (back edges).
    retreating: Vec<(u32, u32)>,
    /// [`DomTree::rebuild_sets_forward`]: the intersection of the dominator sets of each
    /// node's predecessors placed so far.
    common: Vec<u64>,
}

/// The nearest common dominator of `a` and `b` (reverse post-order numbers): walk up from
/// the later one. Every chain ends at the root, number 0, so the loop ends.
fn intersect(doms: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = doms.get(a as usize).copied().unwrap_or(0);
        }
        while b > a {
            b = doms.get(b as usize).copied().unwrap_or(0);
        }
    }
    a
}

/// Immediate dominators of the nodes reachable from the root, by reverse post-order
/// number, into `doms` (`doms[0] == 0`, the root), given the numbers of all nodes and the
/// post-order `post`.
///
/// One pass in reverse post-order over the edges from earlier nodes gives the dominators of
/// the acyclic graph they form. Each back edge `p → h` whose target already dominates its
/// source changes nothing (every path to `p` passes `h` first), which holds for every back
/// edge of a reducible graph; otherwise the algorithm of Cooper, Harvey and Kennedy goes on
/// iterating over all edges until nothing changes.
fn immediate_dominators(
    g: &Graph,
    post: &[u32],
    number: &[u32],
    doms: &mut Vec<u32>,
    retreating: &mut Vec<(u32, u32)>,
) {
    let m = post.len();
    doms.clear();
    doms.resize(m, UNDEF);
    retreating.clear();
    if let Some(r) = doms.first_mut() {
        *r = 0;
    }
    for (i, &node) in post.iter().rev().enumerate().skip(1) {
        let i = i as u32;
        let mut new = UNDEF;
        for &p in g.preds(node) {
            let pn = number.get(p as usize).copied().unwrap_or(UNDEF);
            if pn == UNDEF {
                continue;
            }
            if pn >= i {
                retreating.push((pn, i));
                continue;
            }
            new = if new == UNDEF {
                pn
            } else {
                intersect(doms, pn, new)
            };
        }
        if let Some(slot) = doms.get_mut(i as usize) {
            *slot = new;
        }
    }
    let settled = retreating.iter().all(|&(p, h)| {
        let mut x = p;
        while x > h {
            x = doms.get(x as usize).copied().unwrap_or(0);
        }
        x == h
    });
    if settled {
        return;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (i, &node) in post.iter().rev().enumerate().skip(1) {
            let mut new = UNDEF;
            for &p in g.preds(node) {
                let pn = number.get(p as usize).copied().unwrap_or(UNDEF);
                if pn == UNDEF || doms.get(pn as usize).is_none_or(|&d| d == UNDEF) {
                    continue;
                }
                new = if new == UNDEF {
                    pn
                } else {
                    intersect(doms, pn, new)
                };
            }
            if let Some(slot) = doms.get_mut(i)
                && *slot != new
            {
                *slot = new;
                changed = true;
            }
        }
    }
}

/// A dominator tree with constant-time ancestor queries: each node's dominators as a bit set
/// for graphs of at most [`SET_NODES`] nodes (the set form), pre-order intervals for larger
/// ones (the interval form, which also lists the nodes in a pre-order).
#[derive(Default)]
pub(crate) struct DomTree {
    /// Immediate dominator of each node ([`UNDEF`] for the root and unreached nodes).
    pub(crate) idom: Vec<u32>,
    /// Interval form: each node's subtree as the interval of pre-order positions it covers,
    /// (first, end) ([`UNDEF`] outside the tree). Empty in the set form.
    order: Vec<(u32, u32)>,
    /// Interval form: the nodes of the tree in a pre-order (every node after its immediate
    /// dominator). Empty in the set form.
    pub(crate) preorder: Vec<u32>,
    /// Set form: each node's dominators (itself included) as bits, 0 for a node outside the
    /// tree. Empty in the interval form.
    sets: Vec<u64>,
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
        let DomScratch {
            order,
            seen,
            stack,
            number,
            doms,
            size,
            retreating,
            ..
        } = scratch;
        let post: &[u32] = match post {
            Some(post) => post,
            None => {
                g.post_order_into(root, seen, stack, order);
                order
            }
        };
        if n <= SET_NODES {
            self.rebuild_sets(g, root, post, retreating);
            return;
        }
        self.sets.clear();
        let m = post.len();
        number.clear();
        number.resize(n, UNDEF);
        for (i, &node) in post.iter().rev().enumerate() {
            if let Some(slot) = number.get_mut(node as usize) {
                *slot = i as u32;
            }
        }
        immediate_dominators(g, post, number, doms, retreating);
        // Subtree sizes (a node's immediate dominator comes earlier in reverse
        // post-order, so a backward pass adds each size into its parent's).
        size.clear();
        size.resize(m, 1);
        for i in (1..m).rev() {
            let d = doms.get(i).copied().unwrap_or(0) as usize;
            let s = size.get(i).copied().unwrap_or(0);
            if let Some(slot) = size.get_mut(d) {
                *slot += s;
            }
        }
        // Pre-order positions, forward: each child takes the next free run of its parent's
        // interval. `size` is reused for the next free position under each node once the
        // node is placed (parents are placed before their children), so one array serves.
        self.idom.clear();
        self.idom.resize(n, UNDEF);
        self.order.clear();
        self.order.resize(n, (UNDEF, UNDEF));
        self.preorder.clear();
        self.preorder.resize(m, 0);
        for (i, &node) in post.iter().rev().enumerate() {
            let own = size.get(i).copied().unwrap_or(0);
            let (at, parent) = if i == 0 {
                (0, UNDEF)
            } else {
                let d = doms.get(i).copied().unwrap_or(0) as usize;
                let at = match size.get_mut(d) {
                    Some(next) => {
                        let at = *next;
                        *next += own;
                        at
                    }
                    None => 0,
                };
                (at, post.get(m - 1 - d).copied().unwrap_or(UNDEF))
            };
            if let Some(slot) = size.get_mut(i) {
                *slot = at + 1;
            }
            if let Some(slot) = self.idom.get_mut(node as usize) {
                *slot = parent;
            }
            if let Some(slot) = self.order.get_mut(node as usize) {
                *slot = (at, at + own);
            }
            if let Some(slot) = self.preorder.get_mut(at as usize) {
                *slot = node;
            }
        }
    }

    /// The set form of the tree of `g` (at most [`SET_NODES`] nodes) rooted at `root`, given
    /// the post-order `post` of the nodes `root` reaches; `retreating` is scratch space.
    ///
    /// A node's dominators are itself and those common to all its predecessors. One pass in
    /// reverse post-order, where a predecessor not yet given a set is left out, gives the
    /// dominators of the acyclic graph of the other edges. An edge `p → h` left out changes
    /// nothing when `h` already dominates `p` (every dominator of `h` then dominates `p`),
    /// which holds for every back edge of a reducible graph; otherwise passes over all edges
    /// repeat until nothing changes, from sets that only shrink towards the dominators, as
    /// in [`immediate_dominators`].
    fn rebuild_sets(
        &mut self,
        g: &Graph,
        root: u32,
        post: &[u32],
        retreating: &mut Vec<(u32, u32)>,
    ) {
        let n = g.len();
        self.reset_sets(n);
        let sets = &mut self.sets;
        if post.is_empty() {
            return;
        }
        if let Some(s) = sets.get_mut(root as usize) {
            *s = bit(root);
        }
        retreating.clear();
        for &node in post.iter().rev().skip(1) {
            let mut common = u64::MAX;
            for &p in g.preds(node) {
                let set = sets.get(p as usize).copied().unwrap_or(0);
                if set == 0 {
                    // Unreached, or later in reverse post-order: judged below.
                    retreating.push((p, node));
                } else {
                    common &= set;
                }
            }
            if let Some(slot) = sets.get_mut(node as usize) {
                *slot = common | bit(node);
            }
        }
        let settled = retreating.iter().all(|&(p, h)| {
            let set = sets.get(p as usize).copied().unwrap_or(0);
            set == 0 || set & bit(h) != 0
        });
        let mut changed = !settled;
        while changed {
            changed = false;
            for &node in post.iter().rev().skip(1) {
                let mut common = u64::MAX;
                for &p in g.preds(node) {
                    let set = sets.get(p as usize).copied().unwrap_or(0);
                    if set != 0 {
                        common &= set;
                    }
                }
                let new = common | bit(node);
                if let Some(slot) = sets.get_mut(node as usize)
                    && *slot != new
                {
                    *slot = new;
                    changed = true;
                }
            }
        }
        self.idoms_from_sets(post);
    }

    /// The set form of the tree of `g` (at most [`SET_NODES`] nodes) rooted at `root`, given
    /// the post-order `post` of the nodes `root` reaches, from successor lists only (`g` may
    /// lack predecessors, see [`Graph::rebuild_forward`]). Whether it succeeded: false (the
    /// tree then unspecified) for a larger graph, or when some edge to a node earlier in
    /// reverse post-order does not come from a node that node dominates (an irreducible
    /// graph), where [`DomTree::rebuild_with_post_order`]'s repeated passes are needed.
    ///
    /// The one pass of [`DomTree::rebuild_sets`], with each node's set pushed to its
    /// successors instead of pulled from its predecessors: a node's set is final when it is
    /// reached in reverse post-order, and by then every predecessor before it has pushed, so
    /// each node meets the same predecessor sets as in the pull.
    pub(crate) fn rebuild_sets_forward(
        &mut self,
        g: &Graph,
        root: u32,
        post: &[u32],
        scratch: &mut DomScratch,
    ) -> bool {
        let n = g.len();
        if n > SET_NODES {
            return false;
        }
        self.reset_sets(n);
        let sets = &mut self.sets;
        let common = &mut scratch.common;
        common.clear();
        common.resize(n, u64::MAX);
        for &node in post.iter().rev() {
            let set = if node == root {
                bit(root)
            } else {
                common.get(node as usize).copied().unwrap_or(0) | bit(node)
            };
            if let Some(slot) = sets.get_mut(node as usize) {
                *slot = set;
            }
            for &v in g.succs(node) {
                if sets.get(v as usize).is_some_and(|&s| s != 0) {
                    // An edge back to a placed node: it changes nothing only when that node
                    // dominates this one.
                    if set & bit(v) == 0 {
                        return false;
                    }
                } else if let Some(c) = common.get_mut(v as usize) {
                    *c &= set;
                }
            }
        }
        self.idoms_from_sets(post);
        true
    }

    /// The set form of the tree of the graph of `succ.len()` nodes (at most [`SET_NODES`])
    /// whose node `b` has the successors `succ[b]` (bits), rooted at node 0, by one pass in
    /// node order; the nodes the root reaches as bits. `None` (the tree then unspecified)
    /// unless every edge from a reached node to a node not after it ends in a node that
    /// dominates its source: then the other edges form an acyclic graph whose dominators
    /// the pass computes (each node after all its reached predecessors along them), and
    /// those edges change none (as in [`DomTree::rebuild_sets`]), so the graph is reducible
    /// and they are exactly the edges every depth-first search finds back. `common` is
    /// scratch space.
    pub(crate) fn rebuild_sets_in_order(
        &mut self,
        succ: &[u64],
        scratch: &mut DomScratch,
    ) -> Option<u64> {
        let n = succ.len();
        if n == 0 || n > SET_NODES {
            return None;
        }
        self.reset_sets(n);
        let sets = &mut self.sets;
        let common = &mut scratch.common;
        common.clear();
        common.resize(n, u64::MAX);
        let mut reached = 1u64;
        for (u, (&out, slot)) in succ.iter().zip(sets.iter_mut()).enumerate() {
            let own = bit(u as u32);
            if reached & own == 0 {
                continue;
            }
            let set = if u == 0 {
                own
            } else {
                common.get(u).copied().unwrap_or(0) | own
            };
            *slot = set;
            // Successors up to `u` itself: each must dominate `u`.
            let back = out & (own | (own - 1));
            if back & !set != 0 {
                return None;
            }
            let mut ahead = out & !back;
            reached |= ahead;
            while ahead != 0 {
                let v = ahead.trailing_zeros();
                ahead &= ahead - 1;
                if let Some(c) = common.get_mut(v as usize) {
                    *c &= set;
                }
            }
        }
        let mut rest = reached;
        while rest != 0 {
            let node = rest.trailing_zeros();
            rest &= rest - 1;
            self.idom_from_sets(node);
        }
        Some(reached)
    }

    /// Empties the tree for the set form of a graph of `n` nodes: every set empty (a node
    /// outside the tree), every immediate dominator undefined, no intervals.
    fn reset_sets(&mut self, n: usize) {
        self.order.clear();
        self.preorder.clear();
        self.sets.clear();
        self.sets.resize(n, 0);
        self.idom.clear();
        self.idom.resize(n, UNDEF);
    }

    /// The immediate dominators of the nodes of `post` from their dominator sets.
    fn idoms_from_sets(&mut self, post: &[u32]) {
        for &node in post {
            self.idom_from_sets(node);
        }
    }

    /// Sets the immediate dominator of `node` from the dominator sets: the strict dominator
    /// whose own dominators are all the node's strict dominators. It is usually the
    /// highest-numbered one (blocks come after their dominators in a valid function,
    /// V-CFG-3), so the search starts there.
    fn idom_from_sets(&mut self, node: u32) {
        let Some(&set) = self.sets.get(node as usize) else {
            return;
        };
        let strict = set & !bit(node);
        let mut rest = strict;
        while rest != 0 {
            let d = u64::BITS - 1 - rest.leading_zeros();
            rest &= !bit(d);
            if self.sets.get(d as usize) == Some(&strict) {
                if let Some(slot) = self.idom.get_mut(node as usize) {
                    *slot = d;
                }
                break;
            }
        }
    }

    /// Makes this a copy of `other`, reusing the storage.
    pub(crate) fn copy_from(&mut self, other: &DomTree) {
        self.idom.clone_from(&other.idom);
        self.order.clone_from(&other.order);
        self.preorder.clone_from(&other.preorder);
        self.sets.clone_from(&other.sets);
    }

    /// Makes this the tree of a graph of one node without edges: the root alone.
    pub(crate) fn set_root_only(&mut self) {
        self.idom.clear();
        self.idom.push(UNDEF);
        self.order.clear();
        self.preorder.clear();
        self.sets.clear();
        self.sets.push(bit(0));
    }

    /// Makes this the empty tree (no node dominates any).
    pub(crate) fn clear(&mut self) {
        self.idom.clear();
        self.order.clear();
        self.preorder.clear();
        self.sets.clear();
    }

    /// Whether the tree keeps each node's dominators as bits ([`DomTree::dominators`]): a
    /// graph of at most [`SET_NODES`] nodes, not the empty tree.
    pub(crate) fn is_set_form(&self) -> bool {
        !self.sets.is_empty()
    }

    /// In the set form, the dominators of `b` (itself included) as bits, 0 for a node
    /// outside the tree; 0 in the interval form.
    pub(crate) fn dominators(&self, b: u32) -> u64 {
        self.sets.get(b as usize).copied().unwrap_or(0)
    }

    /// Whether the tree lists its nodes in [`DomTree::preorder`] (the interval form, for
    /// graphs of more than [`SET_NODES`] nodes; the set form and the empty tree do not).
    pub(crate) fn has_preorder(&self) -> bool {
        !self.preorder.is_empty()
    }

    /// Whether `a` is in the tree and dominates no node but itself (a leaf).
    pub(crate) fn dominates_only_itself(&self, a: u32) -> bool {
        if !self.sets.is_empty() {
            let a_bit = bit(a);
            return self.sets.get(a as usize).is_some_and(|&set| set != 0)
                && self
                    .sets
                    .iter()
                    .enumerate()
                    .all(|(b, &set)| b == a as usize || set & a_bit == 0);
        }
        self.order
            .get(a as usize)
            .is_some_and(|&(first, end)| first != UNDEF && end == first + 1)
    }

    /// Whether `a` dominates `b` (reflexive); false if either is not in the tree.
    pub(crate) fn dominates(&self, a: u32, b: u32) -> bool {
        if !self.sets.is_empty() {
            // A node outside the tree has the empty set and dominates no node's set.
            return self
                .sets
                .get(b as usize)
                .is_some_and(|&set| set & bit(a) != 0);
        }
        match (self.order.get(a as usize), self.order.get(b as usize)) {
            (Some(&(pa, qa)), Some(&(pb, _))) => pa != UNDEF && pb != UNDEF && pa <= pb && pb < qa,
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
    fn leaves_dominate_only_themselves() {
        // 0 → 1 → 2, 0 → 3, and 4 unreached: 2 and 3 are leaves, 0 and 1 are not, 4 is
        // outside the tree (so not a leaf of it).
        let g = graph(5, &[(0, 1), (1, 2), (0, 3)]);
        let t = tree(&g, 0);
        let leaves: Vec<bool> = (0..5).map(|v| t.dominates_only_itself(v)).collect();
        assert_eq!(leaves, vec![false, false, true, true, false]);
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

    /// Whether `a` dominates `b` by definition: `b` is reachable from `root`, and not once
    /// `a` is taken out (unless `a` is `b`).
    fn dominates_by_definition(g: &Graph, root: u32, a: u32, b: u32) -> bool {
        let reach = |skip: Option<u32>| {
            let mut seen = vec![false; g.len()];
            let mut stack = Vec::new();
            if Some(root) != skip {
                seen[root as usize] = true;
                stack.push(root);
            }
            while let Some(v) = stack.pop() {
                for &s in g.succs(v) {
                    if Some(s) != skip && !seen[s as usize] {
                        seen[s as usize] = true;
                        stack.push(s);
                    }
                }
            }
            seen
        };
        reach(None)[b as usize] && (a == b || !reach(Some(a))[b as usize])
    }

    #[test]
    fn random_graphs_irreducible_ones_included() {
        let mut rng = crate::mutate::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |bound: u64| rng.below(bound as usize) as u32;
        let mut scratch = DomScratch::default();
        let mut t = DomTree::default();
        // Small graphs get the set form; the last rounds cross into the interval form.
        for round in 0..440 {
            let n = if round < 400 {
                1 + next(12) as usize
            } else {
                SET_NODES - 6 + next(14) as usize
            };
            let edges: Vec<(u32, u32)> = (0..next(3 * n as u64 + 1))
                .map(|_| (next(n as u64), next(n as u64)))
                .collect();
            let g = graph(n, &edges);
            // Reuse one tree and scratch across graphs, as the passes do.
            t.rebuild(&g, 0, &mut scratch);
            for a in 0..n as u32 {
                for b in 0..n as u32 {
                    assert_eq!(
                        t.dominates(a, b),
                        dominates_by_definition(&g, 0, a, b),
                        "round {round}: {a} dom {b} in {edges:?}"
                    );
                }
                let strict: Vec<u32> = (0..n as u32)
                    .filter(|&d| d != a && dominates_by_definition(&g, 0, d, a))
                    .collect();
                // The immediate dominator is the strict dominator every other one dominates.
                let expected = strict
                    .iter()
                    .copied()
                    .find(|&d| strict.iter().all(|&e| dominates_by_definition(&g, 0, e, d)))
                    .unwrap_or(UNDEF);
                assert_eq!(t.idom[a as usize], expected, "round {round}: idom of {a}");
            }
            assert_eq!(t.has_preorder(), n > SET_NODES, "round {round}: form");
            let mut placed = vec![false; n];
            for &v in &t.preorder {
                let p = t.idom[v as usize];
                assert!(p == UNDEF || placed[p as usize], "round {round}: pre-order");
                placed[v as usize] = true;
            }
        }
    }

    /// The sweep in node order, and the forward-pushed sets from successor lists alone,
    /// give the tree the traversal gives whenever they settle the graph, and the sweep
    /// refuses only graphs it cannot settle (checked on random graphs whose edges mostly go
    /// forward, so that both answers occur).
    #[test]
    fn sweeps_and_forward_sets_match_the_traversal() {
        let mut rng = crate::mutate::Rng::new(0x5851_f42d_4c95_7f2d);
        let mut next = |bound: u64| rng.below(bound as usize) as u32;
        let (mut scratch, mut swept, mut forward) = (
            DomScratch::default(),
            DomTree::default(),
            DomTree::default(),
        );
        let (mut settled, mut refused) = (0, 0);
        for round in 0..3000 {
            let n = 1 + next(SET_NODES as u64) as usize;
            let edges: Vec<(u32, u32)> = (0..next(3 * n as u64 + 1))
                .map(|_| {
                    let (a, b) = (next(n as u64), next(n as u64));
                    if next(8) == 0 {
                        (a, b)
                    } else {
                        (a.min(b), a.max(b))
                    }
                })
                .collect();
            let g = graph(n, &edges);
            let t = tree(&g, 0);
            let mut masks = vec![0u64; n];
            let mut grouped = edges.clone();
            grouped.sort_by_key(|&(a, _)| a);
            for &(a, b) in &grouped {
                masks[a as usize] |= bit(b);
            }
            let mut forward_graph = Graph::default();
            forward_graph.rebuild_forward(n, &grouped);
            let mut post = Vec::new();
            g.post_order_into(0, &mut Vec::new(), &mut Vec::new(), &mut post);
            if forward.rebuild_sets_forward(&forward_graph, 0, &post, &mut scratch) {
                assert_eq!(forward.idom, t.idom, "round {round}: forward, {edges:?}");
                assert_eq!(forward.sets, t.sets, "round {round}: forward sets");
            }
            // Settled exactly when every edge from a reached node to one not after it goes to
            // a dominator of its source.
            let settles = edges
                .iter()
                .all(|&(a, b)| b > a || t.sets[a as usize] == 0 || t.dominates(b, a));
            match swept.rebuild_sets_in_order(&masks, &mut scratch) {
                Some(reached) => {
                    settled += 1;
                    assert!(settles, "round {round}: settled {edges:?}");
                    assert_eq!(swept.idom, t.idom, "round {round}: {edges:?}");
                    assert_eq!(swept.sets, t.sets, "round {round}: sets");
                    let expected = (0..n as u32)
                        .filter(|&b| t.sets[b as usize] != 0)
                        .fold(0, |r, b| r | bit(b));
                    assert_eq!(reached, expected, "round {round}: reached");
                }
                None => {
                    refused += 1;
                    assert!(!settles, "round {round}: refused {edges:?}");
                }
            }
        }
        assert!(
            settled > 500 && refused > 500,
            "settled {settled}, refused {refused}"
        );
    }
}
