//! The side file each bench binary writes for `cargo xtask bench`.
//!
//! Criterion records times (`target/criterion/GROUP/ID/new/estimates.json`) and throughput, but
//! not how many modules a benchmark covered or why the others were left out. Each bench binary
//! therefore writes `REPORT_DIR/<bench>.json`:
//!
//! ```json
//! { "benchmarks": { "read/corpus": { "modules": 1100, "bytes": 5900000, "of": 1108 } },
//!   "notes": { ... free-form facts: error counts, sizes ... } }
//! ```
//!
//! The stage benchmark also writes `REPORT_DIR/<group>.list` for each goal benchmark: the paths of
//! the modules it covered, one per line, so the `stage` binary can replay exactly that set under
//! a profiler (`stage translate --list FILE`).
//!
//! `REPORT_DIR` is `$SPV2IL_BENCH_REPORT_DIR`, or `target/spv2il-bench` below the folder cargo runs
//! the bench in (this crate's root).

use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// The environment variable that overrides where reports go.
pub const REPORT_DIR_VAR: &str = "SPV2IL_BENCH_REPORT_DIR";

/// The folder the reports are written to.
pub fn report_dir() -> PathBuf {
    match std::env::var_os(REPORT_DIR_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from("target").join("spv2il-bench"),
    }
}

/// What one bench binary measured besides time.
#[derive(Default)]
pub struct Report {
    benchmarks: Map<String, Value>,
    notes: Map<String, Value>,
}

impl Report {
    /// An empty report.
    pub fn new() -> Report {
        Report::default()
    }

    /// Records that benchmark `id` (criterion's `group/function`) covers `modules` of the `of`
    /// modules of its set, `bytes` bytes of SPIR-V in all.
    pub fn benchmark(&mut self, id: &str, modules: usize, bytes: u64, of: usize) {
        self.benchmarks.insert(
            id.to_string(),
            json!({ "modules": modules, "bytes": bytes, "of": of }),
        );
    }

    /// Records a free-form fact under `key`.
    pub fn note(&mut self, key: &str, value: Value) {
        self.notes.insert(key.to_string(), value);
    }

    /// Writes the report as `REPORT_DIR/<name>.json`.
    pub fn write(&self, name: &str) -> std::io::Result<PathBuf> {
        let dir = report_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{name}.json"));
        let value = json!({ "benchmarks": self.benchmarks, "notes": self.notes });
        let text = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
        std::fs::write(&path, text)?;
        Ok(path)
    }
}

/// Writes `paths`, one per line, as `REPORT_DIR/<name>.list`.
pub fn write_list(name: &str, paths: &[&std::path::Path]) -> std::io::Result<PathBuf> {
    let dir = report_dir();
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{name}.list"));
    let mut text = String::new();
    for module in paths {
        text.push_str(&module.display().to_string());
        text.push('\n');
    }
    std::fs::write(&path, text)?;
    Ok(path)
}
