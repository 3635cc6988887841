//! Writes the synthetic scaling modules (`spv2il_bench::synth`) into a folder, one file per
//! shape and scale (`SHAPE_SCALEx.spv`), so whole processes can be measured on them
//! (`cargo xtask bench` runs the release `spv2il` under `/usr/bin/time -v`) and spirv-val can
//! check them.

use spv2il_bench::synth::{SCALES, SHAPES, module_bytes};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: synth DIR");
        return ExitCode::from(2);
    };
    if let Err(message) = write_all(&dir) {
        eprintln!("synth: {message}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn write_all(dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for shape in SHAPES {
        for scale in SCALES {
            let bytes = module_bytes(shape, scale)
                .map_err(|e| format!("cannot build {} at {scale}x: {e:?}", shape.name()))?;
            let path = dir.join(format!("{}_{scale}x.spv", shape.name()));
            std::fs::write(&path, bytes)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
}
