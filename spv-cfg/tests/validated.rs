//! `Cfg::from_validated` gives the same CFG as `Cfg::from_function` for every function of
//! every module that validates: the spv2il test shaders and the real-world corpus
//! (`../shared/corpus` relative to the workspace root; skipped with a message when absent).
//! Same blocks (labels, terminators, merge instructions, phis), successors, predecessors and
//! reachability; and facts of another function are refused, never trusted.

mod common;

use common::spv_files;
use spv_cfg::Cfg;
use std::path::Path;

/// Compares the two constructors on every function of every valid module under `dir`;
/// returns how many functions were compared.
fn compare_under(dir: &Path) -> usize {
    let mut files = Vec::new();
    spv_files(dir, &mut files);
    assert!(!files.is_empty(), "no .spv files under {}", dir.display());
    let mut compared = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let Ok(module) = spv_reader::read(&bytes) else {
            continue;
        };
        let Ok(info) = spv_validate::validate(&module, &spv_validate::Options::default()) else {
            continue;
        };
        for f in module.functions() {
            let facts = info
                .function(f.id)
                .expect("the validator describes every function");
            if f.blocks.is_empty() {
                assert!(Cfg::from_validated(&module, f, facts).is_err());
                continue;
            }
            let at = format!("{} function {}", path.display(), f.id);
            // A valid function always makes a CFG (its checks are the validator's).
            let read = Cfg::from_function(&module, f).unwrap_or_else(|e| panic!("{at}: {e}"));
            let reused =
                Cfg::from_validated(&module, f, facts).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(reused.len(), read.len(), "{at}");
            for b in read.blocks() {
                assert_eq!(reused.block(b), read.block(b), "{at} block {b}");
                assert_eq!(reused.succs(b), read.succs(b), "{at} block {b}");
                assert_eq!(reused.preds(b), read.preds(b), "{at} block {b}");
            }
            assert_eq!(reused.reachable(), read.reachable(), "{at}");
            // The validator's reachability agrees too (it is what the structurizer may use).
            let facts_reachable: Vec<bool> = facts.blocks.iter().map(|b| b.reachable).collect();
            assert_eq!(facts_reachable, read.reachable(), "{at}");
            compared += 1;
        }
        // Another function's facts are refused (ids differ even where the shapes agree).
        if let [first, second, ..] = module.functions()
            && !first.blocks.is_empty()
        {
            let other = info.function(second.id).expect("described");
            assert!(Cfg::from_validated(&module, first, other).is_err());
        }
    }
    compared
}

#[test]
fn test_shaders_give_the_same_cfg() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spv2il/tests/shaders");
    let compared = compare_under(&dir);
    assert!(compared > 0, "no valid test shader under {}", dir.display());
}

#[test]
fn corpus_modules_give_the_same_cfg() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if !dir.is_dir() {
        eprintln!("skipping: corpus not found at {}", dir.display());
        return;
    }
    assert!(compare_under(&dir) > 0, "no valid corpus module");
}
