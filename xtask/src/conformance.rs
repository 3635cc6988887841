//! `cargo xtask conformance`: the project measured against independent tools and real modules.
//!
//! Stages, each printing one summary line and failing the task when it falls short:
//! 1. spirv-val 2025.5 accepts every committed test shader (and rejects the ones marked
//!    `invalid:`), so the test inputs are what they claim to be;
//! 2. every module of `../shared/corpus` that the manifest marks valid is read by spv-reader
//!    without error (skipped with a message when the corpus is absent);
//! 3. `spv2il dis` (spv-reader's disassembler) prints what `spirv-dis --raw-id` 2025.5 prints for
//!    every corpus module and test shader, after normalising whitespace and float spellings;
//! 4. spv-validate's verdicts agree with spirv-val's on the test shaders, the corpus and seeded
//!    mutants (`validator.rs`);
//! 5. differential execution: our compute shaders and the corpus's run on lavapipe and, translated,
//!    in il-sim, with the same inputs and equal outputs (`differential.rs`).

use std::process::Command;

use crate::corpus::{corpus_root, read_manifest};
use crate::shaders::test_shaders;
use crate::tools::spirv_tool;

/// Runs every stage.
pub fn run() -> Result<(), String> {
    let mut failures = Vec::new();
    if let Err(e) = test_shaders_validate() {
        failures.push(e);
    }
    match corpus_root() {
        None => eprintln!(
            "conformance: ../shared/corpus is absent beside the workspace; corpus stages skipped"
        ),
        Some(root) => {
            if let Err(e) = corpus_reads(&root) {
                failures.push(e);
            }
        }
    }
    if let Err(e) = disassembly_matches(corpus_root().as_deref()) {
        failures.push(e);
    }
    if let Err(e) = crate::validator::run(corpus_root().as_deref()) {
        failures.push(e);
    }
    if let Err(e) = crate::differential::run() {
        failures.push(e);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn test_shaders_validate() -> Result<(), String> {
    let spirv_val = spirv_tool("spirv-val")?;
    let shaders = test_shaders()?;
    let mut wrong = Vec::new();
    for shader in &shaders {
        let output = Command::new(&spirv_val)
            .args(["--target-env", &shader.target_env])
            .arg(&shader.spv)
            .output()
            .map_err(|e| format!("cannot start spirv-val: {e}"))?;
        let accepted = output.status.success();
        match (&shader.invalid, accepted) {
            (None, false) => wrong.push(format!(
                "{}: spirv-val rejects it: {}",
                shader.spv.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            )),
            (Some(reason), true) => wrong.push(format!(
                "{}: marked invalid ({reason}) but spirv-val accepts it",
                shader.spv.display()
            )),
            _ => {}
        }
    }
    println!(
        "conformance: spirv-val 2025.5 agrees with {}/{} test shaders",
        shaders.len() - wrong.len(),
        shaders.len()
    );
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n"))
    }
}

fn corpus_reads(root: &std::path::Path) -> Result<(), String> {
    let entries = read_manifest(root)?;
    let valid: Vec<_> = entries.iter().filter(|e| e.valid_2025).collect();
    let mut failures = Vec::new();
    for entry in &valid {
        let path = root.join(&entry.path);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Err(e) = spv_reader::read(&bytes) {
            failures.push(format!("{}: {e}", entry.path.display()));
        }
    }
    println!(
        "conformance: spv-reader reads {}/{} valid corpus modules",
        valid.len() - failures.len(),
        valid.len()
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Stage 3: our disassembly against `spirv-dis --raw-id`, module by module.
fn disassembly_matches(corpus: Option<&std::path::Path>) -> Result<(), String> {
    let spirv_dis = spirv_tool("spirv-dis")?;
    let mut files: Vec<std::path::PathBuf> = test_shaders()?.into_iter().map(|s| s.spv).collect();
    if let Some(root) = corpus {
        files.extend(read_manifest(root)?.into_iter().map(|e| root.join(e.path)));
    }
    let mut mismatches = Vec::new();
    let mut compared = 0usize;
    for file in &files {
        let output = Command::new(&spirv_dis)
            .args(["--raw-id", "--no-color"])
            .arg(file)
            .output()
            .map_err(|e| format!("cannot start spirv-dis: {e}"))?;
        if !output.status.success() {
            // spirv-dis refuses the module too; the reader's own stage covers it.
            continue;
        }
        compared += 1;
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let ours = match spv_reader::read(&bytes) {
            Ok(module) => spv_reader::disassemble(&module),
            Err(e) => {
                mismatches.push(format!(
                    "{}: spirv-dis reads it, spv-reader does not: {e}",
                    file.display()
                ));
                continue;
            }
        };
        let theirs = String::from_utf8_lossy(&output.stdout);
        if spv_reader::dis::normalize_for_comparison(&ours)
            != spv_reader::dis::normalize_for_comparison(&theirs)
        {
            mismatches.push(format!(
                "{}: the disassembly differs from spirv-dis",
                file.display()
            ));
        }
    }
    println!(
        "conformance: disassembly equals spirv-dis --raw-id on {}/{} modules",
        compared - mismatches.len(),
        compared
    );
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(mismatches.join("\n"))
    }
}
