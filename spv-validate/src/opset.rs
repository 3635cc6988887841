//! [`OpSet`], a set of opcodes as a table of bits built at compile time: the rules that ask
//! "is this opcode one of these?" for every instruction test one bit instead of walking a
//! long `matches!` decision tree.

use spv_reader::spirv::Op;

/// Words of the table: room for opcodes below 8192 (the grammar's largest is below 7000;
/// building a set naming a larger one fails at compile time).
const WORDS: usize = 128;

/// A set of opcodes.
#[derive(Clone, Copy)]
pub(crate) struct OpSet([u64; WORDS]);

impl OpSet {
    /// The set of `ops`.
    pub(crate) const fn of(ops: &[Op]) -> OpSet {
        OpSet([0; WORDS]).with(ops)
    }

    /// This set and `ops`.
    // Indexing in a constant: an opcode beyond the table stops the build instead.
    #[allow(clippy::indexing_slicing)]
    pub(crate) const fn with(mut self, ops: &[Op]) -> OpSet {
        let mut i = 0;
        while i < ops.len() {
            let v = ops[i] as u32 as usize;
            self.0[v / 64] |= 1 << (v % 64);
            i += 1;
        }
        self
    }

    /// Whether `op` is in the set.
    pub(crate) fn contains(&self, op: Op) -> bool {
        let v = op as u32 as usize;
        self.0.get(v / 64).is_some_and(|w| w >> (v % 64) & 1 != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spv_reader::rspirv::grammar;

    #[test]
    fn contains_exactly_the_listed_opcodes() {
        const SET: OpSet = OpSet::of(&[Op::Nop, Op::Load, Op::Store]).with(&[Op::Phi]);
        for inst in grammar::INSTRUCTION_TABLE.iter() {
            let op = inst.opcode;
            let listed = matches!(op, Op::Nop | Op::Load | Op::Store | Op::Phi);
            assert_eq!(SET.contains(op), listed, "{op:?}");
        }
    }
}
