//! The IL program model: a header and a flat list of instructions (declarations are instructions
//! too, as in the token stream, amd-il.md §1.1), with operands that mirror the operand tokens
//! (§1.5–§1.9) one to one, so that text and tokens both map onto the model without loss.

use std::fmt;
use std::num::NonZeroU32;
use std::ops::BitOr;

use smallvec::SmallVec;

use crate::enums::{CompSel, DivComp, DstComp, LanguageType, ShaderKind, ShiftScale};
use crate::opcode_table::Opcode;
use crate::optable::OpInfo;
use crate::regs::RegType;

/// A whole IL program.
///
/// Equality compares the header and the instructions with every nested operand (relative index,
/// second dimension) resolved through each program's own [`Nested`] table, so two programs that
/// store the same operands in a different table order are equal.
#[derive(Clone, Debug)]
pub struct Program {
    /// Shader kind (IL_Version bits 23:16).
    pub shader: ShaderKind,
    /// `(major, minor)` version (IL_Version bits 15:8 and 7:0); `il_cs_2_0` is `(2, 0)`.
    pub version: (u8, u8),
    /// Client language (IL_Lang token; no text syntax, so text parsing yields `Generic`).
    pub language: LanguageType,
    /// Multipass bit (`_mp` in the version line).
    pub multipass: bool,
    /// Real-time bit (`_rt` in the version line).
    pub realtime: bool,
    /// Macro definitions (`mdef` … `mend`) placed before the IL_Lang token / version line
    /// (guide §7.19; amd-il.md §1.1).
    pub macros: Vec<Inst>,
    /// Instructions in order, declarations included; the last one is normally `end`.
    pub body: Vec<Inst>,
    /// The operands nested inside other operands of [`Program::macros`] and [`Program::body`]
    /// (relative indices and second dimensions), referred to by [`NestedId`].
    pub nested: Nested,
}

impl PartialEq for Program {
    fn eq(&self, other: &Program) -> bool {
        let insts_eq = |a: &[Inst], b: &[Inst]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.eq_in(&self.nested, y, &other.nested))
        };
        self.shader == other.shader
            && self.version == other.version
            && self.language == other.language
            && self.multipass == other.multipass
            && self.realtime == other.realtime
            && insts_eq(&self.macros, &other.macros)
            && insts_eq(&self.body, &other.body)
    }
}

impl Eq for Program {}

impl Program {
    /// An empty program of kind `shader`, version 2.0, language `Generic`.
    pub fn new(shader: ShaderKind) -> Program {
        Program {
            shader,
            version: (2, 0),
            language: LanguageType::Generic,
            multipass: false,
            realtime: false,
            macros: Vec::new(),
            body: Vec::new(),
            nested: Nested::default(),
        }
    }

    /// Adds `src` to the nested-operand table and returns its id (see [`Nested::push`]).
    #[inline]
    pub fn nest(&mut self, src: Src) -> NestedId {
        self.nested.push(src)
    }

    /// Appends an instruction (builder style).
    pub fn push(&mut self, inst: Inst) -> &mut Program {
        self.body.push(inst);
        self
    }
}

/// The control field of an opcode token: bits 29:16 as bits 13:0 of this value, and for layouts
/// that define them (`dcl_resource` unnorm, `dcl_cb` immediate) also bits 31:30 as bits 15:14.
/// What the bits mean is given by the opcode's [`crate::ControlLayout`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Control(pub u16);

impl Control {
    /// No control bits.
    pub const NONE: Control = Control(0);
    /// `_ieee` (bit 16).
    pub const IEEE: Control = Control(1);
    /// `fence_threads`.
    pub const FENCE_THREADS: Control = Control(1 << 0);
    /// `fence_lds`.
    pub const FENCE_LDS: Control = Control(1 << 1);
    /// `fence_memory`.
    pub const FENCE_MEMORY: Control = Control(1 << 2);
    /// `fence_sr`.
    pub const FENCE_SR: Control = Control(1 << 3);
    /// `fence_mem_write_only`.
    pub const FENCE_MEM_WRITE_ONLY: Control = Control(1 << 4);
    /// `fence_mem_read_only`.
    pub const FENCE_MEM_READ_ONLY: Control = Control(1 << 5);
    /// `fence_gds`.
    pub const FENCE_GDS: Control = Control(1 << 6);
    /// `uav_raw_load_id(n)_cached` (with [`Control::id`]).
    pub const CACHED: Control = Control(1 << 10);

    /// A resource / LDS / UAV id (`_id(n)`, `_resource(n)`; all layouts keep it in the low bits).
    pub fn id(n: u16) -> Control {
        Control(n & 0x3FFF)
    }

    /// `_relop(op)`.
    pub fn relop(op: crate::RelOp) -> Control {
        Control(op.value() as u16)
    }

    /// `_zeroop(z)`.
    pub fn zeroop(z: crate::ZeroOp) -> Control {
        Control(z.value() as u16)
    }
}

impl BitOr for Control {
    type Output = Control;
    fn bitor(self, rhs: Control) -> Control {
        Control(self.0 | rhs.0)
    }
}

/// One instruction packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// Opcode.
    pub op: Opcode,
    /// Control field.
    pub ctrl: Control,
    /// The optional tokens between the opcode and the operands, boxed because few
    /// instructions have any (see [`PacketMods`]); `None` when there are none.
    pub mods: Option<Box<PacketMods>>,
    /// Destination operands (0 or 1 for every opcode except `mcall`).
    pub dst: Dsts,
    /// Source operands, in syntax order.
    pub src: Srcs,
    /// Trailing tokens (literal values, labels, case value, counts; amd-il.md §1.11).
    pub extra: ExtraWords,
}

/// The optional tokens that follow an instruction's opcode token, in token order (amd-il.md
/// §1.3). Kept out of line in [`Inst::mods`]: they belong to a few sample and load forms and to
/// hand-written IL, and four inline options would add a sixth to the size of every instruction
/// the program holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketMods {
    /// Primary modifier token (opcode bit 31, for layouts that do not own that bit).
    pub pri_mod: Option<u32>,
    /// Secondary modifier token (opcode bit 30, for layouts that do not own that bit).
    pub sec_mod: Option<u32>,
    /// Resource-format token of the sample/load family (present iff `_ext`, control bit 28).
    pub resource_format: Option<u32>,
    /// Address-offset token of the sample/load family (`_aoffimmi(u,v,w)`; sets control bit 29).
    pub addr_offset: Option<u32>,
}

/// An instruction's destinations: inline up to one, since only `mcall` has more, so that
/// building an instruction allocates nothing in the common case.
pub type Dsts = SmallVec<[Dst; 1]>;

/// An instruction's sources: inline up to two. Most instructions take one or two; the three-
/// source ones (`cmov_logical`, `mad`, `dmad`, bit-field extracts, `clamp`: about one in
/// fifteen of the instructions in our translation snapshots) spill to the heap, which costs
/// less than carrying a third 32-byte source in every instruction through the verifier, both
/// writers and drop.
pub type Srcs = SmallVec<[Src; 2]>;

/// An instruction's trailing tokens: inline up to four (a `dcl_literal`'s four values).
pub type ExtraWords = SmallVec<[u32; 4]>;

impl Inst {
    // The builders move the whole instruction (about 150 bytes with its inline operands)
    // through every call; `#[inline]` lets other crates build it in place.
    /// An instruction with no control bits and no operands.
    #[inline]
    pub fn new(op: Opcode) -> Inst {
        Inst {
            op,
            ctrl: Control::NONE,
            mods: None,
            dst: Dsts::new(),
            src: Srcs::new(),
            extra: ExtraWords::new(),
        }
    }

    /// The opcode's table row.
    #[inline]
    pub fn info(&self) -> &'static OpInfo {
        self.op.info()
    }

    /// The primary modifier token, if present.
    #[inline]
    pub fn pri_mod(&self) -> Option<u32> {
        self.mods.as_ref().and_then(|m| m.pri_mod)
    }

    /// The secondary modifier token, if present.
    #[inline]
    pub fn sec_mod(&self) -> Option<u32> {
        self.mods.as_ref().and_then(|m| m.sec_mod)
    }

    /// The resource-format token, if present.
    #[inline]
    pub fn resource_format(&self) -> Option<u32> {
        self.mods.as_ref().and_then(|m| m.resource_format)
    }

    /// The address-offset token, if present.
    #[inline]
    pub fn addr_offset(&self) -> Option<u32> {
        self.mods.as_ref().and_then(|m| m.addr_offset)
    }

    /// Whether any of the optional tokens of [`PacketMods`] is present.
    #[inline]
    pub fn has_packet_mods(&self) -> bool {
        self.mods
            .as_deref()
            .is_some_and(|m| *m != PacketMods::default())
    }

    /// The optional tokens, for setting them (allocated on first use).
    pub fn mods_mut(&mut self) -> &mut PacketMods {
        self.mods.get_or_insert_with(Box::default)
    }

    /// Sets the control field.
    #[inline]
    pub fn ctrl(mut self, ctrl: Control) -> Inst {
        self.ctrl = ctrl;
        self
    }

    /// Adds a destination.
    #[inline]
    pub fn dst(mut self, dst: Dst) -> Inst {
        self.dst.push(dst);
        self
    }

    /// Adds a source.
    #[inline]
    pub fn src(mut self, src: Src) -> Inst {
        self.src.push(src);
        self
    }

    /// Appends trailing tokens.
    #[inline]
    pub fn extra(mut self, words: &[u32]) -> Inst {
        self.extra.extend_from_slice(words);
        self
    }

    /// Whether `self` (whose nested operands are in `nested`) and `other` (nested operands in
    /// `other_nested`) are the same instruction, comparing nested operands by value.
    pub fn eq_in(&self, nested: &Nested, other: &Inst, other_nested: &Nested) -> bool {
        self.op == other.op
            && self.ctrl == other.ctrl
            && self.mods == other.mods
            && self.extra == other.extra
            && self.dst.len() == other.dst.len()
            && self.src.len() == other.src.len()
            && self.dst.iter().zip(&other.dst).all(|(a, b)| {
                a.mask == b.mask
                    && a.sat == b.sat
                    && a.shift == b.shift
                    && a.reg.eq_in(nested, &b.reg, other_nested)
            })
            && self
                .src
                .iter()
                .zip(&other.src)
                .all(|(a, b)| a.eq_in(nested, b, other_nested))
    }

    /// `dcl_literal lN, x, y, z, w`. Built whole and inline: a translation declares every
    /// literal it uses, and the chained builders would move the instruction through each call.
    #[inline]
    pub fn literal(n: u32, values: [u32; 4]) -> Inst {
        let mut src = Srcs::new();
        src.push(Src::literal(n));
        Inst {
            op: Opcode::DclLiteral,
            ctrl: Control::NONE,
            mods: None,
            dst: Dsts::new(),
            src,
            extra: ExtraWords::from_buf(values),
        }
    }
}

/// Refers to an operand in a [`Nested`] table: the register of a relative index or a second
/// dimension. Operands hold these small ids instead of boxes so that [`Reg`], [`Dst`] and
/// [`Src`] are plain `Copy` values: building, copying and dropping an instruction then never
/// touches the heap for its operands.
///
/// The id keeps its position plus one in a `NonZeroU32`, so that `Option<NestedId>` (a second
/// dimension) takes four bytes rather than eight in every operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NestedId(NonZeroU32);

impl NestedId {
    /// An id that no table holds (what [`Nested::push`] returns for an operand it refuses).
    pub const DANGLING: NestedId = NestedId(NonZeroU32::MAX);

    /// The position in the table.
    #[inline]
    pub fn index(self) -> usize {
        // At least 1, so the subtraction cannot wrap.
        (self.0.get() - 1) as usize
    }
}

/// The operands nested inside other operands of one program (amd-il.md §1.5: a relative index
/// and a second dimension are whole source operands of their own). Entries only refer to entries
/// added before them, so following nested operands always ends.
#[derive(Clone, Debug, Default)]
pub struct Nested {
    /// The operands, in the order they were added.
    entries: Vec<Src>,
}

impl Nested {
    /// An empty table.
    pub fn new() -> Nested {
        Nested::default()
    }

    /// Adds `src` and returns its id. An operand that refers to an entry not already in this table
    /// (an id from another table) is not stored and yields [`NestedId::DANGLING`], which resolves
    /// to nothing; this keeps every chain of nested operands finite.
    pub fn push(&mut self, src: Src) -> NestedId {
        let len = self.entries.len();
        let known = |id: NestedId| id.index() < len;
        let refs_ok = src.reg.index_reg().is_none_or(known) && src.reg.dim2.is_none_or(known);
        // The table would need 100 GB of operands to reach u32::MAX entries, so `try_from`
        // only fails where memory has long run out. Position `len` is stored as `len + 1`,
        // which must be non-zero and not the dangling id.
        match u32::try_from(len + 1).ok().and_then(NonZeroU32::new) {
            Some(id) if refs_ok && id != NonZeroU32::MAX => {
                self.entries.push(src);
                NestedId(id)
            }
            _ => NestedId::DANGLING,
        }
    }

    /// The operand `id` refers to, if this table holds it.
    #[inline]
    pub fn get(&self, id: NestedId) -> Option<&Src> {
        self.entries.get(id.index())
    }

    /// Number of operands held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Whether `a` in table `na` and `b` in table `nb` are the same operand (both dangling counts as
/// equal only for the same raw id).
fn nested_eq(na: &Nested, a: NestedId, nb: &Nested, b: NestedId) -> bool {
    match (na.get(a), nb.get(b)) {
        (Some(x), Some(y)) => x.eq_in(na, y, nb),
        (None, None) => a == b,
        _ => false,
    }
}

/// The index of an operand's first dimension.
///
/// The optional immediate offset of the relative forms is a variant of its own rather than an
/// `Option<u32>` field, so that an index takes twelve bytes instead of sixteen in every operand
/// (an instruction holds three operands inline); [`Index::rel`], [`Index::addr_reg`] and
/// [`Index::offset`] take and give the offset as an `Option`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// An immediate index: `x5[6]`, `cb0[3]` (immediate_present, absolute).
    Imm(u32),
    /// Register-relative without an immediate: `x5[r2.x]` (addressing 2).
    Rel {
        /// The index operand (one component selected by a replicating swizzle), in the
        /// program's [`Nested`] table.
        reg: NestedId,
    },
    /// Register-relative plus an immediate token: `x5[r2.x+6]` (addressing 2).
    RelOffset {
        /// The index operand, in the program's [`Nested`] table.
        reg: NestedId,
        /// The constant added to the index.
        offset: u32,
    },
    /// DX9 address-register relative (addressing 1) without an immediate: the raw IL_Rel_Addr
    /// token (amd-il.md §1.7).
    AddrReg {
        /// The IL_Rel_Addr token.
        rel_addr: u32,
    },
    /// DX9 address-register relative plus an immediate token.
    AddrRegOffset {
        /// The IL_Rel_Addr token.
        rel_addr: u32,
        /// The constant offset.
        offset: u32,
    },
}

impl Index {
    /// Register-relative on `reg` (a [`Nested`] entry), with the immediate `offset` if any.
    #[inline]
    pub fn rel(reg: NestedId, offset: Option<u32>) -> Index {
        match offset {
            Some(offset) => Index::RelOffset { reg, offset },
            None => Index::Rel { reg },
        }
    }

    /// Address-register relative through the IL_Rel_Addr token `rel_addr`, with the immediate
    /// `offset` if any.
    #[inline]
    pub fn addr_reg(rel_addr: u32, offset: Option<u32>) -> Index {
        match offset {
            Some(offset) => Index::AddrRegOffset { rel_addr, offset },
            None => Index::AddrReg { rel_addr },
        }
    }

    /// The immediate token of a relative index, if present (`None` for [`Index::Imm`]).
    #[inline]
    pub fn offset(self) -> Option<u32> {
        match self {
            Index::RelOffset { offset, .. } | Index::AddrRegOffset { offset, .. } => Some(offset),
            Index::Imm(_) | Index::Rel { .. } | Index::AddrReg { .. } => None,
        }
    }

    /// The nested operand of a register-relative index.
    #[inline]
    pub fn nested_reg(self) -> Option<NestedId> {
        match self {
            Index::Rel { reg } | Index::RelOffset { reg, .. } => Some(reg),
            Index::Imm(_) | Index::AddrReg { .. } | Index::AddrRegOffset { .. } => None,
        }
    }

    /// Whether the index is register-relative (either form).
    #[inline]
    pub fn is_rel(self) -> bool {
        matches!(self, Index::Rel { .. } | Index::RelOffset { .. })
    }

    /// Whether the index is address-register relative (either form).
    #[inline]
    pub fn is_addr_reg(self) -> bool {
        matches!(self, Index::AddrReg { .. } | Index::AddrRegOffset { .. })
    }
}

/// A register reference: the part of an operand shared by destinations and sources.
///
/// The derived equality compares nested operands by id; [`Reg::eq_in`] compares them by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg {
    /// Register type.
    pub ty: RegType,
    /// Register number (numbers ≥ 65536 use the extended token).
    pub num: u32,
    /// First-dimension index, if any.
    pub index: Option<Index>,
    /// Second-dimension operand (`v[1][2]`, `cb[r6.w+2][r2.x+4]`; the `dimension` bit), in the
    /// program's [`Nested`] table.
    pub dim2: Option<NestedId>,
}

impl Reg {
    /// Register `num` of type `ty`, no index.
    pub fn new(ty: RegType, num: u32) -> Reg {
        Reg {
            ty,
            num,
            index: None,
            dim2: None,
        }
    }

    /// With an immediate index (`cb0[3]`, `x1[4]`).
    pub fn at(mut self, index: u32) -> Reg {
        self.index = Some(Index::Imm(index));
        self
    }

    /// With a register-relative index (`x1[r2.x+4]`; `offset` `None` writes `x1[r2.x]`); the
    /// index operand is `index` in the program's [`Nested`] table (see [`Program::nest`]).
    #[inline]
    pub fn rel(mut self, index: NestedId, offset: Option<u32>) -> Reg {
        self.index = Some(Index::rel(index, offset));
        self
    }

    /// The nested operand of a register-relative index, if the index is one.
    #[inline]
    pub fn index_reg(&self) -> Option<NestedId> {
        self.index.and_then(Index::nested_reg)
    }

    /// Whether `self` (nested operands in `nested`) and `other` (nested operands in
    /// `other_nested`) are the same register reference, comparing nested operands by value.
    pub fn eq_in(&self, nested: &Nested, other: &Reg, other_nested: &Nested) -> bool {
        let index_eq = match (self.index, other.index) {
            (Some(Index::Rel { reg: a }), Some(Index::Rel { reg: b })) => {
                nested_eq(nested, a, other_nested, b)
            }
            (
                Some(Index::RelOffset { reg: a, offset: oa }),
                Some(Index::RelOffset { reg: b, offset: ob }),
            ) => oa == ob && nested_eq(nested, a, other_nested, b),
            (a, b) => a == b,
        };
        let dim2_eq = match (self.dim2, other.dim2) {
            (Some(a), Some(b)) => nested_eq(nested, a, other_nested, b),
            (a, b) => a == b,
        };
        self.ty == other.ty && self.num == other.num && index_eq && dim2_eq
    }
}

/// Parses positional component characters (amd-il.md §3.4): `x y z w` / `r g b a` write and move to
/// their own position; `_`, `0`, `1` apply to the current position. Unmentioned components are not
/// written. Returns `None` for any other character or more than four positions.
pub fn parse_mask(text: &str) -> Option<[DstComp; 4]> {
    let mut mask = [DstComp::NoWrite; 4];
    let mut pos = 0usize;
    for c in text.chars() {
        let (at, comp) = match c {
            'x' | 'r' => (0, DstComp::Write),
            'y' | 'g' => (1, DstComp::Write),
            'z' | 'b' => (2, DstComp::Write),
            'w' | 'a' => (3, DstComp::Write),
            '_' => (pos, DstComp::NoWrite),
            '0' => (pos, DstComp::Zero),
            '1' => (pos, DstComp::One),
            _ => return None,
        };
        if at < pos && comp == DstComp::Write {
            // A letter may not move backwards (`.yx` is not a mask).
            return None;
        }
        *mask.get_mut(at)? = comp;
        pos = at + 1;
    }
    Some(mask)
}

/// Parses a source swizzle of 1 (replicated) or 4 selectors from `x y z w r g b a 0 1`.
pub fn parse_swizzle(text: &str) -> Option<[CompSel; 4]> {
    let sel = |c: char| match c {
        'x' | 'r' => Some(CompSel::X),
        'y' | 'g' => Some(CompSel::Y),
        'z' | 'b' => Some(CompSel::Z),
        'w' | 'a' => Some(CompSel::W),
        '0' => Some(CompSel::Zero),
        '1' => Some(CompSel::One),
        _ => None,
    };
    let chars: Vec<char> = text.chars().collect();
    match chars.as_slice() {
        [c] => Some([sel(*c)?; 4]),
        [a, b, c, d] => Some([sel(*a)?, sel(*b)?, sel(*c)?, sel(*d)?]),
        _ => None,
    }
}

/// A destination operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dst {
    /// The register.
    pub reg: Reg,
    /// Per-component write mode (x, y, z, w).
    pub mask: [DstComp; 4],
    /// `_sat`: clamp to [0, 1].
    pub sat: bool,
    /// Shift scale (`_x2` …).
    pub shift: ShiftScale,
}

impl Dst {
    /// All four components of `reg`, no modifiers.
    pub fn new(reg: Reg) -> Dst {
        Dst {
            reg,
            mask: [DstComp::Write; 4],
            sat: false,
            shift: ShiftScale::None,
        }
    }

    /// `r{n}`.
    pub fn temp(n: u32) -> Dst {
        Dst::new(Reg::new(RegType::Temp, n))
    }

    /// `mem` (the mask-only destination of stores).
    pub fn mem() -> Dst {
        Dst::new(Reg::new(RegType::GenericMem, 0))
    }

    /// Sets the write mask from positional text (`"x___"`, `"xy"`, `"xyz1"`; see [`parse_mask`]).
    /// Text that is not a mask leaves all four components written.
    pub fn mask(mut self, text: &str) -> Dst {
        self.mask = parse_mask(text).unwrap_or([DstComp::Write; 4]);
        self
    }

    /// Whether the operand needs an IL_Dst_Mod token (anything but a plain full write).
    #[inline]
    pub fn has_modifier(&self) -> bool {
        self.mask != [DstComp::Write; 4] || self.sat || self.shift != ShiftScale::None
    }
}

/// The modifiers of a source operand, packed into one `u16` so that "no modifiers" is one
/// comparison and [`Src`] stays small.
///
/// Bit layout (ours; bits 4..=12 are the IL_Src_Mod token's bits 16..=24 shifted down by 12, so
/// the token writer moves them with one shift, amd-il.md §1.6):
///
/// | bits  | meaning                                                   |
/// |-------|-----------------------------------------------------------|
/// | 0..=3 | negate component x, y, z, w (`_neg(xw)`)                  |
/// | 4     | `_invert` (1 − s)                                         |
/// | 5     | `_bias` (s − 0.5)                                         |
/// | 6     | `_x2` (2·s); with bias written `_bx2`                     |
/// | 7     | `_sign`                                                   |
/// | 8     | `_abs`                                                    |
/// | 9..=11| `_divcomp(c)`: the [`DivComp`] value (0 = none)            |
/// | 12    | clamp to [0, 1] (Src_Mod bit 24; written `_sat`)          |
///
/// Bits 13..=15 are always clear, and the divcomp field only ever holds a [`DivComp`] value:
/// every constructor goes through the methods below.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SrcMods(u16);

impl SrcMods {
    /// No modifiers.
    pub const NONE: SrcMods = SrcMods(0);
    /// Negate all four components.
    pub const NEG_ALL: SrcMods = SrcMods(Self::NEG_MASK);
    /// `_invert` (1 − s).
    pub const INVERT: SrcMods = SrcMods(1 << 4);
    /// `_bias` (s − 0.5).
    pub const BIAS: SrcMods = SrcMods(1 << 5);
    /// `_x2` (2·s).
    pub const X2: SrcMods = SrcMods(1 << 6);
    /// `_sign`.
    pub const SIGN: SrcMods = SrcMods(1 << 7);
    /// `_abs`.
    pub const ABS: SrcMods = SrcMods(1 << 8);
    /// Clamp to [0, 1] (Src_Mod bit 24; written `_sat`).
    pub const CLAMP: SrcMods = SrcMods(1 << 12);

    /// The four negate bits.
    const NEG_MASK: u16 = 0xF;
    /// Where the divcomp field starts.
    const DIVCOMP_SHIFT: u32 = 9;
    /// The divcomp field (three bits: values 0..=4 of [`DivComp`]).
    const DIVCOMP_MASK: u16 = 0x7 << Self::DIVCOMP_SHIFT;
    /// The bits that map one-to-one onto IL_Src_Mod bits 16..=24.
    const TOKEN_HIGH_MASK: u16 = 0x1FF0;

    /// The raw bits (layout in the type's documentation).
    #[inline]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Whether no modifier is set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every flag of `flags` is set.
    #[inline]
    pub const fn contains(self, flags: SrcMods) -> bool {
        self.0 & flags.0 == flags.0
    }

    /// `self` with the flags of `other` added (negates and flags are or-ed; the divcomp field
    /// of `other` replaces ours when it is not [`DivComp::None`]).
    #[inline]
    pub const fn union(self, other: SrcMods) -> SrcMods {
        if other.0 & Self::DIVCOMP_MASK != 0 {
            SrcMods((self.0 & !Self::DIVCOMP_MASK) | other.0)
        } else {
            SrcMods(self.0 | other.0)
        }
    }

    /// `self` with the flags of `flags` set (`on`) or cleared; flags only, not divcomp.
    #[inline]
    pub const fn set(self, flags: SrcMods, on: bool) -> SrcMods {
        let flags = flags.0 & !Self::DIVCOMP_MASK;
        if on {
            SrcMods(self.0 | flags)
        } else {
            SrcMods(self.0 & !flags)
        }
    }

    /// The negate bits: bit `k` negates component `k` (x = 0 … w = 3).
    #[inline]
    pub const fn neg_mask(self) -> u8 {
        (self.0 & Self::NEG_MASK) as u8
    }

    /// Whether component `comp` (0..=3; other values are never negated) is negated.
    #[inline]
    pub const fn negates(self, comp: usize) -> bool {
        comp < 4 && self.0 >> comp & 1 != 0
    }

    /// `self` with the negate bits replaced by the low four bits of `mask`.
    #[inline]
    pub const fn with_neg_mask(self, mask: u8) -> SrcMods {
        SrcMods((self.0 & !Self::NEG_MASK) | (mask as u16 & Self::NEG_MASK))
    }

    /// `_invert`.
    #[inline]
    pub const fn invert(self) -> bool {
        self.contains(Self::INVERT)
    }

    /// `_bias`.
    #[inline]
    pub const fn bias(self) -> bool {
        self.contains(Self::BIAS)
    }

    /// `_x2`.
    #[inline]
    pub const fn x2(self) -> bool {
        self.contains(Self::X2)
    }

    /// `_sign`.
    #[inline]
    pub const fn sign(self) -> bool {
        self.contains(Self::SIGN)
    }

    /// `_abs`.
    #[inline]
    pub const fn abs(self) -> bool {
        self.contains(Self::ABS)
    }

    /// Clamp to [0, 1] (`_sat`).
    #[inline]
    pub const fn clamp(self) -> bool {
        self.contains(Self::CLAMP)
    }

    /// The `_divcomp` divisor.
    #[inline]
    pub const fn divcomp(self) -> DivComp {
        // The field only ever holds a DivComp value (see `with_divcomp`), so the last arm is
        // the Unknown value 4 and nothing else.
        match (self.0 & Self::DIVCOMP_MASK) >> Self::DIVCOMP_SHIFT {
            0 => DivComp::None,
            1 => DivComp::Y,
            2 => DivComp::Z,
            3 => DivComp::W,
            _ => DivComp::Unknown,
        }
    }

    /// `self` with the divisor `divcomp`.
    #[inline]
    pub const fn with_divcomp(self, divcomp: DivComp) -> SrcMods {
        // DivComp values are 0..=4, so they fit the three-bit field.
        SrcMods((self.0 & !Self::DIVCOMP_MASK) | (divcomp.value() as u16) << Self::DIVCOMP_SHIFT)
    }

    /// `self` without the negate bits: the modifiers that only make sense on float data
    /// (amd-il.md §1.6), divcomp included.
    #[inline]
    pub const fn without_neg(self) -> SrcMods {
        SrcMods(self.0 & !Self::NEG_MASK)
    }

    /// IL_Src_Mod bits 16..=24 (invert, bias, x2, sign, abs, divcomp, clamp; amd-il.md §1.6),
    /// in place; the swizzle and negate nibbles are the caller's.
    #[inline]
    pub const fn token_high_bits(self) -> u32 {
        ((self.0 & Self::TOKEN_HIGH_MASK) as u32) << 12
    }
}

impl fmt::Debug for SrcMods {
    /// The set modifiers by their IL spelling, e.g. `SrcMods(neg(xw) abs)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SrcMods(")?;
        let mut parts: Vec<String> = Vec::new();
        if self.neg_mask() != 0 {
            let comps: String = (0..4)
                .filter(|&k| self.negates(k))
                .map(|k| ['x', 'y', 'z', 'w'].get(k).copied().unwrap_or('?'))
                .collect();
            parts.push(format!("neg({comps})"));
        }
        for (flag, name) in [
            (Self::INVERT, "invert"),
            (Self::BIAS, "bias"),
            (Self::X2, "x2"),
            (Self::SIGN, "sign"),
            (Self::ABS, "abs"),
            (Self::CLAMP, "sat"),
        ] {
            if self.contains(flag) {
                parts.push(name.to_string());
            }
        }
        if self.divcomp() != DivComp::None {
            parts.push(format!("divcomp({})", self.divcomp().name()));
        }
        f.write_str(&parts.join(" "))?;
        f.write_str(")")
    }
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    /// The register.
    pub reg: Reg,
    /// Component selects (x, y, z, w positions).
    pub swizzle: [CompSel; 4],
    /// Negates, float modifiers, divcomp and clamp.
    pub mods: SrcMods,
}

/// The identity swizzle `.xyzw`.
pub const IDENTITY: [CompSel; 4] = [CompSel::X, CompSel::Y, CompSel::Z, CompSel::W];

impl Src {
    /// `reg` with identity swizzle and no modifiers.
    pub fn new(reg: Reg) -> Src {
        Src {
            reg,
            swizzle: IDENTITY,
            mods: SrcMods::NONE,
        }
    }

    /// `r{n}`.
    pub fn temp(n: u32) -> Src {
        Src::new(Reg::new(RegType::Temp, n))
    }

    /// `l{n}`.
    pub fn literal(n: u32) -> Src {
        Src::new(Reg::new(RegType::Literal, n))
    }

    /// `cb{n}[index]`.
    pub fn cb(n: u32, index: u32) -> Src {
        Src::new(Reg::new(RegType::ConstBuff, n).at(index))
    }

    /// A register of type `ty` with number 0 (`vAbsTid`, `vTidInGrpFlat`, …).
    pub fn special(ty: RegType) -> Src {
        Src::new(Reg::new(ty, 0))
    }

    /// Sets the swizzle from 1 (replicated) or 4 selectors; other text leaves it unchanged.
    pub fn swz(mut self, text: &str) -> Src {
        if let Some(s) = parse_swizzle(text) {
            self.swizzle = s;
        }
        self
    }

    /// Negates all four components.
    pub fn negate(mut self) -> Src {
        self.mods = self.mods.union(SrcMods::NEG_ALL);
        self
    }

    /// Sets `_abs`.
    pub fn abs(mut self) -> Src {
        self.mods = self.mods.union(SrcMods::ABS);
        self
    }

    /// Adds `mods` (see [`SrcMods::union`]).
    pub fn with_mods(mut self, mods: SrcMods) -> Src {
        self.mods = self.mods.union(mods);
        self
    }

    /// Whether `self` (nested operands in `nested`) and `other` (nested operands in
    /// `other_nested`) are the same operand, comparing nested operands by value.
    pub fn eq_in(&self, nested: &Nested, other: &Src, other_nested: &Nested) -> bool {
        self.swizzle == other.swizzle
            && self.mods == other.mods
            && self.reg.eq_in(nested, &other.reg, other_nested)
    }

    /// Whether the operand needs an IL_Src_Mod token.
    #[inline]
    pub fn has_modifier(&self) -> bool {
        self.swizzle != IDENTITY || !self.mods.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::{Dst, Index, Inst, Nested, NestedId, Program, Reg, Src, SrcMods};
    use crate::{DivComp, Opcode, RegType, ShaderKind};

    /// `mov r0, x1[r2.x+3]` with its index operand pushed into `program`'s table.
    fn indexed_mov(program: &mut Program, index_reg: u32) -> Inst {
        let index = program.nest(Src::temp(index_reg).swz("x"));
        Inst::new(Opcode::Mov)
            .dst(Dst::temp(0))
            .src(Src::new(Reg::new(RegType::ITemp, 1).rel(index, Some(3))))
    }

    /// Each modifier has its own bits: setting one leaves the others as they were, clearing
    /// it restores "no modifiers", and every divisor reads back as written.
    #[test]
    fn source_modifiers_are_independent() {
        let flags = [
            SrcMods::INVERT,
            SrcMods::BIAS,
            SrcMods::X2,
            SrcMods::SIGN,
            SrcMods::ABS,
            SrcMods::CLAMP,
        ];
        for &divcomp in DivComp::ALL {
            for neg_mask in 0..16u8 {
                let base = SrcMods::NONE.with_neg_mask(neg_mask).with_divcomp(divcomp);
                assert_eq!(base.is_empty(), neg_mask == 0 && divcomp == DivComp::None);
                for flag in flags {
                    let set = base.set(flag, true);
                    assert!(set.contains(flag) && !set.is_empty());
                    assert_eq!((set.divcomp(), set.neg_mask()), (divcomp, neg_mask));
                    let others = flags.iter().filter(|&&f| f != flag);
                    assert!(others.clone().all(|&f| !set.contains(f)));
                    assert_eq!(set.set(flag, false), base);
                }
                assert_eq!(base.with_divcomp(DivComp::None).neg_mask(), neg_mask);
                assert!(base.without_neg().neg_mask() == 0);
            }
        }
        let negated = Src::temp(0).negate();
        assert_eq!(
            (negated.mods.neg_mask(), negated.has_modifier()),
            (0xF, true)
        );
        assert!(!Src::temp(0).has_modifier());
    }

    /// The compact encodings hold: an absent second dimension and an absent index take no
    /// bytes of their own, so a source or destination operand fits in 32 bytes (checked
    /// against the layouts rustc gives the types; a regression here is memory traffic in every
    /// pass over a program).
    #[test]
    fn operands_stay_compact() {
        assert_eq!(size_of::<Option<NestedId>>(), size_of::<NestedId>());
        assert_eq!(size_of::<Option<Index>>(), size_of::<Index>());
        assert!(size_of::<Index>() <= 12);
        assert!(size_of::<Src>() <= 32 && size_of::<Dst>() <= 32);
    }

    /// The relative forms give back the offset they were built with, and the plain and offset
    /// variants are told apart.
    #[test]
    fn relative_index_offsets_round_trip() {
        let mut nested = Nested::new();
        let id = nested.push(Src::temp(1));
        for offset in [None, Some(0), Some(7), Some(u32::MAX)] {
            let rel = Index::rel(id, offset);
            assert_eq!(
                (rel.offset(), rel.nested_reg(), rel.is_rel()),
                (offset, Some(id), true)
            );
            let addr = Index::addr_reg(5, offset);
            assert_eq!((addr.offset(), addr.nested_reg()), (offset, None));
            assert!(addr.is_addr_reg() && !addr.is_rel());
        }
        assert_eq!(Index::Imm(3).offset(), None);
        assert_ne!(Index::rel(id, None), Index::rel(id, Some(0)));
    }

    /// Entries may only name entries already in the table: an id from elsewhere is refused, so
    /// nested chains always end.
    #[test]
    fn push_refuses_operands_that_name_unknown_entries() {
        let mut nested = Nested::new();
        let first = nested.push(Src::temp(2));
        let chained = nested.push(Src::new(Reg::new(RegType::ITemp, 0).rel(first, None)));
        assert_eq!((first.index(), chained.index()), (0, 1));
        let mut foreign = Nested::new();
        let refused = foreign.push(Src::new(Reg::new(RegType::ITemp, 0).rel(chained, None)));
        assert_eq!(refused, NestedId::DANGLING);
        assert!(foreign.is_empty());
        assert_eq!(foreign.get(refused), None);
        assert_eq!(
            nested.get(chained).map(|s| s.reg.index_reg()),
            Some(Some(first))
        );
    }

    /// Programs compare nested operands by value: the same instructions with the table filled in
    /// another order are equal, and a different index register is not.
    #[test]
    fn equality_follows_nested_operands() {
        let mut a = Program::new(ShaderKind::Compute);
        let mut b = Program::new(ShaderKind::Compute);
        let mov = indexed_mov(&mut a, 2);
        a.push(mov);
        // An unused entry first, so the same operand has another id in `b`.
        b.nest(Src::temp(7));
        let mov = indexed_mov(&mut b, 2);
        b.push(mov);
        assert_ne!(a.body, b.body, "the ids differ");
        assert_eq!(a, b);
        let mut c = Program::new(ShaderKind::Compute);
        let mov = indexed_mov(&mut c, 5);
        c.push(mov);
        assert_ne!(a, c);
    }
}
