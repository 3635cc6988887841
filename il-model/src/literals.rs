//! A pool of literal registers: each distinct 4-component value gets one `l#`, numbered in first-use
//! order (an `IndexSet` whose index is the literal number, as DESIGN.md prescribes), and the pool
//! turns into the `dcl_literal` declarations a program needs (guide §7.5 DCL_LITERAL: one per
//! number, before use).

use indexmap::IndexSet;

use crate::program::{Inst, Src};

/// Deduplicated literal values, numbered from a base.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiteralPool {
    /// The number of the first literal (literals below it belong to someone else).
    base: u32,
    values: IndexSet<[u32; 4]>,
}

impl LiteralPool {
    /// An empty pool whose first literal will be `l{base}`.
    pub fn new(base: u32) -> LiteralPool {
        LiteralPool {
            base,
            values: IndexSet::new(),
        }
    }

    /// The literal register holding `value` (x, y, z, w raw bits), declaring it if new.
    pub fn intern(&mut self, value: [u32; 4]) -> Src {
        let (index, _) = self.values.insert_full(value);
        // `index` < number of values ≤ what fits in memory; the sum saturates rather than wraps.
        Src::literal(
            self.base
                .saturating_add(u32::try_from(index).unwrap_or(u32::MAX)),
        )
    }

    /// A scalar literal: `value` replicated in all four components, read as `l#.x`.
    pub fn scalar(&mut self, value: u32) -> Src {
        self.intern([value; 4]).swz("x")
    }

    /// Number of distinct literals.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no literal has been interned.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The `dcl_literal` declarations, in literal-number order.
    pub fn declarations(&self) -> Vec<Inst> {
        self.values
            .iter()
            .zip(self.base..)
            .map(|(value, n)| Inst::literal(n, *value))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RegType;

    #[test]
    fn equal_values_share_a_register_and_numbers_follow_first_use() {
        let mut pool = LiteralPool::new(2);
        let a = pool.scalar(7);
        let b = pool.intern([1, 2, 3, 4]);
        let c = pool.scalar(7);
        assert_eq!(
            (a.reg.ty, a.reg.num, b.reg.num, c.reg.num),
            (RegType::Literal, 2, 3, 2)
        );
        assert_eq!(pool.len(), 2);
        let decls = pool.declarations();
        assert_eq!(
            decls,
            vec![Inst::literal(2, [7; 4]), Inst::literal(3, [1, 2, 3, 4])]
        );
    }
}
