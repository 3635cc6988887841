//! Runs one pipeline stage over one or more modules, for profiling a stage alone:
//!
//! ```text
//! cargo build --release --manifest-path bench/Cargo.toml --bin stage
//! valgrind --tool=callgrind bench/target/release/stage cfg bench/target/synth/long_switch_64x.spv
//! valgrind --tool=callgrind bench/target/release/stage translate \
//!     --list bench/target/spv2il-bench/goal_translate_corpus.list 3
//! ```
//!
//! Stages: `read`, `validate`, `cfg` (every function's CFG built and structured), `lower`
//! (bytes to a verified IL program, nothing written), `translate` (bytes to IL text, what
//! `spv2il` writes by default), `translate_both` (bytes to IL text and tokens), and `naga`, the
//! translate goal's peer (naga's SPIR-V front end, validator and WGSL writer; a module naga
//! refuses is skipped), with its first steps alone as `naga_parse` and `naga_validate` (parse
//! and validate), so that both pipelines can be split the same way. The modules are one file,
//! or `--list FILE` naming one path per line (the stage benchmark writes such a list for each
//! goal set). Every module is read once
//! before the timed loop, which runs the stage over all of them `REPEAT` times (default 1); the
//! time per pass goes to stderr. Under callgrind the read
//! before the loop is the one part not of the stage; `callgrind_annotate --inclusive=yes` splits
//! the rest by function.

use std::process::ExitCode;
use std::time::Instant;

// The same peer function the benches call, so that a replay measures what they measure. The
// rspirv baseline beside it serves the benches only.
#[path = "../../benches/peers/mod.rs"]
#[allow(dead_code)]
mod peers;

const USAGE: &str = "usage: stage read|validate|cfg|lower|translate|translate_both|\
                     naga|naga_parse|naga_validate (FILE.spv | --list FILE) [REPEAT]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (files, repeat) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("stage: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args[0], &files, repeat) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("stage: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The module paths and the repeat count from `STAGE (FILE | --list LIST) [REPEAT]`.
fn parse_args(args: &[String]) -> Result<(Vec<String>, u32), String> {
    let (files, rest) = match args {
        [_, flag, list, rest @ ..] if flag == "--list" => {
            let text = std::fs::read_to_string(list)
                .map_err(|e| format!("cannot read the list {list}: {e}"))?;
            let files: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(String::from)
                .collect();
            (files, rest)
        }
        [_, flag] if flag == "--list" => return Err("--list needs a file".to_string()),
        [_, file, rest @ ..] => (vec![file.clone()], rest),
        _ => return Err("missing arguments".to_string()),
    };
    let repeat = match rest {
        [] => 1,
        [n] => n
            .parse()
            .map_err(|_| format!("REPEAT must be a whole number, not `{n}`"))?,
        _ => return Err("too many arguments".to_string()),
    };
    Ok((files, repeat))
}

/// Runs `stage` over every module in `files`, `repeat` times.
fn run(stage: &str, files: &[String], repeat: u32) -> Result<(), String> {
    let mut inputs = Vec::with_capacity(files.len());
    for file in files {
        let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        let module = spv_reader::read(&bytes).map_err(|e| format!("{file}: {e}"))?;
        inputs.push((bytes, module));
    }
    let options = spv_validate::Options::default();
    let start = Instant::now();
    for _ in 0..repeat {
        for (bytes, module) in &inputs {
            run_once(stage, bytes, module, &options)?;
        }
    }
    let what = match files {
        [one] => one.clone(),
        _ => format!("{} modules", files.len()),
    };
    eprintln!(
        "{stage} {what}: {:.1} µs per pass",
        start.elapsed().as_secs_f64() * 1e6 / f64::from(repeat.max(1))
    );
    Ok(())
}

/// One run of `stage` on one module (`bytes`, already read as `module`).
fn run_once(
    stage: &str,
    bytes: &[u8],
    module: &spv_reader::Module,
    options: &spv_validate::Options,
) -> Result<(), String> {
    match stage {
        "read" => drop(spv_reader::read(bytes).map_err(|e| e.to_string())?),
        "validate" => drop(spv_validate::validate(module, options).map_err(|e| e.to_string())?),
        "cfg" => {
            for function in module.functions().iter().filter(|f| !f.blocks.is_empty()) {
                let cfg =
                    spv_cfg::Cfg::from_function(module, function).map_err(|e| e.to_string())?;
                let strategy = if cfg.has_merges() {
                    spv_cfg::Strategy::Merges
                } else {
                    spv_cfg::Strategy::General
                };
                drop(spv_cfg::structurize(&cfg, strategy).map_err(|e| e.to_string())?);
            }
        }
        "translate" | "translate_both" => {
            let translation =
                spv2il::translate(bytes, &spv2il::Options::default()).map_err(|e| e.to_string())?;
            drop(translation.text());
            if stage == "translate_both" {
                drop(translation.tokens());
            }
        }
        "lower" => {
            drop(spv2il::translate(bytes, &spv2il::Options::default()).map_err(|e| e.to_string())?)
        }
        "naga" => drop(peers::naga_to_wgsl(
            bytes,
            &naga::front::spv::Options::default(),
        )),
        "naga_parse" => drop(naga::front::spv::parse_u8_slice(
            bytes,
            &naga::front::spv::Options::default(),
        )),
        "naga_validate" => drop(peers::naga_validated(
            bytes,
            &naga::front::spv::Options::default(),
        )),
        other => return Err(format!("unknown stage `{other}`")),
    }
    Ok(())
}
