//! Fuzz target `structurize`: the bytes describe a control-flow graph (block count, then per
//! block a terminator with its targets, a phi flag and an optional merge instruction, which may
//! be meaningless), so coverage guidance steers the graph shapes themselves: irreducible loops,
//! switches sharing targets, merges that do not describe the graph. Both strategies must give a
//! region tree or a limit error (never a panic, hang, invalid-input or internal error on a graph
//! `Cfg::new` accepted), and every tree must run exactly as the graph does: the same blocks and
//! phi edges, in the same order, for seeded branch decisions (the property tests' interpreters,
//! `tests/common`). The analysis and both printers must not fail either.
#![no_main]

#[path = "../../tests/common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use spv_cfg::{Analysis, BlockData, BlockIdx, Cfg, CfgError, Merge, Strategy, Terminator};

/// Largest graph the bytes can describe: enough for nested and irreducible shapes while each
/// input stays fast.
const MAX_BLOCKS: usize = 48;

/// Decision sequences each tree is run with.
const RUNS: u64 = 8;

/// The graph the bytes describe; missing bytes read as zero.
fn graph(data: &[u8]) -> Result<Cfg, CfgError> {
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next().unwrap_or(0);
    let n = 1 + usize::from(next()) % MAX_BLOCKS;
    // `n` is at most 48, so every target fits a `u32`.
    let target = |byte: u8| BlockIdx((usize::from(byte) % n) as u32);
    let mut blocks = Vec::with_capacity(n);
    for _ in 0..n {
        let terminator = match next() % 16 {
            0 => Terminator::Return,
            1 => Terminator::Kill,
            2 => Terminator::Unreachable,
            3..=7 => Terminator::Branch(target(next())),
            8..=13 => Terminator::BranchConditional {
                true_target: target(next()),
                false_target: target(next()),
            },
            _ => {
                let default = target(next());
                let cases = (0..=next() % 4)
                    .map(|_| (u64::from(next()), target(next())))
                    .collect();
                Terminator::Switch {
                    selector_bits: 32,
                    default,
                    cases,
                }
            }
        };
        let flags = next();
        let mut block = BlockData::new(terminator);
        block.has_phis = flags & 1 == 1;
        block.merge = match (flags >> 1) % 4 {
            2 => Merge::Selection {
                merge: target(next()),
            },
            3 => Merge::Loop {
                merge: target(next()),
                continue_target: target(next()),
            },
            _ => Merge::None,
        };
        blocks.push(block);
    }
    Cfg::new(blocks)
}

fuzz_target!(|data: &[u8]| {
    // Graphs `Cfg::new` refuses (a repeated switch literal) are its own checks' business.
    let Ok(cfg) = graph(data) else {
        return;
    };
    let analysis = Analysis::new(&cfg).expect("the analysis of an accepted graph");
    let _ = spv_cfg::to_dot(&cfg, &analysis);
    let seed = data
        .iter()
        .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let max_blocks = 64 + 8 * cfg.len();
    for strategy in [Strategy::Merges, Strategy::General] {
        match spv_cfg::structurize(&cfg, strategy) {
            Ok(tree) => {
                let _ = spv_cfg::to_text(&cfg, &analysis, &tree);
                if let Err(e) = common::check_equivalent(&cfg, &tree, seed, RUNS, max_blocks) {
                    panic!("{strategy:?}: the tree does not run as the graph: {e}\n{cfg:?}");
                }
            }
            Err(CfgError::WorkLimit { .. } | CfgError::DepthLimit { .. }) => {}
            Err(e) => panic!("{strategy:?}: {e}\n{cfg:?}"),
        }
    }
});
