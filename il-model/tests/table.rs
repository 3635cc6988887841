//! The opcode table and enumerations against the guide's numbering (Appendix B via amd-il.md §2).

use il_model::enums::{CompSel, RelOp, ShaderKind, ZeroOp};
use il_model::{ControlLayout, OPCODE_COUNT, OPCODES, Opcode, REG_TYPES, RegType};
use std::collections::HashSet;

#[test]
fn every_appendix_b_enumerant_plus_mova() {
    assert_eq!(OPCODE_COUNT, 483);
    let appendix: Vec<u16> = OPCODES.iter().filter_map(|i| i.appendix_b).collect();
    // Appendix B v2.4: IL_OP_UNKNOWN = 0 … IL_OP_MQSAD_U8 = 481, i.e. 482 enumerants, each once.
    assert_eq!(appendix.len(), 482);
    assert_eq!(appendix.iter().copied().collect::<HashSet<_>>().len(), 482);
    assert_eq!(appendix.iter().max(), Some(&481));
    let mova: Vec<_> = OPCODES.iter().filter(|i| i.appendix_b.is_none()).collect();
    assert_eq!(mova.len(), 1);
    assert_eq!(
        (mova[0].enumerant, mova[0].code, mova[0].mnemonic),
        ("IL_OP_MOVA", 72, "mova")
    );
}

#[test]
fn codes_follow_the_mova_correction() {
    // amd-il.md §2.1: binary = Appendix-B index if ≤ 71, else index + 1.
    for (index, info) in OPCODES.iter().enumerate() {
        assert_eq!(usize::from(info.code), index);
        assert_eq!(info.op as usize, index);
        assert_eq!(Opcode::from_code(info.code), Some(info.op));
        if let Some(b) = info.appendix_b {
            assert_eq!(
                info.code,
                if b <= 71 { b } else { b + 1 },
                "{}",
                info.enumerant
            );
        }
    }
    assert_eq!(Opcode::from_code(483), None);
}

#[test]
fn spot_checks_against_the_digest_table() {
    // Values copied from amd-il.md §2.1 (MOVA-corrected column) and §1.13.
    for (op, code) in [
        (Opcode::End, 40),
        (Opcode::Mov, 71),
        (Opcode::Mul, 73),
        (Opcode::RetDyn, 115),
        (Opcode::DclLiteral, 0x79),
        (Opcode::IAdd, 0x91),
        (Opcode::IShl, 0x9C),
        (Opcode::DclNumThreadPerGroup, 0xD4),
        (Opcode::DclRawUav, 0xDE),
        (Opcode::UavRawLoad, 0xE1),
        (Opcode::UavRawStore, 0xE4),
        (Opcode::Fence, 0xDA),
        (Opcode::MqsadU8, 0x1E2),
    ] {
        assert_eq!(op.code(), code, "{op:?}");
    }
}

#[test]
fn mnemonics_and_aliases_are_unique_and_found() {
    let mut seen = HashSet::new();
    for info in &OPCODES {
        for name in std::iter::once(&info.mnemonic).chain(info.aliases) {
            assert!(seen.insert(*name), "{name} twice");
            assert_eq!(Opcode::from_mnemonic(name), Some(info.op));
        }
    }
    // Spellings of AMD's tools accepted next to the guide's (amd-il.md §2.1 notes, §10 item 29).
    assert_eq!(Opcode::from_mnemonic("and"), Some(Opcode::And));
    assert_eq!(
        Opcode::from_mnemonic("round_posinf"),
        Some(Opcode::RoundPlusInf)
    );
    assert_eq!(Opcode::from_mnemonic("emitcut"), Some(Opcode::EmitThenCut));
    assert_eq!(Opcode::EmitThenCut.info().mnemonic, "emitthencut");
}

#[test]
fn control_fields_do_not_overlap() {
    let layouts: HashSet<ControlLayout> = OPCODES.iter().map(|i| i.control).collect();
    for layout in layouts {
        for fields in [layout.fields(), layout.primary_fields()] {
            let mut used = 0u16;
            for f in fields {
                assert!(u32::from(f.lo) + u32::from(f.width) <= 16, "{layout:?}");
                assert_eq!(used & f.mask(), 0, "{layout:?} {}", f.name);
                used |= f.mask();
            }
        }
    }
}

#[test]
fn register_types_and_enumerations_have_guide_values() {
    // amd-il.md §2.2 (confirmed there against GRVK's name table) and §2.3.
    for (ty, value, name) in [
        (RegType::Temp, 4, "r"),
        (RegType::ITemp, 30, "x"),
        (RegType::ConstBuff, 31, "cb"),
        (RegType::Literal, 32, "l"),
        (RegType::Input, 33, "v"),
        (RegType::ThreadIdInGroup, 41, "vTidInGrp"),
        (RegType::AbsoluteThreadIdFlat, 44, "vAbsTidFlat"),
        (RegType::GenericMem, 47, "mem"),
        (RegType::OutputArg, 62, "out"),
    ] {
        assert_eq!((ty.value(), ty.info().name), (value, name));
    }
    assert_eq!(REG_TYPES.len(), 63);
    assert_eq!(RegType::from_value(63), None);
    assert_eq!(
        RegType::from_name("vThreadGrpID"),
        Some(RegType::ThreadGroupId)
    );
    assert_eq!(RelOp::Ne.value(), 0);
    assert_eq!(RelOp::Lt.value(), 5);
    assert_eq!(ZeroOp::FltMax.value(), 0);
    assert_eq!(ZeroOp::Infinity.value(), 2);
    assert_eq!(CompSel::One.value(), 5);
    assert_eq!(ShaderKind::Compute.value(), 3);
}
