//! Building a [`Cfg`] from a function that spv-validate accepted, reusing the facts the
//! validator already worked out ([`spv_validate::FunctionInfo`]): block numbering, successor
//! and predecessor lists, merge blocks and continue targets.
//!
//! [`Cfg::from_function`] reads a possibly invalid function and checks everything it relies
//! on. For a valid module the validator guarantees those checks, so this builder skips them:
//!
//! * every branch, merge and continue operand is a label of the same function (SPIR-V
//!   §2.16.1, `spirv.md` V-CFG-1, V-CFG-8, V-CFG-9), so no label table is built: targets come
//!   from the validator's successor lists, merge blocks and continue targets from its merge
//!   facts;
//! * every block ends in a block terminator (§2.2.5, V-CFG-4), and a merge instruction is
//!   followed by a branch (V-CFG-8, V-CFG-9);
//! * an `OpSwitch` selector is an integer and no two case literals are equal (§3.3.17,
//!   V-CFG-6), so literals are not sorted to look for repeats;
//! * successor lists are the distinct targets in operand order (how spv-validate builds
//!   them), so they are not derived again; the predecessor lists, their transpose in block
//!   order, are made from them only if asked for (the merge walk does not need them).
//!
//! What remains checked is cheap and keeps the [`Cfg`] invariant (every block index below the
//! block count) for any `FunctionInfo`, including one of another function or module, which
//! would be a caller bug: the function id, block count and labels must match, every index the
//! facts give must be in range, and each terminator must have as many successors as its kind
//! allows. Such a mismatch is reported as an error, never a panic.

use crate::cfg::{BlockData, BlockIdx, Cfg, Merge, Terminator};
use crate::error::{CfgError, SpirvError};
use crate::spirv::{case_pairs, opcode, operands, selector_bits, starts_with_phi};
use spv_reader::spirv::Op;
use spv_reader::{Function, Id, Inst, Module};
use spv_validate::FunctionInfo;

/// Switches with at most this many cases find a case target among the block's successors by
/// label; longer ones look the label up in the validator's label table.
const SHORT_SWITCH: usize = 16;

impl Cfg {
    /// Builds the CFG of `function` (one of `module.functions()`) from `info`, the validator's
    /// facts about the same function (`ModuleInfo::function(function.id)` of
    /// [`spv_validate::validate`] on `module`): the same CFG as [`Cfg::from_function`] gives
    /// for that valid function, without re-deriving what the validator already has (see the
    /// module docs for the checks it skips and the SPIR-V rules that make them redundant).
    ///
    /// Errors when the function has no body, or when `info` does not describe `function`
    /// (another function's or module's facts).
    pub fn from_validated(
        module: &Module,
        function: &Function,
        info: &FunctionInfo,
    ) -> Result<Cfg, CfgError> {
        let fail = |inst: Option<Inst<'_>>, message: &str| {
            CfgError::Spirv(SpirvError {
                message: message.to_string(),
                location: inst.map(|i| i.location()),
                opcode: inst.map(|i| match i.opcode() {
                    Some(op) => format!("Op{op:?}"),
                    None => format!("Op<{}>", i.raw_opcode()),
                }),
                function: function.id,
            })
        };
        let mismatch = |inst| fail(inst, "the validator's facts do not describe this function");
        let n = function.blocks.len();
        if n == 0 {
            return Err(fail(
                module.inst(function.def),
                "the function is a declaration without blocks",
            ));
        }
        if u32::try_from(n).is_err() {
            return Err(CfgError::TooManyBlocks { count: n });
        }
        if info.id != function.id
            || info.blocks.len() != n
            || info
                .blocks
                .iter()
                .zip(&function.blocks)
                .any(|(facts, block)| facts.label != block.label)
        {
            return Err(mismatch(module.inst(function.def)));
        }
        // The successor lists as `Cfg` keeps them (one table of list starts, one of entries),
        // every block index checked to be in range (the `Cfg` invariant); the predecessor
        // lists are made from them if asked for. `n` fits in u32, and so do edge counts (the
        // facts' own lists are indexed by u32).
        let in_range = |b: u32| ((b as usize) < n).then_some(BlockIdx(b));
        let mut starts = Vec::with_capacity(n + 1);
        let mut edges = Vec::with_capacity(info.edge_count());
        let mut blocks = Vec::with_capacity(n);
        for (i, (block, facts)) in function.blocks.iter().zip(&info.blocks).enumerate() {
            let Some(term) = module.inst(block.terminator) else {
                return Err(mismatch(None));
            };
            let first = edges.len();
            starts.push(first as u32);
            for &s in info.successors(i as u32) {
                edges.push(in_range(s).ok_or_else(|| mismatch(Some(term)))?);
            }
            let succs = edges.get(first..);
            let terminator = match (opcode(term), succs) {
                (Some(Op::Branch), Some(&[target])) => Terminator::Branch(target),
                // Equal targets make one successor: normalised as `Cfg::new` does.
                (Some(Op::BranchConditional), Some(&[target])) => Terminator::Branch(target),
                (Some(Op::BranchConditional), Some(&[true_target, false_target])) => {
                    Terminator::BranchConditional {
                        true_target,
                        false_target,
                    }
                }
                (Some(Op::Switch), Some(targets)) => switch(module, function, info, term, targets)
                    .ok_or_else(|| mismatch(Some(term)))?,
                (Some(Op::Return), Some(&[])) => Terminator::Return,
                (Some(Op::ReturnValue), Some(&[])) => Terminator::ReturnValue,
                (Some(Op::Kill), Some(&[])) => Terminator::Kill,
                (Some(Op::TerminateInvocation), Some(&[])) => Terminator::TerminateInvocation,
                (
                    Some(Op::IgnoreIntersectionKHR | Op::TerminateRayKHR | Op::EmitMeshTasksEXT),
                    Some(&[]),
                ) => Terminator::OtherExit {
                    opcode: term.raw_opcode(),
                },
                (Some(Op::Unreachable), Some(&[])) => Terminator::Unreachable,
                _ => return Err(mismatch(Some(term))),
            };
            // The validator records a continue target for `OpLoopMerge` only, and both
            // operands of a merge instruction are labels of the function (V-CFG-8, V-CFG-9).
            let merge = match (block.merge.is_some(), facts.merge, facts.continue_target) {
                (false, None, None) => Merge::None,
                (true, Some(merge), None) => Merge::Selection {
                    merge: in_range(merge).ok_or_else(|| mismatch(Some(term)))?,
                },
                (true, Some(merge), Some(continue_target)) => Merge::Loop {
                    merge: in_range(merge).ok_or_else(|| mismatch(Some(term)))?,
                    continue_target: in_range(continue_target)
                        .ok_or_else(|| mismatch(Some(term)))?,
                },
                _ => return Err(mismatch(Some(term))),
            };
            blocks.push(BlockData {
                label: block.label.0,
                terminator,
                merge,
                has_phis: starts_with_phi(module, block),
            });
        }
        starts.push(edges.len() as u32);
        Ok(Cfg::from_tables(blocks, starts, edges))
    }
}

/// The terminator of a block ending in the `OpSwitch` `term`, whose distinct targets (default
/// first, then the cases in operand order) the validator found to be `targets`; `None` when the
/// operands do not fit those facts.
fn switch(
    module: &Module,
    function: &Function,
    info: &FunctionInfo,
    term: Inst<'_>,
    targets: &[BlockIdx],
) -> Option<Terminator> {
    let ops = operands(term);
    let selector_bits = selector_bits(module, *ops.first()?)?;
    let pairs = case_pairs(ops, selector_bits)?;
    // The block a target label names: found among the successors by label for short
    // switches, through the validator's sorted label table for long ones.
    let long = pairs.len() > SHORT_SWITCH;
    let block = |label: u32| -> Option<BlockIdx> {
        if long {
            let b = info.block_index(Id(label))?;
            ((b as usize) < function.blocks.len()).then_some(BlockIdx(b))
        } else {
            targets.iter().copied().find(|t| {
                function
                    .blocks
                    .get(t.index())
                    .is_some_and(|b| b.label.0 == label)
            })
        }
    };
    let default = block(*ops.get(1)?)?;
    let mut cases = Vec::with_capacity(pairs.len());
    for (literal, label) in pairs {
        cases.push((literal, block(label)?));
    }
    Some(Terminator::Switch {
        selector_bits,
        default,
        cases,
    })
}
