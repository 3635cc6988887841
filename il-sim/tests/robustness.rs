//! No program makes il-sim panic or hang: malformed programs give located errors, and
//! pseudo-random programs over the whole opcode table either run or fail cleanly.

mod common;

use common::{parse, run_err};
use il_model::{
    CompSel, Control, Dst, DstComp, Index, Inst, Nested, OPCODES, Opcode, Program, Reg, RegType,
    ShaderKind, Src, SrcMods,
};
use il_sim::{Dispatch, ErrorKind, run};

#[test]
fn malformed_programs_are_located_errors() {
    let head = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\n";
    // A temp register beyond the 4096 il-sim provides.
    let e = run_err(&format!("{head}mov r5000, r1\nend\n"));
    assert_eq!((e.kind, e.inst), (ErrorKind::Malformed, Some(2)));
    // A literal never declared.
    let e = run_err(&format!("{head}mov r0, l3\nend\n"));
    assert_eq!((e.kind, e.inst), (ErrorKind::Malformed, Some(2)));
    // A UAV never declared.
    let e = run_err(&format!("{head}uav_raw_load_id(5) r0, r1.x\nend\n"));
    assert_eq!((e.kind, e.inst), (ErrorKind::Malformed, Some(2)));
    // A raw op on a structured UAV.
    let e = run_err(
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_struct_uav_id(0) 8\nuav_raw_load_id(0) r0, r1.x\nend\n",
    );
    assert_eq!((e.kind, e.inst), (ErrorKind::Malformed, Some(2)));
}

#[test]
fn declared_but_unbound_uav_and_missing_group_size() {
    let p = parse(
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(2)\nuav_raw_load_id(2) r0, r1.x\nend\n",
    );
    let mut d = Dispatch::new([1, 1, 1]);
    let e = run(&p, &mut d).unwrap_err();
    assert_eq!((e.kind, e.inst), (ErrorKind::Malformed, Some(2)));

    let p = parse("il_cs_2_0\nend\n");
    let e = run(&p, &mut Dispatch::new([1, 1, 1])).unwrap_err();
    assert_eq!((e.kind, e.inst), (ErrorKind::Malformed, None));
    let mut d = Dispatch::new([1, 1, 1]);
    d.group_size = Some([2000, 1, 1]);
    assert_eq!(run(&p, &mut d).unwrap_err().kind, ErrorKind::Malformed);
    d.group_size = Some([2, 2, 1]);
    assert_eq!(run(&p, &mut d).unwrap().invocations, 4);
    // The product of three 32-bit sizes overflows 64 bits (a panic in a debug build before).
    d.group_size = Some([u32::MAX; 3]);
    assert_eq!(run(&p, &mut d).unwrap_err().kind, ErrorKind::Malformed);
}

#[test]
fn non_compute_programs_are_unsupported() {
    let mut p = Program::new(ShaderKind::Pixel);
    p.push(Inst::new(Opcode::End));
    let e = run(&p, &mut Dispatch::new([1, 1, 1])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
}

/// xorshift64*: a small deterministic generator so the test needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const SELS: [CompSel; 6] = [
    CompSel::X,
    CompSel::Y,
    CompSel::Z,
    CompSel::W,
    CompSel::Zero,
    CompSel::One,
];

/// Nested operands go to `nested` (also in the functions below).
fn random_reg(rng: &mut Rng, depth: u32, nested: &mut Nested) -> Reg {
    let ty = match rng.below(12) {
        0..=4 => RegType::Temp,
        5 => RegType::Literal,
        6 => RegType::ITemp,
        7 => RegType::ConstBuff,
        8 => RegType::AbsoluteThreadId,
        9 => RegType::ThreadIdInGroupFlat,
        10 => RegType::GenericMem,
        _ => RegType::from_value(rng.below(63) as u32).unwrap_or(RegType::Temp),
    };
    let num = if rng.chance(3) {
        rng.below(1 << 20) as u32
    } else {
        rng.below(4) as u32
    };
    let mut reg = Reg::new(ty, num);
    if matches!(ty, RegType::ITemp | RegType::ConstBuff) || rng.chance(5) {
        reg.index = Some(if depth < 2 && rng.chance(50) {
            let index = random_src(rng, depth + 1, nested);
            Index::rel(
                nested.push(index),
                rng.chance(50).then(|| rng.below(8) as u32),
            )
        } else {
            Index::Imm(rng.below(6) as u32)
        });
    }
    reg
}

fn random_src(rng: &mut Rng, depth: u32, nested: &mut Nested) -> Src {
    let mut src = Src::new(random_reg(rng, depth, nested));
    for s in &mut src.swizzle {
        *s = SELS[rng.below(6) as usize];
    }
    if rng.chance(20) {
        let neg_mask = (0..4).fold(0u8, |mask, k| mask | u8::from(rng.chance(50)) << k);
        src.mods = src.mods.with_neg_mask(neg_mask);
    }
    src.mods = src
        .mods
        .set(SrcMods::ABS, rng.chance(10))
        .set(SrcMods::CLAMP, rng.chance(3))
        .set(SrcMods::INVERT, rng.chance(3));
    src
}

fn random_dst(rng: &mut Rng, nested: &mut Nested) -> Dst {
    let mut dst = Dst::new(random_reg(rng, 0, nested));
    for m in &mut dst.mask {
        *m = match rng.below(5) {
            0 => DstComp::NoWrite,
            1 => DstComp::Zero,
            2 => DstComp::One,
            _ => DstComp::Write,
        };
    }
    dst.sat = rng.chance(5);
    dst
}

/// A tame instruction: an ALU opcode with its exact operand counts reading temps and literals
/// and writing a temp, so most tame programs run to the end.
fn tame_inst(rng: &mut Rng) -> Inst {
    loop {
        let info = &OPCODES[rng.below(OPCODES.len() as u64) as usize];
        let mnemonic = info.mnemonic;
        if info.dst != 1 || info.flow != il_model::Flow::None || mnemonic.starts_with("dcl") {
            continue;
        }
        let mut inst = Inst::new(info.op);
        let mut dst = Dst::new(Reg::new(RegType::Temp, rng.below(4) as u32));
        dst.mask = [
            DstComp::Write,
            DstComp::Write,
            DstComp::NoWrite,
            DstComp::Write,
        ];
        inst.dst.push(dst);
        for _ in 0..info.src {
            let ty = if rng.chance(50) {
                RegType::Temp
            } else {
                RegType::Literal
            };
            let mut src = Src::new(Reg::new(ty, rng.below(4) as u32));
            let sel = SELS[rng.below(4) as usize];
            if rng.chance(50) {
                src.swizzle = [sel; 4];
            }
            inst.src.push(src);
        }
        return inst;
    }
}

fn random_inst(rng: &mut Rng, nested: &mut Nested) -> Inst {
    let info = &OPCODES[rng.below(OPCODES.len() as u64) as usize];
    let mut inst = Inst::new(info.op);
    inst.ctrl = if rng.chance(70) {
        Control(0)
    } else {
        Control(rng.below(1 << 16) as u16)
    };
    let exact = rng.chance(90);
    let dsts = if exact { info.dst as u64 } else { rng.below(3) };
    let srcs = if exact { info.src as u64 } else { rng.below(5) };
    for _ in 0..dsts {
        inst.dst.push(random_dst(rng, nested));
    }
    for _ in 0..srcs {
        inst.src.push(random_src(rng, 0, nested));
    }
    let words = rng.below(4);
    for _ in 0..words {
        inst.extra.push(rng.below(40) as u32);
    }
    inst
}

#[test]
fn random_programs_run_or_fail_cleanly() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut ran = 0;
    let mut failed = 0;
    for _ in 0..3000 {
        let mut p = Program::new(ShaderKind::Compute);
        p.push(Inst::new(Opcode::DclNumThreadPerGroup).extra(&[2, 1, 1]));
        p.push(Inst::new(Opcode::DclRawUav));
        p.push(Inst::literal(0, [0, 4, 0x3F80_0000, 0xFFFF_FFFF]));
        p.push(Inst::literal(1, [1, 2, 3, 4]));
        p.push(Inst::literal(2, [8, 16, 24, 32]));
        p.push(Inst::literal(3, [0, 0, 0, 0]));
        p.push(Inst::new(Opcode::DclLds).ctrl(Control::id(0)).extra(&[64]));
        p.push(
            Inst::new(Opcode::DclIndexedTempArray).src(Src::new(Reg::new(RegType::ITemp, 0).at(4))),
        );
        let n = 1 + rng.below(12);
        let tame = rng.chance(50);
        for _ in 0..n {
            let inst = if tame {
                tame_inst(&mut rng)
            } else {
                random_inst(&mut rng, &mut p.nested)
            };
            p.push(inst);
        }
        p.push(Inst::new(Opcode::End));
        let mut d = Dispatch::new([2, 1, 1]);
        d.uavs = vec![vec![0; 64]];
        d.cbs = vec![vec![[1, 2, 3, 4]; 2]];
        d.step_limit = 10_000;
        match run(&p, &mut d) {
            Ok(stats) => {
                assert!(stats.steps <= 10_000);
                ran += 1;
            }
            Err(e) => {
                assert!(!e.message.is_empty());
                assert!(e.inst.is_none_or(|i| i < p.body.len()), "{e}");
                failed += 1;
            }
        }
    }
    // Both outcomes occur, so the generator exercises execution as well as rejection.
    assert!(ran > 100 && failed > 100, "ran {ran}, failed {failed}");
}
