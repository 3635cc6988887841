//! Helpers shared by the integration tests: run IL text and read back UAV 0 as words.

#![allow(dead_code)] // each test binary uses a different subset

use il_sim::{Dispatch, SimError, Stats, run};

/// Parses `text` (the IL text the tests write by hand).
pub fn parse(text: &str) -> il_model::Program {
    match il_reader::parse_text(text) {
        Ok(p) => p,
        Err(e) => panic!("test program does not parse: {e}\n{text}"),
    }
}

/// Runs `text` over `groups` with UAV 0 holding `uav0` (words), returning UAV 0 afterwards.
pub fn run_uav(text: &str, groups: [u32; 3], uav0: &[u32]) -> Result<Vec<u32>, SimError> {
    run_full(text, groups, uav0).map(|(words, _)| words)
}

/// As [`run_uav`], also returning the statistics.
pub fn run_full(text: &str, groups: [u32; 3], uav0: &[u32]) -> Result<(Vec<u32>, Stats), SimError> {
    let program = parse(text);
    let mut dispatch = Dispatch::new(groups);
    dispatch.uavs = vec![uav0.iter().flat_map(|w| w.to_le_bytes()).collect()];
    let stats = run(&program, &mut dispatch)?;
    Ok((words(&dispatch.uavs[0]), stats))
}

/// Little-endian words of a byte buffer.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs `text` that must succeed with one group and a 64-word UAV 0.
pub fn run_ok(text: &str) -> Vec<u32> {
    match run_uav(text, [1, 1, 1], &[0; 64]) {
        Ok(w) => w,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Runs `text` that must fail, returning the error.
pub fn run_err(text: &str) -> SimError {
    match run_uav(text, [1, 1, 1], &[0; 64]) {
        Ok(w) => panic!("expected an error, got {:?}\n{text}", &w[..8]),
        Err(e) => e,
    }
}

fn hex4(v: [u32; 4]) -> String {
    format!(
        "{:#010x}, {:#010x}, {:#010x}, {:#010x}",
        v[0], v[1], v[2], v[3]
    )
}

/// Evaluates one instruction `op` (mnemonic with suffixes) on literal sources in a single
/// invocation: `op r0, l0, l1, ...` (the destination written in full), returning r0.
pub fn eval(op: &str, sources: &[[u32; 4]]) -> [u32; 4] {
    eval_masked(op, "", sources)
}

/// As [`eval`] with a destination mask suffix such as `.x___`; r0 starts as 0xDEADBEEF in
/// every component so unwritten components are visible.
pub fn eval_masked(op: &str, mask: &str, sources: &[[u32; 4]]) -> [u32; 4] {
    let operands: Vec<String> = (0..sources.len()).map(|i| format!("l{i}")).collect();
    eval_operands(op, mask, sources, &operands)
}

/// As [`eval_masked`] with the source operands spelled out (`l0`, `l1.x`, ...); literal `li`
/// holds `sources[i]`.
pub fn eval_operands(op: &str, mask: &str, sources: &[[u32; 4]], operands: &[String]) -> [u32; 4] {
    let mut text = String::from(
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\n\
         dcl_literal l20, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF\n\
         dcl_literal l21, 0, 0, 0, 0\n",
    );
    for (i, s) in sources.iter().enumerate() {
        text.push_str(&format!("dcl_literal l{i}, {}\n", hex4(*s)));
    }
    text.push_str("mov r0, l20\n");
    text.push_str(&format!("{op} r0{mask}, {}\n", operands.join(", ")));
    text.push_str("uav_raw_store_id(0) mem, l21.x, r0\nend\n");
    let w = run_ok(&text);
    [w[0], w[1], w[2], w[3]]
}

/// The same word in four components.
pub fn splat(x: u32) -> [u32; 4] {
    [x; 4]
}

/// f32 bits of four floats.
pub fn f4(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}
