//! Every function of the real-world corpus (`../shared/corpus` relative to the workspace
//! root; skipped with a message when absent): the CFG adapter accepts what the reader
//! accepted or reports a located error, and both structurizers (following the merges, and
//! ignoring them) produce trees that replay the CFG exactly for random branch decisions.
//!
//! `SPV_CFG_CORPUS_RUNS=<n>` sets the number of random executions per function (default 3).

mod common;

use common::{Rng, check_equivalent, spv_files};
use spv_cfg::{Analysis, Cfg, Strategy, structurize};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// Every `.spv` file of the corpus, in path order; `None`, with a message, when the corpus is
/// absent.
fn corpus_files() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir();
    if !dir.is_dir() {
        eprintln!("skipping: corpus not found at {}", dir.display());
        return None;
    }
    let mut files = Vec::new();
    spv_files(&dir, &mut files);
    assert!(!files.is_empty(), "no .spv files under {}", dir.display());
    Some(files)
}

#[test]
fn corpus_functions_structurize_exactly() {
    let Some(files) = corpus_files() else {
        return;
    };
    let runs: u64 = std::env::var("SPV_CFG_CORPUS_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let (mut functions, mut adapter_errors, mut unreadable, mut fallbacks) = (0, 0, 0, 0);
    // Per strategy: worst synthetic nodes per block (and where), total synthetic, total blocks.
    let mut growth = [
        (0.0f64, String::new(), 0usize, 0usize),
        (0.0, String::new(), 0, 0),
    ];
    let mut deepest = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let Ok(module) = spv_reader::read(&bytes) else {
            unreadable += 1;
            continue;
        };
        for f in module.functions() {
            if f.blocks.is_empty() {
                continue;
            }
            let cfg = match Cfg::from_function(&module, f) {
                Ok(cfg) => cfg,
                Err(e) => {
                    // Invalid modules (the fuzz corpus) may be refused, but never by a panic.
                    let _ = e.to_string();
                    adapter_errors += 1;
                    continue;
                }
            };
            functions += 1;
            Analysis::new(&cfg).unwrap();
            let merged = structurize(&cfg, Strategy::Merges).unwrap();
            if merged.strategy != Strategy::Merges {
                fallbacks += 1;
                eprintln!(
                    "{} %{}: merges not followed: {:?}",
                    path.display(),
                    f.id.0,
                    merged.fallback_reason
                );
            }
            let general = structurize(&cfg, Strategy::General).unwrap();
            for (k, (name, s)) in [("merges", &merged), ("general", &general)]
                .into_iter()
                .enumerate()
            {
                if let Err(e) = check_equivalent(&cfg, s, u64::from(f.id.0), runs, 400) {
                    panic!("{} %{} ({name}): {e}", path.display(), f.id.0);
                }
                let st = s.stats();
                deepest = deepest.max(st.depth);
                let ratio = st.synthetic as f64 / st.blocks.max(1) as f64;
                let g = &mut growth[k];
                if ratio > g.0 {
                    g.0 = ratio;
                    g.1 = format!("{} %{}", path.display(), f.id.0);
                }
                g.2 += st.synthetic;
                g.3 += st.blocks;
            }
        }
    }
    eprintln!(
        "{} files ({unreadable} unreadable), {functions} functions, {adapter_errors} refused by \
         the adapter, {fallbacks} merge fallbacks; deepest tree: {deepest}",
        files.len()
    );
    for (name, g) in ["merges", "general"].iter().zip(&growth) {
        eprintln!(
            "{name}: synthetic nodes per block overall {:.3}, worst {:.2} in {}",
            g.2 as f64 / g.3.max(1) as f64,
            g.0,
            g.1
        );
    }
    assert!(functions > 1000, "only {functions} functions structurized");
}

/// Corpus modules with random words changed: whatever the reader still accepts, the adapter,
/// the analyses and both structurizers handle without panicking (errors are fine), and every
/// tree they do produce replays its CFG exactly.
#[test]
fn mutated_corpus_never_panics() {
    let Some(files) = corpus_files() else {
        return;
    };
    let mut rng = Rng::new(42);
    let (mut read, mut built) = (0, 0);
    for (i, path) in files.iter().enumerate().step_by(3) {
        let bytes = std::fs::read(path).unwrap();
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for _ in 0..4 {
            let mut w = words.clone();
            for _ in 0..1 + rng.below(3) {
                let at = 5 + rng.below(w.len() as u64 - 5) as usize;
                w[at] = match rng.below(3) {
                    0 => rng.next() as u32,
                    1 => w[at] ^ (1 << rng.below(32)),
                    _ => w[at].wrapping_add(1),
                };
            }
            let Ok(module) = spv_reader::read_words(&w) else {
                continue;
            };
            read += 1;
            for f in module.functions() {
                let Ok(cfg) = Cfg::from_function(&module, f) else {
                    continue;
                };
                built += 1;
                let _ = Analysis::new(&cfg);
                for strategy in [Strategy::Merges, Strategy::General] {
                    if let Ok(s) = structurize(&cfg, strategy) {
                        let seed = i as u64;
                        if let Err(e) = check_equivalent(&cfg, &s, seed, 2, 200) {
                            panic!("{} (mutated): {e}", path.display());
                        }
                    }
                }
            }
        }
    }
    eprintln!("mutants read: {read}, functions built: {built}");
    assert!(
        built > 100,
        "only {built} mutated functions reached the structurizer"
    );
}

/// Every structured tree of `module` (both strategies) as text, with the CFG's own debug form.
fn trees_of(module: &spv_reader::Module) -> Vec<String> {
    let mut trees = Vec::new();
    for f in module.functions().iter().filter(|f| !f.blocks.is_empty()) {
        let Ok(cfg) = Cfg::from_function(module, f) else {
            trees.push("refused".to_string());
            continue;
        };
        trees.push(format!("{cfg:?}"));
        for strategy in [Strategy::Merges, Strategy::General] {
            let text = structurize(&cfg, strategy)
                .map_or_else(|e| e.to_string(), |s| spv_cfg::region_text(&cfg, &s));
            trees.push(text);
        }
    }
    trees
}

/// The tables and buffers spv-cfg keeps per thread between functions change nothing: on a
/// thread that has already built and structured every function of the corpus, each module's
/// CFGs and trees equal those a fresh thread makes.
#[test]
fn reused_tables_give_the_trees_of_a_fresh_thread() {
    let Some(files) = corpus_files() else {
        return;
    };
    let modules: Vec<_> = files
        .iter()
        .filter_map(|p| spv_reader::read(&std::fs::read(p).unwrap()).ok())
        .collect();
    for module in &modules {
        trees_of(module);
    }
    let mut compared = 0;
    // Every 4th module keeps the test quick; the warm thread has seen all of them.
    for module in modules.iter().step_by(4) {
        let warm = trees_of(module);
        let fresh = std::thread::scope(|s| s.spawn(|| trees_of(module)).join().unwrap());
        assert_eq!(warm, fresh);
        compared += warm.len();
    }
    eprintln!("{compared} trees compared");
    assert!(compared > 100, "only {compared} trees compared");
}
