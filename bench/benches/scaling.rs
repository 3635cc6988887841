//! How the cost of each stage grows with the size of the input.
//!
//! The synthetic modules of `spv2il_bench::synth` (four shapes at 1×, 4×, 16× and 64×) are
//! timed per stage: `scale_read`, `scale_validate`, `scale_cfg` (every function's CFG built and
//! structured) and `scale_translate` (bytes to IL text and tokens), each named
//! `scale_STAGE/SHAPE/SCALE`. A stage that refuses a module is skipped for it and the refusal
//! is written to the report (`spv2il_bench::report`, file `scaling.json`) together with the
//! modules' sizes, so `cargo xtask bench` can print time per KiB and growth exponents.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use serde_json::json;
use spv2il_bench::report::Report;
use spv2il_bench::synth::{SCALES, SHAPES, module_bytes};
use std::hint::black_box;
use std::time::Duration;

fn main() {
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .configure_from_args();
    let mut report = Report::new();
    let options = spv2il::Options::default();
    for shape in SHAPES {
        for scale in SCALES {
            let bytes = match module_bytes(shape, scale) {
                Ok(bytes) => bytes,
                Err(e) => {
                    eprintln!(
                        "spv2il-bench: cannot build {} {scale}x: {e:?}",
                        shape.name()
                    );
                    std::process::exit(1);
                }
            };
            let module = match spv_reader::read(&bytes) {
                Ok(module) => module,
                Err(e) => {
                    eprintln!("spv2il-bench: {} {scale}x does not read: {e}", shape.name());
                    std::process::exit(1);
                }
            };
            let validated =
                spv_validate::validate(&module, &spv_validate::Options::default()).is_ok();
            let structured = structure_all(&module);
            let translated = spv2il::translate(&bytes, &options).map_err(|e| e.to_string());
            let key = format!("{}/{scale}", shape.name());
            report.note(
                &key,
                json!({
                    "bytes": bytes.len(),
                    "size": shape.base_size() * scale,
                    "unit": shape.unit(),
                    "functions": module.functions().len(),
                    "blocks": module.functions().iter().map(|f| f.blocks.len()).sum::<usize>(),
                    "validate": validated,
                    "cfg": structured.as_ref().err(),
                    "translate": translated.as_ref().err(),
                }),
            );

            let id = BenchmarkId::new(shape.name(), scale);
            let mut run = |stage: &str, f: &dyn Fn()| {
                report.benchmark(&format!("scale_{stage}/{key}"), 1, bytes.len() as u64, 1);
                let mut group = criterion.benchmark_group(format!("scale_{stage}"));
                group.sampling_mode(SamplingMode::Flat);
                group.throughput(Throughput::Bytes(bytes.len() as u64));
                group.bench_function(id.clone(), |b| b.iter(f));
                group.finish();
            };
            run("read", &|| {
                black_box(spv_reader::read(&bytes).is_ok());
            });
            if validated {
                run("validate", &|| {
                    let info = spv_validate::validate(&module, &spv_validate::Options::default());
                    black_box(info.is_ok());
                });
            }
            if structured.is_ok() {
                run("cfg", &|| {
                    black_box(structure_all(&module).is_ok());
                });
            }
            if translated.is_ok() {
                run("translate", &|| {
                    if let Ok(t) = spv2il::translate(&bytes, &options) {
                        black_box((t.text(), t.tokens()));
                    }
                });
            }
        }
    }
    match report.write("scaling") {
        Ok(path) => eprintln!("spv2il-bench: wrote {}", path.display()),
        Err(e) => eprintln!("spv2il-bench: cannot write the report: {e}"),
    }
    criterion.final_summary();
}

/// Builds and structures the CFG of every function with a body, as the `cfg` stage of
/// `benches/stages.rs` does.
fn structure_all(module: &spv_reader::Module) -> Result<usize, String> {
    let mut regions = 0;
    for function in module.functions() {
        if function.blocks.is_empty() {
            continue;
        }
        let cfg = spv_cfg::Cfg::from_function(module, function).map_err(|e| e.to_string())?;
        let strategy = if cfg.has_merges() {
            spv_cfg::Strategy::Merges
        } else {
            spv_cfg::Strategy::General
        };
        regions += spv_cfg::structurize(&cfg, strategy)
            .map_err(|e| e.to_string())?
            .body
            .len();
    }
    Ok(regions)
}
