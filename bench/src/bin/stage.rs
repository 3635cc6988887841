//! Runs one pipeline stage on one module, for profiling a stage alone:
//!
//! ```text
//! cargo build --release --manifest-path bench/Cargo.toml --bin stage
//! valgrind --tool=callgrind bench/target/release/stage cfg bench/target/synth/long_switch_64x.spv
//! ```
//!
//! Stages: `read`, `validate`, `cfg` (every function's CFG built and structured), `translate`
//! (bytes to IL text and tokens). The earlier stages run once before the timed one, which runs
//! `REPEAT` times (default 1); the time per run goes to stderr.

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(stage), Some(file)) = (args.first(), args.get(1)) else {
        eprintln!("usage: stage read|validate|cfg|translate FILE.spv [REPEAT]");
        return ExitCode::from(2);
    };
    let repeat: u32 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    match run(stage, file, repeat) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("stage: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(stage: &str, file: &str, repeat: u32) -> Result<(), String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let module = spv_reader::read(&bytes).map_err(|e| e.to_string())?;
    let options = spv_validate::Options::default();
    let start = Instant::now();
    for _ in 0..repeat {
        match stage {
            "read" => drop(spv_reader::read(&bytes).map_err(|e| e.to_string())?),
            "validate" => {
                drop(spv_validate::validate(&module, &options).map_err(|e| e.to_string())?)
            }
            "cfg" => {
                for function in module.functions().iter().filter(|f| !f.blocks.is_empty()) {
                    let cfg = spv_cfg::Cfg::from_function(&module, function)
                        .map_err(|e| e.to_string())?;
                    let strategy = if cfg.has_merges() {
                        spv_cfg::Strategy::Merges
                    } else {
                        spv_cfg::Strategy::General
                    };
                    drop(spv_cfg::structurize(&cfg, strategy).map_err(|e| e.to_string())?);
                }
            }
            "translate" => {
                let translation = spv2il::translate(&bytes, &spv2il::Options::default())
                    .map_err(|e| e.to_string())?;
                drop((translation.text(), translation.tokens()));
            }
            other => return Err(format!("unknown stage `{other}`")),
        }
    }
    eprintln!(
        "{stage} {file}: {:.1} µs per run",
        start.elapsed().as_secs_f64() * 1e6 / f64::from(repeat.max(1))
    );
    Ok(())
}
