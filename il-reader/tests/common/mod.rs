//! Shared test helpers: a tiny deterministic PRNG and generators of random programs.

#![allow(dead_code)]

use il_model::enums::{CompSel, DivComp, DstComp, ShiftScale};
use il_model::{
    Control, ControlLayout, Dst, Extra, ExtraWords, Index, Inst, Nested, OPCODES, Opcode, Program,
    Reg, RegType, ShaderKind, Src, SrcMods,
};

/// xorshift64* — deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn u32(&mut self) -> u32 {
        self.next() as u32
    }

    /// Mostly small numbers, sometimes anything.
    pub fn small(&mut self) -> u32 {
        match self.below(8) {
            0 => self.u32(),
            1 => self.below(0x1_0000) as u32,
            _ => self.below(16) as u32,
        }
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
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
const COMPS: [DstComp; 4] = [
    DstComp::NoWrite,
    DstComp::Write,
    DstComp::Zero,
    DstComp::One,
];

/// Any register type the text form can name unambiguously (`Vertex` shares `v#` with `Input` and is
/// only chosen after a `dclv`, which the generators leave out).
fn any_reg_type(rng: &mut Rng) -> RegType {
    loop {
        let ty = il_model::REG_TYPES[rng.below(il_model::REG_TYPES.len())].ty;
        if ty != RegType::Vertex {
            return ty;
        }
    }
}

/// Nested operands go to `n` (also in the functions below).
fn random_src(rng: &mut Rng, depth: usize, n: &mut Nested) -> Src {
    let mut src = Src::new(random_reg(rng, depth, n));
    if rng.chance(2) {
        src.swizzle = if rng.chance(2) {
            [*rng.pick(&SELS); 4]
        } else {
            [0; 4].map(|_| *rng.pick(&SELS))
        };
    }
    if rng.chance(4) {
        let neg_mask = (0..4).fold(0u8, |mask, k| mask | u8::from(rng.chance(2)) << k);
        let mut mods = SrcMods::NONE
            .with_neg_mask(neg_mask)
            .set(SrcMods::ABS, rng.chance(2));
        for flag in [
            SrcMods::INVERT,
            SrcMods::BIAS,
            SrcMods::X2,
            SrcMods::SIGN,
            SrcMods::CLAMP,
        ] {
            mods = mods.set(flag, rng.chance(3));
        }
        src.mods = mods.with_divcomp(*rng.pick(&[
            DivComp::None,
            DivComp::Y,
            DivComp::Z,
            DivComp::W,
            DivComp::Unknown,
        ]));
    }
    src
}

/// A replicated one-component index register (never `a#`, whose text is the DX9 address form).
fn index_src(rng: &mut Rng, depth: usize, n: &mut Nested) -> Src {
    let mut src = random_src(rng, depth + 1, n);
    while src.reg.ty == RegType::Addr {
        src.reg.ty = RegType::Temp;
    }
    src.swizzle = [*rng.pick(&SELS[..4]); 4];
    src
}

fn random_reg(rng: &mut Rng, depth: usize, n: &mut Nested) -> Reg {
    let mut reg = Reg::new(any_reg_type(rng), rng.small());
    if depth >= 2 || rng.chance(2) {
        return reg;
    }
    let offset = |rng: &mut Rng| {
        if rng.chance(2) {
            Some(rng.small())
        } else {
            None
        }
    };
    reg.index = match rng.below(4) {
        0 => None,
        1 => Some(Index::Imm(rng.small())),
        2 => Some(Index::rel(
            {
                let src = index_src(rng, depth, n);
                n.push(src)
            },
            offset(rng),
        )),
        _ => Some(Index::addr_reg(
            (rng.below(0x1_0000) as u32)
                | (rng.below(2) as u32) << 16
                | (rng.below(4) as u32) << 17,
            offset(rng),
        )),
    };
    if rng.chance(3) {
        // The two second-dimension forms the text can express (see `il_writer::reg_text`).
        let second = if rng.chance(2) {
            Src::new(Reg::new(reg.ty, rng.small()))
        } else {
            let mut r = Reg::new(RegType::ConstBool, 0);
            r.index = Some(Index::rel(
                {
                    let src = index_src(rng, depth, n);
                    n.push(src)
                },
                offset(rng),
            ));
            Src::new(r)
        };
        reg.dim2 = Some(n.push(second));
    }
    reg
}

fn random_dst(rng: &mut Rng, first: bool, n: &mut Nested) -> Dst {
    let mut dst = Dst::new(random_reg(rng, 0, n));
    if rng.chance(2) {
        dst.mask = [0; 4].map(|_| *rng.pick(&COMPS));
    }
    if first && rng.chance(4) {
        dst.sat = rng.chance(2);
        dst.shift = *rng.pick(&[
            ShiftScale::None,
            ShiftScale::X2,
            ShiftScale::X4,
            ShiftScale::X8,
            ShiftScale::D2,
            ShiftScale::D4,
            ShiftScale::D8,
        ]);
    }
    dst
}

/// Any instruction the writer can express, with random control bits, modifier tokens, operands and
/// trailing tokens (not necessarily meaningful, always representable).
pub fn random_inst(rng: &mut Rng, n: &mut Nested) -> Inst {
    let info = loop {
        let info = rng.pick(&OPCODES);
        if !matches!(
            info.op,
            Opcode::Dclv | Opcode::Initv | Opcode::Macrodef | Opcode::Macroend
        ) {
            break info;
        }
    };
    let layout = info.control;
    let mut inst = Inst::new(info.op);
    let mut ctrl = if rng.chance(4) {
        rng.u32() as u16
    } else {
        rng.u32() as u16 & layout.defined_bits()
    };
    if !layout.owns_modifier_bits() {
        ctrl &= 0x3FFF;
    }
    if matches!(layout, ControlLayout::Sample | ControlLayout::Load) {
        ctrl &= !(1 << 13); // derived from `addr_offset`
        if rng.chance(2) {
            inst.mods_mut().addr_offset = Some(if rng.chance(2) {
                rng.u32() & 0xFF_FFFF
            } else {
                rng.u32()
            });
        }
    }
    if layout == ControlLayout::CountOfExtra {
        ctrl = 0;
    }
    inst.ctrl = Control(ctrl);
    if matches!(
        layout,
        ControlLayout::Sample
            | ControlLayout::Load
            | ControlLayout::ResInfo
            | ControlLayout::BufInfo
    ) && ctrl & (1 << 12) != 0
    {
        inst.mods_mut().resource_format = Some(if rng.chance(2) {
            rng.below(14) as u32
        } else {
            rng.u32()
        });
    }
    if !layout.owns_modifier_bits() {
        if rng.chance(4) {
            let defined = layout
                .primary_fields()
                .iter()
                .fold(0u32, |m, f| m | u32::from(f.mask()));
            inst.mods_mut().pri_mod = Some(if rng.chance(2) {
                rng.u32() & defined
            } else {
                rng.u32()
            });
        }
        if rng.chance(6) {
            inst.mods_mut().sec_mod = Some(rng.u32());
        }
    }
    let immediate_cb = info.op == Opcode::DclConstBuffer && ctrl & 0x8000 != 0;
    let (n_dst, n_src) = if info.op == Opcode::Macrocall {
        (rng.below(3), rng.below(3))
    } else if immediate_cb {
        (0, 0)
    } else {
        (
            usize::from(info.dst),
            usize::from(info.src + layout.extra_srcs(ctrl)),
        )
    };
    for i in 0..n_dst {
        inst.dst.push(random_dst(rng, i == 0, n));
    }
    for _ in 0..n_src {
        inst.src.push(random_src(rng, 0, n));
    }
    let words = |rng: &mut Rng, n: usize| (0..n).map(|_| rng.small()).collect::<Vec<u32>>();
    inst.extra = ExtraWords::from_vec(match info.extra {
        Extra::None => vec![],
        Extra::Label | Extra::CaseValue | Extra::ResourceFormat => vec![rng.u32()],
        Extra::Float => vec![if rng.chance(2) {
            (rng.below(2000) as f32 / 8.0 - 100.0).to_bits()
        } else {
            rng.u32()
        }],
        Extra::Words(n) => words(rng, usize::from(n)),
        Extra::StrideLength => words(rng, 2),
        Extra::CountedWords => {
            let n = rng.below(4);
            words(rng, n)
        }
        Extra::Comment => {
            if rng.chance(2) {
                let n = rng.below(5);
                words(rng, n)
            } else {
                let text: String = (0..rng.below(12))
                    .map(|_| *rng.pick(&['a', 'B', ' ', '7', '-', '(']))
                    .collect();
                let mut bytes = text.into_bytes();
                bytes.push(0);
                while !bytes.len().is_multiple_of(4) {
                    bytes.push(0);
                }
                bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
                    .collect()
            }
        }
        Extra::LabelList => {
            let n = rng.below(4);
            words(rng, n)
        }
        Extra::InterfacePtr => {
            let n = 2 + rng.below(4);
            words(rng, n)
        }
        Extra::MacroSignature => vec![],
        Extra::ImmediateConstants if immediate_cb => {
            let n = rng.below(5);
            words(rng, n)
        }
        Extra::ImmediateConstants => vec![],
    });
    inst
}

/// A random program of any kind, with random macros in front: exercises every text and token
/// form, without regard to the verifier. The language stays `Generic` (text has no syntax for it).
pub fn random_program(rng: &mut Rng) -> Program {
    let kind = ShaderKind::ALL[rng.below(ShaderKind::ALL.len())];
    let mut p = Program::new(kind);
    p.version = (rng.below(256) as u8, rng.below(256) as u8);
    p.multipass = rng.chance(4);
    p.realtime = rng.chance(4);
    for _ in 0..rng.below(3) {
        p.macros.push(
            Inst::new(Opcode::Macrodef)
                .ctrl(Control(rng.below(0x4000) as u16))
                .extra(&[rng.u32()]),
        );
        for _ in 0..rng.below(3) {
            p.macros.push(random_inst(rng, &mut p.nested));
        }
        p.macros.push(Inst::new(Opcode::Macroend));
    }
    for _ in 0..rng.below(12) {
        p.body.push(random_inst(rng, &mut p.nested));
    }
    p
}

/// A random compute program that the verifier accepts on Evergreen: declarations, then nested
/// structured control flow over ALU, LDS and UAV instructions, optionally with subroutines.
pub fn random_valid_compute(rng: &mut Rng) -> Program {
    let mut p = Program::new(ShaderKind::Compute);
    let b = &mut p.body;
    let n = &mut p.nested;
    b.push(Inst::new(Opcode::DclNumThreadPerGroup).extra(&[64, 1 + rng.below(2) as u32, 1]));
    b.push(Inst::new(Opcode::DclConstBuffer).src(Src::new(Reg::new(RegType::ConstBuff, 0).at(4))));
    for l in 0..2 {
        b.push(Inst::literal(l, [rng.small(), rng.small(), rng.u32(), 4]));
    }
    b.push(Inst::new(Opcode::DclIndexedTempArray).src(Src::new(Reg::new(RegType::ITemp, 0).at(8))));
    b.push(Inst::new(Opcode::DclRawUav).ctrl(Control::id(0)));
    b.push(
        Inst::new(Opcode::DclLds)
            .ctrl(Control::id(1))
            .extra(&[1024]),
    );
    let funcs = rng.below(3) as u32;
    block(rng, b, n, 0, funcs);
    b.push(Inst::new(Opcode::RetDyn));
    if funcs > 0 {
        b.push(Inst::new(Opcode::Endmain));
        for f in 0..funcs {
            b.push(Inst::new(Opcode::Func).extra(&[f]));
            block(rng, b, n, 1, 0);
            b.push(Inst::new(Opcode::Ret));
            if rng.chance(2) {
                b.push(Inst::new(Opcode::Endfunc));
            }
        }
    }
    b.push(Inst::new(Opcode::End));
    p
}

/// A source readable in a compute shader.
fn cs_src(rng: &mut Rng, n: &mut Nested) -> Src {
    let src = match rng.below(6) {
        0 => Src::literal(rng.below(2) as u32),
        1 => Src::cb(0, rng.below(4) as u32),
        2 => Src::special(*rng.pick(&[
            RegType::AbsoluteThreadId,
            RegType::AbsoluteThreadIdFlat,
            RegType::ThreadIdInGroup,
            RegType::ThreadIdInGroupFlat,
            RegType::ThreadGroupId,
            RegType::ThreadGroupIdFlat,
        ])),
        3 => Src::new(
            Reg::new(RegType::ITemp, 0)
                .rel(n.push(Src::temp(rng.below(4) as u32).swz("x")), Some(1)),
        ),
        _ => Src::temp(rng.below(8) as u32),
    };
    let sw = ["x", "y", "xyzw", "wzyx", "xxyy", "z"];
    src.swz(rng.pick::<&str>(&sw))
}

fn cs_dst(rng: &mut Rng) -> Dst {
    let masks = ["x___", "_y__", "xy__", "xyz_", "xyzw", "___w", "xyz0"];
    Dst::temp(rng.below(8) as u32).mask(rng.pick::<&str>(&masks))
}

const CS_ALU: [Opcode; 24] = [
    Opcode::Mov,
    Opcode::Add,
    Opcode::Mul,
    Opcode::Mad,
    Opcode::IAdd,
    Opcode::IMul,
    Opcode::IMad,
    Opcode::IShl,
    Opcode::UShr,
    Opcode::And,
    Opcode::IOr,
    Opcode::IXor,
    Opcode::INot,
    Opcode::IEq,
    Opcode::ULt,
    Opcode::UGe,
    Opcode::Lt,
    Opcode::Ge,
    Opcode::Ftoi,
    Opcode::Utof,
    Opcode::CmovLogical,
    Opcode::UDiv,
    Opcode::Min,
    Opcode::Max,
];

/// Appends a random structured sequence at nesting `depth`; `funcs` subroutines may be called.
fn block(rng: &mut Rng, b: &mut Vec<Inst>, n: &mut Nested, depth: usize, funcs: u32) {
    for _ in 0..1 + rng.below(6) {
        match rng.below(if depth < 3 { 10 } else { 7 }) {
            0 => {
                let op = *rng.pick(&[Opcode::UavRawLoad, Opcode::LdsLoad]);
                let id = if op == Opcode::UavRawLoad { 0 } else { 1 };
                b.push(
                    Inst::new(op)
                        .ctrl(Control::id(id))
                        .dst(Dst::temp(rng.below(8) as u32).mask("x___"))
                        .src(cs_src(rng, n).swz("x")),
                );
            }
            1 => {
                b.push(
                    Inst::new(Opcode::UavRawStore)
                        .ctrl(Control::id(0))
                        .dst(Dst::mem().mask(rng.pick::<&str>(&["x___", "xy__", "xyzw"])))
                        .src(cs_src(rng, n).swz("x"))
                        .src(cs_src(rng, n)),
                );
            }
            2 => {
                b.push(
                    Inst::new(Opcode::LdsStore)
                        .ctrl(Control::id(1))
                        .src(cs_src(rng, n).swz("x"))
                        .src(cs_src(rng, n).swz("x")),
                );
            }
            3 if funcs > 0 => {
                b.push(Inst::new(Opcode::Call).extra(&[rng.below(funcs as usize) as u32]))
            }
            7 => {
                b.push(
                    Inst::new(*rng.pick(&[Opcode::IfLogicalz, Opcode::IfLogicalnz]))
                        .src(cs_src(rng, n).swz("x")),
                );
                block(rng, b, n, depth + 1, funcs);
                if rng.chance(2) {
                    b.push(Inst::new(Opcode::Else));
                    block(rng, b, n, depth + 1, funcs);
                }
                b.push(Inst::new(Opcode::Endif));
            }
            8 => {
                b.push(Inst::new(Opcode::While));
                b.push(Inst::new(Opcode::BreakLogicalnz).src(cs_src(rng, n).swz("x")));
                block(rng, b, n, depth + 1, funcs);
                if rng.chance(2) {
                    b.push(Inst::new(Opcode::ContinueLogicalz).src(cs_src(rng, n).swz("y")));
                }
                b.push(Inst::new(Opcode::Endloop));
            }
            9 => {
                b.push(Inst::new(Opcode::Switch).src(cs_src(rng, n).swz("x")));
                for case in 0..1 + rng.below(3) {
                    b.push(Inst::new(Opcode::Case).extra(&[case as u32]));
                    block(rng, b, n, depth + 1, funcs);
                    b.push(Inst::new(Opcode::Break));
                }
                if rng.chance(2) {
                    b.push(Inst::new(Opcode::Default));
                    b.push(Inst::new(Opcode::Break));
                }
                b.push(Inst::new(Opcode::Endswitch));
            }
            _ => {
                let op = *rng.pick(&CS_ALU);
                let info = op.info();
                let mut inst = Inst::new(op).dst(cs_dst(rng));
                if matches!(op, Opcode::Mul | Opcode::Mad | Opcode::Min | Opcode::Max) {
                    inst.ctrl = Control::IEEE;
                }
                for _ in 0..info.src {
                    inst.src.push(cs_src(rng, n));
                }
                if matches!(op, Opcode::IShl | Opcode::UShr) {
                    inst.src[1] = inst.src[1].swz("x");
                }
                b.push(inst);
            }
        }
    }
}
