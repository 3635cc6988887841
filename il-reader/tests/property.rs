//! Seeded property tests: random programs round-trip in both directions.

mod common;

use common::{Rng, random_program, random_valid_compute};
use il_model::{Family, verify};
use il_reader::{decode_tokens, parse_text};
use il_writer::{to_text, to_tokens};
use pretty_assertions::assert_eq;

/// Number of random programs per property (the same seeds every run).
const CASES: u64 = 400;

#[test]
fn any_representable_program_round_trips_both_ways() {
    for seed in 0..CASES {
        let program = random_program(&mut Rng::new(seed));
        // text → model → text
        let text = to_text(&program);
        let parsed = parse_text(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(parsed, program, "seed {seed}\n{text}");
        assert_eq!(to_text(&parsed), text, "seed {seed}");
        // tokens → model → tokens, with any client language (the IL_Lang token)
        let mut program = program;
        program.language =
            il_model::LanguageType::ALL[seed as usize % il_model::LanguageType::ALL.len()];
        let tokens = to_tokens(&program);
        let decoded = decode_tokens(&tokens).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(decoded, program, "seed {seed}\n{text}");
        assert_eq!(to_tokens(&decoded), tokens, "seed {seed}");
    }
}

#[test]
fn valid_compute_programs_verify_and_round_trip() {
    for seed in 0..CASES {
        let program = random_valid_compute(&mut Rng::new(seed));
        let text = to_text(&program);
        assert_eq!(
            verify(&program, Family::Evergreen),
            Ok(()),
            "seed {seed}\n{text}"
        );
        let parsed = parse_text(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(parsed, program, "seed {seed}");
        let tokens = to_tokens(&program);
        let decoded = decode_tokens(&tokens).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(decoded, program, "seed {seed}");
        assert_eq!(to_text(&decoded), text, "seed {seed}");
    }
}
