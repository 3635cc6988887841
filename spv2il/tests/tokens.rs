//! The binary form of the sample shader, checked token by token against the AMD IL digest.
//!
//! The expected words below were derived by hand from `reference/amd-il.md` §1–2 and compared
//! with the worked example of §1.13 (which uses the same instructions: `dcl_num_thread_per_group`,
//! `dcl_literal`, `ishl`, `iadd`, `uav_raw_store_id(0) mem.x___`, `end`):
//!
//! * opcode token = MOVA-corrected code in bits 15:0, control in 29:16 (§1.4, §2.1): `mov` 71 =
//!   0x47, `imul` 149 = 0x95, `iadd` 145 = 0x91, `ishl` 156 = 0x9C, `uav_raw_store` 228 = 0xE4
//!   with id 0, `dcl_raw_uav` 222 = 0xDE, `dcl_literal` 121 = 0x79, `dcl_num_thread_per_group`
//!   212 = 0xD4 with control 3 (the number of values), `ret_dyn` 115 = 0x73, `end` 40 = 0x28;
//! * operand token = number | type << 16 | modifier_present << 22 (§1.5, §1.6): TEMP = 4, so
//!   `r5` with a modifier is 0x00440005; LITERAL = 32 → 0x0060000N; ABSOLUTE_THREAD_ID = 43 →
//!   0x006B0000; GENERIC_MEM = 47 → 0x006F0000; `dcl_literal`'s own operand has no modifier
//!   (0x0020000N, §1.11);
//! * destination modifier `.x___` = 0x00000001 (§1.5), source swizzle `.x` (= `.xxxx`) =
//!   0x00000000 (§1.6).

#[test]
fn sample_tokens_match_the_digest() {
    let spv = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/shaders/gid_mul_add.spv"
    ))
    .expect("the committed sample");
    let tokens = spv2il::translate(&spv, &spv2il::Options::default())
        .expect("translates")
        .tokens();
    #[rustfmt::skip]
    let expected: Vec<u32> = vec![
        0x0000_0000,                                         // IL_Lang: generic
        0x0003_0200,                                         // il_cs_2_0
        0x0003_00D4, 64, 1, 1,                               // dcl_num_thread_per_group 64, 1, 1
        0x0000_0079, 0x0020_0000, 3, 3, 3, 3,                // dcl_literal l0, 3 ×4
        0x0000_0079, 0x0020_0001, 7, 7, 7, 7,                // dcl_literal l1, 7 ×4
        0x0000_0079, 0x0020_0002, 2, 2, 2, 2,                // dcl_literal l2, 2 ×4
        0x0000_00DE,                                         // dcl_raw_uav_id(0)
        0x0000_0047, 0x0044_0000, 0x01, 0x006B_0000, 0x0000, // mov r0.x___, vAbsTid.x
        0x0000_0095, 0x0044_0003, 0x01, 0x0044_0000, 0x0000, 0x0060_0000, 0x0000, // imul r3.x___, r0.x, l0.x
        0x0000_0091, 0x0044_0004, 0x01, 0x0044_0003, 0x0000, 0x0060_0001, 0x0000, // iadd r4.x___, r3.x, l1.x
        0x0000_009C, 0x0044_0005, 0x01, 0x0044_0000, 0x0000, 0x0060_0002, 0x0000, // ishl r5.x___, r0.x, l2.x
        0x0000_00E4, 0x006F_0000, 0x01, 0x0044_0005, 0x0000, 0x0044_0004, 0x0000, // uav_raw_store_id(0) mem.x___, r5.x, r4.x
        0x0000_0073,                                         // ret_dyn
        0x0000_0028,                                         // end
    ];
    assert_eq!(tokens, expected);
}
