//! The worked compute example of amd-il.md §1.13, built in code, written as text and tokens.

use il_model::{Control, Dst, Family, Inst, Opcode, Program, RegType, ShaderKind, Src, verify};
use il_writer::{to_text, to_tokens, tokens_to_bytes};
use pretty_assertions::assert_eq;

/// The §1.13 kernel with `ret_dyn` before `end` (DESIGN.md: programs end `ret_dyn`, `end`).
fn digest_kernel() -> Program {
    let mut p = Program::new(ShaderKind::Compute);
    p.push(Inst::new(Opcode::DclNumThreadPerGroup).extra(&[64, 1, 1]))
        .push(Inst::new(Opcode::DclRawUav).ctrl(Control::id(0)))
        .push(Inst::literal(0, [2, 1, 0, 0]))
        .push(
            Inst::new(Opcode::IShl)
                .dst(Dst::temp(0).mask("x___"))
                .src(Src::special(RegType::AbsoluteThreadIdFlat).swz("x"))
                .src(Src::literal(0).swz("x")),
        )
        .push(
            Inst::new(Opcode::UavRawLoad)
                .ctrl(Control::id(0))
                .dst(Dst::temp(1).mask("x___"))
                .src(Src::temp(0).swz("x")),
        )
        .push(
            Inst::new(Opcode::IAdd)
                .dst(Dst::temp(1).mask("x___"))
                .src(Src::temp(1).swz("x"))
                .src(Src::literal(0).swz("y")),
        )
        .push(
            Inst::new(Opcode::UavRawStore)
                .ctrl(Control::id(0))
                .dst(Dst::mem().mask("x___"))
                .src(Src::temp(0).swz("x"))
                .src(Src::temp(1).swz("x")),
        )
        .push(Inst::new(Opcode::RetDyn))
        .push(Inst::new(Opcode::End));
    p
}

#[test]
fn digest_1_13_tokens_word_for_word() {
    // Expected words: the digest's hand-checked table amd-il.md §1.13 (MOVA-corrected opcodes),
    // plus `ret_dyn` = IL_OP_RET_DYN, Appendix-B index 114 + 1 = 115 = 0x73 (amd-il.md §2.1).
    let expected: Vec<u32> = vec![
        0x00000000, // IL_Lang GENERIC
        0x00030200, // IL_Version 2.0 CS
        0x000300D4, 0x00000040, 0x00000001, 0x00000001, // dcl_num_thread_per_group 64, 1, 1
        0x000000DE, // dcl_raw_uav_id(0)
        0x00000079, 0x00200000, 0x00000002, 0x00000001, 0x00000000, 0x00000000, // dcl_literal
        0x0000009C, 0x00440000, 0x00000001, 0x006C0000, 0x00000000, 0x00600000,
        0x00000000, // ishl
        0x000000E1, 0x00440001, 0x00000001, 0x00440000, 0x00000000, // uav_raw_load_id(0)
        0x00000091, 0x00440001, 0x00000001, 0x00440001, 0x00000000, 0x00600000,
        0x00001111, // iadd
        0x000000E4, 0x006F0000, 0x00000001, 0x00440000, 0x00000000, 0x00440001,
        0x00000000, // store
        0x00000073, // ret_dyn
        0x00000028, // end
    ];
    assert_eq!(to_tokens(&digest_kernel()), expected);
}

#[test]
fn digest_1_13_text() {
    // The §1.13 listing in the writer's canonical style (§3 of the digest); comments dropped.
    let expected = "il_cs_2_0
dcl_num_thread_per_group 64, 1, 1
dcl_raw_uav_id(0)
dcl_literal l0, 0x00000002, 0x00000001, 0x00000000, 0x00000000
ishl r0.x___, vAbsTidFlat.x, l0.x
uav_raw_load_id(0) r1.x___, r0.x
iadd r1.x___, r1.x, l0.y
uav_raw_store_id(0) mem.x___, r0.x, r1.x
ret_dyn
end
";
    assert_eq!(to_text(&digest_kernel()), expected);
}

#[test]
fn digest_kernel_verifies_on_every_uav_capable_family() {
    let p = digest_kernel();
    // `mem` (GENERIC_MEM) is Evergreen+ per Appendix D (digest §8.4).
    for family in [Family::Evergreen, Family::Cayman, Family::Si] {
        assert_eq!(verify(&p, family), Ok(()), "{family:?}");
    }
    let errors = verify(&p, Family::R600).expect_err("R600 has no UAVs");
    assert!(errors.iter().any(|e| e.message.contains("uav_raw_load")));
}

#[test]
fn bytes_are_little_endian() {
    assert_eq!(
        tokens_to_bytes(&[0x000300D4, 0x11223344]),
        vec![0xD4, 0x00, 0x03, 0x00, 0x44, 0x33, 0x22, 0x11]
    );
}
