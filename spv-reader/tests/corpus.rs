//! Reads every module of the shared corpus (`../shared/corpus` from the workspace root) and
//! checks that each one reads and that its tables agree with its instructions. Skips with a
//! message when the corpus is absent.

use std::path::{Path, PathBuf};

use spv_reader::{Id, read};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("../shared/corpus")
}

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            spv_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_module_reads() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        eprintln!("skipped: no corpus at {}", dir.display());
        return;
    }
    let mut files = Vec::new();
    spv_files(&dir, &mut files);
    assert!(!files.is_empty(), "the corpus folder holds no .spv file");
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("corpus file is readable");
        match read(&bytes) {
            Ok(module) => {
                // Every result id resolves back to its defining instruction.
                for inst in module.instructions() {
                    if let Some(id) = inst.result_id() {
                        assert_eq!(module.def(id).map(|d| d.index()), Some(inst.index()));
                    }
                }
                // Every entry point names a function of the module.
                for ep in module.entry_points() {
                    assert!(module.function(ep.function).is_some(), "{}", path.display());
                }
                // Every function is found at its position by its id, and an id that is not a
                // function's (a type, a label) finds none: the binary search agrees with a scan.
                for (at, f) in module.functions().iter().enumerate() {
                    assert_eq!(module.function_index(f.id), Some(at), "{}", path.display());
                    assert_eq!(module.function(f.id).map(|g| g.def), Some(f.def));
                    assert_eq!(module.function_index(f.result_type), None);
                    if let Some(block) = f.blocks.first() {
                        assert_eq!(module.function_index(block.label), None);
                    }
                }
                assert!(module.def(Id(0)).is_none());
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "{} of {} corpus modules read",
        files.len() - failures.len(),
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} modules failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Prints the warnings the corpus produces (run with `--nocapture` to see them); asserts
/// that every warning points at an instruction of its module.
#[test]
fn corpus_warnings_are_located() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        eprintln!("skipped: no corpus at {}", dir.display());
        return;
    }
    let mut files = Vec::new();
    spv_files(&dir, &mut files);
    for path in &files {
        let bytes = std::fs::read(path).expect("corpus file is readable");
        let Ok(module) = read(&bytes) else { continue };
        for w in module.warnings() {
            let inst = module
                .inst(spv_reader::InstIndex(w.location.index))
                .expect("warning points at an instruction");
            assert_eq!(inst.location(), w.location);
            eprintln!("{}: {w}", path.display());
        }
    }
}
