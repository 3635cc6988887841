//! Verdict agreement with spirv-val 2025.5 over the shared corpus (`../shared/corpus`
//! relative to the workspace root): every module is validated in the environment its
//! manifest records (`val_env`) and must get the verdict spirv-val recorded (`val2025_env`,
//! 1 = valid). Skips with a message when the corpus is absent.

use std::path::PathBuf;

use spv_validate::{Options, TargetEnv, validate};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

#[test]
fn verdicts_agree_with_spirv_val_on_the_corpus() {
    let dir = corpus_dir();
    let Ok(manifest) = std::fs::read_to_string(dir.join("manifest.tsv")) else {
        eprintln!("skipped: no corpus at {}", dir.display());
        return;
    };
    let mut header = manifest.lines().next().unwrap_or("").split('\t');
    let col = |name: &str| header.clone().position(|h| h == name).unwrap();
    let (path_col, env_col, verdict_col) = (col("path"), col("val_env"), col("val2025_env"));
    let _ = header.next();
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let path = fields[path_col];
        let env: TargetEnv = fields[env_col].parse().unwrap();
        let expected = fields[verdict_col] == "1";
        let bytes = std::fs::read(dir.join(path)).unwrap();
        let result = spv_reader::read(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|m| {
                validate(&m, &Options::new(env))
                    .map(|_| ())
                    .map_err(|d| d.to_string())
            });
        checked += 1;
        if result.is_ok() != expected {
            let why = result.err().unwrap_or_else(|| "accepted".to_owned());
            disagreements.push(format!("{path} ({env}, spirv-val valid={expected}): {why}"));
        }
    }
    assert!(checked > 1000, "only {checked} modules in the manifest");
    assert!(
        disagreements.is_empty(),
        "{} of {checked} verdicts disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
