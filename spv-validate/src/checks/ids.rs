//! Ids and SSA form (V-SSA-1, V-SSA-4, V-SSA-5) and forward references (V-LAY-10, V-LAY-3,
//! V-LAY-4): every referenced id is defined, defined before its use unless the use is one of
//! the seven allowed forward references (digest §1.5), used only inside the function that
//! defines it, and of the right kind: Result Types name types, value operands name values
//! (not types, labels, functions or imports).
//!
//! Dominance of definitions over uses (V-SSA-2/3) needs the CFG and lives in `ssa.rs`.
//!
//! The walk over the instructions is shared: it also gathers facts that need no diagnostics
//! (the logical-pointer facts of `logical_pointers.rs`), so those need no walk of their own.
//! (The value types of [`crate::ModuleInfo`] are gathered by the index as it reads.)

use spv_reader::spirv::Op;
use spv_reader::{Id, Type};

use crate::checks::layout::{is_non_semantic, is_type_decl};
use crate::checks::logical_pointers::{self, PointerFacts};
use crate::ctx::{Ctx, Inst, NONE};
use crate::diag::opcode_name;
use crate::operands::Kind;
use crate::opset::{OpBits, OpSet};

/// The opcodes whose id operands may name anything (annotations, debug names, entry points
/// and modes, type declarations, which have their own checks).
const ANY_IDS: OpSet = OpSet::of(&[
    Op::Name,
    Op::MemberName,
    Op::Decorate,
    Op::MemberDecorate,
    Op::DecorateId,
    Op::DecorateString,
    Op::MemberDecorateString,
    Op::GroupDecorate,
    Op::GroupMemberDecorate,
    Op::EntryPoint,
    Op::ExecutionMode,
    Op::ExecutionModeId,
    Op::Line,
    Op::Source,
    Op::SelectionMerge,
    Op::LoopMerge,
    Op::Branch,
]);

/// [`ANY_IDS`] and the opcodes [`names_non_value`] makes exceptions for, with OpPhi,
/// OpExtInst and OpSizeOf, which have their own exceptions: every other opcode is [`plain`].
const NOT_PLAIN: OpSet = ANY_IDS.with(&[
    Op::BranchConditional,
    Op::Switch,
    Op::Phi,
    Op::FunctionCall,
    Op::ExtInst,
    Op::Function,
    Op::CooperativeMatrixLengthKHR,
    Op::CooperativeMatrixLengthNV,
    Op::UntypedVariableKHR,
    Op::UntypedAccessChainKHR,
    Op::UntypedInBoundsAccessChainKHR,
    Op::EnqueueKernel,
    Op::GetKernelNDrangeSubGroupCount,
    Op::GetKernelNDrangeMaxSubGroupSize,
    Op::GetKernelWorkGroupSize,
    Op::GetKernelPreferredWorkGroupSizeMultiple,
    Op::GetKernelLocalSizeForSubgroupCount,
    Op::GetKernelMaxNumSubgroups,
    Op::SizeOf,
]);

/// [`NOT_PLAIN`] and the opcode sets of [`PointerFacts::visit`], as one byte per opcode:
/// the walk looks each opcode up once.
static WALK_BITS: OpBits = OpBits::of(&[
    NOT_PLAIN,
    logical_pointers::LOGICAL_POINTER_USERS,
    logical_pointers::VARIABLE_POINTER_SOURCES,
]);

/// The bit of [`WALK_BITS`] for [`NOT_PLAIN`].
const NOT_PLAIN_BIT: u8 = 1;

/// Whether every id operand of `op` may name anything ([`ANY_IDS`]).
fn takes_any_ids(op: Op) -> bool {
    ANY_IDS.contains(op)
}

/// Whether every `<id>` operand of the opcode whose [`WALK_BITS`] are `bits` (Result Type
/// and Result aside) names a value by design: none of [`takes_any_ids`] or
/// [`names_non_value`] applies, and it is not OpPhi, OpExtInst or OpSizeOf, which have
/// their own exceptions.
fn plain(bits: u8) -> bool {
    bits & NOT_PLAIN_BIT == 0
}

/// Whether the `n`-th IdRef operand (0-based, Result Type and Result not counted) of `op`
/// names something other than a value by design: a label, function, type or import.
fn names_non_value(op: Op, n: usize) -> bool {
    match op {
        Op::BranchConditional | Op::Switch => n > 0,
        Op::Phi => n % 2 == 1,
        Op::FunctionCall | Op::ExtInst | Op::Function => n == 0,
        Op::CooperativeMatrixLengthKHR | Op::CooperativeMatrixLengthNV => n == 0,
        Op::UntypedVariableKHR | Op::UntypedAccessChainKHR | Op::UntypedInBoundsAccessChainKHR => {
            n == 0
        }
        Op::EnqueueKernel
        | Op::GetKernelNDrangeSubGroupCount
        | Op::GetKernelNDrangeMaxSubGroupSize
        | Op::GetKernelWorkGroupSize
        | Op::GetKernelPreferredWorkGroupSizeMultiple
        | Op::GetKernelLocalSizeForSubgroupCount
        | Op::GetKernelMaxNumSubgroups => true,
        _ => false,
    }
}

/// Checks every instruction's ids. The same walk feeds each instruction, in module order,
/// to the facts that later passes gather without diagnostics of their own (so that they
/// need no walk of their own): the logical-pointer facts, into `pointer_facts`.
pub(crate) fn check(ctx: &mut Ctx<'_>, pointer_facts: &mut Option<PointerFacts>) {
    let ix = ctx.ix;
    // OpTypeForwardPointer declarations: pointer id → instruction index.
    let mut forward_declared: Vec<(Id, u32)> = Vec::new();
    for inst in ix.type_decls() {
        if inst.opcode() == Some(Op::TypeForwardPointer)
            && let Some(&p) = inst.words().get(1)
        {
            forward_declared.push((Id(p), inst.index().0));
        }
    }
    forward_declared.sort_unstable();
    for inst in ix.insts() {
        let op = inst.opcode();
        let bits = op.map_or(0, |op| WALK_BITS.get(op));
        if let Some(facts) = pointer_facts {
            facts.visit(ctx, inst, bits);
        }
        let Some(op) = op else { continue };
        if !clearly_fine(ctx, inst, op, plain(bits)) {
            check_inst(ctx, inst, op, &forward_declared);
        }
    }
}

/// Whether every id operand of `inst` passes the checks of [`check_inst`] without needing
/// its finer distinctions: defined, earlier or an allowed forward reference of the common
/// kinds, in the same function, and of the right kind. `false` means "look closer".
/// `plain` tells whether `op` is [`plain`].
fn clearly_fine(ctx: &Ctx<'_>, inst: &Inst<'_>, op: Op, plain: bool) -> bool {
    let ix = ctx.ix;
    let at = inst.index();
    let i = at.0;
    let here_func = inst.func();
    if plain && !inst.declares_type() {
        // Every operand but the Result Type must name a value; no forward reference is
        // needed to pass (an allowed one goes to the detailed rules).
        return ix.refs_of(inst).iter().all(|r| {
            ix.id(r.id).is_some_and(|info| {
                info.def < i
                    && (info.func == NONE || here_func == NONE || info.func == here_func)
                    && if matches!(r.kind, Kind::ResultType) {
                        info.type_decl()
                    } else {
                        info.is_value()
                    }
            })
        });
    }
    let any_ids = takes_any_ids(op) || (op == Op::ExtInst && is_non_semantic(ctx, inst));
    let type_decl = inst.declares_type();
    let mut ordinal = 0usize;
    for r in ix.refs_of(inst) {
        let Some(info) = ix.id(r.id) else {
            return false;
        };
        if info.def == NONE
            || (info.def > i
                && !(any_ids || op == Op::Phi || info.is(Op::Function) || info.is(Op::Label)))
            || (info.func != NONE && here_func != NONE && info.func != here_func)
        {
            return false;
        }
        if matches!(r.kind, Kind::ResultType) {
            if !info.type_decl() {
                return false;
            }
            continue;
        }
        let n = ordinal;
        ordinal += 1;
        if !(any_ids || type_decl || names_non_value(op, n) || info.is_value()) {
            return false;
        }
    }
    true
}

/// The id rules with their finer distinctions, for the instructions [`clearly_fine`] did
/// not clear. Cold: those are few in valid modules, and out of line the walk's loop keeps
/// its registers.
#[cold]
fn check_inst(ctx: &mut Ctx<'_>, inst: &Inst<'_>, op: Op, forward_declared: &[(Id, u32)]) {
    let ix = ctx.ix;
    let at = inst.index();
    let i = at.0;
    let here_func = inst.func();
    let non_semantic = op == Op::ExtInst && is_non_semantic(ctx, inst);
    let any_ids = takes_any_ids(op) || non_semantic;
    let type_decl = is_type_decl(op);
    let mut n_ref = 0usize;
    for r in ix.refs_of(inst) {
        let id = r.id;
        let ordinal = n_ref;
        if r.kind != Kind::ResultType {
            n_ref += 1;
        }
        let Some(info) = ix.id(id).filter(|d| d.def != NONE) else {
            ctx.err(
                "V-SSA-1",
                at,
                &[id],
                format!("ID {id} has not been defined"),
            );
            continue;
        };
        // Forward references (digest §1.5, seven cases).
        if info.def > i {
            let allowed = any_ids
                || op == Op::Phi
                || op == Op::TypeForwardPointer
                || info.is(Op::Function)
                || info.is(Op::Label)
                || forward_declared
                    .binary_search_by_key(&id, |&(p, _)| p)
                    .ok()
                    .and_then(|k| forward_declared.get(k))
                    .is_some_and(|&(_, at)| at < i && type_decl);
            if !allowed {
                let rule = if matches!(op, Op::Source | Op::Line) {
                    "V-LAY-3"
                } else {
                    "V-LAY-10"
                };
                ctx.err(
                    rule,
                    at,
                    &[id],
                    format!("ID {id} is used before its definition (a forward reference {} does not allow)", opcode_name(op as u16)),
                );
            }
        }
        // Function locality (V-SSA-4).
        let def_func = info.func;
        if def_func != NONE && here_func != NONE && def_func != here_func {
            ctx.err(
                "V-SSA-4",
                at,
                &[id],
                format!("ID {id} is defined in another function than the one using it"),
            );
            continue;
        }
        // Kinds (V-SSA-5).
        let def_is_type = info.type_decl();
        if r.kind == Kind::ResultType {
            if !def_is_type {
                ctx.err(
                    "V-SSA-5",
                    at,
                    &[id],
                    format!("the Result Type {id} is not a type"),
                );
            }
            continue;
        }
        if any_ids || type_decl || names_non_value(op, ordinal) {
            continue;
        }
        if def_is_type {
            if op != Op::SizeOf {
                ctx.err(
                    "V-SSA-5",
                    at,
                    &[id],
                    format!("operand {id} cannot be a type"),
                );
            }
        } else if let Some(def) = ix.def(id)
            && def.result_type().is_none()
            && !matches!(ctx.m.ty(id), Some(Type::ForwardPointer { .. }))
        {
            ctx.err(
                "V-SSA-5",
                at,
                &[id],
                format!(
                    "operand {id} requires a type (it is the result of {})",
                    opcode_name(def.raw_opcode())
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spv_reader::rspirv::grammar;

    #[test]
    fn plain_opcodes_have_no_operand_exceptions() {
        for inst in grammar::INSTRUCTION_TABLE.iter() {
            let op = inst.opcode;
            if plain(WALK_BITS.get(op)) {
                assert!(!takes_any_ids(op), "{op:?}");
                for n in 0..inst.operands.len() + 4 {
                    assert!(!names_non_value(op, n), "{op:?} operand {n}");
                }
            }
        }
    }
}
