//! A table indexed by small integers that empties in O(1): each slot carries the generation
//! that wrote it, and only slots of the current generation hold a value. The passes keep such
//! tables between functions and modules (see `scratch.rs`), so that starting over neither
//! allocates nor clears the whole table.

/// Values by index below [`Stamped::len`], emptied in O(1) by [`Stamped::clear`].
pub(crate) struct Stamped<V> {
    /// Per index: (generation that wrote it, value).
    slots: Vec<(u32, V)>,
    /// The current generation; slots of another one are empty. New slots hold 0, below every
    /// generation in use.
    generation: u32,
}

impl<V> Default for Stamped<V> {
    fn default() -> Self {
        Stamped {
            slots: Vec::new(),
            generation: 1,
        }
    }
}

impl<V: Copy + Default> Stamped<V> {
    /// Empties the table and gives it exactly `len` slots, reusing the storage.
    pub(crate) fn reset(&mut self, len: usize) {
        if self.slots.len() == len {
            self.clear();
        } else {
            self.slots.clear();
            self.slots.resize(len, (0, V::default()));
            self.generation = 1;
        }
    }

    /// Empties the table and gives it at least `len` slots (it never shrinks).
    pub(crate) fn clear_with_room(&mut self, len: usize) {
        if self.slots.len() < len {
            self.slots.resize(len, (0, V::default()));
        }
        self.clear();
    }

    /// Empties the table: a new generation, and on the rare wrap of the counter a real clear.
    pub(crate) fn clear(&mut self) {
        if self.generation == u32::MAX {
            self.slots.fill((0, V::default()));
            self.generation = 0;
        }
        self.generation += 1;
    }

    /// How many slots the table has.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The value at `index`, if one was inserted since the table was last emptied.
    pub(crate) fn get(&self, index: usize) -> Option<V> {
        match self.slots.get(index) {
            Some(&(generation, value)) if generation == self.generation => Some(value),
            _ => None,
        }
    }

    /// Sets the value at `index`; whether the slot was empty. An index past the table stores
    /// nothing and answers `false`.
    pub(crate) fn insert(&mut self, index: usize, value: V) -> bool {
        let generation = self.generation;
        match self.slots.get_mut(index) {
            Some(slot) => {
                let was_empty = slot.0 != generation;
                *slot = (generation, value);
                was_empty
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Stamped;

    /// Values survive until the next clear, an index past the table stores nothing, and the
    /// generation counter's wrap still empties every slot.
    #[test]
    fn clears_in_one_step_and_across_the_wrap() {
        let mut table: Stamped<u32> = Stamped::default();
        table.reset(4);
        assert!(table.insert(2, 7));
        assert!(!table.insert(2, 8));
        assert_eq!(table.get(2), Some(8));
        assert!(!table.insert(9, 1));
        assert_eq!(table.get(9), None);
        table.clear();
        assert_eq!(table.get(2), None);
        table.insert(1, 5);
        table.generation = u32::MAX;
        table.insert(3, 6);
        table.clear();
        assert_eq!((table.get(1), table.get(3)), (None, None));
        table.clear_with_room(6);
        assert_eq!(table.len(), 6);
        assert!(table.insert(5, 1));
    }
}
