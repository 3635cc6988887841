//! The crate's error type.

use crate::cfg::BlockIdx;
use spv_reader::{Id, Location};
use std::fmt;

/// Everything that can go wrong in this crate.
///
/// Variants fall in three groups: *invalid input* (the CFG or SPIR-V function breaks a rule
/// that the analyses rely on), *limits* (the input is too large or too deeply nested for the
/// named limits in [`limits`](crate::limits)), and `Internal` (a bug in this crate; reported
/// instead of panicking).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CfgError {
    /// The function has no blocks.
    EmptyFunction,
    /// More blocks than fit in a `u32` index.
    TooManyBlocks {
        /// The number of blocks.
        count: usize,
    },
    /// A terminator or merge instruction names a block index out of range.
    TargetOutOfRange {
        /// The block whose terminator or merge instruction is wrong.
        block: BlockIdx,
        /// The out-of-range index.
        target: u32,
    },
    /// An `OpSwitch` repeats a case literal (SPIR-V §3.3.17, `spirv.md` V-CFG-6).
    DuplicateCaseLiteral {
        /// The block ending in the `OpSwitch`.
        block: BlockIdx,
        /// The repeated literal.
        literal: u64,
    },
    /// The SPIR-V function could not be turned into a CFG (adapter errors).
    Spirv(SpirvError),
    /// The work limit [`MAX_WORK`](crate::limits::MAX_WORK) was exceeded.
    WorkLimit {
        /// The limit that was exceeded.
        limit: u64,
    },
    /// The region tree would nest deeper than
    /// [`MAX_REGION_DEPTH`](crate::limits::MAX_REGION_DEPTH).
    DepthLimit {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// An internal invariant failed: a bug in this crate, reported instead of a panic.
    Internal(&'static str),
}

/// A located problem found while reading a SPIR-V function into a [`Cfg`](crate::Cfg).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpirvError {
    /// What is wrong.
    pub message: String,
    /// The offending instruction, when there is one.
    pub location: Option<Location>,
    /// Opcode of the offending instruction, spelled as spirv-dis prints it.
    pub opcode: Option<String>,
    /// The result id of the function.
    pub function: Id,
}

impl fmt::Display for SpirvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = self.location {
            write!(f, "{loc}")?;
            if let Some(op) = &self.opcode {
                write!(f, " ({op})")?;
            }
            write!(f, ": ")?;
        }
        write!(f, "{} (in function {})", self.message, self.function)
    }
}

impl fmt::Display for CfgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CfgError::EmptyFunction => write!(f, "invalid CFG: the function has no blocks"),
            CfgError::TooManyBlocks { count } => {
                write!(
                    f,
                    "invalid CFG: {count} blocks do not fit in a 32-bit index"
                )
            }
            CfgError::TargetOutOfRange { block, target } => write!(
                f,
                "invalid CFG: block {block} names block index {target}, which does not exist"
            ),
            CfgError::DuplicateCaseLiteral { block, literal } => write!(
                f,
                "invalid CFG: the OpSwitch of block {block} repeats case literal {literal} (V-CFG-6)"
            ),
            CfgError::Spirv(e) => write!(f, "invalid SPIR-V function: {e}"),
            CfgError::WorkLimit { limit } => {
                write!(
                    f,
                    "limit: control-flow analysis exceeded {limit} work units"
                )
            }
            CfgError::DepthLimit { limit } => {
                write!(f, "limit: control flow nests deeper than {limit} levels")
            }
            CfgError::Internal(what) => write!(f, "internal error in spv-cfg: {what}"),
        }
    }
}

impl std::error::Error for CfgError {}
