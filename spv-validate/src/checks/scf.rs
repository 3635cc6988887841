//! Structured control flow (V-SCF-1…21, SPIR-V §2.11, digest §3), enforced when `Shader` is
//! declared.
//!
//! Per function: structural successors (branch edges plus merge and continue edges),
//! structural dominators from the entry block, structural post-dominators over the
//! augmented graph (a pseudo exit reached from every sink, digest §3.1), back edges found by
//! a depth-first search over structural edges. A function of at most 64 blocks whose
//! structural edges to earlier blocks all go to dominators of their source is settled by one
//! sweep in block order instead (see [`Structure::sweep`]): its graph is reducible, so every
//! search finds the same back edges, and the search runs only if the order matters. Then,
//! as spirv-val organises it (digest §3.5): back edges target loop headers, one per header;
//! every construct whose header is structurally reachable dominates its exit, keeps its
//! branches inside or on structured exits, is entered only through its header and contains
//! the merges of the headers it contains; continue targets are entered from inside their
//! loop; switch case constructs obey the fall-through rules; conditional branches without a
//! merge instruction must be break/continue idioms.
//!
//! spirv-val collects the blocks of every construct by a walk from its header, which costs
//! the sum of the construct sizes: quadratic in the nesting depth. Here the block rules of
//! selection and loop constructs are first decided edge by edge (see [`Nesting`]): a
//! selection's blocks are the blocks its header dominates minus those its merge block
//! dominates, a loop's also minus those its continue target dominates, so each block's
//! constructs follow from its dominator's, and an edge only concerns the constructs it
//! leaves or enters. A construct this cannot clear (a rule broken, or blocks the
//! description may miss) is walked as spirv-val walks it, which finds the same first error.
//! In a function of at most 64 blocks (whose dominators `dom` keeps as bit sets, without the
//! pre-order the lists are built on) every construct is walked: the sum of the construct
//! sizes is bounded there, and the walks cost less than building the lists. There a walk
//! is done with bit sets: the blocks a construct admits are tested on their dominator bits,
//! and its blocks are those reached from the header through admitted blocks, a frontier at
//! a time, already in block order.

use spv_reader::Id;
use spv_reader::spirv::Op;

use crate::cfg::{FuncCfg, block_of_label};
use crate::ctx::{Ctx, Inst, NONE};
use crate::dom::{DomScratch, DomTree, Graph, UNDEF, bit};
use crate::stamped::Stamped;

/// The kinds of construct spirv-val tracks (a switch is a selection whose header ends in
/// OpSwitch; case constructs are checked with their switch).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Selection,
    Loop,
    Continue,
}

struct Construct {
    kind: Kind,
    /// Header block (the continue target for a continue construct).
    entry: u32,
    /// Merge block (the back-edge block for a continue construct, when known).
    exit: u32,
    /// The loop header (for loop and continue constructs).
    loop_header: u32,
}

/// A set of block indices below `n`, plus one slot standing for [`NONE`], over a stamped
/// table: O(1) insertion, test and [`Marks::clear`].
#[derive(Default)]
struct Marks(Stamped<()>);

impl Marks {
    /// Makes this an empty set over blocks below `n`, reusing the storage.
    fn reset(&mut self, n: usize) {
        self.0.reset(n + 1);
    }

    /// The slot of `b`: blocks are below `n`; the only other value used is [`NONE`].
    fn slot(&self, b: u32) -> usize {
        (b as usize).min(self.0.len().saturating_sub(1))
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    /// Adds `b`; whether it was absent.
    fn insert(&mut self, b: u32) -> bool {
        let slot = self.slot(b);
        self.0.insert(slot, ())
    }

    fn contains(&self, b: u32) -> bool {
        self.0.get(self.slot(b)).is_some()
    }
}

/// Structural facts of one function.
#[derive(Default)]
struct Structure {
    /// Structural edges (branch, merge and continue edges).
    graph: Graph,
    /// Structural dominators from the entry block.
    dom: DomTree,
    /// Structural post-dominators (root: the pseudo exit, node `len`).
    post: DomTree,
    /// Whether each block is structurally reachable (when `searched`).
    reachable: Vec<bool>,
    /// The structurally reachable blocks as bits (when not `searched`).
    reached: u64,
    /// Whether the structural search ran: `reachable` and `post_order` are filled. A small
    /// function settled by [`Structure::sweep`] needs no search unless
    /// [`selections_hold`] fails ([`Structure::search`]).
    searched: bool,
    /// Blocks in post-order of the structural search from the entry (when `searched`).
    post_order: Vec<u32>,
    /// (back-edge block, header) pairs, in the order the search found them.
    back_edges: Vec<(u32, u32)>,
    /// The same, sorted.
    back_edges_sorted: Vec<(u32, u32)>,
    /// For a function of at most 64 blocks, each block's structural successors as bits
    /// (empty for larger ones).
    succ_masks: Vec<u64>,
}

/// Scratch space for [`Structure::rebuild`], reused from function to function.
#[derive(Default)]
struct StructureScratch {
    edges: Vec<(u32, u32)>,
    added_by: Vec<u32>,
    on_stack: Vec<bool>,
    seen: Vec<bool>,
    stack: Vec<(u32, usize)>,
    back: Vec<(u32, u32)>,
    reversed: Graph,
    roots: Vec<u32>,
    trail: Vec<u32>,
    dom: DomScratch,
}

impl Structure {
    /// Makes this the structure of `cfg`, reusing the storage.
    fn rebuild(&mut self, cfg: &FuncCfg, scratch: &mut StructureScratch) {
        let n = cfg.merges.len();
        // Each block's structural successors as bits, in a function of at most 64 blocks
        // (empty in a larger one): the sweep and the set-form walk read them.
        let masks = &mut self.succ_masks;
        masks.clear();
        if n <= 64 {
            masks.extend(cfg.merges.iter().enumerate().map(|(b, m)| {
                let own = m.map_or(0, |m| bit(m.merge) | m.cont.map_or(0, bit));
                cfg.succs(b as u32)
                    .iter()
                    .fold(own, |mask, &t| mask | bit(t))
            }));
            if self.sweep(cfg, scratch) {
                return;
            }
        }
        self.rebuild_searched(cfg, scratch);
    }

    /// [`Structure::rebuild`] by the structural search (every function it cannot sweep).
    fn rebuild_searched(&mut self, cfg: &FuncCfg, scratch: &mut StructureScratch) {
        let n = cfg.merges.len();
        self.searched = true;
        self.edges_into(cfg, scratch);
        let edges = &scratch.edges;
        // A small function's dominators come from the successor lists alone (pushed forward,
        // see `DomTree::rebuild_sets_forward`); the predecessor lists are built only when
        // something below needs them. The edges come grouped by block, as that build needs.
        let mut with_preds = n > 64;
        if with_preds {
            self.graph.rebuild(n, edges);
        } else {
            self.graph.rebuild_forward(n, edges);
        }
        dfs_with_back_edges(&self.graph, 0, scratch, &mut self.post_order);
        self.back_edges.clear();
        self.back_edges.extend(
            scratch
                .back
                .iter()
                .copied()
                .filter(|&(from, to)| cfg.succs(from).contains(&to)),
        );
        self.back_edges_sorted.clear();
        self.back_edges_sorted.extend_from_slice(&self.back_edges);
        self.back_edges_sorted.sort_unstable();
        self.reachable.clear();
        self.reachable.resize(n, false);
        for &b in &self.post_order {
            if let Some(r) = self.reachable.get_mut(b as usize) {
                *r = true;
            }
        }
        // Only constructs use the dominator trees, and only continue constructs the
        // post-dominator tree.
        let merges = cfg.merges.iter().flatten();
        if merges.clone().next().is_some() {
            if merge_edges_keep_dominators(cfg) {
                self.dom.copy_from(&cfg.dom);
            } else if with_preds
                || !self.dom.rebuild_sets_forward(
                    &self.graph,
                    0,
                    &self.post_order,
                    &mut scratch.dom,
                )
            {
                if !with_preds {
                    self.graph.rebuild(n, &scratch.edges);
                    with_preds = true;
                }
                // The search above visits successors in list order from block 0, as the
                // dominator computation's own traversal would.
                self.dom.rebuild_with_post_order(
                    &self.graph,
                    0,
                    &self.post_order,
                    &mut scratch.dom,
                );
            }
        } else {
            self.dom.clear();
        }
        if self.needs_post_dominators(cfg) {
            if !with_preds {
                self.graph.rebuild(n, &scratch.edges);
            }
            reverse_augmented(&self.graph, scratch);
            self.post
                .rebuild(&scratch.reversed, n as u32, &mut scratch.dom);
        } else {
            self.post.clear();
        }
    }

    /// The structure of a small function (the successor bits `succ_masks` set) without a
    /// search, when a sweep in block order settles it: whether it did. See
    /// [`DomTree::rebuild_sets_in_order`]: the structural graph is then reducible, so every
    /// depth-first search from the entry finds the same back edges (the edges to a block
    /// that dominates their source), the same reachable blocks and dominators, and differs
    /// from spirv-val's only in the order it finds back edges and in the post-order. The
    /// order of back edges matters only when one targets a block that is not a loop header
    /// (the first found is reported) or a loop header has other than one (the first is the
    /// continue construct's exit), so those leave it to the search; the post-order is made
    /// only when [`check_selections`] needs it ([`Structure::search`]).
    fn sweep(&mut self, cfg: &FuncCfg, scratch: &mut StructureScratch) -> bool {
        let Some(reached) = self
            .dom
            .rebuild_sets_in_order(&self.succ_masks, &mut scratch.dom)
        else {
            return false;
        };
        let mut headers = 0u64;
        let mut any_merge = false;
        for (b, m) in cfg.merges.iter().enumerate() {
            if let Some(m) = m {
                any_merge = true;
                if m.cont.is_some() {
                    headers |= bit(b as u32);
                }
            }
        }
        self.back_edges.clear();
        // The loop headers targeted by one back edge, and by more.
        let (mut once, mut more) = (0u64, 0u64);
        let mut rest = reached;
        while rest != 0 {
            let u = rest.trailing_zeros();
            rest &= rest - 1;
            // A branch to a block not after its source is a back edge (the sweep checked it).
            for &v in cfg.succs(u).iter().filter(|&&v| v <= u) {
                self.back_edges.push((u, v));
                more |= once & bit(v);
                once |= bit(v);
            }
        }
        if once & !headers != 0 || more != 0 || headers & reached & !once != 0 {
            return false;
        }
        self.back_edges_sorted.clear();
        self.back_edges_sorted.extend_from_slice(&self.back_edges);
        self.back_edges_sorted.sort_unstable();
        self.reached = reached;
        self.searched = false;
        self.post_order.clear();
        // Without merge instructions there is no construct (and, here, no back edge).
        if !any_merge {
            self.dom.clear();
        }
        if self.needs_post_dominators(cfg) {
            self.edges_into(cfg, scratch);
            self.graph.rebuild(cfg.merges.len(), &scratch.edges);
            reverse_augmented(&self.graph, scratch);
            self.post
                .rebuild(&scratch.reversed, cfg.merges.len() as u32, &mut scratch.dom);
        } else {
            self.post.clear();
        }
        true
    }

    /// The structural search after [`Structure::sweep`]: the post-order, from the same
    /// successor lists (in the same order) as [`Structure::rebuild`]'s search.
    fn search(&mut self, cfg: &FuncCfg, scratch: &mut StructureScratch) {
        self.edges_into(cfg, scratch);
        self.graph.rebuild_forward(cfg.merges.len(), &scratch.edges);
        dfs_with_back_edges(&self.graph, 0, scratch, &mut self.post_order);
        self.searched = true;
        self.reachable.clear();
        self.reachable.resize(cfg.merges.len(), false);
        for &b in &self.post_order {
            if let Some(r) = self.reachable.get_mut(b as usize) {
                *r = true;
            }
        }
    }

    /// The structural edges of `cfg` into `scratch.edges`, grouped by block (each edge once).
    fn edges_into(&self, cfg: &FuncCfg, scratch: &mut StructureScratch) {
        let n = cfg.merges.len();
        let edges = &mut scratch.edges;
        edges.clear();
        // The block whose edges last named each block: each edge is added once.
        let added_by = &mut scratch.added_by;
        added_by.clear();
        added_by.resize(n, NONE);
        for b in 0..n as u32 {
            let mut add = |t: u32| {
                if t != NONE
                    && let Some(by) = added_by.get_mut(t as usize)
                    && *by != b
                {
                    *by = b;
                    edges.push((b, t));
                }
            };
            // spirv-val registers the merge (and continue) edges when it reads the merge
            // instruction, before the terminator's targets.
            if let Some(Some(mg)) = cfg.merges.get(b as usize) {
                add(mg.merge);
                if let Some(c) = mg.cont {
                    add(c);
                }
            }
            for &s in cfg.succs(b) {
                add(s);
            }
        }
    }

    /// Whether a continue construct may ask [`Structure::post_dominates`] about two
    /// different blocks, so that the post-dominator tree must be built (over the reversed
    /// graph with its pseudo exit, the costliest part of the structure for small functions).
    ///
    /// A continue construct asks whether its back-edge block post-dominates its continue
    /// target (V-SCF-10) and, walking it, each block its continue target dominates. When the
    /// continue target is itself the back-edge block (the usual shape) and dominates no
    /// other block, every question is about one block and itself, which
    /// [`Structure::post_dominates`] answers without the tree. Every other case (another
    /// back-edge block, a continue target dominating blocks, one outside the tree) builds it.
    fn needs_post_dominators(&self, cfg: &FuncCfg) -> bool {
        cfg.merges.iter().enumerate().any(|(h, m)| {
            let Some(m) = m else { return false };
            let Some(c) = m.cont.filter(|&c| c != NONE && m.merge != NONE) else {
                return false;
            };
            // The continue construct's exit is the first back edge to the header, as
            // `check_function` takes it.
            let latch = self
                .back_edges
                .iter()
                .find(|&&(_, to)| to as usize == h)
                .map_or(NONE, |&(from, _)| from);
            latch != NONE && !(latch == c && self.dom.dominates_only_itself(c))
        })
    }

    /// Whether `a` post-dominates `b` in the augmented graph (reflexive). Every block is in
    /// the post-dominator tree (each reaches the pseudo exit, see [`reverse_augmented`]), so
    /// a block post-dominates itself whether or not the tree was built.
    fn post_dominates(&self, a: u32, b: u32) -> bool {
        a == b || self.post.dominates(a, b)
    }

    fn reachable(&self, b: u32) -> bool {
        if self.searched {
            self.reachable.get(b as usize).copied().unwrap_or(false)
        } else {
            self.reached & bit(b) != 0
        }
    }

    fn succs(&self, b: u32) -> &[u32] {
        self.graph.succs(b)
    }

    fn is_back_edge(&self, from: u32, to: u32) -> bool {
        self.back_edges_sorted.binary_search(&(from, to)).is_ok()
    }
}

/// Whether the structural graph (the branch edges plus each header's merge and continue
/// edges) has the same dominators from the entry block as the branch edges alone, so that
/// the CFG's dominator tree serves for both.
///
/// Adding an edge `u → v` to a graph changes neither reachability nor any dominator when `u`
/// is unreachable, or when `v` is reachable and is the root or its immediate dominator
/// dominates `u`: every new path to `v` (and on to any node after it) then still passes
/// each of `v`'s strict dominators before `u`, and the tree is unchanged, so the next edge
/// is judged against the same tree. (An unreachable `u` stays unreachable as long as every
/// added edge from a reachable block ends in a reachable block.) The tree's pre-order may
/// differ from the one the structural search would give, but the structured rules ask only
/// dominance and immediate dominators, which are the same.
fn merge_edges_keep_dominators(cfg: &FuncCfg) -> bool {
    let dom = &cfg.dom;
    cfg.merges.iter().enumerate().all(|(u, m)| {
        let Some(m) = m else { return true };
        let u = u as u32;
        if !cfg.is_reachable(u) {
            return true;
        }
        let keeps = |v: u32| {
            v == NONE
                || cfg.succs(u).contains(&v)
                || (cfg.is_reachable(v)
                    && (v == 0
                        || dom
                            .idom
                            .get(v as usize)
                            .is_some_and(|&d| d != UNDEF && dom.dominates(d, u))))
        };
        keeps(m.merge) && m.cont.is_none_or(keeps)
    })
}

/// Post-order of the nodes reachable from `root` (into `post`), and the edges to nodes on
/// the search stack (back edges, into `scratch.back`), visiting successors in list order
/// like spirv-val's traversal.
fn dfs_with_back_edges(g: &Graph, root: u32, scratch: &mut StructureScratch, post: &mut Vec<u32>) {
    let n = g.len();
    post.clear();
    let StructureScratch {
        back,
        seen,
        on_stack,
        stack,
        ..
    } = scratch;
    back.clear();
    seen.clear();
    seen.resize(n, false);
    on_stack.clear();
    on_stack.resize(n, false);
    stack.clear();
    if (root as usize) < n {
        stack.push((root, 0));
        if let (Some(s), Some(o)) = (seen.get_mut(root as usize), on_stack.get_mut(root as usize)) {
            *s = true;
            *o = true;
        }
    }
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&s) = g.succs(node).get(*next) {
            *next += 1;
            if on_stack.get(s as usize).copied().unwrap_or(false) {
                back.push((node, s));
            }
            if let Some(flag) = seen.get_mut(s as usize)
                && !*flag
            {
                *flag = true;
                if let Some(o) = on_stack.get_mut(s as usize) {
                    *o = true;
                }
                stack.push((s, 0));
            }
        } else {
            post.push(node);
            if let Some(o) = on_stack.get_mut(node as usize) {
                *o = false;
            }
            stack.pop();
        }
    }
}

/// Builds into `scratch.reversed` the reversed graph with a pseudo exit (node `n`) whose
/// successors are the traversal roots of the reversed graph: blocks without successors,
/// then blocks still not reached (on cycles without exit), both in reverse block order as
/// spirv-val takes them.
fn reverse_augmented(g: &Graph, scratch: &mut StructureScratch) {
    let n = g.len();
    let exit = n as u32;
    let StructureScratch {
        edges,
        seen: visited,
        roots,
        trail,
        reversed,
        ..
    } = scratch;
    // Marks everything the reversed graph reaches from `start` (nodes reachable from a
    // marked node are marked already).
    let mark = |start: u32, visited: &mut Vec<bool>, trail: &mut Vec<u32>| {
        if let Some(v) = visited.get_mut(start as usize) {
            *v = true;
        }
        trail.push(start);
        while let Some(b) = trail.pop() {
            for &p in g.preds(b) {
                if let Some(v) = visited.get_mut(p as usize)
                    && !*v
                {
                    *v = true;
                    trail.push(p);
                }
            }
        }
    };
    visited.clear();
    visited.resize(n, false);
    trail.clear();
    roots.clear();
    for b in (0..n as u32).rev() {
        if g.succs(b).is_empty() && !visited.get(b as usize).copied().unwrap_or(true) {
            roots.push(b);
            mark(b, visited, trail);
        }
    }
    for b in (0..n as u32).rev() {
        if !visited.get(b as usize).copied().unwrap_or(true) {
            roots.push(b);
            mark(b, visited, trail);
        }
    }
    edges.clear();
    for b in 0..n as u32 {
        edges.extend(g.preds(b).iter().map(|&p| (b, p)));
    }
    edges.extend(roots.iter().map(|&r| (exit, r)));
    reversed.rebuild(n + 1, edges);
}

/// Everything [`check_function`] needs besides the function, reused from function to
/// function.
#[derive(Default)]
pub(crate) struct Scratch {
    structure: Structure,
    structure_scratch: StructureScratch,
    first_latch: Vec<u32>,
    latches: Vec<usize>,
    constructs: Vec<Construct>,
    nesting: Nesting,
    clearing: ClearScratch,
    cleared: Vec<bool>,
    walk: Walk,
    /// The merge blocks seen by [`check_merge_uniqueness`].
    merges: Marks,
}

/// Runs the pass; `scratch` is its working memory.
pub(crate) fn check(ctx: &mut Ctx<'_>, cfgs: &[FuncCfg], scratch: &mut Scratch) {
    for cfg in cfgs {
        check_merge_uniqueness(ctx, cfg, &mut scratch.merges);
    }
    if !ctx.shader {
        return;
    }
    for cfg in cfgs {
        check_function(ctx, cfg, scratch);
    }
}

/// V-SCF-4: a block is the merge block of at most one header (all modules).
fn check_merge_uniqueness(ctx: &mut Ctx<'_>, cfg: &FuncCfg, merges: &mut Marks) {
    merges.reset(cfg.merges.len());
    for mg in cfg.merges.iter().flatten() {
        if mg.merge != NONE && !merges.insert(mg.merge) {
            let label = label_of(ctx, cfg, mg.merge);
            ctx.err(
                "V-SCF-4",
                mg.inst,
                &[label],
                format!("block {label} is already a merge block for another header"),
            );
        }
    }
}

fn label_of(ctx: &Ctx<'_>, cfg: &FuncCfg, b: u32) -> Id {
    ctx.m
        .functions()
        .get(cfg.func as usize)
        .and_then(|f| f.blocks.get(b as usize))
        .map_or(Id(0), |b| b.label)
}

fn terminator<'m>(ctx: &Ctx<'m>, cfg: &FuncCfg, b: u32) -> Option<&'m Inst<'m>> {
    let f = ctx.m.functions().get(cfg.func as usize)?;
    ctx.ix.inst(f.blocks.get(b as usize)?.terminator)
}

/// The continue target of the loop headed by `b` ([`NONE`] when there is none).
fn continue_of(cfg: &FuncCfg, b: u32) -> u32 {
    cfg.merges
        .get(b as usize)
        .copied()
        .flatten()
        .and_then(|m| m.cont)
        .unwrap_or(NONE)
}

fn check_function(ctx: &mut Ctx<'_>, cfg: &FuncCfg, scratch: &mut Scratch) {
    // One block without a merge instruction that ends without branching has no structural
    // edge: no back edge, loop header, construct or selection, so no rule below applies
    // (and most functions of straight-line shaders are like this).
    if let [None] = cfg.merges.as_slice()
        && cfg.succs(0).is_empty()
        && terminator(ctx, cfg, 0).is_some_and(|t| {
            !matches!(
                ctx.op_of(t),
                Some(Op::Branch | Op::BranchConditional | Op::Switch)
            )
        })
    {
        return;
    }
    let Scratch {
        structure,
        structure_scratch,
        first_latch,
        latches,
        constructs,
        nesting,
        clearing,
        cleared,
        walk,
        merges: _,
    } = scratch;
    structure.rebuild(cfg, structure_scratch);
    let s = &*structure;
    let n = cfg.merges.len();
    let is_loop_header =
        |b: u32| matches!(cfg.merges.get(b as usize), Some(Some(m)) if m.cont.is_some());
    // V-SCF-1, V-SCF-6: back edges target loop headers; exactly one per loop header.
    first_latch.clear();
    first_latch.resize(n, NONE);
    latches.clear();
    latches.resize(n, 0);
    for &(from, to) in &s.back_edges {
        if !is_loop_header(to) {
            let (a, b) = (label_of(ctx, cfg, from), label_of(ctx, cfg, to));
            let at = terminator(ctx, cfg, from).map(|t| t.index());
            ctx.report(
                "V-SCF-1",
                at,
                vec![a, b],
                format!(
                    "back-edges ({a} -> {b}) can only be formed between a block and a loop header"
                ),
            );
            return;
        }
        // The search examines each structural edge once, so these edges are distinct.
        if let (Some(first), Some(count)) = (
            first_latch.get_mut(to as usize),
            latches.get_mut(to as usize),
        ) {
            if *first == NONE {
                *first = from;
            }
            *count += 1;
        }
    }
    for b in 0..n as u32 {
        if s.reachable(b) && is_loop_header(b) {
            let count = latches.get(b as usize).copied().unwrap_or(0);
            if count != 1 {
                let label = label_of(ctx, cfg, b);
                let at = cfg
                    .merges
                    .get(b as usize)
                    .copied()
                    .flatten()
                    .map(|m| m.inst);
                ctx.report(
                    "V-SCF-6",
                    at,
                    vec![label],
                    format!(
                        "loop header {label} is targeted by {count} back-edge blocks but the \
                         standard requires exactly one"
                    ),
                );
                return;
            }
        }
    }
    // Constructs.
    constructs.clear();
    for (b, mg) in cfg.merges.iter().enumerate() {
        let Some(mg) = mg else { continue };
        let b = b as u32;
        if mg.merge == NONE {
            continue;
        }
        match mg.cont {
            None => constructs.push(Construct {
                kind: Kind::Selection,
                entry: b,
                exit: mg.merge,
                loop_header: NONE,
            }),
            Some(c) => {
                constructs.push(Construct {
                    kind: Kind::Loop,
                    entry: b,
                    exit: mg.merge,
                    loop_header: b,
                });
                if c != NONE {
                    constructs.push(Construct {
                        kind: Kind::Continue,
                        entry: c,
                        exit: first_latch.get(b as usize).copied().unwrap_or(NONE),
                        loop_header: b,
                    });
                }
            }
        }
    }
    if s.dom.has_preorder() {
        nesting.rebuild(cfg, s, constructs);
        nesting.clear(ctx, cfg, s, constructs, clearing, cleared);
    } else {
        // A small function (its dominator tree in the set form, without a pre-order for the
        // lists): every construct is walked, which costs the sum of the construct sizes,
        // bounded here, and less than building the lists.
        cleared.clear();
        cleared.resize(constructs.len(), false);
    }
    walk.blocks.reset(n);
    walk.prepare(s);
    for (c, &cleared) in constructs.iter().zip(cleared.iter()) {
        if check_construct(ctx, cfg, s, c, cleared, walk).is_err() {
            return;
        }
    }
    if !s.searched {
        if selections_hold(ctx, cfg, s) {
            return;
        }
        structure.search(cfg, structure_scratch);
    }
    check_selections(ctx, cfg, structure, &mut walk.blocks);
}

/// Which selection and loop constructs contain each block, as persistent lists over the
/// structural dominator tree.
///
/// A selection's blocks, as spirv-val's walk from the header collects them, are the blocks
/// the header dominates and the merge block does not (a path from the entry to such a block
/// that avoids the merge block stays among them after its last visit to the header). A
/// loop's are those the header dominates and neither the merge block nor the continue
/// target does, provided every block of that description is entered from inside it, which
/// [`Nesting::clear`] checks. So each block's list is its immediate dominator's, minus the
/// constructs whose merge block or continue target it is, plus the construct it heads.
#[derive(Default)]
struct Nesting {
    /// List nodes: (construct, next node or [`NONE`], list length).
    nodes: Vec<(u32, u32, u32)>,
    /// Each block's list (its first node, [`NONE`] when empty or unreachable).
    head: Vec<u32>,
    /// Whether each construct is described by the lists.
    listed: Vec<bool>,
    /// For constructs with no blocks at all (the header is inside the merge block's or
    /// continue target's dominance): they need only V-SCF-13.
    empty: Vec<bool>,
    /// The construct each block heads ([`NONE`] for none).
    heading: Vec<u32>,
    /// (block, construct): the constructs whose blocks stop at each block's subtree.
    holes: Vec<(u32, u32)>,
    /// Scratch for [`remove`].
    before: Vec<u32>,
}

/// Scratch space for [`Nesting::clear`].
#[derive(Default)]
struct ClearScratch {
    failed: Vec<bool>,
    left: Vec<u32>,
    entered: Vec<u32>,
    in_target: Vec<u32>,
    in_source: Vec<u32>,
}

impl Nesting {
    /// Makes these the lists of `constructs` in the function `cfg`, reusing the storage.
    fn rebuild(&mut self, cfg: &FuncCfg, s: &Structure, constructs: &[Construct]) {
        let n = cfg.merges.len();
        let dom = &s.dom;
        let Nesting {
            nodes,
            head,
            listed,
            empty,
            heading,
            holes,
            before,
        } = self;
        listed.clear();
        listed.resize(constructs.len(), false);
        empty.clear();
        empty.resize(constructs.len(), false);
        heading.clear();
        heading.resize(n, NONE);
        holes.clear();
        for (ci, c) in constructs.iter().enumerate() {
            if c.kind == Kind::Continue || !s.reachable(c.entry) || c.exit == NONE {
                continue;
            }
            let (e, x) = (c.entry, c.exit);
            let k = if c.kind == Kind::Loop {
                continue_of(cfg, e)
            } else {
                NONE
            };
            if dom.dominates(x, e) || dom.dominates(k, e) {
                if let Some(slot) = empty.get_mut(ci) {
                    *slot = true;
                }
                continue;
            }
            let Some(slot) = heading.get_mut(e as usize).filter(|h| **h == NONE) else {
                continue;
            };
            *slot = ci as u32;
            if let Some(l) = listed.get_mut(ci) {
                *l = true;
            }
            // A block inside both holes leaves the list at the outer one only.
            if dom.dominates(e, x) && !(k != x && dom.dominates(k, x)) {
                holes.push((x, ci as u32));
            }
            if k != NONE && k != x && dom.dominates(e, k) && !dom.dominates(x, k) {
                holes.push((k, ci as u32));
            }
        }
        holes.sort_unstable();
        nodes.clear();
        head.clear();
        head.resize(n, NONE);
        for &v in &dom.preorder {
            let parent = dom.idom.get(v as usize).copied().unwrap_or(UNDEF);
            let mut h = if parent == UNDEF {
                NONE
            } else {
                head.get(parent as usize).copied().unwrap_or(NONE)
            };
            let from = holes.partition_point(|&(b, _)| b < v);
            for &(_, ci) in holes
                .get(from..)
                .unwrap_or(&[])
                .iter()
                .take_while(|(b, _)| *b == v)
            {
                h = remove(nodes, h, ci, before);
            }
            if let Some(&ci) = heading.get(v as usize)
                && ci != NONE
            {
                let len = length(nodes, h);
                nodes.push((ci, h, len + 1));
                h = nodes.len() as u32 - 1;
            }
            if let Some(slot) = head.get_mut(v as usize) {
                *slot = h;
            }
        }
    }

    /// For each construct: whether V-SCF-11, -13, -14 and -15 are known to hold for it, so
    /// that its walk can be skipped. Every structural edge from a reachable block is looked
    /// at once, with the constructs it leaves and the constructs it enters.
    fn clear(
        &self,
        ctx: &Ctx<'_>,
        cfg: &FuncCfg,
        s: &Structure,
        constructs: &[Construct],
        scratch: &mut ClearScratch,
        cleared: &mut Vec<bool>,
    ) {
        let n = cfg.merges.len();
        let ClearScratch {
            failed,
            left,
            entered,
            in_target,
            in_source,
        } = scratch;
        failed.clear();
        failed.resize(constructs.len(), false);
        let fail = |failed: &mut Vec<bool>, ci: u32| {
            if let Some(f) = failed.get_mut(ci as usize) {
                *f = true;
            }
        };
        in_target.clear();
        in_target.resize(constructs.len(), 0);
        in_source.clear();
        in_source.resize(constructs.len(), 0);
        let mut stamp = 0u32;
        for u in 0..n as u32 {
            if !s.reachable(u) {
                continue;
            }
            let merge = cfg
                .merges
                .get(u as usize)
                .copied()
                .flatten()
                .map_or(NONE, |m| m.merge);
            for &v in s.succs(u) {
                self.difference(u, v, left, entered);
                if left.is_empty() && entered.is_empty() {
                    continue;
                }
                stamp += 1;
                for &ci in entered.iter() {
                    if let Some(x) = in_target.get_mut(ci as usize) {
                        *x = stamp;
                    }
                }
                for &ci in left.iter() {
                    if let Some(x) = in_source.get_mut(ci as usize) {
                        *x = stamp;
                    }
                }
                let entry = |ci: u32| constructs.get(ci as usize).map_or(NONE, |c| c.entry);
                // Entered other than through the header (V-SCF-15, and the premise that
                // the construct's blocks are those described).
                for &ci in entered.iter() {
                    if in_source.get(ci as usize) != Some(&stamp) && entry(ci) != v {
                        fail(failed, ci);
                    }
                }
                for &ci in left.iter() {
                    if in_target.get(ci as usize) == Some(&stamp) {
                        continue;
                    }
                    // A contained header's merge block outside (V-SCF-14).
                    if v == merge && entry(ci) != u {
                        fail(failed, ci);
                    }
                    // A branch out that is not a structured exit (V-SCF-11).
                    if cfg.succs(u).contains(&v)
                        && !failed.get(ci as usize).copied().unwrap_or(true)
                        && let Some(c) = constructs.get(ci as usize)
                        && !is_structured_exit(ctx, cfg, s, c, v)
                    {
                        fail(failed, ci);
                    }
                }
            }
        }
        cleared.clear();
        cleared.extend(constructs.iter().enumerate().map(|(ci, c)| {
            let listed = self.listed.get(ci).copied().unwrap_or(false);
            let empty = self.empty.get(ci).copied().unwrap_or(false);
            if !(listed || empty) || failed.get(ci).copied().unwrap_or(true) {
                return false;
            }
            // V-SCF-13: the continue target is entered from inside the loop or by the
            // back edge.
            let k = continue_of(cfg, c.entry);
            if c.kind != Kind::Loop || k == NONE || k == c.entry {
                return true;
            }
            let dom = &s.dom;
            cfg.preds(k).iter().all(|&p| {
                let inside = listed
                    && dom.dominates(c.entry, p)
                    && !dom.dominates(c.exit, p)
                    && !dom.dominates(k, p);
                !s.reachable(p) || inside || s.is_back_edge(p, k)
            })
        }));
    }

    /// The constructs containing `u` but not `v` (`left`) and `v` but not `u` (`entered`),
    /// found by walking both lists down to their shared part (possibly with some constructs
    /// on both walks, which callers skip).
    fn difference(&self, u: u32, v: u32, left: &mut Vec<u32>, entered: &mut Vec<u32>) {
        left.clear();
        entered.clear();
        let mut a = self.head.get(u as usize).copied().unwrap_or(NONE);
        let mut b = self.head.get(v as usize).copied().unwrap_or(NONE);
        let (mut la, mut lb) = (length(&self.nodes, a), length(&self.nodes, b));
        while a != b {
            if la >= lb
                && let Some(&(ci, next, _)) = self.nodes.get(a as usize)
            {
                left.push(ci);
                a = next;
                la = la.saturating_sub(1);
            } else if let Some(&(ci, next, _)) = self.nodes.get(b as usize) {
                entered.push(ci);
                b = next;
                lb = lb.saturating_sub(1);
            } else {
                break;
            }
        }
    }
}

/// The length of the list starting at node `h`.
fn length(nodes: &[(u32, u32, u32)], h: u32) -> u32 {
    nodes.get(h as usize).map_or(0, |&(_, _, len)| len)
}

/// The list `h` without construct `ci`: the nodes before it are copied, the rest shared.
/// `before` is scratch space.
fn remove(nodes: &mut Vec<(u32, u32, u32)>, h: u32, ci: u32, before: &mut Vec<u32>) -> u32 {
    before.clear();
    let mut at = h;
    while let Some(&(c, next, _)) = nodes.get(at as usize) {
        if c == ci {
            let mut rest = next;
            for &c in before.iter().rev() {
                let len = length(nodes, rest);
                nodes.push((c, rest, len + 1));
                rest = nodes.len() as u32 - 1;
            }
            return rest;
        }
        before.push(c);
        at = next;
    }
    h
}

/// Scratch space for walking constructs as spirv-val does.
#[derive(Default)]
struct Walk {
    blocks: Marks,
    list: Vec<u32>,
    stack: Vec<u32>,
    /// For the switches among the constructs.
    switch: SwitchScratch,
    /// Whether the function's structural dominators are in the set form (at most 64
    /// blocks), so that a construct's blocks are gathered as bits ([`Walk::collect_small`]).
    small: bool,
    /// In the set form: the blocks of the construct last collected, as bits.
    set: u64,
}

impl Walk {
    /// Sets the walk up for the function of structure `s`.
    fn prepare(&mut self, s: &Structure) {
        self.small = s.dom.is_set_form() && s.succ_masks.len() == s.dom.idom.len();
    }

    /// Whether block `b` is among those [`Walk::collect`] collected last.
    fn has(&self, b: u32) -> bool {
        if self.small {
            self.set & bit(b) != 0
        } else {
            self.blocks.contains(b)
        }
    }

    /// Collects the blocks of construct `c` (spirv-val's `Construct::blocks`), sorted.
    fn collect(&mut self, cfg: &FuncCfg, s: &Structure, c: &Construct) {
        let continue_header = match c.kind {
            Kind::Loop => continue_of(cfg, c.entry),
            _ => NONE,
        };
        if self.small {
            self.collect_small(s, c, continue_header);
            return;
        }
        self.blocks.clear();
        self.list.clear();
        self.stack.clear();
        self.stack.push(c.entry);
        while let Some(b) = self.stack.pop() {
            if !s.dom.dominates(c.entry, b) {
                continue;
            }
            let include = if c.kind == Kind::Continue && s.post_dominates(c.exit, b) {
                true
            } else if !s.dom.dominates(c.exit, b) {
                !(c.kind == Kind::Loop && s.dom.dominates(continue_header, b))
            } else {
                false
            };
            if include && self.blocks.insert(b) {
                self.list.push(b);
                self.stack.extend_from_slice(s.succs(b));
            }
        }
        self.list.sort_unstable();
    }

    /// [`Walk::collect`] in the set form, where the walk's tests are bit tests on a block's
    /// dominators. The walk from the header follows structural edges through the blocks
    /// that pass them, so its blocks are those reached from the header through passing
    /// blocks: gathered a frontier at a time (each block tested once), listed in block order.
    fn collect_small(&mut self, s: &Structure, c: &Construct, continue_header: u32) {
        let (entry, exit) = (bit(c.entry), bit(c.exit));
        let excluded = match c.kind {
            Kind::Loop => exit | bit(continue_header),
            _ => exit,
        };
        let passes = |b: u32| {
            let doms = s.dom.dominators(b);
            doms & entry != 0
                && (doms & excluded == 0
                    || (c.kind == Kind::Continue && s.post_dominates(c.exit, b)))
        };
        let mut set = 0u64;
        let mut tested = entry;
        let mut frontier = if passes(c.entry) { entry } else { 0 };
        while frontier != 0 {
            set |= frontier;
            let mut next = 0u64;
            let mut rest = frontier;
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                next |= s.succ_masks.get(b as usize).copied().unwrap_or(0);
            }
            let mut fresh = next & !tested;
            tested |= fresh;
            frontier = 0;
            while fresh != 0 {
                let b = fresh.trailing_zeros();
                fresh &= fresh - 1;
                if passes(b) {
                    frontier |= bit(b);
                }
            }
        }
        self.set = set;
        self.list.clear();
        let mut rest = set;
        while rest != 0 {
            self.list.push(rest.trailing_zeros());
            rest &= rest - 1;
        }
    }
}

/// Whether `dest` is a structured exit of construct `c` (spirv-val's `IsStructuredExit`).
fn is_structured_exit(
    ctx: &Ctx<'_>,
    cfg: &FuncCfg,
    s: &Structure,
    c: &Construct,
    dest: u32,
) -> bool {
    let merge_of = |b: u32| cfg.merges.get(b as usize).copied().flatten();
    match c.kind {
        Kind::Loop => merge_of(c.entry).is_some_and(|m| dest == m.merge || Some(dest) == m.cont),
        Kind::Continue => {
            dest == c.loop_header || merge_of(c.loop_header).is_some_and(|m| dest == m.merge)
        }
        Kind::Selection => {
            if dest == c.exit {
                return true;
            }
            let header_is_switch =
                terminator(ctx, cfg, c.entry).and_then(|t| t.opcode()) == Some(Op::Switch);
            let mut seen_switch = false;
            let mut block = s.dom.idom.get(c.entry as usize).copied().unwrap_or(NONE);
            let mut steps = 0usize;
            while block != NONE && steps <= cfg.merges.len() {
                steps += 1;
                let term_op = terminator(ctx, cfg, block).and_then(|t| t.opcode());
                if let Some(m) = merge_of(block) {
                    let is_loop = m.cont.is_some();
                    let inner_switch = !header_is_switch && !is_loop && term_op == Some(Op::Switch);
                    if is_loop || inner_switch {
                        if m.merge != NONE && s.dom.dominates(m.merge, c.entry) {
                            block = s.dom.idom.get(block as usize).copied().unwrap_or(NONE);
                            continue;
                        }
                        if (!seen_switch || is_loop) && dest == m.merge {
                            return true;
                        }
                        if is_loop && Some(dest) == m.cont {
                            return true;
                        }
                        if term_op == Some(Op::Switch) {
                            seen_switch = true;
                        }
                        if is_loop {
                            return false;
                        }
                    }
                }
                block = s.dom.idom.get(block as usize).copied().unwrap_or(NONE);
            }
            false
        }
    }
}

/// The rules of one construct; `cleared` when [`Nesting::clear`] found its block rules
/// (V-SCF-11, -13, -14, -15) satisfied, so that its blocks need not be walked.
fn check_construct(
    ctx: &mut Ctx<'_>,
    cfg: &FuncCfg,
    s: &Structure,
    c: &Construct,
    cleared: bool,
    walk: &mut Walk,
) -> Result<(), ()> {
    if !s.reachable(c.entry) || c.exit == NONE {
        return Ok(());
    }
    // The labels and names below only serve the reports and the block walk, which most
    // constructs never reach: each path looks them up itself.
    let names = |kind: Kind| match kind {
        Kind::Selection => ("selection", "selection header"),
        Kind::Loop => ("loop", "loop header"),
        Kind::Continue => ("continue", "continue target"),
    };
    if s.reachable(c.exit) && !s.dom.dominates(c.entry, c.exit) {
        let (h, e) = (label_of(ctx, cfg, c.entry), label_of(ctx, cfg, c.exit));
        let (name, header_name) = names(c.kind);
        let merge_inst = cfg
            .merges
            .get(c.loop_header.min(c.entry) as usize)
            .copied()
            .flatten()
            .map(|m| m.inst);
        let header_merge_inst = cfg
            .merges
            .get(c.entry as usize)
            .copied()
            .flatten()
            .map(|m| m.inst)
            .or(merge_inst);
        let (rule, what) = match c.kind {
            Kind::Continue => ("V-SCF-9", "back-edge block"),
            _ => ("V-SCF-5", "merge block"),
        };
        ctx.report(
            rule,
            header_merge_inst,
            vec![h, e],
            format!("the {name} construct with the {header_name} {h} does not structurally dominate the {what} {e}"),
        );
        return Err(());
    }
    if c.kind == Kind::Continue && !s.post_dominates(c.exit, c.entry) {
        let (h, e) = (label_of(ctx, cfg, c.entry), label_of(ctx, cfg, c.exit));
        ctx.report(
            "V-SCF-10",
            cfg.merges.get(c.loop_header as usize).copied().flatten().map(|m| m.inst),
            vec![h, e],
            format!("the continue construct with the continue target {h} is not structurally post dominated by the back-edge block {e}"),
        );
        return Err(());
    }
    if !cleared {
        let (name, header_name) = names(c.kind);
        check_blocks(
            ctx,
            cfg,
            s,
            c,
            walk,
            (label_of(ctx, cfg, c.entry), name, header_name),
        )?;
    }
    if c.kind == Kind::Selection
        && let Some(term) = terminator(ctx, cfg, c.entry)
        && ctx.op_of(term) == Some(Op::Switch)
    {
        return check_switch(ctx, cfg, s, term, (c.entry, c.exit), &mut walk.switch);
    }
    Ok(())
}

/// V-SCF-11, -15, -14 and -13 over the blocks of `c`, walked as spirv-val walks them;
/// `names` are the header's label and the construct's and header's names for messages.
/// [`Nesting::clear`] settles most constructs of large functions without this walk; in small
/// functions every construct takes it (so it is not marked cold).
fn check_blocks(
    ctx: &mut Ctx<'_>,
    cfg: &FuncCfg,
    s: &Structure,
    c: &Construct,
    walk: &mut Walk,
    names: (Id, &str, &str),
) -> Result<(), ()> {
    let (h, name, header_name) = names;
    walk.collect(cfg, s, c);
    let blocks = &*walk;
    for &b in &walk.list {
        for &succ in cfg.succs(b) {
            if !blocks.has(succ) && !is_structured_exit(ctx, cfg, s, c, succ) {
                let bl = label_of(ctx, cfg, b);
                let at = terminator(ctx, cfg, b).map(|t| t.index());
                ctx.report(
                    "V-SCF-11",
                    at,
                    vec![bl, h],
                    format!("block {bl} exits the {name} construct headed by {h}, but not via a structured exit"),
                );
                return Err(());
            }
        }
        if b == c.entry {
            continue;
        }
        for &pred in cfg.preds(b) {
            if s.reachable(pred) && !blocks.has(pred) {
                let pl = label_of(ctx, cfg, pred);
                let at = terminator(ctx, cfg, pred).map(|t| t.index());
                ctx.report(
                    "V-SCF-15",
                    at,
                    vec![pl, h],
                    format!("block {pl} branches to the {name} construct, but not to the {header_name} {h}"),
                );
                return Err(());
            }
        }
        if let Some(Some(m)) = cfg.merges.get(b as usize)
            && m.merge != NONE
            && s.reachable(m.merge)
            && !blocks.has(m.merge)
        {
            let (bl, ml) = (label_of(ctx, cfg, b), label_of(ctx, cfg, m.merge));
            ctx.err(
                "V-SCF-14",
                m.inst,
                &[bl, h, ml],
                format!("header block {bl} is contained in the {name} construct headed by {h}, but its merge block {ml} is not"),
            );
            return Err(());
        }
    }
    if c.kind == Kind::Loop
        && let Some(Some(m)) = cfg.merges.get(c.entry as usize)
        && let Some(cont) = m.cont
        && cont != NONE
        && cont != c.entry
    {
        for &pred in cfg.preds(cont) {
            if !s.reachable(pred) {
                continue;
            }
            if !blocks.has(pred) && !s.is_back_edge(pred, cont) {
                let (pl, cl) = (label_of(ctx, cfg, pred), label_of(ctx, cfg, cont));
                let at = terminator(ctx, cfg, pred).map(|t| t.index());
                ctx.report(
                    "V-SCF-13",
                    at,
                    vec![pl, cl, h],
                    format!("block {pl} branches to the loop continue target {cl}, but is not contained in the associated loop construct {h}"),
                );
                return Err(());
            }
        }
    }
    Ok(())
}

/// Switch targets in operand order: (Default, then case labels), as block indices
/// ([`NONE`] for labels outside the function), into `out`.
fn switch_targets_into(ctx: &Ctx<'_>, cfg: &FuncCfg, term: &Inst<'_>, out: &mut Vec<u32>) {
    out.clear();
    out.extend(
        crate::cfg::branch_targets(ctx.ix, term.index())
            .map(|l| block_of_label(ctx, cfg.func, l).unwrap_or(NONE)),
    );
}

/// Working memory of [`check_switch`], reused from switch to switch.
#[derive(Default)]
struct SwitchScratch {
    targets: Vec<u32>,
    case_targets: Marks,
    visited: Marks,
    /// Per case target already followed: the target its case construct falls through to.
    fall_of: Stamped<u32>,
    /// The fall-through targets found, one entry per case construct that has one.
    falls: Vec<u32>,
    stack: Vec<u32>,
}

/// V-SCF-16…21: the case constructs of one OpSwitch.
fn check_switch(
    ctx: &mut Ctx<'_>,
    cfg: &FuncCfg,
    s: &Structure,
    term: &Inst<'_>,
    (header, merge): (u32, u32),
    scratch: &mut SwitchScratch,
) -> Result<(), ()> {
    let SwitchScratch {
        targets,
        case_targets,
        visited,
        fall_of,
        falls,
        stack,
    } = scratch;
    switch_targets_into(ctx, cfg, term, targets);
    let n = cfg.merges.len();
    case_targets.reset(n);
    for &t in targets.iter().filter(|&&t| t != merge) {
        case_targets.insert(t);
    }
    visited.reset(n);
    fall_of.reset(n + 1);
    falls.clear();
    let default = targets.first().copied().unwrap_or(NONE);
    let default_repeats = targets.iter().skip(1).any(|&t| t == default);
    let mut default_fall_through = NONE;
    let h = label_of(ctx, cfg, header);
    for (k, &target) in targets.iter().enumerate() {
        if target == merge || target == NONE {
            continue;
        }
        // Case targets are blocks of the function (below `n`).
        let fall = match fall_of.get(target as usize) {
            Some(f) => f,
            None => {
                if s.reachable(header) && s.reachable(target) && !s.dom.dominates(header, target) {
                    let tl = label_of(ctx, cfg, target);
                    ctx.err("V-SCF-16", term.index(), &[h, tl], format!("switch header {h} does not structurally dominate its case construct {tl}"));
                    return Err(());
                }
                let f = case_fall_through(cfg, s, (target, merge), case_targets, visited, stack)?;
                if f != NONE {
                    falls.push(f);
                }
                fall_of.insert(target as usize, f);
                f
            }
        };
        let fall = if fall == default && !default_repeats {
            default_fall_through
        } else {
            fall
        };
        if fall != NONE {
            if k == 0 {
                default_fall_through = fall;
            } else {
                let mut j = k;
                while targets.get(j + 1) == Some(&target) {
                    j += 1;
                }
                if targets.get(j + 1) != Some(&fall) {
                    let (tl, fl) = (label_of(ctx, cfg, target), label_of(ctx, cfg, fall));
                    ctx.err(
                        "V-SCF-19",
                        term.index(),
                        &[tl, fl],
                        format!("case construct that targets {tl} has branches to the case construct that targets {fl}, but does not immediately precede it in the OpSwitch's target list"),
                    );
                    return Err(());
                }
            }
        }
    }
    // The smallest case target that several case constructs fall through to.
    falls.sort_unstable();
    if let Some(t) = falls.windows(2).find_map(|w| match w {
        &[a, b] if a == b => Some(a),
        _ => None,
    }) {
        let tl = label_of(ctx, cfg, t);
        ctx.err(
            "V-SCF-18",
            term.index(),
            &[tl],
            format!(
                "multiple case constructs have branches to the case construct that targets {tl}"
            ),
        );
        return Err(());
    }
    Ok(())
}

/// The case target that the case construct of `target` falls through to ([`NONE`] for
/// none); two different ones violate V-SCF-17. `visited` and `stack` are scratch space.
fn case_fall_through(
    cfg: &FuncCfg,
    s: &Structure,
    (target, merge): (u32, u32),
    case_targets: &Marks,
    visited: &mut Marks,
    stack: &mut Vec<u32>,
) -> Result<u32, ()> {
    let mut fall = NONE;
    stack.clear();
    stack.push(target);
    visited.clear();
    let target_reachable = s.reachable(target);
    while let Some(b) = stack.pop() {
        if b == merge || !visited.insert(b) {
            continue;
        }
        if target_reachable && s.reachable(b) && s.dom.dominates(target, b) {
            stack.extend_from_slice(cfg.succs(b));
        } else if case_targets.contains(b) {
            if fall == NONE {
                if b != target {
                    fall = b;
                }
            } else if fall != b {
                return Err(());
            }
        }
    }
    Ok(fall)
}

/// Whether [`check_selections`] reports nothing, whatever the order of the structural
/// search (so that it need not run). Sufficient, not necessary: every structurally reachable
/// block ends in no conditional branch or switch, or has a selection merge, or ends in a
/// switch with a merge instruction, or in a conditional branch one of whose targets (or both
/// the same) is the merge block or continue target of the block itself or of a block that
/// dominates it: such a block comes first in every search order, so its targets are marked
/// before.
fn selections_hold(ctx: &Ctx<'_>, cfg: &FuncCfg, s: &Structure) -> bool {
    let merge_of = |b: u32| cfg.merges.get(b as usize).copied().flatten();
    (0..cfg.merges.len() as u32).all(|b| {
        if !s.reachable(b) {
            return true;
        }
        let merge = merge_of(b);
        if merge.is_some_and(|m| m.cont.is_none()) {
            return true;
        }
        let Some(term) = terminator(ctx, cfg, b) else {
            return true;
        };
        match ctx.op_of(term) {
            Some(Op::BranchConditional) => {
                let words = term.words();
                let label = |i: usize| {
                    words
                        .get(i)
                        .and_then(|&l| block_of_label(ctx, cfg.func, Id(l)))
                        .unwrap_or(NONE)
                };
                let (t, f) = (label(2), label(3));
                if t == f {
                    return true;
                }
                let names = |m: crate::cfg::Merge| {
                    m.merge == t || m.merge == f || m.cont == Some(t) || m.cont == Some(f)
                };
                let mut d = b;
                for _ in 0..cfg.merges.len() {
                    if merge_of(d).is_some_and(names) {
                        return true;
                    }
                    match s.dom.idom.get(d as usize) {
                        Some(&up) if up != UNDEF => d = up,
                        _ => return false,
                    }
                }
                false
            }
            Some(Op::Switch) => merge.is_some(),
            _ => true,
        }
    })
}

/// V-SCF-2, V-SCF-3: OpSwitch has a selection merge; a conditional branch without a merge
/// instruction targets a merge block or continue target already seen in reverse
/// post-order (the break/continue idioms).
fn check_selections(ctx: &mut Ctx<'_>, cfg: &FuncCfg, s: &Structure, seen: &mut Marks) {
    seen.reset(cfg.merges.len());
    for &b in s.post_order.iter().rev() {
        let Some(term) = terminator(ctx, cfg, b) else {
            continue;
        };
        let merge = cfg.merges.get(b as usize).copied().flatten();
        if let Some(m) = merge {
            seen.insert(m.merge);
            if let Some(c) = m.cont {
                seen.insert(c);
            }
        }
        match ctx.op_of(term) {
            Some(Op::BranchConditional) => {
                let words = term.words();
                let t = words
                    .get(2)
                    .and_then(|&l| block_of_label(ctx, cfg.func, Id(l)))
                    .unwrap_or(NONE);
                let f = words
                    .get(3)
                    .and_then(|&l| block_of_label(ctx, cfg.func, Id(l)))
                    .unwrap_or(NONE);
                let t_unseen = seen.insert(t);
                let f_unseen = seen.insert(f);
                let selection_merge = merge.is_some_and(|m| m.cont.is_none());
                if !selection_merge && t_unseen && f_unseen {
                    ctx.err("V-SCF-3", term.index(), &[], "selection must be structured");
                    return;
                }
            }
            Some(Op::Switch) => {
                if merge.is_none() {
                    ctx.err(
                        "V-SCF-2",
                        term.index(),
                        &[],
                        "OpSwitch must be preceded by an OpSelectionMerge instruction",
                    );
                    return;
                }
                for t in crate::cfg::branch_targets(ctx.ix, term.index()) {
                    seen.insert(block_of_label(ctx, cfg.func, t).unwrap_or(NONE));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::DomScratch;
    use spv_reader::InstIndex;

    /// A function's CFG from `edges` over `n` blocks, with merge instructions `merges`
    /// (header, merge, continue target), built as `cfg::build` builds one.
    fn func_cfg(n: usize, edges: &[(u32, u32)], merges: &[(u32, u32, Option<u32>)]) -> FuncCfg {
        let mut cfg = FuncCfg::default();
        cfg.graph.rebuild(n, edges);
        cfg.merges = vec![None; n];
        for &(h, merge, cont) in merges {
            cfg.merges[h as usize] = Some(crate::cfg::Merge {
                inst: InstIndex(0),
                merge,
                cont,
            });
        }
        let (mut seen, mut stack, mut order) = (Vec::new(), Vec::new(), Vec::new());
        cfg.graph
            .post_order_into(0, &mut seen, &mut stack, &mut order);
        cfg.reachable = vec![false; n];
        for &b in &order {
            cfg.reachable[b as usize] = true;
        }
        cfg.dom
            .rebuild_with_post_order(&cfg.graph, 0, &order, &mut DomScratch::default());
        cfg
    }

    /// Whenever `merge_edges_keep_dominators` says so, the dominator tree of the branch
    /// edges plus the merge and continue edges, built from scratch, has the CFG tree's
    /// immediate dominators and dominance (checked on random graphs against the
    /// from-scratch tree, which `dom`'s own tests check against the definition).
    #[test]
    fn merge_edges_that_keep_dominators_keep_them() {
        let mut rng = crate::mutate::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |bound: u64| rng.below(bound as usize) as u32;
        let (mut kept, mut changed) = (0, 0);
        for round in 0..2000 {
            let n = 1 + next(10) as usize;
            let edges: Vec<(u32, u32)> = (0..next(2 * n as u64 + 1))
                .map(|_| (next(n as u64), next(n as u64)))
                .collect();
            let merges: Vec<(u32, u32, Option<u32>)> = (0..next(3))
                .map(|_| {
                    let cont = (next(2) == 0).then(|| next(n as u64));
                    (next(n as u64), next(n as u64), cont)
                })
                .collect();
            let cfg = func_cfg(n, &edges, &merges);
            let mut structural = edges.clone();
            for (h, m) in cfg.merges.iter().enumerate() {
                if let Some(m) = m {
                    structural.push((h as u32, m.merge));
                    structural.extend(m.cont.map(|c| (h as u32, c)));
                }
            }
            let mut g = Graph::default();
            g.rebuild(n, &structural);
            let mut fresh = DomTree::default();
            fresh.rebuild(&g, 0, &mut DomScratch::default());
            let same = (0..n as u32).all(|a| {
                cfg.dom.idom[a as usize] == fresh.idom[a as usize]
                    && (0..n as u32).all(|b| cfg.dom.dominates(a, b) == fresh.dominates(a, b))
            });
            if merge_edges_keep_dominators(&cfg) {
                kept += 1;
                assert!(same, "round {round}: {edges:?} with merges {merges:?}");
            } else {
                changed += usize::from(!same);
            }
        }
        // Both answers occur, so the test exercises the shortcut and its refusals.
        assert!(
            kept > 100 && changed > 100,
            "kept {kept}, changed {changed}"
        );
    }

    /// Whenever the sweep settles a small function, its structure answers as the search's
    /// does: reachability, back edges (as a set), dominance and post-dominance (checked on
    /// random graphs with merge instructions, often shaped so that the sweep succeeds).
    #[test]
    fn swept_structures_answer_as_searched_ones() {
        let mut rng = crate::mutate::Rng::new(0x9e37_79b9_7f4a_7c15 ^ 0x5eed);
        let mut next = |bound: u64| rng.below(bound as usize) as u32;
        let (mut swept, mut searched, mut scratch) = (
            Structure::default(),
            Structure::default(),
            StructureScratch::default(),
        );
        let (mut settled, mut refused) = (0, 0);
        for round in 0..3000 {
            let n = 1 + next(12) as usize;
            // Mostly forward edges, with a few backward ones (loops, or irreducible).
            let edges: Vec<(u32, u32)> = (0..next(2 * n as u64 + 1))
                .map(|_| {
                    let (a, b) = (next(n as u64), next(n as u64));
                    if next(4) == 0 {
                        (a, b)
                    } else {
                        (a.min(b), a.max(b))
                    }
                })
                .collect();
            let merges: Vec<(u32, u32, Option<u32>)> = (0..next(4))
                .map(|_| {
                    let h = next(n as u64);
                    let cont = (next(2) == 0).then(|| next(n as u64));
                    (h, next(n as u64), cont)
                })
                .collect();
            let cfg = func_cfg(n, &edges, &merges);
            swept.rebuild(&cfg, &mut scratch);
            if swept.searched {
                refused += 1;
                continue;
            }
            settled += 1;
            searched.rebuild_searched(&cfg, &mut scratch);
            let what = format!("round {round}: {edges:?} with merges {merges:?}");
            assert_eq!(
                swept.back_edges_sorted, searched.back_edges_sorted,
                "{what}"
            );
            for a in 0..n as u32 {
                assert_eq!(swept.reachable(a), searched.reachable(a), "{what}");
                assert_eq!(
                    swept.dom.idom.get(a as usize),
                    searched.dom.idom.get(a as usize),
                    "{what}"
                );
                for b in 0..n as u32 {
                    assert_eq!(
                        swept.dom.dominates(a, b),
                        searched.dom.dominates(a, b),
                        "{what}"
                    );
                    assert_eq!(
                        swept.post_dominates(a, b),
                        searched.post_dominates(a, b),
                        "{what}"
                    );
                }
            }
            // The search made later gives the searched post-order.
            swept.search(&cfg, &mut scratch);
            assert_eq!(swept.post_order, searched.post_order, "{what}");
        }
        assert!(
            settled > 1000 && refused > 300,
            "settled {settled}, refused {refused}"
        );
    }

    /// The set-form walk collects the blocks the stack walk collects, in the same order,
    /// for constructs of every kind over random graphs with merge instructions (whatever
    /// their entry, exit and continue target).
    #[test]
    fn small_walks_collect_what_the_stack_walk_collects() {
        let mut rng = crate::mutate::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |bound: u64| rng.below(bound as usize) as u32;
        let (mut structure, mut scratch, mut walk) = (
            Structure::default(),
            StructureScratch::default(),
            Walk::default(),
        );
        let mut nonempty = 0;
        for round in 0..1500 {
            let n = 1 + next(12) as usize;
            let edges: Vec<(u32, u32)> = (0..next(2 * n as u64 + 1))
                .map(|_| (next(n as u64), next(n as u64)))
                .collect();
            let merges: Vec<(u32, u32, Option<u32>)> = (0..1 + next(3))
                .map(|_| {
                    let cont = (next(2) == 0).then(|| next(n as u64));
                    (next(n as u64), next(n as u64), cont)
                })
                .collect();
            let cfg = func_cfg(n, &edges, &merges);
            structure.rebuild(&cfg, &mut scratch);
            // The stack walk follows the successor lists, which a swept structure builds
            // only with the search.
            if !structure.searched {
                structure.search(&cfg, &mut scratch);
            }
            walk.prepare(&structure);
            assert!(
                walk.small,
                "round {round}: a small function takes the set form"
            );
            for _ in 0..4 {
                let kind = [Kind::Selection, Kind::Loop, Kind::Continue][next(3) as usize];
                let pick = |k: u32| if k == n as u32 { NONE } else { k };
                let c = Construct {
                    kind,
                    entry: next(n as u64),
                    exit: pick(next(n as u64 + 1)),
                    loop_header: next(n as u64),
                };
                walk.small = true;
                walk.collect(&cfg, &structure, &c);
                let small = walk.list.clone();
                let small_has: Vec<bool> = (0..n as u32).map(|b| walk.has(b)).collect();
                walk.small = false;
                walk.blocks.reset(n);
                walk.collect(&cfg, &structure, &c);
                let listed: Vec<bool> = (0..n as u32).map(|b| walk.has(b)).collect();
                assert_eq!(small, walk.list, "round {round}: {edges:?} {merges:?}");
                assert_eq!(small_has, listed, "round {round}: membership");
                nonempty += usize::from(!small.is_empty());
            }
        }
        assert!(nonempty > 1000, "only {nonempty} walks found blocks");
    }
}
