//! Criterion benchmark `validate`: reading and validating every module of
//! `../shared/corpus` in its manifest environment, reported as bytes per second. Without
//! the corpus it measures the committed test shaders instead.

use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use spv_validate::{Options, TargetEnv, validate};

fn modules() -> Vec<(Vec<u8>, TargetEnv)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../../shared/corpus");
    if let Ok(manifest) = std::fs::read_to_string(corpus.join("manifest.tsv")) {
        let header: Vec<&str> = manifest.lines().next().unwrap_or("").split('\t').collect();
        let col = |n: &str| header.iter().position(|h| *h == n);
        if let (Some(pc), Some(ec)) = (col("path"), col("val_env")) {
            return manifest
                .lines()
                .skip(1)
                .filter_map(|line| {
                    let f: Vec<&str> = line.split('\t').collect();
                    let bytes = std::fs::read(corpus.join(f.get(pc)?)).ok()?;
                    let env = f.get(ec)?.parse().ok()?;
                    Some((bytes, env))
                })
                .collect();
        }
    }
    eprintln!(
        "no corpus at {}: benchmarking the test shaders",
        corpus.display()
    );
    ["saxpy", "loops", "functions"]
        .iter()
        .filter_map(|n| std::fs::read(root.join(format!("tests/shaders/{n}.vk12.spv"))).ok())
        .map(|b| (b, TargetEnv::Vulkan(1, 2)))
        .collect()
}

fn bench(c: &mut Criterion) {
    let modules = modules();
    let bytes: usize = modules.iter().map(|(b, _)| b.len()).sum();
    let read: Vec<(spv_reader::Module, TargetEnv)> = modules
        .iter()
        .filter_map(|(b, e)| spv_reader::read(b).ok().map(|m| (m, *e)))
        .collect();
    let mut group = c.benchmark_group("validate");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("read+validate corpus", |bench| {
        bench.iter(|| {
            let mut valid = 0usize;
            for (b, env) in &modules {
                if let Ok(m) = spv_reader::read(b) {
                    valid += usize::from(validate(&m, &Options::new(*env)).is_ok());
                }
            }
            valid
        })
    });
    group.bench_function("validate corpus (already read)", |bench| {
        bench.iter(|| {
            read.iter()
                .filter(|(m, env)| validate(m, &Options::new(*env)).is_ok())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
