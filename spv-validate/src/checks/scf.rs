//! Structured control flow (V-SCF-1…21, SPIR-V §2.11, digest §3), enforced when `Shader` is
//! declared.
//!
//! Per function: structural successors (branch edges plus merge and continue edges),
//! structural dominators from the entry block, structural post-dominators over the
//! augmented graph (a pseudo exit reached from every sink, digest §3.1), back edges found by
//! a depth-first search over structural edges. Then, as spirv-val organises it (digest §3.5):
//! back edges target loop headers, one per header; every construct whose header is
//! structurally reachable dominates its exit, keeps its branches inside or on structured
//! exits, is entered only through its header and contains the merges of the headers it
//! contains; continue targets are entered from inside their loop; switch case constructs
//! obey the fall-through rules; conditional branches without a merge instruction must be
//! break/continue idioms.

use std::collections::{BTreeMap, HashSet};

use spv_reader::Id;
use spv_reader::spirv::Op;

use crate::cfg::{FuncCfg, block_of_label};
use crate::ctx::{Ctx, Inst, NONE};
use crate::dom::{DomTree, Graph};

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

/// Structural facts of one function.
struct Structure {
    /// Structural edges (branch, merge and continue edges).
    graph: Graph,
    /// Structural dominators from the entry block.
    dom: DomTree,
    /// Structural post-dominators (root: the pseudo exit, node `len`).
    post: DomTree,
    /// Whether each block is structurally reachable.
    reachable: Vec<bool>,
    /// Blocks in post-order of the structural search from the entry.
    post_order: Vec<u32>,
    /// (back-edge block, header) pairs.
    back_edges: Vec<(u32, u32)>,
}

impl Structure {
    fn new(cfg: &FuncCfg) -> Structure {
        let n = cfg.merges.len();
        let mut graph = Graph::new(n);
        for b in 0..n as u32 {
            let mut seen: Vec<u32> = Vec::new();
            let mut add = |graph: &mut Graph, t: u32| {
                if t != NONE && !seen.contains(&t) {
                    seen.push(t);
                    graph.add_edge(b, t);
                }
            };
            // spirv-val registers the merge (and continue) edges when it reads the merge
            // instruction, before the terminator's targets.
            if let Some(Some(mg)) = cfg.merges.get(b as usize) {
                add(&mut graph, mg.merge);
                if let Some(c) = mg.cont {
                    add(&mut graph, c);
                }
            }
            for &s in cfg.succs(b) {
                add(&mut graph, s);
            }
        }
        let (post_order, back) = dfs_with_back_edges(&graph, 0);
        let back_edges = back
            .into_iter()
            .filter(|&(from, to)| cfg.succs(from).contains(&to))
            .collect();
        let mut reachable = vec![false; n];
        for &b in &post_order {
            if let Some(r) = reachable.get_mut(b as usize) {
                *r = true;
            }
        }
        let dom = DomTree::new(&graph, 0);
        let post = DomTree::new(&reverse_augmented(&graph), n as u32);
        Structure {
            graph,
            dom,
            post,
            reachable,
            post_order,
            back_edges,
        }
    }

    fn reachable(&self, b: u32) -> bool {
        self.reachable.get(b as usize).copied().unwrap_or(false)
    }

    fn succs(&self, b: u32) -> &[u32] {
        self.graph.succs.get(b as usize).map_or(&[], |v| v)
    }
}

/// Post-order of the nodes reachable from `root`, and the edges to nodes on the search
/// stack (back edges), visiting successors in list order like spirv-val's traversal.
fn dfs_with_back_edges(g: &Graph, root: u32) -> (Vec<u32>, Vec<(u32, u32)>) {
    let n = g.len();
    let mut post = Vec::with_capacity(n);
    let mut back = Vec::new();
    let mut seen = vec![false; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<(u32, usize)> = Vec::new();
    if (root as usize) < n {
        stack.push((root, 0));
        if let (Some(s), Some(o)) = (seen.get_mut(root as usize), on_stack.get_mut(root as usize)) {
            *s = true;
            *o = true;
        }
    }
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        let succs = g.succs.get(node as usize).map_or(&[][..], |v| &v[..]);
        if let Some(&s) = succs.get(*next) {
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
    (post, back)
}

/// The reversed graph with a pseudo exit (node `n`) whose successors are the traversal roots
/// of the reversed graph: blocks without successors, then blocks still not reached (on
/// cycles without exit), both in reverse block order as spirv-val takes them.
fn reverse_augmented(g: &Graph) -> Graph {
    let n = g.len();
    let mut rev = Graph {
        succs: g.preds.clone(),
        preds: g.succs.clone(),
    };
    rev.succs.push(Vec::new());
    rev.preds.push(Vec::new());
    let exit = n as u32;
    let mut visited = vec![false; n];
    let mark = |rev: &Graph, start: u32, visited: &mut Vec<bool>| {
        for b in rev.post_order(start) {
            if let Some(v) = visited.get_mut(b as usize) {
                *v = true;
            }
        }
    };
    for b in (0..n as u32).rev() {
        if g.succs.get(b as usize).is_some_and(|s| s.is_empty())
            && !visited.get(b as usize).copied().unwrap_or(true)
        {
            rev.add_edge(exit, b);
            mark(&rev, b, &mut visited);
        }
    }
    for b in (0..n as u32).rev() {
        if !visited.get(b as usize).copied().unwrap_or(true) {
            rev.add_edge(exit, b);
            mark(&rev, b, &mut visited);
        }
    }
    rev
}

pub(crate) fn check(ctx: &mut Ctx<'_>, cfgs: &[FuncCfg]) {
    for cfg in cfgs {
        check_merge_uniqueness(ctx, cfg);
    }
    if !ctx.shader {
        return;
    }
    for cfg in cfgs {
        check_function(ctx, cfg);
    }
}

/// V-SCF-4: a block is the merge block of at most one header (all modules).
fn check_merge_uniqueness(ctx: &mut Ctx<'_>, cfg: &FuncCfg) {
    let mut merges: HashSet<u32> = HashSet::new();
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

fn terminator<'m>(ctx: &Ctx<'m>, cfg: &FuncCfg, b: u32) -> Option<Inst<'m>> {
    let f = ctx.m.functions().get(cfg.func as usize)?;
    ctx.ix.inst(f.blocks.get(b as usize)?.terminator)
}

fn check_function(ctx: &mut Ctx<'_>, cfg: &FuncCfg) {
    let s = Structure::new(cfg);
    let n = cfg.merges.len() as u32;
    let is_loop_header =
        |b: u32| matches!(cfg.merges.get(b as usize), Some(Some(m)) if m.cont.is_some());
    // V-SCF-1, V-SCF-6: back edges target loop headers; exactly one per loop header.
    let mut latches: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
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
        let l = latches.entry(to).or_default();
        if !l.contains(&from) {
            l.push(from);
        }
    }
    for b in 0..n {
        if s.reachable(b) && is_loop_header(b) {
            let count = latches.get(&b).map_or(0, Vec::len);
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
    let mut constructs = Vec::new();
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
                    let latch = latches
                        .get(&b)
                        .and_then(|l| l.first().copied())
                        .unwrap_or(NONE);
                    constructs.push(Construct {
                        kind: Kind::Continue,
                        entry: c,
                        exit: latch,
                        loop_header: b,
                    });
                }
            }
        }
    }
    for c in &constructs {
        if check_construct(ctx, cfg, &s, c).is_err() {
            return;
        }
    }
    check_selections(ctx, cfg, &s);
}

/// The blocks of construct `c` (spirv-val's `Construct::blocks`).
fn construct_blocks(cfg: &FuncCfg, s: &Structure, c: &Construct) -> HashSet<u32> {
    let continue_header = match c.kind {
        Kind::Loop => cfg
            .merges
            .get(c.entry as usize)
            .copied()
            .flatten()
            .and_then(|m| m.cont)
            .unwrap_or(NONE),
        _ => NONE,
    };
    let mut set = HashSet::new();
    let mut stack = vec![c.entry];
    while let Some(b) = stack.pop() {
        if !s.dom.dominates(c.entry, b) {
            continue;
        }
        let include = if c.kind == Kind::Continue && s.post.dominates(c.exit, b) {
            true
        } else if !s.dom.dominates(c.exit, b) {
            !(c.kind == Kind::Loop && s.dom.dominates(continue_header, b))
        } else {
            false
        };
        if include && set.insert(b) {
            stack.extend_from_slice(s.succs(b));
        }
    }
    set
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

fn check_construct(
    ctx: &mut Ctx<'_>,
    cfg: &FuncCfg,
    s: &Structure,
    c: &Construct,
) -> Result<(), ()> {
    if !s.reachable(c.entry) || c.exit == NONE {
        return Ok(());
    }
    let (h, e) = (label_of(ctx, cfg, c.entry), label_of(ctx, cfg, c.exit));
    let (name, header_name) = match c.kind {
        Kind::Selection => ("selection", "selection header"),
        Kind::Loop => ("loop", "loop header"),
        Kind::Continue => ("continue", "continue target"),
    };
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
    if s.reachable(c.exit) && !s.dom.dominates(c.entry, c.exit) {
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
    if c.kind == Kind::Continue && !s.post.dominates(c.exit, c.entry) {
        ctx.report(
            "V-SCF-10",
            cfg.merges.get(c.loop_header as usize).copied().flatten().map(|m| m.inst),
            vec![h, e],
            format!("the continue construct with the continue target {h} is not structurally post dominated by the back-edge block {e}"),
        );
        return Err(());
    }
    let blocks = construct_blocks(cfg, s, c);
    let mut sorted: Vec<u32> = blocks.iter().copied().collect();
    sorted.sort_unstable();
    for &b in &sorted {
        for &succ in cfg.succs(b) {
            if !blocks.contains(&succ) && !is_structured_exit(ctx, cfg, s, c, succ) {
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
            if s.reachable(pred) && !blocks.contains(&pred) {
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
            && !blocks.contains(&m.merge)
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
            let is_back_edge = s.back_edges.contains(&(pred, cont));
            if !blocks.contains(&pred) && !is_back_edge {
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
    if c.kind == Kind::Selection
        && let Some(term) = terminator(ctx, cfg, c.entry)
        && ctx.op_of(term) == Some(Op::Switch)
    {
        return check_switch(ctx, cfg, s, term, c.entry, c.exit);
    }
    Ok(())
}

/// Switch targets in operand order: (Default, then case labels), as block indices
/// ([`NONE`] for labels outside the function).
fn switch_targets(ctx: &Ctx<'_>, cfg: &FuncCfg, term: Inst<'_>) -> Vec<u32> {
    crate::cfg::branch_targets(ctx.ix, term.index())
        .map(|l| block_of_label(ctx, cfg.func, l).unwrap_or(NONE))
        .collect()
}

/// V-SCF-16…21: the case constructs of one OpSwitch.
fn check_switch(
    ctx: &mut Ctx<'_>,
    cfg: &FuncCfg,
    s: &Structure,
    term: Inst<'_>,
    header: u32,
    merge: u32,
) -> Result<(), ()> {
    let targets = switch_targets(ctx, cfg, term);
    let case_targets: HashSet<u32> = targets.iter().copied().filter(|&t| t != merge).collect();
    let default = targets.first().copied().unwrap_or(NONE);
    let default_repeats = targets.iter().skip(1).any(|&t| t == default);
    let mut targeted: BTreeMap<u32, u32> = BTreeMap::new();
    let mut seen: BTreeMap<u32, u32> = BTreeMap::new();
    let mut default_fall_through = NONE;
    let h = label_of(ctx, cfg, header);
    for (k, &target) in targets.iter().enumerate() {
        if target == merge || target == NONE {
            continue;
        }
        let fall = match seen.get(&target) {
            Some(&f) => f,
            None => {
                if s.reachable(header) && s.reachable(target) && !s.dom.dominates(header, target) {
                    let tl = label_of(ctx, cfg, target);
                    ctx.err("V-SCF-16", term.index(), &[h, tl], format!("switch header {h} does not structurally dominate its case construct {tl}"));
                    return Err(());
                }
                let f = case_fall_through(cfg, s, target, merge, &case_targets)?;
                if f != NONE {
                    *targeted.entry(f).or_insert(0) += 1;
                }
                seen.insert(target, f);
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
    for (&t, &count) in &targeted {
        if count > 1 {
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
    }
    Ok(())
}

/// The case target that the case construct of `target` falls through to ([`NONE`] for
/// none); two different ones violate V-SCF-17.
fn case_fall_through(
    cfg: &FuncCfg,
    s: &Structure,
    target: u32,
    merge: u32,
    case_targets: &HashSet<u32>,
) -> Result<u32, ()> {
    let mut fall = NONE;
    let mut stack = vec![target];
    let mut visited = HashSet::new();
    let target_reachable = s.reachable(target);
    while let Some(b) = stack.pop() {
        if b == merge || !visited.insert(b) {
            continue;
        }
        if target_reachable && s.reachable(b) && s.dom.dominates(target, b) {
            stack.extend_from_slice(cfg.succs(b));
        } else if case_targets.contains(&b) {
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

/// V-SCF-2, V-SCF-3: OpSwitch has a selection merge; a conditional branch without a merge
/// instruction targets a merge block or continue target already seen in reverse
/// post-order (the break/continue idioms).
fn check_selections(ctx: &mut Ctx<'_>, cfg: &FuncCfg, s: &Structure) {
    let mut seen: HashSet<u32> = HashSet::new();
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
                for t in switch_targets(ctx, cfg, term) {
                    seen.insert(t);
                }
            }
            _ => {}
        }
    }
}
