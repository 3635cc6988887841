//! Canonical IL text (amd-il.md §3).
//!
//! Style: first line `il_<kind>_<major>_<minor>` (plus `_mp`, `_rt`); one instruction per line;
//! lower-case mnemonics with control specifiers, then shift scale and `_sat` as suffixes; a single
//! space after the mnemonic and `, ` between operands; full four-character destination masks
//! (omitted for `.xyzw`); one- or four-character source swizzles (omitted for `.xyzw`);
//! `dcl_literal` values as `0x%08X`; block bodies indented by [`INDENT`] per nesting level (`case` and
//! `default` one level inside their `switch`, their bodies one further); exactly one trailing newline.

use std::fmt::Write;

use il_model::{
    CompSel, ControlLayout, DivComp, Dst, DstComp, Extra, FieldKind, Flow, IDENTITY, Index, Inst,
    Opcode, Program, Reg, RegType, ShaderKind, ShiftScale, Src,
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
    let mut layout = Layout::default();
    for inst in &program.body {
        let depth = layout.depth_for(inst.info().flow);
        for _ in 0..depth {
            out.push_str(INDENT);
        }
        out.push_str(&inst_text(inst, program.shader));
        out.push('\n');
    }
    out
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
    let info = inst.info();
    let layout = info.control;
    let mut line = String::from(info.mnemonic);
    let mut trailing: Vec<String> = Vec::new();
    let ctrl = if layout == ControlLayout::CountOfExtra {
        0
    } else {
        inst.ctrl.0
    };
    let mut rendered = 0u16;
    for field in layout.fields() {
        let value = field.get(ctrl);
        match field.kind {
            FieldKind::Flag => {
                if value != 0 {
                    let _ = write!(line, "_{}", field.name);
                }
            }
            FieldKind::Number { always } => {
                if always || value != 0 {
                    let _ = write!(line, "_{}({value})", field.name);
                }
            }
            FieldKind::Enum {
                names: list,
                always,
            } => {
                if always || value != 0 {
                    match names(value, list) {
                        Some(word) => {
                            let _ = write!(line, "_{}({word})", field.name);
                        }
                        None => {
                            let _ = write!(line, "_{}({value})", field.name);
                        }
                    }
                }
            }
            FieldKind::Choice(list) => match names(value, list) {
                Some("") => {}
                Some(word) => {
                    let _ = write!(line, "_{word}");
                }
                // No word for this value: left to the `_control(..)` escape below.
                None => continue,
            },
            FieldKind::Operand => trailing.push(value.to_string()),
            FieldKind::Hidden => {}
        }
        rendered |= field.mask();
    }
    let leftover = ctrl
        & !rendered
        & if layout.owns_modifier_bits() {
            0xFFFF
        } else {
            0x3FFF
        };
    if leftover != 0 {
        // Bits the layout does not define (the verifier rejects them); kept so text stays lossless.
        let _ = write!(line, "_control({leftover:#06x})");
    }
    if let Some(p) = inst.pri_mod {
        let _ = write!(line, "_primod({p:#010x})");
    }
    if let Some(s) = inst.sec_mod {
        let _ = write!(line, "_secmod({s:#010x})");
    }
    if let Some(f) = inst.resource_format {
        let _ = write!(line, "_resourceformat({f:#010x})");
    }
    if let Some(a) = inst.addr_offset {
        let _ = write!(line, "_addroffset({a:#010x})");
    }
    if let Some(dst) = inst.dst.first() {
        if dst.shift != ShiftScale::None {
            let _ = write!(line, "_{}", dst.shift.name());
        }
        if dst.sat {
            line.push_str("_sat");
        }
    }
    let mut items: Vec<String> = Vec::new();
    for dst in &inst.dst {
        items.push(dst_text(dst, shader));
    }
    for src in &inst.src {
        items.push(src_text(src, shader));
    }
    match info.extra {
        Extra::Words(4) if inst.op == Opcode::DclLiteral || inst.op == Opcode::Def => {
            items.extend(inst.extra.iter().map(|w| format!("0x{w:08X}")));
        }
        Extra::CaseValue => items.extend(inst.extra.iter().map(|w| (*w as i32).to_string())),
        Extra::Float => items.extend(inst.extra.iter().map(|w| float_text(*w))),
        _ => items.extend(inst.extra.iter().map(|w| w.to_string())),
    }
    items.extend(trailing);
    if !items.is_empty() {
        line.push(' ');
        line.push_str(&items.join(", "));
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
            let mut s = if rel_addr & (1 << 16) != 0 {
                "aL".to_string()
            } else {
                format!("a{reg}")
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
        (index, second) => {
            if info.numbered || reg.num != 0 || reg.ty == RegType::Vertex {
                let _ = write!(s, "{}", reg.num);
            }
            if let Some(index) = index {
                let _ = write!(s, "[{}]", index_text(index, shader));
            }
            if let Some(second) = second {
                let _ = write!(s, "[{second}]");
            }
        }
    }
    s
}
