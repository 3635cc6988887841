//! Development and batch pipelines for the workspace, run as `cargo xtask <task>`.
//!
//! The pattern is matklad's cargo-xtask: a plain binary in the workspace, started through the
//! alias in `.cargo/config.toml`, using only std and the workspace's own crates. Every task
//! prints what it runs and fails with a non-zero exit status on the first problem, so it can be
//! chained from `.ci/run`.

mod bench;
mod conformance;
mod corpus;
mod differential;
mod shaders;
mod tidy;
mod tools;
mod validator;

use std::process::ExitCode;

const HELP: &str = "\
cargo xtask <TASK> [ARGS]

Tasks:
  ci              fmt check, clippy -D warnings, tidy, cargo test --workspace, then conformance
                  (what .ci/run runs after installing the external tools)
  shaders [--write]
                  compile the project's test shaders (GLSL/HLSL with glslangValidator, .spvasm with
                  spirv-as) and fail if a committed .spv differs; --write rewrites stale .spv files
  conformance     spirv-val 2025.5 accepts every committed test shader; every module of
                  ../shared/corpus that the manifest marks valid is read without error
  differential [FILTER] [--keep]
                  only the differential stage of conformance (lavapipe against il-sim), for the
                  modules whose path contains FILTER; --keep keeps the IL and buffers
  tidy            repository rules: dependency arrows, //! overviews, no #[ignore]
  bench [--sample N] [--no-criterion] [--no-process] [--callgrind] [-- CRITERION-ARGS]
                  criterion benches of bench/ (stages beside rspirv and naga, scaling), then one
                  table of MB/s and ratios, whole-process timings against spirv-val, spirv-dis
                  and spirv-cross, and the scaling table with peak memory (BENCHMARKS.md);
                  --callgrind adds instruction counts and the goal in simulated cycles
                  (`cargo xtask bench --help` says more)
  fuzz TARGET [SECONDS]
                  run a cargo-fuzz target (read, ...) for SECONDS (default 60), seeded from
                  ../shared/corpus when present

Environment:
  SPIRV_TOOLS_BIN  folder holding spirv-val/spirv-as/spirv-dis 2025.5 (default: the venv that
                   .ci/run creates under ~/.cache/spv2il)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(task) = args.first() else {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    };
    let rest = &args[1..];
    let result = match task.as_str() {
        "ci" => ci(),
        "shaders" => shaders::run(rest),
        "conformance" => conformance::run(),
        "tidy" => tidy::run(),
        "bench" => bench(rest),
        "fuzz" => fuzz(rest),
        "differential" => differential::run_filtered(rest),
        // Internal: the differential stage runs Vulkan in this child process.
        differential::CHILD_TASK => differential::vulkan_child(rest),
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(())
        }
        other => Err(format!("unknown task `{other}`; run `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask {task}: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Everything CI checks, cheapest first so a formatting slip fails in seconds.
fn ci() -> Result<(), String> {
    tools::cargo(&["fmt", "--all", "--", "--check"])?;
    tools::cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--quiet",
        "--",
        "-D",
        "warnings",
    ])?;
    tidy::run()?;
    tools::cargo(&["test", "--workspace"])?;
    conformance::run()
}

/// Runs the benchmarks and prints their tables (see `bench.rs`).
fn bench(args: &[String]) -> Result<(), String> {
    bench::run(args)
}

/// Seconds one fuzz input may take before libFuzzer reports it as a timeout.
const FUZZ_INPUT_TIMEOUT_SECONDS: u32 = 20;

/// Runs one cargo-fuzz target for a bounded time.
///
/// libFuzzer writes new inputs into the first corpus folder it is given, so the writable
/// `fuzz/corpus/TARGET` of the fuzz crate comes first; the read-only `../shared/corpus` (when
/// present), the fuzzed crate's `tests` folder and the test shaders (SPIR-V and IL snapshots)
/// follow, as seeds only. cargo-fuzz needs nightly-only compiler flags; the machines have one
/// stable toolchain, so `RUSTC_BOOTSTRAP=1` unlocks them.
fn fuzz(args: &[String]) -> Result<(), String> {
    let target = args
        .first()
        .ok_or("usage: cargo xtask fuzz TARGET [SECONDS]")?;
    let seconds = args.get(1).map(String::as_str).unwrap_or("60");
    let fuzz_dir = tools::find_fuzz_crate(target)?;
    let own_corpus = fuzz_dir.join("corpus").join(target);
    std::fs::create_dir_all(&own_corpus)
        .map_err(|e| format!("cannot create {}: {e}", own_corpus.display()))?;
    let mut fuzz_args = vec![
        "fuzz".to_string(),
        "run".to_string(),
        target.clone(),
        own_corpus.display().to_string(),
    ];
    match corpus::corpus_root() {
        Some(seeds) => fuzz_args.push(seeds.display().to_string()),
        None => eprintln!("xtask fuzz: ../shared/corpus is absent; fuzzing without its seeds"),
    }
    // The fuzzed crate's own test inputs (the validator's rule modules, ...) and the test
    // shaders with their IL snapshots are seeds too: libFuzzer reads folders recursively and
    // keeps what reaches new code (SPIR-V for the SPIR-V targets, IL text for the IL ones).
    let shaders = tools::project_root()
        .join("spv2il")
        .join("tests")
        .join("shaders");
    let own_tests = fuzz_dir.parent().map(|c| c.join("tests"));
    for seeds in own_tests.into_iter().chain([shaders]) {
        let listed = fuzz_args.iter().any(|a| seeds.starts_with(a));
        if seeds.is_dir() && !listed {
            fuzz_args.push(seeds.display().to_string());
        }
    }
    fuzz_args.push("--".to_string());
    fuzz_args.push(format!("-max_total_time={seconds}"));
    // libFuzzer's own default (20 minutes per input) would hide a hang or a superlinear path;
    // no input of ours has come near libFuzzer's 10-second slow-unit report, instrumented.
    fuzz_args.push(format!("-timeout={FUZZ_INPUT_TIMEOUT_SECONDS}"));
    tools::run_with_env(
        &fuzz_dir,
        &tools::cargo_path(),
        &fuzz_args,
        &[("RUSTC_BOOTSTRAP", "1")],
    )
}
