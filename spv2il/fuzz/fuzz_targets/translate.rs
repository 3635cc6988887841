//! Fuzz target `translate`: the whole pipeline, bytes to IL, for each target family (Evergreen,
//! Cayman, Southern Islands; older families are refused up front, see spv2il's
//! `tests/targets.rs`). Any bytes must give a translation or an error that formats, never a
//! panic, hang or huge allocation, and never `Error::Internal` (IL that il-model's verifier
//! rejects is a bug of the lowering, not of the input). A translation's text must read back
//! (il-reader) and print the same, and its tokens must decode to the same program: the writers
//! are exact inverses of the reader. Programs whose resources are all buffers then run in
//! il-sim (one work-group, a small step limit): il-sim refusing one as malformed (an undeclared
//! register or resource, an unbalanced block, a work-group IL cannot have) is a check the
//! verifier missed.
//!
//! Random bytes rarely survive the validator, so each input is also mutated structurally
//! (`spv_validate::mutate`, the mutations the conformance task uses): from valid compute
//! shaders among the seeds, the mutants that stay valid reach the lowering with operands,
//! literals and instruction orders no compiler emits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spv2il::{Error, Family, Options, ResourceKind, Translation, translate};

/// The families the translator targets.
const FAMILIES: [Family; 3] = [Family::Evergreen, Family::Cayman, Family::Si];

/// Mutants tried per input, on top of the input itself.
const MUTANTS: usize = 2;

/// Translates `bytes` for every family and checks what comes out.
fn check(bytes: &[u8]) {
    for family in FAMILIES {
        match translate(bytes, &Options::new(family)) {
            Ok(translation) => {
                check_round_trips(&translation);
                check_runs(&translation);
            }
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
fn check_round_trips(translation: &Translation) {
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

/// Instructions one simulated dispatch may execute: enough for straight-line programs and a few
/// loop trips, small enough that a fuzzed endless loop ends at once.
const STEP_LIMIT: u64 = 200_000;

/// Bytes behind each storage buffer and elements behind each constant buffer.
const BUFFER_BYTES: usize = 4096;
const CB_ELEMENTS: usize = 256;

/// Runs the program in il-sim over zeroed buffers, when every resource is a buffer (images need
/// formats the reflection does not give). Step limits and runtime faults are the input's
/// business (undefined behaviour the module may well contain); a malformed program is ours.
fn check_runs(translation: &Translation) {
    let mut dispatch = il_sim::Dispatch::new([1, 1, 1]);
    dispatch.step_limit = STEP_LIMIT;
    for resource in &translation.reflection.resources {
        let id = resource.il_id as usize;
        match resource.kind {
            ResourceKind::RawUav => {
                if dispatch.uavs.len() <= id {
                    dispatch.uavs.resize(id + 1, Vec::new());
                }
                dispatch.uavs[id] = vec![0; BUFFER_BYTES];
            }
            ResourceKind::ConstantBuffer
            | ResourceKind::PushConstants
            | ResourceKind::DriverConstants => {
                if dispatch.cbs.len() <= id {
                    dispatch.cbs.resize(id + 1, Vec::new());
                }
                // Ones: the one work-group in each dimension, where NumWorkgroups is read;
                // elsewhere any value is data the program may read.
                dispatch.cbs[id] = vec![[1; 4]; CB_ELEMENTS];
            }
            ResourceKind::TypedUav | ResourceKind::Texture => return,
        }
    }
    if let Err(e) = il_sim::run(&translation.program, &mut dispatch)
        && e.kind == il_sim::ErrorKind::Malformed
    {
        panic!(
            "il-sim finds the translation malformed: {e}\n{}",
            translation.text()
        );
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
