//! Fuzz target `validate`: any bytes that read as a module must validate to `Ok` or `Err`
//! in every environment, never a panic or hang; the diagnostics must format. Inputs that
//! do not read are also mutated structurally (`spv_validate::mutate`) when they are modules,
//! so that the fuzzer reaches deep validator states from corpus seeds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spv_validate::{Options, TargetEnv, mutate, validate};

const ENVS: [TargetEnv; 3] = [
    TargetEnv::ModuleVersion,
    TargetEnv::Vulkan(1, 3),
    TargetEnv::OpenCl(2, 2),
];

fn check(words: &[u32]) {
    if let Ok(module) = spv_reader::read_words(words) {
        for env in ENVS {
            if let Err(d) = validate(&module, &Options::new(env)) {
                let _ = d.to_string();
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    check(&words);
    let seed = words.last().copied().unwrap_or(0);
    for (_, mutant) in mutate::mutants(&words, u64::from(seed), 2) {
        check(&mutant);
    }
});
