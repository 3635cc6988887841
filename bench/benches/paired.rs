//! The two speed goals measured as paired rounds, so that a machine whose speed drifts between
//! two benchmarks cannot tilt their ratio.
//!
//! Criterion times each benchmark in its own window of a few seconds; on a shared machine the
//! speed of the whole machine changes between windows, and the goal ratios of `stages`
//! (`goal_reader_SET`, `goal_translate_SET`) swing by ±20% from run to run. Here each round
//! times one pass of ours and one pass of the peer over the same modules back to back, in
//! alternating order, and the ratio is taken per round: drift slower than a round cancels out.
//! The report is the median round ratio with its quartiles and extremes, printed and written to
//! `REPORT_DIR/paired.md` (`spv2il_bench::report`), which `cargo xtask bench` adds to its summary.
//!
//! Goals and sets as in `stages`, each over the modules both sides accept:
//! - `reader`: `spv_reader::read` against rspirv `binary::parse_bytes` (a consumer that keeps
//!   nothing), each result dropped at once; and again with our modules kept for the whole pass,
//!   so that no read can reuse a dropped module's buffers;
//! - `translate`: `spv2il::translate` to IL text (one output, as the `spv2il` command writes by
//!   default) against naga's parse + validate + WGSL text; and again writing both IL forms, text
//!   and tokens.
//!
//! `cargo bench --manifest-path bench/Cargo.toml --bench paired` runs 101 rounds after 5 warm-up
//! rounds; `SPV2IL_PAIRED_ROUNDS=N` sets the number of measured rounds.

use std::cell::RefCell;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use spv2il_bench::inputs::{Input, input_sets};
use spv2il_bench::report::report_dir;

mod peers;
use peers::{naga_to_wgsl, rspirv_parses};

/// Rounds when `SPV2IL_PAIRED_ROUNDS` does not say: odd, so that the median is one round's ratio.
const DEFAULT_ROUNDS: usize = 101;

/// The environment variable that sets the number of measured rounds.
const ROUNDS_VAR: &str = "SPV2IL_PAIRED_ROUNDS";

/// Rounds run before the measured ones, to fill caches and the reader's spare buffers.
const WARM_UP_ROUNDS: usize = 5;

fn main() {
    // From the environment rather than the arguments: `cargo xtask bench` passes criterion's
    // arguments to every bench.
    let rounds = std::env::var(ROUNDS_VAR)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_ROUNDS);
    let sets = match input_sets() {
        Ok(sets) => sets,
        Err(e) => {
            eprintln!("paired: cannot load the inputs: {e}");
            std::process::exit(1);
        }
    };
    let naga_options = naga::front::spv::Options::default();
    let spv2il_options = spv2il::Options::default();
    let mut table = String::from(
        "| goal | set | modules | rounds | median ratio | quartiles | extremes |\n\
         |---|---|---:|---:|---:|---|---|\n",
    );
    for set in &sets {
        let readable = accepted(&set.inputs, |b| {
            spv_reader::read(b).is_ok() && rspirv_parses(b)
        });
        let ours_read = |b: &[u8]| {
            black_box(spv_reader::read(b).is_ok());
        };
        let theirs_read = |b: &[u8]| {
            black_box(rspirv_parses(b));
        };
        table += &paired_row(
            "reader ≥ 5× rspirv `parse_bytes`",
            set.name,
            &readable,
            rounds,
            &ours_read,
            &theirs_read,
        );
        // The same reads with every module of a pass kept until the next pass of ours begins
        // (its first read drops them), so that no read reuses the buffers of a module dropped
        // just before it, as in `stages`' `goal_reader_SET/spv2il_kept`.
        let kept = RefCell::new(Vec::with_capacity(readable.len()));
        let first = readable.first().map(|b| b.as_ptr());
        let ours_kept = |b: &[u8]| {
            let mut kept = kept.borrow_mut();
            if Some(b.as_ptr()) == first {
                kept.clear();
            }
            kept.push(spv_reader::read(b));
        };
        table += &paired_row(
            "reader, modules kept, vs `parse_bytes`",
            set.name,
            &readable,
            rounds,
            &ours_kept,
            &theirs_read,
        );
        drop(kept);

        let translatable = accepted(&set.inputs, |b| {
            spv2il::translate(b, &spv2il_options).is_ok()
                && naga_to_wgsl(b, &naga_options).is_some()
        });
        let ours_translate = |b: &[u8]| {
            if let Ok(t) = spv2il::translate(b, &spv2il_options) {
                black_box(t.text());
            }
        };
        let theirs_translate = |b: &[u8]| {
            black_box(naga_to_wgsl(b, &naga_options).is_some());
        };
        table += &paired_row(
            "translate to IL text ≥ 2× naga parse + validate + WGSL",
            set.name,
            &translatable,
            rounds,
            &ours_translate,
            &theirs_translate,
        );
        let ours_both = |b: &[u8]| {
            if let Ok(t) = spv2il::translate(b, &spv2il_options) {
                black_box((t.text(), t.tokens()));
            }
        };
        table += &paired_row(
            "translate to IL text and tokens, vs the same",
            set.name,
            &translatable,
            rounds,
            &ours_both,
            &theirs_translate,
        );
    }
    print!("{table}");
    let path = report_dir().join("paired.md");
    let written =
        std::fs::create_dir_all(report_dir()).and_then(|()| std::fs::write(&path, &table));
    match written {
        Ok(()) => eprintln!("paired: wrote {}", path.display()),
        Err(e) => eprintln!("paired: cannot write {}: {e}", path.display()),
    }
}

/// The modules of `inputs` that `accepts` (run outside any timing; a panic, which naga's front
/// end has on one of our shaders, counts as refusal).
fn accepted(inputs: &[Input], accepts: impl Fn(&[u8]) -> bool) -> Vec<&[u8]> {
    inputs
        .iter()
        .filter(|input| catch_unwind(AssertUnwindSafe(|| accepts(&input.bytes))).unwrap_or(false))
        .map(|input| input.bytes.as_slice())
        .collect()
}

/// Per round, the peer's time for one pass over `modules` divided by ours, after
/// [`WARM_UP_ROUNDS`] unmeasured rounds; sorted. Odd rounds run ours first, even rounds the
/// peer first.
fn paired(
    modules: &[&[u8]],
    rounds: usize,
    ours: &dyn Fn(&[u8]),
    theirs: &dyn Fn(&[u8]),
) -> Vec<f64> {
    let pass = |run: &dyn Fn(&[u8])| {
        let start = Instant::now();
        for module in modules {
            run(module);
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios = Vec::with_capacity(rounds);
    for round in 0..WARM_UP_ROUNDS + rounds {
        let (ours_time, theirs_time) = if round % 2 == 0 {
            let o = pass(ours);
            (o, pass(theirs))
        } else {
            let t = pass(theirs);
            (pass(ours), t)
        };
        if round >= WARM_UP_ROUNDS && ours_time > 0.0 {
            ratios.push(theirs_time / ours_time);
        }
    }
    ratios.sort_by(f64::total_cmp);
    ratios
}

/// The report row of `goal` on `set`: [`paired`] rounds of `ours` against `theirs` over `modules`.
fn paired_row(
    goal: &str,
    set: &str,
    modules: &[&[u8]],
    rounds: usize,
    ours: &dyn Fn(&[u8]),
    theirs: &dyn Fn(&[u8]),
) -> String {
    row(
        goal,
        set,
        modules.len(),
        &paired(modules, rounds, ours, theirs),
    )
}

/// One row of the report table: the median ratio, the quartiles and the extremes.
fn row(goal: &str, set: &str, modules: usize, sorted: &[f64]) -> String {
    let at = |q: f64| {
        let last = sorted.len().saturating_sub(1);
        sorted
            .get((q * last as f64).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    format!(
        "| {goal} | {set} | {modules} | {} | {:.2}× | {:.2}–{:.2}× | {:.2}–{:.2}× |\n",
        sorted.len(),
        at(0.5),
        at(0.25),
        at(0.75),
        at(0.0),
        at(1.0)
    )
}
