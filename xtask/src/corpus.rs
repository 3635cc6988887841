//! The shared corpus of real SPIR-V modules (`../shared/corpus` beside the workspace) and its
//! manifest. Pipelines read it in place and never copy it into the project.

use std::path::PathBuf;

use crate::tools::project_root;

/// One row of `manifest.tsv`.
pub struct CorpusEntry {
    /// Path of the module relative to the corpus root.
    pub path: PathBuf,
    /// The module's natural target environment, as spirv-val spells it.
    pub val_env: String,
    /// Whether spirv-val 2025.5 accepts the module in its natural target environment.
    pub valid_2025: bool,
}

/// The corpus folder, if it is present beside the workspace.
pub fn corpus_root() -> Option<PathBuf> {
    let root = project_root().join("../shared/corpus");
    root.join("manifest.tsv").is_file().then_some(root)
}

/// Reads the manifest; columns are found by their header names so that new columns do not
/// break the pipelines.
pub fn read_manifest(root: &std::path::Path) -> Result<Vec<CorpusEntry>, String> {
    let manifest = root.join("manifest.tsv");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("manifest.tsv has no `{name}` column"))
    };
    let (path_col, env_col, valid_col) =
        (column("path")?, column("val_env")?, column("val2025_env")?);
    let mut entries = Vec::new();
    for (number, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |col: usize| {
            fields
                .get(col)
                .copied()
                .ok_or_else(|| format!("manifest.tsv line {}: too few columns", number + 2))
        };
        entries.push(CorpusEntry {
            path: PathBuf::from(field(path_col)?),
            val_env: field(env_col)?.to_string(),
            valid_2025: field(valid_col)? == "1",
        });
    }
    Ok(entries)
}
