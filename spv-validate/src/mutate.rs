//! Seeded structural mutations of valid modules, for measuring verdict agreement with
//! spirv-val (the project's conformance task) and for fuzzing.
//!
//! [`mutants`] takes the words of a (usually valid) module and returns mutated copies,
//! each named by the mutation applied: retargeted branches, dropped or moved merge
//! instructions, swapped or replaced operand ids, changed result types, duplicated
//! decorations, broken dominance, reordered sections, corrupted layout offsets and a few
//! more. Mutations work on whole instructions and keep word counts consistent, so most
//! mutants read fine and exercise the validator rather than the reader. The output is a
//! pure function of the input words, the seed and the count.
//!
//! ```
//! # use spv_reader::rspirv::{binary::Assemble, dr::Builder};
//! # use spv_reader::spirv;
//! # let mut b = Builder::new();
//! # b.capability(spirv::Capability::Shader);
//! # b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
//! # let void = b.type_void();
//! # let fn_ty = b.type_function(void, vec![]);
//! # let main = b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty).unwrap();
//! # b.begin_block(None).unwrap();
//! # b.ret().unwrap();
//! # b.end_function().unwrap();
//! # b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![]);
//! # let words = b.module().assemble();
//! let a = spv_validate::mutate::mutants(&words, 7, 20);
//! let b = spv_validate::mutate::mutants(&words, 7, 20);
//! assert_eq!(a, b); // deterministic
//! assert!(a.iter().all(|(name, w)| !name.is_empty() && w != &words));
//! ```

use spv_reader::spirv::{Decoration, Op};

/// Number of attempts to find an applicable mutation for one mutant before giving up.
const ATTEMPTS: usize = 64;

/// Number of header words (SPIR-V §2.3).
const HEADER_WORDS: usize = 5;

/// The names of every mutation, in the order [`mutants`] draws from.
pub const MUTATIONS: &[&str] = &[
    "retarget-branch",
    "drop-merge",
    "move-merge",
    "swap-operand-ids",
    "replace-operand-id",
    "change-result-type",
    "duplicate-decoration",
    "break-dominance",
    "reorder-sections",
    "corrupt-layout-offset",
    "drop-instruction",
    "swap-adjacent-instructions",
    "change-storage-class",
    "change-literal",
    "drop-capability",
    "change-decoration",
    "swap-opcode",
    "retarget-merge",
];

/// A small deterministic generator (SplitMix64), enough for choosing mutations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// One element of `items`, if any.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        items.get(self.below(items.len())).copied()
    }
}

/// A module split into instructions, with the facts the mutations need.
#[derive(Clone)]
struct Split {
    header: Vec<u32>,
    insts: Vec<Vec<u32>>,
}

impl Split {
    fn new(words: &[u32]) -> Option<Split> {
        let header = words.get(..HEADER_WORDS)?.to_vec();
        let mut insts = Vec::new();
        let mut at = HEADER_WORDS;
        while let Some(&first) = words.get(at) {
            let count = (first >> 16) as usize;
            let inst = words.get(at..at + count).filter(|_| count > 0)?;
            insts.push(inst.to_vec());
            at += count;
        }
        Some(Split { header, insts })
    }

    fn join(&self) -> Vec<u32> {
        let mut out = self.header.clone();
        for inst in &self.insts {
            out.extend_from_slice(inst);
        }
        out
    }

    fn op(&self, i: usize) -> Option<Op> {
        self.insts
            .get(i)
            .and_then(|w| w.first())
            .and_then(|&w| Op::from_u32(w & 0xFFFF))
    }

    fn indices(&self, pred: impl Fn(Op) -> bool) -> Vec<usize> {
        (0..self.insts.len())
            .filter(|&i| self.op(i).is_some_and(&pred))
            .collect()
    }

    /// Result id of instruction `i` per the grammar's result layout.
    fn result_of(&self, i: usize) -> Option<u32> {
        let words = self.insts.get(i)?;
        let op = self.op(i)?;
        let (has_type, has_result) = result_layout(op);
        if !has_result {
            return None;
        }
        words.get(if has_type { 2 } else { 1 }).copied()
    }

    /// Labels with the instruction index of their OpLabel.
    fn labels(&self) -> Vec<(usize, u32)> {
        self.indices(|op| op == Op::Label)
            .into_iter()
            .filter_map(|i| self.insts.get(i).and_then(|w| w.get(1)).map(|&l| (i, l)))
            .collect()
    }

    /// The function (index of its OpFunction) containing instruction `i`, if any.
    fn function_of(&self, i: usize) -> Option<usize> {
        let mut f = None;
        for k in 0..=i.min(self.insts.len().saturating_sub(1)) {
            match self.op(k) {
                Some(Op::Function) => f = Some(k),
                Some(Op::FunctionEnd) if k < i => f = None,
                _ => {}
            }
        }
        f
    }

    /// Labels of the function containing instruction `i`.
    fn labels_in_function_of(&self, i: usize) -> Vec<u32> {
        let f = self.function_of(i);
        self.labels()
            .into_iter()
            .filter(|&(k, _)| self.function_of(k) == f)
            .map(|(_, l)| l)
            .collect()
    }

    /// Every id defined by the module (result ids), with the index of the definition.
    fn definitions(&self) -> Vec<(usize, u32)> {
        (0..self.insts.len())
            .filter_map(|i| self.result_of(i).map(|r| (i, r)))
            .collect()
    }

    /// Type ids (results of OpType*).
    fn types(&self) -> Vec<u32> {
        (0..self.insts.len())
            .filter(|&i| self.op(i).is_some_and(is_type_op))
            .filter_map(|i| self.result_of(i))
            .collect()
    }
}

/// (has result type, has result id) for `op`.
fn result_layout(op: Op) -> (bool, bool) {
    match crate::operands::grammar_of(op as u16) {
        Some(g) => {
            use spv_reader::rspirv::grammar::OperandKind as K;
            let first = g.operands.first().map(|o| o.kind);
            let second = g.operands.get(1).map(|o| o.kind);
            let has_type = first == Some(K::IdResultType);
            let has_result =
                first == Some(K::IdResult) || (has_type && second == Some(K::IdResult));
            (has_type, has_result)
        }
        None => (false, false),
    }
}

fn is_type_op(op: Op) -> bool {
    crate::operands::grammar_of(op as u16).is_some_and(|g| g.opname.starts_with("Type"))
}

fn is_terminator(op: Op) -> bool {
    matches!(
        op,
        Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Return
            | Op::ReturnValue
            | Op::Kill
            | Op::Unreachable
            | Op::TerminateInvocation
    )
}

/// Indices of words of instruction `i` that hold ids other than the result id, according
/// to the grammar (literal-only operands are left alone).
fn id_word_positions(split: &Split, i: usize) -> Vec<usize> {
    let Some(words) = split.insts.get(i) else {
        return Vec::new();
    };
    let Some(op) = split.op(i) else {
        return Vec::new();
    };
    let Some(g) = crate::operands::grammar_of(op as u16) else {
        return Vec::new();
    };
    use spv_reader::rspirv::grammar::OperandKind as K;
    use spv_reader::rspirv::grammar::OperandQuantifier as Q;
    let mut out = Vec::new();
    let mut at = 1usize;
    for operand in g.operands {
        let repeat = matches!(operand.quantifier, Q::ZeroOrMore);
        loop {
            if at >= words.len() {
                break;
            }
            match operand.kind {
                K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics => {
                    if operand.kind != K::IdResultType {
                        out.push(at);
                    }
                    at += 1;
                }
                K::IdResult => at += 1,
                K::PairIdRefIdRef => {
                    out.push(at);
                    out.push(at + 1);
                    at += 2;
                }
                K::PairIdRefLiteralInteger => {
                    out.push(at);
                    at += 2;
                }
                // Anything else (literals, strings, enumerants with parameters) ends the
                // part of the instruction this simple walk can place safely.
                _ => return out.into_iter().filter(|&p| p < words.len()).collect(),
            }
            if !repeat {
                break;
            }
        }
    }
    out.into_iter().filter(|&p| p < words.len()).collect()
}

/// Applies mutation `which` (an index into [`MUTATIONS`]); `None` when it does not apply.
fn apply(split: &Split, which: usize, rng: &mut Rng) -> Option<Split> {
    let mut s = split.clone();
    match which {
        // retarget-branch
        0 => {
            let i = rng.pick(
                &s.indices(|op| matches!(op, Op::Branch | Op::BranchConditional | Op::Switch)),
            )?;
            let op = s.op(i)?;
            let positions: Vec<usize> = match op {
                Op::Branch => vec![1],
                Op::BranchConditional => vec![2, 3],
                _ => {
                    let len = s.insts.get(i)?.len();
                    // Default at 2; labels of the (literal, label) pairs follow, assuming
                    // 32-bit selectors.
                    std::iter::once(2).chain((4..len).step_by(2)).collect()
                }
            };
            let pos = rng.pick(&positions)?;
            let labels = s.labels_in_function_of(i);
            let new = rng.pick(&labels)?;
            let word = s.insts.get_mut(i)?.get_mut(pos)?;
            if *word == new {
                return None;
            }
            *word = new;
        }
        // drop-merge
        1 => {
            let i = rng.pick(&s.indices(|op| matches!(op, Op::SelectionMerge | Op::LoopMerge)))?;
            s.insts.remove(i);
        }
        // move-merge: to just before another conditional terminator
        2 => {
            let i = rng.pick(&s.indices(|op| matches!(op, Op::SelectionMerge | Op::LoopMerge)))?;
            let merge = s.insts.remove(i);
            let targets: Vec<usize> = s
                .indices(|op| matches!(op, Op::BranchConditional | Op::Switch | Op::Branch))
                .into_iter()
                .filter(|&t| {
                    t == 0 || !matches!(s.op(t - 1), Some(Op::SelectionMerge | Op::LoopMerge))
                })
                .collect();
            let t = rng.pick(&targets)?;
            if t == i {
                return None;
            }
            s.insts.insert(t, merge);
        }
        // swap-operand-ids
        3 => {
            let candidates: Vec<usize> = (0..s.insts.len())
                .filter(|&i| id_word_positions(&s, i).len() >= 2)
                .collect();
            let i = rng.pick(&candidates)?;
            let pos = id_word_positions(&s, i);
            let a = rng.pick(&pos)?;
            let b = rng.pick(&pos)?;
            let inst = s.insts.get_mut(i)?;
            let (wa, wb) = (*inst.get(a)?, *inst.get(b)?);
            if wa == wb {
                return None;
            }
            inst.swap(a, b);
        }
        // replace-operand-id: with another id of the same defining opcode family
        4 => {
            let candidates: Vec<usize> = (0..s.insts.len())
                .filter(|&i| !id_word_positions(&s, i).is_empty())
                .collect();
            let i = rng.pick(&candidates)?;
            let pos = rng.pick(&id_word_positions(&s, i))?;
            let defs = s.definitions();
            // Prefer ids defined nearby (same function) to keep the mutant plausible.
            let f = s.function_of(i);
            let near: Vec<u32> = defs
                .iter()
                .filter(|&&(k, _)| s.function_of(k) == f || s.function_of(k).is_none())
                .map(|&(_, r)| r)
                .collect();
            let new = rng.pick(&near)?;
            let word = s.insts.get_mut(i)?.get_mut(pos)?;
            if *word == new {
                return None;
            }
            *word = new;
        }
        // change-result-type
        5 => {
            let candidates: Vec<usize> = (0..s.insts.len())
                .filter(|&i| s.op(i).is_some_and(|op| result_layout(op).0))
                .collect();
            let i = rng.pick(&candidates)?;
            let ty = rng.pick(&s.types())?;
            let word = s.insts.get_mut(i)?.get_mut(1)?;
            if *word == ty {
                return None;
            }
            *word = ty;
        }
        // duplicate-decoration
        6 => {
            let i = rng.pick(&s.indices(|op| {
                matches!(op, Op::Decorate | Op::MemberDecorate | Op::DecorateString)
            }))?;
            let copy = s.insts.get(i)?.clone();
            s.insts.insert(i + 1, copy);
        }
        // break-dominance: move a non-phi value instruction into a sibling block
        7 => {
            let candidates: Vec<usize> = (0..s.insts.len())
                .filter(|&i| {
                    s.function_of(i).is_some()
                        && s.op(i).is_some_and(|op| {
                            result_layout(op).1
                                && !matches!(
                                    op,
                                    Op::Label
                                        | Op::Phi
                                        | Op::Variable
                                        | Op::Function
                                        | Op::FunctionParameter
                                )
                        })
                })
                .collect();
            let i = rng.pick(&candidates)?;
            let inst = s.insts.remove(i);
            // Insert right after another label of the same function (after its OpPhis and
            // OpVariables).
            let labels: Vec<usize> = s
                .indices(|op| op == Op::Label)
                .into_iter()
                .filter(|&k| s.function_of(k) == s.function_of(i.min(s.insts.len() - 1)))
                .collect();
            let mut at = rng.pick(&labels)? + 1;
            while matches!(
                s.op(at),
                Some(Op::Phi | Op::Variable | Op::Line | Op::NoLine)
            ) {
                at += 1;
            }
            if at == i {
                return None;
            }
            s.insts.insert(at, inst);
        }
        // reorder-sections: move a module-level instruction to another module-level spot
        8 => {
            let first_fn = s.indices(|op| op == Op::Function).first().copied()?;
            if first_fn < 2 {
                return None;
            }
            let i = rng.below(first_fn);
            let j = rng.below(first_fn);
            if i == j || s.op(i) == s.op(j) {
                return None;
            }
            let inst = s.insts.remove(i);
            s.insts.insert(j, inst);
        }
        // corrupt-layout-offset
        9 => {
            let layout = [
                Decoration::Offset as u32,
                Decoration::ArrayStride as u32,
                Decoration::MatrixStride as u32,
            ];
            let candidates: Vec<usize> = (0..s.insts.len())
                .filter(|&i| match (s.op(i), s.insts.get(i)) {
                    (Some(Op::Decorate), Some(w)) => {
                        w.len() == 4 && w.get(2).is_some_and(|k| layout.contains(k))
                    }
                    (Some(Op::MemberDecorate), Some(w)) => {
                        w.len() == 5 && w.get(3).is_some_and(|k| layout.contains(k))
                    }
                    _ => false,
                })
                .collect();
            let i = rng.pick(&candidates)?;
            let inst = s.insts.get_mut(i)?;
            let last = inst.last_mut()?;
            let deltas: [i64; 8] = [-16, -8, -4, -1, 1, 2, 4, 16];
            let d = deltas.get(rng.below(deltas.len())).copied().unwrap_or(4);
            let new = (i64::from(*last) + d).max(0) as u32;
            if new == *last {
                return None;
            }
            *last = new;
        }
        // drop-instruction (not function structure)
        10 => {
            let candidates: Vec<usize> = (0..s.insts.len())
                .filter(|&i| {
                    s.op(i).is_some_and(|op| {
                        !matches!(op, Op::Function | Op::FunctionEnd | Op::Label)
                            && !is_terminator(op)
                    })
                })
                .collect();
            let i = rng.pick(&candidates)?;
            s.insts.remove(i);
        }
        // swap-adjacent-instructions inside a function
        11 => {
            let candidates: Vec<usize> = (0..s.insts.len().saturating_sub(1))
                .filter(|&i| s.function_of(i).is_some())
                .filter(|&i| {
                    let ok = |op: Option<Op>| {
                        op.is_some_and(|op| {
                            !matches!(op, Op::Function | Op::FunctionEnd | Op::Label)
                                && !is_terminator(op)
                        })
                    };
                    ok(s.op(i)) && ok(s.op(i + 1))
                })
                .collect();
            let i = rng.pick(&candidates)?;
            if s.insts.get(i) == s.insts.get(i + 1) {
                return None;
            }
            s.insts.swap(i, i + 1);
        }
        // change-storage-class of a pointer type or variable
        12 => {
            let i = rng.pick(&s.indices(|op| matches!(op, Op::TypePointer | Op::Variable)))?;
            let pos = if s.op(i) == Some(Op::TypePointer) {
                2
            } else {
                3
            };
            let classes = [0u32, 1, 2, 3, 4, 5, 6, 7, 9, 12];
            let new = rng.pick(&classes)?;
            let word = s.insts.get_mut(i)?.get_mut(pos)?;
            if *word == new {
                return None;
            }
            *word = new;
        }
        // change-literal of a constant, vector count, int width, execution mode, ...
        13 => {
            let i = rng.pick(&s.indices(|op| {
                matches!(
                    op,
                    Op::Constant
                        | Op::TypeInt
                        | Op::TypeFloat
                        | Op::TypeVector
                        | Op::TypeMatrix
                        | Op::ExecutionMode
                        | Op::CompositeExtract
                        | Op::CompositeInsert
                        | Op::VectorShuffle
                        | Op::MemberDecorate
                        | Op::Decorate
                )
            }))?;
            let len = s.insts.get(i)?.len();
            if len < 3 {
                return None;
            }
            let pos = len - 1 - rng.below(len.min(3) - 1);
            let values = [0u32, 1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 64, 0xFFFF_FFFF];
            let new = rng.pick(&values)?;
            let word = s.insts.get_mut(i)?.get_mut(pos)?;
            if *word == new {
                return None;
            }
            *word = new;
        }
        // drop-capability
        14 => {
            let i = rng.pick(&s.indices(|op| matches!(op, Op::Capability | Op::Extension)))?;
            s.insts.remove(i);
        }
        // change-decoration: another decoration kind with the same operand count
        15 => {
            let i = rng.pick(&s.indices(|op| matches!(op, Op::Decorate | Op::MemberDecorate)))?;
            let pos = if s.op(i) == Some(Op::Decorate) { 2 } else { 3 };
            let no_operand = [
                0u32, 2, 3, 4, 5, 6, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 42,
            ];
            let one_operand = [1u32, 6, 11, 30, 33, 34, 35];
            let inst = s.insts.get_mut(i)?;
            let with_operand = inst.len() == pos + 2;
            let new = if with_operand {
                rng.pick(&one_operand)?
            } else if inst.len() == pos + 1 {
                rng.pick(&no_operand)?
            } else {
                return None;
            };
            let word = inst.get_mut(pos)?;
            if *word == new {
                return None;
            }
            *word = new;
        }
        // swap-opcode with a sibling of the same shape
        16 => {
            const FAMILIES: &[&[Op]] = &[
                &[
                    Op::IAdd,
                    Op::ISub,
                    Op::IMul,
                    Op::FAdd,
                    Op::FSub,
                    Op::FMul,
                    Op::SDiv,
                    Op::UDiv,
                    Op::FDiv,
                    Op::BitwiseAnd,
                    Op::ShiftLeftLogical,
                    Op::LogicalAnd,
                ],
                &[
                    Op::IEqual,
                    Op::INotEqual,
                    Op::SLessThan,
                    Op::ULessThan,
                    Op::FOrdLessThan,
                    Op::FOrdEqual,
                    Op::LogicalEqual,
                ],
                &[
                    Op::ConvertFToS,
                    Op::ConvertSToF,
                    Op::ConvertUToF,
                    Op::ConvertFToU,
                    Op::Bitcast,
                    Op::SNegate,
                    Op::FNegate,
                    Op::Not,
                    Op::CopyObject,
                ],
                &[Op::Load, Op::CopyObject],
                &[Op::AccessChain, Op::InBoundsAccessChain, Op::PtrAccessChain],
                &[Op::Branch, Op::Unreachable],
                &[Op::Return, Op::Unreachable, Op::Kill],
            ];
            let all: Vec<Op> = FAMILIES.iter().flat_map(|f| f.iter().copied()).collect();
            let i = rng.pick(&s.indices(|op| all.contains(&op)))?;
            let op = s.op(i)?;
            let family = FAMILIES.iter().find(|f| f.contains(&op))?;
            let new = rng.pick(family)?;
            if new == op {
                return None;
            }
            let inst = s.insts.get_mut(i)?;
            if matches!(new, Op::Unreachable | Op::Return | Op::Kill) {
                inst.truncate(1);
            }
            let count = inst.len() as u32;
            *inst.first_mut()? = (count << 16) | new as u32;
        }
        // retarget-merge: a merge or continue target to another label
        17 => {
            let i = rng.pick(&s.indices(|op| matches!(op, Op::SelectionMerge | Op::LoopMerge)))?;
            let pos = if s.op(i) == Some(Op::LoopMerge) {
                1 + rng.below(2)
            } else {
                1
            };
            let labels = s.labels_in_function_of(i);
            let new = rng.pick(&labels)?;
            let word = s.insts.get_mut(i)?.get_mut(pos)?;
            if *word == new {
                return None;
            }
            *word = new;
        }
        _ => return None,
    }
    Some(s)
}

/// Up to `count` mutants of the module `words`, each `(mutation name, mutated words)`,
/// determined by `seed`. Fewer are returned when the module offers too few places to
/// mutate (or is not a sequence of instructions at all).
pub fn mutants(words: &[u32], seed: u64, count: usize) -> Vec<(String, Vec<u32>)> {
    let Some(split) = Split::new(words) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(count);
    let mut rng = Rng::new(seed);
    for _ in 0..count {
        for _ in 0..ATTEMPTS {
            let which = rng.below(MUTATIONS.len());
            if let Some(mutated) = apply(&split, which, &mut rng) {
                let joined = mutated.join();
                if joined != words {
                    let name = MUTATIONS.get(which).copied().unwrap_or("unknown");
                    out.push((name.to_owned(), joined));
                    break;
                }
            }
        }
    }
    out
}
