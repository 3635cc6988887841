//! Structurizing every function of the corpus (`../shared/corpus` relative to the workspace
//! root). Throughput is reported in functions per second; one iteration handles all functions.
//!
//! Groups: `from_function` (the SPIR-V adapter), `analysis` (all dominator trees and the loop
//! forest), `structurize/merges` and `structurize/general`; and, over the functions of the
//! modules that validate, `valid/from_function` against `valid/from_validated` (the adapter
//! that reuses spv-validate's facts).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use spv_cfg::{Analysis, Cfg, Strategy, structurize};
use std::hint::black_box;
use std::path::Path;

// The tests' shared support, for its `.spv` walker.
#[path = "../tests/common/mod.rs"]
mod common;

fn corpus() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut files = Vec::new();
    common::spv_files(&dir, &mut files);
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    if files.is_empty() {
        eprintln!("skipping: no corpus at ../shared/corpus");
        return;
    }
    let modules: Vec<spv_reader::Module> = files
        .iter()
        .filter_map(|b| spv_reader::read(b).ok())
        .collect();
    let cfgs: Vec<Cfg> = modules
        .iter()
        .flat_map(|m| {
            m.functions()
                .iter()
                .filter(|f| !f.blocks.is_empty())
                .filter_map(|f| Cfg::from_function(m, f).ok())
        })
        .collect();
    let blocks: usize = cfgs.iter().map(Cfg::len).sum();
    eprintln!("{} functions, {blocks} blocks", cfgs.len());
    let mut g = c.benchmark_group("cfg");
    g.throughput(Throughput::Elements(cfgs.len() as u64));
    g.bench_function("from_function", |b| {
        b.iter(|| {
            for m in &modules {
                for f in m.functions() {
                    if !f.blocks.is_empty() {
                        let _ = black_box(Cfg::from_function(m, f));
                    }
                }
            }
        })
    });
    g.bench_function("analysis", |b| {
        b.iter(|| {
            for cfg in &cfgs {
                black_box(Analysis::new(cfg).ok());
            }
        })
    });
    for (name, strategy) in [("merges", Strategy::Merges), ("general", Strategy::General)] {
        g.bench_function(format!("structurize/{name}"), |b| {
            b.iter(|| {
                for cfg in &cfgs {
                    black_box(structurize(cfg, strategy).ok());
                }
            })
        });
    }
    g.finish();

    let validated: Vec<(&spv_reader::Module, spv_validate::ModuleInfo)> = modules
        .iter()
        .filter_map(|m| Some((m, spv_validate::validate(m, &Default::default()).ok()?)))
        .collect();
    let functions = validated
        .iter()
        .flat_map(|(m, _)| m.functions())
        .filter(|f| !f.blocks.is_empty())
        .count();
    let mut g = c.benchmark_group("valid");
    g.throughput(Throughput::Elements(functions as u64));
    g.bench_function("from_function", |b| {
        b.iter(|| {
            for (m, _) in &validated {
                for f in m.functions().iter().filter(|f| !f.blocks.is_empty()) {
                    let _ = black_box(Cfg::from_function(m, f));
                }
            }
        })
    });
    g.bench_function("from_validated", |b| {
        b.iter(|| {
            for (m, info) in &validated {
                for f in m.functions().iter().filter(|f| !f.blocks.is_empty()) {
                    if let Some(facts) = info.function(f.id) {
                        let _ = black_box(Cfg::from_validated(m, f, facts));
                    }
                }
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
