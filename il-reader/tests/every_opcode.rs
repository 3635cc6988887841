//! For every opcode of the table, one instruction with every control field, modifier token and
//! trailing token its layout has round-trips text → model → text and model → tokens → model.

use il_model::enums::PixTexUsage;
use il_model::{
    Control, ControlLayout, Dst, Extra, ExtraWords, FieldKind, Inst, OPCODE_COUNT, OPCODES, OpInfo,
    Opcode, Program, Reg, RegType, ShaderKind, Src,
};
use il_reader::{decode_tokens, parse_text};
use il_writer::{to_text, to_tokens};
use pretty_assertions::assert_eq;

/// A representative non-default value for every field (the second named value where there is one).
fn sample_bits(fields: &[il_model::CtrlField]) -> u16 {
    let mut bits = 0u16;
    for f in fields {
        let v = match f.kind {
            FieldKind::Flag | FieldKind::Number { .. } | FieldKind::Operand => 1,
            FieldKind::Word(names) => names.get(1).or(names.first()).map_or(0, |(_, v)| *v),
            FieldKind::Enum { names, .. } => names.get(1).or(names.first()).map_or(0, |(_, v)| *v),
            FieldKind::Choice(names) => names
                .iter()
                .find(|(w, _)| !w.is_empty())
                .map_or(0, |(_, v)| *v),
            FieldKind::Hidden => 0,
        };
        bits |= ((v << f.lo) as u16) & f.mask();
    }
    bits
}

fn comment_words(text: &str) -> Vec<u32> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
        .collect()
}

/// One instruction exercising everything `info` allows.
fn exemplar(info: &OpInfo) -> Inst {
    let layout = info.control;
    let mut inst = Inst::new(info.op).ctrl(Control(sample_bits(layout.fields())));
    if layout == ControlLayout::Macro {
        inst.ctrl = Control(3);
    }
    if layout == ControlLayout::DclCb {
        // The immediate form has its own test below.
        inst.ctrl = Control::NONE;
    }
    let primary = layout.primary_fields();
    if !primary.is_empty() {
        inst.mods_mut().pri_mod = Some(u32::from(sample_bits(primary)));
    }
    if matches!(
        layout,
        ControlLayout::Sample
            | ControlLayout::Load
            | ControlLayout::ResInfo
            | ControlLayout::BufInfo
    ) {
        // `_ext`: indexed resource, with its resource-type token (amd-il.md §1.10).
        inst.ctrl.0 |= 1 << 12;
        inst.mods_mut().resource_format = Some(PixTexUsage::Tex2dArray.value());
    }
    if matches!(layout, ControlLayout::Sample | ControlLayout::Load) {
        inst.mods_mut().addr_offset = Some(0x00_FF_02); // u = 1, v = -0.5, w = 0
    }
    let n_dst = if info.op == Opcode::Macrocall {
        2
    } else {
        usize::from(info.dst)
    };
    let n_src = if info.op == Opcode::Macrocall {
        2
    } else {
        usize::from(info.src + layout.extra_srcs(inst.ctrl.0))
    };
    for i in 0..n_dst {
        inst.dst.push(Dst::temp(1 + i as u32).mask("xy_1"));
    }
    for i in 0..n_src {
        inst.src.push(Src::temp(2 + i as u32).swz("yzwx"));
    }
    inst.extra = ExtraWords::from_vec(match info.extra {
        Extra::None | Extra::ImmediateConstants => vec![],
        Extra::Label => vec![5],
        Extra::CaseValue => vec![-3i32 as u32],
        Extra::Words(n) => (1..=u32::from(n)).map(|i| i * 0x0101_0101).collect(),
        Extra::Float => vec![1.5f32.to_bits()],
        Extra::CountedWords => vec![8, 4, 2],
        Extra::Comment => comment_words("made by spv2il"),
        Extra::LabelList => vec![0, 3],
        Extra::InterfacePtr => vec![1, 2, 0, 1, 2],
        Extra::MacroSignature if info.op == Opcode::Macrodef => vec![0x0001_0102],
        Extra::MacroSignature => vec![],
        Extra::ResourceFormat => vec![0xB6D0_0000],
        Extra::StrideLength => vec![4, 64],
    });
    inst
}

fn round_trip(program: &Program) -> Result<(), String> {
    let text = to_text(program);
    let parsed = parse_text(&text).map_err(|e| format!("{e}\n{text}"))?;
    if &parsed != program {
        return Err(format!(
            "text → model differs\n{text}\n{parsed:#?}\n{program:#?}"
        ));
    }
    let decoded = decode_tokens(&to_tokens(program)).map_err(|e| format!("{e}\n{text}"))?;
    if &decoded != program {
        return Err(format!("tokens → model differs\n{text}\n{decoded:#?}"));
    }
    if to_text(&decoded) != text {
        return Err(format!("text after tokens differs\n{text}"));
    }
    Ok(())
}

#[test]
fn every_opcode_round_trips() {
    let mut failures = Vec::new();
    for info in &OPCODES {
        let mut program = Program::new(ShaderKind::Compute);
        if info.op != Opcode::End {
            program.body.push(exemplar(info));
        }
        program.body.push(Inst::new(Opcode::End));
        if let Err(e) = round_trip(&program) {
            failures.push(format!("{}: {e}", info.mnemonic));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {OPCODE_COUNT} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn immediate_constant_buffer_round_trips() {
    let mut program = Program::new(ShaderKind::Compute);
    program.body.push(
        Inst::new(Opcode::DclConstBuffer)
            .ctrl(Control(0x8000))
            .extra(&[0x3F80_0000, 7, 0]),
    );
    program.body.push(Inst::new(Opcode::End));
    assert_eq!(round_trip(&program), Ok(()));
    assert_eq!(
        to_tokens(&program)[2..],
        [0x8000_0076, 3, 0x3F80_0000, 7, 0, 0x28]
    );
}

#[test]
fn every_register_type_round_trips() {
    for info in il_model::REG_TYPES
        .iter()
        .filter(|i| i.ty != RegType::Vertex)
    {
        let mut program = Program::new(ShaderKind::Pixel);
        let reg = Reg::new(info.ty, 3);
        program
            .body
            .push(Inst::new(Opcode::Mov).dst(Dst::new(reg)).src(Src::new(reg)));
        program.body.push(Inst::new(Opcode::End));
        assert_eq!(round_trip(&program), Ok(()), "{:?}", info.ty);
    }
}
