//! Binary token decoder (amd-il.md §1), the inverse of `il_writer::to_tokens`.
//!
//! Never panics: every read is bounds-checked, counts are checked against the tokens left before
//! anything is allocated, and operand nesting is limited by [`MAX_OPERAND_DEPTH`].

use std::fmt;

use il_model::{
    CompSel, Control, ControlLayout, DivComp, Dst, DstComp, Extra, ExtraWords, Index, Inst,
    LanguageType, Nested, NestedId, Opcode, Program, Reg, RegType, ShaderKind, ShiftScale, Src,
    SrcMods,
};

/// Deepest operand nesting accepted (an index operand inside an index operand …). The guide allows
/// one level of indexing plus a second dimension; 4 leaves room and bounds recursion on hostile input.
pub const MAX_OPERAND_DEPTH: usize = 4;

/// A decoding error, located at a token index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenError {
    /// Index of the offending token in the input slice.
    pub index: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "token {}: {}", self.index, self.message)
    }
}

impl std::error::Error for TokenError {}

/// Decodes a token stream into a program.
pub fn decode_tokens(tokens: &[u32]) -> Result<Program, TokenError> {
    let mut d = Decoder {
        tokens,
        pos: 0,
        nested: Nested::new(),
    };
    // §1.1: macro definitions (`mdef` … `mend`) may precede IL_Lang. An IL_Lang token is below 256,
    // so a token whose low half is IL_OP_MACRODEF cannot be one.
    let mut macros = Vec::new();
    while tokens
        .get(d.pos)
        .is_some_and(|t| t & 0xFFFF == u32::from(Opcode::Macrodef.code()))
    {
        let start = d.pos;
        loop {
            let at = d.pos;
            let inst = d.inst()?;
            if inst.op == Opcode::Macrodef && at != start {
                return Err(d.err_at(at, "`mdef` inside a macro body (guide §7.19)"));
            }
            let done = inst.op == Opcode::Macroend;
            macros.push(inst);
            if done {
                break;
            }
        }
    }
    let lang_at = d.pos;
    let lang = d.next("the IL_Lang token")?;
    if lang >> 8 != 0 {
        return Err(d.err_at(
            lang_at,
            "IL_Lang bits 31:8 are reserved and must be 0 (amd-il.md §1.2)",
        ));
    }
    let language = LanguageType::from_value(lang)
        .ok_or_else(|| d.err_at(lang_at, format!("unknown ILLanguageType {lang}")))?;
    let version_at = d.pos;
    let version = d.next("the IL_Version token")?;
    if version >> 26 != 0 {
        return Err(d.err_at(
            version_at,
            "IL_Version bits 31:26 are reserved and must be 0 (amd-il.md §1.3)",
        ));
    }
    let kind = (version >> 16) & 0xFF;
    let shader = ShaderKind::from_value(kind)
        .ok_or_else(|| d.err_at(version_at, format!("unknown shader type {kind}")))?;
    let mut program = Program {
        shader,
        version: (((version >> 8) & 0xFF) as u8, (version & 0xFF) as u8),
        language,
        multipass: version & (1 << 24) != 0,
        realtime: version & (1 << 25) != 0,
        macros,
        body: Vec::new(),
        nested: Nested::new(),
    };
    while d.pos < tokens.len() {
        program.body.push(d.inst()?);
    }
    program.nested = d.nested;
    Ok(program)
}

struct Decoder<'a> {
    tokens: &'a [u32],
    pos: usize,
    /// The nested operands decoded so far (macros and body), for the program.
    nested: Nested,
}

impl Decoder<'_> {
    fn err_at(&self, index: usize, message: impl Into<String>) -> TokenError {
        TokenError {
            index,
            message: message.into(),
        }
    }

    fn next(&mut self, what: &str) -> Result<u32, TokenError> {
        match self.tokens.get(self.pos) {
            Some(&t) => {
                self.pos += 1;
                Ok(t)
            }
            None => Err(self.err_at(self.pos, format!("stream ends where {what} was expected"))),
        }
    }

    /// Reads `n` words, checking first that they exist (so hostile counts allocate nothing).
    fn words(&mut self, n: usize, what: &str) -> Result<ExtraWords, TokenError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.tokens.len());
        match end.and_then(|e| self.tokens.get(self.pos..e)) {
            Some(slice) => {
                self.pos += n;
                Ok(ExtraWords::from_slice(slice))
            }
            None => Err(self.err_at(
                self.pos,
                format!(
                    "{what} needs {n} token(s) but only {} remain",
                    self.tokens.len() - self.pos
                ),
            )),
        }
    }

    fn inst(&mut self) -> Result<Inst, TokenError> {
        let at = self.pos;
        let token = self.next("an opcode")?;
        let code = (token & 0xFFFF) as u16;
        let op = Opcode::from_code(code)
            .ok_or_else(|| self.err_at(at, format!("unknown opcode {code}")))?;
        let info = op.info();
        let layout = info.control;
        let high = (token >> 16) as u16;
        let mut inst = Inst::new(op);
        let mut ctrl = high;
        if !layout.owns_modifier_bits() {
            ctrl &= 0x3FFF;
            if high & 0x8000 != 0 {
                inst.mods_mut().pri_mod = Some(self.next("the primary modifier token")?);
            }
            if high & 0x4000 != 0 {
                inst.mods_mut().sec_mod = Some(self.next("the secondary modifier token")?);
            }
        }
        if matches!(
            layout,
            ControlLayout::Sample
                | ControlLayout::Load
                | ControlLayout::ResInfo
                | ControlLayout::BufInfo
        ) && ctrl & (1 << 12) != 0
        {
            inst.mods_mut().resource_format = Some(self.next("the resource-format token")?);
        }
        if matches!(layout, ControlLayout::Sample | ControlLayout::Load) && ctrl & (1 << 13) != 0 {
            inst.mods_mut().addr_offset = Some(self.next("the address-offset token")?);
            ctrl &= !(1 << 13);
        }
        let mut counted = 0;
        if layout == ControlLayout::CountOfExtra {
            counted = usize::from(ctrl & 0x3FFF);
            if counted > 3 {
                return Err(self.err_at(
                    at,
                    format!(
                        "`{}` takes 1 to 3 values, control says {counted}",
                        info.mnemonic
                    ),
                ));
            }
            ctrl = 0;
        }
        inst.ctrl = Control(ctrl);
        let immediate_cb = op == Opcode::DclConstBuffer && ctrl & 0x8000 != 0;
        if op == Opcode::Macrocall {
            // §1.11: mcall(k) · {outputs 15:0, inputs 31:16} · dst tokens · src tokens. Every operand
            // takes at least one token, so the counts are checked against what remains.
            let sig_at = self.pos;
            let sig = self.next("the macro call signature")?;
            let (outs, ins) = ((sig & 0xFFFF) as usize, (sig >> 16) as usize);
            if outs + ins > self.tokens.len() - self.pos {
                return Err(self.err_at(sig_at, "macro call operand counts exceed the stream"));
            }
            for _ in 0..outs {
                inst.dst.push(self.dst(0)?);
            }
            for _ in 0..ins {
                inst.src.push(self.src(0)?);
            }
            return Ok(inst);
        }
        for _ in 0..info.dst {
            inst.dst.push(self.dst(0)?);
        }
        let srcs = if immediate_cb {
            0
        } else {
            info.src + layout.extra_srcs(ctrl)
        };
        for _ in 0..srcs {
            inst.src.push(self.src(0)?);
        }
        inst.extra = match info.extra {
            Extra::None => ExtraWords::new(),
            Extra::Label
            | Extra::CaseValue
            | Extra::Float
            | Extra::ResourceFormat
            | Extra::MacroSignature => self.words(1, "the trailing token")?,
            Extra::Words(n) => self.words(usize::from(n), "the trailing tokens")?,
            Extra::StrideLength => self.words(2, "the stride and length")?,
            Extra::CountedWords => self.words(counted, "the counted values")?,
            Extra::Comment => {
                let len = self.next("the comment length")?;
                if len >> 16 != 0 {
                    // `next` just consumed the length, so `pos ≥ 1`.
                    return Err(self.err_at(self.pos - 1, "comment length bits 31:16 must be 0"));
                }
                self.words(len as usize, "the comment text")?
            }
            Extra::LabelList => {
                let n = self.next("the label count")?;
                self.words(n as usize, "the labels")?
            }
            Extra::InterfacePtr => {
                let mut head = self.words(2, "the interface-pointer sizes")?;
                let n = self.next("the function-table count")?;
                head.extend(self.words(n as usize, "the function-table ids")?);
                head
            }
            Extra::ImmediateConstants if immediate_cb => {
                let n = self.next("the immediate constant count")?;
                self.words(n as usize, "the immediate constants")?
            }
            Extra::ImmediateConstants => ExtraWords::new(),
        };
        Ok(inst)
    }

    /// One operand's register part and its modifier token (amd-il.md §1.9).
    fn operand(&mut self, depth: usize) -> Result<(Reg, Option<u32>), TokenError> {
        let at = self.pos;
        if depth > MAX_OPERAND_DEPTH {
            return Err(self.err_at(at, "operand nesting too deep"));
        }
        let h = self.next("an operand token")?;
        let ty_value = (h >> 16) & 0x3F;
        let ty = RegType::from_value(ty_value).ok_or_else(|| {
            self.err_at(
                at,
                format!("register type {ty_value} is not a register (amd-il.md §2.2)"),
            )
        })?;
        if h & (0xF << 27) != 0 {
            return Err(self.err_at(
                at,
                "operand bits 30:27 are reserved and must be 0 (amd-il.md §1.5)",
            ));
        }
        let addressing = (h >> 23) & 3;
        let dimension = h & (1 << 25) != 0;
        let immediate = h & (1 << 26) != 0;
        let modifier = if h & (1 << 22) != 0 {
            Some(self.next("the operand modifier token")?)
        } else {
            None
        };
        let mut num = h & 0xFFFF;
        if h & (1 << 31) != 0 {
            let hi_at = self.pos;
            let hi = self.next("the extended register number")?;
            if hi == 0 || hi > 0xFFFF {
                return Err(self.err_at(
                    hi_at,
                    "the extended register number's high half must be 1..=0xFFFF",
                ));
            }
            num |= hi << 16;
        }
        let mut reg = Reg::new(ty, num);
        match addressing {
            0 => {
                if dimension {
                    reg.dim2 = Some(self.nested_src(depth + 1)?);
                }
                if immediate {
                    reg.index = Some(Index::Imm(self.next("the immediate index")?));
                }
            }
            1 => {
                let rel_addr = self.next("the IL_Rel_Addr token")?;
                if rel_addr >> 20 != 0 || (rel_addr >> 17) & 7 > 3 {
                    return Err(self.err_at(
                        self.pos - 1,
                        "IL_Rel_Addr bits 31:20 must be 0 and the component ≤ 3 (amd-il.md §1.7)",
                    ));
                }
                let offset = if immediate {
                    Some(self.next("the immediate offset")?)
                } else {
                    None
                };
                reg.index = Some(Index::addr_reg(rel_addr, offset));
                if dimension {
                    reg.dim2 = Some(self.nested_src(depth + 1)?);
                }
            }
            2 => {
                let index = self.nested_src(depth + 1)?;
                let offset = if immediate {
                    Some(self.next("the immediate offset")?)
                } else {
                    None
                };
                reg.index = Some(Index::rel(index, offset));
                if dimension {
                    reg.dim2 = Some(self.nested_src(depth + 1)?);
                }
            }
            _ => {
                return Err(self.err_at(
                    at,
                    "relative_address 3 is not an ILAddressing value (amd-il.md §1.5)",
                ));
            }
        }
        Ok((reg, modifier))
    }

    /// A source operand nested in another (index or second dimension), added to the table.
    fn nested_src(&mut self, depth: usize) -> Result<NestedId, TokenError> {
        let src = self.src(depth)?;
        Ok(self.nested.push(src))
    }

    fn dst(&mut self, depth: usize) -> Result<Dst, TokenError> {
        let (reg, modifier) = self.operand(depth)?;
        let mut dst = Dst::new(reg);
        if let Some(m) = modifier {
            if m >> 13 != 0 {
                return Err(self.err_at(
                    self.pos,
                    "IL_Dst_Mod bits 31:13 are reserved and must be 0 (amd-il.md §1.5)",
                ));
            }
            for (i, comp) in dst.mask.iter_mut().enumerate() {
                // Two-bit field: every value 0..=3 is a DstComp.
                *comp = DstComp::from_value((m >> (2 * i)) & 3).unwrap_or(DstComp::Write);
            }
            dst.sat = m & (1 << 8) != 0;
            dst.shift = ShiftScale::from_value((m >> 9) & 0xF).ok_or_else(|| {
                self.err_at(
                    self.pos,
                    "IL_Dst_Mod shift_scale is not an ILShiftScale value",
                )
            })?;
        }
        Ok(dst)
    }

    fn src(&mut self, depth: usize) -> Result<Src, TokenError> {
        let at = self.pos;
        let (reg, modifier) = self.operand(depth)?;
        let mut src = Src::new(reg);
        if let Some(m) = modifier {
            if m >> 25 != 0 {
                return Err(self.err_at(
                    at,
                    "IL_Src_Mod bits 31:25 are reserved and must be 0 (amd-il.md §1.6)",
                ));
            }
            let mut neg_mask = 0u8;
            for i in 0..4 {
                src.swizzle[i] = CompSel::from_value((m >> (4 * i)) & 7).ok_or_else(|| {
                    self.err_at(
                        at,
                        "a swizzle selector is not an ILComponentSelect value (amd-il.md §1.6)",
                    )
                })?;
                neg_mask |= u8::from(m & (1 << (4 * i + 3)) != 0) << i;
            }
            let divcomp = DivComp::from_value((m >> 21) & 7).ok_or_else(|| {
                self.err_at(at, "divComp is not an ILDivComp value (amd-il.md §1.6)")
            })?;
            src.mods = SrcMods::NONE
                .with_neg_mask(neg_mask)
                .set(SrcMods::INVERT, m & (1 << 16) != 0)
                .set(SrcMods::BIAS, m & (1 << 17) != 0)
                .set(SrcMods::X2, m & (1 << 18) != 0)
                .set(SrcMods::SIGN, m & (1 << 19) != 0)
                .set(SrcMods::ABS, m & (1 << 20) != 0)
                .set(SrcMods::CLAMP, m & (1 << 24) != 0)
                .with_divcomp(divcomp);
        }
        Ok(src)
    }
}
