//! Flow control (guide §7.4): if/else, loops with break/continue forms, switch with
//! fall-through, subroutines, and the step limit. Expected values are traced by hand.

mod common;

use common::{parse, run_err, run_ok};
use il_sim::{Dispatch, ErrorKind, run};

const HEAD: &str = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_literal l0, 0, 1, 2, 3
dcl_literal l1, 4, 8, 12, 16
dcl_literal l2, 10, 0x7FC00000, 0x80000000, 5
";

fn program(body: &str) -> String {
    format!("{HEAD}{body}end\n")
}

#[test]
fn if_logical_tests_all_32_bits() {
    // NaN and −0.0 are non-zero bit patterns, so both count as true (guide IF_LOGICALNZ).
    let w = run_ok(&program(
        "mov r0, l0.x
if_logicalnz l2.y
    iadd r0.x, r0.x, l0.y
endif
if_logicalnz l2.z
    iadd r0.x, r0.x, l0.z
else
    iadd r0.x, r0.x, l1.w
endif
if_logicalz l2.z
    iadd r0.x, r0.x, l1.y
else
    if_logicalz l0.x
        iadd r0.x, r0.x, l1.z
    endif
endif
uav_raw_store_id(0) mem.x, l0.x, r0.x
",
    ));
    // 0 + 1 (NaN true) + 2 (−0 true) + 12 (else branch, nested if taken).
    assert_eq!(w[0], 15);
}

#[test]
fn whileloop_with_break_and_continue_forms() {
    // for (i = 0; i != 10; i++) { if (i == 3) continue; sum += i; } with the counter stepped
    // before the test so `continue` does not loop forever.
    let w = run_ok(&program(
        "mov r0, l0.x
mov r1, l0.x
whileloop
    ieq r2.x, r0.x, l2.x
    break_logicalnz r2.x
    iadd r0.x, r0.x, l0.y
    ieq r2.x, r0.x, l0.w
    continue_logicalnz r2.x
    iadd r1.x, r1.x, r0.x
endloop
uav_raw_store_id(0) mem.x, l0.x, r1.x
",
    ));
    // Sum of 1..=10 without 3.
    assert_eq!(w[0], 55 - 3);
}

#[test]
fn nested_loops_break_only_the_inner_one() {
    let w = run_ok(&program(
        "mov r0, l0.x
mov r1, l0.x
whileloop
    uge r2.x, r0.x, l0.w
    break_logicalnz r2.x
    whileloop
        iadd r1.x, r1.x, l0.y
        break
    endloop
    iadd r0.x, r0.x, l0.y
endloop
uav_raw_store_id(0) mem.x, l0.x, r1.x
",
    ));
    assert_eq!(w[0], 3);
}

#[test]
fn unconditional_continue_and_break_logicalz() {
    let w = run_ok(&program(
        "mov r0, l0.x
whileloop
    iadd r0.x, r0.x, l0.y
    ult r2.x, r0.x, l2.w
    break_logicalz r2.x
    continue
    iadd r0.x, r0.x, l1.w
endloop
uav_raw_store_id(0) mem.x, l0.x, r0.x
",
    ));
    assert_eq!(w[0], 5);
}

/// A switch on `value` where case 1 falls through into case 2 (guide §7.2.2: fall-through is
/// allowed) and case 3 breaks.
fn switch_program(value: u32) -> String {
    format!(
        "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_literal l0, 0, {value}, 100, 1000
dcl_literal l1, 1, 10, 0, 0
mov r0, l0.x
switch l0.y
case 1
    iadd r0.x, r0.x, l1.x
case 2
    iadd r0.x, r0.x, l1.y
    break
case 3
    iadd r0.x, r0.x, l0.z
    break
default
    iadd r0.x, r0.x, l0.w
endswitch
uav_raw_store_id(0) mem.x, l0.x, r0.x
end
"
    )
}

#[test]
fn switch_falls_through_cases_without_break() {
    let result = |v| run_ok(&switch_program(v))[0];
    assert_eq!(result(1), 11);
    assert_eq!(result(2), 10);
    assert_eq!(result(3), 100);
    assert_eq!(result(7), 1000);
    assert_eq!(result(0xFFFF_FFFF), 1000);
}

#[test]
fn switch_without_a_matching_case_or_default_skips() {
    let w = run_ok(&program(
        "mov r0, l1.x
switch l0.w
case 1
    mov r0, l0.y
endswitch
uav_raw_store_id(0) mem.x, l0.x, r0.x
",
    ));
    assert_eq!(w[0], 4);
}

#[test]
fn break_binds_to_the_innermost_loop_or_switch() {
    // A break inside a switch inside a loop leaves the switch; a loop inside a case is left by
    // its own break (amd-il.md §7.6).
    let w = run_ok(&program(
        "mov r0, l0.x
mov r1, l0.x
whileloop
    uge r2.x, r0.x, l0.w
    break_logicalnz r2.x
    switch r0.x
    case 1
        whileloop
            iadd r1.x, r1.x, l1.w
            break
        endloop
        break
    default
        iadd r1.x, r1.x, l0.y
        break
    endswitch
    iadd r0.x, r0.x, l0.y
endloop
uav_raw_store_id(0) mem.x, l0.x, r1.x
",
    ));
    // r0 = 0: +1; r0 = 1: +16; r0 = 2: +1.
    assert_eq!(w[0], 18);
}

#[test]
fn subroutines_call_and_return() {
    let w = run_ok(&program(
        "mov r0, l0.x
call 7
call 7
call_logicalnz l0.x, 7
call_logicalz l0.x, 9
uav_raw_store_id(0) mem.x, l0.x, r0.x
ret_dyn
endmain
func 7
    iadd r0.x, r0.x, l0.y
    ret_logicalnz l0.y
    iadd r0.x, r0.x, l1.w
ret
func 9
    iadd r0.x, r0.x, l0.w
    ret_dyn
    iadd r0.x, r0.x, l1.w
endfunc
",
    ));
    // Two calls of 7 (+1 each, early return), the conditional one skipped, one call of 9 (+3).
    assert_eq!(w[0], 5);
}

#[test]
fn endless_recursion_hits_the_call_depth_limit() {
    let e = run_err(&program(
        "call 1
endmain
func 1
    call 1
ret
",
    ));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(e.inst, Some(8));
}

#[test]
fn an_endless_loop_stops_at_the_step_limit() {
    let p = parse(&program("whileloop\nendloop\n"));
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs = vec![vec![0; 16]];
    d.step_limit = 10_000;
    let e = match run(&p, &mut d) {
        Ok(s) => panic!("expected the step limit, got {s:?}"),
        Err(e) => e,
    };
    assert_eq!(e.kind, ErrorKind::StepLimit);
    assert!(matches!(e.inst, Some(5 | 6)));
}

#[test]
fn unbalanced_blocks_are_located() {
    // The header declares five things, so the body starts at instruction 5.
    assert_eq!(run_err(&program("endif\n")).inst, Some(5));
    assert_eq!(run_err(&program("whileloop\nendif\n")).inst, Some(6));
    assert_eq!(run_err(&program("break\n")).inst, Some(5));
    assert_eq!(run_err(&program("if_logicalnz l0.x\n")).inst, Some(5));
    assert_eq!(run_err(&program("call 3\n")).inst, Some(5));
    let e = run_err(&program(
        "whileloop\ncontinue\nendloop\nswitch l0.x\ncontinue\nendswitch\n",
    ));
    assert_eq!(e.inst, Some(9));
    assert_eq!(e.kind, ErrorKind::Malformed);
}
