//! [`Module`], the read module, and [`Inst`], a cheap view of one of its instructions.
//!
//! The module owns its words once (converted to native order by [`crate::read`]) and keeps
//! every table as plain vectors: one start offset per instruction, one [`IdSlot`] per id
//! below the largest defined id, and [`Tables`], one vector of words holding the
//! capabilities and the sorted member names and decorations (one allocation where there
//! were three: a module is read in a few microseconds, so each allocation and free counts).
//! Lookups by id are O(1); lookups by (id, member) are binary searches.

use std::fmt;
use std::ops::Range;

use crate::Location;
use crate::grammar::{Forward, op_info};
use crate::spirv;
use crate::types::{
    Constant, Decoration, EntryPoint, ExecutionMode, Function, GlobalVariable, Type, Warning,
};

/// A SPIR-V `<id>`. Displays as spirv-dis `--raw-id` spells it: `%7`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Id(pub u32);

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// The index of an instruction in module order, 0-based.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct InstIndex(pub u32);

/// The module header (SPIR-V §2.3), words 1–3 (word 0 is the magic number, word 4 is 0).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Header {
    /// (major, minor) from the version word.
    pub version: (u8, u8),
    /// Generator magic number.
    pub generator: u32,
    /// Id bound: every id is in `1..bound`.
    pub bound: u32,
}

/// Marks an absent entry in the `u32` index fields of the tables.
pub(crate) const NONE: u32 = u32::MAX;

/// Marks, in [`IdSlot::def`], an id referenced before its definition where SPIR-V §2.4
/// allows it and not defined yet; the other bits hold the first referencing instruction
/// (instruction indices stay below `limits::MAX_INSTRUCTIONS` = 2^24). No read module keeps
/// such a mark: the reader fails when a referenced id is never defined.
pub(crate) const FORWARD: u32 = 1 << 31;

/// Marks, in [`IdSlot::value`], an index into `Module::constants` (without it, an index into
/// `Module::types`). Neither table reaches 2^31 entries: each entry takes an instruction,
/// and there are at most `limits::MAX_INSTRUCTIONS` = 2^24 of those.
pub(crate) const CONSTANT: u32 = 1 << 31;

/// What the module knows about one id, in 8 bytes: the reading loop looks up the slot of
/// every id operand, and a narrow table keeps more of them in cache. Names are kept apart
/// (`Module::names`), being only looked up by later stages.
#[derive(Clone, Copy)]
pub(crate) struct IdSlot {
    /// Index of the defining instruction, or, while the reader reads, [`FORWARD`] with the
    /// first instruction referencing the id before its definition.
    pub(crate) def: u32,
    /// The id's type (its index into `Module::types`) or constant ([`CONSTANT`] with its
    /// index into `Module::constants`), or [`NONE`]. An id is one or the other except in
    /// modules that define an `OpTypeForwardPointer` operand with a constant instruction:
    /// the second of the two is then in `Module::type_and_constant`.
    pub(crate) value: u32,
}

impl IdSlot {
    pub(crate) const EMPTY: IdSlot = IdSlot {
        def: NONE,
        value: NONE,
    };

    /// Whether an instruction defining the id has been read.
    #[inline]
    pub(crate) fn is_defined(&self) -> bool {
        self.def < FORWARD
    }

    /// Whether a type is declared for the id (by its definition or by
    /// `OpTypeForwardPointer`).
    #[inline]
    pub(crate) fn is_type(&self) -> bool {
        self.value < CONSTANT
    }

    /// Whether the id is a constant (or `OpUndef`).
    #[inline]
    fn is_constant(&self) -> bool {
        self.value != NONE && self.value >= CONSTANT
    }
}

/// A span of `Module::strings`.
#[derive(Clone, Copy)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// One decoration as stored: the target, the member (or [`NONE`]) and where its words are.
#[derive(Clone, Copy)]
pub(crate) struct DecorationRecord {
    pub(crate) target: u32,
    pub(crate) member: u32,
    pub(crate) inst: u32,
    pub(crate) kind: u32,
    /// Word range of the operands after the decoration enumerant, in `Module::words`.
    pub(crate) operands_start: u32,
    pub(crate) operands_end: u32,
}

impl DecorationRecord {
    fn from_words(w: &[u32; DECORATION_WORDS]) -> DecorationRecord {
        let &[target, member, inst, kind, operands_start, operands_end] = w;
        DecorationRecord {
            target,
            member,
            inst,
            kind,
            operands_start,
            operands_end,
        }
    }

    fn to_words(self) -> [u32; DECORATION_WORDS] {
        [
            self.target,
            self.member,
            self.inst,
            self.kind,
            self.operands_start,
            self.operands_end,
        ]
    }
}

/// Words of a member-name record: target, member, span start, span end.
pub(crate) const MEMBER_NAME_WORDS: usize = 4;
/// Words of a decoration record (the fields of [`DecorationRecord`] in order).
pub(crate) const DECORATION_WORDS: usize = 6;

/// The capabilities, the member names and the decorations, back to back in one vector of
/// words: `words[..caps_end]` are the capabilities, `words[caps_end..names_end]` the
/// `OpMemberName` records ([`MEMBER_NAME_WORDS`] each), the rest the decoration records
/// ([`DECORATION_WORDS`] each). The logical layout (SPIR-V §2.4, checked by R-9) puts each
/// kind in its own section, in this order, so records are appended at the end; a record
/// arriving out of that order would be inserted at its region's end instead.
#[derive(Default)]
pub(crate) struct Tables {
    words: Vec<u32>,
    caps_end: usize,
    names_end: usize,
}

impl Tables {
    /// Empty tables in `words` (emptied), with room for at least `capacity` words.
    pub(crate) fn in_buffer(mut words: Vec<u32>, capacity: usize) -> Tables {
        words.clear();
        words.reserve(capacity);
        Tables {
            words,
            caps_end: 0,
            names_end: 0,
        }
    }

    /// Inserts `record` before word `at`, which is not the end (see [`Tables`]).
    #[cold]
    fn insert(&mut self, at: usize, record: &[u32]) {
        self.words.splice(at..at, record.iter().copied());
    }

    #[inline]
    pub(crate) fn push_capability(&mut self, cap: u32) {
        if self.caps_end == self.words.len() {
            self.words.push(cap);
        } else {
            self.insert(self.caps_end, &[cap]);
        }
        self.caps_end += 1;
        self.names_end += 1;
    }

    /// Appends the record of an `OpMemberName`.
    #[inline]
    pub(crate) fn push_member_name(&mut self, target: u32, member: u32, span: Span) {
        let record = [target, member, span.start, span.end];
        if self.names_end == self.words.len() {
            self.words.extend_from_slice(&record);
        } else {
            self.insert(self.names_end, &record);
        }
        self.names_end += MEMBER_NAME_WORDS;
    }

    #[inline]
    pub(crate) fn push_decoration(&mut self, record: DecorationRecord) {
        self.words.extend_from_slice(&record.to_words());
    }

    pub(crate) fn capabilities(&self) -> &[u32] {
        self.words.get(..self.caps_end).unwrap_or(&[])
    }

    /// Member-name records: `[target, member, span start, span end]`.
    pub(crate) fn member_names(&self) -> &[[u32; MEMBER_NAME_WORDS]] {
        let names = self.words.get(self.caps_end..self.names_end).unwrap_or(&[]);
        names.as_chunks().0
    }

    /// Sorts the member-name records by (target, member) and keeps the first of each
    /// member (the earliest span, strings being kept in module order).
    pub(crate) fn sort_member_names(&mut self) {
        let names = self.words.get_mut(self.caps_end..self.names_end);
        let names = names
            .unwrap_or(&mut [])
            .as_chunks_mut::<MEMBER_NAME_WORDS>()
            .0;
        // Compilers often emit them in this order already; checking is cheaper than sorting.
        let key = |&[target, member, start, _]: &[u32; MEMBER_NAME_WORDS]| (target, member, start);
        if !names.is_sorted_by_key(key) {
            names.sort_unstable_by_key(key);
        }
        let mut kept = 0;
        for i in 0..names.len() {
            let Some(&record) = names.get(i) else {
                break;
            };
            let duplicate = kept > 0
                && names
                    .get(kept - 1)
                    .is_some_and(|&[t, m, ..]| (t, m) == (record[0], record[1]));
            if !duplicate {
                if let Some(slot) = names.get_mut(kept) {
                    *slot = record;
                }
                kept += 1;
            }
        }
        let end = self.caps_end + kept * MEMBER_NAME_WORDS;
        if end < self.names_end {
            self.words.drain(end..self.names_end);
            self.names_end = end;
        }
    }

    pub(crate) fn decorations(&self) -> &[[u32; DECORATION_WORDS]] {
        let decorations = self.words.get(self.names_end..).unwrap_or(&[]);
        decorations.as_chunks().0
    }

    pub(crate) fn decorations_mut(&mut self) -> &mut [[u32; DECORATION_WORDS]] {
        let decorations = self.words.get_mut(self.names_end..).unwrap_or(&mut []);
        decorations.as_chunks_mut().0
    }

    /// The decoration records, as records.
    pub(crate) fn decoration_records(&self) -> impl Iterator<Item = DecorationRecord> + '_ {
        self.decorations().iter().map(DecorationRecord::from_words)
    }
}

/// An `OpExtInstImport`: the set's name and what OpExtInst's shortest path needs to know
/// about its instructions.
pub(crate) struct ExtImport {
    /// The import's result id.
    pub(crate) id: u32,
    /// The set's name, in `Module::strings`.
    pub(crate) span: Span,
    /// Per instruction number of the set's grammar: how many operands it takes when they are
    /// ids alone (`None` entries: other operands, or numbers the grammar lacks). `None` for
    /// sets without a grammar here, whose operands are all ids, any number of them (SPIR-V
    /// 1.6 §2.2.1 "NonSemantic").
    pub(crate) ids_only: Option<&'static [Option<crate::grammar::IdOperands>]>,
    /// Whether its instructions may reference later ids.
    pub(crate) forward: Forward,
    /// The name as a `'static` string when it is a set the grammar knows (as it mostly is:
    /// `GLSL.std.450`, `OpenCL.std`), so that later stages asking per `OpExtInst` which set
    /// it uses do not check the stored bytes to be UTF-8 again each time.
    pub(crate) known_name: Option<&'static str>,
}

impl ExtImport {
    /// Whether instruction `number` of this set, with `count` operands after the instruction
    /// number, takes ids alone as its set's grammar gives them (always, for a set without a
    /// grammar here): what OpExtInst's shortest paths need to read it without the grammar walk.
    pub(crate) fn takes_ids_only(&self, number: u32, count: usize) -> bool {
        self.ids_only.is_none_or(|table| {
            table
                .get(number as usize)
                .copied()
                .flatten()
                .is_some_and(|operands| operands.allows(count))
        })
    }
}

/// A SPIR-V module read by [`crate::read`]: its words, the location of every instruction
/// and dense tables indexed by id.
///
/// Dropping a module keeps its emptied buffers (about 1 MiB at most) for the next read on
/// the same thread, which then allocates next to nothing.
pub struct Module {
    pub(crate) header: Header,
    /// Every word of the module including the header, in native order.
    pub(crate) words: Vec<u32>,
    /// Word offset of each instruction in `words`, in module order.
    pub(crate) starts: Vec<u32>,
    /// Indexed by id; longer than the largest id defined or referenced.
    pub(crate) ids: Vec<IdSlot>,
    /// Indexed by id: where the id's first `OpName` starts in `strings` (each such name is
    /// followed there by a nul byte, which no literal string contains, SPIR-V §2.2.1), or
    /// [`NONE`]. Empty when nothing is named, else longer than the largest id named.
    pub(crate) names: Vec<u32>,
    /// `(id, value)` for the ids that are both a type and a constant, whose slot holds only
    /// one of the two (see [`IdSlot::value`]): the other. Empty in valid modules.
    pub(crate) type_and_constant: Vec<(u32, u32)>,
    /// Every kept string (names, extension names, entry-point names) back to back, as
    /// bytes the reader checked to be UTF-8.
    pub(crate) strings: Vec<u8>,
    /// The capabilities; the member names sorted by (target, member), the first
    /// OpMemberName of each member kept; the decorations sorted by (target, member), then
    /// module order.
    pub(crate) tables: Tables,
    pub(crate) types: Vec<Type>,
    pub(crate) constants: Vec<Constant>,
    pub(crate) extensions: Vec<Span>,
    pub(crate) ext_inst_imports: Vec<ExtImport>,
    pub(crate) memory_model: Option<(u32, u32)>,
    pub(crate) entry_points: Vec<EntryPoint>,
    pub(crate) execution_modes: Vec<ExecutionMode>,
    pub(crate) global_variables: Vec<GlobalVariable>,
    pub(crate) functions: Vec<Function>,
    pub(crate) warnings: Vec<Warning>,
    /// Emptied lists left by the previous module on this thread and not used by this one,
    /// kept for the next (see `crate::spare`).
    pub(crate) id_lists: Vec<Vec<Id>>,
    pub(crate) block_lists: Vec<Vec<crate::types::Block>>,
    pub(crate) name_strings: Vec<String>,
}

/// A view of one instruction of a [`Module`]: two words wide, `Copy`.
#[derive(Clone, Copy)]
pub struct Inst<'m> {
    module: &'m Module,
    index: u32,
    /// All words of the instruction.
    words: &'m [u32],
}

impl fmt::Debug for Inst<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inst")
            .field("index", &self.index)
            .field("words", &self.words)
            .finish()
    }
}

/// The instruction in `spirv-dis --raw-id` syntax: `%12 = OpTypeInt 32 1`.
impl fmt::Display for Inst<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::dis::disassemble_inst(self.module, *self))
    }
}

impl<'m> Inst<'m> {
    /// The instruction's position in module order.
    #[inline]
    pub fn index(&self) -> InstIndex {
        InstIndex(self.index)
    }

    /// Index and byte offset of the instruction.
    #[inline]
    pub fn location(&self) -> Location {
        let start = self
            .module
            .starts
            .get(self.index as usize)
            .copied()
            .unwrap_or(0);
        Location {
            index: self.index,
            byte_offset: start.saturating_mul(4),
        }
    }

    /// The opcode as written (low 16 bits of the first word).
    #[inline]
    pub fn raw_opcode(&self) -> u16 {
        // The reader only builds views of instructions with at least one word.
        self.words.first().map_or(0, |w| (w & 0xFFFF) as u16)
    }

    /// The opcode as an enum, `None` when this crate's grammar does not know it.
    #[inline]
    pub fn opcode(&self) -> Option<spirv::Op> {
        // From the opcode table rather than `spirv::Op::from_u32`, whose match over every
        // opcode later stages paid once per instruction they looked at.
        op_info(self.raw_opcode()).op
    }

    /// The Result Type id, for opcodes that have one.
    #[inline]
    pub fn result_type(&self) -> Option<Id> {
        if op_info(self.raw_opcode()).has_type {
            self.words.get(1).map(|&w| Id(w))
        } else {
            None
        }
    }

    /// The Result id, for opcodes that have one.
    #[inline]
    pub fn result_id(&self) -> Option<Id> {
        let info = op_info(self.raw_opcode());
        if !info.has_result {
            return None;
        }
        self.words
            .get(if info.has_type { 2 } else { 1 })
            .map(|&w| Id(w))
    }

    /// The words after the opcode word, Result Type and Result id.
    #[inline]
    pub fn operands(&self) -> &'m [u32] {
        let info = op_info(self.raw_opcode());
        let skip = 1 + usize::from(info.has_type) + usize::from(info.has_result);
        self.words.get(skip..).unwrap_or(&[])
    }

    /// The Result Type, Result id and operands at once: what [`Inst::result_type`],
    /// [`Inst::result_id`] and [`Inst::operands`] give, for one opcode-table lookup instead of
    /// three (SPIR-V §2.3: Result Type, when the opcode has one, is word 1 and Result id follows
    /// it). Meant for callers that need all three parts of an instruction.
    #[inline]
    pub fn split(&self) -> (Option<Id>, Option<Id>, &'m [u32]) {
        let info = op_info(self.raw_opcode());
        let mut rest = self.words.get(1..).unwrap_or(&[]);
        let mut take = |present: bool| -> Option<Id> {
            if !present {
                return None;
            }
            let (&first, tail) = rest.split_first()?;
            rest = tail;
            Some(Id(first))
        };
        let result_type = take(info.has_type);
        let result_id = take(info.has_result);
        (result_type, result_id, rest)
    }

    /// All words of the instruction, the opcode word included.
    #[inline]
    pub fn words(&self) -> &'m [u32] {
        self.words
    }

    /// The module the instruction belongs to.
    pub fn module(&self) -> &'m Module {
        self.module
    }
}

impl Module {
    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every word of the module, header included, in native byte order.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// Number of instructions.
    pub fn instruction_count(&self) -> usize {
        self.starts.len()
    }

    /// Every instruction, in module order.
    pub fn instructions(&self) -> impl ExactSizeIterator<Item = Inst<'_>> + '_ {
        (0..self.starts.len() as u32).map(move |i| self.view(i))
    }

    /// The instructions with indices in `range` (clamped to the module).
    pub fn instructions_in(
        &self,
        range: Range<u32>,
    ) -> impl ExactSizeIterator<Item = Inst<'_>> + '_ {
        let end = range.end.min(self.starts.len() as u32);
        (range.start.min(end)..end).map(move |i| self.view(i))
    }

    /// The instruction at `i`, if there is one.
    #[inline]
    pub fn inst(&self, i: InstIndex) -> Option<Inst<'_>> {
        ((i.0 as usize) < self.starts.len()).then(|| self.view(i.0))
    }

    /// Builds a view of instruction `index`, which the caller has checked is in range.
    #[inline]
    fn view(&self, index: u32) -> Inst<'_> {
        let start = self.starts.get(index as usize).map_or(0, |&s| s as usize);
        // The reader checked that every instruction's word count is ≥ 1 and fits in `words`.
        let count = self.words.get(start).map_or(0, |w| (w >> 16) as usize);
        let words = self.words.get(start..start + count).unwrap_or(&[]);
        Inst {
            module: self,
            index,
            words,
        }
    }

    #[inline]
    fn slot(&self, id: Id) -> Option<&IdSlot> {
        self.ids.get(id.0 as usize)
    }

    /// The instruction that defines `id` (has it as Result id).
    #[inline]
    pub fn def(&self, id: Id) -> Option<Inst<'_>> {
        let slot = self.slot(id)?;
        slot.is_defined().then(|| self.view(slot.def))
    }

    /// The Result Type of the instruction defining `id`.
    pub fn result_type(&self, id: Id) -> Option<Id> {
        self.def(id)?.result_type()
    }

    fn span(&self, span: Span) -> &str {
        let bytes = self
            .strings
            .get(span.start as usize..span.end as usize)
            .unwrap_or(&[]);
        // The reader stored only strings it checked to be UTF-8, so this never yields "".
        std::str::from_utf8(bytes).unwrap_or("")
    }

    /// The name given to `id` by its first `OpName`.
    pub fn name(&self, id: Id) -> Option<&str> {
        let name = *self.names.get(id.0 as usize)?;
        let rest = self.strings.get(name as usize..)?;
        let len = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let bytes = rest.get(..len).unwrap_or(&[]);
        // The reader stored only strings it checked to be UTF-8, so this never yields "".
        Some(std::str::from_utf8(bytes).unwrap_or(""))
    }

    /// The name given to member `member` of struct `id` by its first `OpMemberName`.
    pub fn member_name(&self, id: Id, member: u32) -> Option<&str> {
        let key = (id.0, member);
        let names = self.tables.member_names();
        let i = names
            .binary_search_by(|&[t, m, _, _]| (t, m).cmp(&key))
            .ok()?;
        let &[_, _, start, end] = names.get(i)?;
        Some(self.span(Span { start, end }))
    }

    fn decorations_of(&self, target: u32, member: u32) -> impl Iterator<Item = Decoration<'_>> {
        // One search for the first record, on a single 64-bit key per record; a target has
        // few decorations, so the run is then walked rather than searched for its end.
        let key = |&[t, m, ..]: &[u32; DECORATION_WORDS]| u64::from(t) << 32 | u64::from(m);
        let wanted = u64::from(target) << 32 | u64::from(member);
        let records = self.tables.decorations();
        let start = records.partition_point(|r| key(r) < wanted);
        records
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(move |r| key(r) == wanted)
            .map(DecorationRecord::from_words)
            .map(|d| Decoration {
                inst: crate::InstIndex(d.inst),
                kind: d.kind,
                operands: self
                    .words
                    .get(d.operands_start as usize..d.operands_end as usize)
                    .unwrap_or(&[]),
            })
    }

    /// Decorations of `id` in module order, including those applied through decoration
    /// groups (their `inst` is the group's decorating instruction).
    pub fn decorations(&self, id: Id) -> impl Iterator<Item = Decoration<'_>> {
        self.decorations_of(id.0, NONE)
    }

    /// Decorations of member `member` of struct `id`, in module order, groups included.
    pub fn member_decorations(&self, id: Id, member: u32) -> impl Iterator<Item = Decoration<'_>> {
        self.decorations_of(id.0, member)
    }

    /// The first decoration of `id` of the given kind.
    pub fn decoration(&self, id: Id, kind: spirv::Decoration) -> Option<Decoration<'_>> {
        self.decorations(id).find(|d| d.kind == kind as u32)
    }

    /// The type declared by `id`.
    // `#[inline]`: later stages look types up constantly; the rare second value is out of line.
    #[inline]
    pub fn ty(&self, id: Id) -> Option<&Type> {
        let slot = self.ids.get(id.0 as usize)?;
        if slot.is_type() {
            return self.types.get(slot.value as usize);
        }
        if self.type_and_constant.is_empty() {
            return None;
        }
        let index = self.second_value(id, false)?;
        self.types.get(index as usize)
    }

    /// The constant (or `OpUndef`) defined by `id`.
    #[inline]
    pub fn constant(&self, id: Id) -> Option<&Constant> {
        let slot = self.ids.get(id.0 as usize)?;
        if slot.is_constant() {
            return self.constants.get((slot.value & !CONSTANT) as usize);
        }
        if self.type_and_constant.is_empty() {
            return None;
        }
        let value = self.second_value(id, true)?;
        self.constants.get((value & !CONSTANT) as usize)
    }

    /// The value of `id` in `type_and_constant`: its constant if `constant`, else its type.
    #[cold]
    fn second_value(&self, id: Id, constant: bool) -> Option<u32> {
        self.type_and_constant
            .iter()
            .find(|&&(i, value)| i == id.0 && (value >= CONSTANT) == constant)
            .map(|&(_, value)| value)
    }

    /// Raw values of the `OpCapability` instructions, in module order.
    pub fn capabilities(&self) -> &[u32] {
        self.tables.capabilities()
    }

    /// Whether `OpCapability cap` is declared.
    pub fn has_capability(&self, cap: spirv::Capability) -> bool {
        self.capabilities().contains(&(cap as u32))
    }

    /// Names of the `OpExtension` instructions, in module order.
    pub fn extensions(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.extensions.iter().map(|&s| self.span(s))
    }

    /// `(result id, set name)` of every `OpExtInstImport`, in module order.
    pub fn ext_inst_imports(&self) -> impl ExactSizeIterator<Item = (Id, &str)> + '_ {
        self.ext_inst_imports
            .iter()
            .map(|import| (Id(import.id), self.span(import.span)))
    }

    /// The name of the extended instruction set imported as `id`.
    pub fn ext_inst_set(&self, id: Id) -> Option<&str> {
        self.ext_inst_imports
            .iter()
            .find(|import| import.id == id.0)
            .map(|import| import.known_name.unwrap_or_else(|| self.span(import.span)))
    }

    /// `(addressing model, memory model)` of `OpMemoryModel`, raw.
    pub fn memory_model(&self) -> Option<(u32, u32)> {
        self.memory_model
    }

    /// The `OpEntryPoint`s, in module order.
    pub fn entry_points(&self) -> &[EntryPoint] {
        &self.entry_points
    }

    /// The `OpExecutionMode`/`OpExecutionModeId`s, in module order.
    pub fn execution_modes(&self) -> &[ExecutionMode] {
        &self.execution_modes
    }

    /// Module-scope `OpVariable`/`OpUntypedVariableKHR`s, in module order.
    pub fn global_variables(&self) -> &[GlobalVariable] {
        &self.global_variables
    }

    /// Functions (declarations and definitions), in module order.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// The function whose `OpFunction` has result id `id`.
    pub fn function(&self, id: Id) -> Option<&Function> {
        self.functions.get(self.function_index(id)?)
    }

    /// The position in [`Module::functions`] of the function whose `OpFunction` has result id
    /// `id`.
    pub fn function_index(&self, id: Id) -> Option<usize> {
        // The functions are in module order, so their `OpFunction` indices ascend, and a result
        // id has one definition: the id's definition finds its function by binary search.
        // A scan would make a module with a call to each of its functions quadratic to lower.
        let slot = self.slot(id)?;
        if !slot.is_defined() {
            return None;
        }
        let at = self
            .functions
            .binary_search_by_key(&slot.def, |f| f.def.0)
            .ok()?;
        self.functions
            .get(at)
            .is_some_and(|f| f.id == id)
            .then_some(at)
    }

    /// What the reader tolerated, in module order (by instruction index).
    ///
    /// An instruction without a warning has a known opcode, and its operands, decoded
    /// through rspirv's grammar, consume exactly its words with well-formed strings, known
    /// enumerants (mask bits included) and literals as wide as their types (spirv.md §1.6
    /// R-5 … ): a consumer may locate its operands from the grammar without checking
    /// them again (spv-validate's index does).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

/// Hands the emptied tables to the next read on this thread (see `crate::spare`).
impl Drop for Module {
    fn drop(&mut self) {
        use std::mem::take;
        if crate::spare::holds() {
            // The thread keeps a set already: the fields are simply dropped.
            return;
        }
        crate::spare::keep(crate::spare::Spare {
            words: take(&mut self.words),
            starts: take(&mut self.starts),
            ids: take(&mut self.ids),
            names: take(&mut self.names),
            strings: take(&mut self.strings),
            tables: take(&mut self.tables.words),
            types: take(&mut self.types),
            constants: take(&mut self.constants),
            extensions: take(&mut self.extensions),
            ext_inst_imports: take(&mut self.ext_inst_imports),
            entry_points: take(&mut self.entry_points),
            execution_modes: take(&mut self.execution_modes),
            global_variables: take(&mut self.global_variables),
            functions: take(&mut self.functions),
            id_lists: take(&mut self.id_lists),
            block_lists: take(&mut self.block_lists),
            name_strings: take(&mut self.name_strings),
        });
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("header", &self.header)
            .field("instructions", &self.starts.len())
            .field("functions", &self.functions.len())
            .field("warnings", &self.warnings.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::{DecorationRecord, NONE, Span, Tables};

    fn decoration(target: u32, inst: u32) -> DecorationRecord {
        DecorationRecord {
            target,
            member: NONE,
            inst,
            kind: 2,
            operands_start: 10,
            operands_end: 11,
        }
    }

    /// The regions stay apart whatever the order of the pushes: a capability or member name
    /// arriving after later regions filled is inserted at its region's end. (The reader's
    /// layout rule R-9 makes the in-order case the only one it produces; the expected values
    /// are the pushed records, regrouped by hand.)
    #[test]
    fn records_pushed_out_of_order_land_in_their_region() {
        let mut tables = Tables::in_buffer(Vec::new(), 0);
        tables.push_decoration(decoration(7, 3));
        tables.push_member_name(5, 1, Span { start: 0, end: 4 });
        tables.push_capability(1);
        tables.push_decoration(decoration(8, 4));
        tables.push_member_name(5, 0, Span { start: 4, end: 6 });
        tables.push_capability(11);
        assert_eq!(tables.capabilities(), &[1, 11]);
        assert_eq!(tables.member_names(), &[[5, 1, 0, 4], [5, 0, 4, 6]]);
        tables.sort_member_names();
        assert_eq!(tables.member_names(), &[[5, 0, 4, 6], [5, 1, 0, 4]]);
        let targets: Vec<(u32, u32)> = tables
            .decoration_records()
            .map(|d| (d.target, d.inst))
            .collect();
        assert_eq!(targets, [(7, 3), (8, 4)]);
    }

    /// Sorting keeps the first `OpMemberName` of a member (the earliest string) and drops
    /// the words of the others without touching the decorations that follow.
    #[test]
    fn duplicate_member_names_keep_the_first() {
        let mut tables = Tables::in_buffer(Vec::new(), 0);
        tables.push_member_name(9, 0, Span { start: 8, end: 9 });
        tables.push_member_name(9, 0, Span { start: 2, end: 3 });
        tables.push_member_name(4, 2, Span { start: 5, end: 6 });
        tables.push_decoration(decoration(4, 12));
        tables.sort_member_names();
        assert_eq!(tables.member_names(), &[[4, 2, 5, 6], [9, 0, 2, 3]]);
        let targets: Vec<(u32, u32)> = tables
            .decoration_records()
            .map(|d| (d.target, d.inst))
            .collect();
        assert_eq!(targets, [(4, 12)]);
    }
}
