//! The general structurizer: any CFG, with or without merge instructions, reducible or not.
//!
//! # Approach
//!
//! 1. Build a *working graph* over the reachable blocks whose edges carry their payload (the
//!    CFG edge for phi copies, synthetic variable assignments). A synthetic pre-entry node is
//!    added when the entry block has predecessors.
//! 2. Make it reducible: while the loop forest ([`decompose`]) has a loop with several entries,
//!    add a *dispatcher* node with its own variable: every edge into one of the entries is
//!    redirected to the dispatcher and assigns the entry's number, and the dispatcher
//!    branches on that variable to the entries. The dispatcher is then the loop's only entry,
//!    and no block is duplicated (code growth stays linear; duplicating blocks could also
//!    duplicate barriers, which `spirv.md` §3.8 forbids).
//! 3. Emit the labeled form by walking the dominator tree (Ramsey, "Beyond Relooper", 2022):
//!    a node with a single forward in-edge is emitted inline where that edge is taken; a node
//!    with several becomes a `Scope` label placed right after the code of its immediate
//!    dominator, ordered by reverse postorder so that every forward jump leaves scopes
//!    outward; a loop header wraps its code in a `Loop`.
//! 4. Unlike WebAssembly, an IL loop repeats when its body falls off its end, and code placed
//!    inside a loop runs while other invocations may still iterate (barriers after a loop must
//!    not move into it). So every node outside a loop whose immediate dominator is inside it is
//!    re-parented to the header of the outermost such loop and emitted *after* that loop.
//!
//! Exits are then lowered to single-level breaks by [`lower_exits`](crate::lab::lower_exits).
//!
//! Indexing: working-graph node numbers are below `w.len()` by construction (blocks of a
//! checked [`Cfg`], plus nodes this module appends), and every per-node table has `w.len()`
//! entries; loop numbers come from [`decompose`].

use crate::cfg::{BlockIdx, Cfg, Terminator};
use crate::dom::{UNDEF, compute_idoms};
use crate::error::CfgError;
use crate::graph::Graph;
use crate::lab::{Lab, LabArm};
use crate::limits::{Budget, MAX_REGION_DEPTH};
use crate::loops::{NO_LOOP, RawLoop, decompose, rpo_from};
use crate::region::{Cond, Var};

/// An edge of the working graph with what must happen when it is taken.
#[derive(Clone, Debug)]
struct WEdge {
    to: u32,
    /// The CFG edge, when its target has phis.
    edge: Option<(BlockIdx, BlockIdx)>,
    /// Dispatcher variables to assign (variable, value).
    sets: Vec<(u32, u32)>,
}

#[derive(Clone, Debug)]
struct WArm {
    literals: Vec<u64>,
    default: bool,
    edge: WEdge,
}

#[derive(Clone, Debug)]
enum WTerm {
    Return(BlockIdx),
    Kill(BlockIdx),
    Unreachable,
    Jump(WEdge),
    Cond { block: BlockIdx, t: WEdge, f: WEdge },
    Switch { block: BlockIdx, arms: Vec<WArm> },
    Dispatch { var: u32, edges: Vec<WEdge> },
}

impl WTerm {
    fn edges(&self) -> Vec<&WEdge> {
        match self {
            WTerm::Jump(e) => vec![e],
            WTerm::Cond { t, f, .. } => vec![t, f],
            WTerm::Switch { arms, .. } => arms.iter().map(|a| &a.edge).collect(),
            WTerm::Dispatch { edges, .. } => edges.iter().collect(),
            _ => Vec::new(),
        }
    }

    fn edges_mut(&mut self) -> Vec<&mut WEdge> {
        match self {
            WTerm::Jump(e) => vec![e],
            WTerm::Cond { t, f, .. } => vec![t, f],
            WTerm::Switch { arms, .. } => arms.iter_mut().map(|a| &mut a.edge).collect(),
            WTerm::Dispatch { edges, .. } => edges.iter_mut().collect(),
            _ => Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
struct WNode {
    block: Option<BlockIdx>,
    term: WTerm,
}

fn wedge(cfg: &Cfg, from: BlockIdx, to: BlockIdx) -> WEdge {
    WEdge {
        to: to.0,
        edge: cfg.block(to).has_phis.then_some((from, to)),
        sets: Vec::new(),
    }
}

/// Switch arms grouped by target: targets in order of first appearance among the cases, then
/// the default target if no case names it.
fn switch_arms(
    cfg: &Cfg,
    from: BlockIdx,
    default: BlockIdx,
    cases: &[(u64, BlockIdx)],
) -> Vec<WArm> {
    let mut arms: Vec<WArm> = Vec::new();
    for &(lit, t) in cases {
        match arms.iter_mut().find(|a| a.edge.to == t.0) {
            Some(a) => a.literals.push(lit),
            None => arms.push(WArm {
                literals: vec![lit],
                default: false,
                edge: wedge(cfg, from, t),
            }),
        }
    }
    match arms.iter_mut().find(|a| a.edge.to == default.0) {
        Some(a) => a.default = true,
        None => arms.push(WArm {
            literals: Vec::new(),
            default: true,
            edge: wedge(cfg, from, default),
        }),
    }
    arms
}

fn working_graph(cfg: &Cfg, reachable: &[bool]) -> (Vec<WNode>, u32) {
    let mut w: Vec<WNode> = cfg
        .blocks()
        .map(|b| {
            let term = if !reachable[b.index()] {
                WTerm::Unreachable
            } else {
                match &cfg.block(b).terminator {
                    Terminator::Branch(t) => WTerm::Jump(wedge(cfg, b, *t)),
                    Terminator::BranchConditional {
                        true_target,
                        false_target,
                    } => WTerm::Cond {
                        block: b,
                        t: wedge(cfg, b, *true_target),
                        f: wedge(cfg, b, *false_target),
                    },
                    Terminator::Switch { default, cases, .. } => {
                        let arms = switch_arms(cfg, b, *default, cases);
                        if arms.len() == 1 {
                            WTerm::Jump(wedge(cfg, b, *default))
                        } else {
                            WTerm::Switch { block: b, arms }
                        }
                    }
                    Terminator::Return | Terminator::ReturnValue => WTerm::Return(b),
                    Terminator::Kill
                    | Terminator::TerminateInvocation
                    | Terminator::OtherExit { .. } => WTerm::Kill(b),
                    Terminator::Unreachable => WTerm::Unreachable,
                }
            };
            WNode {
                block: Some(b),
                term,
            }
        })
        .collect();
    let entry_has_preds = cfg.preds(cfg.entry()).iter().any(|p| reachable[p.index()]);
    if entry_has_preds {
        // Give the entry a single forward edge so that it can be a loop header like any other.
        let pre = w.len() as u32;
        w.push(WNode {
            block: None,
            term: WTerm::Jump(WEdge {
                to: 0,
                edge: None,
                sets: Vec::new(),
            }),
        });
        (w, pre)
    } else {
        (w, 0)
    }
}

fn graph_of(w: &[WNode]) -> Result<Graph, CfgError> {
    Graph::from_lists(
        w.len(),
        w.iter().map(|n| {
            let mut v: Vec<u32> = Vec::new();
            for e in n.term.edges() {
                if !v.contains(&e.to) {
                    v.push(e.to);
                }
            }
            v
        }),
    )
}

/// Routes every edge into `entries` through a new dispatcher node that uses variable `var`.
fn insert_dispatcher(
    w: &mut Vec<WNode>,
    entries: &[u32],
    var: u32,
    budget: &mut Budget,
) -> Result<(), CfgError> {
    let d = w.len() as u32;
    for node in w.iter_mut() {
        let edges = node.term.edges_mut();
        budget.charge(1 + edges.len())?;
        for e in edges {
            if let Some(i) = entries.iter().position(|&x| x == e.to) {
                e.to = d;
                e.sets.push((var, i as u32 + 1));
            }
        }
    }
    w.push(WNode {
        block: None,
        term: WTerm::Dispatch {
            var,
            edges: entries
                .iter()
                .map(|&to| WEdge {
                    to,
                    edge: None,
                    sets: Vec::new(),
                })
                .collect(),
        },
    });
    Ok(())
}

/// The facts the emitter needs about the reducible working graph.
struct Emitter<'a> {
    w: &'a [WNode],
    /// Per node: the loop it heads, or [`NO_LOOP`].
    header_of: Vec<u32>,
    /// Re-parented dominator tree: children emitted inside, in reverse postorder.
    merge_children: Vec<Vec<u32>>,
    after_children: Vec<Vec<u32>>,
    /// Per node: the parent whose (single, forward) edge into the node emits it inline, or
    /// [`UNDEF`]. Other edges into the node (back edges) are jumps.
    inline_from: Vec<u32>,
    /// Per node: its subtree never jumps out (only function exits leave it).
    terminal: Vec<bool>,
    /// Per node: the number of nodes in its subtree.
    size: Vec<u32>,
    depth: usize,
    budget: &'a mut Budget,
}

/// Runs the general structurizer. Returns the labeled body and the number of dispatcher
/// variables (`Var(0)..`).
pub(crate) fn structurize_general(
    cfg: &Cfg,
    budget: &mut Budget,
) -> Result<(Vec<Lab>, u32), CfgError> {
    let reachable = cfg.reachable();
    let (mut w, entry) = working_graph(cfg, &reachable);
    let mut vars = 0u32;
    let (g, rg, rpo, pos, loops, inner) = loop {
        let g = graph_of(&w)?;
        let rg = g.reverse();
        let (rpo, pos) = rpo_from(&g, entry, budget)?;
        let (loops, inner) = decompose(&g, &rg, entry, &rpo, &pos, budget)?;
        match loops.iter().find(|l| l.entries.len() > 1) {
            Some(l) => {
                let entries = l.entries.clone();
                insert_dispatcher(&mut w, &entries, vars, budget)?;
                vars += 1;
                if vars as usize > 2 * cfg.len() + 2 {
                    return Err(CfgError::Internal("dispatcher insertion does not converge"));
                }
            }
            None => break (g, rg, rpo, pos, loops, inner),
        }
    };
    let n = w.len();
    let (idom, _) = compute_idoms(&g, &rg, &[entry], budget)?;

    // Loop tree intervals for "loop contains node" queries.
    let mut header_of = vec![NO_LOOP; n];
    for (i, l) in loops.iter().enumerate() {
        header_of[l.entries[0] as usize] = i as u32;
    }
    let (lpre, lend) = loop_intervals(&loops);
    let contains = |l: u32, v: u32| -> bool {
        let i = inner[v as usize];
        i != NO_LOOP && lpre[l as usize] <= lpre[i as usize] && lpre[i as usize] < lend[l as usize]
    };

    // Forward in-edges (edge slots that are not back edges).
    let mut fwd_in = vec![0u32; n];
    for &u in &rpo {
        let edges = w[u as usize].term.edges();
        budget.charge(1 + edges.len())?;
        for e in edges {
            let h = header_of[e.to as usize];
            let back = h != NO_LOOP && contains(h, u);
            if !back {
                fwd_in[e.to as usize] += 1;
            }
        }
    }

    // The re-parented dominator tree.
    let mut merge_children = vec![Vec::new(); n];
    let mut after_children = vec![Vec::new(); n];
    let mut inline_from = vec![UNDEF; n];
    let mut parent = vec![UNDEF; n];
    for &y in &rpo {
        if y == entry {
            continue;
        }
        let p = idom[y as usize];
        if p == UNDEF || p as usize >= n {
            return Err(CfgError::Internal("reachable node without dominator"));
        }
        // The outermost loop that contains p but not y.
        let mut l = inner[p as usize];
        let mut out_of = NO_LOOP;
        while l != NO_LOOP && !contains(l, y) {
            budget.charge(1)?;
            out_of = l;
            l = loops[l as usize].parent;
        }
        if out_of != NO_LOOP {
            let h = loops[out_of as usize].entries[0];
            after_children[h as usize].push(y);
            parent[y as usize] = h;
        } else {
            parent[y as usize] = p;
            if fwd_in[y as usize] == 1 {
                inline_from[y as usize] = p;
            } else {
                merge_children[p as usize].push(y);
            }
        }
    }
    let (terminal, size) = terminal_subtrees(&w, &rpo, &pos, &parent, entry, budget)?;
    let mut em = Emitter {
        w: &w,
        header_of,
        merge_children,
        after_children,
        inline_from,
        terminal,
        size,
        depth: 0,
        budget,
    };
    let mut out = Vec::new();
    em.emit(entry, &mut out)?;
    Ok((out, vars))
}

/// Preorder intervals of the loop tree (loops are listed parents first).
fn loop_intervals(loops: &[RawLoop]) -> (Vec<u32>, Vec<u32>) {
    let k = loops.len();
    let mut kids = vec![Vec::new(); k];
    let mut roots = Vec::new();
    for (i, l) in loops.iter().enumerate() {
        if l.parent == NO_LOOP {
            roots.push(i as u32);
        } else if let Some(v) = kids.get_mut(l.parent as usize) {
            v.push(i as u32);
        }
    }
    let mut pre = vec![0u32; k];
    let mut end = vec![0u32; k];
    let mut counter = 0u32;
    let mut stack: Vec<(u32, usize)> = roots.iter().rev().map(|&r| (r, usize::MAX)).collect();
    while let Some(top) = stack.last_mut() {
        let (l, i) = *top;
        if i == usize::MAX {
            pre[l as usize] = counter;
            counter += 1;
            top.1 = 0;
            continue;
        }
        if let Some(&c) = kids[l as usize].get(i) {
            top.1 += 1;
            stack.push((c, usize::MAX));
        } else {
            end[l as usize] = counter;
            stack.pop();
        }
    }
    (pre, end)
}

/// Per node: whether no edge leaves its subtree of the re-parented dominator tree, and the
/// subtree's size.
fn terminal_subtrees(
    w: &[WNode],
    rpo: &[u32],
    pos: &[u32],
    parent: &[u32],
    entry: u32,
    budget: &mut Budget,
) -> Result<(Vec<bool>, Vec<u32>), CfgError> {
    let n = w.len();
    let mut kids = vec![Vec::new(); n];
    for &y in rpo {
        if y != entry && (parent[y as usize] as usize) < n {
            kids[parent[y as usize] as usize].push(y);
        }
    }
    // Preorder numbers and subtree sizes.
    let mut pre = vec![0u32; n];
    let mut order = Vec::with_capacity(rpo.len());
    let mut stack = vec![entry];
    while let Some(u) = stack.pop() {
        pre[u as usize] = order.len() as u32;
        order.push(u);
        stack.extend(kids[u as usize].iter().rev());
    }
    if order.len() != rpo.len() {
        return Err(CfgError::Internal(
            "re-parented tree does not cover the graph",
        ));
    }
    let mut size = vec![1u32; n];
    let mut lo = vec![u32::MAX; n];
    let mut hi = vec![0u32; n];
    for &u in order.iter().rev() {
        let edges = w[u as usize].term.edges();
        budget.charge(1 + edges.len())?;
        for e in edges {
            if pos[e.to as usize] == NO_LOOP {
                continue;
            }
            let p = pre[e.to as usize];
            lo[u as usize] = lo[u as usize].min(p);
            hi[u as usize] = hi[u as usize].max(p);
        }
        for &c in &kids[u as usize] {
            size[u as usize] += size[c as usize];
            lo[u as usize] = lo[u as usize].min(lo[c as usize]);
            hi[u as usize] = hi[u as usize].max(hi[c as usize]);
        }
    }
    let terminal = (0..n)
        .map(|u| lo[u] == u32::MAX || (lo[u] >= pre[u] && hi[u] < pre[u] + size[u]))
        .collect();
    Ok((terminal, size))
}

impl Emitter<'_> {
    /// Appends the code of `x` and of its re-parented dominator subtree to `out`.
    fn emit(&mut self, mut x: u32, out: &mut Vec<Lab>) -> Result<(), CfgError> {
        if self.depth >= MAX_REGION_DEPTH {
            return Err(CfgError::DepthLimit {
                limit: MAX_REGION_DEPTH,
            });
        }
        self.depth += 1;
        let r = self.emit_chain(&mut x, out);
        self.depth -= 1;
        r
    }

    fn emit_chain(&mut self, x: &mut u32, out: &mut Vec<Lab>) -> Result<(), CfgError> {
        loop {
            self.budget.charge(1)?;
            let u = *x as usize;
            let header = self.header_of[u] != NO_LOOP;
            let merges = self.merge_children[u].clone();
            let afters = self.after_children[u].clone();
            if !header && merges.is_empty() && afters.is_empty() {
                match self.within(*x, out)? {
                    Some(t) => {
                        *x = t;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            let mut core = Vec::new();
            if let Some(t) = self.within(*x, &mut core)? {
                self.emit(t, &mut core)?;
            }
            // Merge children inside the loop (if any); the last one is in tail position when
            // nothing else follows.
            let tail_merge = !header && afters.is_empty();
            for (i, &m) in merges.iter().enumerate() {
                if tail_merge && i + 1 == merges.len() {
                    out.push(Lab::Scope(m, core));
                    *x = m;
                    core = Vec::new();
                    break;
                }
                core = vec![Lab::Scope(m, core)];
                self.emit(m, &mut core)?;
            }
            if tail_merge {
                continue;
            }
            if header {
                core = vec![Lab::Loop(*x, core)];
            }
            match afters.split_last() {
                Some((&last, init)) => {
                    for &a in init {
                        core = vec![Lab::Scope(a, core)];
                        self.emit(a, &mut core)?;
                    }
                    out.push(Lab::Scope(last, core));
                    *x = last;
                }
                None => {
                    out.extend(core);
                    return Ok(());
                }
            }
        }
    }

    fn payload(e: &WEdge, out: &mut Vec<Lab>) {
        for &(var, value) in &e.sets {
            out.push(Lab::Set(Var(var), value));
        }
        if let Some((from, to)) = e.edge {
            out.push(Lab::Edge(from, to));
        }
    }

    /// The edge's payload and then the target's code (inline) or a jump to it.
    fn jump_code(&mut self, from: u32, e: &WEdge) -> Result<Vec<Lab>, CfgError> {
        let mut v = Vec::new();
        Self::payload(e, &mut v);
        if self.inline_from[e.to as usize] == from {
            self.emit(e.to, &mut v)?;
        } else {
            v.push(Lab::Br(e.to));
        }
        Ok(v)
    }

    /// Appends the body and terminator code of `x`; returns the inline successor whose code
    /// must follow in the same sequence, if any.
    fn within(&mut self, x: u32, out: &mut Vec<Lab>) -> Result<Option<u32>, CfgError> {
        let node = &self.w[x as usize];
        if let Some(b) = node.block {
            out.push(Lab::Block(b));
        }
        match &node.term {
            WTerm::Return(b) => out.push(Lab::Return(*b)),
            WTerm::Kill(b) => out.push(Lab::Kill(*b)),
            WTerm::Unreachable => out.push(Lab::Unreachable),
            WTerm::Jump(e) => {
                Self::payload(e, out);
                if self.inline_from[e.to as usize] == x {
                    return Ok(Some(e.to));
                }
                out.push(Lab::Br(e.to));
            }
            WTerm::Cond { block, t, f } => {
                let (block, t, f) = (*block, t.clone(), f.clone());
                let ti = self.inline_from[t.to as usize] == x;
                let fi = self.inline_from[f.to as usize] == x;
                let cond = |value| Cond::Branch { block, value };
                // Pull a jump arm, or a terminal arm when both are inline, out of the `if` so
                // that the other arm's code continues the same sequence: that keeps chains
                // like `if (c) break; ...` flat. Any arm may be pulled out (no arm of the
                // labeled form falls through); this choice avoids turning free jumps into
                // flagged ones.
                // When both are terminal, the smaller one goes into the `If`.
                let (tt, ft) = (self.terminal[t.to as usize], self.terminal[f.to as usize]);
                let smaller_t = self.size[t.to as usize] <= self.size[f.to as usize];
                let pull_t = !ti || (fi && tt && (!ft || smaller_t));
                let pull_f = !fi || (ti && ft && !pull_t);
                if (!ti && !fi) || (!pull_t && !pull_f) {
                    let then_ = self.jump_code(x, &t)?;
                    let else_ = self.jump_code(x, &f)?;
                    out.push(Lab::If(cond(true), then_, else_));
                } else if pull_t {
                    let then_ = self.jump_code(x, &t)?;
                    out.push(Lab::If(cond(true), then_, Vec::new()));
                    Self::payload(&f, out);
                    return Ok(Some(f.to));
                } else {
                    let then_ = self.jump_code(x, &f)?;
                    out.push(Lab::If(cond(false), then_, Vec::new()));
                    Self::payload(&t, out);
                    return Ok(Some(t.to));
                }
            }
            WTerm::Switch { block, arms } => {
                let (block, arms) = (*block, arms.clone());
                let mut lab_arms = Vec::with_capacity(arms.len());
                for a in &arms {
                    lab_arms.push(LabArm {
                        literals: a.literals.clone(),
                        default: a.default,
                        body: self.jump_code(x, &a.edge)?,
                    });
                }
                out.push(Lab::Switch(block, lab_arms));
            }
            WTerm::Dispatch { var, edges } => {
                let (var, edges) = (*var, edges.clone());
                // if (v == 1) e1 else if (v == 2) e2 ... else ek
                let Some((last, init)) = edges.split_last() else {
                    return Err(CfgError::Internal("dispatcher without entries"));
                };
                let mut acc = self.jump_code(x, last)?;
                for (i, e) in init.iter().enumerate().rev() {
                    let then_ = self.jump_code(x, e)?;
                    acc = vec![Lab::If(
                        Cond::VarEq {
                            var: Var(var),
                            value: i as u32 + 1,
                        },
                        then_,
                        acc,
                    )];
                }
                out.extend(acc);
            }
        }
        Ok(None)
    }
}
