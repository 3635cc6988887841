//! The entry point that picks a structurizer and lowers its labeled output.

use crate::cfg::Cfg;
use crate::error::CfgError;
use crate::general::structurize_general;
use crate::lab::lower_exits;
use crate::limits::Budget;
use crate::merges::{Fail, structurize_merges};
use crate::region::{Strategy, Structured, Var};

/// Turns the function described by `cfg` into a region tree.
///
/// With [`Strategy::Merges`] the tree follows the merge instructions; if they do not describe
/// the CFG (no merges, invalid structure, an unstructured Kernel function), the general
/// structurizer runs instead and [`Structured::fallback_reason`] says why. With
/// [`Strategy::General`] merge instructions are ignored. Either way the result is exact: it
/// executes the same blocks and takes the same edges as the CFG, for every branch decision.
///
/// Errors only on the limits of [`limits`](crate::limits) (and on internal errors).
pub fn structurize(cfg: &Cfg, strategy: Strategy) -> Result<Structured, CfgError> {
    let mut budget = Budget::new();
    let mut fallback_reason = None;
    if strategy == Strategy::Merges {
        match structurize_merges(cfg, &mut budget) {
            Ok(lab) => match lower_exits(lab, Var(0), &mut budget) {
                Ok((body, used)) => {
                    return Ok(Structured {
                        body,
                        num_vars: u32::from(used),
                        strategy: Strategy::Merges,
                        fallback_reason: None,
                    });
                }
                Err(CfgError::Internal(why)) => fallback_reason = Some(why.to_string()),
                Err(e) => return Err(e),
            },
            Err(Fail::Unstructured(why)) => fallback_reason = Some(why),
            // Following the merges of an unstructured function can nest arbitrarily deep
            // before the walk notices that the merges do not fit; the general structurizer
            // may still succeed.
            Err(Fail::Error(e @ CfgError::DepthLimit { .. })) => {
                fallback_reason = Some(e.to_string());
            }
            Err(Fail::Error(e)) => return Err(e),
        }
    }
    let (lab, dispatch_vars) = structurize_general(cfg, &mut budget)?;
    let (body, used) = lower_exits(lab, Var(dispatch_vars), &mut budget)?;
    Ok(Structured {
        body,
        num_vars: dispatch_vars + u32::from(used),
        strategy: Strategy::General,
        fallback_reason,
    })
}
