//! Deep nesting and long chains: the structurizers either succeed or return
//! `CfgError::DepthLimit`, never overflow the stack (these tests run on the 2 MiB stack of a
//! test thread).

mod common;

use common::check_equivalent;
use spv_cfg::limits::MAX_REGION_DEPTH;
use spv_cfg::{BlockData, BlockIdx, Cfg, CfgError, Merge, Strategy, Terminator, structurize};

/// `n` nested selections: block i (0 ≤ i < n) branches to i + 1 or to its merge block
/// `2n - i`; block n branches to merge `n + 1`; merge block j (n < j < 2n) branches to j + 1;
/// block 2n returns. Every level is a real if/else nesting.
fn nested_ifs(n: u32) -> Cfg {
    let mut blocks = Vec::new();
    for i in 0..n {
        let mut d = BlockData::new(Terminator::BranchConditional {
            true_target: BlockIdx(i + 1),
            false_target: BlockIdx(2 * n - i),
        });
        d.merge = Merge::Selection {
            merge: BlockIdx(2 * n - i),
        };
        blocks.push(d);
    }
    blocks.push(BlockData::new(Terminator::Branch(BlockIdx(n + 1))));
    for j in n + 1..2 * n {
        let mut d = BlockData::new(Terminator::Branch(BlockIdx(j + 1)));
        d.has_phis = true;
        blocks.push(d);
    }
    blocks.push(BlockData::new(Terminator::Return));
    Cfg::new(blocks).unwrap()
}

#[test]
fn moderate_nesting_succeeds() {
    let cfg = nested_ifs(60);
    for strategy in [Strategy::Merges, Strategy::General] {
        let s = structurize(&cfg, strategy).unwrap();
        assert_eq!(s.strategy, strategy);
        assert!(s.stats().depth >= 60);
        check_equivalent(&cfg, &s, 1, 50, 500).unwrap();
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let cfg = nested_ifs(3 * MAX_REGION_DEPTH as u32);
    for strategy in [Strategy::Merges, Strategy::General] {
        assert_eq!(
            structurize(&cfg, strategy),
            Err(CfgError::DepthLimit {
                limit: MAX_REGION_DEPTH
            })
        );
    }
}

/// Nesting right at the limit either fits or is refused; the point is the stack.
#[test]
fn nesting_near_the_limit_does_not_overflow() {
    for n in [MAX_REGION_DEPTH as u32 / 2 - 5, MAX_REGION_DEPTH as u32 - 5] {
        let cfg = nested_ifs(n);
        for strategy in [Strategy::Merges, Strategy::General] {
            match structurize(&cfg, strategy) {
                Ok(s) => check_equivalent(&cfg, &s, 1, 3, 5000).unwrap(),
                Err(e) => assert_eq!(
                    e,
                    CfgError::DepthLimit {
                        limit: MAX_REGION_DEPTH
                    }
                ),
            }
        }
    }
}

/// Long sequences do not nest: 20,000 blocks alternating plain branches and
/// `if (c) return;` stay flat (no depth error, no recursion per block).
#[test]
fn long_chains_stay_flat() {
    let n = 20_000u32;
    let mut blocks = Vec::new();
    for i in 0..n {
        blocks.push(if i % 3 == 0 {
            BlockData::new(Terminator::BranchConditional {
                true_target: BlockIdx(i + 1),
                false_target: BlockIdx(i + 2),
            })
        } else if i % 3 == 1 {
            BlockData::new(Terminator::Branch(BlockIdx(i + 2)))
        } else {
            BlockData::new(Terminator::Return)
        });
    }
    blocks.push(BlockData::new(Terminator::Return));
    blocks.push(BlockData::new(Terminator::Return));
    let cfg = Cfg::new(blocks).unwrap();
    for strategy in [Strategy::Merges, Strategy::General] {
        let s = structurize(&cfg, strategy).unwrap();
        assert!(s.stats().depth <= 2, "depth {}", s.stats().depth);
        check_equivalent(&cfg, &s, 3, 5, 100_000).unwrap();
    }
}

/// 20,000 conditional exits to one shared block (LLVM's unified return block) need one
/// if/else level per exit without flags or duplication: the result is a tree within the
/// limit or `DepthLimit`, never a stack overflow.
#[test]
fn many_exits_to_one_block_are_bounded() {
    let n = 20_000u32;
    let mut blocks = Vec::new();
    for i in 0..n {
        blocks.push(BlockData::new(Terminator::BranchConditional {
            true_target: BlockIdx(i + 1),
            false_target: BlockIdx(n),
        }));
    }
    blocks.push(BlockData::new(Terminator::Return));
    let cfg = Cfg::new(blocks).unwrap();
    for strategy in [Strategy::Merges, Strategy::General] {
        assert_eq!(
            structurize(&cfg, strategy),
            Err(CfgError::DepthLimit {
                limit: MAX_REGION_DEPTH
            })
        );
    }
}
