//! Seeded robustness smoke test: mutants of the committed shaders (and of a slice of the
//! shared corpus when it is present), random word flips and truncations are validated in
//! several environments. Nothing may panic; every diagnostic must name a rule of the digest
//! (`V-*` or `R-*`) and format to a non-empty message. The fuzz target `validate` runs the
//! same checks unbounded.

use std::path::PathBuf;

use spv_validate::mutate::{Rng, mutants};
use spv_validate::{Options, TargetEnv, validate};

const ENVS: [TargetEnv; 4] = [
    TargetEnv::ModuleVersion,
    TargetEnv::Vulkan(1, 0),
    TargetEnv::Vulkan(1, 3),
    TargetEnv::OpenCl(2, 2),
];

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Validates `words` everywhere; returns how many (module, environment) pairs were invalid.
fn exercise(words: &[u32]) -> usize {
    let Ok(module) = spv_reader::read_words(words) else {
        return 0;
    };
    let mut invalid = 0;
    for env in ENVS {
        if let Err(d) = validate(&module, &Options::new(env)) {
            invalid += 1;
            assert!(!d.0.is_empty());
            for diag in &d.0 {
                assert!(
                    diag.rule.starts_with("V-") || diag.rule.starts_with("R-"),
                    "{}",
                    diag.rule
                );
                assert!(!diag.message.is_empty());
            }
            assert!(d.to_string().starts_with("error: ["));
        }
    }
    invalid
}

fn seeds() -> Vec<Vec<u32>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for name in ["saxpy.vk10", "loops.vk12", "functions.vk12"] {
        let path = root.join(format!("tests/shaders/{name}.spv"));
        out.push(words_of(&std::fs::read(path).unwrap()));
    }
    let corpus = root.join("../../shared/corpus/naga-in");
    if let Ok(dir) = std::fs::read_dir(corpus) {
        let mut paths: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths.into_iter().step_by(7).take(8) {
            if let Ok(bytes) = std::fs::read(&p) {
                out.push(words_of(&bytes));
            }
        }
    }
    out
}

#[test]
fn mutants_never_panic_and_most_are_invalid() {
    let mut total = 0;
    let mut invalid = 0;
    for (k, words) in seeds().iter().enumerate() {
        for (_, mutant) in mutants(words, 1000 + k as u64, 60) {
            total += 1;
            invalid += usize::from(exercise(&mutant) > 0);
        }
    }
    assert!(total > 150, "only {total} mutants");
    // Structural mutations break some rule far more often than not (the agreement runs
    // measure about 95% invalid mutants under spirv-val too).
    assert!(invalid * 2 > total, "{invalid} of {total} mutants invalid");
}

#[test]
fn random_word_flips_and_truncations_never_panic() {
    let mut rng = Rng::new(0x5eed);
    for words in seeds() {
        for _ in 0..40 {
            let mut w = words.clone();
            let n = 1 + rng.below(4);
            for _ in 0..n {
                let at = 5 + rng.below(w.len().saturating_sub(5).max(1));
                if let Some(x) = w.get_mut(at) {
                    *x ^= 1 << rng.below(32);
                }
            }
            exercise(&w);
            let cut = 5 + rng.below(words.len().saturating_sub(5).max(1));
            exercise(&words[..cut.min(words.len())]);
        }
    }
}

#[test]
fn huge_declared_counts_do_not_allocate() {
    // A vector type claiming 2^32 - 1 components and a composite constant of it: found by
    // the fuzz target (an allocation proportional to the declared count).
    use spv_reader::rspirv::binary::Assemble;
    use spv_reader::rspirv::dr::Builder;
    use spv_reader::spirv;
    let mut b = Builder::new();
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let float = b.type_float(32, None);
    let vec = b.type_vector(float, u32::MAX);
    let one = b.constant_bit32(float, 1.0f32.to_bits());
    b.constant_composite(vec, vec![one, one]);
    let words = b.module().assemble();
    let module = spv_reader::read_words(&words).unwrap();
    let d = validate(&module, &Options::default()).unwrap_err();
    // Both the vector type (V-TYPE-4) and the constant's constituent count (V-CONST-2) are
    // wrong; the missing entry point is reported too (V-EP-1).
    assert!(d.has_rule("V-TYPE-4"), "{d}");
    assert!(d.has_rule("V-CONST-2"), "{d}");
}

#[test]
fn huge_vector_counts_in_shuffles_and_constructs_do_not_overflow() {
    // Two vectors of 2^31 components each: their combined size overflowed a u32 sum in the
    // OpVectorShuffle and OpCompositeConstruct checks (found by the conformance mutant stage
    // in a debug build).
    use spv_reader::rspirv::binary::Assemble;
    use spv_reader::rspirv::dr::Builder;
    use spv_reader::spirv;
    let mut b = Builder::new();
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let float = b.type_float(32, None);
    let huge = b.type_vector(float, 1 << 31);
    let vec4 = b.type_vector(float, 4);
    let fn_type = b.type_function(void, vec![]);
    let undef = b.undef(huge, None);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_type)
        .unwrap();
    b.begin_block(None).unwrap();
    b.vector_shuffle(vec4, None, undef, undef, vec![0, 1, 2, 3])
        .unwrap();
    b.composite_construct(vec4, None, vec![undef, undef])
        .unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![]);
    let words = b.module().assemble();
    let module = spv_reader::read_words(&words).unwrap();
    let d = validate(&module, &Options::default()).unwrap_err();
    assert!(d.has_rule("V-TYPE-4"), "{d}");
}
