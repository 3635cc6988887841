//! Fuzz target `il_tokens`: any bytes, read as little-endian tokens, must give `Ok` or a located
//! `Err` from `il_reader::decode_tokens`, never a panic, hang or huge allocation. A stream that
//! decodes must re-encode (`il_writer::to_tokens`) to tokens that decode to the same program, and
//! print to text without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let tokens: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if let Ok(program) = il_reader::decode_tokens(&tokens) {
        let again = il_writer::to_tokens(&program);
        assert_eq!(il_reader::decode_tokens(&again).as_ref(), Ok(&program));
        let text = il_writer::to_text(&program);
        let _ = il_reader::parse_text(&text);
        let _ = il_model::verify(&program, il_model::Family::Si);
    }
});
