//! IL text parser (amd-il.md §3), the inverse of `il_writer::to_text`, tolerant of the spelling
//! variants of AMD's own tools (opcode aliases, register aliases, `_resource(n)` for `_id(n)`,
//! operands separated by blanks instead of commas, `;` and `//` comments, a suffix written after a
//! blank as in `dcl_lds_sharing_mode _wavefrontRel`).
//!
//! Never panics; errors carry a 1-based line and column.

use std::fmt;

use il_model::{
    ControlLayout, CtrlField, DivComp, Dst, Extra, FieldKind, Index, Inst, Opcode, Program, Reg,
    RegType, ShaderKind, ShiftScale, Src, parse_mask, parse_swizzle,
};

use crate::tokens::MAX_OPERAND_DEPTH;

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
pub fn parse_text(text: &str) -> Result<Program, TextError> {
    let mut program: Option<Program> = None;
    let mut legacy_vertex = false;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
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
        match &mut program {
            None => program = Some(line.version(trimmed, start)?),
            Some(p) => {
                let inst = line.instruction(trimmed, start, &mut legacy_vertex)?;
                p.body.push(inst);
            }
        }
    }
    program.ok_or(TextError {
        line: 1,
        column: 1,
        message: "no version line (`il_cs_2_0`, …)".into(),
    })
}

/// The code part of a line: everything before `;` or `//`.
fn strip_comment(line: &str) -> &str {
    let cut = [line.find(';'), line.find("//")]
        .into_iter()
        .flatten()
        .min();
    match cut {
        Some(i) => line.get(..i).unwrap_or(line),
        None => line,
    }
}

/// One line being parsed, for locating errors.
struct Line<'a> {
    text: &'a str,
    line: usize,
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

    fn instruction(
        &mut self,
        text: &str,
        at: usize,
        legacy_vertex: &mut bool,
    ) -> Result<Inst, TextError> {
        let code = Piece { text, at };
        let mut items = self.split_items(code)?;
        if items.is_empty() {
            return Err(self.err(at, "empty instruction"));
        }
        let word = items.remove(0);
        // A suffix written after a blank (`dcl_lds_sharing_mode _wavefrontRel`) belongs to the word.
        let mut suffix_pieces = Vec::new();
        while items.first().is_some_and(|p| p.text.starts_with('_')) {
            suffix_pieces.push(items.remove(0));
        }
        let mut inst = self.mnemonic(word, &suffix_pieces)?;
        // `_sat` / `_x2` … were parked on a placeholder destination (see `Line::pending`).
        let pending = inst.dst.pop();
        let info = inst.info();
        if matches!(inst.op, Opcode::Dclv | Opcode::Initv) {
            // DX9 vertex shaders name VERTEX registers `v#` too (amd-il.md §2.2).
            *legacy_vertex = true;
        }
        let layout = info.control;
        let immediate_cb = inst.op == Opcode::DclConstBuffer && inst.ctrl.0 & 0x8000 != 0;
        let n_dst = usize::from(info.dst);
        let n_src = if immediate_cb {
            0
        } else {
            usize::from(info.src + layout.extra_srcs(inst.ctrl.0))
        };
        let trailing_fields: Vec<&CtrlField> = layout
            .fields()
            .iter()
            .filter(|f| f.kind == FieldKind::Operand)
            .collect();
        let mut rest = items.into_iter();
        let ctx = Ctx {
            legacy_vertex: *legacy_vertex,
        };
        for _ in 0..n_dst {
            let piece = rest.next().ok_or_else(|| {
                self.err(
                    at + text.len(),
                    format!("`{}` needs a destination", info.mnemonic),
                )
            })?;
            inst.dst.push(self.dst(piece, ctx)?);
        }
        if let Some(p) = pending {
            match inst.dst.first_mut() {
                Some(d) => {
                    d.sat = p.sat;
                    d.shift = p.shift;
                }
                None => {
                    return Err(self.err(
                        word.at,
                        format!(
                            "`{}` has no destination to saturate or scale",
                            info.mnemonic
                        ),
                    ));
                }
            }
        }
        for i in 0..n_src {
            let piece = rest.next().ok_or_else(|| {
                self.err(
                    at + text.len(),
                    format!("`{}` needs {n_src} source(s), found {i}", info.mnemonic),
                )
            })?;
            inst.src.push(self.src(piece, ctx, 0)?);
        }
        let remaining: Vec<Piece> = rest.collect();
        let (extra_pieces, field_pieces) =
            remaining.split_at(remaining.len().saturating_sub(trailing_fields.len()));
        if field_pieces.len() != trailing_fields.len() {
            return Err(self.err(
                at + text.len(),
                format!("`{}` needs a trailing number", info.mnemonic),
            ));
        }
        for (field, piece) in trailing_fields.iter().zip(field_pieces) {
            let value = self.number(*piece)?;
            inst.ctrl.0 |= self.fit(field, value, piece.at)?;
        }
        let want = match info.extra {
            Extra::None => Some(0),
            Extra::Label
            | Extra::CaseValue
            | Extra::Float
            | Extra::ResourceFormat
            | Extra::MacroSignature => Some(1),
            Extra::Words(n) => Some(usize::from(n)),
            Extra::CountedWords => {
                if extra_pieces.len() > 3 {
                    return Err(self.err(extra_pieces[3].at, "at most 3 values (amd-il.md §1.11)"));
                }
                None
            }
            Extra::ImmediateConstants if !immediate_cb => Some(0),
            _ => None,
        };
        if let Some(want) = want
            && extra_pieces.len() != want
        {
            let where_ = extra_pieces.get(want).map_or(at + text.len(), |p| p.at);
            return Err(self.err(
                where_,
                format!(
                    "`{}` takes {} operand(s) and {want} trailing value(s)",
                    info.mnemonic,
                    n_dst + n_src
                ),
            ));
        }
        for piece in extra_pieces {
            inst.extra.push(self.word(*piece)?);
        }
        Ok(inst)
    }

    /// Splits the code of a line into items at blanks and commas outside brackets and parentheses.
    fn split_items<'a>(&self, code: Piece<'a>) -> Result<Vec<Piece<'a>>, TextError> {
        let mut items = Vec::new();
        let mut depth: i32 = 0;
        let mut start: Option<usize> = None;
        for (i, c) in code.text.char_indices() {
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
            let separator = depth == 0 && (c == ',' || c.is_whitespace());
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
        if depth != 0 {
            return Err(self.err(code.at + code.text.len(), "unclosed bracket or parenthesis"));
        }
        if let Some(s) = start {
            items.push(Piece {
                text: code.text.get(s..).unwrap_or(""),
                at: code.at + s,
            });
        }
        Ok(items)
    }

    /// The mnemonic with its suffixes: the longest known opcode spelling ending at a `_` boundary
    /// whose remainder parses as suffixes of that opcode.
    fn mnemonic(&self, word: Piece, extra_suffixes: &[Piece]) -> Result<Inst, TextError> {
        let mut cuts: Vec<usize> = Vec::new();
        let mut depth = 0i32;
        for (i, c) in word.text.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '_' if depth == 0 => cuts.push(i),
                _ => {}
            }
        }
        if let Some(p) = word.text.find('(') {
            cuts.retain(|&c| c < p);
            cuts.push(p);
        }
        cuts.push(word.text.len());
        cuts.sort_unstable();
        cuts.dedup();
        let mut first_error = None;
        for &cut in cuts.iter().rev() {
            let base = word.text.get(..cut).unwrap_or("");
            let Some(op) = Opcode::from_mnemonic(base) else {
                continue;
            };
            let mut inst = Inst::new(op);
            let mut result = self.suffixes(&mut inst, word.slice(cut));
            for piece in extra_suffixes {
                if result.is_ok() {
                    result = self.suffixes(&mut inst, *piece);
                }
            }
            match result {
                Ok(()) => return Ok(inst),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error
            .unwrap_or_else(|| self.err(word.at, format!("unknown instruction `{}`", word.text))))
    }

    /// Parses `_name`, `_name(args)` suffixes into `inst` (control fields, escapes, dst modifiers
    /// are kept on the side in `ctrl`/`pending`).
    fn suffixes(&self, inst: &mut Inst, text: Piece) -> Result<(), TextError> {
        let layout = inst.info().control;
        let mut rest = text;
        while !rest.text.is_empty() {
            let Some(after) = rest.text.strip_prefix('_') else {
                return Err(self.err(
                    rest.at,
                    format!("expected `_` before a suffix, found `{}`", rest.text),
                ));
            };
            let body = rest.slice(1);
            // The suffix name runs to the next `_` or `(`; names containing `_` are matched whole.
            let (name, args, consumed) = self.split_suffix(after, layout, body.at)?;
            self.apply_suffix(inst, layout, name, args, body.at)?;
            rest = body.slice(consumed);
        }
        Ok(())
    }

    /// Splits one suffix off `text` (which follows a `_`): returns its name, its parenthesised
    /// argument if any, and the number of bytes consumed.
    fn split_suffix<'t>(
        &self,
        text: &'t str,
        layout: ControlLayout,
        at: usize,
    ) -> Result<(&'t str, Option<&'t str>, usize), TextError> {
        // Candidate names: every layout field name/alias/choice word, plus the generic ones.
        let mut names: Vec<&str> = vec![
            "control",
            "primod",
            "secmod",
            "resourceformat",
            "addroffset",
            "sat",
            "x2",
            "x4",
            "x8",
            "d2",
            "d4",
            "d8",
        ];
        for f in layout.fields() {
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
        layout: ControlLayout,
        name: &str,
        arg: Option<&str>,
        at: usize,
    ) -> Result<(), TextError> {
        let hex_arg = |s: &Self| -> Result<u32, TextError> {
            let a =
                arg.ok_or_else(|| s.err(at, format!("`_{name}` needs a value in parentheses")))?;
            parse_u32(a).ok_or_else(|| s.err(at, format!("`{a}` is not a number")))
        };
        match (name, arg) {
            ("control", _) => {
                let v = hex_arg(self)?;
                inst.ctrl.0 |= u16::try_from(v)
                    .map_err(|_| self.err(at, "control value wider than 16 bits"))?;
                return Ok(());
            }
            ("primod", _) => {
                inst.pri_mod = Some(hex_arg(self)?);
                return Ok(());
            }
            ("secmod", _) => {
                inst.sec_mod = Some(hex_arg(self)?);
                return Ok(());
            }
            ("resourceformat", _) => {
                inst.resource_format = Some(hex_arg(self)?);
                return Ok(());
            }
            ("addroffset", _) => {
                inst.addr_offset = Some(hex_arg(self)?);
                return Ok(());
            }
            _ => {}
        }
        for field in layout.fields() {
            let named =
                !field.name.is_empty() && (field.name == name || field.aliases.contains(&name));
            let value = match (field.kind, arg) {
                (FieldKind::Flag, None) if named => 1,
                (FieldKind::Number { .. }, Some(a)) if named => {
                    parse_u32(a).ok_or_else(|| self.err(at, format!("`{a}` is not a number")))?
                }
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
            inst.ctrl.0 |= self.fit(field, value, at)?;
            return Ok(());
        }
        // Destination modifiers written on the instruction (amd-il.md §3.6); they are applied to the
        // destination once it is parsed, so keep them in a pending slot on the Inst's first dst.
        if arg.is_none() {
            if name == "sat" {
                return self.pending(inst, |d| d.sat = true);
            }
            if let Some(shift) = ShiftScale::from_name(name).filter(|s| *s != ShiftScale::None) {
                return self.pending(inst, |d| d.shift = shift);
            }
        }
        Err(self.err(
            at,
            format!("`_{name}` is not a suffix of `{}`", inst.info().mnemonic),
        ))
    }

    /// Records a destination modifier; it is moved onto the real destination in [`Line::dst`].
    fn pending(&self, inst: &mut Inst, set: impl FnOnce(&mut Dst)) -> Result<(), TextError> {
        if inst.dst.is_empty() {
            inst.dst.push(Dst::new(Reg::new(RegType::Temp, 0)));
        }
        if let Some(d) = inst.dst.first_mut() {
            set(d);
        }
        Ok(())
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

    fn dst(&self, piece: Piece, ctx: Ctx) -> Result<Dst, TextError> {
        let mut p = Cursor {
            text: piece.text,
            pos: 0,
            base: piece.at,
        };
        let reg = self.reg(&mut p, ctx, 0)?;
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

    fn src(&self, piece: Piece, ctx: Ctx, depth: usize) -> Result<Src, TextError> {
        let mut p = Cursor {
            text: piece.text,
            pos: 0,
            base: piece.at,
        };
        let src = self.src_at(&mut p, ctx, depth)?;
        if !p.rest().is_empty() {
            return Err(self.err(
                p.base + p.pos,
                format!("unexpected `{}` after the source", p.rest()),
            ));
        }
        Ok(src)
    }

    fn src_at(&self, p: &mut Cursor, ctx: Ctx, depth: usize) -> Result<Src, TextError> {
        let reg = self.reg(p, ctx, depth)?;
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
                        src.neg[i] = true;
                    }
                }
                ("invert", None) => src.invert = true,
                ("bias", None) => src.bias = true,
                ("x2", None) => src.x2 = true,
                ("bx2", None) => {
                    src.bias = true;
                    src.x2 = true;
                }
                ("sign", None) => src.sign = true,
                ("abs", None) => src.abs = true,
                ("sat", None) => src.clamp = true,
                ("divcomp", Some(a)) => {
                    src.divcomp = DivComp::from_name(a).ok_or_else(|| {
                        self.err(p.base + start, format!("`{a}` is not a divcomp value"))
                    })?;
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
    fn reg(&self, p: &mut Cursor, ctx: Ctx, depth: usize) -> Result<Reg, TextError> {
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
                text: p.text.get(inner_start..p.pos - 1).unwrap_or(""),
                at: p.base + inner_start,
            };
            brackets.push(inner);
        }
        let mut reg = Reg::new(ty, num.unwrap_or(0));
        match (num, brackets.as_slice()) {
            (_, []) => {}
            (_, [first]) => reg.index = Some(self.index(*first, ctx, depth)?),
            (None, [first, second]) => {
                match parse_u32(first.text.trim()) {
                    Some(n) => reg.num = n,
                    None => reg.index = Some(self.index(*first, ctx, depth)?),
                }
                reg.dim2 = Some(Box::new(self.second(*second, ty, ctx, depth)?));
            }
            (Some(_), [first, second]) => {
                reg.index = Some(self.index(*first, ctx, depth)?);
                reg.dim2 = Some(Box::new(self.second(*second, ty, ctx, depth)?));
            }
            _ => return Err(self.err(p.base + start, "at most two index dimensions")),
        }
        Ok(reg)
    }

    /// A first-dimension index: a number, `a0.x[+n]` / `aL.x[+n]` (DX9 address register), or a
    /// source register with an optional `+n` offset.
    fn index(&self, piece: Piece, ctx: Ctx, depth: usize) -> Result<Index, TextError> {
        let text = piece.text.trim();
        let at = piece.at + (piece.text.len() - piece.text.trim_start().len());
        if let Some(n) = parse_u32(text) {
            return Ok(Index::Imm(n));
        }
        let (expr, offset) = match text.rfind('+') {
            Some(i) => {
                let off = text.get(i + 1..).unwrap_or("").trim();
                let v = parse_u32(off)
                    .ok_or_else(|| self.err(at + i + 1, format!("`{off}` is not an offset")))?;
                (text.get(..i).unwrap_or("").trim_end(), Some(v))
            }
            None => (text, None),
        };
        if let Some(rel_addr) = addr_register(expr) {
            return Ok(Index::AddrReg { rel_addr, offset });
        }
        let src = self.src(Piece { text: expr, at }, ctx, depth + 1)?;
        Ok(Index::Rel {
            reg: Box::new(src),
            offset,
        })
    }

    /// A second-dimension index: a number (register of the outer type with that number) or a
    /// register-relative expression (register type 0, as in the guide's `cb[r6.w+2][r2.x+4]`).
    fn second(
        &self,
        piece: Piece,
        outer: RegType,
        ctx: Ctx,
        depth: usize,
    ) -> Result<Src, TextError> {
        match parse_u32(piece.text.trim()) {
            Some(n) => Ok(Src::new(Reg::new(outer, n))),
            None => {
                let index = self.index(piece, ctx, depth)?;
                let mut reg = Reg::new(RegType::ConstBool, 0);
                reg.index = Some(index);
                Ok(Src::new(reg))
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
    let (num, loop_rel) = if reg == "aL" {
        (0, 1)
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
