//! Named limits that keep every analysis bounded on any input (design rule: no input may make
//! a crate panic, hang or exhaust memory).

use crate::error::CfgError;

/// Maximum number of abstract work units (roughly: node and edge visits) one call to
/// [`structurize`](crate::structurize) or [`Analysis::new`](crate::Analysis::new) may spend.
/// Real functions use a few units per block; beyond this the call returns
/// [`CfgError::WorkLimit`] instead of running for a long time.
pub const MAX_WORK: u64 = 1 << 27;

/// Maximum nesting depth of the region tree (and so of the recursion that builds, lowers,
/// prints or walks it). SPIR-V itself limits structured nesting to 1023 (`spirv.md` V-CFG-10);
/// real shaders stay far below this limit, and deeper trees are refused with
/// [`CfgError::DepthLimit`] so that no recursion can exhaust the stack.
pub const MAX_REGION_DEPTH: usize = 192;

/// A work counter that fails once its limit ([`MAX_WORK`] outside tests) has been spent.
#[derive(Debug)]
pub(crate) struct Budget {
    left: u64,
    limit: u64,
}

impl Budget {
    /// A fresh budget of [`MAX_WORK`] units.
    pub(crate) fn new() -> Budget {
        Budget::with_limit(MAX_WORK)
    }

    /// A budget of `limit` units.
    pub(crate) fn with_limit(limit: u64) -> Budget {
        Budget { left: limit, limit }
    }

    /// The units not yet spent.
    pub(crate) fn left(&self) -> u64 {
        self.left
    }

    /// Spends `units`; errors once the budget is exhausted.
    #[inline]
    pub(crate) fn charge(&mut self, units: usize) -> Result<(), CfgError> {
        let units = units as u64;
        if units > self.left {
            return Err(self.exhausted());
        }
        self.left -= units;
        Ok(())
    }

    /// The error of [`Budget::charge`], out of line: charges are on every step's path.
    #[cold]
    #[inline(never)]
    fn exhausted(&mut self) -> CfgError {
        self.left = 0;
        CfgError::WorkLimit { limit: self.limit }
    }
}
