//! Property tests: on thousands of seeded random CFGs, walking the region tree visits exactly
//! the blocks and edges that walking the CFG visits, for random branch decisions.
//!
//! `SPV_CFG_RANDOM_SCALE=<n>` multiplies the number of graphs (default 1, a few seconds in a
//! debug build).

mod common;

use common::{Program, Rng, check_equivalent, random_cfg};
use spv_cfg::{LoopForest, Strategy, structurize};

fn scale() -> u64 {
    std::env::var("SPV_CFG_RANDOM_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Arbitrary graphs, general structurizer: reducible and irreducible alike.
#[test]
fn random_graphs_general() {
    let mut irreducible = 0;
    let (mut worst_growth, mut synthetic, mut blocks) = (0.0f64, 0usize, 0usize);
    for seed in 0..2000 * scale() {
        let mut rng = Rng::new(seed);
        let cfg = random_cfg(&mut rng, if seed % 10 == 0 { 60 } else { 16 }, false);
        if !LoopForest::new(&cfg).unwrap().is_reducible() {
            irreducible += 1;
        }
        let s = structurize(&cfg, Strategy::General).unwrap();
        assert_eq!(s.strategy, Strategy::General);
        if let Err(e) = check_equivalent(&cfg, &s, seed, 12, 150) {
            panic!("seed {seed}: {e}\n{cfg:#?}\n{s:#?}");
        }
        // Code growth: no block is duplicated (check_equivalent counts them), so what grows
        // is the number of synthetic nodes (variable assignments and tests).
        let st = s.stats();
        worst_growth = worst_growth.max(st.synthetic as f64 / st.blocks as f64);
        synthetic += st.synthetic;
        blocks += st.blocks;
    }
    // The generator must actually exercise irreducible control flow.
    assert!(irreducible > 200, "only {irreducible} irreducible graphs");
    eprintln!(
        "irreducible graphs: {irreducible}; synthetic nodes per block: worst {worst_growth:.2}, \
         overall {:.3}",
        synthetic as f64 / blocks as f64
    );
}

/// Arbitrary graphs with random merge instructions: the merge-driven structurizer must
/// either follow them or fall back, and be exact either way.
#[test]
fn random_graphs_with_garbage_merges() {
    let mut followed = 0;
    for seed in 0..1200 * scale() {
        let mut rng = Rng::new(seed ^ 0xABCD);
        let cfg = random_cfg(&mut rng, 14, true);
        let s = structurize(&cfg, Strategy::Merges).unwrap();
        if s.strategy == Strategy::Merges {
            followed += 1;
        }
        if let Err(e) = check_equivalent(&cfg, &s, seed, 8, 120) {
            panic!("seed {seed}: {e}\n{cfg:#?}\n{s:#?}");
        }
    }
    assert!(followed > 60, "merge walk succeeded only {followed} times");
}

/// Random structured programs (SPIR-V §2.11 shapes): the merge-driven structurizer follows
/// every one of them without falling back, and both structurizers are exact.
#[test]
fn random_structured_programs() {
    let (mut synthetic, mut blocks, mut worst) = (0usize, 0usize, 0.0f64);
    for seed in 0..1000 * scale() {
        let cfg = Program::generate(seed, 3 + (seed % 12) as u32);
        let s = structurize(&cfg, Strategy::Merges).unwrap();
        assert_eq!(
            s.strategy,
            Strategy::Merges,
            "seed {seed}: fell back: {:?}\n{cfg:#?}",
            s.fallback_reason
        );
        if let Err(e) = check_equivalent(&cfg, &s, seed, 10, 200) {
            panic!("seed {seed} (merges): {e}\n{cfg:#?}\n{s:#?}");
        }
        let st = s.stats();
        synthetic += st.synthetic;
        blocks += st.blocks;
        worst = worst.max(st.synthetic as f64 / st.blocks as f64);
        let g = structurize(&cfg, Strategy::General).unwrap();
        if let Err(e) = check_equivalent(&cfg, &g, seed, 10, 200) {
            panic!("seed {seed} (general): {e}\n{cfg:#?}\n{g:#?}");
        }
    }
    eprintln!(
        "structured programs (merges): synthetic nodes per block: worst {worst:.2}, overall {:.3}",
        synthetic as f64 / blocks as f64
    );
}
