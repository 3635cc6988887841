//! The control-flow shapes of `spirv.md` §2.16 and §3 (and the translator pain points of
//! `tooling.md`), each built by hand, structurized, printed, and checked against the CFG.

mod common;

use common::check_equivalent;
use spv_cfg::{BlockData, BlockIdx, Cfg, Merge, Strategy, Structured, Terminator};
use spv_cfg::{region_text, structurize};

fn b(i: u32) -> BlockIdx {
    BlockIdx(i)
}
fn br(t: u32) -> BlockData {
    BlockData::new(Terminator::Branch(b(t)))
}
fn cond(t: u32, f: u32) -> BlockData {
    BlockData::new(Terminator::BranchConditional {
        true_target: b(t),
        false_target: b(f),
    })
}
fn ret() -> BlockData {
    BlockData::new(Terminator::Return)
}
fn unreachable() -> BlockData {
    BlockData::new(Terminator::Unreachable)
}
fn switch(default: u32, cases: &[(u64, u32)]) -> BlockData {
    BlockData::new(Terminator::Switch {
        selector_bits: 32,
        default: b(default),
        cases: cases.iter().map(|&(l, t)| (l, b(t))).collect(),
    })
}
fn sel(mut d: BlockData, merge: u32) -> BlockData {
    d.merge = Merge::Selection { merge: b(merge) };
    d
}
fn lp(mut d: BlockData, merge: u32, cont: u32) -> BlockData {
    d.merge = Merge::Loop {
        merge: b(merge),
        continue_target: b(cont),
    };
    d
}
fn phis(mut d: BlockData) -> BlockData {
    d.has_phis = true;
    d
}

/// Structurizes with `strategy`, checks the strategy actually used and exactness (many
/// random executions), and returns the printed tree.
fn run(blocks: Vec<BlockData>, strategy: Strategy) -> String {
    let cfg = Cfg::new(blocks).unwrap();
    let s: Structured = structurize(&cfg, strategy).unwrap();
    assert_eq!(s.strategy, strategy, "fallback: {:?}", s.fallback_reason);
    check_equivalent(&cfg, &s, 7, 300, 60).unwrap();
    region_text(&cfg, &s)
}

fn merges(blocks: Vec<BlockData>) -> String {
    run(blocks, Strategy::Merges)
}
fn general(blocks: Vec<BlockData>) -> String {
    run(blocks, Strategy::General)
}

/// A `break` out of a loop from inside a switch nested in it (SPIR-V allows it, C cannot
/// say it; V-SCF-11 loop break). IL `break` would only leave the switch, so the exit
/// variable carries the exit past the switch, where a ladder breaks the loop.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn loop_break_from_switch() {
    let got = merges(vec![
        br(1),
        lp(br(2), 6, 5),
        sel(switch(4, &[(1, 3)]), 7),
        br(6),
        br(7),
        cond(1, 6),
        ret(),
        br(5),
    ]);
    let want = "\
v0 = 0
block b0
loop {
  block b1
  block b2
  switch b2 {
  case 1:
    block b3
    v0 = 7
    break
  default:
    block b4
  }
  if v0 == 7 {
    v0 = 0
    break
  }
  block b7
  block b5
  if !b5 {
    break
  }
}
block b6
return (b6)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// `continue` from inside a switch case, the loop having a continue construct (b6) with code:
/// the case leaves the switch with the exit variable set, the switch merge (b8) is skipped, and
/// the continue construct runs at the loop bottom.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn continue_inside_switch() {
    let got = merges(vec![
        br(1),
        lp(cond(2, 7), 7, 6),
        sel(switch(3, &[(1, 4), (2, 5)]), 8),
        br(8),
        br(6),
        br(8),
        br(1),
        ret(),
        br(6),
    ]);
    let want = "\
v0 = 0
block b0
loop {
  block b1
  if !b1 {
    break
  }
  block b2
  switch b2 {
  case 1:
    block b4
    v0 = 7
    break
  case 2:
    block b5
    break
  default:
    block b3
  }
  if v0 == 0 {
    block b8
  }
  v0 = 0
  block b6
}
block b7
return (b7)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// A single-block loop whose header is its own continue target, with a conditional back edge.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn conditional_back_edge_header_own_continue_target() {
    let got = merges(vec![br(1), lp(cond(1, 2), 2, 1), ret()]);
    let want = "\
block b0
loop {
  block b1
  if !b1 {
    break
  }
}
block b2
return (b2)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// A do-while: the back-edge block ends in `OpBranchConditional %header %merge`.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn do_while_with_conditional_back_edge() {
    let got = merges(vec![br(1), lp(br(2), 4, 3), br(3), cond(1, 4), ret()]);
    let want = "\
block b0
loop {
  block b1
  block b2
  block b3
  if !b3 {
    break
  }
}
block b4
return (b4)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// Both arms of a selection return, so its merge block (`OpUnreachable`) is reached only through
/// the merge edge (`spirv.md` §2.16 item 1): it produces no code, and the second arm
/// follows the `if` instead of nesting in an `else`.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn merge_reached_only_through_merge_edge() {
    let got = merges(vec![sel(cond(1, 2), 3), ret(), ret(), unreachable()]);
    let want = "\
block b0
if b0 {
  block b1
  return (b1)
}
block b2
return (b2)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// Switch fall-through (case 1 falls into case 2) into a case without phis: IL's C
/// fall-through expresses it directly; the default is the merge, so no default arm is needed.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn switch_fall_through_without_phis() {
    let got = merges(vec![
        sel(switch(4, &[(1, 1), (2, 2), (3, 3)]), 4),
        br(2),
        br(4),
        br(4),
        ret(),
    ]);
    let want = "\
block b0
switch b0 {
case 1:
  block b1
case 2:
  block b2
  break
case 3:
  block b3
  break
}
block b4
return (b4)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// Fall-through into a case with phis: entering it directly runs the copies of edge b0 → b2,
/// which the fall-through path must not run, so that case moves after the switch.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn switch_fall_through_into_a_case_with_phis() {
    let got = merges(vec![
        sel(switch(4, &[(1, 1), (2, 2), (3, 3)]), 4),
        br(2),
        phis(br(4)),
        br(4),
        ret(),
    ]);
    let want = "\
v0 = 0
block b0
switch b0 {
case 1:
  block b1
  edge b1 -> b2
  break
case 2:
  edge b0 -> b2
  break
case 3:
  block b3
  v0 = 5
  break
default:
  v0 = 5
  break
}
if v0 == 0 {
  block b2
}
v0 = 0
block b4
return (b4)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// `if (c) break;` and `if (c) continue;` shapes without OpSelectionMerge (V-SCF-3 allows
/// them).
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn if_break_and_if_continue_without_merge() {
    let got = merges(vec![
        br(1),
        lp(br(2), 5, 4),
        cond(5, 3),
        cond(4, 6),
        br(1),
        ret(),
        br(4),
    ]);
    let want = "\
block b0
loop {
  block b1
  block b2
  if b2 {
    break
  }
  block b3
  if !b3 {
    block b6
  }
  block b4
}
block b5
return (b5)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// A `continue` from inside a selection that is followed by more code: the rest of the
/// iteration is skipped through the exit variable.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn continue_from_a_nested_selection() {
    let got = merges(vec![
        br(1),
        lp(br(2), 7, 6),
        sel(cond(3, 5), 5),
        cond(6, 4),
        br(5),
        br(6),
        br(1),
        ret(),
    ]);
    let want = "\
v0 = 0
block b0
loop {
  block b1
  block b2
  if b2 {
    block b3
    if b3 {
      v0 = 7
    } else {
      block b4
    }
  }
  if v0 == 0 {
    block b5
  }
  v0 = 0
  block b6
}
";
    assert_eq!(got, want, "got:\n{got}");
}

/// An early return inside a loop body.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn early_return_in_a_loop() {
    let got = merges(vec![
        br(1),
        lp(cond(2, 5), 5, 4),
        cond(3, 4),
        ret(),
        br(1),
        ret(),
    ]);
    let want = "\
block b0
loop {
  block b1
  if !b1 {
    break
  }
  block b2
  if b2 {
    block b3
    return (b3)
  }
  block b4
}
block b5
return (b5)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// The classic irreducible loop (two entries, `spirv.md` §3.7): a dispatcher variable picks the
/// entry on every iteration; no block is duplicated.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn irreducible_two_entry_loop() {
    let got = general(vec![cond(1, 2), cond(2, 3), cond(1, 3), ret()]);
    let want = "\
block b0
if b0 {
  v0 = 1
} else {
  v0 = 2
}
loop {
  if v0 == 1 {
    block b1
    if b1 {
      v0 = 2
    } else {
      break
    }
  } else {
    block b2
    if b2 {
      v0 = 1
    } else {
      break
    }
  }
}
block b3
return (b3)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// Kernel-style nested loops without merges, the inner loop breaking the outer one.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn kernel_nested_loops_inner_breaks_outer() {
    let got = general(vec![
        br(1),
        cond(2, 6),
        cond(3, 5),
        cond(6, 4),
        br(2),
        br(1),
        ret(),
    ]);
    let want = "\
v0 = 0
block b0
loop {
  block b1
  if !b1 {
    break
  }
  loop {
    block b2
    if !b2 {
      break
    }
    block b3
    if b3 {
      v0 = 7
      break
    }
    block b4
  }
  if v0 == 7 {
    v0 = 0
    break
  }
  block b5
}
block b6
return (b6)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// `if (a && b) X; else Y;` with a shared else block (b2): not expressible with if/else alone
/// without duplicating b2, so the exit variable skips it after X.
/// Expected tree checked by reading it against the CFG, and by `run` (300 random executions
/// replayed on tree and CFG).
#[test]
fn short_circuit_and() {
    let got = general(vec![cond(1, 2), cond(3, 2), phis(br(4)), br(4), ret()]);
    let want = "\
v0 = 0
block b0
if !b0 {
  edge b0 -> b2
} else {
  block b1
  if !b1 {
    edge b1 -> b2
  } else {
    block b3
    v0 = 5
  }
}
if v0 == 0 {
  block b2
}
v0 = 0
block b4
return (b4)
";
    assert_eq!(got, want, "got:\n{got}");
}

/// `loop { if (c) { X; continue; } Y; }` where Y is the selection's merge: the merge is
/// reached from one place only, so it runs there and the `continue` needs no exit flag.
/// Expected tree derived by hand from the merge walk (the merge code is spliced into the
/// `if`'s jump arm, then the rest of the sequence moves into the other arm) and checked by
/// `run`.
#[test]
fn continue_past_a_merge_reached_once() {
    let got = merges(vec![
        br(1),
        lp(br(2), 6, 5),
        sel(cond(3, 4), 4),
        br(5),
        br(5),
        cond(1, 6),
        ret(),
    ]);
    let want = "\
block b0
loop {
  block b1
  block b2
  if !b2 {
    block b4
  } else {
    block b3
  }
  block b5
  if !b5 {
    break
  }
}
block b6
return (b6)
";
    assert_eq!(got, want, "got:\n{got}");
}
