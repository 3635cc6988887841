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
    /// The function's labels (see [`Labels`]).
    labels: Labels,
}

/// Block index by label id. Label ids are usually small and dense, so a table indexed by id
/// (entries of other functions' labels are [`NO_BLOCK`]) finds a branch target in one step;
/// a function with a label id of [`MAX_DENSE_LABEL`] or more, or with a repeated label id,
/// uses (label id, block index) pairs sorted by id instead.
#[derive(Default)]
struct Labels {
    /// Per label id: the block index, or [`NO_BLOCK`].
    dense: Vec<u32>,
    /// Whether `dense` holds this function's labels (else `sorted` does).
    use_dense: bool,
    /// (label id, block index), sorted by id, when `use_dense` is false.
    sorted: Vec<(u32, u32)>,
}

/// Marks a label id that is not a label of the function in [`Labels::dense`].
const NO_BLOCK: u32 = u32::MAX;

/// Label ids from this one up are looked up by binary search (the dense table would be too
/// large to keep).
const MAX_DENSE_LABEL: u32 = 1 << 14;

impl Labels {
    /// Takes the labels of `function` (block `i` has `function.blocks[i].label`).
    fn fill(&mut self, function: &Function) {
        self.use_dense = true;
        for (i, b) in function.blocks.iter().enumerate() {
            let id = b.label.0;
            if id >= MAX_DENSE_LABEL {
                self.use_dense = false;
                break;
            }
            let at = id as usize;
            if self.dense.len() <= at {
                self.dense.resize(at + 1, NO_BLOCK);
            }
            // `dense` was just grown past `at`, so the indexing cannot fail.
            if self.dense[at] != NO_BLOCK {
                self.use_dense = false;
                break;
            }
            self.dense[at] = i as u32;
        }
        if !self.use_dense {
            self.clear_dense(function);
            self.sorted.clear();
            self.sorted.extend(
                function
                    .blocks
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (b.label.0, i as u32)),
            );
            self.sorted.sort_unstable();
        }
    }

    /// Resets the dense entries of `function`'s labels, so that the table is all
    /// [`NO_BLOCK`] again for the next function.
    fn clear_dense(&mut self, function: &Function) {
        for b in &function.blocks {
            if let Some(entry) = self.dense.get_mut(b.label.0 as usize) {
                *entry = NO_BLOCK;
            }
        }
    }

    /// The block labeled `id`.
    #[inline]
    fn get(&self, id: u32) -> Option<u32> {
        if self.use_dense {
            self.dense
                .get(id as usize)
                .copied()
                .filter(|&b| b != NO_BLOCK)
        } else {
            self.sorted
                .binary_search_by_key(&id, |&(l, _)| l)
                .ok()
                .and_then(|i| self.sorted.get(i))
                .map(|&(_, b)| b)
        }
    }
}

/// The opcodes a block may end with, and the merge instructions before them (SPIR-V §2.2.4
/// "Termination Instruction", §3.3.17).
const TERMINATORS_AND_MERGES: [Op; 13] = [
    Op::Branch,
    Op::BranchConditional,
    Op::Switch,
    Op::Return,
    Op::ReturnValue,
    Op::Kill,
    Op::TerminateInvocation,
    Op::IgnoreIntersectionKHR,
    Op::TerminateRayKHR,
    Op::EmitMeshTasksEXT,
    Op::Unreachable,
    Op::SelectionMerge,
    Op::LoopMerge,
];

/// The opcode of a terminator or merge instruction, found among the few opcodes those can have
/// (cheaper than the reader's general opcode table); `None` for any other opcode, which the
/// callers reject alike.
pub(crate) fn opcode(inst: Inst<'_>) -> Option<Op> {
    let raw = inst.raw_opcode();
    TERMINATORS_AND_MERGES
        .into_iter()
        .find(|&op| op as u16 == raw)
}

/// The operands of a terminator or merge instruction: every word after the opcode word, since
/// none of them has a Result Type or Result id (SPIR-V §3.3.17). Callers read them only for
/// those opcodes.
pub(crate) fn operands<'m>(inst: Inst<'m>) -> &'m [u32] {
    inst.words().get(1..).unwrap_or(&[])
}

/// The width in bits of the integer type of an `OpSwitch` selector, `None` when the selector
/// is not an integer (SPIR-V §3.3.17 OpSwitch).
pub(crate) fn selector_bits(module: &Module, selector: u32) -> Option<u32> {
    match module.result_type(Id(selector)).and_then(|t| module.ty(t)) {
        Some(Type::Int { width, .. }) => Some(*width),
        _ => None,
    }
}

/// How many words an `OpSwitch` literal of a `bits`-wide selector takes: one up to 32 bits,
/// two (low word first) up to 64 (SPIR-V §2.2.1, spirv.md R-12).
fn literal_words(bits: u32) -> usize {
    if bits > 32 { 2 } else { 1 }
}

/// The (literal, label id) pairs of an `OpSwitch` whose operands (after the opcode word) are
/// `ops` and whose selector is `bits` wide; `None` when the words after Selector and Default
/// do not form such pairs. A 64-bit literal is read low word first.
pub(crate) fn case_pairs(
    ops: &[u32],
    bits: u32,
) -> Option<impl ExactSizeIterator<Item = (u64, u32)> + '_> {
    let words = literal_words(bits);
    let pairs = ops.get(2..).unwrap_or(&[]);
    if pairs.len() % (words + 1) != 0 {
        return None;
    }
    Some(pairs.chunks_exact(words + 1).map(|pair| match *pair {
        [lo, hi, label] => (u64::from(lo) | (u64::from(hi) << 32), label),
        [lo, label] => (u64::from(lo), label),
        // Never taken: every chunk has `words + 1` (2 or 3) words.
        _ => (0, 0),
    }))
}

/// Whether `block` starts with at least one `OpPhi` (only `OpLine`/`OpNoLine` may come before
/// its phis, SPIR-V §2.4). Raw opcode numbers are compared: decoding each into `Op` costs a
/// large match.
pub(crate) fn starts_with_phi(module: &Module, block: &spv_reader::Block) -> bool {
    for at in block.body() {
        let Some(inst) = module.inst(InstIndex(at)) else {
            return false;
        };
        match inst.raw_opcode() {
            op if op == Op::Phi as u16 => return true,
            op if op == Op::Line as u16 || op == Op::NoLine as u16 => {}
            _ => return false,
        }
    }
    false
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

    #[inline]
    fn block(&self, inst: Inst<'_>, id: u32, what: &str) -> Result<BlockIdx, CfgError> {
        match self.labels.get(id) {
            Some(b) => Ok(BlockIdx(b)),
            None => Err(self.not_a_label(inst, id, what)),
        }
    }

    /// The error of [`Reader::block`], out of line: the lookups are on every block's path.
    #[cold]
    #[inline(never)]
    fn not_a_label(&self, inst: Inst<'_>, id: u32, what: &str) -> CfgError {
        self.err(
            Some(inst),
            format!("{what} %{id} is not a label of this function (V-CFG-1)"),
        )
    }

    fn terminator(&self, inst: Inst<'_>) -> Result<Terminator, CfgError> {
        let ops = operands(inst);
        Ok(match opcode(inst) {
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
                let Some(bits) = selector_bits(self.module, selector) else {
                    return Err(self.err(
                        Some(inst),
                        format!("selector %{selector} is not an integer (V-CFG-6)"),
                    ));
                };
                let Some(pairs) = case_pairs(ops, bits) else {
                    return Err(self.err(
                        Some(inst),
                        format!(
                            "case operands do not form ({}-word literal, label) pairs",
                            literal_words(bits)
                        ),
                    ));
                };
                let mut cases = Vec::with_capacity(pairs.len());
                for (literal, label) in pairs {
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
        let ops = operands(inst);
        Ok(match opcode(inst) {
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
        labels.fill(function);
        let r = Reader {
            module,
            function: function.id,
            labels,
        };
        let result = r.build(function);
        // Kept for the next function unless one huge function grew the sorted table.
        let mut labels = r.labels;
        if labels.use_dense {
            labels.clear_dense(function);
        }
        if labels.sorted.capacity() <= crate::MAX_KEPT_ENTRIES {
            LABELS.set(labels);
        }
        result
    }
}

thread_local! {
    /// This thread's label table for [`Reader::labels`], taken while one function's CFG is
    /// built so that a function costs no allocation for it.
    static LABELS: Cell<Labels> = Cell::new(Labels::default());
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
            blocks.push(BlockData {
                label: b.label.0,
                terminator,
                merge,
                has_phis: starts_with_phi(module, b),
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
