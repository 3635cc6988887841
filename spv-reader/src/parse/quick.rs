//! The shortest paths of the reading loop (`grammar::Quick`): the most common instructions
//! checked and recorded without building a `Result`. Each path checks what the general path
//! checks and returns `false` when anything is unusual or wrong, having changed nothing the
//! general path would do differently (at most it noted an allowed forward reference, which
//! the general path notes the same way). The general path then runs and locates the problem,
//! so errors and warnings come from one place only.

use super::Reader;
use super::ids::declared;
use crate::grammar::{Forward, Plain, PlainTail, Quick, Section};
use crate::limits::MAX_NESTING_DEPTH;
use crate::module::{NONE, Span};
use crate::operands;
use crate::rspirv::grammar::OperandKind as K;
use crate::types::{Block, Type};
use crate::{Id, InstIndex};

impl Reader {
    /// Reads instruction `index` (words `words`, starting at word `start` of the module) on
    /// its shortest path, if it has one and every check passes.
    #[inline]
    pub(super) fn quick(&mut self, quick: Quick, words: &[u32], start: usize, index: u32) -> bool {
        match quick {
            Quick::None => false,
            Quick::Plain(plain) => self.in_block() && self.plain(plain, words, index),
            Quick::Terminator(plain) => {
                self.in_block() && self.plain(plain, words, index) && self.close_block(index)
            }
            Quick::Merge(plain) => {
                self.in_block() && self.plain(plain, words, index) && self.merge(words, index)
            }
            Quick::Label => self.label(words, index),
            Quick::Name => self.name(words, index),
            Quick::MemberName => self.member_name(words, index),
            Quick::Decorate => self.quick_decorate(words, start, index, false),
            Quick::MemberDecorate => self.quick_decorate(words, start, index, true),
        }
    }

    /// for an instruction of [`Plain`] layout, and R-8 for its result,
    /// which it defines last.
    #[inline]
    fn plain(&mut self, plain: Plain, words: &[u32], index: u32) -> bool {
        let Some(operands) = words.get(usize::from(plain.head)..) else {
            return false;
        };
        let Some(tail) = operands.get(usize::from(plain.fixed)..) else {
            return false;
        };
        let tail_fits = match plain.tail {
            PlainTail::Exact => tail.is_empty(),
            PlainTail::OptionalId => tail.len() <= 1,
            PlainTail::Ids | PlainTail::Literals => true,
        };
        // Word 1 is the result type when the head has three words.
        if !tail_fits || (plain.head == 3 && !declared(&self.module.ids, word(words, 1))) {
            return false;
        }
        let mut position = 0;
        let mut mask = u32::from(plain.id_mask);
        while mask != 0 {
            let id = operands.get(mask.trailing_zeros() as usize).copied();
            if !id.is_some_and(|id| self.quick_id(id, plain.forward, position, index)) {
                return false;
            }
            position += 1;
            mask &= mask - 1;
        }
        if matches!(plain.tail, PlainTail::Ids | PlainTail::OptionalId) {
            for &id in tail {
                if !self.quick_id(id, plain.forward, position, index) {
                    return false;
                }
                position += 1;
            }
        }
        if let Some((i, kind)) = plain.enumerant {
            let value = word(operands, usize::from(i));
            let known = if operands::is_mask(kind) {
                operands::plain_mask_parameters(kind, value) == Some(0)
            } else {
                operands::enum_is_known(kind, value)
            };
            if !known {
                return false;
            }
        }
        plain.head == 1 || self.define_quick(word(words, usize::from(plain.head) - 1), index)
    }

    /// R-8 for a result: defines `id` unless it is 0, beyond the id table (which is never
    /// longer than the bound) or already defined.
    #[inline]
    fn define_quick(&mut self, id: u32, index: u32) -> bool {
        match self.module.ids.get_mut(id as usize) {
            // Slot 0 is never defined: id 0 is refused here and by the general path.
            Some(slot) if id != 0 && slot.def == NONE => {
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
        self.note_forward(id, index);
        true
    }

    /// Remembers that instruction `index` referenced `id` before its definition, unless an
    /// earlier instruction did; `id` is below the bound, at most `MAX_ID_BOUND`.
    fn note_forward(&mut self, id: u32, index: u32) {
        let i = id as usize;
        if i >= self.pending.len() {
            self.pending.resize(i + 1, NONE);
        }
        if let Some(first) = self.pending.get_mut(i)
            && *first == NONE
        {
            *first = index;
        }
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
        self.open_merges.retain(|&m| m != label);
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
        let next = self.module.names.len() as u32;
        let slot = self.slot_mut(target);
        if slot.name == NONE {
            slot.name = next;
            let span = self.keep_ascii(string);
            self.module.names.push(span);
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
        self.module.member_names.push((target, member, span));
        true
    }

    /// Appends the ASCII string of `words` (all of them, as `ascii_string_words` accepted
    /// it) to the module's strings.
    fn keep_ascii(&mut self, words: &[u32]) -> Span {
        let strings = &mut self.module.strings;
        let start = strings.len();
        strings.reserve(words.len() * 4);
        for &w in words {
            strings.extend_from_slice(&w.to_le_bytes());
        }
        // The string ends at the first nul of its last word.
        let last = words.last().copied().unwrap_or(0).to_le_bytes();
        let nul = last.iter().position(|&b| b == 0).unwrap_or(4);
        strings.truncate((start + words.len() * 4).saturating_sub(4) + nul);
        Span {
            start: start as u32,
            end: strings.len() as u32,
        }
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
        if !super::fast::decoration_is_plain(decoration) {
            return false;
        }
        let kinds = operands::decoration_parameters(decoration);
        if kinds.len() != params.len() {
            return false;
        }
        for (position, (&kind, &param)) in (1..).zip(kinds.iter().zip(params)) {
            let ok = match kind {
                K::LiteralInteger => true,
                K::IdRef | K::IdScope => self.quick_id(param, Forward::Any, position, index),
                K::LiteralString => false,
                _ => operands::enum_is_known(kind, param),
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// Word `i` of `words`, 0 when absent (callers checked the length).
#[inline]
fn word(words: &[u32], i: usize) -> u32 {
    words.get(i).copied().unwrap_or(0)
}
