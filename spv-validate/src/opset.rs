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

/// Up to eight opcode sets as one byte per opcode (bit `k` set when the opcode is in set
/// `k`), so that a walk asking about several sets per instruction loads one byte.
pub(crate) struct OpBits([u8; WORDS * 64]);

impl OpBits {
    /// The table of `sets` (at most eight).
    // Indexing in a constant: a ninth set or an opcode beyond the table stops the build.
    #[allow(clippy::indexing_slicing)]
    pub(crate) const fn of(sets: &[OpSet]) -> OpBits {
        let mut bits = [0u8; WORDS * 64];
        let mut k = 0;
        while k < sets.len() {
            let mut v = 0;
            while v < WORDS * 64 {
                if (sets[k].0[v / 64] >> (v % 64)) & 1 != 0 {
                    bits[v] |= 1 << k;
                }
                v += 1;
            }
            k += 1;
        }
        OpBits(bits)
    }

    /// The bits of `op`: bit `k` tells whether it is in set `k`.
    pub(crate) fn get(&self, op: Op) -> u8 {
        self.0.get(op as u32 as usize).copied().unwrap_or(0)
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

    #[test]
    fn bits_are_the_sets() {
        const A: OpSet = OpSet::of(&[Op::Nop, Op::Load]);
        const B: OpSet = OpSet::of(&[Op::Load, Op::Store]);
        static BITS: OpBits = OpBits::of(&[A, B]);
        for inst in grammar::INSTRUCTION_TABLE.iter() {
            let op = inst.opcode;
            let expected = u8::from(A.contains(op)) | u8::from(B.contains(op)) << 1;
            assert_eq!(BITS.get(op), expected, "{op:?}");
        }
    }
}
