//! All per-function analyses in one place.

use crate::cfg::Cfg;
use crate::dom::DomTree;
use crate::error::CfgError;
use crate::limits::Budget;
use crate::loops::LoopForest;

/// The analyses of one function: plain and structural (post-)dominator trees, the loop
/// nesting forest and reachability.
///
/// Plain dominance is what block order (V-CFG-3) and SSA (V-SSA-2) rules use; structural
/// dominance and post-dominance, over branch, merge and continue edges, are what the
/// structured-control-flow rules use (SPIR-V §2.11, `spirv.md` §3.1 and §3.3).
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Dominators over branch edges.
    pub dominators: DomTree,
    /// Post-dominators over branch edges.
    pub post_dominators: DomTree,
    /// Dominators over structured control-flow edges.
    pub structural_dominators: DomTree,
    /// Post-dominators over structured control-flow edges.
    pub structural_post_dominators: DomTree,
    /// Loops over branch edges (reachable blocks only).
    pub loops: LoopForest,
    /// Per block: reachable from the entry along branch edges.
    pub reachable: Vec<bool>,
}

impl Analysis {
    /// Runs every analysis on `cfg` under one work budget.
    pub fn new(cfg: &Cfg) -> Result<Analysis, CfgError> {
        let mut budget = Budget::new();
        Ok(Analysis {
            dominators: DomTree::build(cfg, false, false, &mut budget)?,
            post_dominators: DomTree::build(cfg, true, false, &mut budget)?,
            structural_dominators: DomTree::build(cfg, false, true, &mut budget)?,
            structural_post_dominators: DomTree::build(cfg, true, true, &mut budget)?,
            loops: LoopForest::build(cfg, &mut budget)?,
            reachable: cfg.reachable(),
        })
    }
}
