//! The shortest paths of the reading loop (`grammar::Quick`): the most common instructions
//! checked and recorded without building a `Result`. Each path checks what the general path
//! checks and returns `false` when anything is unusual or wrong, having changed nothing the
//! general path would do differently (at most it noted an allowed forward reference, which
//! the general path notes the same way). The general path then runs and locates the problem,
//! so errors and warnings come from one place only.

use super::ids::{declared, note_forward};
use super::record::decode_type;
use super::{Reader, Site};
use crate::enumerants;
use crate::error::ReadError;
use crate::grammar::{Forward, OpInfo, Path, Plain, Quick, Section};
use crate::limits::MAX_NESTING_DEPTH;
use crate::module::{self, NONE, Span};
use crate::operands;
use crate::rspirv::grammar::OperandKind as K;
use crate::spare::id_list;
use crate::spirv::Op;
use crate::types::{Block, ExecutionMode, GlobalVariable, Type};
use crate::{Id, InstIndex, Location};

impl Reader {
    /// Reads instruction `index` (words `words`, starting at word `start` of the module) on
    /// its shortest path, if it has one and every check passes; `info` is the entry of its
    /// opcode, looked up only by the paths that read it.
    #[inline]
    pub(super) fn quick(
        &mut self,
        path: Path,
        info: impl Fn() -> &'static OpInfo,
        words: &[u32],
        start: usize,
        index: u32,
    ) -> Result<bool, ReadError> {
        // `path` is `info.quick`'s variant (`grammar::paths`), so each `let … else` below
        // always matches, and the paths of a layout have one in `info.plain`; the branch is
        // on the one-byte `path`, which is at hand sooner.
        Ok(match path {
            Path::None => false,
            Path::Plain => self.shaped::<PLAIN>(&info().plain, Op::Nop, words, start, index),
            Path::Terminator => {
                self.shaped::<TERMINATOR>(&info().plain, Op::Nop, words, start, index)
            }
            Path::Merge => self.shaped::<MERGE>(&info().plain, Op::Nop, words, start, index),
            Path::Variable => self.shaped::<VARIABLE>(&info().plain, Op::Nop, words, start, index),
            Path::Type => {
                let info = info();
                let Quick::Type(op) = info.quick else {
                    return Ok(false);
                };
                self.shaped::<TYPE>(&info.plain, op, words, start, index)
            }
            Path::Constant => {
                let info = info();
                let Quick::Constant(op) = info.quick else {
                    return Ok(false);
                };
                self.shaped::<CONSTANT>(&info.plain, op, words, start, index)
            }
            Path::Checked => {
                let info = info();
                return self.checked(info, &info.plain, words, start, index);
            }
            Path::Label => self.label(words, index),
            Path::Name => self.name(words, index),
            Path::MemberName => self.member_name(words, index),
            Path::Decorate => self.quick_decorate(words, start, index, false),
            Path::MemberDecorate => self.quick_decorate(words, start, index, true),
            Path::ExtInst => self.in_block() && self.ext_inst(words, index),
            Path::ExtInstImport => self.ext_inst_import(words, index),
            Path::Extension => self.extension(words),
            Path::EntryPoint => self.quick_entry_point(words, index),
            Path::ExecutionMode => self.execution_mode(words, index),
        })
    }

    /// An instruction of [`Plain`] layout: for where it is, R-5, R-7, R-8 and
    /// R-10 for its operands, R-8 for its result, then what `KIND` (one of the constants
    /// below, so that each kind gets its own copy without a branch on it) records: `op` is
    /// the type or constant declared; the instruction is number `index` and starts at word
    /// `start` of the module.
    #[inline]
    fn shaped<const KIND: u8>(
        &mut self,
        plain: &Plain,
        op: Op,
        words: &[u32],
        start: usize,
        index: u32,
    ) -> bool {
        let global = self.open.is_none();
        let placed = match KIND {
            TYPE | CONSTANT => self.in_section(Section::Globals),
            VARIABLE if global => self.in_section(Section::Globals),
            _ => self.in_block(),
        };
        if !placed {
            return false;
        }
        // Terminators and merge instructions name blocks, most often ones not reached yet.
        let operands = match KIND {
            TERMINATOR | MERGE => self.label_operands(plain, words, index),
            _ => self.plain_operands(plain, words, index),
        };
        if !operands {
            return false;
        }
        // The result is the last head word.
        let result = (plain.head > 1).then(|| word(words, usize::from(plain.head) - 1));
        match KIND {
            // (No terminator or merge instruction has a result.)
            TERMINATOR => result.is_none() && self.close_block(index),
            MERGE => result.is_none() && self.merge(words, index),
            VARIABLE if global => self.global_variable(words, index),
            TYPE => self.type_declaration(op, words, index),
            CONSTANT => {
                // (A location for the constant's problems only: not made for every
                // instruction.)
                let at = Location {
                    index,
                    byte_offset: (start * 4) as u32,
                };
                self.constant_declaration(op, words, at)
            }
            _ => result.is_none_or(|id| self.define_quick(id, index)),
        }
    }

    /// Any other instruction of [`Plain`] layout: R-9 and its operands here, then what the
    /// general path records for it (whose errors are those the general path would report
    /// at that point).
    #[inline(never)]
    fn checked(
        &mut self,
        info: &OpInfo,
        plain: &Plain,
        words: &[u32],
        start: usize,
        index: u32,
    ) -> Result<bool, ReadError> {
        let Some(grammar) = info.grammar() else {
            return Ok(false);
        };
        let op = grammar.opcode;
        if !self.layout_allows(op, info.placement) || !self.plain_operands(plain, words, index) {
            return Ok(false);
        }
        let result = (plain.head > 1).then(|| word(words, usize::from(plain.head) - 1));
        if result.is_some_and(|id| !self.define_quick(id, index)) {
            return Ok(false);
        }
        let at = Site {
            location: Location {
                index,
                byte_offset: (start * 4) as u32,
            },
            opcode: op as u16,
        };
        self.after_operands(at, op, info, words, start)?;
        Ok(true)
    }

    /// for the operands of an instruction of [`Plain`] layout (the
    /// result excepted).
    #[inline(always)]
    fn plain_operands(&mut self, plain: &Plain, words: &[u32], index: u32) -> bool {
        let count = words.len();
        if count < usize::from(plain.min_words) || count > usize::from(plain.max_words) {
            return false;
        }
        let ids = &self.module.ids;
        let mut declared_all = true;
        // The fixed ids and the tail's below word 64 in one loop: a second loop, entered or
        // not, would add a branch that is hard to predict.
        let below_end = 1u64
            .checked_shl(count as u32)
            .map_or(u64::MAX, |end| end - 1);
        let mut mask = u64::from(plain.id_words) | (plain.tail_words & below_end);
        while mask != 0 {
            declared_all &= declared(ids, word(words, mask.trailing_zeros() as usize));
            mask &= mask - 1;
        }
        if count > 64 {
            // No id tail: `id_tail` is past the end.
            let from = usize::from(plain.id_tail).max(64);
            for &id in words.get(from..).unwrap_or(&[]) {
                declared_all &= declared(ids, id);
            }
        }
        if plain.extras && !self.plain_extras(plain, words) {
            return false;
        }
        declared_all || self.plain_forward(plain, words, index)
    }

    /// [`Reader::plain_operands`] for the operands of a terminator or a merge instruction,
    /// whose labels are forward references as often as not: the undeclared positions are
    /// gathered, judged against the allowed ones at once and noted here, rather than judged
    /// again one by one by [`Reader::plain_forward`].
    #[inline(always)]
    fn label_operands(&mut self, plain: &Plain, words: &[u32], index: u32) -> bool {
        let count = words.len();
        if usize::from(plain.id_tail) < count {
            return self.plain_operands(plain, words, index);
        }
        if count < usize::from(plain.min_words) || count > usize::from(plain.max_words) {
            return false;
        }
        let undeclared = self.undeclared_fixed(plain, words);
        if plain.extras && !self.plain_extras(plain, words) {
            return false;
        }
        self.forward_fixed(plain, words, undeclared, index)
    }

    /// The positions of the fixed ids of a [`Plain`] layout (the result type included) that
    /// are not declared yet.
    #[inline(always)]
    fn undeclared_fixed(&self, plain: &Plain, words: &[u32]) -> u32 {
        let mut undeclared = 0u32;
        let mut mask = plain.id_words;
        while mask != 0 {
            let at = mask.trailing_zeros();
            let id = word(words, at as usize);
            undeclared |= u32::from(!declared(&self.module.ids, id)) << at;
            mask &= mask - 1;
        }
        undeclared
    }

    /// for the fixed ids at the `undeclared` positions: each a forward reference
    /// the opcode allows there (judged for all at once), in `1..bound`, noted for the
    /// end-of-module check.
    #[inline(always)]
    fn forward_fixed(&mut self, plain: &Plain, words: &[u32], undeclared: u32, index: u32) -> bool {
        if undeclared & !plain.forward_words != 0 {
            return false;
        }
        let bound = self.module.header.bound;
        let mut undeclared = undeclared;
        while undeclared != 0 {
            let id = word(words, undeclared.trailing_zeros() as usize);
            if id == 0 || id >= bound {
                return false;
            }
            note_forward(&mut self.module.ids, &mut self.forward_refs, id, index);
            undeclared &= undeclared - 1;
        }
        true
    }

    /// The rarer checks of a [`Plain`] layout: an even id-pair tail, the enumerants, the
    /// width of OpConstant's literal.
    fn plain_extras(&self, plain: &Plain, words: &[u32]) -> bool {
        let count = words.len();
        if plain.id_pairs && !(count - usize::from(plain.id_tail)).is_multiple_of(2) {
            return false;
        }
        // The enumerants fill their slots in order.
        for enumerant in &plain.enumerants {
            if enumerant.at != 0 && !enumerant.accepts(word(words, usize::from(enumerant.at))) {
                return false;
            }
        }
        !plain.number || self.plain_number(words, usize::from(plain.min_words) - 1)
    }

    /// R-12 for OpConstant's literal, from word `at` to the end: as wide as the result type.
    fn plain_number(&self, words: &[u32], at: usize) -> bool {
        let literal = words.get(at..).unwrap_or(&[]);
        self.number_type(word(words, 1))
            .is_some_and(|number| operands::check_number(number, literal).is_ok())
    }

    /// [`Reader::plain_operands`]' id checks when some id is not declared yet: each must be a
    /// forward reference the opcode allows at its position (the result type is not an
    /// operand and must be declared), in `1..bound`, which is noted for the end-of-module
    /// check.
    #[inline(never)]
    fn plain_forward(&mut self, plain: &Plain, words: &[u32], index: u32) -> bool {
        let undeclared = self.undeclared_fixed(plain, words);
        if !self.forward_fixed(plain, words, undeclared, index) {
            return false;
        }
        let bound = self.module.header.bound;
        let [first, rest] = plain.forward_tail;
        let tail = words.get(usize::from(plain.id_tail)..).unwrap_or(&[]);
        for (i, &id) in tail.iter().enumerate() {
            if declared(&self.module.ids, id) {
                continue;
            }
            let allowed = if i == 0 { first } else { rest };
            if !allowed || id == 0 || id >= bound {
                return false;
            }
            note_forward(&mut self.module.ids, &mut self.forward_refs, id, index);
        }
        true
    }

    /// A type declaration whose operands were checked: its result and its type.
    fn type_declaration(&mut self, op: Op, words: &[u32], index: u32) -> bool {
        // The type is decoded before the result is defined, so that nothing is changed if
        // it cannot be. Types have a result and no result type.
        let Ok(ty) = decode_type(op, words, &mut self.module.id_lists) else {
            return false;
        };
        let result = word(words, 1);
        if !self.define_quick(result, index) {
            return false;
        }
        self.section = Section::Globals;
        let next = self.module.types.len() as u32;
        self.set_value(result, next);
        self.module.types.push(ty);
        true
    }

    /// A constant declaration whose operands were checked: its result and its value.
    fn constant_declaration(&mut self, op: Op, words: &[u32], location: Location) -> bool {
        let index = location.index;
        let at = Site {
            location,
            opcode: op as u16,
        };
        // The constant is decoded before the result is defined, so that nothing is changed
        // if it cannot be. Constants have a result type and a result.
        let Ok(Some(constant)) = self.constant_of(at, op, words, Some(word(words, 1))) else {
            return false;
        };
        let result = word(words, 2);
        if !self.define_quick(result, index) {
            return false;
        }
        self.section = Section::Globals;
        let next = self.module.constants.len() as u32;
        self.set_value(result, module::CONSTANT | next);
        self.module.constants.push(constant);
        true
    }

    /// A module-scope OpVariable whose operands were checked: its result and its record.
    fn global_variable(&mut self, words: &[u32], index: u32) -> bool {
        if !self.define_quick(word(words, 2), index) {
            return false;
        }
        self.section = Section::Globals;
        self.module.global_variables.push(GlobalVariable {
            inst: InstIndex(index),
            id: Id(word(words, 2)),
            ty: Id(word(words, 1)),
            storage_class: word(words, 3),
            initializer: words.get(4).copied().map(Id),
            data_type: None,
        });
        true
    }

    /// R-8 for a result: defines `id` unless it is 0, beyond the id table (which is never
    /// longer than the bound) or already defined.
    #[inline]
    fn define_quick(&mut self, id: u32, index: u32) -> bool {
        match self.module.ids.get_mut(id as usize) {
            // Slot 0 is never defined: id 0 is refused here and by the general path.
            Some(slot) if id != 0 && !slot.is_defined() => {
                if slot.def != NONE {
                    self.forward_refs -= 1;
                }
                slot.def = index;
                true
            }
            _ => false,
        }
    }

    /// for the `position`-th id operand: declared earlier, or a forward reference
    /// that `forward` allows, in `1..bound`, which is noted for the end-of-module check.
    #[inline]
    fn quick_id(&mut self, id: u32, forward: Forward, position: u32, index: u32) -> bool {
        if declared(&self.module.ids, id) {
            return true;
        }
        let allowed = match forward {
            Forward::Never | Forward::ExtInst => false,
            Forward::Any => true,
            Forward::AfterFirst => position > 0,
            Forward::FirstOnly => position == 0,
        };
        if !allowed || id == 0 || id >= self.module.header.bound {
            return false;
        }
        note_forward(&mut self.module.ids, &mut self.forward_refs, id, index);
        true
    }

    /// for an id that may be a forward reference (the target of a name or a
    /// decoration), noted if it is one.
    fn forward_target(&mut self, id: u32, index: u32) -> bool {
        self.quick_id(id, Forward::Any, 0, index)
    }

    /// R-11 for a terminator in the open block: the block's merge instruction, if any, is
    /// the one before it. Closes the block.
    fn close_block(&mut self, index: u32) -> bool {
        let Some(open) = &mut self.open else {
            return false;
        };
        let Some(mut block) = open.block else {
            return false;
        };
        if block.merge.is_some_and(|merge| merge.0 + 1 != index) {
            return false;
        }
        block.terminator = InstIndex(index);
        open.block = None;
        open.function.blocks.push(block);
        true
    }

    /// R-11 for a merge instruction: the first of its block, within the nesting limit.
    fn merge(&mut self, words: &[u32], index: u32) -> bool {
        let nested = self.open_merges.len() < MAX_NESTING_DEPTH;
        let Some(block) = self.open.as_mut().and_then(|open| open.block.as_mut()) else {
            return false;
        };
        if block.merge.is_some() || !nested {
            return false;
        }
        block.merge = Some(InstIndex(index));
        self.open_merges.push(word(words, 1));
        true
    }

    /// OpLabel: a new block in the open function, after the terminator of
    /// the previous one, and after the parameters its function type announces.
    fn label(&mut self, words: &[u32], index: u32) -> bool {
        let &[_, label] = words else {
            return false;
        };
        let Some(open) = &self.open else {
            return false;
        };
        if open.block.is_some() {
            return false;
        }
        if open.function.blocks.is_empty() {
            let params = open.function.params.len();
            let ty = open.function.function_type;
            if !matches!(self.module.ty(ty), Some(Type::Function { params: p, .. }) if p.len() == params)
            {
                return false;
            }
        }
        if !self.define_quick(label, index) {
            return false;
        }
        self.open_merges.reach(label);
        if let Some(open) = &mut self.open {
            open.block = Some(Block {
                label: Id(label),
                label_inst: InstIndex(index),
                first: InstIndex(index + 1),
                merge: None,
                terminator: InstIndex(index),
            });
        }
        true
    }

    /// Whether a module-level instruction of `section` may come now (R-9, SPIR-V §2.4).
    fn in_section(&self, section: Section) -> bool {
        self.open.is_none() && self.section <= section
    }

    /// OpName: the target (possibly a forward reference) and its ASCII name, kept when it is
    /// the target's first.
    fn name(&mut self, words: &[u32], index: u32) -> bool {
        let &[_, target, ref string @ ..] = words else {
            return false;
        };
        if !self.in_section(Section::DebugNames)
            || operands::ascii_string_words(string) != Some(string.len())
            || !self.forward_target(target, index)
        {
            return false;
        }
        self.section = Section::DebugNames;
        if self.unnamed(target) {
            let span = self.keep_ascii(string);
            self.keep_name(target, span);
        }
        true
    }

    /// OpMemberName: the target (possibly a forward reference), the member and its ASCII name.
    fn member_name(&mut self, words: &[u32], index: u32) -> bool {
        let &[_, target, member, ref string @ ..] = words else {
            return false;
        };
        if !self.in_section(Section::DebugNames)
            || operands::ascii_string_words(string) != Some(string.len())
            || !self.forward_target(target, index)
        {
            return false;
        }
        self.section = Section::DebugNames;
        let span = self.keep_ascii(string);
        self.module.tables.push_member_name(target, member, span);
        true
    }

    /// Appends the ASCII string of `words` (all of them, as `ascii_string_words` accepted
    /// it) to the module's strings.
    pub(super) fn keep_ascii(&mut self, words: &[u32]) -> Span {
        let strings = &mut self.module.strings;
        let start = strings.len();
        strings.reserve(words.len() * 4);
        for &w in words {
            strings.extend_from_slice(&w.to_le_bytes());
        }
        // The string ends at the first nul of its last word.
        let last = words.last().copied().unwrap_or(0);
        let nul = operands::nul_bits(last).trailing_zeros() as usize / 8;
        strings.truncate((start + words.len() * 4).saturating_sub(4) + nul);
        Span {
            start: start as u32,
            end: strings.len() as u32,
        }
    }

    /// OpExtInst in a block, when the grammar of its set (if this crate has one) gives the
    /// instruction ids alone, as many as it has; forward references as the set allows.
    fn ext_inst(&mut self, words: &[u32], index: u32) -> bool {
        let &[_, ty, result, set, number, ref operands @ ..] = words else {
            return false;
        };
        let Some(import) = self.module.ext_inst_imports.iter().find(|s| s.id == set) else {
            return false;
        };
        let ids_only = import.takes_ids_only(number, operands.len());
        let forward = import.forward;
        if !ids_only || !declared(&self.module.ids, ty) || !self.quick_id(set, forward, 0, index) {
            return false;
        }
        for (position, &id) in (1..).zip(operands) {
            if !self.quick_id(id, forward, position, index) {
                return false;
            }
        }
        self.define_quick(result, index)
    }

    /// OpExtInstImport: an ASCII set name, kept with the set's facts.
    #[inline(never)]
    fn ext_inst_import(&mut self, words: &[u32], index: u32) -> bool {
        let &[_, result, ref name @ ..] = words else {
            return false;
        };
        if !self.in_section(Section::ExtInstImports)
            || operands::ascii_string_words(name) != Some(name.len())
            || !self.define_quick(result, index)
        {
            return false;
        }
        self.section = Section::ExtInstImports;
        let span = self.keep_ascii(name);
        self.import_set(result, span);
        true
    }

    /// OpExtension: an ASCII name, kept.
    #[inline(never)]
    fn extension(&mut self, words: &[u32]) -> bool {
        let Some((_, name)) = words.split_first() else {
            return false;
        };
        if !self.in_section(Section::Extensions)
            || operands::ascii_string_words(name) != Some(name.len())
        {
            return false;
        }
        self.section = Section::Extensions;
        let span = self.keep_ascii(name);
        self.module.extensions.push(span);
        true
    }

    /// OpEntryPoint: a known execution model, the function and the interface (possibly
    /// forward references) and an ASCII name.
    #[inline(never)]
    fn quick_entry_point(&mut self, words: &[u32], index: u32) -> bool {
        let &[_, model, function, ref rest @ ..] = words else {
            return false;
        };
        let Some(name_words) = operands::ascii_string_words(rest) else {
            return false;
        };
        let (name, interface) = rest.split_at(name_words.min(rest.len()));
        if !self.in_section(Section::EntryPoints)
            || !enumerants::enum_is_known(K::ExecutionModel, model)
            || !self.forward_target(function, index)
            || !interface.iter().all(|&id| self.forward_target(id, index))
        {
            return false;
        }
        self.section = Section::EntryPoints;
        let span = self.keep_ascii(name);
        let interface = id_list(&mut self.module.id_lists, interface);
        self.entry_point(index, model, function, span, interface);
        true
    }

    /// OpExecutionMode of a known mode whose parameters are literals.
    #[inline(never)]
    fn execution_mode(&mut self, words: &[u32], index: u32) -> bool {
        let &[_, target, mode, ref params @ ..] = words else {
            return false;
        };
        let kinds = enumerants::execution_mode_parameters(mode);
        if !self.in_section(Section::ExecutionModes)
            || !enumerants::enum_is_known(K::ExecutionMode, mode)
            || kinds.len() != params.len()
            || kinds.iter().any(|&k| k != K::LiteralInteger)
            || !self.forward_target(target, index)
        {
            return false;
        }
        self.section = Section::ExecutionModes;
        self.module.execution_modes.push(ExecutionMode {
            inst: InstIndex(index),
            target: Id(target),
            mode,
            operands: params.to_vec(),
            is_id: false,
        });
        true
    }

    /// OpDecorate and OpMemberDecorate whose decoration takes literals, ids or known value
    /// enumerants.
    fn quick_decorate(&mut self, words: &[u32], start: usize, index: u32, member: bool) -> bool {
        let (target, member, rest) = match (member, words) {
            (false, &[_, target, ref rest @ ..]) => (target, NONE, rest),
            (true, &[_, target, member, ref rest @ ..]) => (target, member, rest),
            _ => return false,
        };
        let Some((&decoration, params)) = rest.split_first() else {
            return false;
        };
        if !self.in_section(Section::Annotations)
            || !self.forward_target(target, index)
            || !self.decoration_parameters(decoration, params, index)
        {
            return false;
        }
        self.section = Section::Annotations;
        let count = words.len();
        let operands_start = start + count - params.len();
        self.decorate(
            index,
            target,
            member,
            decoration,
            operands_start,
            start + count,
        );
        true
    }

    /// for the parameters of a decoration that takes exactly `params`, each a
    /// literal, an id or a known value enumerant.
    fn decoration_parameters(&mut self, decoration: u32, params: &[u32], index: u32) -> bool {
        let Some(kinds) = super::fast::plain_decoration(decoration) else {
            return false;
        };
        if kinds.len() != params.len() {
            return false;
        }
        for (position, (&kind, &param)) in (1..).zip(kinds.iter().zip(params)) {
            let ok = match kind {
                K::LiteralInteger => true,
                K::IdRef | K::IdScope => self.quick_id(param, Forward::Any, position, index),
                K::LiteralString => false,
                _ => enumerants::enum_is_known(kind, param),
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// The kinds of [`Reader::shaped`].
const PLAIN: u8 = 0;
const TERMINATOR: u8 = 1;
const MERGE: u8 = 2;
const VARIABLE: u8 = 3;
const TYPE: u8 = 4;
const CONSTANT: u8 = 5;

/// Word `i` of `words`, 0 when absent (callers checked the length).
#[inline]
fn word(words: &[u32], i: usize) -> u32 {
    words.get(i).copied().unwrap_or(0)
}
