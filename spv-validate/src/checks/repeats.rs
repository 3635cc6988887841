//! [`Repeats`]: finds, in one pass over a list of keyed entries, each entry's first earlier
//! entry with an equal key (the V-TYPE-1 and V-DEC-1 repeat rules), with a hash table over
//! the entries' positions.
//!
//! Before, those rules sorted the keys with their positions, which cost a sort per module
//! (and, for the type rule, comparisons that looked the declarations up again); here each
//! entry is hashed once and compared only with the entries whose hash is equal. The table
//! holds positions (with their hashes), never keys, so the caller says how two entries
//! compare; what is found does not depend on the hash, only the cost does.

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

/// A table of entry positions, reused from list to list.
#[derive(Default)]
pub(crate) struct Repeats {
    /// `(hash, position)` of the first entry of every key seen so far.
    table: HashTable<(u64, u32)>,
}

impl Repeats {
    /// Makes this an empty table with room for `n` entries, reusing the storage.
    pub(crate) fn reset(&mut self, n: usize) {
        self.table.clear();
        self.table.reserve(n, |&(hash, _)| hash);
    }

    /// The first entry recorded before with the key of entry `k` (`hash` is the key's
    /// hash, `same(j)` whether entry `j` has that key); when there is none, records `k`.
    pub(crate) fn first_or_record(
        &mut self,
        hash: u64,
        k: u32,
        same: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        match self
            .table
            .entry(hash, |&(h, j)| h == hash && same(j), |&(h, _)| h)
        {
            Entry::Occupied(first) => Some(first.get().1),
            Entry::Vacant(slot) => {
                slot.insert((hash, k));
                None
            }
        }
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
