//! The real modules the stage benchmarks run over.
//!
//! Two sets: `corpus`, every `.spv` below `../shared/corpus` (relative to the workspace root; the
//! set is absent when that folder is), and `shaders`, the workspace's own committed test shaders
//! (`*/tests/shaders/**/*.spv`). Files are sorted by path so every run sees the same order.

use std::path::{Path, PathBuf};

/// One SPIR-V module and where it came from.
pub struct Input {
    /// Path relative to the root of its set.
    pub name: String,
    /// Where the file was read from.
    pub path: PathBuf,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// A named list of modules.
pub struct InputSet {
    /// `corpus` or `shaders`.
    pub name: &'static str,
    /// The modules, sorted by name.
    pub inputs: Vec<Input>,
}

/// The workspace root: the parent of this crate's folder.
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(Path::to_path_buf).unwrap_or(here)
}

/// The shared corpus folder, when it is present beside the workspace.
pub fn corpus_root() -> Option<PathBuf> {
    let root = workspace_root().join("../shared/corpus");
    root.is_dir().then_some(root)
}

/// Every set that is present: the corpus (unless absent) and the workspace's test shaders.
pub fn input_sets() -> std::io::Result<Vec<InputSet>> {
    let mut sets = Vec::new();
    match corpus_root() {
        Some(root) => sets.push(InputSet {
            name: "corpus",
            inputs: load_all(&root, &spv_files_below(&root)?)?,
        }),
        None => eprintln!("spv2il-bench: ../shared/corpus is absent; benchmarking without it"),
    }
    let root = workspace_root();
    let mut shader_files = Vec::new();
    for member in sorted_entries(&root)? {
        let shaders = member.join("tests").join("shaders");
        if shaders.is_dir() {
            shader_files.extend(spv_files_below(&shaders)?);
        }
    }
    sets.push(InputSet {
        name: "shaders",
        inputs: load_all(&root, &shader_files)?,
    });
    Ok(sets)
}

/// Reads `files`, naming each by its path relative to `root`.
fn load_all(root: &Path, files: &[PathBuf]) -> std::io::Result<Vec<Input>> {
    files
        .iter()
        .map(|path| {
            Ok(Input {
                name: path
                    .strip_prefix(root)
                    .unwrap_or(path)
                    .display()
                    .to_string(),
                bytes: std::fs::read(path)?,
                path: path.clone(),
            })
        })
        .collect()
}

/// Every `*.spv` file below `dir`, sorted.
pub fn spv_files_below(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for path in sorted_entries(&folder)? {
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "spv") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The entries of `dir`, sorted by path.
fn sorted_entries(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut entries = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()?;
    entries.sort();
    Ok(entries)
}
