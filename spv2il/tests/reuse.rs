//! Per-thread reuse is invisible in results. The reader, the validator, spv-cfg and the lowering
//! keep emptied buffers per thread between translations (ARCHITECTURE.md, "Per-thread reuse"),
//! so a translation on a thread that has translated other modules must equal the same
//! translation on a fresh thread: same IL text, same error. The test shaders of every kind
//! (small and large, accepted and refused) are run both ways.

use std::path::{Path, PathBuf};

/// Every `.spv` under `dir`, sorted.
fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/shaders is readable")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            spv_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}

/// The outcome of translating `bytes` for Southern Islands (the family that accepts the
/// most shaders): the IL text, or the error's message.
fn outcome(bytes: &[u8]) -> String {
    match spv2il::translate(bytes, &spv2il::Options::new(spv2il::Family::Si)) {
        Ok(translation) => translation.text(),
        Err(error) => format!("error: {error}"),
    }
}

#[test]
fn a_used_thread_translates_like_a_fresh_one() {
    let mut files = Vec::new();
    spv_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders"),
        &mut files,
    );
    let modules: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("shader is readable"))
        .collect();
    assert!(modules.len() > 50, "the test shaders are present");
    // Fresh: each module on a thread of its own.
    let fresh: Vec<String> = modules
        .iter()
        .map(|bytes| {
            std::thread::scope(|s| {
                s.spawn(|| outcome(bytes))
                    .join()
                    .expect("translation thread")
            })
        })
        .collect();
    // Used: all modules on one thread, in reverse order so that each module follows others of
    // different sizes than in the sorted order.
    let used: Vec<String> = std::thread::scope(|s| {
        s.spawn(|| modules.iter().rev().map(|b| outcome(b)).collect::<Vec<_>>())
            .join()
            .expect("translation thread")
    });
    for ((file, fresh), used) in files.iter().zip(&fresh).zip(used.iter().rev()) {
        assert_eq!(fresh, used, "{} differs on a used thread", file.display());
    }
    assert!(
        fresh.iter().any(|o| !o.starts_with("error:"))
            && fresh.iter().any(|o| o.starts_with("error:")),
        "both translations and refusals are covered"
    );
}
