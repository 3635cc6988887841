//! The float-control execution modes (SPIR-V §3.2.5; DenormPreserve, DenormFlushToZero,
//! SignedZeroInfNanPreserve, RoundingModeRTE, RoundingModeRTZ): V-EP-6 for the modes that
//! may repeat once per Target Width — the same mode with the same operands twice for one
//! entry point is still a repeat.
//!
//! V-EP-7 (one Denorm mode and one rounding mode per width) is not enforced: spirv-val 2025.5
//! accepts both of a pair for one width. V-EP-10 (at most 255 modes per entry point) is not
//! checked either: every mode may be given once (V-EP-6), and no module can reach the limit
//! without breaking that.

use std::collections::HashSet;

use spv_reader::spirv::ExecutionMode as M;

use crate::ctx::Ctx;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let per_width = [
        M::DenormPreserve,
        M::DenormFlushToZero,
        M::SignedZeroInfNanPreserve,
        M::RoundingModeRTE,
        M::RoundingModeRTZ,
    ];
    let mut seen: HashSet<(u32, u32, &[u32])> = HashSet::new();
    let mut problems = Vec::new();
    for em in ctx.m.execution_modes() {
        if !per_width.iter().any(|&m| m as u32 == em.mode) {
            continue;
        }
        if !seen.insert((em.target.0, em.mode, em.operands.as_slice())) {
            let name =
                M::from_u32(em.mode).map_or_else(|| em.mode.to_string(), |m| format!("{m:?}"));
            problems.push((
                em.inst,
                em.target,
                format!(
                    "{name} execution mode must not be specified multiple times for the same \
                     entry point and operands"
                ),
            ));
        }
    }
    for (at, id, message) in problems {
        ctx.err("V-EP-6", at, &[id], message);
    }
}
