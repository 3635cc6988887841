//! The fast path of the operand checks: instructions whose operands are plain enough
//! (one-word ids, literals and enumerants, then a string, a decoration, a typed literal, an
//! optional mask or OpExtInst ids; see `grammar::FastShape`) are checked here without the
//! generic grammar walk of `operands`, with the same rules and messages.

use super::ids::{check_id_operand, check_result_type};
use super::{Reader, Site};
use crate::enumerants;
use crate::error::{ErrorKind, ReadError};
use crate::grammar::{FastShape, Forward, OpInfo, Tail};
use crate::module::Span;
use crate::operands::{self, decode_string};
use crate::rspirv::grammar::OperandKind as K;
use crate::spirv::Op;
use std::sync::OnceLock;

impl Reader {
    /// R-5 … for an instruction of plain layout ([`FastShape`]), checked
    /// without the grammar walk. Returns `false`, before changing anything, when the
    /// instruction carries operands only the walk decodes (or too few words, which the
    /// walk reports).
    pub(super) fn fast_operands(
        &mut self,
        at: Site,
        op: Op,
        info: &OpInfo,
        shape: FastShape,
        words: &[u32],
    ) -> Result<bool, ReadError> {
        let head = 1 + usize::from(info.has_type) + usize::from(info.has_result);
        let Some(operands) = words.get(head..) else {
            return Ok(false);
        };
        let fixed = usize::from(shape.fixed);
        let Some(extra) = operands.len().checked_sub(fixed) else {
            return Ok(false);
        };
        let plain = match shape.tail {
            Tail::None | Tail::Other => extra == 0,
            Tail::Ids | Tail::Literals => true,
            Tail::OptionalId => extra <= 1,
            Tail::String | Tail::Number => extra >= 1,
            Tail::Decoration => operands
                .get(fixed)
                .is_some_and(|&d| plain_decoration(d).is_some()),
            Tail::OptionalMask(kind) => match operands.get(fixed) {
                None => true,
                Some(&mask) => enumerants::plain_mask_parameters(kind, mask) == Some(extra - 1),
            },
        };
        // A mask among the fixed operands must have known bits without parameters.
        let plain_enumerant = match shape.enumerant {
            Some((i, kind)) if enumerants::is_mask(kind) => operands
                .get(usize::from(i))
                .is_some_and(|&m| enumerants::plain_mask_parameters(kind, m) == Some(0)),
            _ => true,
        };
        if !plain || !plain_enumerant {
            return Ok(false);
        }
        let mut forward = info.forward;
        if shape.ext_inst {
            // OpExtInst: the set's grammar must give ids alone for this instruction, and as
            // many as the instruction has (after the set and the instruction number).
            let set = operands.first().copied().unwrap_or(0);
            let number = operands.get(1).copied().unwrap_or(0);
            let Some(import) = self.module.ext_inst_imports.iter().find(|s| s.id == set) else {
                return Ok(false);
            };
            if !import.takes_ids_only(number, operands.len().saturating_sub(2)) {
                return Ok(false);
            }
            forward = import.forward;
        }
        let info = OpInfo { forward, ..*info };
        let bound = self.module.header.bound;
        if info.has_type {
            let ty = words.get(1).copied().unwrap_or(0);
            check_result_type(bound, &self.module.ids, ty).map_err(|p| at.problem(p))?;
        }
        // Ids among the fixed operands, in order (the mask bits), then an id tail.
        let mut position = 0;
        let mut mask = u32::from(shape.id_mask);
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let word = operands.get(i).copied().unwrap_or(0);
            check_id_operand(
                bound,
                &mut self.module.ids,
                &mut self.forward_refs,
                info.forward,
                position,
                word,
                at,
            )
            .map_err(|p| at.problem(p))?;
            position += 1;
        }
        if matches!(shape.tail, Tail::Ids | Tail::OptionalId) {
            for &word in operands.get(fixed..).unwrap_or(&[]) {
                check_id_operand(
                    bound,
                    &mut self.module.ids,
                    &mut self.forward_refs,
                    info.forward,
                    position,
                    word,
                    at,
                )
                .map_err(|p| at.problem(p))?;
                position += 1;
            }
        }
        if let Some((i, kind)) = shape.enumerant
            && !enumerants::is_mask(kind)
        {
            // (A mask here was checked above: known bits without parameters.)
            let value = operands.get(usize::from(i)).copied().unwrap_or(0);
            if !enumerants::enum_is_known(kind, value) {
                self.warn(at, format!("unknown {kind:?} {value}"));
            }
        }
        if matches!(
            shape.tail,
            Tail::String | Tail::Decoration | Tail::OptionalMask(_) | Tail::Number
        ) {
            let rest = operands.get(fixed..).unwrap_or(&[]);
            self.fast_tail(at, op, shape.tail, words, rest, position)?;
        }
        Ok(true)
    }

    /// The tails of [`Tail`] that carry more than ids and literals; `rest` starts after the
    /// fixed operands, `ids_before` counts the id operands before it.
    #[inline(never)]
    pub(super) fn fast_tail(
        &mut self,
        at: Site,
        op: Op,
        tail: Tail,
        words: &[u32],
        rest: &[u32],
        ids_before: u32,
    ) -> Result<(), ReadError> {
        match tail {
            Tail::String => {
                let keep = matches!(
                    op,
                    Op::Extension | Op::ExtInstImport | Op::Name | Op::MemberName
                );
                let consumed = self.fast_string(at, rest, keep)?;
                if consumed != rest.len() {
                    return Err(at.err(
                        ErrorKind::Operands,
                        format!("{} words left over after the string", rest.len() - consumed),
                    ));
                }
            }
            Tail::Decoration => self.fast_decoration(at, rest, ids_before)?,
            Tail::OptionalMask(kind) => {
                let mask = rest.first().copied().unwrap_or(0);
                let params = rest.get(1..).unwrap_or(&[]);
                self.fast_mask_parameters(at, kind, mask, params, ids_before)?;
            }
            Tail::Number => {
                let ty = words.get(1).copied().unwrap_or(0);
                self.fast_number(at, ty, rest)?;
            }
            Tail::None | Tail::Ids | Tail::Literals | Tail::OptionalId | Tail::Other => {}
        }
        Ok(())
    }

    /// R-6 for the string at the start of `words`; stores it when `keep`. Returns the words
    /// it occupies.
    pub(super) fn fast_string(
        &mut self,
        at: Site,
        words: &[u32],
        keep: bool,
    ) -> Result<usize, ReadError> {
        if let Some(consumed) = self.ascii_string(words, keep) {
            return Ok(consumed);
        }
        let (consumed, checked) = decode_string(words, &mut self.bytes);
        checked.map_err(|m| at.err(ErrorKind::String, m))?;
        let text = std::str::from_utf8(&self.bytes)
            .map_err(|e| at.err(ErrorKind::String, format!("the string is not UTF-8: {e}")))?;
        if keep {
            let start = self.module.strings.len() as u32;
            self.module.strings.extend_from_slice(text.as_bytes());
            self.captured = Some(Span {
                start,
                end: self.module.strings.len() as u32,
            });
        }
        Ok(consumed)
    }

    /// The common case of [`Reader::fast_string`]: an ASCII string (hence UTF-8) whose nul
    /// word has zero padding and that fits the length limit, stored when `keep`. `None`
    /// when the string needs the general path (non-ASCII, malformed, too long).
    pub(super) fn ascii_string(&mut self, words: &[u32], keep: bool) -> Option<usize> {
        let consumed = operands::ascii_string_words(words)?;
        if keep {
            let string = words.get(..consumed).unwrap_or(&[]);
            self.captured = Some(self.keep_ascii(string));
        }
        Some(consumed)
    }

    /// for the parameters of a mask that `plain_mask_parameters` accepted: ids are
    /// checked in bit order, literals skipped.
    pub(super) fn fast_mask_parameters(
        &mut self,
        at: Site,
        kind: K,
        mask: u32,
        params: &[u32],
        ids_before: u32,
    ) -> Result<(), ReadError> {
        let mut words = params.iter();
        let mut position = ids_before;
        let mut bits = mask;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            bits &= !bit;
            for &param in enumerants::mask_bit_parameters(kind, bit).unwrap_or(&[]) {
                let word = words.next().copied().unwrap_or(0);
                if matches!(param, K::IdRef | K::IdScope) {
                    check_id_operand(
                        self.module.header.bound,
                        &mut self.module.ids,
                        &mut self.forward_refs,
                        Forward::Never,
                        position,
                        word,
                        at,
                    )
                    .map_err(|p| at.problem(p))?;
                    position += 1;
                }
            }
        }
        Ok(())
    }

    /// for a decoration and its parameters (`words` starts at the decoration);
    /// `plain_decoration` said every parameter is a literal, id, string or enumerant.
    pub(super) fn fast_decoration(
        &mut self,
        at: Site,
        words: &[u32],
        ids_before: u32,
    ) -> Result<(), ReadError> {
        let value = words.first().copied().unwrap_or(0);
        let mut pos = 1;
        let mut position = ids_before;
        for &kind in plain_decoration(value).unwrap_or(&[]) {
            let Some(&word) = words.get(pos) else {
                return Err(at.err(
                    ErrorKind::Operands,
                    format!("parameter {kind:?} of Decoration {value} is missing"),
                ));
            };
            match kind {
                K::LiteralInteger => pos += 1,
                K::IdRef | K::IdScope => {
                    check_id_operand(
                        self.module.header.bound,
                        &mut self.module.ids,
                        &mut self.forward_refs,
                        Forward::Any,
                        position,
                        word,
                        at,
                    )
                    .map_err(|p| at.problem(p))?;
                    position += 1;
                    pos += 1;
                }
                K::LiteralString => {
                    let rest = words.get(pos..).unwrap_or(&[]);
                    pos += self.fast_string(at, rest, false)?;
                }
                _ => {
                    if !enumerants::enum_is_known(kind, word) {
                        self.warn(at, format!("unknown {kind:?} {word}"));
                    }
                    pos += 1;
                }
            }
        }
        if pos < words.len() {
            return Err(at.err(
                ErrorKind::Operands,
                format!(
                    "{} words left over after the parameters of Decoration {value}",
                    words.len() - pos
                ),
            ));
        }
        Ok(())
    }

    /// R-12 for the literal of OpConstant/OpSpecConstant: its words agree with the width of
    /// the result type `ty` (SPIR-V §2.2.1).
    pub(super) fn fast_number(&self, at: Site, ty: u32, words: &[u32]) -> Result<(), ReadError> {
        let Some(number) = self.number_type(ty) else {
            return Err(at.err(
                ErrorKind::Operands,
                format!("the result type %{ty} is not an integer or floating-point type"),
            ));
        };
        let problem = operands::check_number(number, words);
        problem.map_err(|p| at.problem(p))
    }
}

/// The parameters of decoration `value` when every one is a one-word literal, an id, a
/// string or a value enumerant (all decorations but FPFastMathMode, whose parameter is a
/// mask, and unknown ones), so that [`Reader::fast_decoration`] can check them.
#[inline]
pub(super) fn plain_decoration(value: u32) -> Option<&'static [K]> {
    /// Decoration values below this (the decorations shaders use, SPIR-V §3.20) are answered
    /// from a table computed once; the rare larger ones (vendor decorations) are computed each
    /// time. (A table over the whole grammar, values up to 8192, cost more to build than a
    /// module's read spent in it.)
    const CACHED: u32 = enumerants::COMMON_DECORATION_LIMIT;
    static PLAIN: OnceLock<Vec<Option<&'static [K]>>> = OnceLock::new();
    let compute = |value: u32| {
        let params = enumerants::decoration_parameters(value);
        let plain = enumerants::enum_is_known(K::Decoration, value)
            && params.iter().all(|&k| {
                matches!(
                    k,
                    K::LiteralInteger | K::IdRef | K::IdScope | K::LiteralString
                ) || enumerants::is_plain_enumerant(k)
            });
        plain.then_some(params)
    };
    if value >= CACHED {
        return compute(value);
    }
    let plain = PLAIN.get_or_init(|| (0..CACHED).map(compute).collect());
    plain.get(value as usize).copied().flatten()
}
