//! `cargo xtask tidy` and the `tidy` test: repository rules that code review would otherwise
//! have to remember.
//!
//! * The dependency arrows of ARCHITECTURE.md, read from `cargo metadata`: `il-*` crates know
//!   nothing of SPIR-V, `spv-*` crates know nothing of IL, a crate depends only on crates earlier
//!   in the pipeline, nothing depends on `xtask` or `spv2il`, and only spv-reader names rspirv.
//! * Every `.rs` file opens with a `//!` overview.
//! * No test is `#[ignore]`d and none is `#[should_panic]`: a test asserts an outcome.
//! * Every workspace member inherits the workspace lints (xtask repeats them with unsafe code
//!   denied rather than forbidden), and only xtask's Vulkan runner allows unsafe code.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools::{cargo_path, project_root};

/// One dependency edge of the workspace graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The depending crate.
    pub from: String,
    /// The crate depended on.
    pub to: String,
    /// Whether this is a dev-dependency (tests and benches only).
    pub dev: bool,
}

/// Where a workspace crate sits in the pipeline of DESIGN.md.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    /// Reads and analyses SPIR-V.
    Spirv,
    /// Models, writes, reads or runs AMD IL.
    Il,
    /// Joins the two sides (spv2il) or drives everything (xtask).
    Both,
}

/// The side and the rank of a workspace crate: a crate may depend only on crates of its own
/// side (or either side, for `Both`) with a lower rank. `None` for crates outside the workspace.
fn place(name: &str) -> Option<(Side, u32)> {
    Some(match name {
        "spv-reader" => (Side::Spirv, 0),
        "spv-validate" => (Side::Spirv, 1),
        "spv-cfg" => (Side::Spirv, 2),
        "il-model" => (Side::Il, 0),
        "il-writer" | "il-reader" | "il-sim" => (Side::Il, 1),
        "spv2il" => (Side::Both, 10),
        "xtask" => (Side::Both, 20),
        _ => return None,
    })
}

/// Checks the dependency rules; returns one message per broken edge.
///
/// Dev-dependencies may link crates of equal rank on the same side (a reader's round-trip
/// tests use the writer), but never cross the SPIR-V/IL line, never name rspirv outside
/// spv-reader and never point at xtask.
pub fn check_edges(edges: &[Edge]) -> Vec<String> {
    let mut problems = Vec::new();
    for edge in edges {
        let what = format!(
            "{} -> {}{}",
            edge.from,
            edge.to,
            if edge.dev { " (dev)" } else { "" }
        );
        if edge.to == "rspirv" || edge.to == "spirv" {
            if edge.from != "spv-reader" {
                problems.push(format!("{what}: only spv-reader may name {}", edge.to));
            }
            continue;
        }
        let (Some((from_side, from_rank)), Some((to_side, to_rank))) =
            (place(&edge.from), place(&edge.to))
        else {
            continue;
        };
        let sides_ok = from_side == Side::Both || from_side == to_side;
        if edge.to == "xtask" || (edge.to == "spv2il" && edge.from != "xtask") {
            problems.push(format!("{what}: nothing may depend on {}", edge.to));
        } else if !sides_ok {
            problems.push(format!("{what}: crosses the SPIR-V/IL line"));
        } else if to_rank > from_rank || (to_rank == from_rank && !edge.dev) {
            problems.push(format!("{what}: points forward in the pipeline"));
        }
    }
    problems
}

/// The workspace's dependency edges, from `cargo metadata`.
fn workspace_edges() -> Result<Vec<Edge>, String> {
    let output = Command::new(cargo_path())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(project_root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed bad JSON: {e}"))?;
    let mut edges = Vec::new();
    let packages = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?;
    for package in packages {
        let from = package["name"].as_str().unwrap_or_default().to_string();
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            edges.push(Edge {
                from: from.clone(),
                to: dependency["name"].as_str().unwrap_or_default().to_string(),
                dev: dependency["kind"].as_str() == Some("dev"),
            });
        }
    }
    Ok(edges)
}

/// Every `.rs` file of the repository outside build output.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Source-text rules for one file; returns one message per problem.
pub fn check_source(path: &Path, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    if !first.starts_with("//!") {
        problems.push(format!(
            "{}: does not open with a `//!` overview",
            path.display()
        ));
    }
    // The attribute names are split so this file does not match its own rule.
    let forbidden = [concat!("#[", "ignore"), concat!("#[", "should_panic")];
    for (number, line) in text.lines().enumerate() {
        if forbidden.iter().any(|f| line.trim_start().starts_with(f)) {
            problems.push(format!(
                "{}:{}: tests must not be ignored or expect panics",
                path.display(),
                number + 1
            ));
        }
    }
    problems
}

/// Every member manifest must say `[lints] workspace = true`, except xtask, which repeats the
/// workspace lints with `unsafe_code = "deny"` (its Vulkan runner needs ash).
fn check_manifests(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return problems;
    };
    let workspace_lints = std::fs::read_to_string(root.join("Cargo.toml"))
        .ok()
        .and_then(|text| lint_lines(&text, "[workspace.lints.rust]"))
        .unwrap_or_default();
    for entry in entries.flatten() {
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        if entry.file_name() == "xtask" {
            let expected: Vec<String> = workspace_lints
                .iter()
                .map(|l| l.replace("unsafe_code = \"forbid\"", "unsafe_code = \"deny\""))
                .collect();
            if lint_lines(&text, "[lints.rust]").unwrap_or_default() != expected {
                problems.push(format!(
                    "{}: [lints.rust] must equal the workspace lints with unsafe_code = \"deny\"",
                    manifest.display()
                ));
            }
        } else if !text.contains("[lints]\nworkspace = true") && text.contains("[package]") {
            problems.push(format!(
                "{}: lacks `[lints] workspace = true`",
                manifest.display()
            ));
        }
    }
    problems
}

/// The `key = value` lines of a TOML table, comments and blank lines left out.
fn lint_lines(text: &str, table: &str) -> Option<Vec<String>> {
    let start = text.find(table)? + table.len();
    let body = &text[start..];
    let end = body.find("\n[").unwrap_or(body.len());
    Some(
        body[..end]
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect(),
    )
}

/// Only xtask's Vulkan runner may opt in to unsafe code.
fn check_unsafe_opt_in(path: &Path, text: &str) -> Vec<String> {
    let attribute = concat!("allow(", "unsafe_code)");
    if text.contains(attribute) && path != Path::new("xtask/src/differential.rs") {
        vec![format!(
            "{}: only xtask's Vulkan runner may allow unsafe code",
            path.display()
        )]
    } else {
        Vec::new()
    }
}

/// All tidy checks; `Err` lists every problem found.
pub fn run() -> Result<(), String> {
    let root = project_root();
    let mut problems = check_edges(&workspace_edges()?);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let relative = file.strip_prefix(&root).unwrap_or(file);
        problems.extend(check_source(relative, &text));
        problems.extend(check_unsafe_opt_in(relative, &text));
    }
    problems.extend(check_manifests(&root));
    if problems.is_empty() {
        eprintln!(
            "tidy: {} Rust files and the dependency graph follow the rules",
            files.len()
        );
        Ok(())
    } else {
        Err(format!(
            "tidy found {} problems:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: &str, to: &str, dev: bool) -> Edge {
        Edge {
            from: from.into(),
            to: to.into(),
            dev,
        }
    }

    #[test]
    fn tidy() {
        if let Err(problems) = run() {
            panic!("{problems}");
        }
    }

    #[test]
    fn the_pipeline_edges_are_allowed() {
        let edges = [
            edge("spv-reader", "rspirv", false),
            edge("spv-validate", "spv-reader", false),
            edge("spv-cfg", "spv-reader", false),
            edge("il-writer", "il-model", false),
            edge("il-reader", "il-writer", true),
            edge("spv2il", "il-writer", false),
            edge("spv2il", "spv-cfg", false),
            edge("xtask", "spv2il", false),
        ];
        assert_eq!(check_edges(&edges), Vec::<String>::new());
    }

    #[test]
    fn forbidden_edges_are_reported() {
        let cases = [
            (
                edge("il-model", "spv-reader", false),
                "crosses the SPIR-V/IL line",
            ),
            (
                edge("spv-cfg", "il-model", true),
                "crosses the SPIR-V/IL line",
            ),
            (edge("spv-reader", "spv-cfg", false), "points forward"),
            (edge("il-writer", "il-reader", false), "points forward"),
            (
                edge("spv-cfg", "rspirv", false),
                "only spv-reader may name rspirv",
            ),
            (edge("spv2il", "xtask", true), "nothing may depend on xtask"),
            (
                edge("il-sim", "spv-cfg", false),
                "crosses the SPIR-V/IL line",
            ),
            (
                edge("spv-validate", "spv2il", false),
                "nothing may depend on spv2il",
            ),
        ];
        for (edge, expected) in cases {
            let problems = check_edges(std::slice::from_ref(&edge));
            assert_eq!(
                problems.len(),
                1,
                "{edge:?} should break exactly one rule: {problems:?}"
            );
            assert!(problems[0].contains(expected), "{edge:?}: {problems:?}");
        }
    }

    #[test]
    fn unsafe_code_is_allowed_only_in_the_vulkan_runner() {
        let allow = concat!("#![allow(", "unsafe_code)]\n");
        assert!(check_unsafe_opt_in(Path::new("xtask/src/differential.rs"), allow).is_empty());
        assert_eq!(
            check_unsafe_opt_in(Path::new("spv2il/src/lib.rs"), allow).len(),
            1
        );
    }

    #[test]
    fn source_rules_catch_missing_overview_and_ignored_tests() {
        let path = Path::new("x.rs");
        assert!(check_source(path, "//! fine\nfn f() {}\n").is_empty());
        assert_eq!(check_source(path, "fn f() {}\n").len(), 1);
        let ignored = concat!("//! ok\n#[", "ignore]\n#[test]\nfn t() {}\n");
        assert_eq!(check_source(path, ignored).len(), 1);
    }
}
