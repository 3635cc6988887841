//! Copy forwarding must keep every load copy whose variable is written again before the copy
//! is read: `tests/shaders/forwarding/copies_kept.spvasm` reads each loaded value after such a
//! write (a store, a store through an access chain, a call taking the variable's pointer, a
//! callee writing a Private variable, a store in another block, a loop's continue block and
//! back edge, Modf's pointer result). `tests/shaders/forwarding/copies_forwarded.spvasm` covers
//! the copies the lowering leaves out (whole-array and element loads of indexed temporary
//! arrays, constant-buffer values read in place, phi and store forwarding, loads followed
//! through a bitcast, an extended instruction and an access-chain index), each next to a write
//! that would make leaving it out wrong. The programs run in il-sim and every output is
//! compared with the value worked out by hand from the shader's SPIR-V (the comments there
//! give the formulas); a wrong forwarding would yield a variable's new value instead.

use spv2il::{Family, Options, ResourceKind, translate};

/// Work-group size of the shader, and so the number of rows.
const ROWS: usize = 64;
/// Outputs per row (cases 0–7).
const CASES: usize = 8;

/// The input of row `i`: small enough that no case overflows, and on both sides of case 4's
/// threshold (32).
fn input(i: usize) -> u32 {
    3 * i as u32 + 1
}

/// What case `k` writes for input `x` (the formulas of the shader's comments).
fn expected(k: usize, x: u32) -> u32 {
    match k {
        0 => 100 * x + (x + 1),
        1 => 10 * (x + 2) + 7,
        2 => x + 16 * (3 * x),
        3 => x + 2 * (x + 5),
        4 if x < 32 => 100 * x + 9,
        4 => 101 * x,
        5 => x + 2 * x + 4 * x,
        6 => x + 10,
        _ => 100 + 1000 * (x & 0xFFFF),
    }
}

/// Translates test shader `name` (under `tests/shaders/forwarding/`) for Cayman, runs it in
/// il-sim with the row inputs in binding 0 and `uniforms` (16-byte elements) in binding 2, and
/// checks every output of binding 1 against `expected(case, input)`.
fn check_rows(name: &str, uniforms: &[[u32; 4]], expected: fn(usize, u32) -> u32) {
    let path = format!(
        "{}/tests/shaders/forwarding/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).expect("read the test shader");
    let translation = translate(&bytes, &Options::new(Family::Cayman)).expect("translates");
    let input_bytes: Vec<u8> = (0..ROWS).flat_map(|i| input(i).to_le_bytes()).collect();
    let mut dispatch = il_sim::Dispatch::new([1, 1, 1]);
    let mut output_id = None;
    for resource in &translation.reflection.resources {
        let id = resource.il_id as usize;
        match resource.kind {
            ResourceKind::RawUav => {
                if dispatch.uavs.len() <= id {
                    dispatch.uavs.resize(id + 1, Vec::new());
                }
                dispatch.uavs[id] = match resource.binding {
                    Some(0) => input_bytes.clone(),
                    Some(1) => {
                        output_id = Some(id);
                        vec![0; 4 * ROWS * CASES]
                    }
                    other => panic!("unexpected binding {other:?}"),
                };
            }
            ResourceKind::ConstantBuffer if !uniforms.is_empty() => {
                assert_eq!(resource.binding, Some(2), "the uniform block");
                if dispatch.cbs.len() <= id {
                    dispatch.cbs.resize(id + 1, Vec::new());
                }
                dispatch.cbs[id] = uniforms.to_vec();
            }
            other => panic!("unexpected resource {other:?}"),
        }
    }
    il_sim::run(&translation.program, &mut dispatch).expect("il-sim runs the program");
    let output = &dispatch.uavs[output_id.expect("the output buffer is bound")];
    let mut wrong = Vec::new();
    for row in 0..ROWS {
        for case in 0..CASES {
            let at = 4 * (CASES * row + case);
            let got = u32::from_le_bytes(output[at..at + 4].try_into().expect("four bytes"));
            let want = expected(case, input(row));
            if got != want {
                wrong.push(format!("row {row} case {case}: {got}, expected {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn copies_read_after_their_variable_is_written_are_kept() {
    check_rows("copies_kept", &[], expected);
}

/// The uniform block of `copies_forwarded`: five words at offsets 0–16 (two 16-byte elements).
const UNIFORMS: [u32; 5] = [5, 7, 2, 11, 13];

/// What case `k` of `copies_forwarded` writes for input `x` (the formulas of the shader's
/// comments, with the uniform block [`UNIFORMS`]).
fn expected_forwarded(k: usize, x: u32) -> u32 {
    let [u0, u1, u2, u3, u4] = UNIFORMS;
    match k {
        0 => 1000 * (x + 1) + 100 + 10 * (x + 2),
        1 => 10 * (x + (x & 3)) + 7,
        2 => u0 * u1 + u2 + 9 + (u3 + 13) + u4 * u0 + x,
        3 if x & 3 == 2 => 7,
        3 => x + 2,
        4 => (3 * x + 2) + 1000 * (2 * x + 1),
        5 => 6 * x,
        6 => 17 * x + 77006 + 100_000 * x.max(10),
        _ => 1001 * x,
    }
}

#[test]
fn forwarded_copies_read_what_the_copies_would_have_held() {
    let [u0, u1, u2, u3, u4] = UNIFORMS;
    check_rows(
        "copies_forwarded",
        &[[u0, u1, u2, u3], [u4, 0, 0, 0]],
        expected_forwarded,
    );
}
