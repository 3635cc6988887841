//! The worked compute example of amd-il.md §1.13 read from text and from tokens.

use il_reader::{decode_tokens, parse_text};
use il_writer::{to_text, to_tokens};
use pretty_assertions::assert_eq;

/// The §1.13 listing (with its comment) plus `ret_dyn` before `end`.
const DIGEST_TEXT: &str = "il_cs_2_0
dcl_num_thread_per_group 64, 1, 1
dcl_raw_uav_id(0)
dcl_literal l0, 0x00000002, 0x00000001, 0x00000000, 0x00000000
ishl r0.x___, vAbsTidFlat.x, l0.x            ; byte address = global id * 4
uav_raw_load_id(0) r1.x___, r0.x
iadd r1.x___, r1.x, l0.y
uav_raw_store_id(0) mem.x___, r0.x, r1.x
ret_dyn
end
";

/// The digest's hand-checked token table (amd-il.md §1.13) plus `ret_dyn` = 0x73 (§2.1).
const DIGEST_TOKENS: [u32; 41] = [
    0x00000000, 0x00030200, 0x000300D4, 0x00000040, 0x00000001, 0x00000001, 0x000000DE, 0x00000079,
    0x00200000, 0x00000002, 0x00000001, 0x00000000, 0x00000000, 0x0000009C, 0x00440000, 0x00000001,
    0x006C0000, 0x00000000, 0x00600000, 0x00000000, 0x000000E1, 0x00440001, 0x00000001, 0x00440000,
    0x00000000, 0x00000091, 0x00440001, 0x00000001, 0x00440001, 0x00000000, 0x00600000, 0x00001111,
    0x000000E4, 0x006F0000, 0x00000001, 0x00440000, 0x00000000, 0x00440001, 0x00000000, 0x00000073,
    0x00000028,
];

#[test]
fn digest_text_encodes_to_the_digest_tokens() {
    let program = parse_text(DIGEST_TEXT).expect("parses");
    assert_eq!(to_tokens(&program), DIGEST_TOKENS.to_vec());
}

#[test]
fn digest_tokens_decode_to_the_canonical_text() {
    let program = decode_tokens(&DIGEST_TOKENS).expect("decodes");
    let expected: String = DIGEST_TEXT.replace("            ; byte address = global id * 4", "");
    assert_eq!(to_text(&program), expected);
}
