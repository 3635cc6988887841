//! Fuzz target `run`: any IL text that il-reader accepts runs in il-sim to a result or a
//! located error, never a panic, hang or huge allocation (il-sim's promise, `il_sim::run`).
//! Every UAV and constant buffer an IL program can name by a small id is bound (raw bytes,
//! zeroed), so that programs get past binding and into execution; the work-group comes from
//! the program or, when it declares none, from the dispatch.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Instructions one dispatch may execute: small, so that a fuzzed endless loop ends at once.
const STEP_LIMIT: u64 = 100_000;

/// UAV and constant-buffer ids bound (the Evergreen guide's UAV ids 0–7 and arena 8, and
/// cb0–cb14, amd-il.md §8.5).
const UAVS: usize = 12;
const CBS: usize = 15;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = il_reader::parse_text(text) else {
        return;
    };
    let mut dispatch = il_sim::Dispatch::new([2, 1, 1]);
    dispatch.step_limit = STEP_LIMIT;
    dispatch.uavs = vec![vec![0; 1024]; UAVS];
    dispatch.srvs = vec![vec![0; 1024]; UAVS];
    dispatch.cbs = vec![vec![[0; 4]; 64]; CBS];
    if let Err(e) = il_sim::run(&program, &mut dispatch) {
        let _ = e.to_string();
        // Without a declared work-group size, the dispatch gives one.
        if e.kind == il_sim::ErrorKind::Malformed {
            dispatch.group_size = Some([4, 1, 1]);
            let _ = il_sim::run(&program, &mut dispatch).map_err(|e| e.to_string());
        }
    }
});
