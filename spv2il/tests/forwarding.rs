//! Copy forwarding must keep every load copy whose variable is written again before the copy
//! is read: `tests/shaders/forwarding/copies_kept.spvasm` reads each loaded value after such a
//! write (a store, a store through an access chain, a call taking the variable's pointer, a
//! callee writing a Private variable, a store in another block, a loop's continue block and
//! back edge, Modf's pointer result). The program runs in il-sim and every output is compared
//! with the value worked out by hand from the shader's SPIR-V (the comments there give the
//! formulas); forwarding any of those copies would yield the variable's new value instead.

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
        _ => 100 + 1000 * x,
    }
}

#[test]
fn copies_read_after_their_variable_is_written_are_kept() {
    let path = format!(
        "{}/tests/shaders/forwarding/copies_kept.spv",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).expect("read the test shader");
    let translation = translate(&bytes, &Options::new(Family::Cayman)).expect("translates");
    let input_bytes: Vec<u8> = (0..ROWS).flat_map(|i| input(i).to_le_bytes()).collect();
    let mut dispatch = il_sim::Dispatch::new([1, 1, 1]);
    let mut output_id = None;
    for resource in &translation.reflection.resources {
        assert_eq!(resource.kind, ResourceKind::RawUav, "storage buffers only");
        let id = resource.il_id as usize;
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
