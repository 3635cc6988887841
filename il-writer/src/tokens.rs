//! Binary token writer (amd-il.md §1: IL_Lang, IL_Version, then instruction packets).
//!
//! Speed: packets of the common shape (no modifier tokens, operands with at most an immediate
//! index, trailing tokens copied as they are) are gathered in a stack buffer ([`Pending`]) that is
//! appended to the output when nearly full, with the per-opcode facts they need taken from a table
//! built once ([`FastFacts`]); every other packet goes through [`encode_inst`] after what is
//! pending is appended.

use std::sync::OnceLock;

use il_model::{
    ControlLayout, Dst, Extra, Index, Inst, Nested, NestedId, OPCODES, OpInfo, Opcode, Program,
    Reg, Src,
};

/// Encodes `program` as 32-bit tokens (amd-il.md §1.1–§1.11).
///
/// The writer trusts the model (run [`il_model::verify`] first); on a model that breaks the rules it
/// still returns tokens and never panics, but they may not decode back to the same model.
pub fn to_tokens(program: &Program) -> Vec<u32> {
    let mut out = Vec::with_capacity(2 + program.body.len() * 6);
    // §1.1: macro definitions may precede the IL_Lang token.
    for inst in &program.macros {
        encode_inst(inst, &program.nested, &mut out);
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
    let facts = FastFacts::table();
    let mut words = [0; 2 * PENDING];
    let mut pending = Pending {
        words: &mut words,
        len: 0,
    };
    for inst in &program.body {
        if !encode_fast(&mut pending, &mut out, inst, &program.nested, facts) {
            pending.drain_into(&mut out);
            encode_inst(inst, &program.nested, &mut out);
        }
    }
    pending.drain_into(&mut out);
    out
}

/// Words of [`Pending`] used (a power of two).
const PENDING: usize = 256;

/// Entries of [`FastFacts::table`]: a power of two above [`il_model::OPCODE_COUNT`], so that a
/// masked code indexes it without a bounds check.
const OP_SLOTS: usize = {
    assert!(il_model::OPCODE_COUNT <= 512);
    512
};

/// Most sources of a fast-path packet.
const FAST_MAX_SRCS: usize = 4;

/// Most trailing tokens of a fast-path packet.
const FAST_MAX_EXTRA: usize = 8;

/// Words a fast-path packet can take: the opcode token, five operands of at most three tokens
/// (header, modifier, immediate index) and the trailing tokens.
const FAST_PACKET_MAX: usize = 1 + (1 + FAST_MAX_SRCS) * 3 + FAST_MAX_EXTRA;

/// Packets of the fast path, appended to the output when the next might not fit, before any
/// packet of the general path, and at the end. [`encode_fast`] makes room for
/// [`FAST_PACKET_MAX`] words first, so the length stays below [`PENDING`].
///
/// The array is borrowed rather than held, so that the length is a value of its own that stays
/// in a register (a length stored next to the array is reloaded after every word written). It
/// is twice [`PENDING`] long and positions are masked below [`PENDING`] (which changes nothing,
/// the length being below it), so the compiler sees every write inside the array and drops the
/// bounds checks.
struct Pending<'a> {
    words: &'a mut [u32; 2 * PENDING],
    len: usize,
}

impl Pending<'_> {
    #[inline(always)]
    fn push(&mut self, word: u32) {
        if let Some(slot) = self.words.get_mut(self.len & (PENDING - 1)) {
            *slot = word;
        }
        self.len += 1;
    }

    /// Appends the words gathered to `out` and starts again.
    #[inline(always)]
    fn drain_into(&mut self, out: &mut Vec<u32>) {
        out.extend_from_slice(self.words.get(..self.len).unwrap_or(self.words.as_slice()));
        self.len = 0;
    }
}

/// What [`encode_fast`] needs to know of an opcode.
#[derive(Clone, Copy, Default)]
struct FastFacts {
    /// The packet can take the fast path: not `mcall`, and trailing tokens copied as they are.
    fast: bool,
    /// The control field is the count of trailing tokens ([`ControlLayout::CountOfExtra`]).
    count_of_extra: bool,
    /// [`ControlLayout::owns_modifier_bits`].
    owns_modifier_bits: bool,
}

impl FastFacts {
    fn of(info: &OpInfo) -> FastFacts {
        let copied_extra = match info.extra {
            Extra::LabelList | Extra::InterfacePtr | Extra::Comment | Extra::MacroSignature => {
                false
            }
            // Copied only without the immediate flag, which is per instruction.
            Extra::ImmediateConstants => false,
            _ => true,
        };
        FastFacts {
            fast: copied_extra && info.op != Opcode::Macrocall,
            count_of_extra: info.control == ControlLayout::CountOfExtra,
            owns_modifier_bits: info.control.owns_modifier_bits(),
        }
    }

    /// The facts of every opcode, indexed by code (the slots past [`OPCODES`] take no fast
    /// path); built on first use.
    fn table() -> &'static [FastFacts; OP_SLOTS] {
        static TABLE: OnceLock<[FastFacts; OP_SLOTS]> = OnceLock::new();
        TABLE.get_or_init(|| {
            std::array::from_fn(|code| OPCODES.get(code).map(FastFacts::of).unwrap_or_default())
        })
    }
}

/// Encodes `inst` into `pending` if it has the common shape (see the module comment, at most one
/// destination, [`FAST_MAX_SRCS`] sources and [`FAST_MAX_EXTRA`] trailing tokens); returns
/// `false`, with nothing written, otherwise. The words are exactly those of [`encode_inst`]:
/// operands it cannot take go to [`encode_dst`] / [`encode_src`] after what is pending is
/// appended.
#[inline(always)]
fn encode_fast(
    pending: &mut Pending<'_>,
    out: &mut Vec<u32>,
    inst: &Inst,
    nested: &Nested,
    facts: &[FastFacts; OP_SLOTS],
) -> bool {
    let facts = &facts[usize::from(inst.op.code()) & (OP_SLOTS - 1)];
    if !facts.fast
        || inst.has_packet_mods()
        || inst.dst.len() > 1
        || inst.src.len() > FAST_MAX_SRCS
        || inst.extra.len() > FAST_MAX_EXTRA
    {
        return false;
    }
    if pending.len + FAST_PACKET_MAX > PENDING {
        pending.drain_into(out);
    }
    // As `opcode_high_bits` with no modifier or address-offset tokens.
    let mut ctrl = inst.ctrl.0;
    if facts.count_of_extra {
        ctrl = (ctrl & !0x3FFF) | (inst.extra.len() as u16);
    }
    if !facts.owns_modifier_bits {
        ctrl &= 0x3FFF;
    }
    pending.push(u32::from(inst.op.code()) | u32::from(ctrl) << 16);
    for dst in &inst.dst {
        // Every field of the modifier token has its own bits, so the token differs from that of a
        // plain full write exactly when `Dst::has_modifier` holds.
        let m = dst_mod(dst);
        let modifier = (m != PLAIN_DST_MOD).then_some(m);
        if !push_simple_operand(pending, &dst.reg, modifier) {
            pending.drain_into(out);
            encode_operand(&dst.reg, modifier, nested, out);
        }
    }
    for src in &inst.src {
        // As for destinations: the token differs from the identity's exactly when
        // `Src::has_modifier` holds.
        let m = src_mod(src);
        let modifier = (m != IDENTITY_SRC_MOD).then_some(m);
        if !push_simple_operand(pending, &src.reg, modifier) {
            pending.drain_into(out);
            encode_operand(&src.reg, modifier, nested, out);
        }
    }
    for word in &inst.extra {
        pending.push(*word);
    }
    true
}

/// Encodes an operand with no second dimension, at most an immediate index and a 16-bit number
/// (as [`encode_operand`] does); returns `false`, with nothing written, for other operands.
#[inline(always)]
fn push_simple_operand(pending: &mut Pending<'_>, reg: &Reg, modifier: Option<u32>) -> bool {
    let immediate = match reg.index {
        None => None,
        Some(Index::Imm(i)) => Some(i),
        Some(_) => return false,
    };
    if reg.dim2.is_some() || reg.num > 0xFFFF {
        return false;
    }
    pending.push(
        reg.num
            | u32::from(reg.ty.value()) << 16
            | u32::from(modifier.is_some()) << 22
            | u32::from(immediate.is_some()) << 26,
    );
    if let Some(m) = modifier {
        pending.push(m);
    }
    if let Some(i) = immediate {
        pending.push(i);
    }
    true
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
    if matches!(layout, ControlLayout::Sample | ControlLayout::Load) && inst.addr_offset().is_some()
    {
        // §1.10: bit 29 = aoffimmi present.
        ctrl |= 1 << 13;
    }
    if !layout.owns_modifier_bits() {
        // §1.4: bit 31 = primary modifier present, bit 30 = secondary modifier present.
        ctrl &= 0x3FFF;
        ctrl |=
            u16::from(inst.pri_mod().is_some()) << 15 | u16::from(inst.sec_mod().is_some()) << 14;
    }
    ctrl
}

fn encode_inst(inst: &Inst, nested: &Nested, out: &mut Vec<u32>) {
    let info = inst.info();
    out.push(u32::from(inst.op.code()) | u32::from(opcode_high_bits(inst)) << 16);
    out.extend(inst.pri_mod());
    out.extend(inst.sec_mod());
    out.extend(inst.resource_format());
    out.extend(inst.addr_offset());
    if inst.op == Opcode::Macrocall {
        // §1.11: mcall(k) · {outputs 15:0, inputs 31:16} · dst tokens · src tokens.
        out.push((inst.dst.len() as u32 & 0xFFFF) | (inst.src.len() as u32 & 0xFFFF) << 16);
    }
    for dst in &inst.dst {
        encode_dst(dst, nested, out);
    }
    for src in &inst.src {
        encode_src(src, nested, out);
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

/// The IL_Dst_Mod token of a plain full write (`.xyzw`: four times `DstComp::Write` = 1).
const PLAIN_DST_MOD: u32 = 0x55;

/// The IL_Src_Mod token of the identity swizzle and no modifiers (selectors 0, 1, 2, 3).
const IDENTITY_SRC_MOD: u32 = 0x3210;

/// The IL_Dst_Mod token (§1.5).
#[inline]
pub(crate) fn dst_mod(dst: &Dst) -> u32 {
    // The four component modes (values 0..=3) as the bytes of one word, moved from bits 8k to
    // bits 2k: byte 1 and byte 3 move down by six, then the halves by twelve.
    let bytes = u32::from_le_bytes(dst.mask.map(|c| c.value() as u8));
    let pairs = (bytes | bytes >> 6) & 0x000F_000F;
    let mask = (pairs | pairs >> 12) & 0xFF;
    mask | u32::from(dst.sat) << 8 | dst.shift.value() << 9
}

/// Moves each byte `k` of `bytes` (every byte below 16) to bits `4k..4k+3`.
#[inline(always)]
fn bytes_to_nibbles(bytes: u32) -> u32 {
    // Byte 1 and byte 3 move down by four next to bytes 0 and 2, then the halves by eight.
    let pairs = (bytes | bytes >> 4) & 0x00FF_00FF;
    (pairs | pairs >> 8) & 0xFFFF
}

/// The IL_Src_Mod token (§1.6).
#[inline]
pub(crate) fn src_mod(src: &Src) -> u32 {
    // Selectors (values 0..=5) in bits 4k..4k+2, negate flags in bit 4k+3.
    let selectors = bytes_to_nibbles(u32::from_le_bytes(src.swizzle.map(|c| c.value() as u8)));
    let n = u32::from(src.mods.neg_mask());
    // Negate bit k moves to bit 4k (then up by three next to its selector).
    let negates = n & 1 | (n & 2) << 3 | (n & 4) << 6 | (n & 8) << 9;
    selectors | negates << 3 | src.mods.token_high_bits()
}

fn encode_dst(dst: &Dst, nested: &Nested, out: &mut Vec<u32>) {
    let modifier = dst.has_modifier().then(|| dst_mod(dst));
    encode_operand(&dst.reg, modifier, nested, out);
}

fn encode_src(src: &Src, nested: &Nested, out: &mut Vec<u32>) {
    let modifier = src.has_modifier().then(|| src_mod(src));
    encode_operand(&src.reg, modifier, nested, out);
}

/// Encodes nested operand `id`; one the table does not hold (a program built wrong, which the
/// verifier rejects) is left out.
fn encode_nested(id: NestedId, nested: &Nested, out: &mut Vec<u32>) {
    if let Some(src) = nested.get(id) {
        encode_src(src, nested, out);
    }
}

/// One operand per the algorithm of amd-il.md §1.9; nested operands come from `nested`.
fn encode_operand(reg: &Reg, modifier: Option<u32>, nested: &Nested, out: &mut Vec<u32>) {
    let (addressing, immediate) = match &reg.index {
        None => (0, false),
        Some(Index::Imm(_)) => (0, true),
        Some(Index::AddrReg { .. }) => (1, false),
        Some(Index::AddrRegOffset { .. }) => (1, true),
        Some(Index::Rel { .. }) => (2, false),
        Some(Index::RelOffset { .. }) => (2, true),
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
        Some(index @ (Index::Rel { reg: rel, .. } | Index::RelOffset { reg: rel, .. })) => {
            encode_nested(*rel, nested, out);
            out.extend(index.offset());
            if let Some(second) = &reg.dim2 {
                encode_nested(*second, nested, out);
            }
        }
        Some(index @ (Index::AddrReg { rel_addr } | Index::AddrRegOffset { rel_addr, .. })) => {
            out.push(*rel_addr);
            out.extend(index.offset());
            if let Some(second) = &reg.dim2 {
                encode_nested(*second, nested, out);
            }
        }
        Some(Index::Imm(imm)) => {
            // Absolute with both a second dimension and an immediate: the order is open
            // (amd-il.md §1.9); like GRVK's decoder we put the second level first.
            if let Some(second) = &reg.dim2 {
                encode_nested(*second, nested, out);
            }
            out.push(*imm);
        }
        None => {
            if let Some(second) = &reg.dim2 {
                encode_nested(*second, nested, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{PENDING, dst_mod, encode_inst, src_mod, to_tokens};
    use il_model::{
        CompSel, Control, DivComp, Dst, DstComp, Inst, Opcode, PacketMods, Program, Reg, RegType,
        ShaderKind, ShiftScale, Src, SrcMods,
    };

    /// Each flag and divisor lands on its own IL_Src_Mod bit (amd-il.md §1.6: invert 16, bias
    /// 17, x2 18, sign 19, abs 20, divcomp 21..=23, clamp 24; written out here by hand).
    #[test]
    fn source_flags_land_on_their_token_bits() {
        let flags = [
            (SrcMods::INVERT, 16),
            (SrcMods::BIAS, 17),
            (SrcMods::X2, 18),
            (SrcMods::SIGN, 19),
            (SrcMods::ABS, 20),
            (SrcMods::CLAMP, 24),
        ];
        let identity = src_mod(&Src::temp(0));
        for (flag, bit) in flags {
            let src = Src::temp(0).with_mods(flag);
            assert_eq!(src_mod(&src), identity | 1 << bit, "{src:?}");
        }
        for &divcomp in DivComp::ALL {
            let src = Src::temp(0).with_mods(SrcMods::NONE.with_divcomp(divcomp));
            assert_eq!(src_mod(&src), identity | divcomp.value() << 21, "{src:?}");
        }
    }

    /// The packed modifier tokens equal the field-by-field formulas of amd-il.md §1.5 and §1.6
    /// (written out here one shift per field) for every swizzle, negate set and write mask.
    #[test]
    fn modifier_tokens_match_the_field_layout() {
        for i in 0..6u32.pow(4) {
            let sel = |k: u32| CompSel::ALL[(i / 6u32.pow(k) % 6) as usize];
            for negs in 0..16u32 {
                let src = Src {
                    swizzle: [sel(0), sel(1), sel(2), sel(3)],
                    mods: SrcMods::NONE
                        .with_neg_mask(negs as u8)
                        .set(SrcMods::ABS, negs == 5),
                    ..Src::temp(0)
                };
                let mut expected = 0;
                for k in 0..4 {
                    expected |= src.swizzle[k].value() << (4 * k);
                    expected |= u32::from(src.mods.negates(k)) << (4 * k + 3);
                }
                expected |= u32::from(src.mods.abs()) << 20;
                assert_eq!(src_mod(&src), expected, "{src:?}");
            }
        }
        for i in 0..4u32.pow(4) {
            let comp = |k: u32| DstComp::ALL[(i / 4u32.pow(k) % 4) as usize];
            for (sat, shift) in [(false, ShiftScale::None), (true, ShiftScale::D8)] {
                let dst = Dst {
                    mask: [comp(0), comp(1), comp(2), comp(3)],
                    sat,
                    shift,
                    ..Dst::temp(0)
                };
                let mut expected = u32::from(sat) << 8 | shift.value() << 9;
                for k in 0..4 {
                    expected |= dst.mask[k].value() << (2 * k);
                }
                assert_eq!(dst_mod(&dst), expected, "{dst:?}");
            }
        }
    }

    /// The tokens of a program are its header and then exactly what the general path
    /// ([`encode_inst`]) encodes for each instruction, for packets that take the fast path,
    /// packets that leave it half-way (a register-relative index, a 17-bit register number) and
    /// packets that do not take it (modifier tokens), with and without operand modifiers, over
    /// more words than the pending buffer holds.
    #[test]
    fn fast_packets_match_the_general_path() {
        let mut program = Program::new(ShaderKind::Compute);
        for _ in 0..PENDING / 8 {
            let index = program.nest(Src::temp(2).swz("x"));
            program
                .push(Inst::literal(3, [1, 2, 3, 4]))
                .push(
                    Inst::new(Opcode::IAdd)
                        .dst(Dst::temp(1).mask("x___"))
                        .src(Src::temp(2).swz("y"))
                        .src(Src::literal(3).swz("x")),
                )
                .push(
                    Inst::new(Opcode::Mad)
                        .dst(Dst {
                            sat: true,
                            shift: ShiftScale::D2,
                            ..Dst::temp(70_000)
                        })
                        .src(Src::temp(5).negate())
                        .src(Src::cb(0, 9).abs())
                        .src(Src::new(Reg::new(RegType::ITemp, 1).rel(index, Some(3)))),
                )
                .push(
                    Inst::new(Opcode::UavRawLoad)
                        .ctrl(Control::id(3))
                        .dst(Dst::temp(9).mask("x___"))
                        .src(Src::temp(0).swz("x")),
                )
                .push(Inst {
                    mods: Some(Box::new(PacketMods {
                        pri_mod: Some(1),
                        ..PacketMods::default()
                    })),
                    ..Inst::new(Opcode::Mov).dst(Dst::temp(0)).src(Src::temp(1))
                })
                .push(Inst::new(Opcode::DclNumThreadPerGroup).extra(&[64, 1, 1]))
                .push(
                    Inst::new(Opcode::IAdd)
                        .dst(Dst::temp(4))
                        .src(Src::temp(2))
                        .src(Src::temp(3)),
                );
        }
        program.push(Inst::new(Opcode::End));
        let tokens = to_tokens(&program);
        let mut expected = tokens.get(..2).unwrap_or(&[]).to_vec();
        for inst in &program.body {
            encode_inst(inst, &program.nested, &mut expected);
        }
        assert!(
            tokens.len() > 2 * PENDING,
            "the packets must overflow the pending buffer"
        );
        assert_eq!(tokens, expected);
    }
}
