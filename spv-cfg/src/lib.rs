//! Control-flow graphs, dominance and a structurizer for SPIR-V functions.

mod analysis;
mod cfg;
mod dom;
mod error;
mod general;
mod graph;
mod lab;
pub mod limits;
mod loops;
mod merges;
mod print;
mod region;
mod spirv;
mod structurize;

pub use analysis::Analysis;
pub use cfg::{BlockData, BlockIdx, Cfg, Merge, Terminator};
pub use dom::DomTree;
pub use error::{CfgError, SpirvError};
pub use loops::{Loop, LoopForest, LoopIdx};
pub use print::{region_text, to_dot, to_text};
pub use region::{Cond, Region, RegionStats, Strategy, Structured, SwitchArm, Var};
pub use structurize::structurize;
