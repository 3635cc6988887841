//! Control-flow graphs, dominance and a structurizer for SPIR-V functions.

mod analysis;
mod cfg;
mod dom;
mod error;
mod graph;
pub mod limits;
mod loops;

pub use analysis::Analysis;
pub use cfg::{BlockData, BlockIdx, Cfg, Merge, Terminator};
pub use dom::DomTree;
pub use error::{CfgError, SpirvError};
pub use loops::{Loop, LoopForest, LoopIdx};
