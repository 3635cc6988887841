//! IL text parser (amd-il.md §3), the inverse of `il_writer::to_text`, tolerant of the spelling
//! variants of AMD's own tools (opcode aliases, register aliases, `_resource(n)` for `_id(n)`,
//! operands separated by blanks instead of commas, `;` and `//` comments, a suffix written after a
//! blank as in `dcl_lds_sharing_mode _wavefrontRel`).
//!
//! Never panics; errors carry a 1-based line and column.

use std::fmt;

use il_model::enums::{ElementFormat, PixTexUsage};
use il_model::{
    ControlLayout, CtrlField, DivComp, Dst, Extra, FieldKind, Index, Inst, Nested, NestedId,
    Opcode, Program, Reg, RegType, ShaderKind, ShiftScale, Src, SrcMods, parse_mask, parse_swizzle,
};

use crate::tokens::MAX_OPERAND_DEPTH;

/// Suffixes every instruction accepts: escapes for bits the canonical spellings cannot express,
/// the sample-family tokens, `_prec`, and the destination modifiers (amd-il.md §3.6, §3.7).
const GENERIC_SUFFIXES: [&str; 16] = [
    "control",
    "primod",
    "secmod",
    "resourceformat",
    "resourcetype",
    "addroffset",
    "aoffimmi",
    "addroffimmi",
    "prec",
    "sat",
    "x2",
    "x4",
    "x8",
    "d2",
    "d4",
    "d8",
];

/// Longest accepted input line, in bytes (a named limit so hostile input cannot make work quadratic).
pub const MAX_LINE_LEN: usize = 64 * 1024;

/// A parse error, located at a line and column (both 1-based; the column counts characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// Line number.
    pub line: usize,
    /// Column number.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for TextError {}

/// Parses IL text into a program.
///
/// Lines before the version line may hold macro definitions (`mdef` … `mend`, guide §7.19).
pub fn parse_text(text: &str) -> Result<Program, TextError> {
    let mut program: Option<Program> = None;
    let mut macros = Vec::new();
    // Nested operands of the macros and the body alike; the program takes them at the end.
    let mut nested = Nested::new();
    let mut legacy_vertex = false;
    let mut in_macro = false;
    let mut last_line = 1;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        last_line = line_no;
        if raw.len() > MAX_LINE_LEN {
            return Err(TextError {
                line: line_no,
                column: 1,
                message: format!("line longer than {MAX_LINE_LEN} bytes"),
            });
        }
        let code = strip_comment(raw);
        let trimmed = code.trim();
        if trimmed.is_empty() {
            continue;
        }
        let start = code.len() - code.trim_start().len();
        let mut line = Line {
            text: raw,
            line: line_no,
        };
        if program.is_none() && trimmed.starts_with("il_") {
            if in_macro {
                return Err(line.err(start, "the macro before the version line lacks its `mend`"));
            }
            let mut p = line.version(trimmed, start)?;
            p.macros = std::mem::take(&mut macros);
            program = Some(p);
            continue;
        }
        let (inst, inst_prec) =
            line.instruction(trimmed, start, &mut legacy_vertex, &mut nested)?;
        if program.is_none() {
            // Before the version line only whole macro definitions may stand (guide §7.19).
            let allowed = match inst.op {
                Opcode::Macrodef => !std::mem::replace(&mut in_macro, true),
                Opcode::Macroend => std::mem::replace(&mut in_macro, false),
                _ => in_macro,
            };
            if !allowed || inst_prec.is_some() && !in_macro {
                return Err(line.err(
                    start,
                    "only `mdef` … `mend` macro definitions may precede the version line",
                ));
            }
        }
        let body = match &mut program {
            Some(p) => &mut p.body,
            None => &mut macros,
        };
        if let Some(mask) = inst_prec {
            // `_prec` stands for an IL_OP_PREFIX packet before the instruction (amd-il.md §1.10).
            body.push(Inst::new(Opcode::Prefix).ctrl(il_model::Control(mask)));
        }
        body.push(inst);
    }
    let mut program = program.ok_or(TextError {
        line: last_line,
        column: 1,
        message: "no version line (`il_cs_2_0`, …)".into(),
    })?;
    program.nested = nested;
    Ok(program)
}

/// The code part of a line: everything before `;` or `//` outside a quoted string.
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    let mut prev_slash = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => return line.get(..i).unwrap_or(line),
            // `prev_slash` means a `/` precedes, so `i ≥ 1`.
            '/' if !quoted && prev_slash => return line.get(..i - 1).unwrap_or(line),
            _ => {}
        }
        prev_slash = c == '/' && !quoted;
    }
    line
}

/// One line being parsed, for locating errors.
struct Line<'a> {
    text: &'a str,
    line: usize,
}

/// Instruction-level suffixes that belong to the destination or to a prefix packet.
#[derive(Default)]
struct Pending {
    sat: bool,
    shift: Option<ShiftScale>,
    prec: Option<u16>,
}

/// A piece of a line with its byte offset in the line.
#[derive(Clone, Copy, Debug)]
struct Piece<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Piece<'a> {
    fn slice(&self, from: usize) -> Piece<'a> {
        Piece {
            text: self.text.get(from..).unwrap_or(""),
            at: self.at + from,
        }
    }
}

impl Line<'_> {
    fn err(&self, at: usize, message: impl Into<String>) -> TextError {
        let column = self.text.get(..at).map_or(at, |s| s.chars().count()) + 1;
        TextError {
            line: self.line,
            column,
            message: message.into(),
        }
    }

    /// `il_<kind>[_<major>[_<minor>]][_mp][_rt]` (amd-il.md §3.2).
    fn version(&mut self, text: &str, at: usize) -> Result<Program, TextError> {
        let bad = |s: &Self| {
            s.err(
                at,
                format!("expected a version line like `il_cs_2_0`, found `{text}`"),
            )
        };
        let rest = text.strip_prefix("il_").ok_or_else(|| bad(self))?;
        let mut parts = rest.split('_');
        let kind = parts
            .next()
            .and_then(ShaderKind::from_name)
            .ok_or_else(|| bad(self))?;
        let mut program = Program::new(kind);
        let mut numbers = Vec::new();
        for part in parts {
            match part {
                "mp" => program.multipass = true,
                "rt" => program.realtime = true,
                _ if !program.multipass && !program.realtime && numbers.len() < 2 => {
                    numbers.push(part.parse::<u8>().map_err(|_| bad(self))?);
                }
                _ => return Err(bad(self)),
            }
        }
        match numbers.as_slice() {
            [] => {}
            [major] => program.version = (*major, 0),
            [major, minor] => program.version = (*major, *minor),
            _ => return Err(bad(self)),
        }
        Ok(program)
    }

    /// One instruction line; also returns the precise mask of a `_prec` suffix.
    fn instruction(
        &mut self,
        text: &str,
        at: usize,
        legacy_vertex: &mut bool,
        nested: &mut Nested,
    ) -> Result<(Inst, Option<u16>), TextError> {
        let code = Piece { text, at };
        let mut items = self.split_items(code)?;
        if items.is_empty() {
            return Err(self.err(at, "empty instruction"));
        }
        let mut word = items.remove(0);
        // `dcl_interface_ptr_id(0)_dynamic(0)[1][2]`: the brackets hold two trailing values.
        let mut bracket_values = Vec::new();
        if let Some(open) = word.text.find('[') {
            let tail = word.slice(open);
            word = Piece {
                text: word.text.get(..open).unwrap_or(""),
                at: word.at,
            };
            let mut rest = tail;
            while let Some(inner) = rest.text.strip_prefix('[') {
                let close = inner
                    .find(']')
                    .ok_or_else(|| self.err(rest.at, "unclosed `[`"))?;
                bracket_values.push(self.number(Piece {
                    text: inner.get(..close).unwrap_or(""),
                    at: rest.at + 1,
                })?);
                rest = rest.slice(close + 2);
            }
            if !rest.text.is_empty() {
                return Err(self.err(rest.at, format!("unexpected `{}`", rest.text)));
            }
        }
        // A suffix written after a blank (`dcl_lds_sharing_mode _wavefrontRel`) belongs to the word.
        let mut suffix_pieces = Vec::new();
        while items.first().is_some_and(|p| p.text.starts_with('_')) {
            suffix_pieces.push(items.remove(0));
        }
        let (mut inst, pending) = self.mnemonic(word, &suffix_pieces)?;
        self.check_header(&mut inst, word.at)?;
        let info = inst.info();
        if matches!(inst.op, Opcode::Dclv | Opcode::Initv) {
            // DX9 vertex shaders name VERTEX registers `v#` too (amd-il.md §2.2).
            *legacy_vertex = true;
        }
        let ctx = Ctx {
            legacy_vertex: *legacy_vertex,
        };
        let end = at + text.len();
        if inst.op == Opcode::Macrocall {
            // `mcall(k) (outs), (ins)` (guide §7.19).
            let [outs, ins] = items.as_slice() else {
                return Err(self.err(end, "`mcall(k)` takes `(outputs), (inputs)`"));
            };
            for piece in self.paren_list(*outs)? {
                inst.dst.push(self.dst(piece, ctx, nested)?);
            }
            self.apply_pending(&mut inst, &pending, word.at)?;
            for piece in self.paren_list(*ins)? {
                inst.src.push(self.src(piece, ctx, 0, nested)?);
            }
            return Ok((inst, pending.prec));
        }
        let layout = info.control;
        let immediate_cb = inst.op == Opcode::DclConstBuffer && inst.ctrl.0 & 0x8000 != 0;
        let n_dst = usize::from(info.dst);
        let n_src = if immediate_cb {
            0
        } else {
            usize::from(info.src + layout.extra_srcs(inst.ctrl.0))
        };
        let mut rest = items.into_iter().peekable();
        for _ in 0..n_dst {
            let piece = rest
                .next()
                .ok_or_else(|| self.err(end, format!("`{}` needs a destination", info.mnemonic)))?;
            inst.dst.push(self.dst(piece, ctx, nested)?);
        }
        self.apply_pending(&mut inst, &pending, word.at)?;
        for i in 0..n_src {
            let piece = rest.next().ok_or_else(|| {
                self.err(
                    end,
                    format!("`{}` needs {n_src} source(s), found {i}", info.mnemonic),
                )
            })?;
            inst.src.push(self.src(piece, ctx, 0, nested)?);
        }
        let remaining: Vec<Piece> = rest.collect();
        // Words naming control values (`dcl_ts_domain ts_domain_tri`, `dcl_global_flags
        // refactoringAllowed forceEarlyDepthStencil`).
        let mut kept = Vec::with_capacity(remaining.len());
        for piece in remaining {
            match self.word_field(layout, piece.text) {
                Some(bits) => inst.ctrl.0 |= bits,
                None => kept.push(piece),
            }
        }
        let mut remaining = kept;
        // Control values written as trailing numbers (`dcl_stream 1`); a missing one reads as 0.
        let trailing_fields: Vec<&CtrlField> = layout
            .fields()
            .iter()
            .filter(|f| f.kind == FieldKind::Operand)
            .collect();
        if !trailing_fields.is_empty() && remaining.len() == trailing_fields.len() {
            for (field, piece) in trailing_fields.iter().zip(&remaining) {
                let value = self.number(*piece)?;
                inst.ctrl.0 |= self.fit(field, value, piece.at)?;
            }
            remaining.clear();
        }
        match info.extra {
            Extra::LabelList | Extra::InterfacePtr => {
                inst.extra.extend(bracket_values.iter().copied());
                if info.extra == Extra::InterfacePtr && bracket_values.len() != 2 {
                    return Err(
                        self.err(word.at, "`dcl_interface_ptr` needs `[array_size][length]`")
                    );
                }
                match remaining.as_slice() {
                    [eq, list] if eq.text == "=" => {
                        for piece in self.brace_list(*list)? {
                            inst.extra.push(self.number(piece)?);
                        }
                    }
                    [] => {}
                    [first, ..] => return Err(self.err(first.at, "expected `= {…}`")),
                }
                return Ok((inst, pending.prec));
            }
            Extra::Comment => {
                match remaining.as_slice() {
                    [one] if one.text.starts_with('"') => {
                        let inner = one
                            .text
                            .strip_prefix('"')
                            .and_then(|s| s.strip_suffix('"'))
                            .ok_or_else(|| self.err(one.at, "unterminated string"))?;
                        let mut bytes = inner.as_bytes().to_vec();
                        // NUL-terminated and padded to whole words (amd-il.md §1.11).
                        bytes.push(0);
                        while !bytes.len().is_multiple_of(4) {
                            bytes.push(0);
                        }
                        inst.extra = bytes
                            .chunks_exact(4)
                            .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
                            .collect();
                    }
                    pieces => {
                        for piece in pieces {
                            inst.extra.push(self.word(*piece)?);
                        }
                    }
                }
                return Ok((inst, pending.prec));
            }
            _ => {}
        }
        if !bracket_values.is_empty() {
            return Err(self.err(word.at, format!("`{}` takes no `[…]`", info.mnemonic)));
        }
        let want = match info.extra {
            Extra::None | Extra::ResourceFormat | Extra::MacroSignature => Some(0),
            Extra::Label | Extra::CaseValue | Extra::Float => Some(1),
            Extra::Words(n) => Some(usize::from(n)),
            Extra::CountedWords => {
                if let Some(extra) = remaining.get(3) {
                    return Err(self.err(extra.at, "at most 3 values (amd-il.md §1.11)"));
                }
                None
            }
            Extra::ImmediateConstants if !immediate_cb => Some(0),
            _ => None,
        };
        if let Some(want) = want
            && remaining.len() != want
        {
            let where_ = remaining.get(want).map_or(end, |p| p.at);
            return Err(self.err(
                where_,
                format!(
                    "`{}` takes {} operand(s) and {want} trailing value(s)",
                    info.mnemonic,
                    n_dst + n_src
                ),
            ));
        }
        // `def c0, 0.5, 1, 0, 0` (guide §3): float constants, so integers are floats too.
        let floats = inst.op == Opcode::Def
            && inst
                .dst
                .first()
                .is_some_and(|d| d.reg.ty == RegType::ConstFloat);
        for piece in remaining {
            let value = match (floats, piece.text.parse::<i32>()) {
                (true, Ok(i)) if !piece.text.starts_with("0x") => (i as f32).to_bits(),
                _ => self.word(piece)?,
            };
            inst.extra.push(value);
        }
        Ok((inst, pending.prec))
    }

    /// Rules tying the control field to the modifier tokens (amd-il.md §1.4, §1.10), so that every
    /// parsed instruction encodes to tokens that decode back to it.
    fn check_header(&self, inst: &mut Inst, at: usize) -> Result<(), TextError> {
        let layout = inst.info().control;
        let ctrl = inst.ctrl.0;
        if !layout.owns_modifier_bits() && ctrl & 0xC000 != 0 {
            return Err(self.err(
                at,
                "control bits 31:30 are the modifier-present flags here (amd-il.md §1.4)",
            ));
        }
        if layout.owns_modifier_bits() && (inst.pri_mod().is_some() || inst.sec_mod().is_some()) {
            return Err(self.err(
                at,
                "this instruction has no modifier tokens (amd-il.md §1.4)",
            ));
        }
        if layout == ControlLayout::CountOfExtra && ctrl != 0 {
            return Err(self.err(
                at,
                "the control field is the number of values here (amd-il.md §1.11)",
            ));
        }
        let sample_like = matches!(layout, ControlLayout::Sample | ControlLayout::Load);
        if sample_like && ctrl & (1 << 13) != 0 {
            return Err(self.err(
                at,
                "write `_aoffimmi(u,v,w)` rather than control bit 29 (amd-il.md §1.10)",
            ));
        }
        if inst.addr_offset().is_some() && !sample_like {
            return Err(self.err(
                at,
                "only sample/load instructions take `_aoffimmi` (amd-il.md §1.10)",
            ));
        }
        let ext_layout =
            sample_like || matches!(layout, ControlLayout::ResInfo | ControlLayout::BufInfo);
        let ext = ext_layout && ctrl & (1 << 12) != 0;
        match (ext, inst.resource_format()) {
            // `_ext` without `_resourcetype(…)`: the token is still present; its value is UNKNOWN.
            (true, None) => inst.mods_mut().resource_format = Some(0),
            (false, Some(_)) => {
                return Err(self.err(
                    at,
                    "`_resourcetype` needs an `_ext` sample/load instruction (amd-il.md §1.10)",
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Moves `_sat` / `_x2` … from the mnemonic onto the first destination (amd-il.md §3.6).
    fn apply_pending(
        &self,
        inst: &mut Inst,
        pending: &Pending,
        at: usize,
    ) -> Result<(), TextError> {
        if !pending.sat && pending.shift.is_none() {
            return Ok(());
        }
        let mnemonic = inst.info().mnemonic;
        let Some(d) = inst.dst.first_mut() else {
            return Err(self.err(
                at,
                format!("`{mnemonic}` has no destination to saturate or scale"),
            ));
        };
        d.sat = pending.sat;
        d.shift = pending.shift.unwrap_or(ShiftScale::None);
        Ok(())
    }

    /// The control bits a bare word sets, if it names a value of one of `layout`'s word fields.
    fn word_field(&self, layout: ControlLayout, text: &str) -> Option<u16> {
        layout.fields().iter().find_map(|f| match f.kind {
            FieldKind::Word(list) => list
                .iter()
                .find(|(w, _)| *w == text)
                .map(|(_, v)| ((v << f.lo) as u16) & f.mask()),
            _ => None,
        })
    }

    /// The items of `(a, b)`.
    fn paren_list<'a>(&self, piece: Piece<'a>) -> Result<Vec<Piece<'a>>, TextError> {
        let inner = piece
            .text
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| self.err(piece.at, "expected a parenthesised list"))?;
        self.split_items(Piece {
            text: inner,
            at: piece.at + 1,
        })
    }

    /// The items of `{a, b}`.
    fn brace_list<'a>(&self, piece: Piece<'a>) -> Result<Vec<Piece<'a>>, TextError> {
        let inner = piece
            .text
            .strip_prefix('{')
            .and_then(|s| s.strip_suffix('}'))
            .ok_or_else(|| self.err(piece.at, "expected a list in braces"))?;
        self.split_items(Piece {
            text: inner,
            at: piece.at + 1,
        })
    }

    /// Splits code at blanks and commas outside brackets, parentheses, braces and quotes.
    fn split_items<'a>(&self, code: Piece<'a>) -> Result<Vec<Piece<'a>>, TextError> {
        let mut items = Vec::new();
        let mut depth: i32 = 0;
        let mut quoted = false;
        let mut start: Option<usize> = None;
        for (i, c) in code.text.char_indices() {
            if c == '"' {
                quoted = !quoted;
            } else if !quoted {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => {
                        depth -= 1;
                        if depth < 0 {
                            return Err(self.err(code.at + i, format!("unbalanced `{c}`")));
                        }
                    }
                    _ => {}
                }
            }
            let separator = !quoted && depth == 0 && (c == ',' || c.is_whitespace());
            if separator {
                if let Some(s) = start.take() {
                    items.push(Piece {
                        text: code.text.get(s..i).unwrap_or(""),
                        at: code.at + s,
                    });
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if depth != 0 || quoted {
            return Err(self.err(
                code.at + code.text.len(),
                "unclosed bracket, parenthesis or string",
            ));
        }
        if let Some(s) = start {
            items.push(Piece {
                text: code.text.get(s..).unwrap_or(""),
                at: code.at + s,
            });
        }
        Ok(items)
    }

    /// The mnemonic with its suffixes: the longest known opcode spelling ending at a `_` or `(`
    /// whose remainder parses as suffixes of that opcode.
    fn mnemonic(
        &self,
        word: Piece,
        extra_suffixes: &[Piece],
    ) -> Result<(Inst, Pending), TextError> {
        let mut cuts: Vec<usize> = Vec::new();
        let mut depth = 0i32;
        for (i, c) in word.text.char_indices() {
            match c {
                '(' => {
                    if depth == 0 {
                        cuts.push(i);
                    }
                    depth += 1;
                }
                ')' => depth -= 1,
                '_' if depth == 0 => cuts.push(i),
                _ => {}
            }
        }
        cuts.push(word.text.len());
        let mut first_error = None;
        for &cut in cuts.iter().rev() {
            let base = word.text.get(..cut).unwrap_or("");
            // The guide's own examples sometimes capitalise mnemonics (`INOT`, `Dcl_literal`).
            let Some(op) = Opcode::from_mnemonic(&base.to_ascii_lowercase()) else {
                continue;
            };
            let mut inst = Inst::new(op);
            let mut pending = Pending::default();
            let mut result = self.suffixes(&mut inst, &mut pending, word.slice(cut));
            for piece in extra_suffixes {
                if result.is_ok() {
                    result = self.suffixes(&mut inst, &mut pending, *piece);
                }
            }
            match result {
                Ok(()) => return Ok((inst, pending)),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error
            .unwrap_or_else(|| self.err(word.at, format!("unknown instruction `{}`", word.text))))
    }

    /// Parses `_name`, `_name(args)` suffixes into `inst` and `pending`.
    fn suffixes(
        &self,
        inst: &mut Inst,
        pending: &mut Pending,
        text: Piece,
    ) -> Result<(), TextError> {
        let layout = inst.info().control;
        let mut rest = text;
        if layout == ControlLayout::Macro
            && let Some(inner) = rest.text.strip_prefix('(')
        {
            // `mdef(k)` / `mcall(k)`: the macro id (guide §7.19).
            let close = inner
                .find(')')
                .ok_or_else(|| self.err(rest.at, "unclosed `(`"))?;
            let id = self.number(Piece {
                text: inner.get(..close).unwrap_or(""),
                at: rest.at + 1,
            })?;
            inst.ctrl.0 |= u16::try_from(id)
                .ok()
                .filter(|v| *v <= 0x3FFF)
                .ok_or_else(|| self.err(rest.at, "macro id too large"))?;
            rest = rest.slice(close + 2);
        }
        if layout == ControlLayout::FirstBit
            && let Some(inner) = rest.text.strip_prefix('(')
        {
            // The guide's syntax line writes `ffb(option)`; AMD's tools wrote `ffb_lo` (our form).
            let close = inner
                .find(')')
                .ok_or_else(|| self.err(rest.at, "unclosed `(`"))?;
            let option = inner.get(..close).unwrap_or("");
            let value = il_model::enums::FirstBitType::from_name(option)
                .ok_or_else(|| self.err(rest.at + 1, format!("`{option}` is not lo, hi or shi")))?;
            inst.ctrl.0 |= value.value() as u16;
            rest = rest.slice(close + 2);
        }
        while !rest.text.is_empty() {
            let Some(after) = rest.text.strip_prefix('_') else {
                return Err(self.err(
                    rest.at,
                    format!("expected `_` before a suffix, found `{}`", rest.text),
                ));
            };
            let body = rest.slice(1);
            let (name, args, consumed) = self.split_suffix(after, layout, body.at)?;
            self.apply_suffix(inst, pending, layout, name, args, body.at)?;
            rest = body.slice(consumed);
        }
        Ok(())
    }

    /// Splits one suffix off `text` (which follows a `_`): its name (matched whole against the
    /// names this opcode accepts, longest first, so names containing `_` work), its parenthesised
    /// argument if any, and the number of bytes consumed.
    fn split_suffix<'t>(
        &self,
        text: &'t str,
        layout: ControlLayout,
        at: usize,
    ) -> Result<(&'t str, Option<&'t str>, usize), TextError> {
        let mut names: Vec<&str> = GENERIC_SUFFIXES.to_vec();
        if layout == ControlLayout::DclResource {
            names.extend(["fmtx", "fmty", "fmtz", "fmtw", "format"]);
        }
        if layout == ControlLayout::Macro {
            names.extend(["out", "in", "outline", "signature"]);
        }
        names.extend(["stride", "length", "access"]);
        for f in layout.fields().iter().chain(layout.primary_fields()) {
            if !f.name.is_empty() {
                names.push(f.name);
            }
            names.extend(f.aliases.iter().copied());
            if let FieldKind::Choice(list) = f.kind {
                names.extend(list.iter().map(|(w, _)| *w).filter(|w| !w.is_empty()));
            }
        }
        names.sort_by_key(|n| std::cmp::Reverse(n.len()));
        for name in names {
            if let Some(after) = text.strip_prefix(name) {
                if after.is_empty() || after.starts_with('_') {
                    return Ok((name, None, name.len()));
                }
                if let Some(inner) = after.strip_prefix('(') {
                    let close = inner
                        .find(')')
                        .ok_or_else(|| self.err(at + name.len(), "unclosed `(` in suffix"))?;
                    let arg = inner.get(..close).unwrap_or("");
                    return Ok((name, Some(arg), name.len() + close + 2));
                }
            }
        }
        let shown: String = text
            .chars()
            .take_while(|c| *c != '_' && *c != '(')
            .collect();
        Err(self.err(at, format!("unknown suffix `_{shown}`")))
    }

    fn apply_suffix(
        &self,
        inst: &mut Inst,
        pending: &mut Pending,
        layout: ControlLayout,
        name: &str,
        arg: Option<&str>,
        at: usize,
    ) -> Result<(), TextError> {
        let info = inst.info();
        let number = |s: &Self| -> Result<u32, TextError> {
            let a =
                arg.ok_or_else(|| s.err(at, format!("`_{name}` needs a value in parentheses")))?;
            parse_u32(a.trim()).ok_or_else(|| s.err(at, format!("`{a}` is not a number")))
        };
        let first_extra = |inst: &mut Inst| -> usize {
            if inst.extra.is_empty() {
                inst.extra.push(0);
            }
            0
        };
        match (name, arg) {
            ("control", Some(_)) => {
                let v = number(self)?;
                inst.ctrl.0 |= u16::try_from(v)
                    .map_err(|_| self.err(at, "control value wider than 16 bits"))?;
                return Ok(());
            }
            ("primod", Some(_)) => {
                inst.mods_mut().pri_mod = Some(inst.pri_mod().unwrap_or(0) | number(self)?);
                return Ok(());
            }
            ("secmod", Some(_)) => {
                inst.mods_mut().sec_mod = Some(number(self)?);
                return Ok(());
            }
            ("resourceformat", Some(_)) => {
                inst.mods_mut().resource_format = Some(number(self)?);
                return Ok(());
            }
            ("resourcetype", Some(a)) => {
                let usage = PixTexUsage::from_name(a)
                    .ok_or_else(|| self.err(at, format!("`{a}` is not a resource type")))?;
                inst.mods_mut().resource_format = Some(usage.value());
                return Ok(());
            }
            ("addroffset", Some(_)) => {
                inst.mods_mut().addr_offset = Some(number(self)?);
                return Ok(());
            }
            ("aoffimmi" | "addroffimmi", Some(a)) => {
                // Three signed 7.1 fixed-point values (value × 2 in a byte, amd-il.md §1.10).
                let mut word = 0u32;
                let parts: Vec<&str> = a.split(',').map(str::trim).collect();
                if parts.len() != 3 {
                    return Err(self.err(at, "`_aoffimmi(u,v,w)` takes three values"));
                }
                for (i, p) in parts.iter().enumerate() {
                    let v: f64 = p
                        .parse()
                        .map_err(|_| self.err(at, format!("`{p}` is not an offset")))?;
                    let twice = v * 2.0;
                    if twice.fract() != 0.0 || !(-128.0..=127.0).contains(&twice) {
                        return Err(self.err(
                            at,
                            format!("offset `{p}` is not a multiple of 0.5 in [-64, 63.5]"),
                        ));
                    }
                    word |= u32::from(twice as i8 as u8) << (8 * i);
                }
                inst.mods_mut().addr_offset = Some(word);
                return Ok(());
            }
            ("prec", None) => {
                pending.prec = Some(0xF);
                return Ok(());
            }
            ("prec", Some(a)) => {
                let mut mask = 0u16;
                for c in a.chars() {
                    mask |= match c {
                        'x' => 1,
                        'y' => 2,
                        'z' => 4,
                        'w' => 8,
                        _ => return Err(self.err(at, format!("`{c}` is not a component"))),
                    };
                }
                pending.prec = Some(mask);
                return Ok(());
            }
            ("sat", None) => {
                pending.sat = true;
                return Ok(());
            }
            _ => {}
        }
        if let (Some(shift), None) = (
            ShiftScale::from_name(name).filter(|s| *s != ShiftScale::None),
            arg,
        ) {
            pending.shift = Some(shift);
            return Ok(());
        }
        if info.extra == Extra::ResourceFormat {
            let axis = match name {
                "fmtx" => Some(0),
                "fmty" => Some(1),
                "fmtz" => Some(2),
                "fmtw" => Some(3),
                _ => None,
            };
            if let (Some(i), Some(a)) = (axis, arg) {
                let f = ElementFormat::from_name(a)
                    .map(|f| f.value())
                    .or_else(|| parse_u32(a).filter(|v| *v < 8))
                    .ok_or_else(|| self.err(at, format!("`{a}` is not an element format")))?;
                let k = first_extra(inst);
                if let Some(w) = inst.extra.get_mut(k) {
                    *w |= f << (20 + 3 * i);
                }
                return Ok(());
            }
            if name == "format" {
                let v = number(self)?;
                let k = first_extra(inst);
                if let Some(w) = inst.extra.get_mut(k) {
                    *w = v;
                }
                return Ok(());
            }
        }
        if info.extra == Extra::StrideLength {
            let slot = match (name, arg) {
                ("stride", Some(_)) => Some(0),
                ("length", Some(_)) => Some(1),
                // Only the default access is encodable; the others' token form is unknown.
                ("access", Some("read_write")) => return Ok(()),
                ("access", Some(a)) => {
                    return Err(self.err(at, format!("`_access({a})` has no known token encoding")));
                }
                _ => None,
            };
            if let Some(slot) = slot {
                let v = number(self)?;
                inst.extra.resize(inst.extra.len().max(2), 0);
                if let Some(w) = inst.extra.get_mut(slot) {
                    *w = v;
                }
                return Ok(());
            }
        }
        if inst.op == Opcode::Macrodef {
            let v = match (name, arg) {
                ("out", Some(_)) => Some((number(self)? & 0xFF) << 8),
                ("in", Some(_)) => Some(number(self)? & 0xFF),
                ("outline", None) => Some(1 << 16),
                ("signature", Some(_)) => Some(number(self)?),
                _ => None,
            };
            if let Some(v) = v {
                let k = first_extra(inst);
                if let Some(w) = inst.extra.get_mut(k) {
                    *w |= v;
                }
                return Ok(());
            }
        }
        if layout == ControlLayout::DclResource
            && name == "type"
            && let Some(a) = arg
            && let Some(ty) = a.strip_suffix(",unnorm")
        {
            // `_type(2d,unnorm)` (guide §7.5 DCL_RESOURCE).
            inst.ctrl.0 |= 0x8000;
            return self.apply_suffix(inst, pending, layout, name, Some(ty), at);
        }
        if let Some(bits) = self.field_value(layout.fields(), name, arg, at)? {
            inst.ctrl.0 |= bits;
            return Ok(());
        }
        if let Some(bits) = self.field_value(layout.primary_fields(), name, arg, at)? {
            inst.mods_mut().pri_mod = Some(inst.pri_mod().unwrap_or(0) | u32::from(bits));
            return Ok(());
        }
        Err(self.err(
            at,
            format!("`_{name}` is not a suffix of `{}`", info.mnemonic),
        ))
    }

    /// The bits that suffix `name(arg)` sets among `fields`, if one of them accepts it.
    fn field_value(
        &self,
        fields: &[CtrlField],
        name: &str,
        arg: Option<&str>,
        at: usize,
    ) -> Result<Option<u16>, TextError> {
        for field in fields {
            let named =
                !field.name.is_empty() && (field.name == name || field.aliases.contains(&name));
            let value = match (field.kind, arg) {
                (FieldKind::Flag, None) if named => 1,
                (FieldKind::Number { .. }, Some(a)) if named => parse_u32(a.trim())
                    .ok_or_else(|| self.err(at, format!("`{a}` is not a number")))?,
                (FieldKind::Enum { names, .. }, Some(a)) if named => names
                    .iter()
                    .find(|(w, _)| *w == a)
                    .map(|(_, v)| *v)
                    .or_else(|| parse_u32(a))
                    .ok_or_else(|| self.err(at, format!("`{a}` is not a value of `_{name}`")))?,
                (FieldKind::Choice(list), None) => {
                    match list.iter().find(|(w, _)| !w.is_empty() && *w == name) {
                        Some((_, v)) => *v,
                        None => continue,
                    }
                }
                _ => continue,
            };
            return self.fit(field, value, at).map(Some);
        }
        Ok(None)
    }

    /// Shifts `value` into `field`'s bits, checking that it fits.
    fn fit(&self, field: &CtrlField, value: u32, at: usize) -> Result<u16, TextError> {
        if value >> field.width != 0 {
            return Err(self.err(
                at,
                format!("value {value} does not fit the {}-bit field", field.width),
            ));
        }
        Ok((value << field.lo) as u16)
    }

    fn number(&self, piece: Piece) -> Result<u32, TextError> {
        parse_u32(piece.text)
            .ok_or_else(|| self.err(piece.at, format!("`{}` is not a number", piece.text)))
    }

    /// A trailing 32-bit value: hex, unsigned or negative decimal, or a float (`1.0`, `1.0f`, `-0.5`).
    fn word(&self, piece: Piece) -> Result<u32, TextError> {
        let t = piece.text;
        if let Some(v) = parse_u32(t) {
            return Ok(v);
        }
        if let Ok(v) = t.parse::<i32>() {
            return Ok(v as u32);
        }
        let f = t.strip_suffix('f').unwrap_or(t);
        if (f.contains(['.', 'e', 'E']) || f.eq_ignore_ascii_case("inf"))
            && let Ok(v) = f.parse::<f32>()
        {
            return Ok(v.to_bits());
        }
        Err(self.err(piece.at, format!("`{t}` is not a 32-bit value")))
    }

    fn dst(&self, piece: Piece, ctx: Ctx, nested: &mut Nested) -> Result<Dst, TextError> {
        let mut p = Cursor {
            text: piece.text,
            pos: 0,
            base: piece.at,
        };
        let reg = self.reg(&mut p, ctx, 0, nested)?;
        let mut dst = Dst::new(reg);
        if p.eat('.') {
            let start = p.pos;
            let mask_text = p.take_while(|c| "xyzwrgba_01".contains(c));
            dst.mask = parse_mask(mask_text).ok_or_else(|| {
                self.err(
                    p.base + start,
                    format!("`.{mask_text}` is not a write mask (amd-il.md §3.4)"),
                )
            })?;
        }
        if !p.rest().is_empty() {
            return Err(self.err(
                p.base + p.pos,
                format!("unexpected `{}` after the destination", p.rest()),
            ));
        }
        Ok(dst)
    }

    fn src(
        &self,
        piece: Piece,
        ctx: Ctx,
        depth: usize,
        nested: &mut Nested,
    ) -> Result<Src, TextError> {
        let mut p = Cursor {
            text: piece.text,
            pos: 0,
            base: piece.at,
        };
        let src = self.src_at(&mut p, ctx, depth, nested)?;
        if !p.rest().is_empty() {
            return Err(self.err(
                p.base + p.pos,
                format!("unexpected `{}` after the source", p.rest()),
            ));
        }
        Ok(src)
    }

    fn src_at(
        &self,
        p: &mut Cursor,
        ctx: Ctx,
        depth: usize,
        nested: &mut Nested,
    ) -> Result<Src, TextError> {
        let reg = self.reg(p, ctx, depth, nested)?;
        let mut src = Src::new(reg);
        if p.eat('.') {
            let start = p.pos;
            let sw = p.take_while(|c| "xyzwrgba01".contains(c));
            src.swizzle = match sw.len() {
                2 | 3 => {
                    // Undocumented (amd-il.md §10 item 19): pad by repeating the last selector.
                    let mut padded = sw.to_string();
                    while padded.len() < 4 {
                        padded.push(sw.chars().last().unwrap_or('x'));
                    }
                    parse_swizzle(&padded)
                }
                _ => parse_swizzle(sw),
            }
            .ok_or_else(|| {
                self.err(
                    p.base + start,
                    format!("`.{sw}` is not a swizzle (amd-il.md §3.5)"),
                )
            })?;
        }
        while p.peek() == Some('_') {
            let start = p.pos;
            p.eat('_');
            let name = p.take_while(|c| c.is_ascii_alphanumeric());
            let arg = if p.eat('(') {
                let a = p.take_while(|c| c != ')');
                if !p.eat(')') {
                    return Err(self.err(p.base + start, "unclosed `(` in source modifier"));
                }
                Some(a)
            } else {
                None
            };
            match (name, arg) {
                ("neg", Some(a)) => {
                    for c in a.chars() {
                        let i = match c {
                            'x' | 'r' => 0,
                            'y' | 'g' => 1,
                            'z' | 'b' => 2,
                            'w' | 'a' => 3,
                            _ => {
                                return Err(
                                    self.err(p.base + start, format!("`{c}` is not a component"))
                                );
                            }
                        };
                        src.mods = src.mods.with_neg_mask(src.mods.neg_mask() | 1 << i);
                    }
                }
                ("invert", None) => src.mods = src.mods.union(SrcMods::INVERT),
                ("bias", None) => src.mods = src.mods.union(SrcMods::BIAS),
                ("x2", None) => src.mods = src.mods.union(SrcMods::X2),
                ("bx2", None) => src.mods = src.mods.union(SrcMods::BIAS).union(SrcMods::X2),
                ("sign", None) => src.mods = src.mods.union(SrcMods::SIGN),
                ("abs", None) => src.mods = src.mods.union(SrcMods::ABS),
                ("sat", None) => src.mods = src.mods.union(SrcMods::CLAMP),
                ("divcomp", Some(a)) => {
                    let divcomp = DivComp::from_name(a).ok_or_else(|| {
                        self.err(p.base + start, format!("`{a}` is not a divcomp value"))
                    })?;
                    src.mods = src.mods.with_divcomp(divcomp);
                }
                _ => {
                    return Err(
                        self.err(p.base + start, format!("unknown source modifier `_{name}`"))
                    );
                }
            }
        }
        Ok(src)
    }

    /// A register with its brackets (see `il_writer::reg_text` for the forms).
    fn reg(
        &self,
        p: &mut Cursor,
        ctx: Ctx,
        depth: usize,
        nested: &mut Nested,
    ) -> Result<Reg, TextError> {
        if depth > MAX_OPERAND_DEPTH {
            return Err(self.err(p.base + p.pos, "operand nesting too deep"));
        }
        let start = p.pos;
        let name = p.take_while(|c| c.is_ascii_alphabetic());
        let mut ty = RegType::from_name(name)
            .ok_or_else(|| self.err(p.base + start, format!("unknown register `{name}`")))?;
        if ty == RegType::Input && ctx.legacy_vertex {
            ty = RegType::Vertex;
        }
        let digits_at = p.pos;
        let digits = p.take_while(|c| c.is_ascii_digit());
        let num = if digits.is_empty() {
            None
        } else {
            Some(
                digits
                    .parse::<u32>()
                    .map_err(|_| self.err(p.base + digits_at, "register number too large"))?,
            )
        };
        let mut brackets = Vec::new();
        while p.peek() == Some('[') {
            if brackets.len() == 2 {
                return Err(self.err(p.base + p.pos, "at most two index dimensions"));
            }
            let open = p.pos;
            p.eat('[');
            let inner_start = p.pos;
            let mut depth_b = 1;
            while let Some(c) = p.peek() {
                if c == '[' {
                    depth_b += 1;
                } else if c == ']' {
                    depth_b -= 1;
                    if depth_b == 0 {
                        break;
                    }
                }
                p.pos += c.len_utf8();
            }
            if !p.eat(']') {
                return Err(self.err(p.base + open, "unclosed `[`"));
            }
            let inner = Piece {
                // `eat(']')` just advanced past the bracket, so `pos ≥ 1`.
                text: p.text.get(inner_start..p.pos - 1).unwrap_or(""),
                at: p.base + inner_start,
            };
            brackets.push(inner);
        }
        let mut reg = Reg::new(ty, num.unwrap_or(0));
        match (num, brackets.as_slice()) {
            (_, []) => {}
            // `c[0]` (guide §3 example): a numbered register written with its number in brackets.
            (None, [first]) if ty.info().numbered && parse_u32(first.text.trim()).is_some() => {
                reg.num = parse_u32(first.text.trim()).unwrap_or(0);
            }
            (_, [first]) => reg.index = Some(self.index(*first, ctx, depth, nested)?),
            (None, [first, second]) => {
                match parse_u32(first.text.trim()) {
                    Some(n) => reg.num = n,
                    None => reg.index = Some(self.index(*first, ctx, depth, nested)?),
                }
                reg.dim2 = Some(self.second(*second, ty, ctx, depth, nested)?);
            }
            (Some(_), [first, second]) => {
                reg.index = Some(self.index(*first, ctx, depth, nested)?);
                reg.dim2 = Some(self.second(*second, ty, ctx, depth, nested)?);
            }
            _ => return Err(self.err(p.base + start, "at most two index dimensions")),
        }
        Ok(reg)
    }

    /// A first-dimension index: a number, `a0.x[+n]` / `aL.x[+n]` (DX9 address register), or a
    /// source register with an optional `+n` offset.
    fn index(
        &self,
        piece: Piece,
        ctx: Ctx,
        depth: usize,
        nested: &mut Nested,
    ) -> Result<Index, TextError> {
        let text = piece.text.trim();
        let at = piece.at + (piece.text.len() - piece.text.trim_start().len());
        if let Some(n) = parse_u32(text) {
            return Ok(Index::Imm(n));
        }
        let (expr, offset) = match last_top_level_plus(text) {
            Some(i) => {
                let off = text.get(i + 1..).unwrap_or("").trim();
                let v = parse_u32(off)
                    .ok_or_else(|| self.err(at + i + 1, format!("`{off}` is not an offset")))?;
                (text.get(..i).unwrap_or("").trim_end(), Some(v))
            }
            None => (text, None),
        };
        if let Some(rel_addr) = addr_register(expr) {
            return Ok(Index::addr_reg(rel_addr, offset));
        }
        let src = self.src(Piece { text: expr, at }, ctx, depth + 1, nested)?;
        Ok(Index::rel(nested.push(src), offset))
    }

    /// A second-dimension index: a number (register of the outer type with that number) or a
    /// register-relative expression (register type 0, as in the guide's `cb[r6.w+2][r2.x+4]`).
    /// The operand goes to `nested`; returns its id.
    fn second(
        &self,
        piece: Piece,
        outer: RegType,
        ctx: Ctx,
        depth: usize,
        nested: &mut Nested,
    ) -> Result<NestedId, TextError> {
        match parse_u32(piece.text.trim()) {
            Some(n) => Ok(nested.push(Src::new(Reg::new(outer, n)))),
            None => {
                let index = self.index(piece, ctx, depth, nested)?;
                let mut reg = Reg::new(RegType::ConstBool, 0);
                reg.index = Some(index);
                Ok(nested.push(Src::new(reg)))
            }
        }
    }
}

/// Context for operand parsing.
#[derive(Clone, Copy)]
struct Ctx {
    /// `v#` names DX9 VERTEX registers (after `dclv`/`initv`).
    legacy_vertex: bool,
}

/// The byte offset of the last `+` outside brackets (the offset of an index expression).
fn last_top_level_plus(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '+' if depth == 0 => found = Some(i),
            _ => {}
        }
    }
    found
}

/// `a<n>.<c>` or `aL.<c>` as an IL_Rel_Addr token (amd-il.md §1.7).
fn addr_register(text: &str) -> Option<u32> {
    let (reg, comp) = text.split_once('.')?;
    let comp = match comp {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        "w" => 3,
        _ => return None,
    };
    let (num, loop_rel) = if let Some(n) = reg.strip_prefix("aL") {
        (if n.is_empty() { 0 } else { n.parse().ok()? }, 1)
    } else {
        let n: u32 = reg.strip_prefix('a')?.parse().ok()?;
        (n, 0)
    };
    (num <= 0xFFFF).then_some(num | loop_rel << 16 | comp << 17)
}

/// Decimal or `0x` hexadecimal unsigned 32-bit number.
fn parse_u32(text: &str) -> Option<u32> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).ok()
    } else if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() {
        text.parse().ok()
    } else {
        None
    }
}

/// A position in an operand.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    base: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|(_, c)| !f(*c))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += len;
        rest.get(..len).unwrap_or("")
    }
}
