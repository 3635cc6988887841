//! Canonical IL text (amd-il.md §3).
//!
//! Style: first line `il_<kind>_<major>_<minor>` (plus `_mp`, `_rt`); one instruction per line;
//! lower-case mnemonics with control specifiers, then shift scale and `_sat` as suffixes; a single
//! space after the mnemonic and `, ` between operands; full four-character destination masks
//! (omitted for `.xyzw`); one- or four-character source swizzles (omitted for `.xyzw`);
//! `dcl_literal` values as `0x%08X`; block bodies indented by [`INDENT`] per nesting level (`case` and
//! `default` one level inside their `switch`, their bodies one further); exactly one trailing newline.

use std::fmt::Write;

use il_model::enums::{ElementFormat, PixTexUsage};
use il_model::{
    CompSel, ControlLayout, CtrlField, DivComp, Dst, DstComp, Extra, FieldKind, Flow, IDENTITY,
    Index, Inst, Opcode, Program, Reg, ShaderKind, ShiftScale, Src,
};

/// Indentation per nesting level.
pub const INDENT: &str = "    ";

/// Renders `program` as canonical IL text. Deterministic; never panics.
pub fn to_text(program: &Program) -> String {
    let mut out = String::new();
    out.push_str("il_");
    out.push_str(program.shader.name());
    let _ = write!(out, "_{}_{}", program.version.0, program.version.1);
    if program.multipass {
        out.push_str("_mp");
    }
    if program.realtime {
        out.push_str("_rt");
    }
    out.push('\n');
    let mut macro_layout = Layout::default();
    let mut macros = String::new();
    for inst in &program.macros {
        let depth = macro_layout.depth_for(inst.info().flow);
        for _ in 0..depth {
            macros.push_str(INDENT);
        }
        macros.push_str(&inst_text(inst, program.shader));
        macros.push('\n');
    }
    out.insert_str(0, &macros);
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
        for _ in 0..depth {
            out.push_str(INDENT);
        }
        out.push_str(&inst_text_prec(inst, program.shader, prec.take()));
        out.push('\n');
    }
    out
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
    inst_text_prec(inst, shader, None)
}

/// Appends `_name…` for each field of `fields` in `value`; returns the bits rendered.
fn render_fields(
    fields: &[CtrlField],
    value: u16,
    line: &mut String,
    trailing: &mut Vec<String>,
) -> u16 {
    let mut rendered = 0u16;
    for field in fields {
        let v = field.get(value);
        match field.kind {
            FieldKind::Flag => {
                if v != 0 {
                    let _ = write!(line, "_{}", field.name);
                }
            }
            FieldKind::Number { always } => {
                if always || v != 0 {
                    let _ = write!(line, "_{}({v})", field.name);
                }
            }
            FieldKind::Enum {
                names: list,
                always,
            } => {
                if always || v != 0 {
                    match names(v, list) {
                        Some(word) => {
                            let _ = write!(line, "_{}({word})", field.name);
                        }
                        None => {
                            let _ = write!(line, "_{}({v})", field.name);
                        }
                    }
                }
            }
            FieldKind::Choice(list) => match names(v, list) {
                Some("") => {}
                Some(word) => {
                    let _ = write!(line, "_{word}");
                }
                // No word for this value: left to the `_control(..)` escape.
                None => continue,
            },
            FieldKind::Operand => trailing.push(v.to_string()),
            FieldKind::Word(list) => match names(v, list) {
                Some(word) => trailing.push(word.to_string()),
                // No word for this value: left to the `_control(..)` escape.
                None => continue,
            },
            FieldKind::Hidden => {}
        }
        rendered |= field.mask();
    }
    rendered
}

/// A signed 7.1 fixed-point byte of `_aoffimmi` (amd-il.md §1.10) as text: `3`, `-1.5`.
fn half_text(byte: u32) -> String {
    let v = i32::from(byte as u8 as i8);
    if v % 2 == 0 {
        (v / 2).to_string()
    } else {
        format!("{:.1}", v as f32 / 2.0)
    }
}

/// The text of a `comment` packet: a quoted string when the words hold printable ASCII padded with
/// NULs to whole words (amd-il.md §1.11), else the raw words.
fn comment_text(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|b| *b == 0);
    if let Some(end) = end {
        let (text, pad) = bytes.split_at(end);
        let padded_ok = pad.iter().all(|b| *b == 0) && pad.len() <= 4 && !pad.is_empty();
        if padded_ok
            && text
                .iter()
                .all(|b| (0x20..0x7F).contains(b) && !b"\";/".contains(b))
        {
            return format!("\"{}\"", String::from_utf8_lossy(text));
        }
    }
    words
        .iter()
        .map(|w| format!("0x{w:08X}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One instruction's text; `prec` is the precise mask of a preceding `IL_OP_PREFIX` folded into
/// this line as `_prec` / `_prec(mask)` (amd-il.md §1.10).
fn inst_text_prec(inst: &Inst, shader: ShaderKind, prec: Option<u16>) -> String {
    let info = inst.info();
    let layout = info.control;
    let mut line = String::from(info.mnemonic);
    let mut trailing: Vec<String> = Vec::new();
    let ctrl = match layout {
        ControlLayout::CountOfExtra => 0,
        _ => inst.ctrl.0,
    };
    let mut rendered = 0u16;
    if layout == ControlLayout::Macro {
        // `mdef(k)`, `mcall(k)` (guide §7.19).
        let _ = write!(line, "({})", ctrl & 0x3FFF);
        rendered |= 0x3FFF;
    }
    if layout == ControlLayout::DclResource {
        // `dcl_resource_id(n)_type(t[,unnorm])` (guide §7.5 DCL_RESOURCE).
        let ty = u32::from((ctrl >> 8) & 0xF);
        let _ = write!(line, "_id({})", ctrl & 0xFF);
        match names(ty, PixTexUsage::NAMES) {
            Some(word) => {
                let _ = write!(line, "_type({word}");
            }
            None => {
                let _ = write!(line, "_type({ty}");
            }
        }
        line.push_str(if ctrl & 0x8000 != 0 { ",unnorm)" } else { ")" });
        rendered |= 0x8FFF;
    } else {
        rendered |= render_fields(layout.fields(), ctrl, &mut line, &mut trailing);
    }
    let owned = if layout.owns_modifier_bits() {
        0xFFFF
    } else {
        0x3FFF
    };
    let leftover = ctrl & !rendered & owned;
    if leftover != 0 {
        // Bits the layout does not define (the verifier rejects them); kept so text stays lossless.
        let _ = write!(line, "_control({leftover:#06x})");
    }
    if let Some(p) = inst.pri_mod {
        let fields = layout.primary_fields();
        let defined = fields.iter().fold(0u32, |m, f| m | u32::from(f.mask()));
        let before = line.len();
        if p & !defined == 0 {
            render_fields(fields, p as u16, &mut line, &mut trailing);
        }
        if line.len() == before {
            let _ = write!(line, "_primod({p:#010x})");
        }
    }
    if let Some(s) = inst.sec_mod {
        let _ = write!(line, "_secmod({s:#010x})");
    }
    if let Some(f) = inst.resource_format {
        match PixTexUsage::from_value(f) {
            Some(u) => {
                let _ = write!(line, "_resourcetype({})", u.name());
            }
            None => {
                let _ = write!(line, "_resourceformat({f:#010x})");
            }
        }
    }
    if let Some(a) = inst.addr_offset {
        if a >> 24 == 0 {
            let _ = write!(
                line,
                "_aoffimmi({},{},{})",
                half_text(a & 0xFF),
                half_text((a >> 8) & 0xFF),
                half_text((a >> 16) & 0xFF)
            );
        } else {
            let _ = write!(line, "_addroffset({a:#010x})");
        }
    }
    if info.extra == Extra::ResourceFormat
        && let Some(&f) = inst.extra.first()
    {
        if f & 0xF_FFFF == 0 {
            for (i, axis) in ["x", "y", "z", "w"].iter().enumerate() {
                let v = (f >> (20 + 3 * i)) & 7;
                let _ = write!(
                    line,
                    "_fmt{axis}({})",
                    names(v, ElementFormat::NAMES).unwrap_or("unknown")
                );
            }
        } else {
            let _ = write!(line, "_format({f:#010x})");
        }
    }
    if info.extra == Extra::StrideLength
        && let [stride, length] = inst.extra.as_slice()
    {
        // AMD's OpenCL compiler wrote `dcl_typeless_uav_id(n)_stride(s)_length(l)_access(a)`.
        let _ = write!(line, "_stride({stride})_length({length})");
    }
    if layout == ControlLayout::LdsSharingMode {
        // Guide §7.5 writes the mode after a blank: `dcl_lds_sharing_mode _wavefrontRel`.
        line = line.replacen("dcl_lds_sharing_mode_", "dcl_lds_sharing_mode _", 1);
    }
    if inst.op == Opcode::Macrodef
        && let Some(&sig) = inst.extra.first()
    {
        if sig >> 17 == 0 {
            let _ = write!(line, "_out({})_in({})", (sig >> 8) & 0xFF, sig & 0xFF);
            if sig & (1 << 16) != 0 {
                line.push_str("_outline");
            }
        } else {
            let _ = write!(line, "_signature({sig:#010x})");
        }
    }
    match prec {
        Some(0xF) => line.push_str("_prec"),
        Some(mask) => {
            line.push_str("_prec(");
            for (i, c) in ['x', 'y', 'z', 'w'].iter().enumerate() {
                if mask & (1 << i) != 0 {
                    line.push(*c);
                }
            }
            line.push(')');
        }
        None => {}
    }
    if let Some(dst) = inst.dst.first() {
        if dst.shift != ShiftScale::None {
            let _ = write!(line, "_{}", dst.shift.name());
        }
        if dst.sat {
            line.push_str("_sat");
        }
    }
    if info.extra == Extra::InterfacePtr {
        let _ = write!(
            line,
            "[{}][{}]",
            inst.extra.first().copied().unwrap_or(0),
            inst.extra.get(1).copied().unwrap_or(0)
        );
    }
    let mut items: Vec<String> = Vec::new();
    if inst.op == Opcode::Macrocall {
        // `mcall(k) (outs), (ins)` — parentheses mandatory (guide §7.19).
        let outs: Vec<String> = inst.dst.iter().map(|d| dst_text(d, shader)).collect();
        let ins: Vec<String> = inst.src.iter().map(|s| src_text(s, shader)).collect();
        items.push(format!("({})", outs.join(", ")));
        items.push(format!("({})", ins.join(", ")));
    } else {
        items.extend(inst.dst.iter().map(|d| dst_text(d, shader)));
        items.extend(inst.src.iter().map(|s| src_text(s, shader)));
    }
    let list = |words: &[u32]| {
        words
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match info.extra {
        Extra::Words(4) if matches!(inst.op, Opcode::DclLiteral | Opcode::Def) => {
            items.extend(inst.extra.iter().map(|w| format!("0x{w:08X}")));
        }
        Extra::ImmediateConstants => items.extend(inst.extra.iter().map(|w| format!("0x{w:08X}"))),
        Extra::CaseValue => items.extend(inst.extra.iter().map(|w| (*w as i32).to_string())),
        Extra::Float => items.extend(inst.extra.iter().map(|w| float_text(*w))),
        Extra::Comment if !inst.extra.is_empty() => items.push(comment_text(&inst.extra)),
        Extra::Comment => {}
        Extra::LabelList => items.push(format!("= {{{}}}", list(&inst.extra))),
        Extra::InterfacePtr => items.push(format!(
            "= {{{}}}",
            list(inst.extra.get(2..).unwrap_or(&[]))
        )),
        Extra::StrideLength if inst.extra.len() == 2 => {}
        Extra::ResourceFormat | Extra::MacroSignature => {}
        _ => items.extend(inst.extra.iter().map(|w| w.to_string())),
    }
    // Words name control values (`dcl_global_flags refactoringAllowed`); the guide separates
    // them by blanks, numbers (`dcl_stream 1`) are operands.
    let (words, numbers): (Vec<String>, Vec<String>) = trailing
        .into_iter()
        .partition(|t| t.starts_with(|c: char| c.is_ascii_alphabetic()));
    items.extend(numbers);
    if !items.is_empty() {
        line.push(' ');
        line.push_str(&items.join(", ").replace(", = {", " = {"));
    }
    if !words.is_empty() {
        line.push(' ');
        line.push_str(&words.join(" "));
    }
    line
}

/// The canonical word for `value` in a `(word, value)` list.
fn names(value: u32, list: &'static [(&'static str, u32)]) -> Option<&'static str> {
    list.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
}

/// A float token as text that parses back to the same bits: the shortest decimal for finite
/// values, hex otherwise.
fn float_text(bits: u32) -> String {
    let f = f32::from_bits(bits);
    if f.is_finite() && !(f == 0.0 && f.is_sign_negative()) {
        format!("{f:?}")
    } else {
        format!("0x{bits:08X}")
    }
}

fn comp_letter(i: usize) -> char {
    ['x', 'y', 'z', 'w'][i & 3]
}

/// Destination text: register plus full four-character mask (amd-il.md §3.4).
pub fn dst_text(dst: &Dst, shader: ShaderKind) -> String {
    let mut s = reg_text(&dst.reg, shader);
    if dst.mask != [DstComp::Write; 4] {
        s.push('.');
        for (i, c) in dst.mask.iter().enumerate() {
            s.push(match c {
                DstComp::Write => comp_letter(i),
                DstComp::NoWrite => '_',
                DstComp::Zero => '0',
                DstComp::One => '1',
            });
        }
    }
    s
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
    let mut s = reg_text(&src.reg, shader);
    let sw = src.swizzle;
    if sw != IDENTITY {
        s.push('.');
        if sw.iter().all(|c| *c == sw[0]) {
            s.push(sel_char(sw[0]));
        } else {
            s.extend(sw.iter().map(|c| sel_char(*c)));
        }
    }
    if src.neg.iter().any(|n| *n) {
        s.push_str("_neg(");
        for (i, n) in src.neg.iter().enumerate() {
            if *n {
                s.push(comp_letter(i));
            }
        }
        s.push(')');
    }
    if src.invert {
        s.push_str("_invert");
    }
    match (src.bias, src.x2) {
        (true, true) => s.push_str("_bx2"),
        (true, false) => s.push_str("_bias"),
        (false, true) => s.push_str("_x2"),
        (false, false) => {}
    }
    if src.sign {
        s.push_str("_sign");
    }
    if src.divcomp != DivComp::None {
        let _ = write!(s, "_divcomp({})", src.divcomp.name());
    }
    if src.abs {
        s.push_str("_abs");
    }
    if src.clamp {
        s.push_str("_sat");
    }
    s
}

/// The text inside an index bracket.
fn index_text(index: &Index, shader: ShaderKind) -> String {
    match index {
        Index::Imm(i) => i.to_string(),
        Index::Rel { reg, offset } => {
            let mut s = src_text(reg, shader);
            if let Some(o) = offset {
                let _ = write!(s, "+{o}");
            }
            s
        }
        Index::AddrReg { rel_addr, offset } => {
            // IL_Rel_Addr (amd-il.md §1.7): register 15:0, loop-relative 16, component 19:17.
            let reg = rel_addr & 0xFFFF;
            let comp = (rel_addr >> 17) & 7;
            // `aL` is the loop register; a non-zero register number is kept after it.
            let mut s = match (rel_addr & (1 << 16) != 0, reg) {
                (true, 0) => "aL".to_string(),
                (true, n) => format!("aL{n}"),
                (false, n) => format!("a{n}"),
            };
            let _ = write!(
                s,
                ".{}",
                ['x', 'y', 'z', 'w', '?', '?', '?', '?'][comp as usize]
            );
            if let Some(o) = offset {
                let _ = write!(s, "+{o}");
            }
            s
        }
    }
}

/// Register text with its index brackets (amd-il.md §3.3). One dimension: `r3`, `cb0[4]`,
/// `x1[r2.x+3]`, `vAbsTid`. Two dimensions: `v[1][2]` (no first index), `cb[r6.w+2][r2.x+4]`
/// (register-relative first index on register 0), else `name<num>[first][second]`.
pub fn reg_text(reg: &Reg, shader: ShaderKind) -> String {
    let info = reg.ty.info();
    let name = reg.ty.name_in(shader);
    let mut s = String::from(name);
    let second = reg.dim2.as_ref().map(|d| match &d.reg.index {
        Some(index @ Index::Rel { .. }) => index_text(index, shader),
        _ => d.reg.num.to_string(),
    });
    match (&reg.index, second) {
        (None, Some(second)) => {
            let _ = write!(s, "[{}][{second}]", reg.num);
        }
        (Some(index @ Index::Rel { .. }), Some(second)) if reg.num == 0 => {
            let _ = write!(s, "[{}][{second}]", index_text(index, shader));
        }
        (Some(index), Some(second)) => {
            let _ = write!(s, "{}[{}][{second}]", reg.num, index_text(index, shader));
        }
        (index, None) => {
            if info.numbered || reg.num != 0 {
                let _ = write!(s, "{}", reg.num);
            }
            if let Some(index) = index {
                let _ = write!(s, "[{}]", index_text(index, shader));
            }
        }
    }
    s
}
