//! Canonical IL text (amd-il.md §3).
//!
//! Style: first line `il_<kind>_<major>_<minor>` (plus `_mp`, `_rt`); one instruction per line;
//! lower-case mnemonics with control specifiers, then shift scale and `_sat` as suffixes; a single
//! space after the mnemonic and `, ` between operands; full four-character destination masks
//! (omitted for `.xyzw`); one- or four-character source swizzles (omitted for `.xyzw`);
//! `dcl_literal` values as `0x%08X`; block bodies indented by [`INDENT`] per nesting level (`case` and
//! `default` one level inside their `switch`, their bodies one further); exactly one trailing newline.
//!
//! Speed: every piece is appended to one pre-sized `String` (no string per operand or register,
//! no `format!` on the paths real programs take; numbers are formatted by hand). The rare forms
//! (unknown control bits, modifier tokens, floats) use `write!` into the same buffer.

use std::fmt::Write;

use il_model::enums::{ElementFormat, PixTexUsage};
use il_model::{
    CompSel, ControlLayout, CtrlField, DivComp, Dst, DstComp, Extra, FieldKind, Flow, IDENTITY,
    Index, Inst, Opcode, Program, Reg, ShaderKind, ShiftScale, Src,
};

/// Indentation per nesting level.
pub const INDENT: &str = "    ";

/// Bytes reserved per instruction before writing: translated compute shaders average 22 to 49
/// bytes per line (an operation with two or three operands plus indentation), so most outputs
/// need no reallocation.
const BYTES_PER_INST: usize = 48;

/// Renders `program` as canonical IL text. Deterministic; never panics.
pub fn to_text(program: &Program) -> String {
    let lines = program.macros.len() + program.body.len() + 1;
    let mut out = String::with_capacity(lines.saturating_mul(BYTES_PER_INST));
    // Macro definitions come before the version line (guide §7.19; amd-il.md §1.1).
    let mut macro_layout = Layout::default();
    for inst in &program.macros {
        let depth = macro_layout.depth_for(inst.info().flow);
        push_indent(&mut out, depth);
        write_inst(&mut out, inst, program.shader, None);
        out.push('\n');
    }
    out.push_str("il_");
    out.push_str(program.shader.name());
    out.push('_');
    push_dec(&mut out, u32::from(program.version.0));
    out.push('_');
    push_dec(&mut out, u32::from(program.version.1));
    if program.multipass {
        out.push_str("_mp");
    }
    if program.realtime {
        out.push_str("_rt");
    }
    out.push('\n');
    let mut layout = Layout::default();
    let mut prec = None;
    for (i, inst) in program.body.iter().enumerate() {
        if let Some(mask) = foldable_prefix(inst)
            && program
                .body
                .get(i + 1)
                .is_some_and(|next| foldable_prefix(next).is_none())
        {
            prec = Some(mask);
            continue;
        }
        let depth = layout.depth_for(inst.info().flow);
        push_indent(&mut out, depth);
        write_inst(&mut out, inst, program.shader, prec.take());
        out.push('\n');
    }
    out
}

/// Appends `depth` levels of [`INDENT`].
fn push_indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str(INDENT);
    }
}

/// Appends `value` in decimal.
fn push_dec(out: &mut String, value: u32) {
    // Register numbers, ids and indices are nearly always below 1000: one branch per length.
    if value < 10 {
        out.push(digit(value));
    } else if value < 100 {
        out.push(digit(value / 10));
        out.push(digit(value % 10));
    } else if value < 1000 {
        out.push(digit(value / 100));
        out.push(digit(value / 10 % 10));
        out.push(digit(value % 10));
    } else {
        // u32::MAX has ten digits.
        let mut digits = [0u8; 10];
        let mut rest = value;
        let mut len = 0;
        for slot in digits.iter_mut().rev() {
            *slot = b'0' + (rest % 10) as u8;
            rest /= 10;
            len += 1;
            if rest == 0 {
                break;
            }
        }
        for &d in digits.iter().skip(digits.len() - len) {
            out.push(char::from(d));
        }
    }
}

/// The decimal digit `value` (0..=9).
fn digit(value: u32) -> char {
    char::from(b'0' + (value % 10) as u8)
}

/// Appends `value` in signed decimal.
fn push_signed(out: &mut String, value: i32) {
    if value < 0 {
        out.push('-');
    }
    push_dec(out, value.unsigned_abs());
}

/// Appends `value` as `0x%08X` (the literal and immediate-constant spelling, amd-il.md §3.7).
fn push_hex8(out: &mut String, value: u32) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.push_str("0x");
    for shift in (0..8).rev() {
        // The nibble is masked to 0..=15, so the index is always in range.
        out.push(char::from(DIGITS[((value >> (shift * 4)) & 0xF) as usize]));
    }
}

/// The precise mask of a plain `IL_OP_PREFIX` packet that can be written as `_prec…` on the next
/// instruction (amd-il.md §1.10); `None` for anything else.
fn foldable_prefix(inst: &Inst) -> Option<u16> {
    let plain = inst.op == Opcode::Prefix
        && (1..=0xF).contains(&inst.ctrl.0)
        && inst.pri_mod.is_none()
        && inst.sec_mod.is_none()
        && inst.dst.is_empty()
        && inst.src.is_empty()
        && inst.extra.is_empty();
    plain.then_some(inst.ctrl.0)
}

/// Nesting state for indentation.
#[derive(Default)]
struct Layout {
    /// Open blocks; `true` marks a `switch` whose case body is open (one extra level).
    stack: Vec<Open>,
    /// [`Layout::depth`] of `stack`, kept for the instructions with no block role (most of them),
    /// which leave the stack as it is.
    current: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Block,
    Switch { in_case: bool },
    Func { returned: bool },
}

impl Layout {
    fn depth(&self) -> usize {
        self.stack
            .iter()
            .map(|o| match o {
                Open::Block => 1,
                Open::Switch { in_case } => 1 + usize::from(*in_case),
                Open::Func { returned } => usize::from(!*returned),
            })
            .sum()
    }

    /// The depth at which an instruction with role `flow` is printed, updating the state.
    fn depth_for(&mut self, flow: Flow) -> usize {
        if flow == Flow::None {
            return self.current;
        }
        let depth = self.depth_for_block_role(flow);
        self.current = self.depth();
        depth
    }

    /// [`Layout::depth_for`] an instruction with a block role.
    fn depth_for_block_role(&mut self, flow: Flow) -> usize {
        if matches!(flow, Flow::Func | Flow::End)
            && self.stack.last() == Some(&Open::Func { returned: true })
        {
            self.stack.pop();
        }
        match flow {
            Flow::If | Flow::Loop | Flow::MacroDef => {
                let d = self.depth();
                self.stack.push(Open::Block);
                d
            }
            Flow::Phase => {
                if self.stack.last() == Some(&Open::Block) {
                    self.stack.pop();
                }
                let d = self.depth();
                self.stack.push(Open::Block);
                d
            }
            Flow::Func => {
                let d = self.depth();
                self.stack.push(Open::Func { returned: false });
                d
            }
            Flow::Switch => {
                let d = self.depth();
                self.stack.push(Open::Switch { in_case: false });
                d
            }
            Flow::Else => self.depth().saturating_sub(1),
            Flow::Case | Flow::Default => {
                if let Some(Open::Switch { in_case }) = self.stack.last_mut() {
                    *in_case = false;
                    let d = self.depth();
                    if let Some(Open::Switch { in_case }) = self.stack.last_mut() {
                        *in_case = true;
                    }
                    d
                } else {
                    self.depth()
                }
            }
            Flow::EndIf | Flow::EndLoop | Flow::EndSwitch | Flow::EndPhase | Flow::MacroEnd => {
                self.stack.pop();
                self.depth()
            }
            Flow::EndFunc => {
                if matches!(self.stack.last(), Some(Open::Func { .. })) {
                    self.stack.pop();
                }
                self.depth()
            }
            Flow::Ret => {
                if let Some(Open::Func { returned }) = self.stack.last_mut() {
                    *returned = true;
                }
                self.depth()
            }
            _ => self.depth(),
        }
    }
}

/// One instruction's text without indentation or newline.
pub fn inst_text(inst: &Inst, shader: ShaderKind) -> String {
    let mut out = String::with_capacity(BYTES_PER_INST);
    write_inst(&mut out, inst, shader, None);
    out
}

/// Appends `_name…` for each field of `fields` in `value`; returns the bits rendered. Fields
/// written after the operands ([`FieldKind::Operand`], [`FieldKind::Word`]) are left to
/// [`write_trailing_fields`], but count as rendered here.
fn render_fields(fields: &[CtrlField], value: u16, out: &mut String) -> u16 {
    let mut rendered = 0u16;
    for field in fields {
        let v = field.get(value);
        match field.kind {
            FieldKind::Flag => {
                if v != 0 {
                    out.push('_');
                    out.push_str(field.name);
                }
            }
            FieldKind::Number { always } => {
                if always || v != 0 {
                    out.push('_');
                    out.push_str(field.name);
                    out.push('(');
                    push_dec(out, v);
                    out.push(')');
                }
            }
            FieldKind::Enum {
                names: list,
                always,
            } => {
                if always || v != 0 {
                    out.push('_');
                    out.push_str(field.name);
                    out.push('(');
                    match names(v, list) {
                        Some(word) => out.push_str(word),
                        None => push_dec(out, v),
                    }
                    out.push(')');
                }
            }
            FieldKind::Choice(list) => match names(v, list) {
                Some("") => {}
                Some(word) => {
                    out.push('_');
                    out.push_str(word);
                }
                // No word for this value: left to the `_control(..)` escape.
                None => continue,
            },
            FieldKind::Operand => {}
            FieldKind::Word(list) => {
                if names(v, list).is_none() {
                    // No word for this value: left to the `_control(..)` escape.
                    continue;
                }
            }
            FieldKind::Hidden => {}
        }
        rendered |= field.mask();
    }
    rendered
}

/// Appends the control fields written after the operands: numbers (`dcl_stream 1`) as further
/// operands, then words naming control values (`dcl_global_flags refactoringAllowed`), which the
/// guide separates by blanks. `first` says whether no operand has been written yet.
fn write_trailing_fields(fields: &[CtrlField], value: u16, out: &mut String, mut first: bool) {
    for field in fields {
        if field.kind == FieldKind::Operand {
            out.push_str(if first { " " } else { ", " });
            first = false;
            push_dec(out, field.get(value));
        }
    }
    for field in fields {
        if let FieldKind::Word(list) = field.kind
            && let Some(word) = names(field.get(value), list)
        {
            out.push(' ');
            out.push_str(word);
        }
    }
}

/// Appends a signed 7.1 fixed-point byte of `_aoffimmi` (amd-il.md §1.10): `3`, `-1.5`.
fn push_half(out: &mut String, byte: u32) {
    let v = i32::from(byte as u8 as i8);
    if v % 2 == 0 {
        push_signed(out, v / 2);
    } else {
        // An odd count of halves is a whole part and `.5`, with the sign of the value (`-0.5`).
        if v < 0 {
            out.push('-');
        }
        push_dec(out, v.unsigned_abs() / 2);
        out.push_str(".5");
    }
}

/// Appends the text of a `comment` packet: a quoted string when the words hold printable ASCII
/// padded with NULs to whole words (amd-il.md §1.11), else the raw words.
fn write_comment(out: &mut String, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some(end) = bytes.iter().position(|b| *b == 0) {
        let (text, pad) = bytes.split_at(end);
        let padded_ok = pad.iter().all(|b| *b == 0) && pad.len() <= 4 && !pad.is_empty();
        if padded_ok
            && text
                .iter()
                .all(|b| (0x20..0x7F).contains(b) && !b"\";/".contains(b))
        {
            out.push('"');
            out.extend(text.iter().map(|b| char::from(*b)));
            out.push('"');
            return;
        }
    }
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_hex8(out, *w);
    }
}

/// Operand-list punctuation: a blank before the first item, `, ` between items.
struct Items {
    first: bool,
}

impl Items {
    /// Appends the separator for the next item.
    fn next(&mut self, out: &mut String) {
        out.push_str(if self.first { " " } else { ", " });
        self.first = false;
    }

    /// Appends the separator for a `= {…}` table, which follows a blank, not a comma.
    fn table(&mut self, out: &mut String) {
        out.push(' ');
        self.first = false;
    }
}

/// Appends `words` in decimal separated by `, `, inside `= {…}`.
fn write_table(out: &mut String, words: &[u32]) {
    out.push_str("= {");
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_dec(out, *w);
    }
    out.push('}');
}

/// Appends one instruction's text; `prec` is the precise mask of a preceding `IL_OP_PREFIX`
/// folded into this line as `_prec` / `_prec(mask)` (amd-il.md §1.10).
fn write_inst(out: &mut String, inst: &Inst, shader: ShaderKind, prec: Option<u16>) {
    let info = inst.info();
    let layout = info.control;
    out.push_str(info.mnemonic);
    let mnemonic_end = out.len();
    let fields = layout.fields();
    let ctrl = match layout {
        ControlLayout::CountOfExtra => 0,
        _ => inst.ctrl.0,
    };
    let mut rendered = 0u16;
    if layout == ControlLayout::Macro {
        // `mdef(k)`, `mcall(k)` (guide §7.19).
        out.push('(');
        push_dec(out, u32::from(ctrl & 0x3FFF));
        out.push(')');
        rendered |= 0x3FFF;
    }
    if layout == ControlLayout::DclResource {
        // `dcl_resource_id(n)_type(t[,unnorm])` (guide §7.5 DCL_RESOURCE).
        let ty = u32::from((ctrl >> 8) & 0xF);
        out.push_str("_id(");
        push_dec(out, u32::from(ctrl & 0xFF));
        out.push_str(")_type(");
        match names(ty, PixTexUsage::NAMES) {
            Some(word) => out.push_str(word),
            None => push_dec(out, ty),
        }
        out.push_str(if ctrl & 0x8000 != 0 { ",unnorm)" } else { ")" });
        rendered |= 0x8FFF;
    } else {
        rendered |= render_fields(fields, ctrl, out);
    }
    // Bits 15:14 belong to the layout only where it defines them (else they are the modifier
    // flags, amd-il.md §1.4); checked only when some bit is left, which is rare.
    let unrendered = ctrl & !rendered;
    let leftover = if unrendered == 0 || layout.owns_modifier_bits() {
        unrendered
    } else {
        unrendered & 0x3FFF
    };
    if leftover != 0 {
        // Bits the layout does not define (the verifier rejects them); kept so text stays lossless.
        let _ = write!(out, "_control({leftover:#06x})");
    }
    if let Some(p) = inst.pri_mod {
        let fields = layout.primary_fields();
        let defined = fields.iter().fold(0u32, |m, f| m | u32::from(f.mask()));
        let before = out.len();
        if p & !defined == 0 {
            // Primary-modifier layouts have no trailing fields, so nothing is left for later.
            render_fields(fields, p as u16, out);
        }
        if out.len() == before {
            let _ = write!(out, "_primod({p:#010x})");
        }
    }
    if let Some(s) = inst.sec_mod {
        let _ = write!(out, "_secmod({s:#010x})");
    }
    if let Some(f) = inst.resource_format {
        match PixTexUsage::from_value(f) {
            Some(u) => {
                out.push_str("_resourcetype(");
                out.push_str(u.name());
                out.push(')');
            }
            None => {
                let _ = write!(out, "_resourceformat({f:#010x})");
            }
        }
    }
    if let Some(a) = inst.addr_offset {
        if a >> 24 == 0 {
            out.push_str("_aoffimmi(");
            push_half(out, a & 0xFF);
            out.push(',');
            push_half(out, (a >> 8) & 0xFF);
            out.push(',');
            push_half(out, (a >> 16) & 0xFF);
            out.push(')');
        } else {
            let _ = write!(out, "_addroffset({a:#010x})");
        }
    }
    if info.extra == Extra::ResourceFormat
        && let Some(&f) = inst.extra.first()
    {
        if f & 0xF_FFFF == 0 {
            for (i, axis) in ["x", "y", "z", "w"].iter().enumerate() {
                let v = (f >> (20 + 3 * i)) & 7;
                out.push_str("_fmt");
                out.push_str(axis);
                out.push('(');
                out.push_str(names(v, ElementFormat::NAMES).unwrap_or("unknown"));
                out.push(')');
            }
        } else {
            let _ = write!(out, "_format({f:#010x})");
        }
    }
    if info.extra == Extra::StrideLength
        && let [stride, length] = inst.extra.as_slice()
    {
        // AMD's OpenCL compiler wrote `dcl_typeless_uav_id(n)_stride(s)_length(l)_access(a)`.
        out.push_str("_stride(");
        push_dec(out, *stride);
        out.push_str(")_length(");
        push_dec(out, *length);
        out.push(')');
    }
    if layout == ControlLayout::LdsSharingMode && out.as_bytes().get(mnemonic_end) == Some(&b'_') {
        // Guide §7.5 writes the mode after a blank: `dcl_lds_sharing_mode _wavefrontRel`.
        out.insert(mnemonic_end, ' ');
    }
    if inst.op == Opcode::Macrodef
        && let Some(&sig) = inst.extra.first()
    {
        if sig >> 17 == 0 {
            out.push_str("_out(");
            push_dec(out, (sig >> 8) & 0xFF);
            out.push_str(")_in(");
            push_dec(out, sig & 0xFF);
            out.push(')');
            if sig & (1 << 16) != 0 {
                out.push_str("_outline");
            }
        } else {
            let _ = write!(out, "_signature({sig:#010x})");
        }
    }
    match prec {
        Some(0xF) => out.push_str("_prec"),
        Some(mask) => {
            out.push_str("_prec(");
            for (i, c) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
                if mask & (1 << i) != 0 {
                    out.push(c);
                }
            }
            out.push(')');
        }
        None => {}
    }
    if let Some(dst) = inst.dst.first() {
        if dst.shift != ShiftScale::None {
            out.push('_');
            out.push_str(dst.shift.name());
        }
        if dst.sat {
            out.push_str("_sat");
        }
    }
    if info.extra == Extra::InterfacePtr {
        out.push('[');
        push_dec(out, inst.extra.first().copied().unwrap_or(0));
        out.push_str("][");
        push_dec(out, inst.extra.get(1).copied().unwrap_or(0));
        out.push(']');
    }
    let mut items = Items { first: true };
    if inst.op == Opcode::Macrocall {
        // `mcall(k) (outs), (ins)` — parentheses mandatory (guide §7.19).
        items.next(out);
        out.push('(');
        for (i, d) in inst.dst.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_dst(out, d, shader);
        }
        out.push(')');
        items.next(out);
        out.push('(');
        for (i, s) in inst.src.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_src(out, s, shader);
        }
        out.push(')');
    } else {
        for d in &inst.dst {
            items.next(out);
            write_dst(out, d, shader);
        }
        for s in &inst.src {
            items.next(out);
            write_src(out, s, shader);
        }
    }
    match info.extra {
        Extra::Words(4) if matches!(inst.op, Opcode::DclLiteral | Opcode::Def) => {
            for w in &inst.extra {
                items.next(out);
                push_hex8(out, *w);
            }
        }
        Extra::ImmediateConstants => {
            for w in &inst.extra {
                items.next(out);
                push_hex8(out, *w);
            }
        }
        Extra::CaseValue => {
            for w in &inst.extra {
                items.next(out);
                push_signed(out, *w as i32);
            }
        }
        Extra::Float => {
            for w in &inst.extra {
                items.next(out);
                write_float(out, *w);
            }
        }
        Extra::Comment if !inst.extra.is_empty() => {
            items.next(out);
            write_comment(out, &inst.extra);
        }
        Extra::Comment => {}
        Extra::LabelList => {
            items.table(out);
            write_table(out, &inst.extra);
        }
        Extra::InterfacePtr => {
            items.table(out);
            write_table(out, inst.extra.get(2..).unwrap_or(&[]));
        }
        Extra::StrideLength if inst.extra.len() == 2 => {}
        Extra::ResourceFormat | Extra::MacroSignature => {}
        _ => {
            for w in &inst.extra {
                items.next(out);
                push_dec(out, *w);
            }
        }
    }
    if layout != ControlLayout::DclResource {
        write_trailing_fields(fields, ctrl, out, items.first);
    }
}

/// The canonical word for `value` in a `(word, value)` list.
fn names(value: u32, list: &'static [(&'static str, u32)]) -> Option<&'static str> {
    list.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
}

/// Appends a float token as text that parses back to the same bits: the shortest decimal for
/// finite values, hex otherwise.
fn write_float(out: &mut String, bits: u32) {
    let f = f32::from_bits(bits);
    if f.is_finite() && !(f == 0.0 && f.is_sign_negative()) {
        let _ = write!(out, "{f:?}");
    } else {
        push_hex8(out, bits);
    }
}

/// The letter of component `i` (0..=3) of a mask or `_neg(..)` list.
fn comp_letter(i: usize) -> char {
    ['x', 'y', 'z', 'w'][i & 3]
}

/// Destination text: register plus full four-character mask (amd-il.md §3.4).
pub fn dst_text(dst: &Dst, shader: ShaderKind) -> String {
    let mut out = String::new();
    write_dst(&mut out, dst, shader);
    out
}

/// Appends a destination (see [`dst_text`]).
fn write_dst(out: &mut String, dst: &Dst, shader: ShaderKind) {
    write_reg(out, &dst.reg, shader);
    if dst.mask != [DstComp::Write; 4] {
        out.push('.');
        for (i, c) in dst.mask.iter().enumerate() {
            out.push(match c {
                DstComp::Write => comp_letter(i),
                DstComp::NoWrite => '_',
                DstComp::Zero => '0',
                DstComp::One => '1',
            });
        }
    }
}

fn sel_char(c: CompSel) -> char {
    match c {
        CompSel::X => 'x',
        CompSel::Y => 'y',
        CompSel::Z => 'z',
        CompSel::W => 'w',
        CompSel::Zero => '0',
        CompSel::One => '1',
    }
}

/// Source text: register, swizzle, modifiers in GRVK's order (amd-il.md §3.5).
pub fn src_text(src: &Src, shader: ShaderKind) -> String {
    let mut out = String::new();
    write_src(&mut out, src, shader);
    out
}

/// Appends a source (see [`src_text`]).
fn write_src(out: &mut String, src: &Src, shader: ShaderKind) {
    write_reg(out, &src.reg, shader);
    let sw = src.swizzle;
    if sw != IDENTITY {
        out.push('.');
        if sw.iter().all(|c| *c == sw[0]) {
            out.push(sel_char(sw[0]));
        } else {
            for c in sw {
                out.push(sel_char(c));
            }
        }
    }
    if src.neg != [false; 4] {
        out.push_str("_neg(");
        for (i, n) in src.neg.iter().enumerate() {
            if *n {
                out.push(comp_letter(i));
            }
        }
        out.push(')');
    }
    if src.invert {
        out.push_str("_invert");
    }
    match (src.bias, src.x2) {
        (true, true) => out.push_str("_bx2"),
        (true, false) => out.push_str("_bias"),
        (false, true) => out.push_str("_x2"),
        (false, false) => {}
    }
    if src.sign {
        out.push_str("_sign");
    }
    if src.divcomp != DivComp::None {
        out.push_str("_divcomp(");
        out.push_str(src.divcomp.name());
        out.push(')');
    }
    if src.abs {
        out.push_str("_abs");
    }
    if src.clamp {
        out.push_str("_sat");
    }
}

/// Appends the text inside an index bracket.
fn write_index(out: &mut String, index: &Index, shader: ShaderKind) {
    match index {
        Index::Imm(i) => push_dec(out, *i),
        Index::Rel { reg, offset } => {
            write_src(out, reg, shader);
            if let Some(o) = offset {
                out.push('+');
                push_dec(out, *o);
            }
        }
        Index::AddrReg { rel_addr, offset } => {
            // IL_Rel_Addr (amd-il.md §1.7): register 15:0, loop-relative 16, component 19:17.
            let reg = rel_addr & 0xFFFF;
            let comp = (rel_addr >> 17) & 7;
            // `aL` is the loop register; a non-zero register number is kept after it.
            if rel_addr & (1 << 16) != 0 {
                out.push_str("aL");
                if reg != 0 {
                    push_dec(out, reg);
                }
            } else {
                out.push('a');
                push_dec(out, reg);
            }
            out.push('.');
            out.push(['x', 'y', 'z', 'w', '?', '?', '?', '?'][comp as usize]);
            if let Some(o) = offset {
                out.push('+');
                push_dec(out, *o);
            }
        }
    }
}

/// Appends the second index of a two-dimensional register: a register-relative expression, else
/// the second operand's register number.
fn write_second(out: &mut String, second: &Src, shader: ShaderKind) {
    match &second.reg.index {
        Some(index @ Index::Rel { .. }) => write_index(out, index, shader),
        _ => push_dec(out, second.reg.num),
    }
}

/// Register text with its index brackets (amd-il.md §3.3). One dimension: `r3`, `cb0[4]`,
/// `x1[r2.x+3]`, `vAbsTid`. Two dimensions: `v[1][2]` (no first index), `cb[r6.w+2][r2.x+4]`
/// (register-relative first index on register 0), else `name<num>[first][second]`.
pub fn reg_text(reg: &Reg, shader: ShaderKind) -> String {
    let mut out = String::new();
    write_reg(&mut out, reg, shader);
    out
}

/// Appends a register (see [`reg_text`]).
fn write_reg(out: &mut String, reg: &Reg, shader: ShaderKind) {
    out.push_str(reg.ty.name_in(shader));
    match (&reg.index, &reg.dim2) {
        (None, Some(second)) => {
            out.push('[');
            push_dec(out, reg.num);
            out.push_str("][");
            write_second(out, second, shader);
            out.push(']');
        }
        (Some(index), Some(second)) => {
            if !(matches!(index, Index::Rel { .. }) && reg.num == 0) {
                push_dec(out, reg.num);
            }
            out.push('[');
            write_index(out, index, shader);
            out.push_str("][");
            write_second(out, second, shader);
            out.push(']');
        }
        (index, None) => {
            if reg.num != 0 || reg.ty.info().numbered {
                push_dec(out, reg.num);
            }
            if let Some(index) = index {
                out.push('[');
                write_index(out, index, shader);
                out.push(']');
            }
        }
    }
}
