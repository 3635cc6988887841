//! `cargo xtask conformance`: the project measured against independent tools and real modules.
//!
//! Stages, each printing one summary line and failing the task when it falls short:
//! 1. spirv-val 2025.5 accepts every committed test shader (and rejects the ones marked
//!    `invalid:`), so the test inputs are what they claim to be;
//! 2. every module of `../shared/corpus` that the manifest marks valid is read by spv-reader
//!    without error (skipped with a message when the corpus is absent);
//! 3. differential execution: our compute shaders and the corpus's run on lavapipe and, translated,
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
