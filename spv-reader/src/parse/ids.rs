//! Id checks shared by the fast path and the grammar walk: R-8 (ids in `1..bound`) and
//! R-10 (definitions before uses, except where SPIR-V §2.4 allows forward references, which
//! are remembered and checked at the end of the module).

use super::Site;
use crate::error::ErrorKind;
use crate::grammar::Forward;
use crate::module::{FORWARD, IdSlot, NONE, Span};
use crate::operands::{Operand, Problem, Visit};
use crate::types::Warning;

/// Checks the id operands of one instruction: in `1..bound` and defined earlier
/// unless a forward reference is allowed there.
pub(super) struct CheckIds<'r> {
    pub(super) bound: u32,
    pub(super) ids: &'r mut Vec<IdSlot>,
    pub(super) forward_refs: &'r mut u32,
    pub(super) forward: Forward,
    /// Id operands seen so far (result type and result not counted).
    pub(super) id_operands: u32,
    pub(super) at: Site,
    pub(super) warnings: &'r mut Vec<Warning>,
    /// Where to store the instruction's string, for opcodes whose string the module keeps.
    pub(super) keep_string: Option<&'r mut Vec<u8>>,
    pub(super) captured: &'r mut Option<Span>,
}

/// The forward-reference policy of OpExtInst of set `name`: debug-information sets
/// describe types and scopes that refer to each other (non-semantic sets may reference
/// later ids, SPIR-V 1.6 §2.4); other sets follow the general rule.
pub(super) fn ext_set_forward(name: &str) -> Forward {
    // (A byte-window search: `str::contains` prepares a general search, dearer for names
    // this short.)
    let debug_info = name.as_bytes().windows(9).any(|w| w == b"DebugInfo");
    if name.starts_with("NonSemantic.") || debug_info {
        Forward::Any
    } else {
        Forward::Never
    }
}

/// `id` is in `1..bound`.
#[inline]
pub(super) fn in_bound(bound: u32, id: u32) -> Result<(), Problem> {
    if id == 0 || id >= bound {
        return Err(Problem::new(
            ErrorKind::Id,
            format!("id {id} is not in 1..{bound} (the header bound)"),
        ));
    }
    Ok(())
}

/// Whether `id` has been defined, or declared by OpTypeForwardPointer.
#[inline]
pub(super) fn declared(ids: &[IdSlot], id: u32) -> bool {
    // `|`, not `||`: both fields are at hand, and a branch would be hard to predict.
    ids.get(id as usize)
        .is_some_and(|s| s.is_defined() | s.is_type())
}

/// for a Result Type: in bound and declared before its use.
#[inline]
pub(super) fn check_result_type(bound: u32, ids: &[IdSlot], id: u32) -> Result<(), Problem> {
    if id != 0 && id < bound && declared(ids, id) {
        return Ok(());
    }
    undeclared_result_type(bound, id)
}

/// The failing case of [`check_result_type`].
#[cold]
pub(super) fn undeclared_result_type(bound: u32, id: u32) -> Result<(), Problem> {
    in_bound(bound, id)?;
    Err(Problem::new(
        ErrorKind::ForwardReference,
        format!("result type %{id} is not defined before its use"),
    ))
}

/// for the `position`-th id operand (result type and result not counted): in bound,
/// and defined earlier unless `forward` allows a forward reference there, which
/// [`note_forward`] then remembers for the end-of-module check.
#[inline]
pub(super) fn check_id_operand(
    bound: u32,
    ids: &mut Vec<IdSlot>,
    forward_refs: &mut u32,
    forward: Forward,
    position: u32,
    id: u32,
    at: Site,
) -> Result<(), Problem> {
    if id != 0 && id < bound && declared(ids, id) {
        return Ok(());
    }
    forward_reference(bound, ids, forward_refs, forward, position, id, at)
}

/// The other case of [`check_id_operand`]: out of bound, or not declared yet (common for
/// names and decorations, which precede what they name).
pub(super) fn forward_reference(
    bound: u32,
    ids: &mut Vec<IdSlot>,
    forward_refs: &mut u32,
    forward: Forward,
    position: u32,
    id: u32,
    at: Site,
) -> Result<(), Problem> {
    in_bound(bound, id)?;
    let allowed = match forward {
        Forward::Never | Forward::ExtInst => false,
        Forward::Any => true,
        Forward::AfterFirst => position > 0,
        Forward::FirstOnly => position == 0,
    };
    if !allowed {
        return Err(Problem::new(
            ErrorKind::ForwardReference,
            format!("%{id} is used before its definition"),
        ));
    }
    note_forward(ids, forward_refs, id, at.location.index);
    Ok(())
}

/// Remembers that instruction `index` referenced `id` before its definition (a
/// [`FORWARD`] mark in its slot, counted in `forward_refs`), unless an earlier instruction
/// did. The caller checked that `id` is below the bound, at most `MAX_ID_BOUND + 1`, and not
/// declared.
#[inline]
pub(super) fn note_forward(ids: &mut Vec<IdSlot>, forward_refs: &mut u32, id: u32, index: u32) {
    let i = id as usize;
    if i >= ids.len() {
        ids.resize(i + 1, IdSlot::EMPTY);
    }
    if let Some(slot) = ids.get_mut(i)
        && slot.def == NONE
    {
        slot.def = FORWARD | index;
        *forward_refs += 1;
    }
}

impl Visit<'_> for CheckIds<'_> {
    fn operand(&mut self, operand: Operand<'_>) -> Result<(), Problem> {
        match operand {
            Operand::ResultType(id) => check_result_type(self.bound, self.ids, id),
            Operand::Result(id) => in_bound(self.bound, id),
            Operand::Id(id) => {
                let position = self.id_operands;
                self.id_operands += 1;
                check_id_operand(
                    self.bound,
                    self.ids,
                    self.forward_refs,
                    self.forward,
                    position,
                    id,
                    self.at,
                )
            }
            _ => Ok(()),
        }
    }

    fn string(&mut self, text: &str) -> Result<(), Problem> {
        if let Some(strings) = self.keep_string.as_deref_mut() {
            let start = strings.len() as u32;
            strings.extend_from_slice(text.as_bytes());
            *self.captured = Some(Span {
                start,
                end: strings.len() as u32,
            });
        }
        Ok(())
    }

    fn tolerate(&mut self, message: String) {
        self.warnings.push(Warning {
            location: self.at.location,
            opcode: self.at.opcode,
            message,
        });
    }
}
