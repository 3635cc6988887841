//! Text and Graphviz renderings of a CFG, its analyses and its region tree.
//!
//! Blocks print as `%<label id>` when the CFG came from SPIR-V and as `b<index>` otherwise.
//! Output is deterministic and ends with a newline.

use crate::analysis::Analysis;
use crate::cfg::{BlockIdx, Cfg, Merge, Terminator};
use crate::region::{Cond, Region, Seq, Strategy, Structured};
use std::fmt::Write;

fn terminator_text(cfg: &Cfg, t: &Terminator) -> String {
    let n = |b: &BlockIdx| cfg.name(*b);
    match t {
        Terminator::Branch(b) => format!("OpBranch {}", n(b)),
        Terminator::BranchConditional {
            true_target,
            false_target,
        } => format!("OpBranchConditional {} {}", n(true_target), n(false_target)),
        Terminator::Switch { default, cases, .. } => {
            let mut s = format!("OpSwitch default {}", n(default));
            for (lit, b) in cases {
                let _ = write!(s, " {lit}:{}", n(b));
            }
            s
        }
        Terminator::Return => "OpReturn".into(),
        Terminator::ReturnValue => "OpReturnValue".into(),
        Terminator::Kill => "OpKill".into(),
        Terminator::TerminateInvocation => "OpTerminateInvocation".into(),
        Terminator::OtherExit { opcode } => {
            match spv_reader::spirv::Op::from_u32(u32::from(*opcode)) {
                Some(op) => format!("Op{op:?}"),
                None => format!("Op<{opcode}>"),
            }
        }
        Terminator::Unreachable => "OpUnreachable".into(),
    }
}

fn cond_text(cfg: &Cfg, c: &Cond) -> String {
    match c {
        Cond::Branch { block, value } => {
            format!("{}{}", if *value { "" } else { "!" }, cfg.name(*block))
        }
        Cond::VarEq { var, value } => format!("v{} == {value}", var.0),
        Cond::VarNe { var, value } => format!("v{} != {value}", var.0),
    }
}

fn regions_text(cfg: &Cfg, tree: &Structured, seq: Seq, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    for r in tree.regions(seq) {
        match r {
            Region::Block(b) => {
                let _ = writeln!(out, "{pad}block {}", cfg.name(*b));
            }
            Region::Edge { from, to } => {
                let _ = writeln!(out, "{pad}edge {} -> {}", cfg.name(*from), cfg.name(*to));
            }
            Region::If { cond, then_, else_ } => {
                let _ = writeln!(out, "{pad}if {} {{", cond_text(cfg, cond));
                regions_text(cfg, tree, *then_, indent + 1, out);
                if !else_.is_empty() {
                    let _ = writeln!(out, "{pad}}} else {{");
                    regions_text(cfg, tree, *else_, indent + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Region::Loop { body } => {
                let _ = writeln!(out, "{pad}loop {{");
                regions_text(cfg, tree, *body, indent + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Region::Switch { selector, arms } => {
                let _ = writeln!(out, "{pad}switch {} {{", cfg.name(*selector));
                for a in tree.arms(*arms) {
                    let mut labels: Vec<String> =
                        a.literals.iter().map(|l| format!("case {l}")).collect();
                    if a.default {
                        labels.push("default".into());
                    }
                    let _ = writeln!(out, "{pad}{}:", labels.join(" "));
                    regions_text(cfg, tree, a.body, indent + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Region::Break => {
                let _ = writeln!(out, "{pad}break");
            }
            Region::Continue => {
                let _ = writeln!(out, "{pad}continue");
            }
            Region::SetVar { var, value } => {
                let _ = writeln!(out, "{pad}v{} = {value}", var.0);
            }
            Region::Return { block } => {
                let _ = writeln!(out, "{pad}return ({})", cfg.name(*block));
            }
            Region::Kill { block } => {
                let _ = writeln!(out, "{pad}kill ({})", cfg.name(*block));
            }
            Region::Unreachable => {
                let _ = writeln!(out, "{pad}unreachable");
            }
        }
    }
}

/// Prints only the region tree, one construct per line, indented by nesting.
pub fn region_text(cfg: &Cfg, structured: &Structured) -> String {
    let mut out = String::new();
    regions_text(cfg, structured, structured.body, 0, &mut out);
    out
}

/// Prints the CFG (one line per block: terminator, merge instruction, immediate dominator and
/// post-dominator, innermost loop) followed by the region tree.
pub fn to_text(cfg: &Cfg, analysis: &Analysis, structured: &Structured) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "blocks: {}", cfg.len());
    for b in cfg.blocks() {
        let d = cfg.block(b);
        let _ = write!(
            out,
            "{}: {}",
            cfg.name(b),
            terminator_text(cfg, &d.terminator)
        );
        match d.merge {
            Merge::None => {}
            Merge::Selection { merge } => {
                let _ = write!(out, " [selection merge {}]", cfg.name(merge));
            }
            Merge::Loop {
                merge,
                continue_target,
            } => {
                let _ = write!(
                    out,
                    " [loop merge {} continue {}]",
                    cfg.name(merge),
                    cfg.name(continue_target)
                );
            }
        }
        let opt = |x: Option<BlockIdx>| x.map_or("-".to_string(), |x| cfg.name(x));
        let _ = write!(
            out,
            " idom={} ipdom={}",
            opt(analysis.dominators.idom(b)),
            opt(analysis.post_dominators.idom(b))
        );
        if let Some(l) = analysis
            .loops
            .innermost(b)
            .and_then(|l| analysis.loops.get(l))
        {
            let _ = write!(out, " loop={}", cfg.name(l.header));
            if l.is_irreducible() {
                out.push_str("(irreducible)");
            }
        }
        if d.has_phis {
            out.push_str(" phis");
        }
        if !analysis.reachable[b.index()] {
            out.push_str(" unreachable");
        }
        out.push('\n');
    }
    let strategy = match structured.strategy {
        Strategy::Merges => "merges",
        Strategy::General => "general",
    };
    let _ = write!(
        out,
        "regions ({strategy}, {} variables)",
        structured.num_vars
    );
    if let Some(why) = &structured.fallback_reason {
        let _ = write!(out, " after falling back: {why}");
    }
    out.push('\n');
    regions_text(cfg, structured, structured.body, 1, &mut out);
    out
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Graphviz `digraph` of the CFG: branch edges solid (back edges bold red), merge edges dashed
/// blue, continue edges dotted green; loops are clusters.
pub fn to_dot(cfg: &Cfg, analysis: &Analysis) -> String {
    let mut out = String::from("digraph cfg {\n  node [shape=box fontname=monospace];\n");
    // One cluster per loop, nested as the forest is: a depth-first walk of the loop tree
    // (iterative; closing a cluster is a stack entry of its own).
    let loops = analysis.loops.loops();
    let mut emitted = vec![false; cfg.len()];
    let node_line = |b: BlockIdx, out: &mut String| {
        let d = cfg.block(b);
        // `\n` is Graphviz's line break; the parts are escaped before joining.
        let mut label = format!(
            "{}\\n{}",
            dot_escape(&cfg.name(b)),
            dot_escape(&terminator_text(cfg, &d.terminator))
        );
        if !analysis.reachable[b.index()] {
            label.push_str("\\n(unreachable)");
        }
        let _ = writeln!(out, "  n{} [label=\"{label}\"];", b.0);
    };
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); loops.len()];
    let mut roots = Vec::new();
    for (i, l) in loops.iter().enumerate() {
        match l.parent.and_then(|p| kids.get_mut(p.0 as usize)) {
            Some(k) => k.push(i),
            None => roots.push(i),
        }
    }
    // `Some(i)`: open loop i; `None`: close the innermost open cluster.
    let mut stack: Vec<Option<usize>> = roots.iter().rev().map(|&r| Some(r)).collect();
    while let Some(item) = stack.pop() {
        let Some(i) = item else {
            out.push_str("  }\n");
            continue;
        };
        let l = &loops[i];
        let _ = writeln!(
            out,
            "  subgraph cluster_loop{i} {{\n  label=\"loop {}{}\";",
            dot_escape(&cfg.name(l.header)),
            if l.is_irreducible() {
                " (irreducible)"
            } else {
                ""
            }
        );
        for &b in &l.blocks {
            if analysis.loops.innermost(b).map(|x| x.0 as usize) == Some(i) {
                node_line(b, &mut out);
                emitted[b.index()] = true;
            }
        }
        stack.push(None);
        stack.extend(kids[i].iter().rev().map(|&k| Some(k)));
    }
    for b in cfg.blocks() {
        if !emitted[b.index()] {
            node_line(b, &mut out);
        }
    }
    for b in cfg.blocks() {
        for &s in cfg.succs(b) {
            let style = if analysis.loops.is_back_edge(b, s) {
                " [color=red penwidth=2]"
            } else {
                ""
            };
            let _ = writeln!(out, "  n{} -> n{}{style};", b.0, s.0);
        }
        match cfg.block(b).merge {
            Merge::None => {}
            Merge::Selection { merge } => {
                let _ = writeln!(out, "  n{} -> n{} [style=dashed color=blue];", b.0, merge.0);
            }
            Merge::Loop {
                merge,
                continue_target,
            } => {
                let _ = writeln!(out, "  n{} -> n{} [style=dashed color=blue];", b.0, merge.0);
                let _ = writeln!(
                    out,
                    "  n{} -> n{} [style=dotted color=darkgreen];",
                    b.0, continue_target.0
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::BlockData;

    /// Two nested loops and a sibling loop (0 → 1 ⇄ {2 ⇄ 3}, 1 → 4 ⇄ 4, 4 → 5): each block
    /// is written at the cluster depth of its innermost loop (outer {1,2,3}, inner {2,3},
    /// sibling {4}, worked out by hand).
    #[test]
    fn dot_nests_loop_clusters() {
        let br = |t| BlockData::new(Terminator::Branch(BlockIdx(t)));
        let cond = |t, f| {
            BlockData::new(Terminator::BranchConditional {
                true_target: BlockIdx(t),
                false_target: BlockIdx(f),
            })
        };
        let cfg = Cfg::new(vec![
            br(1),
            cond(2, 4),
            br(3),
            cond(2, 1),
            cond(4, 5),
            BlockData::new(Terminator::Return),
        ])
        .unwrap();
        let a = Analysis::new(&cfg).unwrap();
        let dot = to_dot(&cfg, &a);
        let lines: Vec<&str> = dot.lines().map(str::trim).collect();
        let pos = |needle: &str| lines.iter().position(|l| l.starts_with(needle)).unwrap();
        // A cluster's header line is followed by its label line.
        let outer = pos("label=\"loop b1\"");
        let inner = pos("label=\"loop b2\"");
        let sibling = pos("label=\"loop b4\"");
        let depth_at = |line: usize| {
            lines[..line]
                .iter()
                .map(|l| i32::from(l.starts_with("subgraph")) - i32::from(*l == "}"))
                .sum::<i32>()
        };
        assert_eq!(depth_at(outer), 1, "{dot}");
        assert_eq!(depth_at(inner), 2, "{dot}");
        assert_eq!(depth_at(sibling), 1, "{dot}");
        assert!(outer < pos("n1 [") && depth_at(pos("n1 [")) == 1);
        assert!(inner < pos("n2 [") && depth_at(pos("n2 [")) == 2 && depth_at(pos("n3 [")) == 2);
        assert!(sibling < pos("n4 [") && depth_at(pos("n4 [")) == 1);
        assert_eq!(depth_at(pos("n0 [")), 0);
        assert_eq!(depth_at(pos("n5 [")), 0);
        assert!(dot.contains("n4 -> n4 [color=red penwidth=2];"));
        assert!(dot.ends_with("}\n"));
        // Graphviz line breaks stay single-backslash escapes.
        assert!(dot.contains("n5 [label=\"b5\\nOpReturn\"];"), "{dot}");
    }
}
