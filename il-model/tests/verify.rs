//! The verifier accepts the digest's §1.13 kernel and rejects each rule violation with a located
//! message.

use il_model::{
    Control, Dst, Family, Inst, Nested, NestedId, Opcode, Program, Reg, RegType, ShaderKind, Src,
    verify,
};

fn kernel(body: Vec<Inst>) -> Program {
    let mut p = Program::new(ShaderKind::Compute);
    p.body
        .push(Inst::new(Opcode::DclNumThreadPerGroup).extra(&[64]));
    p.body
        .push(Inst::new(Opcode::DclRawUav).ctrl(Control::id(0)));
    p.body.push(Inst::literal(0, [2, 1, 0, 0]));
    p.body.extend(body);
    p.body.push(Inst::new(Opcode::End));
    p
}

fn mov(dst: Dst, src: Src) -> Inst {
    Inst::new(Opcode::Mov).dst(dst).src(src)
}

/// Verifies and returns the first error message (the program must be rejected).
fn first_error(p: &Program, family: Family) -> String {
    let errors = verify(p, family).expect_err("must be rejected");
    errors[0].to_string()
}

#[test]
fn a_plain_kernel_verifies() {
    let p = kernel(vec![mov(
        Dst::temp(0).mask("x___"),
        Src::literal(0).swz("x"),
    )]);
    assert_eq!(verify(&p, Family::R700), Ok(()));
}

#[test]
fn each_rule_is_enforced() {
    let t = |n| Src::temp(n).swz("x");
    // Nested operands of the cases; each case's program takes a copy.
    let mut nested = Nested::new();
    let cases: Vec<(Vec<Inst>, &str)> = vec![
        (vec![Inst::new(Opcode::IfLogicalnz).src(t(0))], "unclosed"),
        (vec![Inst::new(Opcode::Else)], "`else` without"),
        (vec![Inst::new(Opcode::Break)], "outside a loop"),
        (vec![Inst::new(Opcode::Call).extra(&[9])], "call target 9"),
        (
            vec![mov(Dst::temp(0), Src::literal(1))],
            "Literal 1 used before",
        ),
        (vec![Inst::literal(0, [0; 4])], "declared twice"),
        (
            vec![
                Inst::new(Opcode::UavRawLoad)
                    .ctrl(Control::id(3))
                    .dst(Dst::temp(0).mask("x___"))
                    .src(t(0)),
            ],
            "UAV 3",
        ),
        (
            vec![mov(
                Dst::temp(0),
                Src::new(Reg::new(RegType::ITemp, 0).at(1)),
            )],
            "ITemp 0 used before",
        ),
        (
            vec![mov(Dst::temp(0), Src::special(RegType::Face))],
            "Face registers do not exist",
        ),
        (
            vec![mov(Dst::temp(0).mask("____"), t(1))],
            "selects no component",
        ),
        (
            vec![
                Inst::new(Opcode::IAdd)
                    .dst(Dst {
                        sat: true,
                        ..Dst::temp(0)
                    })
                    .src(t(1))
                    .src(t(2)),
            ],
            "no `_sat`",
        ),
        (
            vec![
                Inst::new(Opcode::IShl)
                    .dst(Dst::temp(0))
                    .src(t(1))
                    .src(Src::temp(2)),
            ],
            "shift amount",
        ),
        (
            vec![
                Inst::new(Opcode::DAdd)
                    .dst(Dst::temp(0).mask("xyz_"))
                    .src(t(1))
                    .src(t(2)),
            ],
            "64-bit pair",
        ),
        (
            vec![
                Inst::new(Opcode::UavRawStore)
                    .ctrl(Control::id(0))
                    .dst(Dst::temp(0))
                    .src(t(1))
                    .src(t(2)),
            ],
            "`mem`",
        ),
        (
            vec![mov(
                Dst::temp(0),
                Src::new(
                    Reg::new(RegType::Temp, 1).rel(nested.push(Src::temp(2).swz("xy01")), None),
                ),
            )],
            "replicated",
        ),
        (
            vec![mov(
                Dst::temp(0),
                Src::new(Reg::new(RegType::Temp, 1).rel(NestedId::DANGLING, None)),
            )],
            "missing from the program's nested-operand table",
        ),
        (
            vec![Inst::new(Opcode::Func).extra(&[1]), Inst::new(Opcode::Ret)],
            "before `endmain`",
        ),
        (
            vec![Inst::new(Opcode::DclMaxThreadPerGroup).extra(&[64])],
            "Appendix C.3",
        ),
        (
            vec![
                Inst::new(Opcode::Add)
                    .ctrl(Control(1))
                    .dst(Dst::temp(0))
                    .src(t(1))
                    .src(t(2)),
            ],
            "control bits",
        ),
        (
            vec![Inst::new(Opcode::Add).dst(Dst::temp(0)).src(t(1))],
            "takes 1 destination(s) and 2 source(s)",
        ),
        (
            vec![
                Inst::new(Opcode::Def)
                    .dst(Dst::new(Reg::new(RegType::ConstFloat, 0)))
                    .extra(&[0; 4]),
            ],
            "SM40-only",
        ),
    ];
    for (body, expected) in cases {
        let mut p = kernel(body);
        p.nested = nested.clone();
        let errors = verify(&p, Family::Evergreen).expect_err(expected);
        assert!(
            errors.iter().any(|e| e.message.contains(expected)),
            "{expected}: {errors:#?}"
        );
    }
}

/// amd-il.md §8.5: constant buffers are `cb0`–`cb14` of at most 4096 elements, and a declared
/// work-group has 1 to 1024 invocations (three 32-bit sizes whose product needs 96 bits too).
#[test]
fn constant_buffer_and_work_group_limits() {
    let cb = |n, size| Inst::new(Opcode::DclConstBuffer).src(Src::cb(n, size));
    assert_eq!(
        verify(&kernel(vec![cb(14, 4096)]), Family::Evergreen),
        Ok(())
    );
    for (n, size) in [(15, 1), (0, 4097)] {
        let message = first_error(&kernel(vec![cb(n, size)]), Family::Evergreen);
        assert!(message.contains("outside cb0–cb14"), "{message}");
    }
    let group = |sizes: &[u32]| {
        let mut p = kernel(Vec::new());
        p.body[0] = Inst::new(Opcode::DclNumThreadPerGroup).extra(sizes);
        p
    };
    assert_eq!(verify(&group(&[64, 16]), Family::Evergreen), Ok(()));
    for sizes in [&[0][..], &[64, 32], &[u32::MAX, u32::MAX, u32::MAX]] {
        let message = first_error(&group(sizes), Family::Evergreen);
        assert!(message.contains("work-group of"), "{sizes:?}: {message}");
    }
}

#[test]
fn families_gate_instructions_and_registers() {
    // uav_load (typed UAV) is Evergreen+; vAbsTid exists from R7xx (guide Appendix D).
    let typed = kernel(vec![
        Inst::new(Opcode::DclUav).ctrl(Control::id(0)),
        Inst::new(Opcode::UavLoad)
            .ctrl(Control::id(0))
            .dst(Dst::temp(0))
            .src(Src::temp(1)),
    ]);
    assert_eq!(verify(&typed, Family::Evergreen), Ok(()));
    assert!(first_error(&typed, Family::R700).contains("not supported on r700"));
    let tid = kernel(vec![mov(
        Dst::temp(0),
        Src::special(RegType::AbsoluteThreadId),
    )]);
    assert_eq!(verify(&tid, Family::R700), Ok(()));
    assert!(verify(&tid, Family::R600).is_err());
}

#[test]
fn program_must_end_with_end() {
    let mut p = kernel(vec![]);
    p.body.pop();
    assert!(first_error(&p, Family::Evergreen).contains("must end with `end`"));
}
