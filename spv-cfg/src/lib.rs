//! Control-flow graphs, dominance and a structurizer for SPIR-V functions.
//!
//! The crate turns every function into a tree of structured regions that a target without
//! `goto` can express directly — AMD IL's `if`/`else`/`endif`, `whileloop`/`endloop` with
//! `break`/`continue`, and `switch`/`case`/`default`/`endswitch` (`amd-il.md` §6.1) — whether
//! or not the SPIR-V carries merge instructions (OpenCL/Kernel modules carry none).
//!
//! # Pieces
//!
//! * [`Cfg`]: blocks by dense [`BlockIdx`] (entry = 0) with their [`Terminator`] and
//!   [`Merge`] instruction; built by hand ([`Cfg::new`]) or from SPIR-V
//!   ([`Cfg::from_function`], which reports invalid input as located errors, or
//!   [`Cfg::from_validated`], which reuses what spv-validate found out about a valid module).
//! * [`Analysis`]: plain and structural dominator and post-dominator trees ([`DomTree`]) and
//!   the loop nesting forest with irreducible loops detected ([`LoopForest`]).
//! * [`structurize`]: the [region tree](Region) — from the merge instructions
//!   ([`Strategy::Merges`], falling back when they do not describe the CFG) or from the CFG
//!   alone ([`Strategy::General`], any CFG including irreducible ones). The tree's exact
//!   semantics, written for the lowering that consumes it, are in the [`region`] module; the
//!   tree replays the CFG exactly: same blocks, same edges, for every branch decision (this
//!   is what the property tests check).
//! * [`to_text`], [`region_text`] and [`to_dot`]: readable dumps.
//!
//! No input makes the crate panic, recurse without bound or run without bound: the limits
//! are the named constants of [`limits`].
//!
//! # Example
//!
//! ```
//! use spv_cfg::{BlockData, BlockIdx, Cfg, Strategy, Terminator, region_text, structurize};
//!
//! // b0 → b1; b1: while-style loop header (b2 body, b3 exit); b2 → b1; b3 returns.
//! // No merge instructions, as in a Kernel module.
//! let cfg = Cfg::new(vec![
//!     BlockData::new(Terminator::Branch(BlockIdx(1))),
//!     BlockData::new(Terminator::BranchConditional {
//!         true_target: BlockIdx(2),
//!         false_target: BlockIdx(3),
//!     }),
//!     BlockData::new(Terminator::Branch(BlockIdx(1))),
//!     BlockData::new(Terminator::Return),
//! ])?;
//! let tree = structurize(&cfg, Strategy::Merges)?;
//! assert_eq!(tree.strategy, Strategy::General); // no merges to follow
//! assert_eq!(
//!     region_text(&cfg, &tree),
//!     "block b0\nloop {\n  block b1\n  if !b1 {\n    break\n  }\n  block b2\n}\n\
//!      block b3\nreturn (b3)\n"
//! );
//! # Ok::<(), spv_cfg::CfgError>(())
//! ```

mod analysis;
mod cfg;
mod direct;
mod dom;
mod error;
mod general;
mod graph;
mod lab;
pub mod limits;
mod loops;
mod merges;
mod print;
pub mod region;
mod spirv;
mod structurize;
mod validated;
mod walk;

/// The most entries a table kept per thread between functions may have room for (the label,
/// merge-walk and lowering tables of `spirv.rs`, `walk.rs` and `lab.rs`): a table one huge
/// function grew past this is dropped rather than kept.
const MAX_KEPT_ENTRIES: usize = 1 << 14;

pub use analysis::Analysis;
pub use cfg::{BlockData, BlockIdx, Cfg, Merge, Terminator};
pub use dom::DomTree;
pub use error::{CfgError, SpirvError};
pub use loops::{Loop, LoopForest, LoopIdx};
pub use print::{region_text, to_dot, to_text};
pub use region::{Arms, Cond, Region, RegionStats, Seq, Strategy, Structured, SwitchArm, Var};
pub use structurize::structurize;
