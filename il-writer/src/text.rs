//! Canonical IL text (amd-il.md §3).
//!
//! Style: first line `il_<kind>_<major>_<minor>` (plus `_mp`, `_rt`); one instruction per line;
//! lower-case mnemonics with control specifiers, then shift scale and `_sat` as suffixes; a single
//! space after the mnemonic and `, ` between operands; full four-character destination masks
//! (omitted for `.xyzw`); one- or four-character source swizzles (omitted for `.xyzw`);
//! `dcl_literal` values as `0x%08X`; block bodies indented by [`INDENT`] per nesting level (`case` and
//! `default` one level inside their `switch`, their bodies one further); exactly one trailing newline.
//!
//! Speed: the text is written as bytes into one pre-sized buffer (no string per operand or
//! register, no `format!` on the paths real programs take). Mnemonics and register names come
//! from tables padded to a fixed width ([`Tables`], computed at compile time), and an operand's
//! register, number and swizzle or mask are gathered in a stack [`Chunk`]; both are appended with
//! one fixed-size copy and a truncation instead of a copy of variable length. Lines of the common
//! shape are gathered in a per-thread buffer by [`write_fast`] with a few fixed-size stores
//! each: the mnemonic with its control suffix (`uav_raw_load_id(1)`) from a per-thread
//! [`ControlCache`], a short register name with its number as one word, and the swizzle or mask
//! with the `, ` that follows every operand as another (the last one's is taken back at the end
//! of the line). Buffers are twice what is written into them and positions are masked below
//! the middle, so fixed-size writes need no bounds checks. The rare forms (unknown control
//! bits, modifier tokens, relative addressing, floats) go to the general path, [`write_inst`].

use std::cell::RefCell;
use std::io::Write;

use il_model::enums::{ElementFormat, PixTexUsage};
use il_model::{
    CompSel, ControlLayout, CtrlField, DivComp, Dst, DstComp, Extra, FieldKind, Flow, Index, Inst,
    Nested, NestedId, OPCODE_COUNT, OPCODES, Opcode, Program, REG_TYPES, Reg, RegType, ShaderKind,
    ShiftScale, Src,
};

/// Indentation per nesting level.
pub const INDENT: &str = "    ";

/// The output buffer: bytes of ASCII text (every piece written is a `&str` or an ASCII byte).
type Buf = Vec<u8>;

/// Bytes reserved per instruction before writing: translated compute shaders average 22 to 49
/// bytes per line (an operation with two or three operands plus indentation), so most outputs
/// need no reallocation.
const BYTES_PER_INST: usize = 48;

/// Renders `program` as canonical IL text. Deterministic; never panics.
pub fn to_text(program: &Program) -> String {
    let lines = program.macros.len() + program.body.len() + 1;
    let mut out = Buf::with_capacity(lines.saturating_mul(BYTES_PER_INST));
    let tables = Tables::get();
    let regs = tables.regs_for(program.shader);
    // Macro definitions come before the version line (guide §7.19; amd-il.md §1.1).
    let mut macro_layout = Layout::default();
    for inst in &program.macros {
        let depth = macro_layout.depth_for(inst.info().flow);
        push_indent(&mut out, depth);
        write_inst(&mut out, inst, tables, regs, &program.nested, None);
        out.push(b'\n');
    }
    out.extend_from_slice(b"il_");
    out.extend_from_slice(program.shader.name().as_bytes());
    out.push(b'_');
    push_dec(&mut out, u32::from(program.version.0));
    out.push(b'_');
    push_dec(&mut out, u32::from(program.version.1));
    if program.multipass {
        out.extend_from_slice(b"_mp");
    }
    if program.realtime {
        out.extend_from_slice(b"_rt");
    }
    out.push(b'\n');
    // The suffixes rendered and the line buffer are kept for the next program of the thread;
    // without the thread's (while the thread ends) fresh ones do the same.
    let kept = SCRATCH.try_with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            let Scratch { controls, pending } = &mut *scratch;
            write_body(&mut out, program, tables, regs, controls, pending);
            true
        }
        Err(_) => false,
    });
    if kept != Ok(true) {
        let Scratch {
            mut controls,
            mut pending,
        } = Scratch::new();
        write_body(&mut out, program, tables, regs, &mut controls, &mut pending);
    }
    into_string(out)
}

thread_local! {
    /// The control suffixes met by [`to_text`] on this thread and its line buffer.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::new());
}

/// What [`write_body`] keeps between programs: the control suffixes met and the buffer of
/// pending lines (so that no program clears one).
struct Scratch {
    controls: ControlCache,
    pending: Box<[u8; 2 * PENDING]>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            controls: ControlCache::new(),
            pending: Box::new([0; 2 * PENDING]),
        }
    }
}

/// Appends the lines of `program.body`. The common line (an opcode [`write_fast`] knows, with
/// its operand lists held inline) is written in this loop; everything else (prefix folding, the
/// general path, operand lists on the heap) is out of line, so that what the loop needs stays
/// in registers rather than being saved around calls on every line.
fn write_body(
    out: &mut Buf,
    program: &Program,
    tables: &Tables,
    regs: &RegNames,
    controls: &mut ControlCache,
    pending: &mut [u8; 2 * PENDING],
) {
    let mut lines = Lines {
        out,
        pending,
        pending_len: 0,
        layout: Layout::default(),
        tables,
        regs,
        controls,
        nested: &program.nested,
    };
    let mut insts = program.body.iter();
    while let Some(inst) = insts.next() {
        let op = tables.op(inst.op);
        if op.plain_or_block {
            let depth = lines.layout.depth_for(op.flow);
            // Operand lists held inline (nearly all) are written here, where the compiler
            // knows it; the others by a copy out of line.
            let written = if inst.dst.spilled() | inst.src.spilled() | inst.extra.spilled() {
                write_fast_out_of_line(
                    lines.pending,
                    &mut lines.pending_len,
                    lines.out,
                    inst,
                    op.fast,
                    depth,
                    regs,
                    lines.controls,
                )
            } else {
                write_fast(
                    lines.pending,
                    &mut lines.pending_len,
                    lines.out,
                    inst,
                    op.fast,
                    depth,
                    regs,
                    lines.controls,
                )
            };
            if !written {
                lines.general(inst, depth, None);
            }
            continue;
        }
        lines.other(inst, &mut insts);
    }
    drain(lines.pending, lines.pending_len, lines.out);
}

/// [`write_fast`], out of line.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn write_fast_out_of_line(
    pending: &mut [u8; 2 * PENDING],
    pending_len: &mut usize,
    out: &mut Buf,
    inst: &Inst,
    fast: Fast,
    depth: usize,
    regs: &RegNames,
    controls: &mut ControlCache,
) -> bool {
    write_fast(pending, pending_len, out, inst, fast, depth, regs, controls)
}

/// What [`write_body`] writes lines with.
struct Lines<'a> {
    out: &'a mut Buf,
    /// Lines of the fast path not yet appended to [`Lines::out`], and their length.
    pending: &'a mut [u8; 2 * PENDING],
    pending_len: usize,
    layout: Layout,
    tables: &'a Tables,
    regs: &'a RegNames,
    controls: &'a mut ControlCache,
    nested: &'a Nested,
}

impl Lines<'_> {
    /// The line of `inst` when [`write_body`] cannot tell at once that the fast path may take
    /// it: a prefix packet or an opcode without [`OpText::has_fast`]. A plain prefix packet is
    /// folded into the next instruction as `_prec…` (amd-il.md §1.10), which is then taken from
    /// `rest`, unless that is a plain prefix too or there is none.
    #[inline(never)]
    fn other(&mut self, inst: &Inst, rest: &mut std::slice::Iter<'_, Inst>) {
        if let Some(mask) = foldable_prefix(inst)
            && let Some(next) = rest.as_slice().first()
            && foldable_prefix(next).is_none()
        {
            rest.next();
            self.line(next, Some(mask));
        } else {
            self.line(inst, None);
        }
    }

    /// Writes `inst` at `depth` with [`write_inst`], after the lines pending.
    #[inline(never)]
    fn general(&mut self, inst: &Inst, depth: usize, prec: Option<u16>) {
        drain(self.pending, self.pending_len, self.out);
        self.pending_len = 0;
        push_indent(self.out, depth);
        write_inst(self.out, inst, self.tables, self.regs, self.nested, prec);
        self.out.push(b'\n');
    }

    /// Writes the line of `inst` (`prec`: the precise mask folded into it).
    #[inline(always)]
    fn line(&mut self, inst: &Inst, prec: Option<u16>) {
        let op = self.tables.op(inst.op);
        let depth = self.layout.depth_for(op.flow);
        if prec.is_none()
            && op.has_fast
            && write_fast(
                self.pending,
                &mut self.pending_len,
                self.out,
                inst,
                op.fast,
                depth,
                self.regs,
                self.controls,
            )
        {
            return;
        }
        self.general(inst, depth, prec);
    }
}

/// The text of `bytes`, which hold only `&str` pieces and ASCII, so the conversion always
/// succeeds (the lossy branch is never taken).
fn into_string(bytes: Buf) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Width of a [`Padded`] name: the longest mnemonic has 28 bytes and the longest register name
/// 21; longer names would be appended with a plain copy.
const PAD: usize = 32;

/// A name in a fixed-width array, so that appending it is one fixed-size copy.
#[derive(Clone, Copy)]
struct Padded {
    /// The name's bytes, then zeros.
    bytes: [u8; PAD],
    /// The name's length (at most [`PAD`]).
    len: usize,
    /// The name itself, for names longer than [`PAD`].
    text: &'static str,
}

impl Padded {
    const fn new(text: &'static str) -> Padded {
        Padded {
            bytes: padded(text),
            len: text.len(),
            text,
        }
    }

    /// Appends the name.
    #[inline]
    fn push(&self, out: &mut Buf) {
        if self.len <= PAD {
            let start = out.len();
            out.extend_from_slice(&self.bytes);
            out.truncate(start + self.len);
        } else {
            out.extend_from_slice(self.text.as_bytes());
        }
    }
}

/// The first [`PAD`] bytes of `text`, then zeros.
const fn padded(text: &str) -> [u8; PAD] {
    let mut bytes = [0; PAD];
    let text = text.as_bytes();
    let mut i = 0;
    while i < PAD && i < text.len() {
        bytes[i] = text[i];
        i += 1;
    }
    bytes
}

/// What the writer needs per opcode and register type, derived from the il-model tables at
/// compile time ([`TABLES`]), so that no process pays for it.
struct Tables {
    /// Per opcode code: the mnemonic.
    mnemonics: [Padded; OPCODE_COUNT],
    /// Per opcode code: whether a zero control field prints nothing (no field is printed when
    /// zero and the layout has no fixed spelling), so [`render_fields`] can be skipped.
    quiet_zero: [bool; OPCODE_COUNT],
    /// Per opcode code: what the per-line loop needs, in one entry.
    ops: [OpText; OP_SLOTS],
    /// Register names outside vertex shaders, then inside them.
    regs: [RegNames; 2],
}

/// Swizzle keys ([`swizzle_index`]): three bits per selector in four positions (selector values
/// are 0 to 5, so keys with a 6 or 7 in a position are never looked up).
const SWIZZLES: usize = 1 << 12;

/// Write masks: four component modes in four positions.
const MASKS: usize = 4 * 4 * 4 * 4;

/// Up to seven bytes of text (little-endian from the low byte) and their count in the top
/// byte, appended with one 8-byte store.
#[derive(Clone, Copy, Default)]
struct Short(u64);

impl Short {
    /// The first `len` (at most 5) bytes of `text`, then the operand separator `, ` (which
    /// [`Cursor::short_then_separator`] appends with the text and other writers overwrite).
    const fn new(text: [u8; 7], len: usize) -> Short {
        let mut bytes = [0; 8];
        let mut i = 0;
        while i < len && i < 5 {
            bytes[i] = text[i];
            i += 1;
        }
        bytes[i] = b',';
        bytes[i + 1] = b' ';
        bytes[7] = i as u8;
        Short(u64::from_le_bytes(bytes))
    }
}

/// Per swizzle key (selector values `s0 | s1 << 3 | s2 << 6 | s3 << 9`, see [`swizzle_index`]):
/// its text after the register (amd-il.md §3.5): nothing for `.xyzw`, `.` and one selector when
/// all four agree, else `.` and the four selectors. Built at compile time, so no run pays for it;
/// the keys of no swizzle (a position above 5) hold nothing.
static SWIZZLE_TEXT: [Short; SWIZZLES] = {
    // The selector characters by value (`CompSel::X` = 0 … `CompSel::One` = 5).
    let letters = *b"xyzw01";
    let mut table = [Short(0); SWIZZLES];
    let mut i = 0;
    while i < SWIZZLES {
        let sel = [i & 7, i >> 3 & 7, i >> 6 & 7, i >> 9 & 7];
        if sel[0] < 6 && sel[1] < 6 && sel[2] < 6 && sel[3] < 6 {
            let [a, b, c, d] = [
                letters[sel[0]],
                letters[sel[1]],
                letters[sel[2]],
                letters[sel[3]],
            ];
            table[i] = if sel[0] == 0 && sel[1] == 1 && sel[2] == 2 && sel[3] == 3 {
                Short::new([0; 7], 0)
            } else if sel[0] == sel[1] && sel[1] == sel[2] && sel[2] == sel[3] {
                Short::new([b'.', a, 0, 0, 0, 0, 0], 2)
            } else {
                Short::new([b'.', a, b, c, d, 0, 0], 5)
            };
        }
        i += 1;
    }
    table
};

/// Per write mask (component modes `m0 + 4·m1 + 16·m2 + 64·m3`): its text after the register
/// (amd-il.md §3.4): nothing for a full write, else `.` and per component its letter, `_`, `0`
/// or `1`. Built at compile time.
static MASK_TEXT: [Short; MASKS] = {
    let letters = *b"xyzw";
    let mut table = [Short(0); MASKS];
    let mut i = 0;
    while i < MASKS {
        let mut text = [b'.', 0, 0, 0, 0, 0, 0];
        let mut k = 0;
        while k < 4 {
            // The modes by value: `NoWrite` = 0, `Write` = 1, `Zero` = 2, `One` = 3.
            text[k + 1] = match i >> (2 * k) & 3 {
                0 => b'_',
                1 => letters[k],
                2 => b'0',
                _ => b'1',
            };
            k += 1;
        }
        // `.xyzw` (every component `Write`) is written as nothing.
        table[i] = Short::new(text, if i == 0b01_01_01_01 { 0 } else { 5 });
        i += 1;
    }
    table
};

/// The index of `sw` in [`SWIZZLE_TEXT`]: `s0 | s1 << 3 | s2 << 6 | s3 << 9`.
#[inline(always)]
fn swizzle_index(sw: [CompSel; 4]) -> usize {
    // The four selectors (values 0..=5, three bits each) as the bytes of one word, moved from
    // bits 8k to bits 3k with two shifts instead of a multiply-add per selector: `x | x >> 5`
    // puts s1 next to s0 (bits 3..6) and s3 next to s2 (bits 19..22), and shifting the second
    // pair down by 10 lands s2 at bit 6 and s3 at bit 9.
    let bytes = u32::from_le_bytes(sw.map(|c| c.value() as u8));
    let pairs = bytes | bytes >> 5;
    ((pairs & 0x3F) | (pairs >> 10 & 0xFC0)) as usize
}

/// The index of `mask` in [`MASK_TEXT`].
#[inline(always)]
fn mask_index(mask: [DstComp; 4]) -> usize {
    // The four modes (values 0..=3) as the bytes of one word, moved from bits 8k to bits 2k
    // (the same packing as the IL_Dst_Mod token): `m0 + 4·m1 + 16·m2 + 64·m3`.
    let bytes = u32::from_le_bytes(mask.map(|c| c.value() as u8));
    let pairs = (bytes | bytes >> 6) & 0x000F_000F;
    ((pairs | pairs >> 12) & 0xFF) as usize
}

/// Register type values are below this (six bits, amd-il.md §1.5), so a value masked with
/// `REG_VALUES - 1` indexes the tables of [`RegNames`] without a bounds check.
const REG_VALUES: usize = 64;

/// Bytes of a [`RegName`]'s text: the longest register name has 21.
const REG_NAME: usize = 30;

/// A register type's name and whether its number is always printed, in 32 bytes, so that the
/// fast path finds everything about an operand's register with one index and copies the name
/// with one fixed-size copy.
#[derive(Clone, Copy)]
struct RegName {
    /// The name's bytes, then zeros.
    bytes: [u8; REG_NAME],
    /// The name's length, or [`LONG_NAME`] for a name longer than [`REG_NAME`] (in
    /// [`RegNames::long`]).
    len: u8,
    /// Registers of this type always print their number.
    numbered: bool,
}

/// [`RegName::len`] of a name that does not fit.
const LONG_NAME: u8 = u8::MAX;

/// Longest register name that [`RegNames::joined`] holds: with three digits it fills one word.
const JOINED_NAME: usize = 5;

/// A short register name (see [`RegNames::joined`]).
#[derive(Clone, Copy)]
struct Joined {
    /// The name's bytes (first byte lowest), then zeros.
    name: u64,
    /// The name's length, or [`LONG_NAME`] for a name longer than [`JOINED_NAME`].
    len: u32,
    /// Where the digits of this type's numbers start in [`REG_DECIMALS`]: [`SMALL`] if
    /// registers of this type always print their number, else 0.
    decimals: u32,
}

/// Per register type (by value): the name and whether the number is always printed.
struct RegNames {
    names: [RegName; REG_VALUES],
    /// Per register type, for [`push_simple_reg`]: the name if it has at most
    /// [`JOINED_NAME`] bytes, so that it and a number below 1000 are stored with one write.
    joined: [Joined; REG_VALUES],
    /// The names themselves, for names longer than [`REG_NAME`].
    long: [&'static str; REG_VALUES],
}

impl RegNames {
    /// The names outside vertex shaders, or inside them (`vertex`: the output spelling of the
    /// dual-named types, [`RegType::name_in`]).
    const fn new(vertex: bool) -> RegNames {
        let mut regs = RegNames {
            names: [RegName {
                bytes: [0; REG_NAME],
                len: 0,
                numbered: true,
            }; REG_VALUES],
            long: [""; REG_VALUES],
            joined: [Joined {
                name: 0,
                len: LONG_NAME as u32,
                decimals: SMALL as u32,
            }; REG_VALUES],
        };
        let mut i = 0;
        while i < REG_TYPES.len() {
            let info = &REG_TYPES[i];
            let value = (info.ty as usize) & (REG_VALUES - 1);
            let text = match (info.output_name, vertex) {
                (Some(out), true) => out,
                _ => info.name,
            };
            let mut name = RegName {
                bytes: [0; REG_NAME],
                len: LONG_NAME,
                numbered: info.numbered,
            };
            if text.len() <= REG_NAME {
                let bytes = text.as_bytes();
                let mut k = 0;
                while k < bytes.len() {
                    name.bytes[k] = bytes[k];
                    k += 1;
                }
                name.len = text.len() as u8;
            }
            let mut joined = Joined {
                name: 0,
                len: LONG_NAME as u32,
                decimals: if info.numbered { SMALL as u32 } else { 0 },
            };
            if text.len() <= JOINED_NAME {
                let bytes = text.as_bytes();
                let mut k = 0;
                while k < bytes.len() {
                    joined.name |= (bytes[k] as u64) << (8 * k);
                    k += 1;
                }
                joined.len = text.len() as u32;
            }
            regs.names[value] = name;
            regs.long[value] = text;
            regs.joined[value] = joined;
            i += 1;
        }
        regs
    }

    /// The entry of `ty` (the mask keeps the index inside the table).
    #[inline(always)]
    fn entry(&self, ty: RegType) -> &RegName {
        &self.names[usize::from(ty.value()) & (REG_VALUES - 1)]
    }
}

/// The writer's tables.
static TABLES: Tables = Tables::build();

impl Tables {
    /// The tables ([`TABLES`]).
    #[inline]
    fn get() -> &'static Tables {
        &TABLES
    }

    const fn build() -> Tables {
        let mut mnemonics = [Padded::new(""); OPCODE_COUNT];
        let mut quiet_zero = [false; OPCODE_COUNT];
        let mut ops = [OpText::of(None); OP_SLOTS];
        let mut code = 0;
        while code < OP_SLOTS {
            if code < OPCODE_COUNT {
                let info = &OPCODES[code];
                mnemonics[code] = Padded::new(info.mnemonic);
                quiet_zero[code] = zero_control_is_silent(info.control);
                ops[code] = OpText::of(Some(info));
            }
            code += 1;
        }
        Tables {
            mnemonics,
            quiet_zero,
            ops,
            regs: [RegNames::new(false), RegNames::new(true)],
        }
    }

    /// The entry of `op` (opcode codes index [`il_model::OPCODES`], which has fewer than
    /// [`OP_SLOTS`] entries, so the mask changes nothing and saves the bounds check).
    #[inline(always)]
    fn op(&self, op: Opcode) -> &OpText {
        &self.ops[usize::from(op.code()) & (OP_SLOTS - 1)]
    }

    /// The register names for a program of kind `shader`.
    fn regs_for(&self, shader: ShaderKind) -> &RegNames {
        let [other, vertex] = &self.regs;
        if shader == ShaderKind::Vertex {
            vertex
        } else {
            other
        }
    }
}

/// Entries of [`Tables::ops`]: a power of two above [`OPCODE_COUNT`].
const OP_SLOTS: usize = {
    assert!(OPCODE_COUNT <= 512);
    512
};

/// What the per-line loop of [`to_text`] needs of an opcode.
#[derive(Clone, Copy)]
struct OpText {
    /// The block role, for indentation.
    flow: Flow,
    /// [`write_fast`] can write it, as [`OpText::fast`] says.
    has_fast: bool,
    /// How [`write_fast`] writes it (meaningless without [`OpText::has_fast`]).
    fast: Fast,
    /// [`OpText::has_fast`] and not a prefix packet: [`write_body`] tries the fast path at
    /// once.
    plain_or_block: bool,
}

impl OpText {
    /// The entry of an opcode, or an unused one (no fast path, no block role) past the table.
    const fn of(info: Option<&il_model::OpInfo>) -> OpText {
        let mut op = OpText {
            flow: Flow::None,
            has_fast: false,
            fast: Fast {
                ctrl_mask: 0,
                hex_extra: false,
                suffix_only: false,
                quiet_zero: false,
            },
            plain_or_block: false,
        };
        if let Some(info) = info {
            op.flow = info.flow;
            if let Some(fast) = Fast::of(info) {
                op.has_fast = true;
                op.fast = fast;
                op.plain_or_block = !matches!(info.op, Opcode::Prefix);
            }
        }
        op
    }
}

/// What [`write_fast`] needs to know of an opcode it can write.
#[derive(Clone, Copy)]
struct Fast {
    /// What of the control field is printed: nothing when it is derived
    /// ([`ControlLayout::CountOfExtra`]), else all of it.
    ctrl_mask: u16,
    /// Trailing tokens are written `0x%08X` (`dcl_literal`, `def`, immediate constants), else
    /// in decimal.
    hex_extra: bool,
    /// The layout has no field written after the operands ([`FieldKind::Operand`],
    /// [`FieldKind::Word`]), so a control field that prints something only adds the suffix that
    /// [`write_control`] writes after the mnemonic, which [`ControlCache`] keeps.
    suffix_only: bool,
    /// A zero control field prints nothing ([`zero_control_is_silent`]).
    quiet_zero: bool,
}

impl Fast {
    /// The fast-path facts of an opcode, or `None` where [`write_inst`] does more than the fast
    /// path for no modifier tokens: a control layout with fields written after the operands
    /// that prints something at zero, one that edits the line (`dcl_lds_sharing_mode`),
    /// trailing tokens written other than as plain operands, macro packets, or a mnemonic longer
    /// than [`PAD`].
    const fn of(info: &il_model::OpInfo) -> Option<Fast> {
        // `CountedWords` are written like `Words` (in decimal, as operands), immediate
        // constants like `dcl_literal`'s words.
        let plain_extra = matches!(
            info.extra,
            Extra::None
                | Extra::Words(_)
                | Extra::Label
                | Extra::CountedWords
                | Extra::ImmediateConstants
        );
        let quiet_zero = zero_control_is_silent(info.control);
        let fields = info.control.fields();
        let mut suffix_only = true;
        let mut i = 0;
        while i < fields.len() {
            if matches!(fields[i].kind, FieldKind::Operand | FieldKind::Word(_)) {
                suffix_only = false;
            }
            i += 1;
        }
        let fits = (quiet_zero || suffix_only)
            && !matches!(info.control, ControlLayout::LdsSharingMode)
            && plain_extra
            && !matches!(info.op, Opcode::Macrocall | Opcode::Macrodef)
            && info.mnemonic.len() <= PAD;
        if !fits {
            return None;
        }
        Some(Fast {
            ctrl_mask: if matches!(info.control, ControlLayout::CountOfExtra) {
                0
            } else {
                u16::MAX
            },
            hex_extra: matches!(info.extra, Extra::Words(4))
                && matches!(info.op, Opcode::DclLiteral | Opcode::Def)
                || matches!(info.extra, Extra::ImmediateConstants),
            quiet_zero,
            suffix_only,
        })
    }
}

/// Bytes of a [`Head`]: the longest mnemonic has 28 bytes, the control suffixes of the fast
/// path's layouts (`_id(3)`, `_ieee`, `_zeroop(infinity)`) rarely more than 16.
const HEAD: usize = 48;

/// The start of a fast-path line after its indentation: the mnemonic and its control suffix.
#[derive(Clone, Copy)]
struct Head {
    /// The control value it is the text for, or [`EMPTY_SLOT`].
    key: u32,
    /// The text's length.
    len: u32,
    /// The text, then zeros.
    bytes: [u8; HEAD],
}

/// Heads kept per opcode: a program uses an opcode with one control value, or with a few
/// (`uav_raw_load_id(0)` and `uav_raw_load_id(1)`).
const HEAD_WAYS: usize = 2;

/// The line heads met on one thread, by opcode and control value: real programs use each
/// opcode with one or two control values many times, and the text of a head depends on
/// nothing else, so it is rendered once (the suffix by [`write_control`], the general path's
/// own code) and then copied with the mnemonic in one fixed-size copy. A third control value
/// of an opcode replaces the older of the two kept.
struct ControlCache {
    /// Per opcode code: the heads, the one used last first.
    heads: Box<[[Head; HEAD_WAYS]; OP_SLOTS]>,
    /// The scratch text the heads are rendered into.
    scratch: Buf,
}

/// A key no head has: control values are 16 bits.
const EMPTY_SLOT: u32 = u32::MAX;

impl ControlCache {
    fn new() -> ControlCache {
        let empty = Head {
            key: EMPTY_SLOT,
            len: 0,
            bytes: [0; HEAD],
        };
        ControlCache {
            heads: Box::new([[empty; HEAD_WAYS]; OP_SLOTS]),
            scratch: Buf::new(),
        }
    }

    /// The head of a fast-path line of `op` ([`Fast`] facts `fast`) with control value `ctrl`
    /// (the printed bits), or `None` if the control field prints more than a suffix or the
    /// head is longer than [`HEAD`]. The head used last for the opcode is looked at here; the
    /// rest is [`ControlCache::head_miss`], out of line.
    #[inline(always)]
    fn head(&mut self, op: Opcode, ctrl: u16, fast: Fast) -> Option<&Head> {
        let at = usize::from(op.code()) & (OP_SLOTS - 1);
        if self
            .heads
            .get(at)
            .is_some_and(|[first, _]| first.key == u32::from(ctrl))
        {
            return self.heads.get(at).map(|[first, _]| first);
        }
        self.head_miss(at, op, ctrl, fast)
    }

    /// [`ControlCache::head`] when the head used last for `op` (at `at`) is not for `ctrl`.
    #[inline(never)]
    fn head_miss(&mut self, at: usize, op: Opcode, ctrl: u16, fast: Fast) -> Option<&Head> {
        let key = u32::from(ctrl);
        let [first, second] = self.heads.get_mut(at)?;
        if second.key == key {
            std::mem::swap(first, second);
        } else {
            let info = op.info();
            self.scratch.clear();
            self.scratch.extend_from_slice(info.mnemonic.as_bytes());
            if ctrl != 0 || !fast.quiet_zero {
                if !fast.suffix_only {
                    return None;
                }
                write_control(&mut self.scratch, info.control, ctrl);
            }
            let mut bytes = [0; HEAD];
            if self.scratch.len() > HEAD {
                return None;
            }
            for (b, s) in bytes.iter_mut().zip(&self.scratch) {
                *b = *s;
            }
            *second = *first;
            *first = Head {
                key,
                len: self.scratch.len() as u32,
                bytes,
            };
        }
        Some(first)
    }
}

/// Deepest nesting the fast path indents.
const FAST_MAX_DEPTH: usize = 16;

/// Most operands and trailing tokens of a fast-path line.
const FAST_MAX_SRCS: usize = 4;
const FAST_MAX_EXTRA: usize = 4;

/// Bytes a fast-path line can take: indentation, the copies of a padded mnemonic and control
/// suffix, a shift and `_sat`, a blank, five operands of at most 21 + 3 + 12 + 7 + 16 bytes
/// (name, number, index, swizzle or mask with its separator, and the copy of a negation; the
/// name copy itself takes [`PAD`] from its start), four trailing values of at most 12 bytes
/// with separators, and the newline.
const FAST_LINE_MAX: usize = FAST_MAX_DEPTH * INDENT.len()
    + HEAD
    + 7
    + 1
    + (1 + FAST_MAX_SRCS) * 64
    + FAST_MAX_EXTRA * 12
    + 1;

/// Writes `inst` as a line into `pending` if it has the common shape ([`Fast`], no control bits
/// or only those whose text [`ControlCache`] can give, no modifier tokens, at
/// most one destination, [`FAST_MAX_SRCS`] sources and [`FAST_MAX_EXTRA`] trailing tokens, and
/// operands [`push_operands`] takes) with the text of [`write_inst`]; returns `false` otherwise,
/// with `pending_len` left at the end of the lines written before (bytes past it may have
/// changed).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn write_fast(
    pending: &mut [u8; 2 * PENDING],
    pending_len: &mut usize,
    out: &mut Buf,
    inst: &Inst,
    fast: Fast,
    depth: usize,
    regs: &RegNames,
    controls: &mut ControlCache,
) -> bool {
    let ctrl = inst.ctrl.0 & fast.ctrl_mask;
    let (dsts, srcs, extra): (&[Dst], &[Src], &[u32]) = (&inst.dst, &inst.src, &inst.extra);
    if inst.has_packet_mods()
        || dsts.len() > 1
        || srcs.len() > FAST_MAX_SRCS
        || extra.len() > FAST_MAX_EXTRA
        || depth > FAST_MAX_DEPTH
    {
        return false;
    }
    let Some(head) = controls.head(inst.op, ctrl, fast) else {
        return false;
    };
    let mut line = Cursor {
        bytes: pending,
        len: *pending_len,
    };
    if line.len + FAST_LINE_MAX > PENDING {
        line.drain_into(out);
        *pending_len = 0;
    }
    line.indent(depth);
    line.fixed(&head.bytes, head.len as usize);
    let dst = dsts.first();
    if let Some(dst) = dst
        && (dst.shift != ShiftScale::None || dst.sat)
    {
        push_shift_sat(&mut line, dst);
    }
    // Every operand is followed by `, ` (the swizzle and mask texts end in it, so it costs
    // nothing); the last one's is taken back below, or the blank if there is no operand.
    line.byte(b' ');
    if !push_operands(&mut line, dst, srcs, regs) {
        // Nothing is kept: the general path writes the line.
        return false;
    }
    if !extra.is_empty() {
        push_extra(&mut line, extra, fast.hex_extra);
    }
    let bare = dsts.len() | srcs.len() | extra.len() == 0;
    line.len -= 2 - usize::from(bare);
    line.byte(b'\n');
    *pending_len = line.len;
    true
}

/// Appends the operands of a fast-path line, each followed by `, `, if they are plain
/// registers ([`push_simple_reg`]) and the sources have no modifier but negation; returns
/// `false` otherwise, with part of them written.
#[inline(always)]
fn push_operands<const N: usize>(
    line: &mut Cursor<'_, N>,
    dst: Option<&Dst>,
    srcs: &[Src],
    regs: &RegNames,
) -> bool {
    if let Some(dst) = dst {
        if !push_simple_reg(line, &dst.reg, regs) {
            return false;
        }
        if let Some(mask) = MASK_TEXT.get(mask_index(dst.mask)) {
            line.short_then_separator(mask);
        }
    }
    for src in srcs {
        if !push_simple_reg(line, &src.reg, regs) {
            return false;
        }
        let Some(swizzle) = SWIZZLE_TEXT.get(swizzle_index(src.swizzle)) else {
            return false;
        };
        if src.mods.is_empty() {
            line.short_then_separator(swizzle);
        } else if let Some(neg) = NEG_TEXT.get(usize::from(src.mods.bits())) {
            line.short(swizzle);
            line.fixed(&neg.0, usize::from(neg.1) + 2);
        } else {
            return false;
        }
    }
    true
}

/// Per source modifier bits with only negation set (the four low bits, amd-il.md §3.5): the
/// text [`write_src_modifiers`] writes (`_neg(` and the negated components' letters, then `)`)
/// followed by `, `, and the text's length.
static NEG_TEXT: [([u8; 16], u8); 16] = {
    let letters = *b"xyzw";
    let mut table = [([0; 16], 0); 16];
    let mut mask = 1;
    while mask < 16 {
        let mut text = *b"_neg(           ";
        let mut len = 5;
        let mut k = 0;
        while k < 4 {
            if mask >> k & 1 != 0 {
                text[len] = letters[k];
                len += 1;
            }
            k += 1;
        }
        text[len] = b')';
        text[len + 1] = b',';
        text[len + 2] = b' ';
        table[mask] = (text, len as u8 + 1);
        mask += 1;
    }
    table
};

/// Appends the shift and `_sat` suffixes of a fast-path line's destination.
#[inline(never)]
fn push_shift_sat<const N: usize>(line: &mut Cursor<'_, N>, dst: &Dst) {
    if dst.shift != ShiftScale::None {
        line.byte(b'_');
        for b in dst.shift.name().bytes() {
            line.byte(b);
        }
    }
    if dst.sat {
        for b in *b"_sat" {
            line.byte(b);
        }
    }
}

/// Appends the trailing tokens of a fast-path line (at most [`FAST_MAX_EXTRA`]), each followed
/// by `, `; `hex`: in the `0x%08X` spelling, else in decimal.
#[inline(never)]
fn push_extra<const N: usize>(line: &mut Cursor<'_, N>, extra: &[u32], hex: bool) {
    for w in extra {
        if hex {
            line.fixed(&hex8_then_separator(*w), 12);
        } else {
            line.dec(*w);
            line.operand_separator();
        }
    }
}

/// Whether [`write_inst`] prints nothing for the control field of `layout` when it is zero:
/// every field is left out at zero and the layout has no spelling of its own (`mdef(k)`,
/// `dcl_resource_id(n)`).
const fn zero_control_is_silent(layout: ControlLayout) -> bool {
    if matches!(layout, ControlLayout::Macro | ControlLayout::DclResource) {
        return false;
    }
    let fields = layout.fields();
    let mut i = 0;
    while i < fields.len() {
        let silent = match fields[i].kind {
            FieldKind::Flag | FieldKind::Hidden => true,
            FieldKind::Number { always } | FieldKind::Enum { always, .. } => !always,
            FieldKind::Choice(list) => match names(0, list) {
                None => true,
                Some(word) => word.is_empty(),
            },
            FieldKind::Operand => false,
            FieldKind::Word(list) => names(0, list).is_none(),
        };
        if !silent {
            return false;
        }
        i += 1;
    }
    true
}

impl RegNames {
    /// Appends the name of `ty`.
    #[inline]
    fn push(&self, out: &mut Buf, ty: RegType) {
        let name = self.entry(ty);
        match name.bytes.get(..usize::from(name.len)) {
            Some(text) => out.extend_from_slice(text),
            None => {
                let long = self.long[usize::from(ty.value()) & (REG_VALUES - 1)];
                out.extend_from_slice(long.as_bytes());
            }
        }
    }

    /// Whether registers of type `ty` always print their number.
    #[inline]
    fn numbered(&self, ty: RegType) -> bool {
        self.entry(ty).numbered
    }
}

/// Bytes a [`Chunk`] holds: a register name ([`PAD`] at most copied), a ten-digit number, a bracketed
/// ten-digit index or a swizzle, and a separator fit (at most 2 + 32 + 10 + 12 + 5 bytes is more
/// than the 29 that are ever used by one name, but the copy of the padded name needs its room).
const CHUNK: usize = 64;

/// Bytes gathered on the stack and appended to the output with one copy. The array is twice
/// what the callers put in (see [`CHUNK`] and [`PENDING`]), so that a write of a fixed size at
/// any position below the middle stays inside it and needs no bounds check (see [`Cursor`]).
struct Bytes<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

/// The bytes of one operand or value.
type Chunk = Bytes<{ 2 * CHUNK }>;

/// Bytes of the pending lines: lines of the fast path ([`FAST_LINE_MAX`] bytes at most) are gathered
/// until this is nearly full (the buffer is kept per thread, [`Scratch`], so its size costs no
/// clearing per program).
const PENDING: usize = 4096;

/// Appends the first `len` bytes of `pending` (whole lines of the fast path, [`write_fast`]) to
/// `out` (the caller empties it); done when the next line might not fit, before any write of the general
/// path, and at the end.
fn drain(pending: &[u8; 2 * PENDING], len: usize, out: &mut Buf) {
    out.extend_from_slice(pending.get(..len).unwrap_or(pending.as_slice()));
}

impl<const N: usize> Bytes<N> {
    #[inline]
    fn new() -> Bytes<N> {
        Bytes {
            bytes: [0; N],
            len: 0,
        }
    }

    /// Runs `write` on a [`Cursor`] over the bytes.
    #[inline(always)]
    fn with<R>(&mut self, write: impl FnOnce(&mut Cursor<'_, N>) -> R) -> R {
        let mut cursor = Cursor {
            bytes: &mut self.bytes,
            len: self.len,
        };
        let result = write(&mut cursor);
        self.len = cursor.len;
        result
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.with(|c| c.byte(b));
    }

    #[inline(always)]
    fn separator(&mut self, first: bool) {
        self.with(|c| c.separator(first));
    }

    #[inline(always)]
    fn short(&mut self, short: &Short) {
        self.with(|c| c.short(short));
    }

    #[inline(always)]
    fn dec(&mut self, value: u32) {
        self.with(|c| c.dec(value));
    }

    /// Appends the bytes gathered to `out` with a copy of the whole array (a fixed-size copy is
    /// cheaper than one of variable length for a few bytes) and a truncation.
    #[inline]
    fn flush(&self, out: &mut Buf) {
        let start = out.len();
        let half = self
            .bytes
            .first_chunk::<CHUNK>()
            .map_or(&[][..], |b| b.as_slice());
        out.extend_from_slice(half);
        out.truncate(start + self.len.min(half.len()));
    }
}

/// Writes into a byte array from a position kept apart from the array, so that it stays in a
/// register while a line or operand is written (a length stored next to the array is reloaded
/// after every byte).
///
/// Every write starts at the position masked below the middle of the array ([`Cursor::MASK`];
/// the callers keep the position below it, so the mask changes nothing) and is at most half the
/// array long, so the compiler sees that it stays inside the array and drops the bounds checks.
struct Cursor<'a, const N: usize> {
    bytes: &'a mut [u8; N],
    len: usize,
}

impl<const N: usize> Cursor<'_, N> {
    /// Positions are masked with this: half the array, a power of two, less one.
    const MASK: usize = {
        assert!(N.is_power_of_two() && N >= 2 * 64);
        N / 2 - 1
    };

    /// Where the next write starts (the position itself, see [`Cursor::MASK`]).
    #[inline(always)]
    fn at(&self) -> usize {
        self.len & Self::MASK
    }

    /// Appends the bytes written to `out` and starts again at the front.
    #[inline]
    fn drain_into(&mut self, out: &mut Buf) {
        out.extend_from_slice(self.bytes.get(..self.len).unwrap_or(self.bytes.as_slice()));
        self.len = 0;
    }

    /// Appends `depth` levels of [`INDENT`] (at most [`FAST_MAX_DEPTH`]).
    #[inline]
    fn indent(&mut self, depth: usize) {
        const SPACES: [u8; FAST_MAX_DEPTH * INDENT.len()] = [b' '; FAST_MAX_DEPTH * INDENT.len()];
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + SPACES.len())
            && let Ok(room) = <&mut [u8; SPACES.len()]>::try_from(room)
        {
            *room = SPACES;
            self.len += depth.min(FAST_MAX_DEPTH) * INDENT.len();
        }
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) {
        let at = self.at();
        if let Some(slot) = self.bytes.get_mut(at) {
            *slot = b;
        }
        self.len += 1;
    }

    /// Appends a separator: a blank before the first operand, `, ` before the others.
    #[inline(always)]
    fn separator(&mut self, first: bool) {
        if !first {
            self.byte(b',');
        }
        self.byte(b' ');
    }

    /// Appends the first `len` bytes of `bytes` (its padding is overwritten by what follows).
    #[inline(always)]
    fn fixed<const K: usize>(&mut self, bytes: &[u8; K], len: usize) {
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + K)
            && let Ok(room) = <&mut [u8; K]>::try_from(room)
        {
            *room = *bytes;
        }
        self.len += len;
    }

    /// Appends a register name that fits its entry (its padding is overwritten by what
    /// follows).
    #[inline(always)]
    fn reg_name(&mut self, name: &RegName) {
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + REG_NAME)
            && let Ok(room) = <&mut [u8; REG_NAME]>::try_from(room)
        {
            *room = name.bytes;
        }
        self.len += usize::from(name.len);
    }

    /// Stores the eight bytes of `word` (low byte first) at the position without moving it.
    #[inline(always)]
    fn word(&mut self, word: u64) {
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + 8)
            && let Ok(room) = <&mut [u8; 8]>::try_from(room)
        {
            *room = word.to_le_bytes();
        }
    }

    /// Appends `, `.
    #[inline(always)]
    fn operand_separator(&mut self) {
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + 2)
            && let Ok(room) = <&mut [u8; 2]>::try_from(room)
        {
            *room = *b", ";
        }
        self.len += 2;
    }

    /// Appends a [`Short`] and the `, ` stored after its text.
    #[inline(always)]
    fn short_then_separator(&mut self, short: &Short) {
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + 8)
            && let Ok(room) = <&mut [u8; 8]>::try_from(room)
        {
            *room = short.0.to_le_bytes();
        }
        self.len += (short.0 >> 56) as usize + 2;
    }

    /// Appends a [`Short`] (the count byte is overwritten by what follows).
    #[inline(always)]
    fn short(&mut self, short: &Short) {
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + 8)
            && let Ok(room) = <&mut [u8; 8]>::try_from(room)
        {
            *room = short.0.to_le_bytes();
        }
        self.len += (short.0 >> 56) as usize;
    }

    /// Appends digits from [`SMALL_DECIMALS`] (or [`REG_DECIMALS`]).
    #[inline(always)]
    fn dec_digits(&mut self, digits: u32) {
        // All four bytes are stored at once; the count in the last is overwritten by what
        // follows or left past the end.
        let at = self.at();
        if let Some(room) = self.bytes.get_mut(at..at + 4)
            && let Ok(room) = <&mut [u8; 4]>::try_from(room)
        {
            *room = digits.to_le_bytes();
        }
        self.len += (digits >> 24) as usize;
    }

    /// Appends `value` in decimal.
    #[inline(always)]
    fn dec(&mut self, value: u32) {
        // Register numbers, ids and indices are nearly always below 1000: their digits are
        // stored at once.
        if let Some(&digits) = SMALL_DECIMALS.get(value as usize) {
            self.dec_digits(digits);
        } else {
            let digits = decimal_digits(value);
            let mut rest = value;
            for at in (self.len..self.len + digits).rev() {
                if let Some(slot) = self.bytes.get_mut(at) {
                    *slot = b'0' + (rest % 10) as u8;
                }
                rest /= 10;
            }
            self.len += digits;
        }
    }
}

/// Numbers below this have their digits in [`SMALL_DECIMALS`].
const SMALL: usize = 1000;

/// The decimal digits of every number below [`SMALL`] (in the low bytes, first digit lowest,
/// zero-padded) and their count (in the top byte), computed at compile time, so that one load
/// gives both.
static SMALL_DECIMALS: [u32; SMALL] = small_decimals();

/// The digits of a register number below [`SMALL`] as [`SMALL_DECIMALS`] has them: from 0 for
/// types whose number 0 is not printed (where 0 has no digits), from [`SMALL`] for the others
/// ([`Joined::decimals`]).
static REG_DECIMALS: [u32; REG_DECIMAL_SLOTS] = {
    let digits = small_decimals();
    let mut table = [0; REG_DECIMAL_SLOTS];
    let mut n = 0;
    while n < SMALL {
        // 0 has no digits where the number is optional.
        table[n] = if n == 0 { 0 } else { digits[n] };
        table[SMALL + n] = digits[n];
        n += 1;
    }
    table
};

/// Entries of [`REG_DECIMALS`]: a power of two above its two tables, so that an index masked
/// with `REG_DECIMAL_SLOTS - 1` (which changes nothing for a number below [`SMALL`]) needs no
/// bounds check.
const REG_DECIMAL_SLOTS: usize = {
    assert!(2 * SMALL <= 2048);
    2048
};

const fn small_decimals() -> [u32; SMALL] {
    let mut table = [0u32; SMALL];
    let mut n = 0;
    while n < SMALL {
        let (h, t, o) = ((n / 100) as u8, (n / 10 % 10) as u8, (n % 10) as u8);
        table[n] = u32::from_le_bytes(if n < 10 {
            [b'0' + o, 0, 0, 1]
        } else if n < 100 {
            [b'0' + t, b'0' + o, 0, 2]
        } else {
            [b'0' + h, b'0' + t, b'0' + o, 3]
        });
        n += 1;
    }
    table
}

/// The number of decimal digits of `value` (1 to 10).
fn decimal_digits(value: u32) -> usize {
    let mut digits = 1;
    let mut bound = 10u32;
    while digits < 10 && value >= bound {
        digits += 1;
        bound = bound.saturating_mul(10);
    }
    digits
}

/// Appends `depth` levels of [`INDENT`].
#[inline]
fn push_indent(out: &mut Buf, depth: usize) {
    /// Eight levels of [`INDENT`], enough for nearly every line.
    const SPACES: [u8; 32] = [b' '; 32];
    let width = depth * INDENT.len();
    if width <= SPACES.len() {
        let start = out.len();
        out.extend_from_slice(&SPACES);
        out.truncate(start + width);
    } else {
        for _ in 0..depth {
            out.extend_from_slice(INDENT.as_bytes());
        }
    }
}

/// Appends `value` in decimal.
fn push_dec(out: &mut Buf, value: u32) {
    let mut chunk = Chunk::new();
    chunk.dec(value);
    chunk.flush(out);
}

/// Appends `value` in signed decimal.
fn push_signed(out: &mut Buf, value: i32) {
    if value < 0 {
        out.push(b'-');
    }
    push_dec(out, value.unsigned_abs());
}

/// The `0x%08X` spelling of `value` (the literal and immediate-constant spelling, amd-il.md §3.7).
#[inline]
fn hex8(value: u32) -> [u8; 10] {
    // Nibble k of `value` is spread to byte k of a word (halves, then bytes, then nibbles move
    // up into lanes twice as wide), every byte is turned into its digit at once (`'0' + d`, and
    // 7 more for d >= 10, which is when `d + 0x76` sets the byte's top bit; no byte carries into
    // the next), and the bytes are read most significant first.
    let mut n = u64::from(value);
    n = (n & 0xFFFF_0000) << 16 | (n & 0xFFFF);
    n = (n & 0x0000_FF00_0000_FF00) << 8 | (n & 0x0000_00FF_0000_00FF);
    n = (n & 0x00F0_00F0_00F0_00F0) << 4 | (n & 0x000F_000F_000F_000F);
    let letters = ((n + 0x7676_7676_7676_7676) >> 7) & 0x0101_0101_0101_0101;
    let digits = (n + 0x3030_3030_3030_3030 + letters * 7).to_be_bytes();
    let mut text = *b"0x00000000";
    for (slot, digit) in text.iter_mut().skip(2).zip(digits) {
        *slot = digit;
    }
    text
}

/// The `0x%08X` spelling of `value` and `, `.
#[inline]
fn hex8_then_separator(value: u32) -> [u8; 12] {
    let mut text = *b"0x00000000, ";
    for (slot, digit) in text.iter_mut().zip(hex8(value)) {
        *slot = digit;
    }
    text
}

/// Appends `value` as `0x%08X`.
fn push_hex8(out: &mut Buf, value: u32) {
    out.extend_from_slice(&hex8(value));
}

/// The precise mask of a plain `IL_OP_PREFIX` packet that can be written as `_prec…` on the next
/// instruction (amd-il.md §1.10); `None` for anything else.
#[inline]
fn foldable_prefix(inst: &Inst) -> Option<u16> {
    if inst.op != Opcode::Prefix {
        return None;
    }
    let plain = (1..=0xF).contains(&inst.ctrl.0)
        && inst.pri_mod().is_none()
        && inst.sec_mod().is_none()
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
    /// The depth of `stack` (the sum of [`Open::levels`]), kept up to date by every change of
    /// the stack, so that no line sums it.
    current: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Block,
    Switch { in_case: bool },
    Func { returned: bool },
}

impl Open {
    /// The indentation levels the block adds: one, one more inside a case body, none after a
    /// function's top-level `ret`.
    fn levels(self) -> usize {
        match self {
            Open::Block => 1,
            Open::Switch { in_case } => 1 + usize::from(in_case),
            Open::Func { returned } => usize::from(!returned),
        }
    }
}

impl Layout {
    /// Opens a block.
    fn push(&mut self, open: Open) {
        self.current += open.levels();
        self.stack.push(open);
    }

    /// Closes the innermost block, if any.
    fn pop(&mut self) {
        if let Some(open) = self.stack.pop() {
            self.current = self.current.saturating_sub(open.levels());
        }
    }

    /// Replaces the innermost block by `open` (a case body opened or closed, a function
    /// returned).
    fn set_last(&mut self, open: Open) {
        if let Some(last) = self.stack.last_mut() {
            self.current = self.current.saturating_sub(last.levels()) + open.levels();
            *last = open;
        }
    }

    /// The depth at which an instruction with role `flow` is printed, updating the state.
    #[inline(always)]
    fn depth_for(&mut self, flow: Flow) -> usize {
        if flow == Flow::None {
            return self.current;
        }
        self.depth_for_block_role(flow)
    }

    /// [`Layout::depth_for`] an instruction with a block role.
    fn depth_for_block_role(&mut self, flow: Flow) -> usize {
        if matches!(flow, Flow::Func | Flow::End)
            && self.stack.last() == Some(&Open::Func { returned: true })
        {
            self.pop();
        }
        match flow {
            Flow::If | Flow::Loop | Flow::MacroDef => {
                let d = self.current;
                self.push(Open::Block);
                d
            }
            Flow::Phase => {
                if self.stack.last() == Some(&Open::Block) {
                    self.pop();
                }
                let d = self.current;
                self.push(Open::Block);
                d
            }
            Flow::Func => {
                let d = self.current;
                self.push(Open::Func { returned: false });
                d
            }
            Flow::Switch => {
                let d = self.current;
                self.push(Open::Switch { in_case: false });
                d
            }
            Flow::Else => self.current.saturating_sub(1),
            Flow::Case | Flow::Default => {
                if let Some(Open::Switch { .. }) = self.stack.last() {
                    self.set_last(Open::Switch { in_case: false });
                    let d = self.current;
                    self.set_last(Open::Switch { in_case: true });
                    d
                } else {
                    self.current
                }
            }
            Flow::EndIf | Flow::EndLoop | Flow::EndSwitch | Flow::EndPhase | Flow::MacroEnd => {
                self.pop();
                self.current
            }
            Flow::EndFunc => {
                if matches!(self.stack.last(), Some(Open::Func { .. })) {
                    self.pop();
                }
                self.current
            }
            Flow::Ret => {
                if let Some(Open::Func { .. }) = self.stack.last() {
                    self.set_last(Open::Func { returned: true });
                }
                self.current
            }
            _ => self.current,
        }
    }
}

/// One instruction's text without indentation or newline.
/// Nested operands (relative indices, second dimensions) are looked up in `nested`.
pub fn inst_text(inst: &Inst, nested: &Nested, shader: ShaderKind) -> String {
    let mut out = Buf::with_capacity(BYTES_PER_INST);
    let tables = Tables::get();
    write_inst(
        &mut out,
        inst,
        tables,
        tables.regs_for(shader),
        nested,
        None,
    );
    into_string(out)
}

/// Appends `_name…` for each field of `fields` in `value`; returns the bits rendered. Fields
/// written after the operands ([`FieldKind::Operand`], [`FieldKind::Word`]) are left to
/// [`write_trailing_fields`], but count as rendered here.
fn render_fields(fields: &[CtrlField], value: u16, out: &mut Buf) -> u16 {
    let mut rendered = 0u16;
    for field in fields {
        let v = field.get(value);
        match field.kind {
            FieldKind::Flag => {
                if v != 0 {
                    out.push(b'_');
                    out.extend_from_slice(field.name.as_bytes());
                }
            }
            FieldKind::Number { always } => {
                if always || v != 0 {
                    out.push(b'_');
                    out.extend_from_slice(field.name.as_bytes());
                    out.push(b'(');
                    push_dec(out, v);
                    out.push(b')');
                }
            }
            FieldKind::Enum {
                names: list,
                always,
            } => {
                if always || v != 0 {
                    out.push(b'_');
                    out.extend_from_slice(field.name.as_bytes());
                    out.push(b'(');
                    match names(v, list) {
                        Some(word) => out.extend_from_slice(word.as_bytes()),
                        None => push_dec(out, v),
                    }
                    out.push(b')');
                }
            }
            FieldKind::Choice(list) => match names(v, list) {
                Some("") => {}
                Some(word) => {
                    out.push(b'_');
                    out.extend_from_slice(word.as_bytes());
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
fn write_trailing_fields(fields: &[CtrlField], value: u16, out: &mut Buf, mut first: bool) {
    for field in fields {
        if field.kind == FieldKind::Operand {
            out.extend_from_slice(if first { b" " } else { b", " });
            first = false;
            push_dec(out, field.get(value));
        }
    }
    for field in fields {
        if let FieldKind::Word(list) = field.kind
            && let Some(word) = names(field.get(value), list)
        {
            out.push(b' ');
            out.extend_from_slice(word.as_bytes());
        }
    }
}

/// Appends a signed 7.1 fixed-point byte of `_aoffimmi` (amd-il.md §1.10): `3`, `-1.5`.
fn push_half(out: &mut Buf, byte: u32) {
    let v = i32::from(byte as u8 as i8);
    if v % 2 == 0 {
        push_signed(out, v / 2);
    } else {
        // An odd count of halves is a whole part and `.5`, with the sign of the value (`-0.5`).
        if v < 0 {
            out.push(b'-');
        }
        push_dec(out, v.unsigned_abs() / 2);
        out.extend_from_slice(b".5");
    }
}

/// Appends the text of a `comment` packet: a quoted string when the words hold printable ASCII
/// padded with NULs to whole words (amd-il.md §1.11), else the raw words.
fn write_comment(out: &mut Buf, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some(end) = bytes.iter().position(|b| *b == 0) {
        let (text, pad) = bytes.split_at(end);
        let padded_ok = pad.iter().all(|b| *b == 0) && pad.len() <= 4 && !pad.is_empty();
        if padded_ok
            && text
                .iter()
                .all(|b| (0x20..0x7F).contains(b) && !b"\";/".contains(b))
        {
            out.push(b'"');
            out.extend_from_slice(text);
            out.push(b'"');
            return;
        }
    }
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
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
    fn next(&mut self, out: &mut Buf) {
        out.extend_from_slice(if self.first { b" " } else { b", " });
        self.first = false;
    }

    /// Appends the separator for a `= {…}` table, which follows a blank, not a comma.
    fn table(&mut self, out: &mut Buf) {
        out.push(b' ');
        self.first = false;
    }
}

/// Appends `words` in decimal separated by `, `, inside `= {…}`.
fn write_table(out: &mut Buf, words: &[u32]) {
    out.extend_from_slice(b"= {");
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        push_dec(out, *w);
    }
    out.push(b'}');
}

/// Appends one instruction's text; `prec` is the precise mask of a preceding `IL_OP_PREFIX`
/// folded into this line as `_prec` / `_prec(mask)` (amd-il.md §1.10).
fn write_inst(
    out: &mut Buf,
    inst: &Inst,
    tables: &Tables,
    regs: &RegNames,
    nested: &Nested,
    prec: Option<u16>,
) {
    let info = inst.info();
    let layout = info.control;
    let code = usize::from(inst.op.code());
    match tables.mnemonics.get(code) {
        Some(name) => name.push(out),
        None => out.extend_from_slice(info.mnemonic.as_bytes()),
    }
    let mnemonic_end = out.len();
    let ctrl = match layout {
        ControlLayout::CountOfExtra => 0,
        _ => inst.ctrl.0,
    };
    // Most instructions have no control bits where none are printed: then no field, leftover or
    // trailing field has anything to say.
    let silent = ctrl == 0 && tables.quiet_zero.get(code).copied().unwrap_or(false);
    if !silent {
        write_control(out, layout, ctrl);
    }
    let rare = inst.has_packet_mods()
        || !matches!(info.extra, Extra::None | Extra::Words(_) | Extra::Label)
        || inst.op == Opcode::Macrodef;
    if rare {
        write_modifiers(out, inst, layout);
    }
    if layout == ControlLayout::LdsSharingMode && out.get(mnemonic_end) == Some(&b'_') {
        // Guide §7.5 writes the mode after a blank: `dcl_lds_sharing_mode _wavefrontRel`.
        out.insert(mnemonic_end, b' ');
    }
    match prec {
        Some(0xF) => out.extend_from_slice(b"_prec"),
        Some(mask) => {
            out.extend_from_slice(b"_prec(");
            for (i, c) in [b'x', b'y', b'z', b'w'].into_iter().enumerate() {
                if mask & (1 << i) != 0 {
                    out.push(c);
                }
            }
            out.push(b')');
        }
        None => {}
    }
    if let Some(dst) = inst.dst.first() {
        if dst.shift != ShiftScale::None {
            out.push(b'_');
            out.extend_from_slice(dst.shift.name().as_bytes());
        }
        if dst.sat {
            out.extend_from_slice(b"_sat");
        }
    }
    if info.extra == Extra::InterfacePtr {
        out.push(b'[');
        push_dec(out, inst.extra.first().copied().unwrap_or(0));
        out.extend_from_slice(b"][");
        push_dec(out, inst.extra.get(1).copied().unwrap_or(0));
        out.push(b']');
    }
    let mut items = Items { first: true };
    if inst.op == Opcode::Macrocall {
        // `mcall(k) (outs), (ins)` — parentheses mandatory (guide §7.19).
        items.next(out);
        out.push(b'(');
        for (i, d) in inst.dst.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            write_dst(out, d, regs, nested);
        }
        out.push(b')');
        items.next(out);
        out.push(b'(');
        for (i, s) in inst.src.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            write_src(out, s, regs, nested);
        }
        out.push(b')');
    } else {
        for d in &inst.dst {
            write_dst_item(out, d, regs, nested, items.first);
            items.first = false;
        }
        for s in &inst.src {
            write_src_item(out, s, regs, nested, items.first);
            items.first = false;
        }
    }
    if !inst.extra.is_empty() || info.extra == Extra::LabelList || info.extra == Extra::InterfacePtr
    {
        write_extra(out, inst, info.extra, &mut items);
    }
    if !silent && layout != ControlLayout::DclResource {
        write_trailing_fields(layout.fields(), ctrl, out, items.first);
    }
}

/// Appends the control fields written right after the mnemonic, and the `_control(..)` escape
/// for bits the layout does not define.
fn write_control(out: &mut Buf, layout: ControlLayout, ctrl: u16) {
    let mut rendered = 0u16;
    if layout == ControlLayout::Macro {
        // `mdef(k)`, `mcall(k)` (guide §7.19).
        out.push(b'(');
        push_dec(out, u32::from(ctrl & 0x3FFF));
        out.push(b')');
        rendered |= 0x3FFF;
    }
    if layout == ControlLayout::DclResource {
        // `dcl_resource_id(n)_type(t[,unnorm])` (guide §7.5 DCL_RESOURCE).
        let ty = u32::from((ctrl >> 8) & 0xF);
        out.extend_from_slice(b"_id(");
        push_dec(out, u32::from(ctrl & 0xFF));
        out.extend_from_slice(b")_type(");
        match names(ty, PixTexUsage::NAMES) {
            Some(word) => out.extend_from_slice(word.as_bytes()),
            None => push_dec(out, ty),
        }
        out.extend_from_slice(if ctrl & 0x8000 != 0 {
            b",unnorm)".as_slice()
        } else {
            b")".as_slice()
        });
        rendered |= 0x8FFF;
    } else {
        rendered |= render_fields(layout.fields(), ctrl, out);
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
}

/// Appends the suffixes of modifier tokens and of the trailing tokens written as suffixes
/// (resource formats, strides, macro signatures).
fn write_modifiers(out: &mut Buf, inst: &Inst, layout: ControlLayout) {
    let info = inst.info();
    if let Some(p) = inst.pri_mod() {
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
    if let Some(s) = inst.sec_mod() {
        let _ = write!(out, "_secmod({s:#010x})");
    }
    if let Some(f) = inst.resource_format() {
        match PixTexUsage::from_value(f) {
            Some(u) => {
                out.extend_from_slice(b"_resourcetype(");
                out.extend_from_slice(u.name().as_bytes());
                out.push(b')');
            }
            None => {
                let _ = write!(out, "_resourceformat({f:#010x})");
            }
        }
    }
    if let Some(a) = inst.addr_offset() {
        if a >> 24 == 0 {
            out.extend_from_slice(b"_aoffimmi(");
            push_half(out, a & 0xFF);
            out.push(b',');
            push_half(out, (a >> 8) & 0xFF);
            out.push(b',');
            push_half(out, (a >> 16) & 0xFF);
            out.push(b')');
        } else {
            let _ = write!(out, "_addroffset({a:#010x})");
        }
    }
    if info.extra == Extra::ResourceFormat
        && let Some(&f) = inst.extra.first()
    {
        if f & 0xF_FFFF == 0 {
            for (i, axis) in [b'x', b'y', b'z', b'w'].into_iter().enumerate() {
                let v = (f >> (20 + 3 * i)) & 7;
                out.extend_from_slice(b"_fmt");
                out.push(axis);
                out.push(b'(');
                out.extend_from_slice(
                    names(v, ElementFormat::NAMES)
                        .unwrap_or("unknown")
                        .as_bytes(),
                );
                out.push(b')');
            }
        } else {
            let _ = write!(out, "_format({f:#010x})");
        }
    }
    if info.extra == Extra::StrideLength
        && let [stride, length] = inst.extra.as_slice()
    {
        // AMD's OpenCL compiler wrote `dcl_typeless_uav_id(n)_stride(s)_length(l)_access(a)`.
        out.extend_from_slice(b"_stride(");
        push_dec(out, *stride);
        out.extend_from_slice(b")_length(");
        push_dec(out, *length);
        out.push(b')');
    }
    if inst.op == Opcode::Macrodef
        && let Some(&sig) = inst.extra.first()
    {
        if sig >> 17 == 0 {
            out.extend_from_slice(b"_out(");
            push_dec(out, (sig >> 8) & 0xFF);
            out.extend_from_slice(b")_in(");
            push_dec(out, sig & 0xFF);
            out.push(b')');
            if sig & (1 << 16) != 0 {
                out.extend_from_slice(b"_outline");
            }
        } else {
            let _ = write!(out, "_signature({sig:#010x})");
        }
    }
}

/// Appends the trailing tokens written after the operands (amd-il.md §1.11, §3.7).
fn write_extra(out: &mut Buf, inst: &Inst, extra: Extra, items: &mut Items) {
    match extra {
        Extra::Words(4) if matches!(inst.op, Opcode::DclLiteral | Opcode::Def) => {
            write_hex_items(out, &inst.extra, items);
        }
        Extra::ImmediateConstants => write_hex_items(out, &inst.extra, items),
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
                let mut chunk = Chunk::new();
                chunk.separator(items.first);
                items.first = false;
                chunk.dec(*w);
                chunk.flush(out);
            }
        }
    }
}

/// Appends `words` as `0x%08X` items (`dcl_literal l0, 0x00000002, …`).
fn write_hex_items(out: &mut Buf, words: &[u32], items: &mut Items) {
    for w in words {
        let mut chunk = Chunk::new();
        chunk.separator(items.first);
        items.first = false;
        for b in hex8(*w) {
            chunk.byte(b);
        }
        chunk.flush(out);
    }
}

/// The canonical word for `value` in a `(word, value)` list.
const fn names(value: u32, list: &'static [(&'static str, u32)]) -> Option<&'static str> {
    // A loop rather than `find`, so that the compile-time [`TABLES`] can use it.
    let mut i = 0;
    while i < list.len() {
        if list[i].1 == value {
            return Some(list[i].0);
        }
        i += 1;
    }
    None
}

/// Appends a float token as text that parses back to the same bits: the shortest decimal for
/// finite values, hex otherwise.
fn write_float(out: &mut Buf, bits: u32) {
    let f = f32::from_bits(bits);
    if f.is_finite() && !(f == 0.0 && f.is_sign_negative()) {
        let _ = write!(out, "{f:?}");
    } else {
        push_hex8(out, bits);
    }
}

/// The letter of component `i` (0..=3) of a mask or `_neg(..)` list.
fn comp_letter(i: usize) -> u8 {
    [b'x', b'y', b'z', b'w'][i & 3]
}

/// Destination text: register plus full four-character mask (amd-il.md §3.4).
///
/// Nested operands (relative indices, second dimensions) are looked up in `nested`.
pub fn dst_text(dst: &Dst, nested: &Nested, shader: ShaderKind) -> String {
    let mut out = Buf::new();
    write_dst(&mut out, dst, Tables::get().regs_for(shader), nested);
    into_string(out)
}

/// Appends a destination (see [`dst_text`]).
fn write_dst(out: &mut Buf, dst: &Dst, regs: &RegNames, nested: &Nested) {
    write_reg(out, &dst.reg, regs, nested);
    push_short(out, MASK_TEXT.get(mask_index(dst.mask)));
}

/// Appends a destination operand with its separator (`first`: the instruction's first operand).
#[inline]
fn write_dst_item(out: &mut Buf, dst: &Dst, regs: &RegNames, nested: &Nested, first: bool) {
    let mut chunk = Chunk::new();
    chunk.separator(first);
    if chunk.with(|c| push_simple_reg(c, &dst.reg, regs)) {
        if let Some(mask) = MASK_TEXT.get(mask_index(dst.mask)) {
            chunk.short(mask);
        }
        chunk.flush(out);
    } else {
        chunk.flush(out);
        write_dst(out, dst, regs, nested);
    }
}

/// Appends a source operand with its separator (`first`: the instruction's first operand).
#[inline]
fn write_src_item(out: &mut Buf, src: &Src, regs: &RegNames, nested: &Nested, first: bool) {
    let mut chunk = Chunk::new();
    chunk.separator(first);
    if chunk.with(|c| push_simple_reg(c, &src.reg, regs)) {
        if let Some(swizzle) = SWIZZLE_TEXT.get(swizzle_index(src.swizzle)) {
            chunk.short(swizzle);
        }
        chunk.flush(out);
        if !src.mods.is_empty() {
            write_src_modifiers(out, src);
        }
    } else {
        chunk.flush(out);
        write_src(out, src, regs, nested);
    }
}

/// Appends a register without a second dimension, with a number below [`SMALL`] and with at
/// most an immediate index (`r3`, `cb0[4]`, `vAbsTid`: at most 21 + 3 + 12 bytes); returns
/// `false`, with nothing appended, for other registers.
#[inline(always)]
fn push_simple_reg<const N: usize>(chunk: &mut Cursor<'_, N>, reg: &Reg, regs: &RegNames) -> bool {
    if reg.dim2.is_some() {
        return false;
    }
    let imm = match reg.index {
        None => None,
        Some(Index::Imm(i)) => Some(i),
        Some(_) => return false,
    };
    let joined = &regs.joined[usize::from(reg.ty.value()) & (REG_VALUES - 1)];
    if reg.num as usize >= SMALL {
        return false;
    }
    let digits =
        REG_DECIMALS[(joined.decimals as usize + reg.num as usize) & (REG_DECIMAL_SLOTS - 1)];
    let len = joined.len as usize;
    if len <= JOINED_NAME {
        // The name and the number in one write.
        chunk.word(joined.name | u64::from(digits & 0xFF_FFFF) << (8 * len));
        chunk.len += len + (digits >> 24) as usize;
    } else {
        let name = regs.entry(reg.ty);
        if name.len == LONG_NAME {
            return false;
        }
        chunk.reg_name(name);
        chunk.dec_digits(digits);
    }
    if let Some(i) = imm {
        chunk.byte(b'[');
        chunk.dec(i);
        chunk.byte(b']');
    }
    true
}

/// Appends the text of a [`Short`].
fn push_short(out: &mut Buf, short: Option<&Short>) {
    let bytes = short.map_or(0, |short| short.0).to_le_bytes();
    out.extend_from_slice(bytes.get(..usize::from(bytes[7])).unwrap_or(&[]));
}

/// Source text: register, swizzle, modifiers in GRVK's order (amd-il.md §3.5).
///
/// Nested operands (relative indices, second dimensions) are looked up in `nested`.
pub fn src_text(src: &Src, nested: &Nested, shader: ShaderKind) -> String {
    let mut out = Buf::new();
    write_src(&mut out, src, Tables::get().regs_for(shader), nested);
    into_string(out)
}

/// Appends a source (see [`src_text`]).
fn write_src(out: &mut Buf, src: &Src, regs: &RegNames, nested: &Nested) {
    write_reg(out, &src.reg, regs, nested);
    push_short(out, SWIZZLE_TEXT.get(swizzle_index(src.swizzle)));
    write_src_modifiers(out, src);
}

/// Appends the modifiers of a source after its swizzle.
#[inline]
fn write_src_modifiers(out: &mut Buf, src: &Src) {
    let mods = src.mods;
    if mods.neg_mask() != 0 {
        out.extend_from_slice(b"_neg(");
        for i in 0..4 {
            if mods.negates(i) {
                out.push(comp_letter(i));
            }
        }
        out.push(b')');
    }
    if mods.invert() {
        out.extend_from_slice(b"_invert");
    }
    match (mods.bias(), mods.x2()) {
        (true, true) => out.extend_from_slice(b"_bx2"),
        (true, false) => out.extend_from_slice(b"_bias"),
        (false, true) => out.extend_from_slice(b"_x2"),
        (false, false) => {}
    }
    if mods.sign() {
        out.extend_from_slice(b"_sign");
    }
    let divcomp = mods.divcomp();
    if divcomp != DivComp::None {
        out.extend_from_slice(b"_divcomp(");
        out.extend_from_slice(divcomp.name().as_bytes());
        out.push(b')');
    }
    if mods.abs() {
        out.extend_from_slice(b"_abs");
    }
    if mods.clamp() {
        out.extend_from_slice(b"_sat");
    }
}

/// Appends the text inside an index bracket.
fn write_index(out: &mut Buf, index: &Index, regs: &RegNames, nested: &Nested) {
    match index {
        Index::Imm(i) => push_dec(out, *i),
        Index::Rel { reg } | Index::RelOffset { reg, .. } => {
            write_nested(out, *reg, regs, nested);
            if let Some(o) = index.offset() {
                out.push(b'+');
                push_dec(out, o);
            }
        }
        Index::AddrReg { rel_addr } | Index::AddrRegOffset { rel_addr, .. } => {
            // IL_Rel_Addr (amd-il.md §1.7): register 15:0, loop-relative 16, component 19:17.
            let reg = rel_addr & 0xFFFF;
            let comp = (rel_addr >> 17) & 7;
            // `aL` is the loop register; a non-zero register number is kept after it.
            if rel_addr & (1 << 16) != 0 {
                out.extend_from_slice(b"aL");
                if reg != 0 {
                    push_dec(out, reg);
                }
            } else {
                out.push(b'a');
                push_dec(out, reg);
            }
            out.push(b'.');
            // The component is masked to 0..=7, so the index is in range.
            out.push([b'x', b'y', b'z', b'w', b'?', b'?', b'?', b'?'][comp as usize]);
            if let Some(o) = index.offset() {
                out.push(b'+');
                push_dec(out, o);
            }
        }
    }
}

/// What stands for a nested operand that the program's table does not hold (a program built
/// wrong; readers never make one, and the verifier rejects it).
const MISSING: u8 = b'?';

/// Appends nested operand `id` as a source, or [`MISSING`].
fn write_nested(out: &mut Buf, id: NestedId, regs: &RegNames, nested: &Nested) {
    match nested.get(id) {
        Some(src) => write_src(out, src, regs, nested),
        None => out.push(MISSING),
    }
}

/// Appends the second index of a two-dimensional register: a register-relative expression, else
/// the second operand's register number.
fn write_second(out: &mut Buf, second: NestedId, regs: &RegNames, nested: &Nested) {
    let Some(second) = nested.get(second) else {
        out.push(MISSING);
        return;
    };
    match &second.reg.index {
        Some(index) if index.is_rel() => write_index(out, index, regs, nested),
        _ => push_dec(out, second.reg.num),
    }
}

/// Register text with its index brackets (amd-il.md §3.3). One dimension: `r3`, `cb0[4]`,
/// `x1[r2.x+3]`, `vAbsTid`. Two dimensions: `v[1][2]` (no first index), `cb[r6.w+2][r2.x+4]`
/// (register-relative first index on register 0), else `name<num>[first][second]`.
///
/// Nested operands (relative indices, second dimensions) are looked up in `nested`.
pub fn reg_text(reg: &Reg, nested: &Nested, shader: ShaderKind) -> String {
    let mut out = Buf::new();
    write_reg(&mut out, reg, Tables::get().regs_for(shader), nested);
    into_string(out)
}

/// Appends a register (see [`reg_text`]).
fn write_reg(out: &mut Buf, reg: &Reg, regs: &RegNames, nested: &Nested) {
    regs.push(out, reg.ty);
    match (&reg.index, &reg.dim2) {
        (None, Some(second)) => {
            out.push(b'[');
            push_dec(out, reg.num);
            out.extend_from_slice(b"][");
            write_second(out, *second, regs, nested);
            out.push(b']');
        }
        (Some(index), Some(second)) => {
            if !(index.is_rel() && reg.num == 0) {
                push_dec(out, reg.num);
            }
            out.push(b'[');
            write_index(out, index, regs, nested);
            out.extend_from_slice(b"][");
            write_second(out, *second, regs, nested);
            out.push(b']');
        }
        (index, None) => {
            if reg.num != 0 || regs.numbered(reg.ty) {
                push_dec(out, reg.num);
            }
            if let Some(index) = index {
                out.push(b'[');
                write_index(out, index, regs, nested);
                out.push(b']');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FAST_MAX_DEPTH, INDENT, PENDING, inst_text, to_text};
    use il_model::{
        CompSel, Control, Dst, DstComp, Inst, Nested, Opcode, Program, Reg, RegType, ShaderKind,
        ShiftScale, Src,
    };

    /// Instructions that take the fast path and instructions that leave it half-way (an operand
    /// that is not a plain register, source modifiers, numbers of four digits and more, control
    /// bits, a shift and `_sat`). The nested operand goes to `nested`.
    fn mixed_body(nested: &mut Nested) -> Vec<Inst> {
        vec![
            Inst::literal(7, [1, 0x3F80_0000, 0xFFFF_FFFF, 0]),
            Inst::new(Opcode::IAdd)
                .dst(Dst::temp(1).mask("x___"))
                .src(Src::temp(2).swz("y"))
                .src(Src::literal(7).swz("x")),
            Inst::new(Opcode::Mad)
                .dst(Dst {
                    sat: true,
                    shift: ShiftScale::X2,
                    ..Dst::temp(123_456)
                })
                .src(Src::temp(1000).negate())
                .src(Src::cb(0, 4096).abs())
                .src(Src::new(
                    Reg::new(RegType::ITemp, 1).rel(nested.push(Src::temp(2).swz("x")), Some(3)),
                )),
            Inst::new(Opcode::UavRawLoad)
                .ctrl(Control::id(3))
                .dst(Dst::temp(9).mask("x___"))
                .src(Src::temp(0).swz("x")),
            Inst::new(Opcode::Mov)
                .dst(Dst::new(Reg::new(RegType::ITemp, 0).at(5)))
                .src(Src::special(RegType::AbsoluteThreadIdFlat).swz("xxyy")),
        ]
    }

    /// Every line of the text, indentation removed, is what [`inst_text`] (the general path
    /// only) writes for its instruction; checked for lines at every depth up to past
    /// [`FAST_MAX_DEPTH`] and for a text longer than the pending buffer.
    #[test]
    fn fast_lines_match_the_general_path() {
        let mut program = Program::new(ShaderKind::Compute);
        let depth = FAST_MAX_DEPTH + 2;
        let mut expected = Vec::new();
        for level in 0..depth {
            for inst in mixed_body(&mut program.nested) {
                expected.push((level, inst_text(&inst, &program.nested, program.shader)));
                program.push(inst);
            }
            let open = Inst::new(Opcode::IfLogicalnz).src(Src::temp(0).swz("x"));
            expected.push((level, inst_text(&open, &program.nested, program.shader)));
            program.push(open);
        }
        for level in (0..depth).rev() {
            let close = Inst::new(Opcode::Endif);
            expected.push((level, inst_text(&close, &program.nested, program.shader)));
            program.push(close);
        }
        let end = Inst::new(Opcode::End);
        expected.push((0, inst_text(&end, &program.nested, program.shader)));
        program.push(end);
        let text = to_text(&program);
        assert!(
            text.len() > 2 * PENDING,
            "the text must overflow the pending buffer"
        );
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines.len(), expected.len());
        for (line, (level, inst)) in lines.iter().zip(&expected) {
            assert_eq!(*line, format!("{}{inst}", INDENT.repeat(*level)));
        }
    }

    /// A plain prefix packet is folded into the next instruction as `_prec…` unless that is a
    /// plain prefix too or there is none; a prefix with operands or no mask is not folded, but
    /// a plain one before it is.
    #[test]
    fn prefix_packets_fold_into_the_next_instruction() {
        let prefix = |mask: u16| Inst::new(Opcode::Prefix).ctrl(Control(mask));
        let mov = || Inst::new(Opcode::Mov).dst(Dst::temp(1)).src(Src::temp(2));
        let mut program = Program::new(ShaderKind::Compute);
        let body = [
            prefix(3),
            mov(),
            prefix(1),
            prefix(2),
            mov(),
            prefix(0xF),
            prefix(0),
            mov(),
            prefix(4),
        ];
        for inst in body {
            program.push(inst);
        }
        let text = |inst: &Inst| inst_text(inst, &program.nested, program.shader);
        let expected = [
            "mov_prec(xy) r1, r2".to_string(),
            text(&prefix(1)),
            "mov_prec(y) r1, r2".to_string(),
            format!("{}_prec", text(&prefix(0))),
            text(&mov()),
            text(&prefix(4)),
        ];
        let written = to_text(&program);
        let lines: Vec<&str> = written.lines().skip(1).collect();
        assert_eq!(lines, expected);
    }

    /// Constant-buffer declarations, with and without immediate constants, are those of the
    /// general path.
    #[test]
    fn constant_buffer_declarations_match_the_general_path() {
        let mut program = Program::new(ShaderKind::Compute);
        let body = [
            Inst::new(Opcode::DclConstBuffer).src(Src::cb(0, 3)),
            Inst::new(Opcode::DclConstBuffer)
                .ctrl(Control(0x8000))
                .src(Src::cb(1, 2))
                .extra(&[1, 0xDEAD_BEEF]),
            Inst::new(Opcode::DclConstBuffer)
                .ctrl(Control(0x8000))
                .extra(&[0, 1, 2, 3, 4, 5]),
        ];
        let mut expected = Vec::new();
        for inst in body {
            expected.push(inst_text(&inst, &program.nested, program.shader));
            program.push(inst);
        }
        let text = to_text(&program);
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines, expected);
        assert!(lines.iter().any(|l| l.contains("0xDEADBEEF")));
    }

    /// Lines with control suffixes, more distinct control values per opcode than the fast path's
    /// [`super::ControlCache`] holds, each met twice, are those of the general path.
    #[test]
    fn control_suffixes_match_the_general_path() {
        let mut program = Program::new(ShaderKind::Compute);
        let mut body = Vec::new();
        for id in 0..4 * super::HEAD_WAYS as u16 {
            body.push(
                Inst::new(Opcode::UavRawLoad)
                    .ctrl(Control::id(id) | Control::CACHED)
                    .dst(Dst::temp(1).mask("x___"))
                    .src(Src::temp(0).swz("x")),
            );
            body.push(
                Inst::new(Opcode::UavRawStore)
                    .ctrl(Control::id(id))
                    .dst(Dst::mem().mask("xy__"))
                    .src(Src::temp(0).swz("x"))
                    .src(Src::temp(1)),
            );
            body.push(
                Inst::new(Opcode::Mul)
                    .ctrl(Control(id))
                    .dst(Dst::temp(2))
                    .src(Src::temp(0))
                    .src(Src::temp(1)),
            );
        }
        body.push(Inst::new(Opcode::DclNumThreadPerGroup).extra(&[64, 1, 1]));
        body.push(Inst::new(Opcode::DclRawUav).ctrl(Control::id(2)));
        let mut expected = Vec::new();
        for _ in 0..2 {
            for inst in &body {
                expected.push(inst_text(inst, &program.nested, program.shader));
                program.push(inst.clone());
            }
        }
        let text = to_text(&program);
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines, expected);
        assert!(lines.iter().any(|l| l.contains("_control(")));
        // The thread's cache now holds suffixes of this program: a second run gives the same.
        assert_eq!(to_text(&program), text);
    }

    /// The longest lines the fast path takes (the longest register name, ten-digit numbers and
    /// indices, non-identity swizzles and masks, a shift, `_sat`, a control suffix, four sources
    /// and four ten-digit trailing words) at every depth it indents, many times over so that
    /// they start at every offset of the pending buffer, are those of the general path: the
    /// bound on a fast line's length (which keeps its writes inside the buffer) holds.
    #[test]
    fn longest_fast_lines_match_the_general_path() {
        let big = u32::MAX;
        let operand = || Src::new(Reg::new(RegType::OcpId, big).at(big)).swz("xyzy");
        let longest = Inst::new(Opcode::UavRawLoad)
            .ctrl(Control::id(0x3FF) | Control::CACHED)
            .dst(Dst {
                sat: true,
                shift: ShiftScale::D8,
                ..Dst::new(Reg::new(RegType::OcpId, big).at(big)).mask("x_z1")
            })
            .src(operand())
            .src(operand())
            .src(operand())
            .src(operand())
            .extra(&[big; 4]);
        let mut program = Program::new(ShaderKind::Hull);
        let mut expected = Vec::new();
        let open = Inst::new(Opcode::IfLogicalnz).src(Src::temp(0).swz("x"));
        for level in 0..=FAST_MAX_DEPTH {
            for _ in 0..7 {
                expected.push((level, inst_text(&longest, &program.nested, program.shader)));
                program.push(longest.clone());
            }
            expected.push((level, inst_text(&open, &program.nested, program.shader)));
            program.push(open.clone());
        }
        let text = to_text(&program);
        assert!(text.len() > 4 * PENDING);
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines.len(), expected.len());
        for (line, (level, inst)) in lines.iter().zip(&expected) {
            assert_eq!(*line, format!("{}{inst}", INDENT.repeat(*level)));
        }
        assert!(expected.iter().any(|(_, line)| line.len() > 200));
    }

    /// `hex8` spells every value as `format!("0x{:08X}")` does (checked for every digit at
    /// every position and a run of pseudo-random values).
    #[test]
    fn hex8_matches_std_formatting() {
        let mut values: Vec<u32> = (0..8)
            .flat_map(|k| (0..16u32).map(move |d| d << (4 * k)))
            .collect();
        let mut x = 0x1234_5678u32;
        for _ in 0..10_000 {
            // A 32-bit linear congruential sequence (Numerical Recipes constants).
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            values.push(x);
        }
        values.extend([0, u32::MAX, 0x8000_0000, 0x3F80_0000]);
        for v in values {
            assert_eq!(super::hex8(v), format!("0x{v:08X}").as_bytes(), "{v:#x}");
        }
    }

    /// The text of a [`super::Short`].
    fn short_text(short: &super::Short) -> String {
        let len = (short.0 >> 56) as usize;
        String::from_utf8_lossy(&short.0.to_le_bytes()[..len]).into_owned()
    }

    /// Every write mask's text, found through `mask_index`, is empty for a full write and
    /// otherwise `.` and four characters that il-model's own parser (`parse_mask`, amd-il.md
    /// §3.4) reads back as the same mask.
    #[test]
    fn mask_table_reads_back() {
        for i in 0..256u32 {
            let comp = |k: u32| DstComp::ALL[(i >> (2 * k) & 3) as usize];
            let mask = [comp(0), comp(1), comp(2), comp(3)];
            let text = short_text(&super::MASK_TEXT[super::mask_index(mask)]);
            if mask == [DstComp::Write; 4] {
                assert_eq!(text, "");
            } else {
                assert_eq!(text.len(), 5, "{text}");
                assert_eq!(
                    text.strip_prefix('.').and_then(il_model::parse_mask),
                    Some(mask)
                );
            }
        }
    }

    /// Every swizzle's text, found through `swizzle_index`, is empty for `.xyzw`, one selector
    /// when all four agree and four otherwise, and il-model's parser (`parse_swizzle`, amd-il.md
    /// §3.5) reads it back as the same swizzle.
    #[test]
    fn swizzle_table_reads_back() {
        for i in 0..1296usize {
            let sel = |k: u32| CompSel::ALL[i / 6usize.pow(k) % 6];
            let sw = [sel(0), sel(1), sel(2), sel(3)];
            let text = short_text(&super::SWIZZLE_TEXT[super::swizzle_index(sw)]);
            if sw == il_model::IDENTITY {
                assert_eq!(text, "");
                continue;
            }
            let replicated = sw.iter().all(|c| *c == sw[0]);
            assert_eq!(text.len(), if replicated { 2 } else { 5 }, "{text}");
            assert_eq!(
                text.strip_prefix('.').and_then(il_model::parse_swizzle),
                Some(sw)
            );
        }
    }

    /// A few lines spelled out (checked by hand against amd-il.md §3.3–§3.7: masks, replicated
    /// swizzles, `_sat` after the shift, modifiers in GRVK's order, literals in hex).
    #[test]
    fn mixed_lines_spelled_out() {
        let mut nested = Nested::new();
        let body = mixed_body(&mut nested);
        let text: Vec<String> = body
            .iter()
            .map(|inst| inst_text(inst, &nested, ShaderKind::Compute))
            .collect();
        assert_eq!(
            text,
            [
                "dcl_literal l7, 0x00000001, 0x3F800000, 0xFFFFFFFF, 0x00000000",
                "iadd r1.x___, r2.y, l7.x",
                "mad_x2_sat r123456, r1000_neg(xyzw), cb0[4096]_abs, x1[r2.x+3]",
                "uav_raw_load_id(3) r9.x___, r0.x",
                "mov x0[5], vAbsTidFlat.xxyy",
            ]
        );
    }
}
