//! Per-stage throughput of the spv2il pipeline over real modules, with rspirv and naga measured
//! in the same run as baselines.
//!
//! For each input set (`corpus`: `../shared/corpus`, skipped when absent; `shaders`: the
//! workspace's own test shaders) every stage is first *probed* on every module, outside the
//! timing, to find the modules it accepts; then each stage is timed alone over exactly those
//! modules, with the earlier stages' results prepared beforehand (style-anchors §7.6). One
//! criterion iteration processes the whole accepted set, and `Throughput::Bytes` is the SPIR-V
//! size of that set, so criterion's MB/s are directly comparable between stages.
//!
//! Benchmarks (`group/function`):
//! - `read/SET` `spv_reader::read`; `validate/SET` `spv_validate::validate`;
//!   `cfg/SET` `spv_cfg::Cfg::from_function` + `spv_cfg::structurize` for every function with a
//!   body (merge-driven when the function has merge instructions, else the general
//!   structurizer); `lower/SET` `spv2il::translate` (lowering is not public on its own, so this
//!   includes the read and validate it performs); `write_text/SET` `Translation::text`;
//!   `write_tokens/SET` `Translation::tokens`; `translate/SET` bytes to IL text (what the
//!   `spv2il` command writes by default).
//! - Baselines: `rspirv_parse/SET` (`binary::parse_bytes`, a consumer that keeps nothing),
//!   `rspirv_load/SET` (`dr::load_bytes`), `naga_parse/SET` (naga's SPIR-V front end),
//!   `naga_wgsl/SET` (naga parse + validate + WGSL).
//! - Goals, each pair over the modules both sides accept: `goal_reader_SET/{spv2il,rspirv}`
//!   (read against `parse_bytes`; `goal_reader_SET/spv2il_kept` reads the same modules but keeps
//!   each until the next pass, so that no read reuses the buffers of a module dropped before it)
//!   and `goal_translate_SET/{spv2il,naga}` (bytes to IL text against bytes to WGSL text: parse +
//!   validate + WGSL); `goal_translate_SET/spv2il_both` writes both IL forms, text and tokens.
//!
//! How many modules each benchmark covered, and why translation refused the others, goes to
//! the report file (`spv2il_bench::report`), which `cargo xtask bench` reads beside criterion's
//! estimates; the paths of each goal benchmark's modules go to a list file beside it.
//!
//! `SPV2IL_BENCH_SAMPLE=N` keeps every N-th module of each set (a quicker, rougher run).

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use serde_json::{Value, json};
use spv2il_bench::inputs::{Input, InputSet, input_sets};
use spv2il_bench::report::{Report, write_list};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

mod peers;
use peers::{IgnoreAll, naga_to_wgsl};

fn main() {
    let sets = match input_sets() {
        Ok(sets) => sets,
        Err(e) => {
            eprintln!("spv2il-bench: cannot load the inputs: {e}");
            std::process::exit(1);
        }
    };
    let every = std::env::var("SPV2IL_BENCH_SAMPLE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n > 1);
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(10)
        .configure_from_args();
    let mut report = Report::new();
    report.note("sample_every", json!(every.unwrap_or(1)));
    for mut set in sets {
        if let Some(every) = every {
            set.inputs = set.inputs.into_iter().step_by(every).collect();
        }
        bench_set(&mut criterion, &set, &mut report);
    }
    match report.write("stages") {
        Ok(path) => eprintln!("spv2il-bench: wrote {}", path.display()),
        Err(e) => eprintln!("spv2il-bench: cannot write the report: {e}"),
    }
    criterion.final_summary();
}

/// What each stage and baseline accepted of one set, computed before any timing.
struct Probe<'s> {
    inputs: &'s [Input],
    read: Vec<usize>,
    modules: BTreeMap<usize, spv_reader::Module>,
    validate: Vec<usize>,
    cfg: Vec<usize>,
    translations: BTreeMap<usize, spv2il::Translation>,
    rspirv_parse: Vec<usize>,
    rspirv_load: Vec<usize>,
    naga_parse: Vec<usize>,
    naga_wgsl: Vec<usize>,
}

/// Probes and times every stage on one set.
fn bench_set(criterion: &mut Criterion, set: &InputSet, report: &mut Report) {
    let name = set.name;
    let probe = probe(set, report);
    let of = set.inputs.len();
    let options = spv2il::Options::default();
    let naga_options = naga::front::spv::Options::default();

    let mut bench = |group: &str, function: &str, modules: &[usize], run: &dyn Fn(usize)| {
        let bytes: u64 = modules
            .iter()
            .map(|&i| probe.inputs[i].bytes.len() as u64)
            .sum();
        report.benchmark(&format!("{group}/{function}"), modules.len(), bytes, of);
        if modules.is_empty() {
            eprintln!("spv2il-bench: {group}/{function}: no module accepted; skipped");
            return;
        }
        let mut g: BenchmarkGroup<'_, WallTime> = criterion.benchmark_group(group);
        // One iteration covers the whole set (up to a second for the slow stages), so take a
        // fixed number of iterations per sample rather than criterion's growing ramp.
        g.sampling_mode(SamplingMode::Flat);
        if name != "corpus" {
            // The workspace's shaders are a small set: shorter runs keep the task quick.
            g.warm_up_time(Duration::from_millis(500));
            g.measurement_time(Duration::from_millis(1500));
        }
        g.throughput(Throughput::Bytes(bytes));
        g.bench_function(function, |b| {
            b.iter(|| {
                for &i in modules {
                    run(i);
                }
            })
        });
        g.finish();
    };

    bench("read", name, &probe.read, &|i| {
        black_box(spv_reader::read(&probe.inputs[i].bytes).is_ok());
    });
    bench("validate", name, &probe.validate, &|i| {
        if let Some(module) = probe.modules.get(&i) {
            let info = spv_validate::validate(module, &spv_validate::Options::default());
            black_box(info.is_ok());
        }
    });
    bench("cfg", name, &probe.cfg, &|i| {
        if let Some(module) = probe.modules.get(&i) {
            black_box(structure_all(module).is_some());
        }
    });
    let translated: Vec<usize> = probe.translations.keys().copied().collect();
    bench("lower", name, &translated, &|i| {
        black_box(spv2il::translate(&probe.inputs[i].bytes, &options).is_ok());
    });
    bench("write_text", name, &translated, &|i| {
        if let Some(t) = probe.translations.get(&i) {
            black_box(t.text());
        }
    });
    bench("write_tokens", name, &translated, &|i| {
        if let Some(t) = probe.translations.get(&i) {
            black_box(t.tokens());
        }
    });
    let end_to_end = |i: usize| {
        if let Ok(t) = spv2il::translate(&probe.inputs[i].bytes, &options) {
            black_box(t.text());
        }
    };
    bench("translate", name, &translated, &end_to_end);

    let rspirv_parse = |i: usize| {
        let result = rspirv::binary::parse_bytes(&probe.inputs[i].bytes, &mut IgnoreAll);
        black_box(result.is_ok());
    };
    bench("rspirv_parse", name, &probe.rspirv_parse, &rspirv_parse);
    bench("rspirv_load", name, &probe.rspirv_load, &|i| {
        black_box(rspirv::dr::load_bytes(&probe.inputs[i].bytes).is_ok());
    });
    bench("naga_parse", name, &probe.naga_parse, &|i| {
        let module = naga::front::spv::parse_u8_slice(&probe.inputs[i].bytes, &naga_options);
        black_box(module.is_ok());
    });
    let naga_wgsl = |i: usize| {
        black_box(naga_to_wgsl(&probe.inputs[i].bytes, &naga_options).is_some());
    };
    bench("naga_wgsl", name, &probe.naga_wgsl, &naga_wgsl);

    let both_read = intersection(&probe.read, &probe.rspirv_parse);
    let goal_reader = format!("goal_reader_{name}");
    bench(&goal_reader, "spv2il", &both_read, &|i| {
        black_box(spv_reader::read(&probe.inputs[i].bytes).is_ok());
    });
    bench(&goal_reader, "rspirv", &both_read, &rspirv_parse);
    // The same reads with every module kept until the next pass begins: spv-reader hands a
    // dropped module's buffers to the next read on its thread, and keeping the modules denies it
    // that, as in a process that reads each module once and keeps it.
    let kept = std::cell::RefCell::new(Vec::with_capacity(both_read.len()));
    let first = both_read.first().copied();
    bench(&goal_reader, "spv2il_kept", &both_read, &|i| {
        let mut kept = kept.borrow_mut();
        if Some(i) == first {
            kept.clear();
        }
        kept.push(spv_reader::read(&probe.inputs[i].bytes));
    });
    let both_translate = intersection(&translated, &probe.naga_wgsl);
    let goal_translate = format!("goal_translate_{name}");
    bench(&goal_translate, "spv2il", &both_translate, &end_to_end);
    bench(&goal_translate, "spv2il_both", &both_translate, &|i| {
        if let Ok(t) = spv2il::translate(&probe.inputs[i].bytes, &options) {
            black_box((t.text(), t.tokens()));
        }
    });
    bench(&goal_translate, "naga", &both_translate, &naga_wgsl);

    // The goal sets, for replaying them under a profiler with the `stage` binary.
    for (group, modules) in [
        (&goal_reader, &both_read),
        (&goal_translate, &both_translate),
    ] {
        let paths: Vec<&std::path::Path> = modules
            .iter()
            .map(|&i| probe.inputs[i].path.as_path())
            .collect();
        if let Err(e) = write_list(group, &paths) {
            eprintln!("spv2il-bench: cannot write the module list of {group}: {e}");
        }
    }
}

/// Runs every stage and baseline once on every module of `set`, catching panics (each one is
/// a bug worth reporting), and records the refusals in `report`.
fn probe<'s>(set: &'s InputSet, report: &mut Report) -> Probe<'s> {
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut panics: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut guarded =
        |stage: &'static str, name: &str, f: &mut dyn FnMut() -> bool| match catch_unwind(
            AssertUnwindSafe(f),
        ) {
            Ok(accepted) => accepted,
            Err(_) => {
                panics.entry(stage).or_default().push(name.to_string());
                false
            }
        };
    let mut p = Probe {
        inputs: &set.inputs,
        read: Vec::new(),
        modules: BTreeMap::new(),
        validate: Vec::new(),
        cfg: Vec::new(),
        translations: BTreeMap::new(),
        rspirv_parse: Vec::new(),
        rspirv_load: Vec::new(),
        naga_parse: Vec::new(),
        naga_wgsl: Vec::new(),
    };
    let mut translate_errors: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    let options = spv2il::Options::default();
    let naga_options = naga::front::spv::Options::default();
    for (i, input) in set.inputs.iter().enumerate() {
        let bytes = &input.bytes;
        let name = input.name.as_str();
        let mut module = None;
        if guarded("read", name, &mut || {
            module = spv_reader::read(bytes).ok();
            module.is_some()
        }) {
            p.read.push(i);
        }
        if let Some(module) = module {
            let valid = guarded("validate", name, &mut || {
                spv_validate::validate(&module, &spv_validate::Options::default()).is_ok()
            });
            if valid {
                p.validate.push(i);
                if guarded("cfg", name, &mut || structure_all(&module).is_some()) {
                    p.cfg.push(i);
                }
            }
            p.modules.insert(i, module);
        }
        let mut translation = None;
        guarded("translate", name, &mut || {
            match spv2il::translate(bytes, &options) {
                Ok(t) => translation = Some(t),
                Err(e) => {
                    let kind = match &e {
                        spv2il::Error::Read(_) => "read error",
                        spv2il::Error::Invalid(_) => "invalid",
                        spv2il::Error::Unsupported(u) => {
                            *unsupported.entry(u.feature.clone()).or_default() += 1;
                            "not supported"
                        }
                        spv2il::Error::Internal(_) => "internal error",
                        // Options and entry-point errors, whatever the variant is called now.
                        _ => "options or entry point",
                    };
                    *translate_errors.entry(kind).or_default() += 1;
                }
            }
            true
        });
        if let Some(t) = translation {
            let written = guarded("write", name, &mut || {
                black_box((t.text(), t.tokens()));
                true
            });
            if written {
                p.translations.insert(i, t);
            }
        }
        if guarded("rspirv_parse", name, &mut || peers::rspirv_parses(bytes)) {
            p.rspirv_parse.push(i);
        }
        if guarded("rspirv_load", name, &mut || {
            rspirv::dr::load_bytes(bytes).is_ok()
        }) {
            p.rspirv_load.push(i);
        }
        if guarded("naga_parse", name, &mut || {
            naga::front::spv::parse_u8_slice(bytes, &naga_options).is_ok()
        }) {
            p.naga_parse.push(i);
            if guarded("naga_wgsl", name, &mut || {
                naga_to_wgsl(bytes, &naga_options).is_some()
            }) {
                p.naga_wgsl.push(i);
            }
        }
    }
    std::panic::set_hook(previous_hook);
    let mut top: Vec<(String, usize)> = unsupported.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(12);
    let panics: BTreeMap<&str, Value> = panics
        .into_iter()
        .map(|(stage, names)| {
            (
                stage,
                json!({ "count": names.len(), "first": names.first() }),
            )
        })
        .collect();
    report.note(
        set.name,
        json!({
            "modules": set.inputs.len(),
            "bytes": set.inputs.iter().map(|i| i.bytes.len() as u64).sum::<u64>(),
            "translate_errors": translate_errors,
            "unsupported_top": top,
            "panics": panics,
        }),
    );
    p
}

/// Builds and structures the CFG of every function of `module` that has a body; `None` when
/// spv-cfg refuses one of them.
fn structure_all(module: &spv_reader::Module) -> Option<usize> {
    let mut regions = 0;
    for function in module.functions() {
        if function.blocks.is_empty() {
            continue;
        }
        let cfg = spv_cfg::Cfg::from_function(module, function).ok()?;
        let strategy = if cfg.has_merges() {
            spv_cfg::Strategy::Merges
        } else {
            spv_cfg::Strategy::General
        };
        regions += spv_cfg::structurize(&cfg, strategy).ok()?.body.len();
    }
    Some(regions)
}

/// The indices in both sorted lists.
fn intersection(a: &[usize], b: &[usize]) -> Vec<usize> {
    a.iter()
        .copied()
        .filter(|i| b.binary_search(i).is_ok())
        .collect()
}
