//! The entry point that picks a structurizer and lowers its labeled output.

use crate::cfg::{Cfg, Merge, Terminator};
use crate::direct::structurize_direct;
use crate::error::CfgError;
use crate::general::structurize_general;
use crate::lab::{lower_exits, spare_nodes};
use crate::limits::Budget;
use crate::merges::{Failure, structurize_merges};
use crate::region::{Region, Seq, Strategy, Structured, Var};

/// Turns the function described by `cfg` into a region tree.
///
/// With [`Strategy::Merges`] the tree follows the merge instructions; if they do not describe
/// the CFG (no merges, invalid structure, an unstructured Kernel function), the general
/// structurizer runs instead and [`Structured::fallback_reason`] says why. With
/// [`Strategy::General`] merge instructions are ignored. Either way the result is exact: it
/// executes the same blocks and takes the same edges as the CFG, for every branch decision.
///
/// Errors only on the limits of [`limits`](crate::limits) (and on internal errors).
pub fn structurize(cfg: &Cfg, strategy: Strategy) -> Result<Structured, CfgError> {
    structurize_within(cfg, strategy, &mut Budget::new())
}

fn structurize_within(
    cfg: &Cfg,
    strategy: Strategy,
    budget: &mut Budget,
) -> Result<Structured, CfgError> {
    let mut fallback_reason = None;
    if strategy == Strategy::Merges {
        if let Some(exit) = single_exit_block(cfg) {
            let (mut nodes, arms) = spare_nodes(2);
            nodes.extend([Region::Block(cfg.entry()), exit]);
            let body = Seq::new(0, 2);
            return Ok(Structured::new(
                (nodes, arms),
                body,
                0,
                Strategy::Merges,
                None,
            ));
        }
        // Most functions need no exit variable: their tree is built straight from the walk.
        let lists = match structurize_direct(cfg, budget, spare_nodes(tree_room(cfg))) {
            Ok((nodes, body, _)) => {
                return Ok(Structured::new(nodes, body, 0, Strategy::Merges, None));
            }
            Err(lists) => lists,
        };
        match structurize_merges(cfg, budget) {
            Ok(lab) => match lower_exits(lab, Var(0), budget, lists) {
                Ok((nodes, body, used)) => {
                    return Ok(Structured::new(
                        nodes,
                        body,
                        u32::from(used),
                        Strategy::Merges,
                        None,
                    ));
                }
                Err(CfgError::Internal(why)) => fallback_reason = Some(why.to_string()),
                Err(e) => return Err(e),
            },
            Err(fail) => match *fail.0 {
                Failure::Unstructured(why) => fallback_reason = Some(why),
                // Following the merges of an unstructured function can nest arbitrarily deep
                // before the walk notices that the merges do not fit; the general structurizer
                // may still succeed.
                Failure::Error(e @ CfgError::DepthLimit { .. }) => {
                    fallback_reason = Some(e.to_string());
                }
                Failure::Error(e) => return Err(e),
            },
        }
    }
    let (lab, dispatch_vars) = structurize_general(cfg, budget)?;
    let lists = spare_nodes(tree_room(cfg));
    let (nodes, body, used) = lower_exits(lab, Var(dispatch_vars), budget, lists)?;
    Ok(Structured::new(
        nodes,
        body,
        dispatch_vars + u32::from(used),
        Strategy::General,
        fallback_reason,
    ))
}

/// The room a tree's node list starts with for `cfg`: trees of the corpus hold about two
/// regions per block (the block and an edge, a branch or a jump), so most are built without
/// growing the list.
fn tree_room(cfg: &Cfg) -> usize {
    2 * cfg.len() + 2
}

/// For a function that is one block leaving the function (many called helpers are), the
/// exit region that follows the block: the body is the block, then its exit. This is what the
/// merge walk and the exit lowering make of such a function (the block without a merge
/// instruction is emitted, then its terminator; nothing jumps, so no label or variable is
/// made), built without their per-call set-up.
fn single_exit_block(cfg: &Cfg) -> Option<Region> {
    if cfg.len() != 1 {
        return None;
    }
    let block = cfg.entry();
    let entry = cfg.block(block);
    let exit = match entry.terminator {
        Terminator::Return | Terminator::ReturnValue => Region::Return { block },
        Terminator::Kill | Terminator::TerminateInvocation | Terminator::OtherExit { .. } => {
            Region::Kill { block }
        }
        Terminator::Unreachable => Region::Unreachable,
        Terminator::Branch(_)
        | Terminator::BranchConditional { .. }
        | Terminator::Switch { .. } => {
            return None;
        }
    };
    (entry.merge == Merge::None).then_some(exit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{BlockData, BlockIdx, Terminator};

    /// The single-block shortcut gives what the merge walk and the exit lowering give for the
    /// same function, for every kind of exit, and declines blocks that branch or carry a merge
    /// instruction.
    #[test]
    fn single_exit_block_matches_the_walk() {
        let exits = [
            Terminator::Return,
            Terminator::ReturnValue,
            Terminator::Kill,
            Terminator::TerminateInvocation,
            Terminator::OtherExit { opcode: 5380 },
            Terminator::Unreachable,
        ];
        for terminator in exits {
            let cfg = Cfg::new(vec![BlockData::new(terminator.clone())]).unwrap();
            let exit = single_exit_block(&cfg).expect("one exiting block");
            let lab = structurize_merges(&cfg, &mut Budget::new()).ok().unwrap();
            let lists = Default::default();
            let (nodes, body, used) = lower_exits(lab, Var(0), &mut Budget::new(), lists).unwrap();
            let walked = Structured::new(nodes, body, 0, Strategy::Merges, None);
            assert_eq!(
                walked.regions(walked.body),
                [Region::Block(BlockIdx(0)), exit],
                "{terminator:?}"
            );
            assert!(!used);
        }
        let looping = Cfg::new(vec![BlockData::new(Terminator::Branch(BlockIdx(0)))]).unwrap();
        assert_eq!(single_exit_block(&looping), None);
        let two = Cfg::new(vec![
            BlockData::new(Terminator::Branch(BlockIdx(1))),
            BlockData::new(Terminator::Return),
        ])
        .unwrap();
        assert_eq!(single_exit_block(&two), None);
    }

    /// Recycling a tree's lists does not change the trees built from them: a function
    /// structurized again after recycling gives the same tree as before.
    #[test]
    fn recycled_lists_give_the_same_tree() {
        // b0: if (b0) { b1 } else { b2 }; b3 loops back to b0's successor b4 until it exits.
        let cfg = Cfg::new(vec![
            BlockData::new(Terminator::BranchConditional {
                true_target: BlockIdx(1),
                false_target: BlockIdx(2),
            }),
            BlockData::new(Terminator::Branch(BlockIdx(3))),
            BlockData::new(Terminator::Branch(BlockIdx(3))),
            BlockData::new(Terminator::BranchConditional {
                true_target: BlockIdx(4),
                false_target: BlockIdx(3),
            }),
            BlockData::new(Terminator::Return),
        ])
        .unwrap();
        let first = structurize(&cfg, Strategy::Merges).unwrap();
        let again = first.clone();
        first.recycle();
        for _ in 0..3 {
            let tree = structurize(&cfg, Strategy::Merges).unwrap();
            assert_eq!(tree, again);
            tree.recycle();
        }
    }

    /// A chain of 200 diamonds needs far more than 50 work units: both strategies stop with
    /// `WorkLimit` (naming the budget's own limit) instead of running on.
    #[test]
    fn work_limit_is_an_error() {
        let mut blocks = Vec::new();
        for i in 0..200u32 {
            let base = 3 * i;
            blocks.push(BlockData::new(Terminator::BranchConditional {
                true_target: BlockIdx(base + 1),
                false_target: BlockIdx(base + 2),
            }));
            blocks.push(BlockData::new(Terminator::Branch(BlockIdx(base + 3))));
            blocks.push(BlockData::new(Terminator::Branch(BlockIdx(base + 3))));
        }
        blocks.push(BlockData::new(Terminator::Return));
        let cfg = Cfg::new(blocks).unwrap();
        for strategy in [Strategy::Merges, Strategy::General] {
            assert_eq!(
                structurize_within(&cfg, strategy, &mut Budget::with_limit(50)),
                Err(CfgError::WorkLimit { limit: 50 })
            );
            assert!(structurize_within(&cfg, strategy, &mut Budget::new()).is_ok());
        }
    }
}
