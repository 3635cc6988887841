//! `cargo xtask shaders`: compiles the project's own test shaders and checks the committed
//! `.spv` files are what the sources compile to today.
//!
//! Test shaders live in `<crate>/tests/shaders/` of any workspace crate. Each source is compiled
//! next to itself: GLSL (`.comp`, `.vert`, `.frag`, `.glsl`) and HLSL (`.hlsl`) with
//! glslangValidator, SPIR-V assembly (`.spvasm`) with spirv-as 2025.5. A source may carry
//! directives in its first comment lines:
//!
//! * `target-env: vulkan1.2` — the environment for compiling and for spirv-val (default
//!   `vulkan1.1`);
//! * `invalid: <reason>` — the module is deliberately invalid SPIR-V (a validator test); it is
//!   assembled but spirv-val must reject it.
//!
//! A source compiled for several environments is committed as `X.<tag>.spv` files instead of
//! `X.spv`, one per tag: `vk10`, `vk11`, `vk12`, `vk13` and `vk14` stand for `vulkan1.0` …
//! `vulkan1.4`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools::{glslang, project_root, spirv_tool};

/// A test shader source and what its directives say.
pub struct TestShader {
    /// The source file.
    pub source: PathBuf,
    /// The committed module compiled from it (same stem, `.spv`).
    pub spv: PathBuf,
    /// Target environment for compiling and validating.
    pub target_env: String,
    /// Present when the module is deliberately invalid, with the reason.
    pub invalid: Option<String>,
}

const GLSL_EXTENSIONS: &[&str] = &["comp", "vert", "frag", "glsl"];
const DEFAULT_TARGET_ENV: &str = "vulkan1.1";

/// Every test shader of the workspace, in a stable order.
pub fn test_shaders() -> Result<Vec<TestShader>, String> {
    let mut sources = Vec::new();
    let root = project_root();
    let crates = std::fs::read_dir(&root).map_err(|e| format!("cannot list {root:?}: {e}"))?;
    for entry in crates.flatten() {
        let dir = entry.path().join("tests").join("shaders");
        if dir.is_dir() {
            collect_sources(&dir, &mut sources)?;
        }
    }
    sources.sort();
    let mut shaders = Vec::new();
    for source in sources {
        shaders.extend(describe(&source)?);
    }
    Ok(shaders)
}

/// The environment tags of per-environment outputs (`X.vk12.spv`).
const ENV_TAGS: &[(&str, &str)] = &[
    ("vk10", "vulkan1.0"),
    ("vk11", "vulkan1.1"),
    ("vk12", "vulkan1.2"),
    ("vk13", "vulkan1.3"),
    ("vk14", "vulkan1.4"),
];

fn collect_sources(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list {dir:?}: {e}"))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_sources(&path, out)?;
        } else if source_kind(&path).is_some() {
            out.push(path);
        }
    }
    Ok(())
}

enum SourceKind {
    Glsl,
    Hlsl,
    Assembly,
}

fn source_kind(path: &Path) -> Option<SourceKind> {
    let extension = path.extension()?.to_str()?;
    if GLSL_EXTENSIONS.contains(&extension) {
        Some(SourceKind::Glsl)
    } else if extension == "hlsl" {
        Some(SourceKind::Hlsl)
    } else if extension == "spvasm" {
        Some(SourceKind::Assembly)
    } else {
        None
    }
}

/// The outputs of one source: `X.spv` with the source's environment, or one `X.<tag>.spv` per
/// committed environment variant.
fn describe(source: &Path) -> Result<Vec<TestShader>, String> {
    let base = describe_source(source)?;
    let variants: Vec<TestShader> = ENV_TAGS
        .iter()
        .map(|(tag, env)| TestShader {
            source: base.source.clone(),
            spv: source.with_extension(format!("{tag}.spv")),
            target_env: env.to_string(),
            invalid: base.invalid.clone(),
        })
        .filter(|variant| variant.spv.is_file())
        .collect();
    if base.spv.is_file() || variants.is_empty() {
        Ok(vec![base])
    } else {
        Ok(variants)
    }
}

fn describe_source(source: &Path) -> Result<TestShader, String> {
    let text = std::fs::read_to_string(source)
        .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    let mut target_env = DEFAULT_TARGET_ENV.to_string();
    let mut invalid = None;
    for line in text
        .lines()
        .take_while(|l| l.starts_with("//") || l.starts_with(';'))
    {
        let body = line.trim_start_matches(['/', ';']).trim();
        if let Some(env) = body.strip_prefix("target-env:") {
            target_env = env.trim().to_string();
        } else if let Some(reason) = body.strip_prefix("invalid:") {
            invalid = Some(reason.trim().to_string());
        }
    }
    Ok(TestShader {
        source: source.to_path_buf(),
        spv: source.with_extension("spv"),
        target_env,
        invalid,
    })
}

/// Compiles one shader into `out`.
fn compile(shader: &TestShader, out: &Path) -> Result<(), String> {
    let kind = source_kind(&shader.source).ok_or("not a shader source")?;
    let mut command = match kind {
        SourceKind::Glsl | SourceKind::Hlsl => {
            let mut c = Command::new(glslang()?);
            c.args(["-V", "--target-env", &shader.target_env]);
            if matches!(kind, SourceKind::Hlsl) {
                c.args(["-D", "-S", "comp", "-e", "main"]);
            }
            if shader.source.extension().is_some_and(|e| e == "glsl") {
                c.args(["-S", "comp"]);
            }
            c.arg(&shader.source).arg("-o").arg(out);
            c
        }
        SourceKind::Assembly => {
            let mut c = Command::new(spirv_tool("spirv-as")?);
            c.args(["--target-env", &shader.target_env]);
            c.arg(&shader.source).arg("-o").arg(out);
            c
        }
    };
    let output = command
        .output()
        .map_err(|e| format!("cannot start compiler: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} does not compile:\n{}{}",
            shader.source.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// `cargo xtask shaders [--write]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let write = args.iter().any(|a| a == "--write");
    let shaders = test_shaders()?;
    let scratch = std::env::temp_dir().join(format!("spv2il-shaders-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("cannot create {scratch:?}: {e}"))?;
    let mut stale = Vec::new();
    for (number, shader) in shaders.iter().enumerate() {
        let fresh = scratch.join(format!("{number}.spv"));
        compile(shader, &fresh)?;
        let fresh_bytes = std::fs::read(&fresh).map_err(|e| format!("{fresh:?}: {e}"))?;
        let committed = std::fs::read(&shader.spv).unwrap_or_default();
        if fresh_bytes != committed {
            if write {
                std::fs::write(&shader.spv, &fresh_bytes)
                    .map_err(|e| format!("cannot write {}: {e}", shader.spv.display()))?;
                eprintln!("wrote {}", shader.spv.display());
            } else {
                stale.push(shader.spv.display().to_string());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!("xtask shaders: {} test shaders compiled", shaders.len());
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} committed .spv files are stale or missing (run `cargo xtask shaders --write`):\n  {}",
            stale.len(),
            stale.join("\n  ")
        ))
    }
}
