//! Binary token writer (amd-il.md §1: IL_Lang, IL_Version, then instruction packets).

use il_model::{ControlLayout, Dst, Extra, Index, Inst, Opcode, Program, Reg, Src};

/// Encodes `program` as 32-bit tokens (amd-il.md §1.1–§1.11).
///
/// The writer trusts the model (run [`il_model::verify`] first); on a model that breaks the rules it
/// still returns tokens and never panics, but they may not decode back to the same model.
pub fn to_tokens(program: &Program) -> Vec<u32> {
    let mut out = Vec::with_capacity(2 + program.body.len() * 6);
    // §1.1: macro definitions may precede the IL_Lang token.
    for inst in &program.macros {
        encode_inst(inst, &mut out);
    }
    // §1.2: IL_Lang, client type in bits 7:0.
    out.push(program.language.value());
    // §1.3: IL_Version.
    out.push(
        u32::from(program.version.1)
            | u32::from(program.version.0) << 8
            | program.shader.value() << 16
            | u32::from(program.multipass) << 24
            | u32::from(program.realtime) << 25,
    );
    for inst in &program.body {
        encode_inst(inst, &mut out);
    }
    out
}

/// Little-endian bytes of a token stream (the on-disk form).
pub fn tokens_to_bytes(tokens: &[u32]) -> Vec<u8> {
    tokens.iter().flat_map(|t| t.to_le_bytes()).collect()
}

/// The 16 control bits of the opcode token (bits 31:16) for `inst`, derived fields filled in.
pub(crate) fn opcode_high_bits(inst: &Inst) -> u16 {
    let info = inst.info();
    let layout = info.control;
    let mut ctrl = inst.ctrl.0;
    if layout == ControlLayout::CountOfExtra {
        // §1.11: the number of values (1–3) is the control field.
        ctrl = (ctrl & !0x3FFF) | (inst.extra.len().min(0x3FFF) as u16);
    }
    if matches!(layout, ControlLayout::Sample | ControlLayout::Load) && inst.addr_offset.is_some() {
        // §1.10: bit 29 = aoffimmi present.
        ctrl |= 1 << 13;
    }
    if !layout.owns_modifier_bits() {
        // §1.4: bit 31 = primary modifier present, bit 30 = secondary modifier present.
        ctrl &= 0x3FFF;
        ctrl |= u16::from(inst.pri_mod.is_some()) << 15 | u16::from(inst.sec_mod.is_some()) << 14;
    }
    ctrl
}

fn encode_inst(inst: &Inst, out: &mut Vec<u32>) {
    let info = inst.info();
    out.push(u32::from(inst.op.code()) | u32::from(opcode_high_bits(inst)) << 16);
    out.extend(inst.pri_mod);
    out.extend(inst.sec_mod);
    out.extend(inst.resource_format);
    out.extend(inst.addr_offset);
    if inst.op == Opcode::Macrocall {
        // §1.11: mcall(k) · {outputs 15:0, inputs 31:16} · dst tokens · src tokens.
        out.push((inst.dst.len() as u32 & 0xFFFF) | (inst.src.len() as u32 & 0xFFFF) << 16);
    }
    for dst in &inst.dst {
        encode_dst(dst, out);
    }
    for src in &inst.src {
        encode_src(src, out);
    }
    match info.extra {
        Extra::LabelList => {
            // §1.11: a count word, then the labels.
            out.push(inst.extra.len() as u32);
            out.extend_from_slice(&inst.extra);
        }
        Extra::ImmediateConstants if inst.ctrl.0 & 0x8000 != 0 => {
            // Guide §7.5 DCL_CB: with bit 31 set, a count word then the values.
            out.push(inst.extra.len() as u32);
            out.extend_from_slice(&inst.extra);
        }
        Extra::InterfacePtr => {
            // Guide §7.18 DCL_INTERFACE_PTR: array_size · length · count · table ids.
            let (head, ids) = inst.extra.split_at(inst.extra.len().min(2));
            out.extend_from_slice(head);
            out.push(ids.len() as u32);
            out.extend_from_slice(ids);
        }
        Extra::MacroSignature if inst.op == Opcode::Macrocall => {}
        Extra::Comment => {
            // §1.11: length (number of following dwords) in bits 15:0.
            out.push(inst.extra.len() as u32 & 0xFFFF);
            out.extend_from_slice(&inst.extra);
        }
        _ => out.extend_from_slice(&inst.extra),
    }
}

/// The IL_Dst_Mod token (§1.5).
pub(crate) fn dst_mod(dst: &Dst) -> u32 {
    let mut m = 0;
    for (i, c) in dst.mask.iter().enumerate() {
        m |= c.value() << (2 * i);
    }
    m | u32::from(dst.sat) << 8 | dst.shift.value() << 9
}

/// The IL_Src_Mod token (§1.6).
pub(crate) fn src_mod(src: &Src) -> u32 {
    let mut m = 0;
    for i in 0..4 {
        m |= src.swizzle[i].value() << (4 * i) | u32::from(src.neg[i]) << (4 * i + 3);
    }
    m | u32::from(src.invert) << 16
        | u32::from(src.bias) << 17
        | u32::from(src.x2) << 18
        | u32::from(src.sign) << 19
        | u32::from(src.abs) << 20
        | src.divcomp.value() << 21
        | u32::from(src.clamp) << 24
}

fn encode_dst(dst: &Dst, out: &mut Vec<u32>) {
    let modifier = dst.has_modifier().then(|| dst_mod(dst));
    encode_operand(&dst.reg, modifier, out);
}

fn encode_src(src: &Src, out: &mut Vec<u32>) {
    let modifier = src.has_modifier().then(|| src_mod(src));
    encode_operand(&src.reg, modifier, out);
}

/// One operand per the algorithm of amd-il.md §1.9.
fn encode_operand(reg: &Reg, modifier: Option<u32>, out: &mut Vec<u32>) {
    let (addressing, immediate) = match &reg.index {
        None => (0, false),
        Some(Index::Imm(_)) => (0, true),
        Some(Index::AddrReg { offset, .. }) => (1, offset.is_some()),
        Some(Index::Rel { offset, .. }) => (2, offset.is_some()),
    };
    let extended = reg.num > 0xFFFF;
    out.push(
        (reg.num & 0xFFFF)
            | u32::from(reg.ty.value()) << 16
            | u32::from(modifier.is_some()) << 22
            | addressing << 23
            | u32::from(reg.dim2.is_some()) << 25
            | u32::from(immediate) << 26
            | u32::from(extended) << 31,
    );
    out.extend(modifier);
    if extended {
        // §1.5 leaves the position of the high-half token open (amd-il.md §10 item 4); we put it
        // right after the header and its modifier, before any index tokens.
        out.push(reg.num >> 16);
    }
    match &reg.index {
        Some(Index::Rel { reg: index, offset }) => {
            encode_src(index, out);
            out.extend(*offset);
            if let Some(second) = &reg.dim2 {
                encode_src(second, out);
            }
        }
        Some(Index::AddrReg { rel_addr, offset }) => {
            out.push(*rel_addr);
            out.extend(*offset);
            if let Some(second) = &reg.dim2 {
                encode_src(second, out);
            }
        }
        Some(Index::Imm(imm)) => {
            // Absolute with both a second dimension and an immediate: the order is open
            // (amd-il.md §1.9); like GRVK's decoder we put the second level first.
            if let Some(second) = &reg.dim2 {
                encode_src(second, out);
            }
            out.push(*imm);
        }
        None => {
            if let Some(second) = &reg.dim2 {
                encode_src(second, out);
            }
        }
    }
}
