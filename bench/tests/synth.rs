//! The synthetic scaling modules are what the scaling table claims: valid SPIR-V of the stated
//! size. (spirv-val 2025.5 also accepts all of them with `--target-env vulkan1.1`; that check is
//! manual because `cargo test` needs no external tool.)

use spv2il_bench::synth::{SCALES, SHAPES, module_bytes};

#[test]
fn every_synthetic_module_reads_validates_and_grows_with_its_scale() {
    for shape in SHAPES {
        let mut previous_len = 0;
        for scale in SCALES {
            let bytes = module_bytes(shape, scale).expect("the builder accepts the shape");
            let module = spv_reader::read(&bytes).expect("the module reads");
            let validated = spv_validate::validate(&module, &spv_validate::Options::default());
            assert!(
                validated.is_ok(),
                "{} at {scale}x: {:?}",
                shape.name(),
                validated.err()
            );
            // Each step multiplies the size parameter by 4; the fixed prologue (types, the
            // buffer, the entry point, about 600 bytes) keeps the smallest steps below 4x.
            assert!(
                bytes.len() > previous_len * 2,
                "{} at {scale}x is {} bytes, not more than twice {previous_len}",
                shape.name(),
                bytes.len()
            );
            previous_len = bytes.len();
        }
    }
}
