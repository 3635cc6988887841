//! [`Scratch`]: the working buffers of the passes (graphs under construction, dominator-tree
//! workspace, id sets, sort keys), kept per thread between validations so that validating
//! many modules does not allocate and grow them again for each one.
//!
//! Nothing in them survives from one use to the next except capacity: every pass clears
//! or resets what it takes. Their sizes follow the module's, so the buffers of a module
//! longer than [`MAX_KEPT_WORDS`] are dropped rather than kept: one huge module does not
//! pin its memory.

use std::cell::RefCell;

use crate::checks::{entry, scf};
use crate::ctx::IdSet;
use crate::dom::DomScratch;

/// Longest module (in words) whose scratch buffers are kept for the next validation on the
/// same thread (4 MiB of SPIR-V).
pub(crate) const MAX_KEPT_WORDS: usize = 1 << 20;

/// The buffers; each pass documents which it uses.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The storage of the instruction index.
    pub(crate) index: crate::ctx::IndexStorage,
    /// The memo of `Ctx::holds`.
    pub(crate) holds: Vec<std::cell::Cell<u8>>,
    /// The per-id buffers of the logical-pointer facts.
    pub(crate) pointers: crate::checks::logical_pointers::PointerStorage,
    /// Control-flow graphs of an earlier module, rebuilt in place.
    pub(crate) cfgs: Vec<crate::cfg::FuncCfg>,
    /// More graphs, beyond those of the last module's functions, with their buffers.
    pub(crate) spare_cfgs: Vec<crate::cfg::FuncCfg>,
    /// Structured-control-flow workspace.
    pub(crate) scf: scf::Scratch,
    /// Dominator-tree workspace.
    pub(crate) dom: DomScratch,
    /// Edge lists being collected.
    pub(crate) edges: Vec<(u32, u32)>,
    /// Per-block or per-id marks.
    pub(crate) marks: Vec<u32>,
    /// Per-id flags.
    pub(crate) flags: Vec<bool>,
    /// Three id sets.
    pub(crate) ids: [IdSet; 3],
    /// The call graph of the entry-point checks.
    pub(crate) calls: entry::CallGraph,
    /// The decoration rules' per-id kind masks.
    pub(crate) kind_masks: crate::checks::decorations::KindMasks,
    /// Keys of the decoration rules.
    pub(crate) keys: Vec<(u32, u32, u32, usize)>,
    /// The repeat table of the type and decoration rules.
    pub(crate) repeats: crate::checks::repeats::Repeats,
    /// Structure depths of the type rules.
    pub(crate) depths: crate::checks::types::DepthMemo,
    /// Traversal workspace: visited flags, stack, order.
    pub(crate) seen: Vec<bool>,
    pub(crate) stack: Vec<(u32, usize)>,
    pub(crate) order: Vec<u32>,
}

thread_local! {
    static KEPT: RefCell<Option<Box<Scratch>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's scratch buffers (fresh ones the first time) for a module of
/// `words` words, then keeps them for the next validation unless the module is longer than
/// [`MAX_KEPT_WORDS`].
pub(crate) fn with<R>(words: usize, f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut scratch = KEPT.with(|k| k.borrow_mut().take()).unwrap_or_default();
    let result = f(&mut scratch);
    if words <= MAX_KEPT_WORDS {
        KEPT.with(|k| *k.borrow_mut() = Some(scratch));
    }
    result
}
