//! Shared by the integration tests that go over every test shader.

use std::path::{Path, PathBuf};

/// Every `.spv` under `dir`, depth first, in name order (appended to `out`).
pub fn shader_modules(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the test shader folder is readable")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            shader_modules(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}
