//! Small graph utilities shared by the analyses: a compressed adjacency list, iterative
//! depth-first orders and Tarjan's strongly connected components.
//!
//! Nodes are `u32` indices below [`Graph::len`]; all adjacency entries are checked against
//! that bound when a graph is built, so indexing per-node tables with them cannot fail.
//! Everything is iterative: no recursion depth depends on the input.

use crate::error::CfgError;
use crate::limits::Budget;

/// A directed graph in compressed sparse row form.
#[derive(Clone, Debug, Default)]
pub(crate) struct Graph {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Graph {
    /// Builds a graph with `n` nodes from per-node successor lists. Entries `>= n` are an
    /// internal error.
    pub(crate) fn from_lists<I, J>(n: usize, lists: I) -> Result<Graph, CfgError>
    where
        I: IntoIterator<Item = J>,
        J: IntoIterator<Item = u32>,
    {
        let mut start = Vec::with_capacity(n + 1);
        let mut adj = Vec::new();
        for list in lists {
            start.push(adj.len() as u32);
            for v in list {
                if v as usize >= n {
                    return Err(CfgError::Internal("graph edge out of range"));
                }
                adj.push(v);
            }
        }
        if start.len() != n {
            return Err(CfgError::Internal("graph list count mismatch"));
        }
        start.push(adj.len() as u32);
        Ok(Graph { start, adj })
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Successors of `u`.
    pub(crate) fn succ(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.adj[self.start[u] as usize..self.start[u + 1] as usize]
    }

    /// The reversed graph (predecessor lists), sources of each node in increasing order.
    pub(crate) fn reverse(&self) -> Graph {
        let n = self.len();
        let mut count = vec![0u32; n + 1];
        for &v in &self.adj {
            count[v as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let start = count.clone();
        let mut fill = count;
        let mut adj = vec![0u32; self.adj.len()];
        for u in 0..n {
            for &v in self.succ(u as u32) {
                adj[fill[v as usize] as usize] = u as u32;
                fill[v as usize] += 1;
            }
        }
        Graph { start, adj }
    }
}

/// Depth-first search from `roots` in order (each root only if not yet visited), visiting
/// successors in list order. Returns the nodes in postorder; `visited` is updated.
pub(crate) fn postorder_from(
    g: &Graph,
    roots: impl IntoIterator<Item = u32>,
    visited: &mut [bool],
    budget: &mut Budget,
) -> Result<Vec<u32>, CfgError> {
    let mut order = Vec::new();
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for r in roots {
        if visited[r as usize] {
            continue;
        }
        visited[r as usize] = true;
        stack.push((r, 0));
        while let Some(top) = stack.last_mut() {
            let (u, i) = *top;
            let s = g.succ(u);
            if i < s.len() {
                top.1 += 1;
                let v = s[i];
                if !visited[v as usize] {
                    visited[v as usize] = true;
                    stack.push((v, 0));
                }
            } else {
                budget.charge(1 + s.len())?;
                order.push(u);
                stack.pop();
            }
        }
    }
    Ok(order)
}

/// Strongly connected components of the subgraph induced by the nodes with
/// `member[v] == stamp`, ignoring edges into nodes with `cut[v] == stamp`.
/// Components come out in Tarjan's order (reverse topological); each lists its nodes in the
/// order they were finished. `nodes` gives the start order of the search.
pub(crate) fn sccs(
    g: &Graph,
    nodes: &[u32],
    member: &[u32],
    cut: &[u32],
    stamp: u32,
    scratch: &mut SccScratch,
    budget: &mut Budget,
) -> Result<Vec<Vec<u32>>, CfgError> {
    let inside = |v: u32| member[v as usize] == stamp && cut[v as usize] != stamp;
    let mut out = Vec::new();
    scratch.prepare(g.len());
    scratch.epoch = scratch.epoch.wrapping_add(1);
    if scratch.epoch == 0 {
        scratch.epoch_of.iter_mut().for_each(|e| *e = 0);
        scratch.epoch = 1;
    }
    let epoch = scratch.epoch;
    let mut counter = 0u32;
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, usize)> = Vec::new();
    for &r in nodes {
        if scratch.epoch_of[r as usize] == epoch {
            continue;
        }
        // Enter r.
        scratch.epoch_of[r as usize] = epoch;
        scratch.index[r as usize] = counter;
        scratch.low[r as usize] = counter;
        counter += 1;
        scratch.on_stack[r as usize] = true;
        stack.push(r);
        call.push((r, 0));
        while let Some(top) = call.last_mut() {
            let (u, i) = *top;
            let s = g.succ(u);
            if i < s.len() {
                top.1 += 1;
                let v = s[i];
                if !inside(v) {
                    continue;
                }
                if scratch.epoch_of[v as usize] != epoch {
                    scratch.epoch_of[v as usize] = epoch;
                    scratch.index[v as usize] = counter;
                    scratch.low[v as usize] = counter;
                    counter += 1;
                    scratch.on_stack[v as usize] = true;
                    stack.push(v);
                    call.push((v, 0));
                } else if scratch.on_stack[v as usize] {
                    let lv = scratch.index[v as usize];
                    if lv < scratch.low[u as usize] {
                        scratch.low[u as usize] = lv;
                    }
                }
            } else {
                budget.charge(1 + s.len())?;
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    let lu = scratch.low[u as usize];
                    if lu < scratch.low[p as usize] {
                        scratch.low[p as usize] = lu;
                    }
                }
                if scratch.low[u as usize] == scratch.index[u as usize] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        scratch.on_stack[w as usize] = false;
                        comp.push(w);
                        if w == u {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    Ok(out)
}

/// Per-node scratch tables for [`sccs`], reused across calls to avoid reallocating.
#[derive(Default)]
pub(crate) struct SccScratch {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    epoch_of: Vec<u32>,
    epoch: u32,
}

impl SccScratch {
    fn prepare(&mut self, n: usize) {
        if self.index.len() < n {
            self.index.resize(n, 0);
            self.low.resize(n, 0);
            self.on_stack.resize(n, false);
            self.epoch_of.resize(n, 0);
        }
    }
}
