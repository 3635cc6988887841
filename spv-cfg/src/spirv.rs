//! Building a [`Cfg`] from a function of a [`spv_reader::Module`].
//!
//! The module may be invalid SPIR-V (only the reader's checks passed), so every operand is
//! looked up with a fallible accessor, and anything the CFG cannot be built from (a branch to
//! something that is not a label of the function, a block that does not end in a terminator,
//! a switch whose selector is not an integer, ...) is a located [`SpirvError`].

use crate::cfg::{BlockData, BlockIdx, Cfg, Merge, Terminator};
use crate::error::{CfgError, SpirvError};
use spv_reader::spirv::Op;
use spv_reader::{Function, Id, Inst, InstIndex, Module, Type};
use std::cell::Cell;

struct Reader<'m> {
    module: &'m Module,
    function: Id,
    /// (label id, block index), sorted by id.
    labels: Vec<(u32, u32)>,
}

impl Reader<'_> {
    fn err(&self, inst: Option<Inst<'_>>, message: String) -> CfgError {
        CfgError::Spirv(SpirvError {
            message,
            location: inst.map(|i| i.location()),
            opcode: inst.map(|i| match i.opcode() {
                Some(op) => format!("Op{op:?}"),
                None => format!("Op<{}>", i.raw_opcode()),
            }),
            function: self.function,
        })
    }

    fn inst(&self, at: InstIndex) -> Result<Inst<'_>, CfgError> {
        self.module
            .inst(at)
            .ok_or_else(|| self.err(None, format!("instruction #{} does not exist", at.0)))
    }

    /// Operand `i` of `inst`, whose operands (`inst.operands()`, read once by the caller since
    /// each read looks the opcode up again) are `ops`.
    fn operand(&self, inst: Inst<'_>, ops: &[u32], i: usize, what: &str) -> Result<u32, CfgError> {
        ops.get(i)
            .copied()
            .ok_or_else(|| self.err(Some(inst), format!("missing {what} operand")))
    }

    fn block(&self, inst: Inst<'_>, id: u32, what: &str) -> Result<BlockIdx, CfgError> {
        match self.labels.binary_search_by_key(&id, |&(l, _)| l) {
            Ok(i) => Ok(BlockIdx(self.labels[i].1)),
            Err(_) => Err(self.err(
                Some(inst),
                format!("{what} %{id} is not a label of this function (V-CFG-1)"),
            )),
        }
    }

    fn terminator(&self, inst: Inst<'_>) -> Result<Terminator, CfgError> {
        let ops = inst.operands();
        Ok(match inst.opcode() {
            Some(Op::Branch) => Terminator::Branch(self.block(
                inst,
                self.operand(inst, ops, 0, "Target Label")?,
                "branch target",
            )?),
            Some(Op::BranchConditional) => Terminator::BranchConditional {
                true_target: self.block(
                    inst,
                    self.operand(inst, ops, 1, "True Label")?,
                    "true target",
                )?,
                false_target: self.block(
                    inst,
                    self.operand(inst, ops, 2, "False Label")?,
                    "false target",
                )?,
            },
            Some(Op::Switch) => {
                let selector = self.operand(inst, ops, 0, "Selector")?;
                let default =
                    self.block(inst, self.operand(inst, ops, 1, "Default")?, "default")?;
                let width = self
                    .module
                    .result_type(Id(selector))
                    .and_then(|t| self.module.ty(t));
                let bits = match width {
                    Some(Type::Int { width, .. }) => *width,
                    _ => {
                        return Err(self.err(
                            Some(inst),
                            format!("selector %{selector} is not an integer (V-CFG-6)"),
                        ));
                    }
                };
                // Literals take one word up to 32 bits, two words (low word first) up to 64
                // (SPIR-V §2.2.1, spirv.md R-12).
                let words = if bits > 32 { 2 } else { 1 };
                let pairs = ops.get(2..).unwrap_or(&[]);
                if pairs.len() % (words + 1) != 0 {
                    return Err(self.err(
                        Some(inst),
                        format!("case operands do not form ({words}-word literal, label) pairs"),
                    ));
                }
                let mut cases = Vec::with_capacity(pairs.len() / (words + 1));
                for pair in pairs.chunks_exact(words + 1) {
                    let (literal, label) = match pair {
                        [lo, label] => (u64::from(*lo), *label),
                        [lo, hi, label] => (u64::from(*lo) | (u64::from(*hi) << 32), *label),
                        _ => return Err(CfgError::Internal("switch pair shape")),
                    };
                    cases.push((literal, self.block(inst, label, "case target")?));
                }
                Terminator::Switch {
                    selector_bits: bits,
                    default,
                    cases,
                }
            }
            Some(Op::Return) => Terminator::Return,
            Some(Op::ReturnValue) => Terminator::ReturnValue,
            Some(Op::Kill) => Terminator::Kill,
            Some(Op::TerminateInvocation) => Terminator::TerminateInvocation,
            Some(Op::IgnoreIntersectionKHR | Op::TerminateRayKHR | Op::EmitMeshTasksEXT) => {
                Terminator::OtherExit {
                    opcode: inst.raw_opcode(),
                }
            }
            Some(Op::Unreachable) => Terminator::Unreachable,
            _ => {
                return Err(self.err(
                    Some(inst),
                    "the block does not end in a block terminator (V-CFG-4)".into(),
                ));
            }
        })
    }

    fn merge(&self, inst: Inst<'_>) -> Result<Merge, CfgError> {
        let ops = inst.operands();
        Ok(match inst.opcode() {
            Some(Op::SelectionMerge) => Merge::Selection {
                merge: self.block(
                    inst,
                    self.operand(inst, ops, 0, "Merge Block")?,
                    "merge block",
                )?,
            },
            Some(Op::LoopMerge) => Merge::Loop {
                merge: self.block(
                    inst,
                    self.operand(inst, ops, 0, "Merge Block")?,
                    "merge block",
                )?,
                continue_target: self.block(
                    inst,
                    self.operand(inst, ops, 1, "Continue Target")?,
                    "continue target",
                )?,
            },
            _ => {
                return Err(self.err(
                    Some(inst),
                    "expected OpSelectionMerge or OpLoopMerge".into(),
                ));
            }
        })
    }
}

impl Cfg {
    /// Builds the CFG of `function` (one of `module.functions()`): one block per SPIR-V block
    /// in module order, the first being the entry.
    ///
    /// Errors (located at the offending instruction) when the function has no body, a branch
    /// or merge instruction names something that is not a label of this function, a block
    /// does not end in a terminator, a switch selector is not an integer, or an `OpSwitch`
    /// repeats a literal.
    pub fn from_function(module: &Module, function: &Function) -> Result<Cfg, CfgError> {
        let mut labels = LABELS.take();
        labels.clear();
        labels.extend(
            function
                .blocks
                .iter()
                .enumerate()
                .map(|(i, b)| (b.label.0, i as u32)),
        );
        labels.sort_unstable();
        let r = Reader {
            module,
            function: function.id,
            labels,
        };
        let result = r.build(function);
        // Kept for the next function unless one huge function grew it.
        if r.labels.capacity() <= MAX_KEPT_LABELS {
            LABELS.set(r.labels);
        }
        result
    }
}

/// The most entries the kept [`LABELS`] table may have room for.
const MAX_KEPT_LABELS: usize = 1 << 14;

thread_local! {
    /// This thread's label table for [`Reader::labels`], taken while one function's CFG is
    /// built so that a function costs no allocation for it.
    static LABELS: Cell<Vec<(u32, u32)>> = const { Cell::new(Vec::new()) };
}

impl Reader<'_> {
    /// The CFG of `function`, whose labels `self.labels` holds.
    fn build(&self, function: &Function) -> Result<Cfg, CfgError> {
        let (module, r) = (self.module, self);
        if function.blocks.is_empty() {
            return Err(r.err(
                module.inst(function.def),
                "the function is a declaration without blocks".into(),
            ));
        }
        if u32::try_from(function.blocks.len()).is_err() {
            return Err(CfgError::TooManyBlocks {
                count: function.blocks.len(),
            });
        }
        let mut blocks = Vec::with_capacity(function.blocks.len());
        for b in &function.blocks {
            let term = r.inst(b.terminator)?;
            let terminator = r.terminator(term)?;
            let merge = match b.merge {
                Some(m) => r.merge(r.inst(m)?)?,
                None => Merge::None,
            };
            // OpPhi instructions come first in a block (OpLine/OpNoLine may precede them).
            // Raw opcode numbers are compared: decoding each into `Op` costs a large match.
            let (phi, line, no_line) = (Op::Phi as u32, Op::Line as u32, Op::NoLine as u32);
            let has_phis = module
                .instructions_in(b.body())
                .map(|i| u32::from(i.raw_opcode()))
                .take_while(|&op| op == phi || op == line || op == no_line)
                .any(|op| op == phi);
            blocks.push(BlockData {
                label: b.label.0,
                terminator,
                merge,
                has_phis,
            });
        }
        match Cfg::new(blocks) {
            Err(CfgError::DuplicateCaseLiteral { block, literal }) => {
                let inst = function
                    .blocks
                    .get(block.index())
                    .and_then(|b| module.inst(b.terminator));
                Err(r.err(
                    inst,
                    format!("case literal {literal} appears twice (V-CFG-6)"),
                ))
            }
            other => other,
        }
    }
}
