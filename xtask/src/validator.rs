//! The validator stage of `cargo xtask conformance`: spv-validate's verdicts against
//! spirv-val 2025.5's.
//!
//! * Every module of `../shared/corpus`, in its natural target environment, against the verdict
//!   the manifest records for spirv-val 2025.5 (goal: all agree; any disagreement fails).
//! * Every committed test shader, against spirv-val run now.
//! * Seeded structural mutants of the valid corpus modules (`spv_validate::mutate`), against
//!   spirv-val run on each (goal: at least 97 % agree). `SPV2IL_MUTANTS` sets how many
//!   (default 20,000); 0 skips the mutants.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use spv_validate::{TargetEnv, mutate, verdict, verdict_words};

use crate::corpus::{CorpusEntry, read_manifest};
use crate::shaders::test_shaders;
use crate::tools::spirv_tool;

/// The agreement the mutant suite must reach, in percent.
const MUTANT_AGREEMENT_GOAL: f64 = 97.0;

/// Mutants built when `SPV2IL_MUTANTS` is not set.
const DEFAULT_MUTANTS: usize = 20_000;

/// Runs the stage; `corpus` is `None` when the corpus is absent.
pub fn run(corpus: Option<&Path>) -> Result<(), String> {
    let spirv_val = spirv_tool("spirv-val")?;
    let mut failures = Vec::new();

    let shaders = test_shaders()?;
    let mut shader_disagreements = Vec::new();
    for shader in &shaders {
        let env: TargetEnv = shader
            .target_env
            .parse()
            .map_err(|e| format!("{}: {e}", shader.source.display()))?;
        let bytes =
            std::fs::read(&shader.spv).map_err(|e| format!("{}: {e}", shader.spv.display()))?;
        let ours = verdict(&bytes, env);
        let theirs = spirv_val_accepts(&spirv_val, &shader.target_env, &shader.spv)?;
        if ours != theirs {
            shader_disagreements.push(format!(
                "{} (spv-validate {ours}, spirv-val {theirs})",
                shader.spv.display()
            ));
        }
    }
    println!(
        "validator: agrees with spirv-val 2025.5 on {}/{} test shaders",
        shaders.len() - shader_disagreements.len(),
        shaders.len()
    );
    failures.extend(shader_disagreements);

    let Some(root) = corpus else {
        println!("validator: ../shared/corpus is absent; corpus and mutant agreement skipped");
        return finish(failures);
    };
    let entries = read_manifest(root)?;
    let mut corpus_disagreements = Vec::new();
    let mut valid: Vec<(&CorpusEntry, TargetEnv, Vec<u32>)> = Vec::new();
    for entry in &entries {
        let env: TargetEnv = entry
            .val_env
            .parse()
            .map_err(|e| format!("{}: {e}", entry.path.display()))?;
        let path = root.join(&entry.path);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ours = verdict(&bytes, env);
        if ours != entry.valid_2025 {
            corpus_disagreements.push(format!(
                "{} (spv-validate {ours}, spirv-val {})",
                entry.path.display(),
                entry.valid_2025
            ));
        }
        if entry.valid_2025
            && let Ok(module) = spv_reader::read(&bytes)
        {
            valid.push((entry, env, module.words().to_vec()));
        }
    }
    println!(
        "validator: agrees with spirv-val 2025.5 on {}/{} corpus modules",
        entries.len() - corpus_disagreements.len(),
        entries.len()
    );
    failures.extend(corpus_disagreements);

    let wanted = std::env::var("SPV2IL_MUTANTS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(DEFAULT_MUTANTS);
    if wanted > 0 && !valid.is_empty() {
        let per_module = wanted.div_ceil(valid.len());
        let scratch = std::env::temp_dir().join(format!("spv2il-mutants-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
        let (mut agree, mut total) = (0usize, 0usize);
        let mut classes: BTreeMap<String, usize> = BTreeMap::new();
        'modules: for (index, (entry, env, words)) in valid.iter().enumerate() {
            for (mutation, mutant) in mutate::mutants(words, index as u64 * 7919 + 1, per_module) {
                if total >= wanted {
                    break 'modules;
                }
                let path = scratch.join("mutant.spv");
                let bytes: Vec<u8> = mutant.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
                let theirs = spirv_val_accepts(&spirv_val, &entry.val_env, &path)?;
                let ours = verdict_words(&mutant, *env);
                total += 1;
                if ours == theirs {
                    agree += 1;
                } else {
                    let direction = if ours {
                        "we accept, spirv-val rejects"
                    } else {
                        "we reject, spirv-val accepts"
                    };
                    *classes
                        .entry(format!("{mutation}: {direction}"))
                        .or_default() += 1;
                }
            }
        }
        let _ = std::fs::remove_dir_all(&scratch);
        let rate = if total == 0 {
            100.0
        } else {
            100.0 * agree as f64 / total as f64
        };
        println!(
            "validator: agrees with spirv-val 2025.5 on {agree}/{total} mutants ({rate:.2} %)"
        );
        for (class, count) in &classes {
            println!("  {count:6}  {class}");
        }
        if rate < MUTANT_AGREEMENT_GOAL {
            failures.push(format!(
                "mutant agreement {rate:.2} % is below the {MUTANT_AGREEMENT_GOAL} % goal"
            ));
        }
    }
    finish(failures)
}

fn spirv_val_accepts(spirv_val: &Path, env: &str, path: &Path) -> Result<bool, String> {
    let status = Command::new(spirv_val)
        .args(["--target-env", env])
        .arg(path)
        .output()
        .map_err(|e| format!("cannot start spirv-val: {e}"))?
        .status;
    Ok(status.success())
}

fn finish(failures: Vec<String>) -> Result<(), String> {
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "validator disagreements:\n  {}",
            failures.join("\n  ")
        ))
    }
}
