//! Fuzz target `translate`: the whole pipeline, bytes to IL, for each target family (Evergreen,
//! Cayman, Southern Islands; older families are refused up front, see spv2il's
//! `tests/targets.rs`). Any bytes must give a translation or an error that formats, never a
//! panic, hang or huge allocation, and never `Error::Internal` (IL that il-model's verifier
//! rejects is a bug of the lowering, not of the input). A translation's text must read back
//! (il-reader) and print the same, and its tokens must decode to the same program: the writers
//! are exact inverses of the reader.
//!
//! Random bytes rarely survive the validator, so each input is also mutated structurally
//! (`spv_validate::mutate`, the mutations the conformance task uses): from valid compute
//! shaders among the seeds, the mutants that stay valid reach the lowering with operands,
//! literals and instruction orders no compiler emits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spv2il::{Error, Family, Options, translate};

/// The families the translator targets.
const FAMILIES: [Family; 3] = [Family::Evergreen, Family::Cayman, Family::Si];

/// Mutants tried per input, on top of the input itself.
const MUTANTS: usize = 2;

/// Translates `bytes` for every family and checks what comes out.
fn check(bytes: &[u8]) {
    for family in FAMILIES {
        match translate(bytes, &Options::new(family)) {
            Ok(translation) => check_round_trips(&translation),
            Err(Error::Internal(message)) => {
                panic!("the lowering produced unverifiable IL for {family:?}: {message}")
            }
            // Refusals about the module do not depend on the family: a module that does not
            // read or does not validate fails the same way for all three.
            Err(e @ (Error::Read(_) | Error::Invalid(_))) => {
                let _ = e.to_string();
                return;
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

/// The IL text reads back to a program that prints the same text, and the tokens decode to
/// the translated program itself.
fn check_round_trips(translation: &spv2il::Translation) {
    let text = translation.text();
    match il_reader::parse_text(&text) {
        Ok(parsed) => assert_eq!(il_writer::to_text(&parsed), text, "text round trip"),
        Err(e) => panic!("the IL text does not read back: {e}\n{text}"),
    }
    match il_reader::decode_tokens(&translation.tokens()) {
        Ok(decoded) => assert!(decoded == translation.program, "token round trip\n{text}"),
        Err(e) => panic!("the IL tokens do not decode: {e}\n{text}"),
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let words: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let seed = words.last().copied().unwrap_or(0);
    for (_, mutant) in spv_validate::mutate::mutants(&words, u64::from(seed), MUTANTS) {
        let bytes: Vec<u8> = mutant.iter().flat_map(|w| w.to_le_bytes()).collect();
        check(&bytes);
    }
});
