//! The buffers of the last dropped [`Module`] of a thread, kept for the next read on that
//! thread.
//!
//! A module is read in a few microseconds, and allocating and freeing its dozen tables
//! (most of them too large for the allocator's small-size caches) was about a tenth of
//! that. Callers typically read, use and drop one module after another (a translation, a
//! benchmark, a test suite), so [`Module`]'s `Drop` hands its emptied vectors here and
//! [`take`] gives them to the next read, which only grows them when they are too small.
//! What is kept is bounded by [`MAX_SPARE_BYTES`]: one set of buffers per thread, never
//! those of a huge module. While a thread holds a set, the buffers of further dropped
//! modules are freed at once (a caller that keeps many modules drops them together).

use std::cell::Cell;
use std::mem::size_of;

use crate::Id;
use crate::module::{ExtImport, IdSlot, Span};
use crate::types::{Block, Constant, EntryPoint, ExecutionMode, Function, GlobalVariable, Type};

/// The most bytes of buffer capacity a thread keeps between reads (a sizing choice: the
/// modules of the corpus need far less). Buffers of a module whose tables need more are
/// freed as usual.
pub(crate) const MAX_SPARE_BYTES: usize = 1 << 20;

/// The most emptied lists of each kind ([`Spare::id_lists`], [`Spare::block_lists`],
/// [`Spare::name_strings`]) kept, and the most entries (bytes, for names) a kept list has
/// room for (sizing choices: a module of the corpus has a few dozen lists, most of a few
/// entries, and one or two entry points). What they hold is thus bounded apart from
/// [`MAX_SPARE_BYTES`], without adding up their capacities on every drop.
const MAX_SPARE_LISTS: usize = 64;
const MAX_SPARE_LIST_LEN: usize = 64;

/// The vectors of a [`Module`]'s tables, empty; their capacity is what is kept.
#[derive(Default)]
pub(crate) struct Spare {
    pub(crate) words: Vec<u32>,
    pub(crate) starts: Vec<u32>,
    pub(crate) ids: Vec<IdSlot>,
    pub(crate) names: Vec<u32>,
    pub(crate) strings: Vec<u8>,
    pub(crate) tables: Vec<u32>,
    pub(crate) types: Vec<Type>,
    pub(crate) constants: Vec<Constant>,
    pub(crate) extensions: Vec<Span>,
    pub(crate) ext_inst_imports: Vec<ExtImport>,
    pub(crate) entry_points: Vec<EntryPoint>,
    pub(crate) execution_modes: Vec<ExecutionMode>,
    pub(crate) global_variables: Vec<GlobalVariable>,
    pub(crate) functions: Vec<Function>,
    /// Emptied id lists of the public records (struct members, function type and function
    /// parameters, composite parts, entry-point interfaces), for the next module's.
    pub(crate) id_lists: Vec<Vec<Id>>,
    /// Emptied block lists of functions.
    pub(crate) block_lists: Vec<Vec<Block>>,
    /// Emptied entry-point names, for the next module's.
    pub(crate) name_strings: Vec<String>,
}

/// The list of `ids`, in a kept list when there is one (no list for no ids, as `collect`
/// would give).
pub(crate) fn id_list(lists: &mut Vec<Vec<Id>>, ids: &[u32]) -> Vec<Id> {
    if ids.is_empty() {
        return Vec::new();
    }
    let mut list = lists.pop().unwrap_or_default();
    list.extend(ids.iter().map(|&id| Id(id)));
    list
}

impl Spare {
    /// Bytes of capacity held.
    fn bytes(&self) -> usize {
        fn held<T>(v: &Vec<T>) -> usize {
            v.capacity().saturating_mul(size_of::<T>())
        }
        [
            held(&self.words),
            held(&self.starts),
            held(&self.ids),
            held(&self.names),
            held(&self.strings),
            held(&self.tables),
            held(&self.types),
            held(&self.constants),
            held(&self.extensions),
            held(&self.ext_inst_imports),
            held(&self.entry_points),
            held(&self.execution_modes),
            held(&self.global_variables),
            held(&self.functions),
            held(&self.id_lists),
            held(&self.block_lists),
            held(&self.name_strings),
        ]
        .into_iter()
        .fold(0, usize::saturating_add)
    }

    /// Moves the lists and names the public records own into [`Spare::id_lists`],
    /// [`Spare::block_lists`] and [`Spare::name_strings`], emptied, up to
    /// [`MAX_SPARE_LISTS`] of each, and empties the vectors of those records (one walk over
    /// each: the records are drained rather than visited and then cleared).
    fn harvest(&mut self) {
        let lists = &mut self.id_lists;
        let mut keep_ids = |mut list: Vec<Id>| {
            let capacity = list.capacity();
            if capacity != 0 && capacity <= MAX_SPARE_LIST_LEN && lists.len() < MAX_SPARE_LISTS {
                list.clear();
                lists.push(list);
            }
        };
        for ty in self.types.drain(..) {
            if let Type::Struct { members: list } | Type::Function { params: list, .. } = ty {
                keep_ids(list);
            }
        }
        for constant in self.constants.drain(..) {
            if let Constant::Composite { parts, .. } = constant {
                keep_ids(parts);
            }
        }
        for entry_point in self.entry_points.drain(..) {
            keep_ids(entry_point.interface);
            let mut name = entry_point.name;
            let capacity = name.capacity();
            if capacity != 0
                && capacity <= MAX_SPARE_LIST_LEN
                && self.name_strings.len() < MAX_SPARE_LISTS
            {
                name.clear();
                self.name_strings.push(name);
            }
        }
        for function in self.functions.drain(..) {
            keep_ids(function.params);
            let mut blocks = function.blocks;
            let capacity = blocks.capacity();
            if capacity != 0
                && capacity <= MAX_SPARE_LIST_LEN
                && self.block_lists.len() < MAX_SPARE_LISTS
            {
                blocks.clear();
                self.block_lists.push(blocks);
            }
        }
    }

    /// Empties the vectors [`Spare::harvest`] left, keeping capacity.
    fn clear(&mut self) {
        self.words.clear();
        self.starts.clear();
        self.ids.clear();
        self.names.clear();
        self.strings.clear();
        self.tables.clear();
        self.extensions.clear();
        self.ext_inst_imports.clear();
        self.execution_modes.clear();
        self.global_variables.clear();
    }
}

thread_local! {
    static SPARE: Cell<Option<Spare>> = const { Cell::new(None) };
    /// Whether `SPARE` holds a set: checked on every drop without moving the set out.
    static HELD: Cell<bool> = const { Cell::new(false) };
}

/// The buffers kept on this thread, empty, or new empty vectors if there are none.
pub(crate) fn take() -> Spare {
    let _ = HELD.try_with(|held| held.set(false));
    SPARE
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Whether this thread keeps a set of buffers (or is ending): a module dropped then is
/// freed as it is. A caller that drops many modules at once (after keeping them all) would
/// otherwise gather, harvest, empty and replace a kept set on every drop, only for the last
/// to be used; the first set dropped is kept instead.
#[inline]
pub(crate) fn holds() -> bool {
    HELD.try_with(Cell::get).unwrap_or(true)
}

/// Keeps `spare`'s buffers for the next read on this thread, emptied, unless they hold
/// more than [`MAX_SPARE_BYTES`], the thread already keeps a set (see [`holds`]) or is
/// ending.
pub(crate) fn keep(mut spare: Spare) {
    if holds() {
        return;
    }
    spare.harvest();
    if spare.bytes() > MAX_SPARE_BYTES {
        return;
    }
    spare.clear();
    // `try_with` fails only while the thread's locals are being destroyed: the buffers are
    // then simply freed.
    if SPARE.try_with(|cell| cell.set(Some(spare))).is_ok() {
        let _ = HELD.try_with(|held| held.set(true));
    }
}
