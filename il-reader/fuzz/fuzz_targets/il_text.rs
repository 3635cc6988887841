//! Fuzz target `il_text`: any text must give `Ok` or a located `Err` from
//! `il_reader::parse_text`, never a panic, hang or huge allocation. A program that parses must
//! print (`il_writer::to_text`) to text that parses back to the same program, and encode to tokens
//! that decode back to it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(program) = il_reader::parse_text(text) {
        let printed = il_writer::to_text(&program);
        assert_eq!(
            il_reader::parse_text(&printed).as_ref(),
            Ok(&program),
            "{printed}"
        );
        let tokens = il_writer::to_tokens(&program);
        assert_eq!(
            il_reader::decode_tokens(&tokens).as_ref(),
            Ok(&program),
            "{printed}"
        );
        let _ = il_model::verify(&program, il_model::Family::Evergreen);
    }
});
