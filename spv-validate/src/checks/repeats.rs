//! [`Repeats`]: finds, in one pass over a list of keyed entries, each entry's first earlier
//! entry with an equal key (the V-TYPE-1 and V-DEC-1 repeat rules), with an open-addressing
//! hash table over the entries' positions.
//!
//! Before, those rules sorted the keys with their positions, which cost a sort per module
//! (and, for the type rule, comparisons that looked the declarations up again); here each
//! entry is hashed once and compared only with the entries in its probe run. The table
//! holds positions, never keys, so the caller says how two entries compare; what is found
//! does not depend on the hash, only the cost does.

/// Fewest slots a table gets (the modules' lists are mostly short).
const MIN_SLOTS: usize = 16;

/// A table of entry positions, reused from list to list.
#[derive(Default)]
pub(crate) struct Repeats {
    /// Each slot holds an entry's position plus one, or 0 when free.
    slots: Vec<u32>,
}

impl Repeats {
    /// Makes this an empty table for up to `n` entries, reusing the storage (at most half
    /// the slots are ever taken, so every probe run ends at a free slot).
    pub(crate) fn reset(&mut self, n: usize) {
        let len = n
            .saturating_mul(2)
            .max(MIN_SLOTS)
            .checked_next_power_of_two()
            .unwrap_or(usize::MAX);
        self.slots.clear();
        self.slots.resize(len, 0);
    }

    /// The first entry recorded before with the key of entry `k` (`hash` is the key's
    /// hash, `same(j)` whether entry `j` has that key); when there is none, records `k`.
    /// At most the `n` entries of [`Repeats::reset`] may be recorded.
    pub(crate) fn first_or_record(
        &mut self,
        hash: u64,
        k: u32,
        same: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = (hash as usize) & mask;
        // Each step either ends or moves to the next slot; a free slot ends every run.
        for _ in 0..self.slots.len() {
            let slot = self.slots.get_mut(at)?;
            if *slot == 0 {
                *slot = k.wrapping_add(1);
                return None;
            }
            let j = *slot - 1;
            if same(j) {
                return Some(j);
            }
            at = (at + 1) & mask;
        }
        None
    }
}

/// A hash of `words` (a multiply-rotate mix, as in rustc's Fx hash): spreads the entries of
/// a [`Repeats`] table.
pub(crate) fn hash_words(words: impl IntoIterator<Item = u32>) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let h = words.into_iter().fold(0u64, |h, w| {
        (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(K)
    });
    // The high bits are the best mixed; the table indexes with the low ones.
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry finds the first earlier entry with its key, as a quadratic search does,
    /// whatever the hash (a constant hash makes every probe run collide).
    #[test]
    fn finds_the_first_equal_entry() {
        let keys = [5u32, 7, 5, 9, 7, 7, 1, 5, 9, 2];
        for constant in [false, true] {
            let mut table = Repeats::default();
            table.reset(keys.len());
            for (k, &key) in keys.iter().enumerate() {
                let hash = if constant { 3 } else { hash_words([key]) };
                let found = table.first_or_record(hash, k as u32, |j| keys[j as usize] == key);
                let expected = keys[..k].iter().position(|&e| e == key).map(|j| j as u32);
                assert_eq!(found, expected, "entry {k}, constant hash {constant}");
            }
        }
    }
}
