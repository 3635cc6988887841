//! The buffers of the last dropped [`Module`] of a thread, kept for the next read on that
//! thread.
//!
//! A module is read in a few microseconds, and allocating and freeing its dozen tables
//! (most of them too large for the allocator's small-size caches) was about a tenth of
//! that. Callers typically read, use and drop one module after another (a translation, a
//! benchmark, a test suite), so [`Module`]'s `Drop` hands its emptied vectors here and
//! [`take`] gives them to the next read, which only grows them when they are too small.
//! What is kept is bounded by [`MAX_SPARE_BYTES`]: one set of buffers per thread, never
//! those of a huge module.

use std::cell::Cell;
use std::mem::size_of;

use crate::Id;
use crate::module::{ExtImport, IdSlot, Span};
use crate::types::{Block, Constant, EntryPoint, ExecutionMode, Function, GlobalVariable, Type};

/// The most bytes of buffer capacity a thread keeps between reads (a sizing choice: the
/// modules of the corpus need far less). Buffers of a module whose tables need more are
/// freed as usual.
pub(crate) const MAX_SPARE_BYTES: usize = 1 << 20;

/// The most emptied lists of each kind ([`Spare::id_lists`], [`Spare::block_lists`]) kept,
/// and the most entries a kept list has room for (sizing choices: a module of the corpus has
/// a few dozen lists, most of a few entries). What they hold is thus bounded apart from
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
        ]
        .into_iter()
        .fold(0, usize::saturating_add)
    }

    /// Moves the lists the public records own into [`Spare::id_lists`] and
    /// [`Spare::block_lists`], emptied, up to [`MAX_SPARE_LISTS`] of each.
    fn harvest(&mut self) {
        let lists = &mut self.id_lists;
        let mut keep_ids = |list: &mut Vec<Id>| {
            let capacity = list.capacity();
            if capacity != 0 && capacity <= MAX_SPARE_LIST_LEN && lists.len() < MAX_SPARE_LISTS {
                let mut list = std::mem::take(list);
                list.clear();
                lists.push(list);
            }
        };
        for ty in &mut self.types {
            if let Type::Struct { members: list } | Type::Function { params: list, .. } = ty {
                keep_ids(list);
            }
        }
        for constant in &mut self.constants {
            if let Constant::Composite { parts, .. } = constant {
                keep_ids(parts);
            }
        }
        for entry_point in &mut self.entry_points {
            keep_ids(&mut entry_point.interface);
        }
        for function in &mut self.functions {
            keep_ids(&mut function.params);
            let capacity = function.blocks.capacity();
            if capacity != 0
                && capacity <= MAX_SPARE_LIST_LEN
                && self.block_lists.len() < MAX_SPARE_LISTS
            {
                let mut blocks = std::mem::take(&mut function.blocks);
                blocks.clear();
                self.block_lists.push(blocks);
            }
        }
    }

    /// Empties every vector (dropping what the public records own), keeping capacity.
    fn clear(&mut self) {
        self.words.clear();
        self.starts.clear();
        self.ids.clear();
        self.names.clear();
        self.strings.clear();
        self.tables.clear();
        self.types.clear();
        self.constants.clear();
        self.extensions.clear();
        self.ext_inst_imports.clear();
        self.entry_points.clear();
        self.execution_modes.clear();
        self.global_variables.clear();
        self.functions.clear();
    }
}

thread_local! {
    static SPARE: Cell<Option<Spare>> = const { Cell::new(None) };
}

/// The buffers kept on this thread, empty, or new empty vectors if there are none.
pub(crate) fn take() -> Spare {
    SPARE
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Keeps `spare`'s buffers for the next read on this thread, emptied, unless they hold
/// more than [`MAX_SPARE_BYTES`] (or the thread is ending).
pub(crate) fn keep(mut spare: Spare) {
    spare.harvest();
    if spare.bytes() > MAX_SPARE_BYTES {
        return;
    }
    spare.clear();
    // `try_with` fails only while the thread's locals are being destroyed: the buffers are
    // then simply freed.
    let _ = SPARE.try_with(|cell| cell.set(Some(spare)));
}
