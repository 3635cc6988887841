//! Throughput of `spv_reader::read` over the shared corpus (`../shared/corpus` from the
//! workspace root), with rspirv's `binary::parse_bytes` (no-op consumer) and
//! `dr::load_bytes` measured in the same run as baselines. Every function sees the same
//! bytes; rspirv's errors on the modules it rejects are ignored (it stops at the error).
//!
//! Run: `cargo bench -p spv-reader --bench read`.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use spv_reader::rspirv::binary::{Consumer, ParseAction, parse_bytes};
use spv_reader::rspirv::dr::{self, load_bytes};

fn corpus() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("../shared/corpus");
    let mut paths = Vec::new();
    collect(&dir, &mut paths);
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}

/// A consumer that drops everything: measures rspirv's decoding alone.
struct Discard;

impl Consumer for Discard {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn finalize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_header(&mut self, _: dr::ModuleHeader) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> ParseAction {
        black_box(inst);
        ParseAction::Continue
    }
}

fn read(c: &mut Criterion) {
    let modules = corpus();
    if modules.is_empty() {
        eprintln!("skipped: no corpus at ../shared/corpus");
        return;
    }
    let bytes: usize = modules.iter().map(Vec::len).sum();
    let ours = modules
        .iter()
        .filter(|m| spv_reader::read(m).is_ok())
        .count();
    let parsed = modules
        .iter()
        .filter(|m| parse_bytes(m, &mut Discard).is_ok())
        .count();
    let loaded = modules.iter().filter(|m| load_bytes(m).is_ok()).count();
    eprintln!(
        "{} modules, {bytes} bytes; accepted: spv_reader::read {ours}, \
         rspirv parse_bytes {parsed}, rspirv load_bytes {loaded}",
        modules.len()
    );

    let mut group = c.benchmark_group("read");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("spv_reader::read", |b| {
        b.iter(|| {
            for m in &modules {
                let _ = black_box(spv_reader::read(black_box(m)));
            }
        })
    });
    group.bench_function("rspirv::binary::parse_bytes", |b| {
        b.iter(|| {
            for m in &modules {
                let _ = black_box(parse_bytes(black_box(m), &mut Discard));
            }
        })
    });
    group.bench_function("rspirv::dr::load_bytes", |b| {
        b.iter(|| {
            for m in &modules {
                let _ = black_box(load_bytes(black_box(m)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
