//! A table of per-id entries (SSA values, pointer places) that only pays for the ids it holds.
//!
//! The lowering records an entry for a small share of a module's ids (the results of the
//! reachable functions and the globals they use), but looks entries up by id. A vector of
//! `Option<T>` indexed by id would have to visit every id of the module's bound when it is
//! dropped; here the id-indexed part is a plain `u32` slot number, and only the entries
//! themselves need dropping.

use spv_reader::Id;

/// The slot number of an id without an entry.
const NO_SLOT: u32 = u32::MAX;

/// Entries of type `T` by id, for ids below the bound given at creation.
pub(crate) struct IdTable<T> {
    /// For each id, the index of its entry in `entries`, or [`NO_SLOT`].
    slots: Vec<u32>,
    /// The entries, in the order their ids were first set.
    entries: Vec<T>,
}

impl<T> IdTable<T> {
    /// An empty table for ids below `bound`.
    #[cfg(test)]
    pub(crate) fn new(bound: usize) -> IdTable<T> {
        IdTable::reusing(bound, Vec::new(), Vec::new())
    }

    /// An empty table for ids below `bound`, in the buffers of an earlier table
    /// ([`IdTable::into_parts`]); their contents are discarded.
    pub(crate) fn reusing(bound: usize, mut slots: Vec<u32>, mut entries: Vec<T>) -> IdTable<T> {
        slots.clear();
        slots.resize(bound, NO_SLOT);
        entries.clear();
        IdTable { slots, entries }
    }

    /// Makes room for `additional` more entries, so that filling the table does not copy the
    /// entries it already holds again and again.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
    }

    /// The entry of `id`, if it has one.
    #[inline]
    pub(crate) fn get(&self, id: Id) -> Option<&T> {
        let slot = *self.slots.get(id.0 as usize)?;
        self.entries.get(slot as usize)
    }

    /// Sets the entry of `id`; an id at or past the bound is ignored (the reader guarantees
    /// every id of a module is below its bound, so none arrives here).
    #[inline]
    pub(crate) fn set(&mut self, id: Id, entry: T) {
        let Some(slot) = self.slots.get_mut(id.0 as usize) else {
            return;
        };
        if let Some(existing) = self.entries.get_mut(*slot as usize) {
            *existing = entry;
            return;
        }
        // Fewer entries than ids, and ids fit in u32, so the count fits in u32 below NO_SLOT.
        *slot = u32::try_from(self.entries.len()).unwrap_or(NO_SLOT);
        self.entries.push(entry);
    }

    /// The id index and the entries (in the order their ids were first set).
    pub(crate) fn into_parts(self) -> (Vec<u32>, Vec<T>) {
        (self.slots, self.entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_and_overwrite() {
        let mut table = IdTable::new(8);
        assert_eq!(table.get(Id(3)), None);
        table.set(Id(3), "a");
        table.set(Id(5), "b");
        assert_eq!(table.get(Id(3)), Some(&"a"));
        assert_eq!(table.get(Id(5)), Some(&"b"));
        table.set(Id(3), "c");
        assert_eq!(table.get(Id(3)), Some(&"c"));
        table.set(Id(5), "e");
        assert_eq!(table.get(Id(5)), Some(&"e"));
        assert_eq!(table.get(Id(4)), None);
        assert_eq!(table.entries.len(), 2);
        // Past the bound: ignored, never found.
        table.set(Id(8), "d");
        assert_eq!(table.get(Id(8)), None);
    }
}
