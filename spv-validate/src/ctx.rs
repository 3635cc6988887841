//! [`Ctx`], the state every check shares: the module, the environment, the declared
//! capabilities (with their implications), every instruction's decoded operands, which
//! function and block defines each id, and the diagnostics found so far.
//!
//! The passes walk the [`Index`] (read once per module) rather than build the reader's
//! view of every instruction again: a pass about a few opcodes visits only their
//! instructions ([`Index::with_op`], [`Index::with_ops`], [`Index::with_ops_in`],
//! [`Index::annotations`], [`Index::type_decls`]); the others walk [`Index::insts`].
//!
//! It also holds the small type queries the rules keep asking ("is this an integer
//! vector?", "how many components?"), so that every check answers them the same way.

use spv_reader::spirv::{self, Op};
use std::cell::Cell;
use std::ops::Range;

use spv_reader::{Id, InstIndex, Module, Type};

use crate::caps::CapabilitySet;
use crate::checks::layout::Section;
use crate::diag::{Diagnostic, disassemble};
use crate::env::TargetEnv;
use crate::operands::{
    Kind, Lean, Operand, decode, lean_table, op_slot, op_slot_count, operand_kinds,
    read_instruction,
};

/// Words of the module header before the first instruction (SPIR-V §2.3).
const HEADER_WORDS: usize = 5;

/// Marks an absent index in the dense `u32` tables.
pub(crate) const NONE: u32 = u32::MAX;

/// One instruction as the checks see it: its words with the opcode, Result Type and Result
/// id read once (a cheap copy, unlike re-reading them through the module for every pass).
///
/// 48 bytes: the two ids are plain words, 0 when absent, which costs an accessor one
/// comparison. Not packed further on purpose: presence bits and the refs as a start and a
/// 16-bit length were measured on the goal corpus at fewer data-cache misses in validation
/// but 1.7% more instructions (the bits are decoded in every accessor and assembled per
/// instruction), for no gain in estimated cycles.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inst<'m> {
    index: u32,
    words: &'m [u32],
    op: Option<Op>,
    section: Option<Section>,
    type_decl: bool,
    decoded: bool,
    /// The function containing the instruction ([`NONE`] outside functions).
    func: u32,
    /// Its referring ids: `Index::refs[refs.0..refs.1]`.
    refs: (u32, u32),
    /// The Result Type id, 0 for opcodes without one (no id is 0: the reader checked every
    /// id operand to be in `1..bound`, R-8), so that the record holds no presence tags.
    result_type: u32,
    /// The Result id, 0 for opcodes without one.
    result: u32,
}

impl<'m> Inst<'m> {
    /// The instruction's position in module order.
    pub(crate) fn index(&self) -> InstIndex {
        InstIndex(self.index)
    }

    /// All words of the instruction, the opcode word included.
    pub(crate) fn words(&self) -> &'m [u32] {
        self.words
    }

    /// The opcode as written (low 16 bits of the first word).
    pub(crate) fn raw_opcode(&self) -> u16 {
        self.words.first().map_or(0, |w| (w & 0xFFFF) as u16)
    }

    /// The opcode, `None` when the grammar does not know it.
    pub(crate) fn opcode(&self) -> Option<Op> {
        self.op
    }

    /// Whether the instruction declares a type.
    pub(crate) fn declares_type(&self) -> bool {
        self.type_decl
    }

    /// The module-level section of the opcode (`None` for function-body instructions and
    /// unknown opcodes).
    pub(crate) fn section(&self) -> Option<Section> {
        self.section
    }

    /// Whether every operand decoded (so that they can be trusted).
    pub(crate) fn decoded(&self) -> bool {
        self.decoded
    }

    /// The index in `m.functions()` of the function containing the instruction, [`NONE`]
    /// outside functions.
    pub(crate) fn func(&self) -> u32 {
        self.func
    }

    /// The Result Type id, for opcodes that have one.
    pub(crate) fn result_type(&self) -> Option<Id> {
        (self.result_type != 0).then_some(Id(self.result_type))
    }

    /// The Result id, for opcodes that have one.
    pub(crate) fn result_id(&self) -> Option<Id> {
        (self.result != 0).then_some(Id(self.result))
    }
}

/// An instruction either as the reader views it or as the index holds it: what the shared
/// queries of [`Ctx`] need from either.
pub(crate) trait AnyInst: Copy {
    /// The instruction's position in module order.
    fn at(&self) -> InstIndex;
    /// The opcode as written.
    fn raw_op(&self) -> u16;
    /// The opcode (`None` when the grammar lacks it), from the index when it is not at hand.
    fn op_in(&self, ix: &Index<'_>) -> Option<Op>;
}

impl AnyInst for spv_reader::Inst<'_> {
    fn at(&self) -> InstIndex {
        self.index()
    }
    fn raw_op(&self) -> u16 {
        self.raw_opcode()
    }
    fn op_in(&self, ix: &Index<'_>) -> Option<Op> {
        ix.inst(self.index()).and_then(|v| v.op)
    }
}

impl AnyInst for Inst<'_> {
    fn at(&self) -> InstIndex {
        self.index()
    }
    fn raw_op(&self) -> u16 {
        self.raw_opcode()
    }
    fn op_in(&self, _: &Index<'_>) -> Option<Op> {
        self.op
    }
}

/// A borrowed instruction answers as the instruction itself (passes that walk the index by
/// reference avoid copying each view).
impl<T: AnyInst> AnyInst for &T {
    fn at(&self) -> InstIndex {
        (*self).at()
    }
    fn raw_op(&self) -> u16 {
        (*self).raw_op()
    }
    fn op_in(&self, ix: &Index<'_>) -> Option<Op> {
        (*self).op_in(ix)
    }
}

/// What the checks look up over and over, computed once per module: every instruction's
/// view and decoded operands, the instructions grouped by opcode, and dense per-id tables
/// (the defining instruction, which function and block define each id). Kept apart from
/// [`Ctx`] so that a pass can iterate it while recording diagnostics in the context.
pub(crate) struct Index<'m> {
    /// Every instruction, in module order.
    insts: Vec<Inst<'m>>,
    /// Every instruction's `<id>` operands that refer to other definitions (every id but
    /// the Result), back to back in instruction order.
    refs: Vec<Ref>,
    /// The type declarations (OpTypeForwardPointer included), in module order.
    type_decls: Vec<u32>,
    /// OpMemoryModel, OpEntryPoint and the decorating instructions (OpDecorate,
    /// OpMemberDecorate and their Id/String forms), in module order.
    annotations: Vec<u32>,
    /// Indexed by id (as long as the largest Result id plus one).
    ids: Vec<IdInfo>,
    /// The Result Type of each id (0 when it has none), as long as `ids`: gathered as the
    /// instructions are read, for [`Ctx::type_of`] and then [`crate::ModuleInfo`] (which
    /// keeps it, so it is not part of the storage kept between modules).
    value_types: Vec<u32>,
    /// Per opcode slot (`operands::op_slot`): the positions in `insts` of the instructions
    /// with that opcode, in module order (empty for the opcodes the module does not use), so
    /// that a rule about a few opcodes visits just their instructions. Each instruction is
    /// appended to its list as it is read: no second pass over the instructions groups them.
    groups: Vec<Vec<u32>>,
    /// The slots of the opcodes the module uses, with the opcodes, in order of first use:
    /// the lists of `groups` to empty for the next module (so that the table, as long as
    /// the grammar, is not walked whole per module).
    op_used: Vec<(u16, Op)>,
    /// A bit per raw opcode (SPIR-V opcodes are 16 bits), set for the opcodes in
    /// `op_used`: [`Index::with_ops`] asks mostly about absent opcodes, which this answers
    /// without the grammar's tables. Cleared through `op_used` between modules.
    op_bits: Vec<u64>,
    /// How many instructions have an opcode the grammar lacks or operands that do not
    /// decode.
    undecoded: u32,
    /// Scratch for the full operand decoder.
    operands: Vec<crate::operands::Operand>,
}

/// The buffers of an [`Index`], empty, kept between modules (see `crate::scratch`).
#[derive(Default)]
pub(crate) struct IndexStorage {
    insts: Vec<Inst<'static>>,
    refs: Vec<Ref>,
    type_decls: Vec<u32>,
    annotations: Vec<u32>,
    ids: Vec<IdInfo>,
    /// Kept with every list empty between modules.
    groups: Vec<Vec<u32>>,
    op_used: Vec<(u16, Op)>,
    /// Kept all zero between modules.
    op_bits: Vec<u64>,
    operands: Vec<crate::operands::Operand>,
}

/// Words of [`Index`]'s opcode bit set: one bit per 16-bit opcode.
const OP_BIT_WORDS: usize = (u16::MAX as usize + 1) / 64;

/// The word and bit of raw opcode `op` in the opcode bit set.
fn op_bit(op: Op) -> (usize, u64) {
    let raw = op as u32 as usize;
    (raw / 64, 1u64 << (raw % 64))
}

/// An empty vector of instruction views for another module, reusing `v`'s allocation (the
/// views of different modules have the same layout, so collecting in place keeps it).
// `filter` cannot change the element type (the lifetime), which is the point here.
#[allow(clippy::unnecessary_filter_map)]
fn reuse<'a, 'b>(v: Vec<Inst<'a>>) -> Vec<Inst<'b>> {
    v.into_iter().filter_map(|_| None).collect()
}

/// Which function and block the instruction being indexed belongs to, followed in module
/// order from the reader's function and block lists: the index's loop compares each
/// instruction's position with [`Cursor::next`] only, and moves on at the positions where
/// a function or block starts or ends.
struct Cursor<'m> {
    functions: &'m [spv_reader::Function],
    /// The function entered next (or the current one's position in `functions`).
    f: usize,
    /// The current function's block entered next (or the current block).
    b: usize,
    /// The next position where the function or block changes ([`NONE`] past the last).
    next: u32,
    /// The current function's index in `functions`, [`NONE`] outside functions: from its
    /// `OpFunction` to its `OpFunctionEnd`.
    func: u32,
    /// The current block's index in its function, [`NONE`] outside blocks: from its
    /// `OpLabel` to its terminator.
    block: u32,
}

impl<'m> Cursor<'m> {
    fn new(functions: &'m [spv_reader::Function]) -> Self {
        Cursor {
            functions,
            f: 0,
            b: 0,
            next: functions.first().map_or(NONE, |f| f.def.0),
            func: NONE,
            block: NONE,
        }
    }

    /// Moves to instruction `index`, which is [`Cursor::next`]: a function or block starts
    /// or ends there (or several of these: a block's end is mostly the next one's start).
    /// The reader's lists are in module order, each block inside its function, so every
    /// step moves `next` forward.
    #[inline(never)]
    fn advance(&mut self, index: u32) {
        while index == self.next {
            let Some(f) = self.functions.get(self.f) else {
                self.next = NONE;
                return;
            };
            let after_end = f.end.0.saturating_add(1);
            if self.func == NONE {
                // The function's `OpFunction`.
                self.func = self.f as u32;
                self.b = 0;
                self.next = f.blocks.first().map_or(after_end, |b| b.label_inst.0);
            } else if self.block == NONE {
                match f.blocks.get(self.b) {
                    // The block's `OpLabel`.
                    Some(b) if b.label_inst.0 == index => {
                        self.block = self.b as u32;
                        self.next = b.terminator.0.saturating_add(1);
                    }
                    // Past the `OpFunctionEnd`.
                    _ => {
                        self.func = NONE;
                        self.f += 1;
                        self.next = self.functions.get(self.f).map_or(NONE, |f| f.def.0);
                    }
                }
            } else {
                // Past the block's terminator.
                self.block = NONE;
                self.b += 1;
                self.next = f.blocks.get(self.b).map_or(after_end, |b| b.label_inst.0);
            }
        }
    }
}

/// What the index knows about one id: 16 bytes, so that the index writes it with two stores
/// and the rules that look up every referenced id (`checks::ids`, `checks::flow`) read four
/// to a cache line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdInfo {
    /// The defining instruction ([`NONE`] when the id is not defined).
    pub(crate) def: u32,
    /// For an id defined inside a function (other than the function itself): the
    /// function's index in `m.functions()`, else [`NONE`].
    pub(crate) func: u32,
    /// For an id defined inside a block: the block's index in its function, else [`NONE`].
    pub(crate) block: u32,
    /// The defining instruction's opcode as written ([`IdInfo::NO_OP`] when the id is not
    /// defined; only opcodes the grammar knows define ids here).
    op: u16,
    /// The defining opcode's [`Lean`] flags ([`Lean::HAS_TYPE`], [`Lean::TYPE_DECL`]).
    flags: u8,
}

impl IdInfo {
    /// [`IdInfo::op`] of an undefined id: no opcode the grammar knows.
    const NO_OP: u16 = u16::MAX;

    const UNDEFINED: IdInfo = IdInfo {
        def: NONE,
        func: NONE,
        block: NONE,
        op: Self::NO_OP,
        flags: 0,
    };

    /// Whether the defining instruction's opcode is `op`.
    #[inline]
    pub(crate) fn is(&self, op: Op) -> bool {
        u32::from(self.op) == op as u32
    }

    /// The defining instruction's opcode (`None` when the id is not defined).
    pub(crate) fn op(&self) -> Option<Op> {
        lean_table().get(self.op).op
    }

    /// Whether the defining instruction declares a type.
    #[inline]
    pub(crate) fn type_decl(&self) -> bool {
        self.flags & Lean::TYPE_DECL != 0
    }

    /// Whether the id names a value: its definition has a Result Type and declares no type.
    #[inline]
    pub(crate) fn is_value(&self) -> bool {
        self.flags & (Lean::HAS_TYPE | Lean::TYPE_DECL) == Lean::HAS_TYPE
    }
}

/// Records the Result `at` of the index's loop past the room it made for Results: grows both
/// per-id tables to hold it (their new entries undefined).
#[cold]
#[inline(never)]
fn record_far_result(
    table: &mut Vec<IdInfo>,
    value_types: &mut Vec<u32>,
    at: usize,
    info: IdInfo,
    result_type: u32,
) {
    if table.len() <= at {
        table.resize(at + 1, IdInfo::UNDEFINED);
    }
    if value_types.len() <= at {
        value_types.resize(at + 1, 0);
    }
    if let Some(slot) = table.get_mut(at) {
        *slot = info;
    }
    if let Some(ty) = value_types.get_mut(at) {
        *ty = result_type;
    }
}

impl<'m> Index<'m> {
    /// Reads every instruction once: decodes its operands (failures become diagnostics
    /// later, in the operand check) and records where ids are defined.
    pub(crate) fn new(m: &'m Module, storage: IndexStorage) -> Self {
        let n = m.instruction_count();
        let IndexStorage {
            insts,
            mut refs,
            mut type_decls,
            mut annotations,
            ids: mut table,
            mut groups,
            mut op_used,
            mut op_bits,
            operands: mut scratch,
        } = storage;
        // All zero when it has its full length (see `into_storage`).
        if op_bits.len() != OP_BIT_WORDS {
            op_bits.clear();
            op_bits.resize(OP_BIT_WORDS, 0);
        }
        // The lists are all empty when there are as many as opcode slots (see
        // `into_storage`).
        if groups.len() != op_slot_count() {
            groups.clear();
            groups.resize_with(op_slot_count(), Vec::new);
        }
        op_used.clear();
        // Empty (see `into_storage`): made as long as the room for Results below.
        table.clear();
        let mut insts = reuse(insts);
        insts.reserve(n);
        // As the reader sizes its id table: at most the bound, and no more than half the
        // words (each defined id takes an instruction of two words or more). Both per-id
        // tables are made that long before the loop, so that recording a Result is one
        // store each, without a length test that mispredicts as ids ascend or go back;
        // they are cut to the largest Result id plus one after it.
        let id_room = (m.header().bound as usize).min(m.words().len() / 2 + 1);
        table.resize(id_room, IdInfo::UNDEFINED);
        // Not `vec![0; id_room]`: glibc's `calloc` bypasses its per-thread cache of freed
        // blocks, which a module's tables of the same sizes reuse from the previous module
        // (measured: about 20 K more estimated cycles per pass over the corpus in `calloc`
        // and `_int_malloc`).
        #[allow(clippy::slow_vector_initialization)]
        let mut value_types: Vec<u32> = Vec::with_capacity(id_room);
        value_types.resize(id_room, 0);
        let mut largest_result = 0u32;
        refs.reserve(n * 3);
        // Sized for typical modules, so that they rarely grow.
        type_decls.reserve(n / 8);
        annotations.reserve(n / 4);
        let mut undecoded = 0u32;
        // The reader splits the words after the header the same way: each instruction's
        // first word holds its word count, which it checked to be at least 1 and to fit.
        let all = m.words();
        let grammar = crate::operands::table();
        // The reader's warnings, in module order, name the instructions whose operands it
        // tolerated (unknown opcodes and enumerants); it decoded every other instruction's
        // operands through the same grammar and found them whole (spirv.md §1.6 R-5 … R-7,
        // R-12), so those are not decoded again here: only their ids are located.
        // (Warnings out of order, which the reader never gives, would trust nothing.)
        let warnings = m.warnings();
        let in_order = warnings.is_sorted_by_key(|w| w.location.index);
        let mut warned = warnings.iter().map(|w| w.location.index);
        let mut next_warned = warned.next().unwrap_or(NONE);
        let leans = lean_table();
        let mut cursor = Cursor::new(m.functions());
        let mut rest = all.get(HEADER_WORDS..).unwrap_or(&[]);
        while let Some(&first) = rest.first() {
            let count = (first >> 16) as usize;
            let Some((words, after)) = rest.split_at_checked(count).filter(|_| count > 0) else {
                break;
            };
            rest = after;
            let index = insts.len() as u32;
            if index == cursor.next {
                cursor.advance(index);
            }
            let ref_start = refs.len() as u32;
            let checked = in_order && index != next_warned;
            while next_warned == index {
                next_warned = warned.next().unwrap_or(NONE);
            }
            let lean = leans.get((first & 0xFFFF) as u16);
            let decoded = if checked && lean.locates(count) {
                lean.locate(words, &mut refs);
                true
            } else if checked && lean.locate_special(leans, words, &mut refs) {
                true
            } else {
                let decoded =
                    read_instruction(grammar, m, index, words, checked, &mut refs, &mut scratch);
                undecoded += u32::from(!decoded);
                decoded
            };
            let flags = lean.flags;
            let has_type = flags & Lean::HAS_TYPE != 0;
            // (0 for none: see `Inst::result_type`.)
            let result_type = if has_type {
                words.get(1).copied().unwrap_or(0)
            } else {
                0
            };
            let result = if flags & Lean::HAS_RESULT != 0 {
                words.get(1 + usize::from(has_type)).copied().unwrap_or(0)
            } else {
                0
            };
            let type_decl = flags & Lean::TYPE_DECL != 0;
            if result != 0 {
                let info = IdInfo {
                    def: index,
                    func: cursor.func,
                    block: cursor.block,
                    op: (first & 0xFFFF) as u16,
                    flags,
                };
                largest_result = largest_result.max(result);
                let id = result as usize;
                match (table.get_mut(id), value_types.get_mut(id)) {
                    (Some(slot), Some(ty)) => {
                        *slot = info;
                        *ty = result_type;
                    }
                    // An id past the room made for them (a sparse module).
                    _ => record_far_result(&mut table, &mut value_types, id, info, result_type),
                }
            }
            if flags & (Lean::TYPE_DECL | Lean::ANNOTATION) != 0 {
                if type_decl {
                    type_decls.push(index);
                }
                if flags & Lean::ANNOTATION != 0 {
                    annotations.push(index);
                }
            }
            if let Some(group) = groups.get_mut(usize::from(lean.slot)) {
                // A slot inside the table is an opcode the grammar knows.
                if group.is_empty()
                    && let Some(op) = lean.op
                {
                    op_used.push((lean.slot, op));
                    let (word, bit) = op_bit(op);
                    if let Some(w) = op_bits.get_mut(word) {
                        *w |= bit;
                    }
                }
                group.push(index);
            }
            insts.push(Inst {
                index,
                words,
                op: lean.op,
                section: lean.section,
                type_decl,
                decoded,
                func: cursor.func,
                refs: (ref_start, refs.len() as u32),
                result_type,
                result,
            });
        }

        // The reader defines each Result id once and keeps ids below the bound, so the
        // table is sized by the largest Result id, never by the header's bound alone: one
        // more than it (a module without results still gets the entry of id 0).
        let id_count = largest_result as usize + 1;
        table.truncate(id_count);
        table.resize(id_count, IdInfo::UNDEFINED);
        value_types.truncate(id_count);
        value_types.resize(id_count, 0);
        for f in m.functions() {
            if let Some(slot) = table.get_mut(f.id.0 as usize) {
                // The function's own id is module-wide (it may be called from anywhere).
                slot.func = NONE;
            }
        }
        Index {
            insts,
            refs,
            type_decls,
            annotations,
            ids: table,
            value_types,
            groups,
            op_used,
            op_bits,
            undecoded,
            operands: scratch,
        }
    }

    /// Takes the Result Type of each id (indexed by id, 0 for none, as long as
    /// [`Index::id_count`]), for [`Ctx::new`].
    pub(crate) fn take_value_types(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.value_types)
    }

    /// Gives back the storage, emptied, for another module.
    pub(crate) fn into_storage(self) -> IndexStorage {
        let Index {
            mut insts,
            mut refs,
            mut type_decls,
            mut annotations,
            mut ids,
            value_types: _,
            mut groups,
            mut op_used,
            mut op_bits,
            undecoded: _,
            mut operands,
        } = self;
        insts.clear();
        refs.clear();
        type_decls.clear();
        annotations.clear();
        ids.clear();
        for &(slot, op) in &op_used {
            if let Some(group) = groups.get_mut(usize::from(slot)) {
                group.clear();
            }
            if let Some(w) = op_bits.get_mut(op_bit(op).0) {
                *w = 0;
            }
        }
        op_used.clear();
        operands.clear();
        IndexStorage {
            insts: reuse(insts),
            refs,
            type_decls,
            annotations,
            ids,
            groups,
            op_used,
            op_bits,
            operands,
        }
    }

    /// Every instruction, in module order.
    pub(crate) fn insts(&self) -> std::slice::Iter<'_, Inst<'m>> {
        self.insts.iter()
    }

    /// The instructions with indices in `range` (clamped to the module).
    pub(crate) fn insts_in(&self, range: Range<u32>) -> std::slice::Iter<'_, Inst<'m>> {
        let end = (range.end as usize).min(self.insts.len());
        let start = (range.start as usize).min(end);
        self.insts.get(start..end).unwrap_or(&[]).iter()
    }

    /// The type declarations (OpTypeForwardPointer included), in module order.
    pub(crate) fn type_decls(&self) -> impl Iterator<Item = &Inst<'m>> + '_ {
        self.type_decls
            .iter()
            .filter_map(|&i| self.insts.get(i as usize))
    }

    /// OpMemoryModel, OpEntryPoint, OpDecorate, OpMemberDecorate, OpDecorateId,
    /// OpDecorateString and OpMemberDecorateString instructions, in module order.
    pub(crate) fn annotations(&self) -> impl Iterator<Item = &Inst<'m>> + '_ {
        self.annotations
            .iter()
            .filter_map(|&i| self.insts.get(i as usize))
    }

    /// The instructions with opcode `op`, in module order.
    pub(crate) fn with_op(&self, op: Op) -> impl Iterator<Item = &Inst<'m>> + '_ {
        self.group(op)
            .iter()
            .filter_map(|&i| self.insts.get(i as usize))
    }

    /// The instructions with any of the opcodes `ops`, in module order, each once.
    pub(crate) fn with_ops(&self, ops: &[Op]) -> Vec<&Inst<'m>> {
        // Most of the opcodes asked about are absent from a module: look their groups up
        // without building anything, and sort only when two groups are merged.
        let mut found: Vec<&Inst<'m>> = Vec::new();
        let mut groups = 0;
        for &op in ops {
            let group = self.group(op);
            if !group.is_empty() {
                groups += 1;
                found.extend(group.iter().filter_map(|&i| self.insts.get(i as usize)));
            }
        }
        if groups > 1 {
            found.sort_unstable_by_key(|inst| inst.index);
            // An opcode named twice would list its instructions twice.
            found.dedup_by_key(|inst| inst.index);
        }
        found
    }

    /// The instructions whose opcode is in `set`, in module order: only the opcodes the
    /// module uses are looked up, so that a rule about a family of opcodes visits only
    /// their instructions.
    pub(crate) fn with_ops_in(&self, set: &OpSet) -> Vec<&Inst<'m>> {
        let mut found: Vec<&Inst<'m>> = Vec::new();
        let mut groups = 0;
        for &(slot, _) in &self.op_used {
            if !set.has_slot(slot) {
                continue;
            }
            let group = self
                .groups
                .get(usize::from(slot))
                .map_or(&[][..], Vec::as_slice);
            groups += 1;
            found.extend(group.iter().filter_map(|&i| self.insts.get(i as usize)));
        }
        // Each used opcode is listed once, so merging groups needs no deduplication.
        if groups > 1 {
            found.sort_unstable_by_key(|inst| inst.index);
        }
        found
    }

    /// Whether every instruction's opcode is in the grammar and its operands decode.
    pub(crate) fn all_decoded(&self) -> bool {
        self.undecoded == 0
    }

    /// The positions in `insts` of the instructions with opcode `op`, in module order.
    fn group(&self, op: Op) -> &[u32] {
        let (word, bit) = op_bit(op);
        if self.op_bits.get(word).is_none_or(|&w| w & bit == 0) {
            return &[];
        }
        u16::try_from(op as u32)
            .ok()
            .and_then(op_slot)
            .and_then(|k| self.groups.get(k).map(Vec::as_slice))
            .unwrap_or(&[])
    }

    /// The instruction at `i`, if there is one.
    pub(crate) fn inst(&self, i: InstIndex) -> Option<&Inst<'m>> {
        self.insts.get(i.0 as usize)
    }

    /// The instruction that defines `id`.
    pub(crate) fn def(&self, id: Id) -> Option<&Inst<'m>> {
        let k = self.ids.get(id.0 as usize)?.def;
        self.insts.get(k as usize)
    }

    /// What the index knows about `id` (`None` beyond the largest Result id).
    pub(crate) fn id(&self, id: Id) -> Option<&IdInfo> {
        self.ids.get(id.0 as usize)
    }

    /// The `<id>` operands of instruction `i` that refer to other definitions (every id but
    /// the Result), in operand order; empty when the instruction did not decode.
    pub(crate) fn refs(&self, i: InstIndex) -> &[Ref] {
        self.insts
            .get(i.0 as usize)
            .map_or(&[], |inst| self.refs_of(inst))
    }

    /// [`Index::refs`] of an instruction at hand.
    pub(crate) fn refs_of(&self, inst: &Inst<'_>) -> &[Ref] {
        let (s, e) = inst.refs;
        self.refs.get(s as usize..e as usize).unwrap_or(&[])
    }

    /// The `<id>` operands that refer to other definitions of the instructions with indices
    /// in `range` (clamped to the module), in one slice: [`Index::refs_of`] of each of them,
    /// back to back in instruction order (as they are stored), so that a rule about every
    /// id a run of instructions refers to reads them without visiting the instructions.
    pub(crate) fn refs_in(&self, range: Range<u32>) -> &[Ref] {
        let insts = self.insts_in(range).as_slice();
        match (insts.first(), insts.last()) {
            (Some(first), Some(last)) => self
                .refs
                .get(first.refs.0 as usize..last.refs.1 as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// One more than the largest Result id: the size of dense tables indexed by defined ids.
    pub(crate) fn id_count(&self) -> usize {
        self.ids.len()
    }

    /// The index in `m.functions()` of the function whose `OpFunction` result is `id`.
    pub(crate) fn function_index(&self, id: Id) -> Option<usize> {
        // The function's `OpFunction` is where the index's cursor entered it, so its record
        // holds the function's index.
        let info = self.ids.get(id.0 as usize)?;
        if !info.is(Op::Function) {
            return None;
        }
        let i = self.insts.get(info.def as usize)?.func;
        (i != NONE).then_some(i as usize)
    }
}

/// A set of ids in a dense table of generation stamps: inserting and testing are O(1), and
/// [`IdSet::clear`] forgets every member in O(1) so that one table serves many small sets.
#[derive(Default)]
pub(crate) struct IdSet {
    stamps: Vec<u32>,
    generation: u32,
}

impl IdSet {
    /// Makes this an empty set with room for the ids below `capacity`, reusing the storage.
    pub(crate) fn reset(&mut self, capacity: usize) {
        if self.stamps.len() < capacity {
            // New slots hold 0, below every generation in use.
            self.stamps.resize(capacity, 0);
        }
        self.clear();
    }

    /// Removes every member.
    pub(crate) fn clear(&mut self) {
        if self.generation == u32::MAX {
            self.stamps.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
    }

    /// Adds `id`; whether it was absent.
    pub(crate) fn insert(&mut self, id: Id) -> bool {
        let i = id.0 as usize;
        if i >= self.stamps.len() {
            // Ids stay below the reader's bound limit, so the table stays bounded too.
            let len = (i + 1).min(spv_reader::limits::MAX_ID_BOUND as usize + 1);
            self.stamps.resize(len.max(self.stamps.len()), 0);
        }
        match self.stamps.get_mut(i) {
            Some(s) if *s == self.generation => false,
            Some(s) => {
                *s = self.generation;
                true
            }
            // Beyond the reader's bound: not an id of this module; count it as new.
            None => true,
        }
    }

    /// Whether `id` is a member.
    pub(crate) fn contains(&self, id: Id) -> bool {
        self.stamps
            .get(id.0 as usize)
            .is_some_and(|&s| s == self.generation)
    }
}

/// One `<id>` operand referring to another definition: its kind and the id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Ref {
    /// Result Type, plain `<id>`, Scope or Memory Semantics.
    pub(crate) kind: Kind,
    /// The id.
    pub(crate) id: Id,
}

/// The shared validation state.
pub(crate) struct Ctx<'m> {
    /// The module being validated.
    pub(crate) m: &'m Module,
    /// The instructions and per-id tables, read once.
    pub(crate) ix: &'m Index<'m>,
    /// The environment, resolved (never [`TargetEnv::ModuleVersion`]).
    pub(crate) env: TargetEnv,
    /// The module's SPIR-V minor version (1.x).
    pub(crate) version: u8,
    /// Declared capabilities and everything they implicitly declare.
    pub(crate) caps: CapabilitySet,
    /// Whether `Shader` is declared (directly or implied): structured rules apply.
    pub(crate) shader: bool,
    /// Whether `Kernel` is declared.
    pub(crate) kernel: bool,
    /// Raw addressing model and memory model of `OpMemoryModel` (0, 0 when missing).
    pub(crate) addressing: u32,
    /// Raw memory model.
    pub(crate) memory_model: u32,
    /// The diagnostics found so far.
    pub(crate) diags: Vec<Diagnostic>,
    /// Per id, what [`Ctx::holds`] found about the type it declares (filled on first use):
    /// cells rather than a borrowed vector, so that the common lookup of a known answer is
    /// one load.
    holds: Vec<Cell<u8>>,
    /// [`Ctx::workgroup_size_constant`], found on first use (the module-information build and
    /// the entry-point rules both ask).
    workgroup_size: std::cell::OnceCell<Option<Id>>,
    /// The Result Type of each id (0 when it has none), indexed by id, as the index
    /// gathered it ([`Index::take_value_types`]): [`Ctx::type_of`] reads one word per
    /// question instead of the defining instruction's record.
    value_types: Vec<u32>,
}

/// What [`Ctx::holds`] looks for inside a type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Holds {
    /// A pointer type whose storage class is not PhysicalStorageBuffer.
    LogicalPointer = 1,
    /// OpTypeBool.
    Bool = 2,
    /// OpTypeRuntimeArray.
    RuntimeArray = 4,
}

/// [`Ctx::holds`]'s memo entries: the found [`Holds`] bits once known, or under way.
const HOLDS_KNOWN: u8 = 0x40;
const HOLDS_VISITING: u8 = 0x80;
/// Types nested deeper than this are answered by the walk of [`Ctx::contains`]: far
/// below its bound, so that the memo's answers are the walk's.
const HOLDS_HEIGHT: usize = 64;

impl<'m> Ctx<'m> {
    /// The decoded operands (kinds and word positions) of instruction `i`, empty when it does
    /// not decode. The index keeps only the referring ids, so this decodes on every call: for
    /// the few rules that need operand kinds or positions, after they filtered by opcode.
    pub(crate) fn operands(&self, i: InstIndex) -> Vec<Operand> {
        let mut out = Vec::new();
        self.operands_into(i, &mut out);
        out
    }

    /// [`Ctx::operands`] into `out` (replacing its contents), so that a rule decoding many
    /// instructions reuses one buffer.
    pub(crate) fn operands_into(&self, i: InstIndex, out: &mut Vec<Operand>) {
        out.clear();
        if let Some(inst) = self.m.inst(i)
            && decode(inst, out).is_err()
        {
            out.clear();
        }
    }

    /// Whether the grammar gives `inst`'s opcode an operand of one of the kinds in `kinds` (a
    /// set of `operands::OperandKinds` bits, precomputed per opcode): the cheap test that
    /// keeps [`Ctx::operands`] (which decodes) to the instructions that can matter.
    pub(crate) fn may_have_operand(&self, inst: impl AnyInst, kinds: u8) -> bool {
        operand_kinds(inst.raw_op()) & kinds != 0
    }

    /// The `<id>` operands of `inst` that refer to other definitions (every id but the
    /// Result), with their kinds, in operand order.
    pub(crate) fn id_refs<'a>(
        &'a self,
        inst: impl AnyInst,
    ) -> impl Iterator<Item = (Kind, Id)> + 'a {
        self.ix.refs(inst.at()).iter().map(|r| (r.kind, r.id))
    }

    /// The opcode of a module instruction, from the index.
    pub(crate) fn reader_op(&self, inst: impl AnyInst) -> Option<Op> {
        inst.op_in(self.ix)
    }

    /// The index in `m.functions()` of the function holding instruction `i` ([`NONE`] outside
    /// functions).
    pub(crate) fn inst_func(&self, i: InstIndex) -> Option<&u32> {
        self.ix.inst(i).map(|v| &v.func)
    }

    /// For an id defined inside a function, the function's index in `m.functions()`
    /// ([`NONE`] otherwise).
    pub(crate) fn id_func(&self, id: Id) -> Option<&u32> {
        self.ix.id(id).map(|info| &info.func)
    }

    /// The shared state over `m` and its index `ix`, with the Result Types the index
    /// gathered (`Index::take_value_types`); `holds` is storage (of an earlier module,
    /// emptied here) for the memo of [`Ctx::holds`].
    pub(crate) fn new(
        m: &'m Module,
        ix: &'m Index<'m>,
        env: TargetEnv,
        mut holds: Vec<Cell<u8>>,
        value_types: Vec<u32>,
    ) -> Self {
        // Sized once here (a byte per id), so that no lookup has to grow it.
        holds.clear();
        holds.resize(ix.id_count(), Cell::new(0));
        let version = m.header().version.1;
        let caps = CapabilitySet::new(m.capabilities());
        let shader = caps.has(spirv::Capability::Shader);
        let kernel = caps.has(spirv::Capability::Kernel);
        let (addressing, memory_model) = m.memory_model().unwrap_or((0, 0));
        Ctx {
            m,
            ix,
            env,
            version,
            caps,
            shader,
            kernel,
            addressing,
            memory_model,
            diags: Vec::new(),
            holds,
            workgroup_size: std::cell::OnceCell::new(),
            value_types,
        }
    }

    /// Gives back the storage of the [`Ctx::holds`] memo, for another module.
    pub(crate) fn into_holds(self) -> Vec<Cell<u8>> {
        self.holds
    }

    /// Records a diagnostic about instruction `at` (or the whole module when `None`).
    /// Cold: valid modules rarely report, so the callers' hot paths keep these calls (and
    /// the building of their messages) out of line.
    #[cold]
    pub(crate) fn report(
        &mut self,
        rule: &'static str,
        at: Option<InstIndex>,
        ids: Vec<Id>,
        message: impl Into<String>,
    ) {
        let inst = at.and_then(|i| self.m.inst(i));
        self.diags.push(Diagnostic {
            rule,
            location: inst.map(|i| i.location()),
            message: message.into(),
            ids,
            disassembly: inst.map(disassemble),
        });
    }

    /// Shorthand for [`Ctx::report`] about one instruction (cold, as that one).
    #[cold]
    pub(crate) fn err(
        &mut self,
        rule: &'static str,
        at: InstIndex,
        ids: &[Id],
        message: impl Into<String>,
    ) {
        self.report(rule, Some(at), ids.to_vec(), message);
    }

    /// The function whose `OpFunction` result is `id`, with its index.
    pub(crate) fn function(&self, id: Id) -> Option<(usize, &'m spv_reader::Function)> {
        let i = self.ix.function_index(id)?;
        self.m.functions().get(i).map(|f| (i, f))
    }

    /// Whether a capability is declared (directly or implicitly).
    pub(crate) fn has_cap(&self, cap: spirv::Capability) -> bool {
        self.caps.has(cap)
    }

    /// Whether `OpExtension name` is declared.
    pub(crate) fn has_ext(&self, name: &str) -> bool {
        self.m.extensions().any(|e| e == name)
    }

    /// Whether the module version is at least 1.`minor`.
    pub(crate) fn at_least(&self, minor: u8) -> bool {
        self.version >= minor
    }

    // ---- type queries -------------------------------------------------------------------

    /// The type declared by `id`.
    pub(crate) fn ty(&self, id: Id) -> Option<&'m Type> {
        self.m.ty(id)
    }

    /// The Result Type of the instruction defining value `id`.
    pub(crate) fn type_of(&self, id: Id) -> Option<Id> {
        // Every id below the table's length that has a Result Type has its entry.
        match self.value_types.get(id.0 as usize) {
            Some(&t) if t != 0 => Some(Id(t)),
            _ => None,
        }
    }

    /// Takes back the table of Result Types given to [`Ctx::new`] (empty afterwards).
    pub(crate) fn take_value_types(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.value_types)
    }

    /// The opcode of the instruction defining `id`.
    pub(crate) fn def_op(&self, id: Id) -> Option<Op> {
        self.ix.id(id)?.op()
    }

    /// The constant decorated `BuiltIn WorkgroupSize`, if any (SPIR-V §3.2.20).
    pub(crate) fn workgroup_size_constant(&self) -> Option<Id> {
        *self.workgroup_size.get_or_init(|| {
            let builtin = spv_reader::spirv::Decoration::BuiltIn as u32;
            let size = spv_reader::spirv::BuiltIn::WorkgroupSize as u32;
            self.ix
                .annotations()
                .filter(|inst| inst.opcode() == Some(Op::Decorate))
                .filter_map(|inst| match inst.words() {
                    [_, target, d, b] if *d == builtin && *b == size => Some(Id(*target)),
                    _ => None,
                })
                .find(|&id| self.m.constant(id).is_some())
        })
    }

    /// The opcode of instruction `inst` (`None` when the grammar lacks it).
    pub(crate) fn op_of(&self, inst: &Inst<'_>) -> Option<Op> {
        inst.opcode()
    }

    /// For a scalar or vector type: (scalar type id, component count).
    pub(crate) fn scalar_and_count(&self, ty: Id) -> Option<(Id, u32)> {
        match self.ty(ty)? {
            Type::Vector { component, count } => Some((*component, *count)),
            Type::Bool | Type::Int { .. } | Type::Float { .. } => Some((ty, 1)),
            _ => None,
        }
    }

    /// Whether `ty` is a float scalar or vector.
    pub(crate) fn is_float(&self, ty: Id) -> bool {
        self.scalar_and_count(ty)
            .is_some_and(|(s, _)| matches!(self.ty(s), Some(Type::Float { .. })))
    }

    /// Whether `ty` is a scalar (bool, int or float).
    pub(crate) fn is_scalar(&self, ty: Id) -> bool {
        matches!(
            self.ty(ty),
            Some(Type::Bool | Type::Int { .. } | Type::Float { .. })
        )
    }

    /// Whether `ty` is an integer scalar.
    pub(crate) fn is_int_scalar(&self, ty: Id) -> bool {
        matches!(self.ty(ty), Some(Type::Int { .. }))
    }

    /// Whether `ty` is a bool scalar.
    pub(crate) fn is_bool_scalar(&self, ty: Id) -> bool {
        matches!(self.ty(ty), Some(Type::Bool))
    }

    /// The bit width of a numeric scalar or of a vector's components.
    pub(crate) fn width(&self, ty: Id) -> Option<u32> {
        let (s, _) = self.scalar_and_count(ty)?;
        match self.ty(s)? {
            Type::Int { width, .. } | Type::Float { width } => Some(*width),
            _ => None,
        }
    }

    /// (storage class, pointee) of a pointer type.
    pub(crate) fn pointer(&self, ty: Id) -> Option<(u32, Id)> {
        match self.ty(ty)? {
            Type::Pointer {
                storage_class,
                pointee,
            } => Some((*storage_class, *pointee)),
            _ => None,
        }
    }

    /// Whether `ty` is a pointer type (typed or untyped).
    pub(crate) fn is_pointer(&self, ty: Id) -> bool {
        matches!(
            self.ty(ty),
            Some(Type::Pointer { .. } | Type::UntypedPointer { .. })
        )
    }

    /// The value of an integer constant (a specialization constant gives its default),
    /// masked to the constant's width.
    pub(crate) fn const_scalar(&self, id: Id) -> Option<u64> {
        match self.m.constant(id)? {
            spv_reader::Constant::Scalar { bits, ty, .. } if self.is_int_scalar(*ty) => {
                let width = self.width(*ty).unwrap_or(64);
                Some(if width >= 64 {
                    *bits
                } else {
                    bits & ((1u64 << width) - 1)
                })
            }
            _ => None,
        }
    }

    /// `self.contains(ty, …)` for the predicate `what`, answered from a memo of what each
    /// type holds (types are walked once per module).
    pub(crate) fn holds(&self, ty: Id, what: Holds) -> bool {
        let found = match self.holds.get(ty.0 as usize).map(Cell::get) {
            Some(m) if m & HOLDS_KNOWN != 0 => return m & what as u8 != 0,
            _ => self.holds_at(ty, 0),
        };
        match found {
            Some(bits) => bits & what as u8 != 0,
            None => self.contains(ty, &|t| Self::holds_itself(t) & what as u8 != 0),
        }
    }

    /// The [`Holds`] bits of `t` itself.
    fn holds_itself(t: &Type) -> u8 {
        match t {
            Type::Pointer { storage_class, .. }
                if *storage_class != spirv::StorageClass::PhysicalStorageBuffer as u32 =>
            {
                Holds::LogicalPointer as u8
            }
            Type::Bool => Holds::Bool as u8,
            Type::RuntimeArray { .. } => Holds::RuntimeArray as u8,
            _ => 0,
        }
    }

    /// The [`Holds`] bits of `ty` and what it contains, `None` when it nests deeper than
    /// [`HOLDS_HEIGHT`] below `height` or contains itself.
    fn holds_at(&self, ty: Id, height: usize) -> Option<u8> {
        let slot = self.holds.get(ty.0 as usize);
        match slot.map(Cell::get) {
            Some(m) if m & HOLDS_KNOWN != 0 => return Some(m & !HOLDS_KNOWN),
            Some(m) if m & HOLDS_VISITING != 0 => return None,
            Some(_) if height < HOLDS_HEIGHT => {}
            // Types are defined ids, so inside the memo.
            _ => return self.ty(ty).map_or(Some(0), |_| None),
        }
        let Some(t) = self.ty(ty) else {
            return Some(0);
        };
        if let Some(m) = slot {
            m.set(HOLDS_VISITING);
        }
        let mut bits = Some(Self::holds_itself(t));
        let inner = |child: Id, bits: &mut Option<u8>| {
            *bits = match (*bits, self.holds_at(child, height + 1)) {
                (Some(a), Some(b)) => Some(a | b),
                _ => None,
            };
        };
        match t {
            Type::Array { element, .. } | Type::RuntimeArray { element } => {
                inner(*element, &mut bits)
            }
            Type::Struct { members } => {
                for &m in members {
                    inner(m, &mut bits);
                    if bits.is_none() {
                        break;
                    }
                }
            }
            Type::Matrix { column, .. } => inner(*column, &mut bits),
            Type::Vector { component, .. } => inner(*component, &mut bits),
            _ => {}
        }
        if let Some(m) = slot {
            m.set(bits.map_or(0, |b| b | HOLDS_KNOWN));
        }
        bits
    }

    /// Whether `ty` is or contains (through arrays, structs, matrices and vectors) a type
    /// satisfying `pred`. Each type is visited once, so types that share members (a struct of
    /// two copies of a struct of two copies ...) cost their size, not their unfolded size; at
    /// most [`crate::limits::MAX_TYPE_DEPTH`] levels are followed.
    pub(crate) fn contains(&self, ty: Id, pred: &dyn Fn(&Type) -> bool) -> bool {
        let mut visited: std::collections::HashSet<u32> = std::collections::HashSet::new();
        let mut stack: Vec<(Id, usize)> = vec![(ty, 0)];
        while let Some((ty, depth)) = stack.pop() {
            if depth > crate::limits::MAX_TYPE_DEPTH || !visited.insert(ty.0) {
                continue;
            }
            let Some(t) = self.ty(ty) else { continue };
            if pred(t) {
                return true;
            }
            match t {
                Type::Array { element, .. } | Type::RuntimeArray { element } => {
                    stack.push((*element, depth + 1));
                }
                Type::Struct { members } => {
                    stack.extend(members.iter().map(|&m| (m, depth + 1)));
                }
                Type::Matrix { column, .. } => stack.push((*column, depth + 1)),
                Type::Vector { component, .. } => stack.push((*component, depth + 1)),
                _ => {}
            }
        }
        false
    }

    /// The block index holding the definition of value `id` inside function `func`, if the
    /// id is defined in a block of that function.
    pub(crate) fn def_block(&self, id: Id) -> Option<(u32, u32)> {
        let info = self.ix.id(id)?;
        let (f, b) = (info.func, info.block);
        (f != NONE && b != NONE).then_some((f, b))
    }
}

/// A set of opcodes as a bit per opcode slot (`operands::op_slot`), for
/// [`Index::with_ops_in`]: a rule's opcode family, decided once per process rather than
/// once per opcode a module uses (the family tests are matches and grammar look-ups, about
/// a dozen instructions each, asked of every used opcode of every module).
pub(crate) struct OpSet {
    /// Bit `slot % 64` of word `slot / 64` for each opcode slot in the set.
    bits: [u64; crate::operands::OP_SLOTS.div_ceil(64)],
}

impl OpSet {
    /// The opcodes the grammar knows that satisfy `pred`.
    pub(crate) fn new(pred: impl Fn(Op) -> bool) -> OpSet {
        let mut bits = [0u64; crate::operands::OP_SLOTS.div_ceil(64)];
        for (op, slot) in crate::operands::op_slots() {
            if pred(op)
                && let Some(w) = bits.get_mut(slot / 64)
            {
                *w |= 1 << (slot % 64);
            }
        }
        OpSet { bits }
    }

    /// Whether the opcode of slot `slot` is in the set.
    #[inline]
    fn has_slot(&self, slot: u16) -> bool {
        self.bits
            .get(usize::from(slot / 64))
            .is_some_and(|w| w & (1 << (slot % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spv_reader::rspirv::binary::Assemble;
    use spv_reader::rspirv::dr::Builder;

    /// An opcode set holds exactly the grammar's opcodes its predicate accepts.
    #[test]
    fn op_sets_hold_what_their_predicate_accepts() {
        let pred = |op: Op| matches!(op, Op::Load | Op::AtomicIAdd | Op::Kill) || op as u32 > 5000;
        let set = OpSet::new(pred);
        let mut known = 0;
        for (op, slot) in crate::operands::op_slots() {
            known += 1;
            assert_eq!(crate::operands::op_slot(op as u16), Some(slot), "{op:?}");
            let slot = u16::try_from(slot).expect("slots fit in 16 bits");
            assert_eq!(set.has_slot(slot), pred(op), "{op:?}");
        }
        assert!(known > 700, "{known} opcodes");
    }

    /// The shared corpus's modules (`None` when it is absent) and mutants of every tenth
    /// module (whose unknown opcodes and enumerants the reader warns about).
    fn corpus_and_mutants() -> Option<Vec<Vec<u32>>> {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        let Ok(manifest) = std::fs::read_to_string(dir.join("manifest.tsv")) else {
            eprintln!("skipped: no corpus at {}", dir.display());
            return None;
        };
        let mut modules = Vec::new();
        for (k, line) in manifest.lines().skip(1).enumerate() {
            let path = line.split('\t').next().unwrap_or("");
            let Ok(bytes) = std::fs::read(dir.join(path)) else {
                continue;
            };
            let words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if k % 10 == 0 {
                modules.extend(
                    crate::mutate::mutants(&words, k as u64, 8)
                        .into_iter()
                        .map(|(_, w)| w),
                );
            }
            modules.push(words);
        }
        Some(modules)
    }

    /// The index's referring ids and decode verdict of every instruction, against the full
    /// operand decoder (`operands::decode`, which never trusts the reader): the index skips
    /// the operand tests of the instructions the reader decoded without a warning, which
    /// must change nothing. Over the shared corpus (skipped when absent) and mutants, so
    /// that both paths are compared.
    #[test]
    fn located_refs_are_the_decoded_refs() {
        let Some(modules) = corpus_and_mutants() else {
            return;
        };
        let (mut compared, mut warned) = (0, 0);
        let mut operands = Vec::new();
        for words in &modules {
            let Ok(module) = spv_reader::read_words(words) else {
                continue;
            };
            warned += usize::from(!module.warnings().is_empty());
            let ix = Index::new(&module, IndexStorage::default());
            for inst in module.instructions() {
                let decoded = decode(inst, &mut operands).is_ok();
                let expected: Vec<Ref> = if decoded {
                    operands
                        .iter()
                        .filter(|o| o.kind.is_ref())
                        .map(|o| Ref {
                            kind: o.kind,
                            id: Id(inst.words()[usize::from(o.word)]),
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let view = ix.inst(inst.index()).unwrap();
                assert_eq!(view.decoded(), decoded, "{inst}");
                assert_eq!(ix.refs(inst.index()), expected.as_slice(), "{inst}");
                compared += 1;
            }
        }
        // The corpus has over a thousand modules, and some mutants carry warnings.
        assert!(compared > 100_000, "{compared} instructions compared");
        assert!(warned > 0);
    }

    /// The function and block of every instruction and id, which the index's loop follows
    /// with a cursor, against the reader's function and block ranges walked one by one (as
    /// the index once filled them): an instruction belongs to the function from its
    /// `OpFunction` to its `OpFunctionEnd`; an id to the function and block whose range
    /// defines it (a parameter to no block), and a function's own id to none, but it names
    /// the function.
    #[test]
    fn cursor_places_are_the_function_and_block_ranges() {
        let Some(modules) = corpus_and_mutants() else {
            return;
        };
        let mut compared = 0;
        for words in &modules {
            let Ok(module) = spv_reader::read_words(words) else {
                continue;
            };
            let ix = Index::new(&module, IndexStorage::default());
            let n = ix.insts().len();
            let mut funcs = vec![NONE; n];
            let mut places = vec![(NONE, NONE, NONE); ix.id_count()];
            for (fi, f) in module.functions().iter().enumerate() {
                let fi = fi as u32;
                for i in f.def.0..=f.end.0 {
                    funcs[i as usize] = fi;
                }
                for &p in &f.params {
                    places[p.0 as usize] = (fi, NONE, NONE);
                }
                for (bi, b) in f.blocks.iter().enumerate() {
                    for inst in ix.insts_in(b.label_inst.0..b.terminator.0 + 1) {
                        if let Some(r) = inst.result_id() {
                            places[r.0 as usize] = (fi, bi as u32, NONE);
                        }
                    }
                }
                places[f.id.0 as usize] = (NONE, NONE, fi);
            }
            for (inst, &func) in ix.insts().zip(&funcs) {
                assert_eq!(inst.func(), func, "instruction {}", inst.index);
            }
            for (id, &place) in places.iter().enumerate() {
                let info = ix.id(Id(id as u32)).unwrap();
                let function = ix.function_index(Id(id as u32)).map_or(NONE, |f| f as u32);
                assert_eq!((info.func, info.block, function), place, "%{id}");
                compared += 1;
            }
        }
        assert!(compared > 100_000, "{compared} ids compared");
    }

    /// The instruction record keeps its size (see [`Inst`]): the index writes one per
    /// instruction and every pass reads them.
    #[test]
    fn inst_is_48_bytes() {
        assert_eq!(std::mem::size_of::<Inst<'_>>(), 48);
    }

    /// `refs_in` of every range (empty, reversed and past the end included) is the
    /// instructions' `refs_of`, concatenated one by one: the two are computed independently
    /// (one slice of the shared table against a walk over the instructions).
    #[test]
    fn refs_in_is_the_concatenation_of_refs_of() {
        let mut b = Builder::new();
        b.capability(spirv::Capability::Shader);
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let void = b.type_void();
        let int = b.type_int(32, 1);
        let one = b.constant_bit32(int, 1);
        let fn_ty = b.type_function(void, vec![]);
        let main = b
            .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        let sum = b.i_add(int, None, one, one).unwrap();
        b.i_mul(int, None, sum, one).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![]);
        let words = b.module().assemble();
        let module = spv_reader::read_words(&words).unwrap();
        let ix = Index::new(&module, IndexStorage::default());
        let n = ix.insts().len() as u32;
        let mut nonempty = 0;
        for start in 0..=n + 2 {
            for end in 0..=n + 2 {
                let walked: Vec<Ref> = ix
                    .insts_in(start..end)
                    .flat_map(|inst| ix.refs_of(inst).iter().copied())
                    .collect();
                assert_eq!(ix.refs_in(start..end), walked.as_slice(), "{start}..{end}");
                nonempty += usize::from(!walked.is_empty());
            }
        }
        // The ranges over the function body refer to ids, so the comparison saw some.
        assert!(nonempty > 0);
    }
}
