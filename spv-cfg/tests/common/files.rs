//! Finding the `.spv` files under a folder, for the tests that run over every test module and
//! the corpus: shared by the integration tests (through `common`) and by the unit test of the
//! merge walk's direct path (`src/direct.rs`), which needs the crate's private items and so
//! cannot live among the integration tests.

use std::path::{Path, PathBuf};

/// Appends every `.spv` file under `dir` (recursively, in sorted order, build output in
/// `target` folders skipped) to `out`; a missing directory adds nothing.
pub fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if !p.ends_with("target") {
                spv_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "spv") {
            out.push(p);
        }
    }
}
