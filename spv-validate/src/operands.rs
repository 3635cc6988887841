//! Operand decoding through the grammar (reader checklist, spirv.md §1.4): which
//! words of an instruction are ids, literals, strings and enumerants, including the
//! parameters that some enumerants and mask bits add, and the context-dependent literal
//! widths of `OpConstant`, `OpSpecConstant` and `OpSwitch`.
//!
//! The grammar tables come from `rspirv::grammar` (through spv-reader's re-export); the
//! enumerant parameters, which that table does not carry, are spelled out here from the
//! SPIR-V 1.6 grammar (§3.2.5 Execution Mode, §3.2.19 Decoration, §3.2.22 Loop Control,
//! §3.2.25 Memory Operands, §3.2.33 Image Operands).

use std::sync::OnceLock;

use spv_reader::rspirv::grammar::{self, Instruction, OperandKind, OperandQuantifier};
use spv_reader::spirv::{self, Op};
use spv_reader::{Inst, Module, Type};

#[cfg(test)]
mod derive;
mod opcodes;

pub(crate) use opcodes::*;

/// The tables the build script derives from the grammar (`build.rs`, running
/// `operands/derive.rs`), written as Rust literals: `static` data, so that a process builds
/// nothing at start-up, with indices rather than references, so that the loader relocates
/// nothing in them. `OPCODES` (the grammar's opcodes), `OPCODE_SLOTS` ([`Table::index`]),
/// `ENTRIES` and `LEANS` (per slot), `DECORATIONS_ANY_PARAMS`, `DECORATIONS_ONE_LITERAL` and
/// `OPS_WITH_IMAGE_OPERANDS` (the fields of `derive::Derived`).
mod written {
    use super::{Kind, Lean, OpEntry, Section, Special};
    use spv_reader::spirv::Op;

    include!(concat!(env!("OUT_DIR"), "/opcodes.rs"));
}

/// One decoded operand: its kind and the words it occupies in the instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Operand {
    /// What the operand is.
    pub(crate) kind: Kind,
    /// Index of its first word in the instruction (0 is the opcode word).
    pub(crate) word: u16,
    /// Number of words.
    pub(crate) len: u16,
}

/// An opcode's operands as [`read_instruction`] decodes them.
struct Compiled {
    /// The grammar's operands as steps.
    plan: Vec<(Step, Quantity)>,
    /// The same operands when they are fixed one-word operands and at most one repeated or
    /// optional operand at the end, the commonest shape.
    fixed: Option<Fixed>,
}

impl Compiled {
    fn of(inst: &Instruction<'_>) -> Compiled {
        let plan: Vec<(Step, Quantity)> = inst.operands.iter().map(planned_step).collect();
        Compiled {
            // OpSpecConstantOp's operands continue with the embedded opcode's.
            fixed: (inst.opcode != Op::SpecConstantOp)
                .then(|| Fixed::of(&plan))
                .flatten(),
            plan,
        }
    }
}

/// The grammar's opcodes: a dense index by opcode into the entries.
pub(crate) struct Table {
    /// Per opcode: its entry's position plus one, 0 when the grammar lacks it.
    index: &'static [u16],
    entries: &'static [OpEntry],
}

/// An operand layout of one-word operands at fixed positions (words `1..=words`), then
/// possibly a tail.
struct Fixed {
    /// Number of fixed operand words.
    words: usize,
    /// The referring `<id>` operands among them: (word index, kind).
    refs: Vec<(usize, Kind)>,
    /// The enumerant operands among them, whose values must be known: (word index, kind).
    enums: Vec<(usize, OperandKind)>,
    /// What may follow.
    tail: Tail,
}

/// The end of a [`Fixed`] layout.
#[derive(Clone, Copy)]
enum Tail {
    /// Nothing.
    None,
    /// One optional word of this kind.
    Optional(Kind),
    /// Any number of words of this kind.
    Repeated(Kind),
    /// Any number of `<id>` pairs.
    IdPairs,
    /// One literal string.
    String,
    /// Optional operands that the common case leaves out; when present, the plan decodes
    /// the instruction.
    Absent,
    /// A literal as wide as the type named by word 1 (OpConstant, OpSpecConstant).
    Number,
    /// A decoration and its parameters.
    Decoration,
}

impl Fixed {
    /// The layout of `plan`, if it has the fixed shape.
    fn of(plan: &[(Step, Quantity)]) -> Option<Fixed> {
        let mut fixed = Fixed {
            words: 0,
            refs: Vec::new(),
            enums: Vec::new(),
            tail: Tail::None,
        };
        let mut steps = plan.iter().peekable();
        while let Some(&&(step, Quantity::One)) = steps.peek() {
            let at = fixed.words + 1;
            match step {
                Step::Word(kind) if kind.is_ref() => fixed.refs.push((at, kind)),
                Step::Word(_) => {}
                Step::Enum(kind) => fixed.enums.push((at, kind)),
                // The rest is the tail.
                _ => break,
            }
            fixed.words += 1;
            steps.next();
        }
        let rest: Vec<(Step, Quantity)> = steps.copied().collect();
        fixed.tail = match rest.as_slice() {
            [] => Tail::None,
            [(Step::Word(kind), Quantity::ZeroOrOne)] => Tail::Optional(*kind),
            [(Step::Word(kind), Quantity::ZeroOrMore)] => Tail::Repeated(*kind),
            [(Step::IdPair, Quantity::ZeroOrMore)] => Tail::IdPairs,
            [(Step::String, Quantity::One)] => Tail::String,
            [(Step::Other(OperandKind::LiteralContextDependentNumber), Quantity::One)] => {
                Tail::Number
            }
            [(Step::Other(OperandKind::Decoration), Quantity::One)] => Tail::Decoration,
            _ if rest.iter().all(|&(_, q)| q != Quantity::One) => Tail::Absent,
            _ => return None,
        };
        Some(fixed)
    }

    /// Decodes `words` (as `decode_plan` would): appends the referring ids to `out`;
    /// whether the operands decode, `None` when optional operands are present that only the
    /// plan decodes.
    ///
    /// `checked` says that the reader already decoded this instruction's operands through
    /// the same grammar without a warning (see [`read_instruction`]): its words fit the
    /// layout and its enumerants are known, so only the positions of the ids are needed and
    /// the word-count and enumerant tests are skipped (they could not fail). Decorations
    /// are still looked at, for the kind of their id parameter.
    // Inlined into its one caller, `read_instruction`.
    #[inline(always)]
    fn decode(
        &self,
        module: &Module,
        words: &[u32],
        checked: bool,
        out: &mut Vec<crate::ctx::Ref>,
    ) -> Option<bool> {
        let n = words.len();
        let end = self.words + 1;
        // A decoration's parameter that refers to an id.
        let mut decoration_ref = None;
        let fits = match self.tail {
            // Optional operands that only the plan decodes, present or not.
            Tail::Absent if n > end => return None,
            // As `Decoder::enumerant` for a Decoration, then `Decoder::decoration_params`.
            Tail::Decoration => {
                let Some(d) = words.get(end).and_then(|&v| spirv::Decoration::from_u32(v)) else {
                    return Some(false);
                };
                let param = words.get(end + 1).copied();
                match decoration_params(d) {
                    DecorationParams::Literal => n == end + 2,
                    DecorationParams::Enum(kind) => {
                        n == end + 2 && param.is_some_and(|v| enumerant_known(kind, v))
                    }
                    DecorationParams::Scope | DecorationParams::Id if n == end + 2 => {
                        let kind = if matches!(decoration_params(d), DecorationParams::Scope) {
                            Kind::Scope
                        } else {
                            Kind::Id
                        };
                        decoration_ref = param.map(|v| (kind, v));
                        true
                    }
                    DecorationParams::Scope | DecorationParams::Id => false,
                    DecorationParams::Linkage | DecorationParams::String => return None,
                    DecorationParams::Rest => true,
                }
            }
            // The reader's R-5/R-6/R-12 (spirv.md §1.6) passed: the words fit.
            _ if checked => true,
            Tail::None => n == end,
            Tail::Optional(_) => n == end || n == end + 1,
            Tail::Repeated(_) => n >= end,
            Tail::IdPairs => n >= end && (n - end).is_multiple_of(2),
            // The string must end in the last word.
            Tail::String => words
                .get(end..)
                .is_some_and(|rest| match rest.split_last() {
                    Some((last, body)) => {
                        has_zero_byte(*last) && !body.iter().any(|&w| has_zero_byte(w))
                    }
                    None => false,
                }),
            Tail::Absent => n == end,
            // As `Decoder::literal_words_of_type`, then the literal must end the words.
            Tail::Number => {
                let ty = words.get(1).copied().unwrap_or(0);
                match module.ty(spv_reader::Id(ty)) {
                    Some(Type::Int { width, .. } | Type::Float { width }) if *width > 0 => {
                        n == end + width.div_ceil(32) as usize
                    }
                    _ => false,
                }
            }
        };
        // (Unknown enumerants are the reader's R-7 warnings: none for a checked instruction.)
        if !fits
            || (!checked
                && !self.enums.is_empty()
                && !self
                    .enums
                    .iter()
                    .all(|&(at, kind)| words.get(at).is_some_and(|&w| enumerant_known(kind, w))))
        {
            return Some(false);
        }
        // The words fit the layout, so every fixed word is there. (Plain pushes: the index
        // reserved room for the module's refs, and `extend` costs more per call than the
        // one or two refs most instructions have. Writing four padded slots at once and
        // truncating, with no loop, was measured: fewer mispredicted loop exits, but more
        // instructions than they cost.)
        for &(at, kind) in &self.refs {
            out.push(crate::ctx::Ref {
                kind,
                id: spv_reader::Id(words.get(at).copied().unwrap_or(0)),
            });
        }
        if let Some((kind, id)) = decoration_ref {
            out.push(crate::ctx::Ref {
                kind,
                id: spv_reader::Id(id),
            });
        }
        let kind = match self.tail {
            Tail::Optional(kind) | Tail::Repeated(kind) => kind,
            Tail::IdPairs => Kind::Id,
            Tail::None | Tail::String | Tail::Absent | Tail::Number | Tail::Decoration => {
                return Some(true);
            }
        };
        if kind.is_ref() {
            out.extend(
                words
                    .get(end..)
                    .unwrap_or(&[])
                    .iter()
                    .map(|&w| crate::ctx::Ref {
                        kind,
                        id: spv_reader::Id(w),
                    }),
            );
        }
        Some(true)
    }
}

/// Whether one of the four bytes of `w` is zero (a string's terminator, SPIR-V §2.2.1): the
/// borrow of `w - 0x01010101` reaches a byte's top bit, with that bit clear in `w`, exactly
/// when some byte is zero (a byte above a zero one may also be flagged, but never without one).
fn has_zero_byte(w: u32) -> bool {
    w.wrapping_sub(0x0101_0101) & !w & 0x8080_8080 != 0
}

/// The entry of `opcode`, if the grammar knows it.
fn entry(opcode: u16) -> Option<&'static OpEntry> {
    table().entry(opcode)
}

impl Table {
    /// The entry of `opcode`, if the grammar knows it.
    #[inline]
    fn entry(&'static self, opcode: u16) -> Option<&'static OpEntry> {
        let k = *self.index.get(usize::from(opcode))?;
        self.entries.get(usize::from(k).checked_sub(1)?)
    }
}

/// The per-opcode table. The index's loop takes it once per module ([`read_instruction`] is
/// given it).
pub(crate) fn table() -> &'static Table {
    static TABLE: Table = Table {
        index: &written::OPCODE_SLOTS,
        entries: &written::ENTRIES,
    };
    &TABLE
}

impl OpEntry {
    /// The grammar entry.
    fn grammar(&self) -> Option<&'static Instruction<'static>> {
        // A slice iterator's `nth` is one bounds test and an address.
        grammar::INSTRUCTION_TABLE
            .iter()
            .nth(usize::from(self.slot))
    }

    /// The operands compiled for [`read_instruction`], on first use (a module uses few of
    /// the grammar's opcodes).
    fn compiled(&self) -> Option<&'static Compiled> {
        static COMPILED: [OnceLock<Compiled>; written::OPCODES] =
            [const { OnceLock::new() }; written::OPCODES];
        let compiled = COMPILED.get(usize::from(self.slot))?;
        if let Some(done) = compiled.get() {
            return Some(done);
        }
        let grammar = self.grammar()?;
        Some(compiled.get_or_init(|| Compiled::of(grammar)))
    }
}

/// The [`OperandKinds`] bits of `opcode`'s grammar operands (0 when the grammar lacks it).
pub(crate) fn operand_kinds(opcode: u16) -> u8 {
    entry(opcode).map_or(0, |e| e.kinds)
}

/// A dense number for each opcode the grammar knows, below [`op_slot_count`]: the index
/// groups its instructions by it (`None` when the grammar lacks the opcode).
pub(crate) fn op_slot(opcode: u16) -> Option<usize> {
    let k = *table().index.get(usize::from(opcode))?;
    usize::from(k).checked_sub(1)
}

/// How many opcodes the grammar knows: one more than the largest [`op_slot`].
pub(crate) fn op_slot_count() -> usize {
    table().entries.len()
}

/// [`op_slot_count`] as a constant, for tables sized at compile time.
pub(crate) const OP_SLOTS: usize = written::OPCODES;

/// Every opcode the grammar knows, with its [`op_slot`]: one item per grammar entry (a few
/// hundred), not per opcode number up to the largest (several thousand).
pub(crate) fn op_slots() -> impl Iterator<Item = (Op, usize)> {
    table()
        .entries
        .iter()
        .filter_map(|e| Some((e.grammar()?.opcode, usize::from(e.slot))))
}

/// The opcodes whose grammar operands include Image Operands.
pub(crate) fn ops_with_image_operands() -> &'static [Op] {
    &written::OPS_WITH_IMAGE_OPERANDS
}

/// Whether instructions with opcode `op` have version or capability gates to check
/// ([`OpEntry::gated`]). (Every `Op` is in the grammar; one that were not would be checked.)
pub(crate) fn gated(op: Op) -> bool {
    u16::try_from(op as u32)
        .ok()
        .and_then(entry)
        .is_none_or(|e| e.gated)
}

/// The grammar entry of `opcode`, if the grammar knows it.
pub(crate) fn grammar_of(opcode: u16) -> Option<&'static Instruction<'static>> {
    entry(opcode)?.grammar()
}

/// Whether `op` declares a type (the grammar names every type declaration `OpType…`).
pub(crate) fn is_type_decl(op: Op) -> bool {
    u16::try_from(op as u32)
        .ok()
        .and_then(entry)
        .is_some_and(|e| e.type_decl)
}

impl Lean {
    /// Whether [`Lean::locate`] may read an instruction of `count` words that the reader
    /// decoded without a warning. (Fewer words than the fixed ones, which the reader would
    /// have refused, read as `Fixed::decode` reads them for such an instruction: missing
    /// ids as 0.)
    #[inline(always)]
    pub(crate) fn locates(&self, count: usize) -> bool {
        count <= self.max_words as usize
    }

    /// Appends the referring ids of `words` to `out`, as [`read_instruction`] would for an
    /// instruction the reader checked (when [`Lean::locates`] says so).
    #[inline(always)]
    pub(crate) fn locate(&self, words: &[u32], out: &mut Vec<crate::ctx::Ref>) {
        // One `extend` over the exact-size list: one capacity test per instruction instead
        // of one per id (measured: 0.1 M fewer estimated cycles per pass over the corpus
        // than pushes, whose loop the record's short lists made mispredict).
        let fixed = self.refs.get(..usize::from(self.count)).unwrap_or(&[]);
        out.extend(fixed.iter().map(|&(at, kind)| crate::ctx::Ref {
            kind,
            id: spv_reader::Id(words.get(usize::from(at)).copied().unwrap_or(0)),
        }));
        if self.flags & Self::TAIL_REFS != 0 {
            let kind = self.tail;
            out.extend(
                words
                    .get(usize::from(self.end)..)
                    .unwrap_or(&[])
                    .iter()
                    .map(|&w| crate::ctx::Ref {
                        kind,
                        id: spv_reader::Id(w),
                    }),
            );
        }
    }
}

impl Lean {
    /// Appends the referring ids of `words`, an instruction the reader decoded without a
    /// warning that [`Lean::locate`] does not take, to `out`, as [`read_instruction`] would,
    /// when its opcode has one of the [`Special`] shapes and its operands are as
    /// [`read_instruction`]'s decoder expects them: whether it did. `false`, with `out`
    /// unchanged, leaves the instruction to [`read_instruction`] (other shapes, strings
    /// and linkage among a decoration's parameters, counts that do not fit). `leans` is the
    /// table this record is from.
    #[inline(never)]
    pub(crate) fn locate_special(
        &self,
        leans: &LeanTable,
        words: &[u32],
        out: &mut Vec<crate::ctx::Ref>,
    ) -> bool {
        let end = usize::from(self.end);
        let n = words.len();
        let word = |at: usize| words.get(at).copied();
        let fixed = self.refs.get(..usize::from(self.count)).unwrap_or(&[]);
        // The common decorations first, by their bits in the table: their parameters hold
        // no id, so the fixed ids (the target) are all.
        if self.special == Special::Decoration
            && let Some(&d) = words.get(end)
            && d < 64
            && (leans.decorations_any_params >> d & 1 != 0
                || (leans.decorations_one_literal >> d & 1 != 0 && n == end + 2))
        {
            for &(at, kind) in fixed {
                out.push(crate::ctx::Ref {
                    kind,
                    id: spv_reader::Id(word(usize::from(at)).unwrap_or(0)),
                });
            }
            return true;
        }
        // A referring id among the parameters, or the start of a referring tail.
        let mut extra = None;
        let mut tail = n;
        match self.special {
            Special::No => return false,
            // As `Fixed::decode` judges a decoration's parameters.
            Special::Decoration => {
                let Some(d) = word(end).and_then(spirv::Decoration::from_u32) else {
                    return false;
                };
                let one_param = n == end + 2;
                let param = word(end + 1);
                extra = match decoration_params(d) {
                    DecorationParams::Literal if one_param => None,
                    DecorationParams::Enum(kind)
                        if one_param && param.is_some_and(|v| enumerant_known(kind, v)) =>
                    {
                        None
                    }
                    DecorationParams::Scope if one_param => param.map(|v| (Kind::Scope, v)),
                    DecorationParams::Id if one_param => param.map(|v| (Kind::Id, v)),
                    DecorationParams::Rest => None,
                    _ => return false,
                };
            }
            // As `Decoder::enumerant`: a known mask, one literal per parameterised bit, and
            // nothing after them.
            Special::LoopControl => {
                let Some(mask) = word(end) else {
                    return false;
                };
                let literals = (mask & !0x7).count_ones() as usize;
                if !enumerant_known(OperandKind::LoopControl, mask) || n != end + 1 + literals {
                    return false;
                }
            }
            // As `Decoder::enumerant`: a known mode and exactly its parameters, which are
            // ids under OpExecutionModeId.
            Special::ExecutionMode => {
                let Some(mode) = word(end) else {
                    return false;
                };
                let (literals, ids) = execution_mode_params(mode);
                let (literals, ids) = (usize::from(literals), usize::from(ids));
                if !enumerant_known(OperandKind::ExecutionMode, mode)
                    || n != end + 1 + literals + ids
                {
                    return false;
                }
                if self.op == Some(Op::ExecutionModeId) {
                    tail = end + 1 + literals;
                }
            }
            // The reader checked the string: it ends in the first word with a nul byte.
            Special::StringThenRefs(_) => {
                let rest = words.get(end..).unwrap_or(&[]);
                let Some(k) = rest.iter().position(|&w| has_zero_byte(w)) else {
                    return false;
                };
                tail = end + k + 1;
            }
        }
        out.extend(fixed.iter().map(|&(at, kind)| crate::ctx::Ref {
            kind,
            id: spv_reader::Id(word(usize::from(at)).unwrap_or(0)),
        }));
        if let Some((kind, id)) = extra {
            out.push(crate::ctx::Ref {
                kind,
                id: spv_reader::Id(id),
            });
        }
        let kind = match self.special {
            Special::StringThenRefs(kind) => kind,
            _ => Kind::Id,
        };
        out.extend(
            words
                .get(tail..)
                .unwrap_or(&[])
                .iter()
                .map(|&id| crate::ctx::Ref {
                    kind,
                    id: spv_reader::Id(id),
                }),
        );
        true
    }
}

/// The [`Lean`] records.
pub(crate) struct LeanTable {
    /// By opcode, for the opcodes below [`DENSE_OPCODES`] ([`Lean::UNKNOWN`] for those the
    /// grammar lacks): one bounds test and one address, no slot lookup.
    dense: [Lean; DENSE_OPCODES],
    /// [`Table::index`], for the larger opcodes.
    index: &'static [u16],
    /// By opcode slot.
    leans: &'static [Lean],
    /// A bit per decoration below 64 that the decoder knows and whose parameters are
    /// literals, any number of them (`DecorationParams::Rest`), for
    /// [`Lean::locate_special`].
    decorations_any_params: u64,
    /// ... and those whose one parameter is a literal (`DecorationParams::Literal`).
    decorations_one_literal: u64,
}

impl LeanTable {
    /// The record of `opcode`, [`Lean::UNKNOWN`] when the grammar lacks it.
    #[inline(always)]
    pub(crate) fn get(&'static self, opcode: u16) -> &'static Lean {
        match self.dense.get(usize::from(opcode)) {
            Some(lean) => lean,
            None => self.sparse(opcode),
        }
    }

    /// [`LeanTable::get`] of an opcode past the dense table.
    #[inline(never)]
    fn sparse(&'static self, opcode: u16) -> &'static Lean {
        let k = self.index.get(usize::from(opcode)).copied().unwrap_or(0);
        usize::from(k)
            .checked_sub(1)
            .and_then(|k| self.leans.get(k))
            .unwrap_or(&Lean::UNKNOWN)
    }
}

/// The [`Lean`] records.
pub(crate) fn lean_table() -> &'static LeanTable {
    static LEANS: LeanTable = LeanTable {
        dense: dense_leans(&written::OPCODE_SLOTS, &written::LEANS),
        index: &written::OPCODE_SLOTS,
        leans: &written::LEANS,
        decorations_any_params: written::DECORATIONS_ANY_PARAMS,
        decorations_one_literal: written::DECORATIONS_ONE_LITERAL,
    };
    &LEANS
}

/// [`LeanTable::dense`] of the tables `index` and `leans`, evaluated at compile time.
// Evaluated by the compiler only (an index out of range would fail the build), and the
// loop bounds the opcode; `get` is not a `const fn`.
#[allow(clippy::indexing_slicing)]
const fn dense_leans(index: &[u16], leans: &[Lean]) -> [Lean; DENSE_OPCODES] {
    let mut dense = [Lean::UNKNOWN; DENSE_OPCODES];
    let mut opcode = 0;
    while opcode < DENSE_OPCODES && opcode < index.len() {
        let k = index[opcode] as usize;
        if k != 0 {
            dense[opcode] = leans[k - 1];
        }
        opcode += 1;
    }
    dense
}

/// Reads instruction `index` of `m`, whose words are `words`: appends to `out` the `<id>`
/// operands that refer to other definitions (every `<id>` but the Result), in operand order,
/// when every operand decodes as [`decode`] would decode it (on failure `out` is left as it
/// was); whether they decode. The common shapes are decoded straight from the compiled
/// grammar; the others, and `OpSpecConstantOp`, go through [`decode`], whose operands
/// `scratch` receives.
///
/// `checked`: the reader decoded the instruction's operands without a warning (see
/// `spv_reader::Module::warnings`), so that the common shapes only locate the ids: the
/// reader's decode is not repeated. (The index's loop locates the commonest shapes itself,
/// [`Lean::locate`], and calls this for the rest.)
// Out of the index's loop: the few instructions that need it do not cost the others
// registers.
#[inline(never)]
pub(crate) fn read_instruction(
    table: &'static Table,
    m: &Module,
    index: u32,
    words: &[u32],
    checked: bool,
    out: &mut Vec<crate::ctx::Ref>,
    scratch: &mut Vec<Operand>,
) -> bool {
    let opcode = words.first().map_or(0, |w| (w & 0xFFFF) as u16);
    let Some(entry) = table.entry(opcode) else {
        return false;
    };
    let start = out.len();
    let Some(compiled) = entry.compiled() else {
        return false;
    };
    let fixed = compiled
        .fixed
        .as_ref()
        .and_then(|f| f.decode(m, words, checked, out));
    let decoded = if let Some(ok) = fixed {
        ok
    } else if opcode != Op::SpecConstantOp as u16 {
        out.truncate(start);
        decode_plan(&compiled.plan, m, opcode, words, out, scratch)
    } else {
        decode_spec_constant_op(m, index, words, out, scratch)
    };
    if !decoded {
        out.truncate(start);
    }
    decoded
}

/// [`read_instruction`] of an `OpSpecConstantOp`, whose embedded opcode's operands follow:
/// the full decoder knows them. (Out of the index's loop, as [`decode_plan`].)
#[inline(never)]
fn decode_spec_constant_op(
    m: &Module,
    index: u32,
    words: &[u32],
    out: &mut Vec<crate::ctx::Ref>,
    scratch: &mut Vec<Operand>,
) -> bool {
    let ok = m
        .inst(spv_reader::InstIndex(index))
        .is_some_and(|inst| decode(inst, scratch).is_ok());
    if ok {
        extend_refs(out, scratch, words);
    }
    ok
}

/// Appends the referring `<id>` operands among `operands` (decoded from `words`) to `out`.
fn extend_refs(out: &mut Vec<crate::ctx::Ref>, operands: &[Operand], words: &[u32]) {
    out.extend(operands.iter().filter(|o| o.kind.is_ref()).filter_map(|o| {
        words.get(usize::from(o.word)).map(|&w| crate::ctx::Ref {
            kind: o.kind,
            id: spv_reader::Id(w),
        })
    }));
}

/// Runs a compiled plan over `words` as `decode_operands` runs the grammar: whether every
/// operand decodes. Every step behaves as `Decoder::operand` does.
// Out of the index's loop, which inlines `read_instruction`: the few instructions that need
// the plan do not cost the others registers (measured: 0.5 M fewer instructions over the
// goal corpus list).
#[inline(never)]
fn decode_plan(
    plan: &[(Step, Quantity)],
    module: &Module,
    opcode: u16,
    words: &[u32],
    out: &mut Vec<crate::ctx::Ref>,
    scratch: &mut Vec<Operand>,
) -> bool {
    let n = words.len();
    let mut p = Planned {
        module,
        opcode,
        words,
        at: 1,
        out,
        scratch,
    };
    for &(step, quantity) in plan {
        match quantity {
            Quantity::One => {
                if !p.take(step) {
                    return false;
                }
            }
            Quantity::ZeroOrOne => {
                if p.at < n && !p.take(step) {
                    return false;
                }
            }
            Quantity::ZeroOrMore => {
                while p.at < n {
                    if !p.take(step) {
                        return false;
                    }
                }
            }
        }
    }
    p.at == n
}

/// The state of [`decode_plan`] over one instruction.
struct Planned<'a, 'm> {
    module: &'m Module,
    opcode: u16,
    words: &'m [u32],
    /// The next word.
    at: usize,
    out: &'a mut Vec<crate::ctx::Ref>,
    scratch: &'a mut Vec<Operand>,
}

impl Planned<'_, '_> {
    /// One operand at word `at`; whether it decodes.
    fn take(&mut self, step: Step) -> bool {
        let words = self.words;
        match step {
            Step::Word(kind) => {
                let Some(&w) = words.get(self.at) else {
                    return false;
                };
                if kind.is_ref() {
                    self.out.push(crate::ctx::Ref {
                        kind,
                        id: spv_reader::Id(w),
                    });
                }
                self.at += 1;
            }
            Step::IdPair => {
                for _ in 0..2 {
                    let Some(&w) = words.get(self.at) else {
                        return false;
                    };
                    self.out.push(crate::ctx::Ref {
                        kind: Kind::Id,
                        id: spv_reader::Id(w),
                    });
                    self.at += 1;
                }
            }
            Step::Enum(kind) => {
                let Some(&w) = words.get(self.at) else {
                    return false;
                };
                if !enumerant_known(kind, w) {
                    return false;
                }
                self.at += 1;
            }
            Step::String => {
                let rest = words.get(self.at..).unwrap_or(&[]);
                let Some(k) = rest.iter().position(|w| w.to_le_bytes().contains(&0)) else {
                    return false;
                };
                self.at += k + 1;
            }
            Step::Other(kind) => {
                self.scratch.clear();
                let mut d = Decoder {
                    words,
                    at: self.at,
                    out: self.scratch,
                    module: self.module,
                };
                if d.operand(kind, self.opcode).is_err() {
                    return false;
                }
                self.at = d.at;
                extend_refs(self.out, self.scratch, words);
            }
        }
        true
    }
}

/// A decoding problem: the word index where it happened and what went wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct DecodeError {
    /// What went wrong, phrased for a diagnostic.
    pub(crate) message: String,
    /// Whether the problem is an unknown enumerant rather than a word-count one.
    pub(crate) enumerant: bool,
}

/// Decoding state over one instruction.
struct Decoder<'a, 'm> {
    words: &'m [u32],
    at: usize,
    out: &'a mut Vec<Operand>,
    module: &'m Module,
}

impl Decoder<'_, '_> {
    fn remaining(&self) -> usize {
        self.words.len().saturating_sub(self.at)
    }

    fn push(&mut self, kind: Kind, len: usize) -> Result<(), DecodeError> {
        if self.remaining() < len {
            return Err(DecodeError {
                message: format!(
                    "expected {len} more word(s) for an operand at word {} but the word count \
                     is {}",
                    self.at,
                    self.words.len()
                ),
                enumerant: false,
            });
        }
        self.out.push(Operand {
            kind,
            word: self.at as u16,
            len: len as u16,
        });
        self.at += len;
        Ok(())
    }

    fn word(&self) -> Option<u32> {
        self.words.get(self.at).copied()
    }

    /// A literal string: words up to and including the one holding the nul.
    fn string(&mut self) -> Result<(), DecodeError> {
        let rest = self.words.get(self.at..).unwrap_or(&[]);
        let Some(n) = rest.iter().position(|w| w.to_le_bytes().contains(&0)) else {
            return Err(DecodeError {
                message: "a literal string has no terminating nul inside the instruction"
                    .to_owned(),
                enumerant: false,
            });
        };
        self.push(Kind::String, n + 1)
    }

    /// Number of words of a literal whose width is the width of type `ty`.
    fn literal_words_of_type(&self, ty: u32) -> Result<usize, DecodeError> {
        match self.module.ty(spv_reader::Id(ty)) {
            Some(Type::Int { width, .. } | Type::Float { width }) if *width > 0 => {
                Ok(width.div_ceil(32) as usize)
            }
            _ => Err(DecodeError {
                message: format!(
                    "the type %{ty} of a context-dependent literal is not an integer or \
                     floating-point scalar type"
                ),
                enumerant: false,
            }),
        }
    }

    fn operand(&mut self, kind: OperandKind, opcode: u16) -> Result<(), DecodeError> {
        match kind {
            OperandKind::IdResultType => self.push(Kind::ResultType, 1),
            OperandKind::IdResult => self.push(Kind::Result, 1),
            OperandKind::IdRef => self.push(Kind::Id, 1),
            OperandKind::IdScope => self.push(Kind::Scope, 1),
            OperandKind::IdMemorySemantics => self.push(Kind::Semantics, 1),
            OperandKind::LiteralInteger
            | OperandKind::LiteralFloat
            | OperandKind::LiteralExtInstInteger
            | OperandKind::LiteralSpecConstantOpInteger => self.push(Kind::Literal, 1),
            OperandKind::LiteralString => self.string(),
            OperandKind::LiteralContextDependentNumber => {
                // OpConstant / OpSpecConstant: the width of the Result Type (word 1).
                let ty = self.words.get(1).copied().unwrap_or(0);
                let n = self.literal_words_of_type(ty)?;
                self.push(Kind::Literal, n)
            }
            OperandKind::PairLiteralIntegerIdRef => {
                // OpSwitch: the literal is as wide as the Selector (word 1).
                let selector = self.words.get(1).copied().unwrap_or(0);
                let ty = self
                    .module
                    .result_type(spv_reader::Id(selector))
                    .map_or(0, |t| t.0);
                let n = self.literal_words_of_type(ty).unwrap_or(1);
                self.push(Kind::Literal, n)?;
                self.push(Kind::Id, 1)
            }
            OperandKind::PairIdRefLiteralInteger => {
                self.push(Kind::Id, 1)?;
                self.push(Kind::Literal, 1)
            }
            OperandKind::PairIdRefIdRef => {
                self.push(Kind::Id, 1)?;
                self.push(Kind::Id, 1)
            }
            _ => self.enumerant(kind, opcode),
        }
    }

    /// An enumerant or mask word, then the parameters it implies.
    fn enumerant(&mut self, kind: OperandKind, opcode: u16) -> Result<(), DecodeError> {
        let Some(value) = self.word() else {
            return self.push(Kind::Enum(kind), 1);
        };
        if !enumerant_known(kind, value) {
            return Err(DecodeError {
                message: format!("invalid {kind:?} operand: {value}"),
                enumerant: true,
            });
        }
        self.push(Kind::Enum(kind), 1)?;
        match kind {
            OperandKind::ImageOperands => {
                for (bit, ids) in IMAGE_OPERAND_PARAMS {
                    if value & bit != 0 {
                        for _ in 0..*ids {
                            self.push(Kind::Id, 1)?;
                        }
                    }
                }
                Ok(())
            }
            OperandKind::MemoryAccess => {
                if value & 0x2 != 0 {
                    self.push(Kind::Literal, 1)?;
                }
                if value & 0x8 != 0 {
                    self.push(Kind::Scope, 1)?;
                }
                if value & 0x10 != 0 {
                    self.push(Kind::Scope, 1)?;
                }
                if value & 0x1_0000 != 0 {
                    self.push(Kind::Id, 1)?;
                }
                if value & 0x2_0000 != 0 {
                    self.push(Kind::Id, 1)?;
                }
                Ok(())
            }
            OperandKind::LoopControl => {
                // DependencyLength (0x8) through PartialCount (0x100) and the vendor bits
                // from 0x10000 up each take one literal.
                let with_literal = value & !0x7;
                for _ in 0..with_literal.count_ones() {
                    self.push(Kind::Literal, 1)?;
                }
                Ok(())
            }
            OperandKind::ExecutionMode => {
                let (literals, ids) = execution_mode_params(value);
                let is_id_form = opcode == Op::ExecutionModeId as u16;
                for _ in 0..literals {
                    self.push(Kind::Literal, 1)?;
                }
                for _ in 0..ids {
                    self.push(if is_id_form { Kind::Id } else { Kind::Literal }, 1)?;
                }
                Ok(())
            }
            OperandKind::Decoration => self.decoration_params(value),
            _ => Ok(()),
        }
    }

    fn decoration_params(&mut self, value: u32) -> Result<(), DecodeError> {
        let Some(d) = spirv::Decoration::from_u32(value) else {
            return Ok(());
        };
        match decoration_params(d) {
            DecorationParams::Literal => self.push(Kind::Literal, 1),
            DecorationParams::Enum(kind) => self.enumerant(kind, 0),
            DecorationParams::Scope => self.push(Kind::Scope, 1),
            DecorationParams::Id => self.push(Kind::Id, 1),
            DecorationParams::Linkage => {
                self.string()?;
                self.enumerant(OperandKind::LinkageType, 0)
            }
            DecorationParams::String => self.string(),
            DecorationParams::Rest => {
                let n = self.remaining();
                if n > 0 {
                    self.push(Kind::Literal, n)?;
                }
                Ok(())
            }
        }
    }
}

/// (mask bit, number of id parameters) of Image Operands, in bit order (SPIR-V §3.2.33).
const IMAGE_OPERAND_PARAMS: &[(u32, u8)] = &[
    (0x1, 1),      // Bias
    (0x2, 1),      // Lod
    (0x4, 2),      // Grad
    (0x8, 1),      // ConstOffset
    (0x10, 1),     // Offset
    (0x20, 1),     // ConstOffsets
    (0x40, 1),     // Sample
    (0x80, 1),     // MinLod
    (0x100, 1),    // MakeTexelAvailable (scope)
    (0x200, 1),    // MakeTexelVisible (scope)
    (0x1_0000, 1), // Offsets
];

/// (literal parameters, id-or-literal parameters) of an execution mode (SPIR-V §3.2.5).
/// The second count holds the operands that are ids under `OpExecutionModeId`.
fn execution_mode_params(mode: u32) -> (u8, u8) {
    use spirv::ExecutionMode as E;
    let Some(m) = E::from_u32(mode) else {
        return (0, 0);
    };
    match m {
        E::Invocations
        | E::OutputVertices
        | E::VecTypeHint
        | E::SubgroupSize
        | E::SubgroupsPerWorkgroup
        | E::DenormPreserve
        | E::DenormFlushToZero
        | E::SignedZeroInfNanPreserve
        | E::RoundingModeRTE
        | E::RoundingModeRTZ
        | E::OutputPrimitivesEXT => (1, 0),
        E::LocalSize | E::LocalSizeHint => (3, 0),
        E::SubgroupsPerWorkgroupId => (0, 1),
        E::LocalSizeId | E::LocalSizeHintId => (0, 3),
        E::FPFastMathDefault => (0, 2),
        _ => (0, 0),
    }
}

/// Whether `value` is a defined enumerant (or a mask of defined bits) of `kind`.
pub(crate) fn enumerant_known(kind: OperandKind, value: u32) -> bool {
    use spirv as s;
    match kind {
        OperandKind::ImageOperands => s::ImageOperands::from_bits(value).is_some(),
        OperandKind::FPFastMathMode => s::FPFastMathMode::from_bits(value).is_some(),
        OperandKind::SelectionControl => s::SelectionControl::from_bits(value).is_some(),
        OperandKind::LoopControl => s::LoopControl::from_bits(value).is_some(),
        OperandKind::FunctionControl => s::FunctionControl::from_bits(value).is_some(),
        OperandKind::MemorySemantics => s::MemorySemantics::from_bits(value).is_some(),
        OperandKind::MemoryAccess => s::MemoryAccess::from_bits(value).is_some(),
        OperandKind::SourceLanguage => s::SourceLanguage::from_u32(value).is_some(),
        OperandKind::ExecutionModel => s::ExecutionModel::from_u32(value).is_some(),
        OperandKind::AddressingModel => s::AddressingModel::from_u32(value).is_some(),
        OperandKind::MemoryModel => s::MemoryModel::from_u32(value).is_some(),
        OperandKind::ExecutionMode => s::ExecutionMode::from_u32(value).is_some(),
        OperandKind::StorageClass => s::StorageClass::from_u32(value).is_some(),
        OperandKind::Dim => s::Dim::from_u32(value).is_some(),
        OperandKind::SamplerAddressingMode => s::SamplerAddressingMode::from_u32(value).is_some(),
        OperandKind::SamplerFilterMode => s::SamplerFilterMode::from_u32(value).is_some(),
        OperandKind::ImageFormat => s::ImageFormat::from_u32(value).is_some(),
        OperandKind::FPRoundingMode => s::FPRoundingMode::from_u32(value).is_some(),
        OperandKind::LinkageType => s::LinkageType::from_u32(value).is_some(),
        OperandKind::AccessQualifier => s::AccessQualifier::from_u32(value).is_some(),
        OperandKind::FunctionParameterAttribute => {
            s::FunctionParameterAttribute::from_u32(value).is_some()
        }
        OperandKind::Decoration => s::Decoration::from_u32(value).is_some(),
        OperandKind::BuiltIn => s::BuiltIn::from_u32(value).is_some(),
        OperandKind::Scope => s::Scope::from_u32(value).is_some(),
        OperandKind::GroupOperation => s::GroupOperation::from_u32(value).is_some(),
        OperandKind::Capability => s::Capability::from_u32(value).is_some(),
        _ => true,
    }
}

/// Decodes every operand of `inst` into `out` (cleared first). Unknown opcodes decode to
/// nothing and return an error.
pub(crate) fn decode(inst: Inst<'_>, out: &mut Vec<Operand>) -> Result<(), DecodeError> {
    out.clear();
    let opcode = inst.raw_opcode();
    let Some(g) = grammar_of(opcode) else {
        return Err(DecodeError {
            message: format!("unknown opcode {opcode}"),
            enumerant: true,
        });
    };
    let mut d = Decoder {
        words: inst.words(),
        at: 1,
        out,
        module: inst.module(),
    };
    decode_operands(&mut d, g, opcode, false)?;
    if opcode == Op::SpecConstantOp as u16 {
        // The embedded opcode's operands follow, without Result Type and Result (§3.3.7).
        let embedded = d.words.get(3).copied().unwrap_or(0);
        let Some(inner) = u16::try_from(embedded).ok().and_then(grammar_of) else {
            return Err(DecodeError {
                message: format!("OpSpecConstantOp with an unknown opcode {embedded}"),
                enumerant: true,
            });
        };
        decode_operands(&mut d, inner, embedded as u16, true)?;
    }
    if d.remaining() > 0 {
        return Err(DecodeError {
            message: format!(
                "the word count {} is larger than the {} words the operands take",
                d.words.len(),
                d.at
            ),
            enumerant: false,
        });
    }
    Ok(())
}

fn decode_operands(
    d: &mut Decoder<'_, '_>,
    g: &Instruction<'_>,
    opcode: u16,
    skip_results: bool,
) -> Result<(), DecodeError> {
    for logical in g.operands {
        if skip_results
            && matches!(
                logical.kind,
                OperandKind::IdResultType | OperandKind::IdResult
            )
        {
            continue;
        }
        match logical.quantifier {
            OperandQuantifier::One => d.operand(logical.kind, opcode)?,
            OperandQuantifier::ZeroOrOne => {
                if d.remaining() > 0 {
                    d.operand(logical.kind, opcode)?;
                }
            }
            OperandQuantifier::ZeroOrMore => {
                while d.remaining() > 0 {
                    d.operand(logical.kind, opcode)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every opcode's [`Lean`] record says what its compiled layout says: the facts of its
    /// grammar entry, and, where it locates ids, the `Fixed` layout's referring words and a
    /// tail that `Fixed::decode` reads the same way for a checked instruction (the index's
    /// loop takes the record's path instead of `read_instruction`'s for those).
    #[test]
    fn lean_records_agree_with_the_compiled_layouts() {
        let leans = lean_table();
        let mut located = 0;
        for entry in table().entries {
            let grammar = entry.grammar().expect("every entry has a grammar entry");
            let op = grammar.opcode;
            let lean = leans.get(op as u16);
            assert_eq!(lean.op, Some(op));
            assert_eq!(lean.slot, entry.slot);
            for (set, bit) in [
                (entry.has_type, Lean::HAS_TYPE),
                (entry.has_result, Lean::HAS_RESULT),
                (entry.type_decl, Lean::TYPE_DECL),
                (entry.annotation, Lean::ANNOTATION),
            ] {
                assert_eq!(lean.flags & bit != 0, set, "{op:?}");
            }
            let compiled = Compiled::of(grammar);
            let Some(fixed) = compiled.fixed else {
                assert_eq!(
                    (lean.flags & Lean::LOCATES, lean.max_words),
                    (0, 0),
                    "{op:?}"
                );
                continue;
            };
            if matches!(fixed.tail, Tail::Decoration) || fixed.refs.len() > LEAN_REFS {
                assert_eq!(
                    (lean.flags & Lean::LOCATES, lean.max_words),
                    (0, 0),
                    "{op:?}"
                );
                continue;
            }
            assert_ne!(lean.flags & Lean::LOCATES, 0, "{op:?}");
            located += 1;
            assert_eq!(usize::from(lean.end), fixed.words + 1, "{op:?}");
            let refs: Vec<(usize, Kind)> = lean.refs[..usize::from(lean.count)]
                .iter()
                .map(|&(at, kind)| (usize::from(at), kind))
                .collect();
            assert_eq!(refs, fixed.refs, "{op:?}");
            let tail_refs = match fixed.tail {
                Tail::Optional(kind) | Tail::Repeated(kind) => {
                    assert_eq!(lean.tail, kind, "{op:?}");
                    kind.is_ref()
                }
                Tail::IdPairs => {
                    assert_eq!(lean.tail, Kind::Id, "{op:?}");
                    true
                }
                _ => false,
            };
            assert_eq!(lean.flags & Lean::TAIL_REFS != 0, tail_refs, "{op:?}");
            let absent = matches!(fixed.tail, Tail::Absent);
            assert_eq!(lean.flags & Lean::LOCATES_IF_FIXED != 0, absent, "{op:?}");
            let max = if absent {
                fixed.words + 1
            } else {
                u32::MAX as usize
            };
            assert_eq!(lean.max_words as usize, max, "{op:?}");
        }
        // Most of the grammar has the fixed shape.
        assert!(located > 500, "{located} opcodes located");
    }

    /// The tables the build script wrote are the ones `derive.rs` derives from the grammar
    /// now, entry for entry (the literals and their reading back are the build script's; the
    /// derivation is the one it ran), and the dense records are the slots' records.
    #[test]
    fn written_tables_match_a_fresh_derivation() {
        let d = derive::derive();
        assert_eq!(written::OPCODES, d.entries.len());
        assert_eq!(written::OPCODE_SLOTS.as_slice(), d.index.as_slice());
        assert_eq!(written::ENTRIES.as_slice(), d.entries.as_slice());
        assert_eq!(written::LEANS.as_slice(), d.leans.as_slice());
        assert_eq!(
            written::OPS_WITH_IMAGE_OPERANDS.as_slice(),
            d.ops_with_image_operands.as_slice()
        );
        assert_eq!(written::DECORATIONS_ANY_PARAMS, d.decorations_any_params);
        assert_eq!(written::DECORATIONS_ONE_LITERAL, d.decorations_one_literal);
        let leans = lean_table();
        for opcode in 0..=u16::MAX {
            let k = d.index.get(usize::from(opcode)).copied().unwrap_or(0);
            let expected = match usize::from(k).checked_sub(1) {
                Some(slot) => d.leans[slot],
                None => Lean::UNKNOWN,
            };
            assert_eq!(*leans.get(opcode), expected, "opcode {opcode}");
        }
    }
}
