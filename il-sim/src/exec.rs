//! The interpreter: invocation state, operand evaluation (swizzles and modifiers, guide §2.2.7),
//! result writing (masks, `_sat`, shift scale, guide §2.2.5), and one arm per instruction family.
//! Work-groups run their invocations in lock-step at barrier granularity: every invocation runs
//! until it reaches `fence_threads*` or finishes, then all are released together.

use il_model::{
    CompSel, DivComp, Dst, DstComp, Index, Inst, Nested, Opcode, Program, Reg, RegType, RelOp,
    ShiftScale, Src, ZeroOp,
};

use il_model::enums::CmpValue;

use crate::alu::{self, ONE_F32, boolean, fin, fout};
use crate::error::{ErrorKind, Fault, Res, SimError};
use crate::image::{self, ChannelType, Image, Shape};
use crate::prepare::{Jump, Prepared, SrvKind, UavKind, ctrl_field, resource_id};
use crate::{Dispatch, Order, Stats};

/// Deepest call nesting (guide CALL: "≤ 32 deep (a call beyond that is skipped)"). il-sim reports
/// an error instead of silently skipping, since a skipped call is never what a translator means.
pub const MAX_CALL_DEPTH: usize = 32;

/// How a source's modifiers are interpreted (guide §2.2.7): float modifiers flip/clear the sign
/// bit; integer negate is two's complement; double modifiers touch only the high dwords (y, w).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Float,
    Int,
    Double,
}

/// What happens after an instruction.
enum Step {
    Next,
    Jump(usize),
    Call(usize),
    Return,
    Barrier,
    Done,
}

/// Where an invocation stands between scheduling rounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Running,
    AtBarrier(usize),
    Done,
}

/// One invocation's private state.
struct Invocation {
    pc: usize,
    temps: Vec<[u32; 4]>,
    itemps: Vec<Vec<[u32; 4]>>,
    calls: Vec<usize>,
    state: State,
    local: [u32; 3],
    group: [u32; 3],
    local_flat: u32,
    group_flat: u32,
}

/// The dispatch-wide state.
pub(crate) struct Machine<'a> {
    body: &'a [Inst],
    /// The program's nested operands (register-relative indices).
    nested: &'a Nested,
    prep: &'a Prepared,
    dispatch: &'a mut Dispatch,
    lds: Vec<(u32, Vec<u8>)>,
    group_size: [u32; 3],
    steps: u64,
    barriers: u64,
}

/// Runs `program` for the whole dispatch; see [`crate::run`].
pub(crate) fn run(
    program: &Program,
    prep: &Prepared,
    dispatch: &mut Dispatch,
    group_size: [u32; 3],
) -> Result<Stats, SimError> {
    let lds = prep
        .lds
        .iter()
        .map(|(&id, d)| (id, vec![0u8; d.bytes as usize]))
        .collect();
    let mut machine = Machine {
        body: &program.body,
        nested: &program.nested,
        prep,
        dispatch,
        lds,
        group_size,
        steps: 0,
        barriers: 0,
    };
    let groups = machine.dispatch.groups;
    let mut stats = Stats::default();
    let per_group = group_size.iter().map(|&d| u64::from(d)).product::<u64>();
    let total = groups.iter().map(|&g| u64::from(g)).product::<u64>();
    for n in 0..total {
        let flat = match machine.dispatch.order {
            Order::Forward | Order::Interleaved => n,
            Order::Reverse => total - 1 - n,
        };
        let gx = (flat % u64::from(groups[0])) as u32;
        let gy = (flat / u64::from(groups[0]) % u64::from(groups[1])) as u32;
        let gz = (flat / (u64::from(groups[0]) * u64::from(groups[1]))) as u32;
        // Flat ids fit in u32 for any dispatch the hardware can launch; wrap otherwise.
        machine.run_group([gx, gy, gz], flat as u32)?;
        stats.groups += 1;
        stats.invocations += per_group;
    }
    stats.steps = machine.steps;
    stats.barriers = machine.barriers;
    Ok(stats)
}

impl Machine<'_> {
    /// Runs one work-group to completion.
    fn run_group(&mut self, group: [u32; 3], group_flat: u32) -> Result<(), SimError> {
        for (_, mem) in &mut self.lds {
            // LDS contents are undefined at group start (guide §7.2.10); il-sim zeroes them.
            mem.fill(0);
        }
        let [dx, dy, dz] = self.group_size;
        let mut invs = Vec::with_capacity((dx * dy * dz) as usize);
        for z in 0..dz {
            for y in 0..dy {
                for x in 0..dx {
                    invs.push(Invocation {
                        pc: 0,
                        temps: vec![[0; 4]; self.prep.temp_count],
                        itemps: self
                            .prep
                            .itemps
                            .values()
                            .map(|&(_, n)| vec![[0; 4]; n as usize])
                            .collect(),
                        calls: Vec::new(),
                        state: State::Running,
                        local: [x, y, z],
                        group,
                        local_flat: z * dx * dy + y * dx + x,
                        group_flat,
                    });
                }
            }
        }
        if self.dispatch.order == Order::Reverse {
            invs.reverse();
        }
        let interleaved = self.dispatch.order == Order::Interleaved;
        loop {
            if interleaved {
                while invs.iter().any(|i| i.state == State::Running) {
                    for inv in &mut invs {
                        if inv.state == State::Running {
                            self.step(inv)?;
                        }
                    }
                }
            } else {
                for inv in &mut invs {
                    while inv.state == State::Running {
                        self.step(inv)?;
                    }
                }
            }
            let waiting: Vec<usize> = invs
                .iter()
                .filter_map(|i| match i.state {
                    State::AtBarrier(at) => Some(at),
                    _ => None,
                })
                .collect();
            if waiting.is_empty() {
                return Ok(());
            }
            // Every invocation is now at a barrier or finished: release. Finished invocations no
            // longer take part, as on the hardware, where a wavefront that ended leaves the
            // barrier count (so an early `return` before a barrier does not deadlock).
            self.barriers += 1;
            for inv in &mut invs {
                if let State::AtBarrier(_) = inv.state {
                    inv.state = State::Running;
                    inv.pc += 1;
                }
            }
        }
    }

    /// Executes one instruction of a running invocation, updating its state when it reaches a
    /// barrier or finishes.
    fn step(&mut self, inv: &mut Invocation) -> Result<(), SimError> {
        let at = inv.pc;
        let Some(inst) = self.body.get(at) else {
            inv.state = State::Done;
            return Ok(());
        };
        self.steps += 1;
        if self.steps > self.dispatch.step_limit {
            return Err(SimError::at(
                at,
                ErrorKind::StepLimit,
                format!(
                    "more than {} instructions executed (an endless loop?)",
                    self.dispatch.step_limit
                ),
            ));
        }
        match self.exec(inv, at, inst).map_err(|f| f.located(at))? {
            Step::Next => inv.pc = at + 1,
            Step::Jump(target) => inv.pc = target,
            Step::Call(body) => {
                if inv.calls.len() >= MAX_CALL_DEPTH {
                    return Err(SimError::at(
                        at,
                        ErrorKind::Runtime,
                        format!(
                            "calls nested deeper than {MAX_CALL_DEPTH} (hardware would skip this call, guide CALL)"
                        ),
                    ));
                }
                inv.calls.push(at + 1);
                inv.pc = body;
            }
            Step::Return => match inv.calls.pop() {
                Some(ret) => inv.pc = ret,
                None => inv.state = State::Done,
            },
            Step::Barrier => inv.state = State::AtBarrier(at),
            Step::Done => inv.state = State::Done,
        }
        Ok(())
    }

    // ----- operands -------------------------------------------------------------------------

    /// The raw four components of a register, before swizzle and modifiers.
    fn fetch(&self, inv: &Invocation, reg: &Reg) -> Res<[u32; 4]> {
        if reg.dim2.is_some() {
            return Err(Fault::unsupported(
                "two-dimensional register indexing is not simulated",
            ));
        }
        let [dx, dy, dz] = self.group_size;
        let local_count = dx.wrapping_mul(dy).wrapping_mul(dz);
        let abs = |i: usize| {
            inv.group[i]
                .wrapping_mul(self.group_size[i])
                .wrapping_add(inv.local[i])
        };
        Ok(match reg.ty {
            RegType::Temp => *inv
                .temps
                .get(reg.num as usize)
                .ok_or_else(|| Fault::malformed(format!("r{} out of range", reg.num)))?,
            RegType::Literal => self
                .prep
                .literal(reg.num)
                .ok_or_else(|| Fault::malformed(format!("l{} is not declared", reg.num)))?,
            RegType::ConstBuff => {
                let size =
                    *self.prep.cbs.get(&reg.num).ok_or_else(|| {
                        Fault::malformed(format!("cb{} is not declared", reg.num))
                    })?;
                let index = self.index(inv, reg)?;
                // Reads beyond the declared size or the bound data return 0 (DX10 rule for
                // out-of-range constant-buffer reads; the guide does not say).
                if index >= size as usize {
                    [0; 4]
                } else {
                    self.dispatch
                        .cbs
                        .get(reg.num as usize)
                        .and_then(|cb| cb.get(index))
                        .copied()
                        .unwrap_or([0; 4])
                }
            }
            RegType::ImmedConstBuff => {
                let index = self.index(inv, reg)?;
                self.prep.icb.get(index).copied().unwrap_or([0; 4])
            }
            RegType::ITemp => {
                let index = self.index(inv, reg)?;
                let &(slot, size) = self
                    .prep
                    .itemps
                    .get(&reg.num)
                    .ok_or_else(|| Fault::malformed(format!("x{} is not declared", reg.num)))?;
                *inv.itemps
                    .get(slot)
                    .and_then(|a| a.get(index))
                    .ok_or_else(|| {
                        Fault::runtime(format!(
                            "x{}[{index}] is outside its {size} elements",
                            reg.num
                        ))
                    })?
            }
            RegType::AbsoluteThreadId => [abs(0), abs(1), abs(2), 0],
            RegType::AbsoluteThreadIdFlat => {
                [inv.group_flat
                    .wrapping_mul(local_count)
                    .wrapping_add(inv.local_flat); 4]
            }
            RegType::ThreadIdInGroup => [inv.local[0], inv.local[1], inv.local[2], 0],
            RegType::ThreadIdInGroupFlat => [inv.local_flat; 4],
            RegType::ThreadGroupId => [inv.group[0], inv.group[1], inv.group[2], 0],
            RegType::ThreadGroupIdFlat => [inv.group_flat; 4],
            other => {
                return Err(Fault::unsupported(format!(
                    "reading {other:?} registers is not simulated"
                )));
            }
        })
    }

    /// The first-dimension index of `reg` (immediate or register-relative, guide §2.2.6).
    fn index(&self, inv: &Invocation, reg: &Reg) -> Res<usize> {
        match &reg.index {
            Some(Index::Imm(n)) => Ok(*n as usize),
            Some(rel @ (Index::Rel { reg: index } | Index::RelOffset { reg: index, .. })) => {
                let index = self.nested.get(*index).ok_or_else(|| {
                    Fault::malformed("a relative index refers to a missing nested operand")
                })?;
                let v = self.read(inv, index, Kind::Int)?;
                Ok(v[0].wrapping_add(rel.offset().unwrap_or(0)) as usize)
            }
            Some(Index::AddrReg { .. } | Index::AddrRegOffset { .. }) => Err(Fault::unsupported(
                "DX9 address-register indexing is not simulated",
            )),
            None => Err(Fault::malformed(format!(
                "{:?} register {} needs an index",
                reg.ty, reg.num
            ))),
        }
    }

    /// A source after swizzle and modifiers (guide §2.2.7 order: swizzle, invert, bias, x2,
    /// sign, divcomp, abs, negate, clamp).
    fn read(&self, inv: &Invocation, src: &Src, kind: Kind) -> Res<[u32; 4]> {
        let raw = self.fetch(inv, &src.reg)?;
        let mut v = [0u32; 4];
        for (out, sel) in v.iter_mut().zip(src.swizzle) {
            *out = match sel {
                CompSel::X => raw[0],
                CompSel::Y => raw[1],
                CompSel::Z => raw[2],
                CompSel::W => raw[3],
                CompSel::Zero => 0,
                // The `1` swizzle inserts 1.0f even for integer instructions (guide §2.2.7).
                CompSel::One => ONE_F32,
            };
        }
        let mods = src.mods;
        if mods.is_empty() {
            return Ok(v);
        }
        if mods.divcomp() != DivComp::None {
            return Err(Fault::unsupported(
                "the _divcomp source modifier is not simulated",
            ));
        }
        let float_mods = mods.invert() || mods.bias() || mods.x2() || mods.sign();
        for (i, c) in v.iter_mut().enumerate() {
            if float_mods {
                let mut x = f32::from_bits(*c);
                if mods.invert() {
                    x = 1.0 - x;
                }
                if mods.bias() {
                    x -= 0.5;
                }
                if mods.x2() {
                    x *= 2.0;
                }
                if mods.sign() {
                    x = alu::sgn(x);
                }
                *c = x.to_bits();
            }
            let high = i % 2 == 1;
            if mods.abs() {
                *c = match kind {
                    Kind::Float => *c & 0x7FFF_FFFF,
                    Kind::Int => (*c as i32).wrapping_abs() as u32,
                    Kind::Double if high => *c & 0x7FFF_FFFF,
                    Kind::Double => *c,
                };
            }
            if mods.negates(i) {
                *c = match kind {
                    Kind::Float => *c ^ 0x8000_0000,
                    Kind::Int => c.wrapping_neg(),
                    Kind::Double if high => *c ^ 0x8000_0000,
                    Kind::Double => *c,
                };
            }
            if mods.clamp() {
                *c = alu::saturate(f32::from_bits(*c)).to_bits();
            }
        }
        Ok(v)
    }

    /// Source `i` of `inst`.
    fn src(&self, inv: &Invocation, inst: &Inst, i: usize, kind: Kind) -> Res<[u32; 4]> {
        let src = inst
            .src
            .get(i)
            .ok_or_else(|| Fault::malformed(format!("missing source {i}")))?;
        self.read(inv, src, kind)
    }

    /// Writes `values` (components that are `None` are not produced by the instruction) to the
    /// destination of `inst`, applying the shift scale, `_sat` and the write mask (guide §2.2.5).
    fn write(&self, inv: &mut Invocation, inst: &Inst, values: [Option<u32>; 4]) -> Res<()> {
        let dst = inst
            .dst
            .first()
            .ok_or_else(|| Fault::malformed("missing destination"))?;
        self.write_dst(inv, dst, values)
    }

    fn write_dst(&self, inv: &mut Invocation, dst: &Dst, values: [Option<u32>; 4]) -> Res<()> {
        let scale = match dst.shift {
            ShiftScale::None => None,
            ShiftScale::X2 => Some(2.0f32),
            ShiftScale::X4 => Some(4.0),
            ShiftScale::X8 => Some(8.0),
            ShiftScale::D2 => Some(0.5),
            ShiftScale::D4 => Some(0.25),
            ShiftScale::D8 => Some(0.125),
        };
        let mut out: [Option<u32>; 4] = [None; 4];
        for i in 0..4 {
            let produced = values[i].map(|bits| {
                if scale.is_none() && !dst.sat {
                    return bits;
                }
                // Instruction modifiers act on the float result before the write (guide §2.2.5).
                let mut x = f32::from_bits(bits);
                if let Some(s) = scale {
                    x *= s;
                }
                if dst.sat {
                    x = alu::saturate(x);
                }
                fout(x)
            });
            out[i] = match dst.mask[i] {
                DstComp::NoWrite => None,
                DstComp::Write => produced,
                DstComp::Zero => Some(0),
                DstComp::One => Some(ONE_F32),
            };
        }
        let target: &mut [u32; 4] = match dst.reg.ty {
            RegType::Temp => inv
                .temps
                .get_mut(dst.reg.num as usize)
                .ok_or_else(|| Fault::malformed(format!("r{} out of range", dst.reg.num)))?,
            RegType::ITemp => {
                let index = self.index(inv, &dst.reg)?;
                let &(slot, size) =
                    self.prep.itemps.get(&dst.reg.num).ok_or_else(|| {
                        Fault::malformed(format!("x{} is not declared", dst.reg.num))
                    })?;
                inv.itemps
                    .get_mut(slot)
                    .and_then(|a| a.get_mut(index))
                    .ok_or_else(|| {
                        Fault::runtime(format!(
                            "x{}[{index}] is outside its {size} elements",
                            dst.reg.num
                        ))
                    })?
            }
            other => {
                return Err(Fault::unsupported(format!(
                    "writing {other:?} registers is not simulated"
                )));
            }
        };
        for (t, o) in target.iter_mut().zip(out) {
            if let Some(v) = o {
                *t = v;
            }
        }
        Ok(())
    }

    fn write_all(&self, inv: &mut Invocation, inst: &Inst, values: [u32; 4]) -> Res<Step> {
        self.write(inv, inst, values.map(Some))?;
        Ok(Step::Next)
    }

    // ----- component-wise helpers -----------------------------------------------------------

    fn float1(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(f32) -> f32) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Float)?;
        self.write_all(inv, inst, a.map(|x| fout(f(fin(x)))))
    }

    fn float2(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(f32, f32) -> f32) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Float)?;
        let b = self.src(inv, inst, 1, Kind::Float)?;
        let v = std::array::from_fn(|i| fout(f(fin(a[i]), fin(b[i]))));
        self.write_all(inv, inst, v)
    }

    fn float3(
        &self,
        inv: &mut Invocation,
        inst: &Inst,
        f: impl Fn(f32, f32, f32) -> f32,
    ) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Float)?;
        let b = self.src(inv, inst, 1, Kind::Float)?;
        let c = self.src(inv, inst, 2, Kind::Float)?;
        let v = std::array::from_fn(|i| fout(f(fin(a[i]), fin(b[i]), fin(c[i]))));
        self.write_all(inv, inst, v)
    }

    fn float_cmp(
        &self,
        inv: &mut Invocation,
        inst: &Inst,
        f: impl Fn(f32, f32) -> bool,
    ) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Float)?;
        let b = self.src(inv, inst, 1, Kind::Float)?;
        let v = std::array::from_fn(|i| boolean(f(fin(a[i]), fin(b[i]))));
        self.write_all(inv, inst, v)
    }

    /// Scalar ops that read `.w` and broadcast (amd-il.md §0.4).
    fn float_w(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(f32) -> f32) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Float)?;
        self.write_all(inv, inst, [fout(f(fin(a[3]))); 4])
    }

    fn int1(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(u32) -> u32) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Int)?;
        self.write_all(inv, inst, a.map(f))
    }

    fn int2(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(u32, u32) -> u32) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let b = self.src(inv, inst, 1, Kind::Int)?;
        self.write_all(inv, inst, std::array::from_fn(|i| f(a[i], b[i])))
    }

    fn int3(
        &self,
        inv: &mut Invocation,
        inst: &Inst,
        f: impl Fn(u32, u32, u32) -> u32,
    ) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let b = self.src(inv, inst, 1, Kind::Int)?;
        let c = self.src(inv, inst, 2, Kind::Int)?;
        self.write_all(inv, inst, std::array::from_fn(|i| f(a[i], b[i], c[i])))
    }

    /// Shifts: the amount must be one replicated component (guide ISHL: "all four swizzles on
    /// src1 must be the same"), masked to `mask` bits.
    fn shift(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(u32, u32) -> u32) -> Res<Step> {
        let amount_src = inst
            .src
            .get(1)
            .ok_or_else(|| Fault::malformed("missing shift amount"))?;
        let s = amount_src.swizzle;
        if s.iter().any(|c| *c != s[0]) {
            return Err(Fault::malformed(
                "the shift amount must be a replicated scalar (guide ISHL/ISHR/USHR)",
            ));
        }
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let b = self.src(inv, inst, 1, Kind::Int)?;
        self.write_all(inv, inst, a.map(|x| f(x, b[0] & 31)))
    }

    fn dsrc(&self, inv: &Invocation, inst: &Inst, i: usize) -> Res<f64> {
        let v = self.src(inv, inst, i, Kind::Double)?;
        Ok(f64::from_bits(alu::join64(v[0], v[1])))
    }

    fn u64src(&self, inv: &Invocation, inst: &Inst, i: usize) -> Res<u64> {
        let v = self.src(inv, inst, i, Kind::Int)?;
        Ok(alu::join64(v[0], v[1]))
    }

    /// A 64-bit result into `.xy` and/or `.zw` as the mask selects (amd-il.md §0.10).
    fn write64(&self, inv: &mut Invocation, inst: &Inst, v: u64) -> Res<Step> {
        let (lo, hi) = alu::split64(v);
        self.write_all(inv, inst, [lo, hi, lo, hi])
    }

    fn double1(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(f64) -> f64) -> Res<Step> {
        let a = self.dsrc(inv, inst, 0)?;
        self.write64(inv, inst, f(a).to_bits())
    }

    fn double2(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(f64, f64) -> f64) -> Res<Step> {
        let a = self.dsrc(inv, inst, 0)?;
        let b = self.dsrc(inv, inst, 1)?;
        self.write64(inv, inst, f(a, b).to_bits())
    }

    fn double_cmp(
        &self,
        inv: &mut Invocation,
        inst: &Inst,
        f: impl Fn(f64, f64) -> bool,
    ) -> Res<Step> {
        let a = self.dsrc(inv, inst, 0)?;
        let b = self.dsrc(inv, inst, 1)?;
        self.write_all(inv, inst, [boolean(f(a, b)); 4])
    }

    fn i64_2(&self, inv: &mut Invocation, inst: &Inst, f: impl Fn(u64, u64) -> u64) -> Res<Step> {
        let a = self.u64src(inv, inst, 0)?;
        let b = self.u64src(inv, inst, 1)?;
        self.write64(inv, inst, f(a, b))
    }

    fn i64_cmp(
        &self,
        inv: &mut Invocation,
        inst: &Inst,
        f: impl Fn(u64, u64) -> bool,
    ) -> Res<Step> {
        let a = self.u64src(inv, inst, 0)?;
        let b = self.u64src(inv, inst, 1)?;
        self.write_all(inv, inst, [boolean(f(a, b)); 4])
    }

    fn i64_shift(
        &self,
        inv: &mut Invocation,
        inst: &Inst,
        f: impl Fn(u64, u32) -> u64,
    ) -> Res<Step> {
        let a = self.u64src(inv, inst, 0)?;
        let b = self.src(inv, inst, 1, Kind::Int)?;
        self.write64(inv, inst, f(a, b[0] & 63))
    }

    /// Dot products (`dp2`/`dp3`/`dp4`, guide DP* pages): left-to-right sum of products, each
    /// rounded to f32; DX9 multiply unless `_ieee`. The result is broadcast.
    fn dot(&self, inv: &mut Invocation, inst: &Inst, n: usize, add_z: bool) -> Res<Step> {
        let ieee = ctrl_field(inst, "ieee") == Some(1);
        let a = self.src(inv, inst, 0, Kind::Float)?;
        let b = self.src(inv, inst, 1, Kind::Float)?;
        let mut sum = alu::mul(fin(a[0]), fin(b[0]), ieee);
        for i in 1..n {
            sum += alu::mul(fin(a[i]), fin(b[i]), ieee);
        }
        if add_z {
            let c = self.src(inv, inst, 2, Kind::Float)?;
            sum += fin(c[2]);
        }
        self.write_all(inv, inst, [fout(sum); 4])
    }

    fn cond(&self, inv: &Invocation, inst: &Inst, nonzero: bool) -> Res<bool> {
        let c = self.src(inv, inst, 0, Kind::Int)?;
        // Logical tests look at all 32 bits of the (swizzled) x component (guide §7.2.1).
        Ok((c[0] != 0) == nonzero)
    }

    fn relop_cond(&self, inv: &Invocation, inst: &Inst) -> Res<bool> {
        let op = relop_of(inst)?;
        let a = self.src(inv, inst, 0, Kind::Float)?;
        let b = self.src(inv, inst, 1, Kind::Float)?;
        Ok(alu::relop(op, fin(a[0]), fin(b[0])))
    }

    fn jump(&self, at: usize) -> &Jump {
        self.prep.jumps.get(at).unwrap_or(&Jump::None)
    }

    // ----- the instructions -----------------------------------------------------------------

    fn exec(&mut self, inv: &mut Invocation, at: usize, inst: &Inst) -> Res<Step> {
        use Opcode as O;
        // `_ieee` (control bit 16) of mul/mad; read only where it matters.
        let ieee = || ctrl_field(inst, "ieee") == Some(1);
        match inst.op {
            // Moves: bit copies; modifiers as for floats (guide MOV; amd-il.md §7.1).
            O::Mov | O::InvMov => {
                let a = self.src(inv, inst, 0, Kind::Float)?;
                self.write_all(inv, inst, a)
            }
            O::DMov => {
                let a = self.src(inv, inst, 0, Kind::Double)?;
                self.write_all(inv, inst, [a[0], a[1], a[0], a[1]])
            }
            O::CmovLogical => {
                let c = self.src(inv, inst, 0, Kind::Int)?;
                let a = self.src(inv, inst, 1, Kind::Float)?;
                let b = self.src(inv, inst, 2, Kind::Float)?;
                let v = std::array::from_fn(|i| if c[i] != 0 { a[i] } else { b[i] });
                self.write_all(inv, inst, v)
            }
            O::Cmov => {
                // Guide CMOV: a float test; where src0 is ±0.0 the component is not written.
                let c = self.src(inv, inst, 0, Kind::Float)?;
                let a = self.src(inv, inst, 1, Kind::Float)?;
                let dst = inst
                    .dst
                    .first()
                    .ok_or_else(|| Fault::malformed("missing destination"))?;
                let mut dst = *dst;
                for (m, cond) in dst.mask.iter_mut().zip(c) {
                    if fin(cond) == 0.0 {
                        *m = DstComp::NoWrite;
                    }
                }
                self.write_dst(inv, &dst, a.map(Some))?;
                Ok(Step::Next)
            }

            // Float arithmetic (guide §7.11).
            O::Add => self.float2(inv, inst, |a, b| a + b),
            O::Sub => self.float2(inv, inst, |a, b| a - b),
            O::Mul => {
                let ieee = ieee();
                self.float2(inv, inst, |a, b| alu::mul(a, b, ieee))
            }
            O::Mad => {
                let ieee = ieee();
                self.float3(inv, inst, |a, b, c| alu::mul(a, b, ieee) + c)
            }
            O::Fma => self.float3(inv, inst, |a, b, c| a.mul_add(b, c)),
            O::Div => {
                let z = zeroop_of(inst);
                self.float2(inv, inst, |a, b| alu::div(a, b, z))
            }
            O::Mod => self.float2(inv, inst, alu::fmod),
            O::Min => self.float2(inv, inst, alu::min),
            O::Max => self.float2(inv, inst, alu::max),
            O::Min3 => self.float3(inv, inst, |a, b, c| alu::min(alu::min(a, b), c)),
            O::Max3 => self.float3(inv, inst, |a, b, c| alu::max(alu::max(a, b), c)),
            O::Med3 => self.float3(inv, inst, |a, b, c| {
                alu::max(alu::min(a, b), alu::min(alu::max(a, b), c))
            }),
            O::Clamp => self.float3(inv, inst, alu::clamp),
            O::Lrp => self.float3(inv, inst, |t, a, b| a * t + b * (1.0 - t)),
            O::Abs => self.float1(inv, inst, f32::abs),
            O::Sgn => self.float1(inv, inst, alu::sgn),
            O::Flr | O::RoundNegInf => self.float1(inv, inst, f32::floor),
            O::RoundPlusInf | O::Clg => self.float1(inv, inst, f32::ceil),
            O::RoundZero | O::Trc => self.float1(inv, inst, f32::trunc),
            O::RoundNear => self.float1(inv, inst, f32::round_ties_even),
            O::Rnd => self.float1(inv, inst, alu::rnd),
            O::Frc => self.float1(inv, inst, alu::frc),
            O::Pireduce => self.float1(inv, inst, |x| {
                use std::f32::consts::PI;
                alu::frc(x / (2.0 * PI) + 0.5) * 2.0 * PI - PI
            }),
            O::ExpVec => self.float1(inv, inst, f32::exp2),
            // LOG_VEC is "LOG with zeroop set to il_zeroop_infinity" (guide LOG_VEC).
            O::LogVec => self.float1(inv, inst, |x| alu::log(x, ZeroOp::Infinity, false)),
            O::SqrtVec => self.float1(inv, inst, f32::sqrt),
            O::RsqVec => self.float1(inv, inst, |x| 1.0 / x.sqrt()),
            O::RcpVec => self.float1(inv, inst, |x| 1.0 / x),
            O::SinVec => self.float1(inv, inst, f32::sin),
            O::CosVec => self.float1(inv, inst, f32::cos),
            O::Eq => self.float_cmp(inv, inst, |a, b| a == b),
            // Guide NE: "Comparison with NaN returns false" (amd-il.md §10.12: the guide, not IEEE).
            O::Ne => self.float_cmp(inv, inst, |a, b| !a.is_nan() && !b.is_nan() && a != b),
            O::Lt => self.float_cmp(inv, inst, |a, b| a < b),
            O::Ge => self.float_cmp(inv, inst, |a, b| a >= b),
            O::Set => {
                let op = relop_of(inst)?;
                self.float2(
                    inv,
                    inst,
                    |a, b| {
                        if alu::relop(op, a, b) { 1.0 } else { 0.0 }
                    },
                )
            }
            O::Cmp => {
                let op = relop_of(inst)?;
                let cv = match ctrl_field(inst, "cmpval").and_then(CmpValue::from_value) {
                    Some(CmpValue::Zero) | None => 0.0,
                    Some(CmpValue::Half) => 0.5,
                    Some(CmpValue::One) => 1.0,
                    Some(CmpValue::NegHalf) => -0.5,
                    Some(CmpValue::NegOne) => -1.0,
                };
                let c = self.src(inv, inst, 0, Kind::Float)?;
                let a = self.src(inv, inst, 1, Kind::Float)?;
                let b = self.src(inv, inst, 2, Kind::Float)?;
                let v = std::array::from_fn(|i| {
                    if alu::relop(op, fin(c[i]), cv) {
                        a[i]
                    } else {
                        b[i]
                    }
                });
                self.write_all(inv, inst, v)
            }
            O::Dp2 => self.dot(inv, inst, 2, false),
            O::Dp3 => self.dot(inv, inst, 3, false),
            O::Dp4 => self.dot(inv, inst, 4, false),
            O::Dp2add => self.dot(inv, inst, 2, true),
            O::Len | O::Dist => {
                // The prose of both pages says xyz; their pseudo-code also adds w (amd-il.md
                // §10.25). **choice**: xyz, as the prose and the DX definition say.
                let a = self.src(inv, inst, 0, Kind::Float)?.map(fin);
                let d = if inst.op == O::Dist {
                    let b = self.src(inv, inst, 1, Kind::Float)?.map(fin);
                    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
                } else {
                    [a[0], a[1], a[2]]
                };
                let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                self.write_all(inv, inst, [fout(len); 4])
            }
            O::Crs => {
                let a = self.src(inv, inst, 0, Kind::Float)?.map(fin);
                let b = self.src(inv, inst, 1, Kind::Float)?.map(fin);
                let v = [
                    Some(fout(a[1] * b[2] - a[2] * b[1])),
                    Some(fout(a[2] * b[0] - a[0] * b[2])),
                    Some(fout(a[0] * b[1] - a[1] * b[0])),
                    None,
                ];
                self.write(inv, inst, v)?;
                Ok(Step::Next)
            }
            O::Nrm => {
                let nrm4 = ctrl_field(inst, "nrm4") == Some(1);
                let a = self.src(inv, inst, 0, Kind::Float)?.map(fin);
                let n = if nrm4 { 4 } else { 3 };
                let sum: f32 = a.iter().take(n).map(|x| x * x).sum();
                let f = if sum == 0.0 {
                    alu::zeroop_value(zeroop_of(inst))
                } else {
                    1.0 / sum.sqrt()
                };
                self.write_all(inv, inst, a.map(|x| fout(x * f)))
            }
            // Scalar transcendentals: read `.w`, broadcast (guide pages; amd-il.md §0.4).
            O::Sin => self.float_w(inv, inst, f32::sin),
            O::Cos => self.float_w(inv, inst, f32::cos),
            O::Tan => self.float_w(inv, inst, f32::tan),
            O::Asin => self.float_w(inv, inst, f32::asin),
            O::Acos => self.float_w(inv, inst, f32::acos),
            O::Atan => self.float_w(inv, inst, f32::atan),
            O::Exp => self.float_w(inv, inst, f32::exp2),
            O::Exn => self.float_w(inv, inst, |x| (x * std::f32::consts::LOG2_E).exp2()),
            O::Sqrt => self.float_w(inv, inst, f32::sqrt),
            O::Log => {
                let z = zeroop_of(inst);
                self.float_w(inv, inst, |x| alu::log(x, z, false))
            }
            O::Ln => {
                let z = zeroop_of(inst);
                self.float_w(inv, inst, |x| alu::log(x, z, true))
            }
            O::Rcp => {
                let z = zeroop_of(inst);
                self.float_w(inv, inst, |x| alu::rcp(x, z))
            }
            O::Rsq => {
                let z = zeroop_of(inst);
                self.float_w(inv, inst, |x| alu::rsq(x, z))
            }
            O::Pow => {
                let a = self.src(inv, inst, 0, Kind::Float)?;
                let b = self.src(inv, inst, 1, Kind::Float)?;
                self.write_all(inv, inst, [fout(alu::pow(fin(a[3]), fin(b[3]))); 4])
            }
            O::Sincos => {
                let a = self.src(inv, inst, 0, Kind::Float)?;
                let w = fin(a[3]);
                let v = [Some(fout(w.cos())), Some(fout(w.sin())), None, None];
                self.write(inv, inst, v)?;
                Ok(Step::Next)
            }
            O::Expp => {
                let a = self.src(inv, inst, 0, Kind::Float)?;
                let w = fin(a[3]);
                let f = w.floor();
                self.write_all(
                    inv,
                    inst,
                    [fout(f.exp2()), fout(w - f), fout(w.exp2()), ONE_F32],
                )
            }
            O::Logp => {
                let a = self.src(inv, inst, 0, Kind::Float)?;
                let w = fin(a[3]);
                let f = alu::log(w, zeroop_of(inst), false);
                let fl = f.floor();
                self.write_all(inv, inst, [fout(fl), fout(w / fl.exp2()), fout(f), ONE_F32])
            }

            // Conversions (guide §7.10).
            O::Ftoi => self.int_from_float(inv, inst, alu::ftoi),
            O::Ftou => self.int_from_float(inv, inst, alu::ftou),
            O::FtoiRpi => self.int_from_float(inv, inst, |x| alu::ftoi(x.ceil())),
            O::FtoiFlr => self.int_from_float(inv, inst, |x| alu::ftoi(x.floor())),
            O::Itof => self.int1(inv, inst, |x| fout(alu::itof(x))),
            O::Utof => self.int1(inv, inst, |x| fout(alu::utof(x))),
            O::F2F16 | O::F2F16Near => self.int_from_float(inv, inst, alu::f32_to_f16),
            O::F162F => self.int1(inv, inst, |x| alu::f16_to_f32(x & 0xFFFF).to_bits()),

            // Signed integer (guide §7.7).
            O::IAdd => self.int2(inv, inst, u32::wrapping_add),
            O::INegate => self.int1(inv, inst, u32::wrapping_neg),
            O::IMul | O::UMul => self.int2(inv, inst, u32::wrapping_mul),
            O::IMulHigh => self.int2(inv, inst, |a, b| {
                ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32
            }),
            O::UMulHigh => self.int2(inv, inst, |a, b| {
                ((u64::from(a) * u64::from(b)) >> 32) as u32
            }),
            O::IMad | O::UMad => self.int3(inv, inst, |a, b, c| a.wrapping_mul(b).wrapping_add(c)),
            O::IMul24 => self.int2(inv, inst, |a, b| (alu::sext24(a) * alu::sext24(b)) as u32),
            O::IMad24 => self.int3(inv, inst, |a, b, c| {
                ((alu::sext24(a) * alu::sext24(b)) as u32).wrapping_add(c)
            }),
            O::IMul24High => self.int2(inv, inst, |a, b| {
                ((alu::sext24(a) * alu::sext24(b)) >> 32) as u32
            }),
            O::UMul24 => self.int2(inv, inst, |a, b| (alu::zext24(a) * alu::zext24(b)) as u32),
            O::UMad24 => self.int3(inv, inst, |a, b, c| {
                ((alu::zext24(a) * alu::zext24(b)) as u32).wrapping_add(c)
            }),
            O::UMul24High => self.int2(inv, inst, |a, b| {
                ((alu::zext24(a) * alu::zext24(b)) >> 32) as u32
            }),
            O::IMax => self.int2(inv, inst, |a, b| (a as i32).max(b as i32) as u32),
            O::IMin => self.int2(inv, inst, |a, b| (a as i32).min(b as i32) as u32),
            O::UMax => self.int2(inv, inst, u32::max),
            O::UMin => self.int2(inv, inst, u32::min),
            O::IMax3 => self.int3(inv, inst, |a, b, c| {
                (a as i32).max(b as i32).max(c as i32) as u32
            }),
            O::IMin3 => self.int3(inv, inst, |a, b, c| {
                (a as i32).min(b as i32).min(c as i32) as u32
            }),
            O::IMed3 => self.int3(inv, inst, |a, b, c| {
                let (a, b, c) = (a as i32, b as i32, c as i32);
                a.min(b).max(a.max(b).min(c)) as u32
            }),
            O::UMax3 => self.int3(inv, inst, |a, b, c| a.max(b).max(c)),
            O::UMin3 => self.int3(inv, inst, |a, b, c| a.min(b).min(c)),
            O::UMed3 => self.int3(inv, inst, |a, b, c| a.min(b).max(a.max(b).min(c))),
            O::IEq => self.int2(inv, inst, |a, b| boolean(a == b)),
            O::INe => self.int2(inv, inst, |a, b| boolean(a != b)),
            O::ILt => self.int2(inv, inst, |a, b| boolean((a as i32) < (b as i32))),
            O::IGe => self.int2(inv, inst, |a, b| boolean((a as i32) >= (b as i32))),
            O::ULt => self.int2(inv, inst, |a, b| boolean(a < b)),
            O::UGe => self.int2(inv, inst, |a, b| boolean(a >= b)),
            O::And => self.int2(inv, inst, |a, b| a & b),
            O::IOr => self.int2(inv, inst, |a, b| a | b),
            O::IXor => self.int2(inv, inst, |a, b| a ^ b),
            O::INot => self.int1(inv, inst, |a| !a),
            O::IShl => self.shift(inv, inst, |a, s| a << s),
            O::IShr => self.shift(inv, inst, |a, s| ((a as i32) >> s) as u32),
            O::UShr => self.shift(inv, inst, |a, s| a >> s),
            // Guide ICARRY/IBORROW: 1 (not all ones) when a carry/borrow occurs.
            O::ICarry => self.int2(inv, inst, |a, b| u32::from(a.checked_add(b).is_none())),
            O::IBorrow => self.int2(inv, inst, |a, b| u32::from(a < b)),
            O::UDiv => self.int2(inv, inst, alu::udiv),
            O::UMod => self.int2(inv, inst, alu::umod),

            // Bit operations (guide §7.9).
            O::UBitExtract => self.int3(inv, inst, alu::ubit_extract),
            O::IBitExtract => self.int3(inv, inst, alu::ibit_extract),
            O::UBitInsert => {
                let w = self.src(inv, inst, 0, Kind::Int)?;
                let o = self.src(inv, inst, 1, Kind::Int)?;
                let ins = self.src(inv, inst, 2, Kind::Int)?;
                let base = self.src(inv, inst, 3, Kind::Int)?;
                let v = std::array::from_fn(|i| alu::ubit_insert(w[i], o[i], ins[i], base[i]));
                self.write_all(inv, inst, v)
            }
            O::UBitReverse => self.int1(inv, inst, u32::reverse_bits),
            O::ICountbits => self.int1(inv, inst, u32::count_ones),
            O::IFirstbit => match ctrl_field(inst, "").unwrap_or(0) {
                0 => self.int1(inv, inst, alu::ffb_lo),
                1 => self.int1(inv, inst, alu::ffb_hi),
                _ => self.int1(inv, inst, alu::ffb_shi),
            },
            O::BitAlign => self.int3(inv, inst, alu::bitalign),
            O::ByteAlign => self.int3(inv, inst, alu::bytealign),
            O::Unpack0 | O::Unpack1 | O::Unpack2 | O::Unpack3 => {
                let k = match inst.op {
                    O::Unpack0 => 0,
                    O::Unpack1 => 8,
                    O::Unpack2 => 16,
                    _ => 24,
                };
                // Guide §7.13: byte k of each component as a float.
                let a = self.src(inv, inst, 0, Kind::Int)?;
                self.write_all(inv, inst, a.map(|x| (((x >> k) & 0xFF) as f32).to_bits()))
            }

            // Double precision (guide §7.12).
            O::DAdd => self.double2(inv, inst, |a, b| a + b),
            O::DMul => self.double2(inv, inst, |a, b| a * b),
            O::DDiv => self.double2(inv, inst, |a, b| a / b),
            O::DMuladd => {
                let a = self.dsrc(inv, inst, 0)?;
                let b = self.dsrc(inv, inst, 1)?;
                let c = self.dsrc(inv, inst, 2)?;
                // Evergreen maps D_MULADD to FMA64 (guide D_MULADD).
                self.write64(inv, inst, a.mul_add(b, c).to_bits())
            }
            O::DMax => self.double2(inv, inst, alu::dmax),
            O::DMin => self.double2(inv, inst, alu::dmin),
            O::DSqrt => self.double1(inv, inst, f64::sqrt),
            O::DRcp => {
                let z = zeroop_of(inst);
                self.double1(inv, inst, |x| {
                    if x == 0.0 {
                        f64::from(alu::zeroop_value(z))
                    } else {
                        1.0 / x
                    }
                })
            }
            O::DRsq => {
                let z = zeroop_of(inst);
                self.double1(inv, inst, |x| {
                    if x == 0.0 {
                        f64::from(alu::zeroop_value(z))
                    } else {
                        1.0 / x.sqrt()
                    }
                })
            }
            O::DFrac => self.double1(inv, inst, |x| x - x.floor()),
            O::Deq => self.double_cmp(inv, inst, |a, b| a == b),
            // Guide D_NE: NaN compares true (unlike float `ne`).
            O::Dne => self.double_cmp(inv, inst, |a, b| a != b),
            O::Dlt => self.double_cmp(inv, inst, |a, b| a < b),
            O::Dge => self.double_cmp(inv, inst, |a, b| a >= b),
            O::D2F => {
                let a = self.dsrc(inv, inst, 0)?;
                self.write_all(inv, inst, [alu::d2f(a); 4])
            }
            O::F2D => {
                let a = self.src(inv, inst, 0, Kind::Float)?;
                self.write64(inv, inst, f64::from(fin(a[0])).to_bits())
            }
            O::Dtoi => {
                let a = self.dsrc(inv, inst, 0)?;
                self.write_all(inv, inst, [a as i32 as u32; 4])
            }
            O::Dtou => {
                let a = self.dsrc(inv, inst, 0)?;
                self.write_all(inv, inst, [a as u32; 4])
            }
            O::Itod => {
                let a = self.src(inv, inst, 0, Kind::Int)?;
                self.write64(inv, inst, f64::from(a[0] as i32).to_bits())
            }
            O::Utod => {
                let a = self.src(inv, inst, 0, Kind::Int)?;
                self.write64(inv, inst, f64::from(a[0]).to_bits())
            }
            O::DMovc => {
                // Guide D_MOVC: src1 when the integer condition is zero (amd-il.md §10.24).
                let c = self.src(inv, inst, 0, Kind::Int)?;
                let a = self.src(inv, inst, 1, Kind::Double)?;
                let b = self.src(inv, inst, 2, Kind::Double)?;
                let v = if c[0] == 0 { a } else { b };
                self.write_all(inv, inst, [v[0], v[1], v[0], v[1]])
            }
            O::DLdexp => {
                let m = self.dsrc(inv, inst, 0)?;
                let e = self.src(inv, inst, 1, Kind::Int)?;
                let e = (e[0] as i32).clamp(-1100, 1100);
                // Two steps keep the power of two itself representable.
                let half = e / 2;
                let r = m * 2f64.powi(half) * 2f64.powi(e - half);
                self.write64(inv, inst, r.to_bits())
            }

            // 64-bit integer (guide §7.7, §7.8).
            O::I64Add => self.i64_2(inv, inst, u64::wrapping_add),
            O::I64Sub => self.i64_2(inv, inst, u64::wrapping_sub),
            O::I64Mul | O::U64Mul => self.i64_2(inv, inst, u64::wrapping_mul),
            O::I64Negate => {
                let a = self.u64src(inv, inst, 0)?;
                self.write64(inv, inst, a.wrapping_neg())
            }
            O::I64Max => self.i64_2(inv, inst, |a, b| (a as i64).max(b as i64) as u64),
            O::I64Min => self.i64_2(inv, inst, |a, b| (a as i64).min(b as i64) as u64),
            O::U64Max => self.i64_2(inv, inst, u64::max),
            O::U64Min => self.i64_2(inv, inst, u64::min),
            O::I64Shl => self.i64_shift(inv, inst, |a, s| a << s),
            O::I64Shr => self.i64_shift(inv, inst, |a, s| ((a as i64) >> s) as u64),
            O::U64Shr => self.i64_shift(inv, inst, |a, s| a >> s),
            O::I64Eq => self.i64_cmp(inv, inst, |a, b| a == b),
            O::I64Ne => self.i64_cmp(inv, inst, |a, b| a != b),
            O::I64Lt => self.i64_cmp(inv, inst, |a, b| (a as i64) < (b as i64)),
            O::I64Ge => self.i64_cmp(inv, inst, |a, b| (a as i64) >= (b as i64)),
            O::U64Lt => self.i64_cmp(inv, inst, |a, b| a < b),
            O::U64Ge => self.i64_cmp(inv, inst, |a, b| a >= b),

            // Flow control (guide §7.4); targets come from the prepare pass.
            O::IfLogicalz | O::IfLogicalnz | O::Ifc => {
                let taken = match inst.op {
                    O::Ifc => self.relop_cond(inv, inst)?,
                    op => self.cond(inv, inst, op == O::IfLogicalnz)?,
                };
                match self.jump(at) {
                    Jump::If { on_false } if !taken => Ok(Step::Jump(*on_false)),
                    _ => Ok(Step::Next),
                }
            }
            O::Else => match self.jump(at) {
                Jump::Else { end } => Ok(Step::Jump(*end)),
                _ => Err(Fault::malformed("`else` without its `endif`")),
            },
            O::Endloop => match self.jump(at) {
                Jump::EndLoop { body } => Ok(Step::Jump(*body)),
                _ => Err(Fault::malformed("`endloop` without its loop")),
            },
            O::Break | O::Continue => self.exit(at),
            O::BreakLogicalz | O::ContinueLogicalz => {
                if self.cond(inv, inst, false)? {
                    self.exit(at)
                } else {
                    Ok(Step::Next)
                }
            }
            O::BreakLogicalnz | O::ContinueLogicalnz => {
                if self.cond(inv, inst, true)? {
                    self.exit(at)
                } else {
                    Ok(Step::Next)
                }
            }
            O::Breakc | O::Continuec => {
                if self.relop_cond(inv, inst)? {
                    self.exit(at)
                } else {
                    Ok(Step::Next)
                }
            }
            O::Switch => {
                let v = self.src(inv, inst, 0, Kind::Int)?[0];
                match self.jump(at) {
                    Jump::Switch {
                        cases,
                        default,
                        end,
                    } => {
                        let target = cases
                            .iter()
                            .find(|&&(c, _)| c == v)
                            .map(|&(_, t)| t)
                            .or(*default)
                            .unwrap_or(*end);
                        Ok(Step::Jump(target))
                    }
                    _ => Err(Fault::malformed("`switch` without its `endswitch`")),
                }
            }
            O::Call => self.call(at),
            O::CallLogicalz | O::CallLogicalnz => {
                if self.cond(inv, inst, inst.op == O::CallLogicalnz)? {
                    self.call(at)
                } else {
                    Ok(Step::Next)
                }
            }
            O::Ret | O::RetDyn | O::Endfunc => Ok(Step::Return),
            O::RetLogicalz | O::RetLogicalnz => {
                if self.cond(inv, inst, inst.op == O::RetLogicalnz)? {
                    Ok(Step::Return)
                } else {
                    Ok(Step::Next)
                }
            }
            O::Func => Err(Fault::malformed(
                "execution ran into a `func` body (is `endmain` missing?)",
            )),
            O::Endmain | O::End => Ok(Step::Done),
            O::Endif | O::While | O::Case | O::Default | O::Endswitch | O::Nop | O::Comment => {
                Ok(Step::Next)
            }
            O::Fence => {
                // il-sim's memory is sequentially consistent, so only the execution barrier
                // (`_threads`) has an effect.
                if inst.ctrl.0 & il_model::Control::FENCE_THREADS.0 != 0 {
                    Ok(Step::Barrier)
                } else {
                    Ok(Step::Next)
                }
            }

            // Memory (guide §7.15, §7.16).
            O::UavRawLoad | O::UavStructLoad | O::UavLoad => self.uav_load(inv, inst),
            O::UavRawStore | O::UavStructStore | O::UavStore => self.uav_store(inv, inst),
            O::SrvRawLoad | O::SrvStructLoad => self.srv_load(inv, inst),
            O::Load => self.resource_load(inv, inst),
            O::SampleL => self.resource_sample(inv, inst),
            O::LdsLoad
            | O::LdsLoadVec
            | O::LdsLoadByte
            | O::LdsLoadUbyte
            | O::LdsLoadShort
            | O::LdsLoadUshort => self.lds_load(inv, inst),
            O::LdsStore | O::LdsStoreVec | O::LdsStoreByte | O::LdsStoreShort => {
                self.lds_store(inv, inst)
            }
            op => {
                if let Some(atomic) = Atomic::of(op) {
                    return self.atomic(inv, inst, atomic);
                }
                if op.info().mnemonic.starts_with("dcl") {
                    return Ok(Step::Next);
                }
                Err(Fault::unsupported(format!(
                    "`{}` is not simulated",
                    op.info().mnemonic
                )))
            }
        }
    }

    fn int_from_float(
        &self,
        inv: &mut Invocation,
        inst: &Inst,
        f: impl Fn(f32) -> u32,
    ) -> Res<Step> {
        let a = self.src(inv, inst, 0, Kind::Float)?;
        self.write_all(inv, inst, a.map(|x| f(fin(x))))
    }

    fn exit(&self, at: usize) -> Res<Step> {
        match self.jump(at) {
            Jump::Break { target } | Jump::Continue { target } => Ok(Step::Jump(*target)),
            _ => Err(Fault::malformed("break/continue without its block")),
        }
    }

    fn call(&self, at: usize) -> Res<Step> {
        match self.jump(at) {
            Jump::Call { body } => Ok(Step::Call(*body)),
            _ => Err(Fault::malformed("call without a target")),
        }
    }

    // ----- memory -----------------------------------------------------------------------------

    fn uav_kind(&self, id: u32) -> Res<UavKind> {
        self.prep
            .uavs
            .get(&id)
            .copied()
            .ok_or_else(|| Fault::malformed(format!("UAV {id} is used but not declared")))
    }

    fn uav_buffer(&mut self, id: u32) -> Res<&mut Vec<u8>> {
        self.dispatch
            .uavs
            .get_mut(id as usize)
            .ok_or_else(|| Fault::malformed(format!("no buffer is bound to UAV {id}")))
    }

    /// The byte address of a buffer UAV access (amd-il.md §0.8): raw → `s0.x`; structured →
    /// `s0.x · stride + s0.y`. Typed UAVs address texels instead ([`Machine::image`]).
    fn uav_address(kind: UavKind, a: [u32; 4]) -> u64 {
        match kind {
            UavKind::Raw | UavKind::Typed(_) => u64::from(a[0]),
            UavKind::Struct { stride } => u64::from(a[0]) * u64::from(stride) + u64::from(a[1]),
        }
    }

    /// The image bound to typed UAV `id`.
    fn image(&mut self, id: u32) -> Res<&mut Image> {
        self.dispatch
            .images
            .get_mut(id as usize)
            .and_then(Option::as_mut)
            .ok_or_else(|| Fault::malformed(format!("no image is bound to typed UAV {id}")))
    }

    fn uav_load(&mut self, inv: &mut Invocation, inst: &Inst) -> Res<Step> {
        let id = resource_id(inst);
        let kind = self.uav_kind(id)?;
        check_access(inst.op, kind)?;
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let v = if let UavKind::Typed(shape) = kind {
            image::load(self.image(id)?, shape, a)
        } else {
            let addr = aligned(Self::uav_address(kind, a))?;
            let buf = self.uav_buffer(id)?;
            std::array::from_fn(|i| load_dword(buf, addr + 4 * i as u64))
        };
        self.write_all(inv, inst, v)
    }

    fn uav_store(&mut self, inv: &mut Invocation, inst: &Inst) -> Res<Step> {
        let id = resource_id(inst);
        let kind = self.uav_kind(id)?;
        check_access(inst.op, kind)?;
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let data = self.src(inv, inst, 1, Kind::Int)?;
        if let UavKind::Typed(shape) = kind {
            image::store(self.image(id)?, shape, a, data);
            return Ok(Step::Next);
        }
        let addr = aligned(Self::uav_address(kind, a))?;
        let mask = store_mask(inst)?;
        let buf = self.uav_buffer(id)?;
        for i in 0..4 {
            if mask[i] {
                store_dword(buf, addr + 4 * i as u64, data[i]);
            }
        }
        Ok(Step::Next)
    }

    /// `load_resource(n)` (guide LOAD): integer texel coordinates, the mip level in `.w`.
    fn resource_load(&mut self, inv: &mut Invocation, inst: &Inst) -> Res<Step> {
        let (shape, image) = self.texture(inst)?;
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let v = if a[3] == 0 {
            image::load(image, shape, a)
        } else {
            // il-sim binds one mip level; other levels are out of range.
            [0; 4]
        };
        self.write_all(inv, inst, v)
    }

    /// `sample_l_resource(n)_sampler(m)` (guide SAMPLE_L): normalised float coordinates.
    fn resource_sample(&mut self, inv: &mut Invocation, inst: &Inst) -> Res<Step> {
        let (shape, image) = self.texture(inst)?;
        let sampler_id = ctrl_field(inst, "sampler").unwrap_or(0) as usize;
        let sampler = self
            .dispatch
            .samplers
            .get(sampler_id)
            .copied()
            .unwrap_or_default();
        let coords = self.src(inv, inst, 0, Kind::Float)?.map(fin);
        // The LOD (src1) selects among mip levels; il-sim binds one.
        let v = image::sample(image, shape, &sampler, coords);
        self.write_all(inv, inst, v)
    }

    /// The declaration and bound image of the resource an instruction names.
    fn texture(&self, inst: &Inst) -> Res<(Shape, &Image)> {
        if ctrl_field(inst, "ext") == Some(1) || inst.addr_offset().is_some() {
            return Err(Fault::unsupported(
                "indexed (_ext) resources and address offsets are not simulated",
            ));
        }
        let id = ctrl_field(inst, "resource").unwrap_or(0);
        let shape =
            *self.prep.resources.get(&id).ok_or_else(|| {
                Fault::malformed(format!("resource {id} is used but not declared"))
            })?;
        let image = self
            .dispatch
            .textures
            .get(id as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| Fault::malformed(format!("no image is bound to resource {id}")))?;
        Ok((shape, image))
    }

    fn srv_load(&mut self, inv: &mut Invocation, inst: &Inst) -> Res<Step> {
        if ctrl_field(inst, "ext") == Some(1) {
            return Err(Fault::unsupported(
                "indexed (_ext) SRV loads are not simulated",
            ));
        }
        let id = resource_id(inst);
        let kind = *self
            .prep
            .srvs
            .get(&id)
            .ok_or_else(|| Fault::malformed(format!("SRV {id} is used but not declared")))?;
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let addr = aligned(match (inst.op, kind) {
            (Opcode::SrvRawLoad, SrvKind::Raw) => u64::from(a[0]),
            (Opcode::SrvStructLoad, SrvKind::Struct { stride }) => {
                u64::from(a[0]) * u64::from(stride) + u64::from(a[1])
            }
            _ => {
                return Err(Fault::malformed(format!(
                    "`{}` does not match the declaration of SRV {id}",
                    inst.info().mnemonic
                )));
            }
        })?;
        let buf = self
            .dispatch
            .srvs
            .get(id as usize)
            .ok_or_else(|| Fault::malformed(format!("no buffer is bound to SRV {id}")))?;
        let v = std::array::from_fn(|i| load_dword(buf, addr + 4 * i as u64));
        self.write_all(inv, inst, v)
    }

    /// The LDS memory and the byte address of an LDS access (guide §7.16): typeless → `s0.x`;
    /// structured → `s0.x · stride + s0.y` (for the `_vec` forms the offset is `s1.x`).
    fn lds_address(&self, inv: &Invocation, inst: &Inst) -> Res<(usize, u64)> {
        let id = resource_id(inst);
        let decl = self
            .prep
            .lds
            .get(&id)
            .ok_or_else(|| Fault::malformed(format!("LDS {id} is used but not declared")))?;
        let slot = self
            .lds
            .iter()
            .position(|(i, _)| *i == id)
            .ok_or_else(|| Fault::malformed(format!("LDS {id} has no memory")))?;
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let addr = match decl.stride {
            None => u64::from(a[0]),
            Some(stride) => {
                let offset = if matches!(inst.op, Opcode::LdsLoadVec | Opcode::LdsStoreVec) {
                    self.src(inv, inst, 1, Kind::Int)?[0]
                } else {
                    a[1]
                };
                u64::from(a[0]) * u64::from(stride) + u64::from(offset)
            }
        };
        Ok((slot, addr))
    }

    fn lds_load(&mut self, inv: &mut Invocation, inst: &Inst) -> Res<Step> {
        let (slot, addr) = self.lds_address(inv, inst)?;
        let mem = self.lds.get(slot).map(|(_, m)| m.as_slice()).unwrap_or(&[]);
        let v = match inst.op {
            Opcode::LdsLoadVec => {
                let addr = aligned(addr)?;
                std::array::from_fn(|i| load_dword(mem, addr + 4 * i as u64))
            }
            Opcode::LdsLoadByte => [load_bytes(mem, addr, 1) as u8 as i8 as i32 as u32; 4],
            Opcode::LdsLoadUbyte => [load_bytes(mem, addr, 1); 4],
            Opcode::LdsLoadShort => {
                [load_bytes(mem, aligned_to(addr, 2)?, 2) as u16 as i16 as i32 as u32; 4]
            }
            // The guide's "sign-extended" for LDS_LOAD_USHORT is a typo (amd-il.md §6.4).
            Opcode::LdsLoadUshort => [load_bytes(mem, aligned_to(addr, 2)?, 2); 4],
            // LDS_LOAD returns one dword; il-sim writes it to every enabled component.
            _ => [load_dword(mem, aligned(addr)?); 4],
        };
        self.write_all(inv, inst, v)
    }

    fn lds_store(&mut self, inv: &mut Invocation, inst: &Inst) -> Res<Step> {
        let (slot, addr) = self.lds_address(inv, inst)?;
        let (data_index, vec) = match inst.op {
            Opcode::LdsStoreVec => (2, true),
            _ => (1, false),
        };
        let data = self.src(inv, inst, data_index, Kind::Int)?;
        let mask = if vec {
            store_mask(inst)?
        } else {
            [true, false, false, false]
        };
        let addr = match inst.op {
            Opcode::LdsStoreByte => addr,
            Opcode::LdsStoreShort => aligned_to(addr, 2)?,
            _ => aligned(addr)?,
        };
        let Some((_, mem)) = self.lds.get_mut(slot) else {
            return Ok(Step::Next);
        };
        match inst.op {
            Opcode::LdsStoreByte => store_bytes(mem, addr, data[0], 1),
            Opcode::LdsStoreShort => store_bytes(mem, addr, data[0], 2),
            _ => {
                for i in 0..4 {
                    if mask[i] {
                        store_dword(mem, addr + 4 * i as u64, data[i]);
                    }
                }
            }
        }
        Ok(Step::Next)
    }

    /// Every atomic: one dword, old value returned by the `read_` forms (guide §7.15, §7.16).
    fn atomic(&mut self, inv: &mut Invocation, inst: &Inst, atomic: Atomic) -> Res<Step> {
        let s1 = self.src(inv, inst, 1, Kind::Int)?[0];
        let s2 = if atomic.op.takes_two() {
            self.src(inv, inst, 2, Kind::Int)?[0]
        } else {
            0
        };
        let a = self.src(inv, inst, 0, Kind::Int)?;
        let (mem, addr): (&mut [u8], u64) = if atomic.lds {
            let (slot, addr) = self.lds_address(inv, inst)?;
            let addr = aligned(addr)?;
            match self.lds.get_mut(slot) {
                Some((_, m)) => (m.as_mut_slice(), addr),
                None => return Err(Fault::malformed("LDS without memory")),
            }
        } else {
            let id = resource_id(inst);
            match self.uav_kind(id)? {
                UavKind::Typed(shape) => {
                    let image = self.image(id)?;
                    let format = image.format;
                    match image::atomic_offset(image, shape, a) {
                        Some(offset) => (image.data.as_mut_slice(), offset as u64),
                        None if format.channels == 1
                            && matches!(format.ty, ChannelType::Uint32 | ChannelType::Sint32) =>
                        {
                            // Outside the image: nothing changes, the read forms return 0.
                            return if atomic.returns {
                                self.write_all(inv, inst, [0; 4])
                            } else {
                                Ok(Step::Next)
                            };
                        }
                        None => {
                            return Err(Fault::malformed(format!(
                                "atomics need a 32-bit integer single-channel image, UAV {id} is {format:?} (guide §7.15)"
                            )));
                        }
                    }
                }
                kind => {
                    let addr = aligned(Self::uav_address(kind, a))?;
                    (self.uav_buffer(id)?.as_mut_slice(), addr)
                }
            }
        };
        let old = load_dword(mem, addr);
        let new = atomic.op.apply(old, s1, s2, atomic.lds);
        store_dword(mem, addr, new);
        if atomic.returns {
            self.write_all(inv, inst, [old; 4])
        } else {
            Ok(Step::Next)
        }
    }
}

/// The atomic operations of UAVs and LDS.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum AtomicOp {
    Add,
    Sub,
    Rsub,
    Min,
    Max,
    Umin,
    Umax,
    And,
    Or,
    Xor,
    Xchg,
    Inc,
    Dec,
    Cmp,
    Mskor,
}

impl AtomicOp {
    fn takes_two(self) -> bool {
        matches!(self, AtomicOp::Cmp | AtomicOp::Mskor)
    }

    /// The new memory value. Compare-exchange operand order differs (amd-il.md §0.7): UAV
    /// `if (mem == s2) mem = s1`; LDS `if (mem == s1) mem = s2`.
    fn apply(self, old: u32, s1: u32, s2: u32, lds: bool) -> u32 {
        match self {
            AtomicOp::Add => old.wrapping_add(s1),
            AtomicOp::Sub => old.wrapping_sub(s1),
            AtomicOp::Rsub => s1.wrapping_sub(old),
            AtomicOp::Min => (old as i32).min(s1 as i32) as u32,
            AtomicOp::Max => (old as i32).max(s1 as i32) as u32,
            AtomicOp::Umin => old.min(s1),
            AtomicOp::Umax => old.max(s1),
            AtomicOp::And => old & s1,
            AtomicOp::Or => old | s1,
            AtomicOp::Xor => old ^ s1,
            AtomicOp::Xchg => s1,
            // Wrapping increment/decrement (guide UAV_UINC/UDEC, LDS_INC; LDS_DEC's page copies
            // LDS_AND, amd-il.md §6.4, so it follows the UAV rule).
            AtomicOp::Inc => {
                if old >= s1 {
                    0
                } else {
                    old + 1
                }
            }
            AtomicOp::Dec => {
                if old == 0 || old > s1 {
                    s1
                } else {
                    old - 1
                }
            }
            AtomicOp::Cmp => {
                let (compare, value) = if lds { (s1, s2) } else { (s2, s1) };
                if old == compare { value } else { old }
            }
            AtomicOp::Mskor => (old & !s1) | s2,
        }
    }
}

/// An atomic instruction: operation, memory, and whether it returns the old value.
#[derive(Clone, Copy, Debug)]
struct Atomic {
    op: AtomicOp,
    lds: bool,
    returns: bool,
}

impl Atomic {
    fn of(op: Opcode) -> Option<Atomic> {
        use AtomicOp as A;
        use Opcode as O;
        let (a, lds, returns) = match op {
            O::UavAdd => (A::Add, false, false),
            O::UavSub => (A::Sub, false, false),
            O::UavRsub => (A::Rsub, false, false),
            O::UavMin => (A::Min, false, false),
            O::UavMax => (A::Max, false, false),
            O::UavUmin => (A::Umin, false, false),
            O::UavUmax => (A::Umax, false, false),
            O::UavAnd => (A::And, false, false),
            O::UavOr => (A::Or, false, false),
            O::UavXor => (A::Xor, false, false),
            O::UavUinc => (A::Inc, false, false),
            O::UavUdec => (A::Dec, false, false),
            O::UavCmp => (A::Cmp, false, false),
            O::UavReadAdd => (A::Add, false, true),
            O::UavReadSub => (A::Sub, false, true),
            O::UavReadRsub => (A::Rsub, false, true),
            O::UavReadMin => (A::Min, false, true),
            O::UavReadMax => (A::Max, false, true),
            O::UavReadUmin => (A::Umin, false, true),
            O::UavReadUmax => (A::Umax, false, true),
            O::UavReadAnd => (A::And, false, true),
            O::UavReadOr => (A::Or, false, true),
            O::UavReadXor => (A::Xor, false, true),
            O::UavReadXchg => (A::Xchg, false, true),
            O::UavReadUinc => (A::Inc, false, true),
            O::UavReadUdec => (A::Dec, false, true),
            O::UavReadCmpXchg => (A::Cmp, false, true),
            O::LdsAdd => (A::Add, true, false),
            O::LdsSub => (A::Sub, true, false),
            O::LdsRsub => (A::Rsub, true, false),
            O::LdsMin => (A::Min, true, false),
            O::LdsMax => (A::Max, true, false),
            O::LdsUmin => (A::Umin, true, false),
            O::LdsUmax => (A::Umax, true, false),
            O::LdsAnd => (A::And, true, false),
            O::LdsOr => (A::Or, true, false),
            O::LdsXor => (A::Xor, true, false),
            O::LdsInc => (A::Inc, true, false),
            O::LdsDec => (A::Dec, true, false),
            O::LdsCmp => (A::Cmp, true, false),
            O::LdsMskor => (A::Mskor, true, false),
            O::LdsReadAdd => (A::Add, true, true),
            O::LdsReadSub => (A::Sub, true, true),
            O::LdsReadRsub => (A::Rsub, true, true),
            O::LdsReadMin => (A::Min, true, true),
            O::LdsReadMax => (A::Max, true, true),
            O::LdsReadUmin => (A::Umin, true, true),
            O::LdsReadUmax => (A::Umax, true, true),
            O::LdsReadAnd => (A::And, true, true),
            O::LdsReadOr => (A::Or, true, true),
            O::LdsReadXor => (A::Xor, true, true),
            O::LdsReadXchg => (A::Xchg, true, true),
            O::LdsReadInc => (A::Inc, true, true),
            O::LdsReadDec => (A::Dec, true, true),
            O::LdsReadCmpXchg => (A::Cmp, true, true),
            O::LdsReadMskor => (A::Mskor, true, true),
            _ => return None,
        };
        Some(Atomic {
            op: a,
            lds,
            returns,
        })
    }
}

/// The instruction must fit the UAV's declaration (raw ops on raw UAVs, ...).
fn check_access(op: Opcode, kind: UavKind) -> Res<()> {
    let ok = match op {
        Opcode::UavRawLoad | Opcode::UavRawStore => kind == UavKind::Raw,
        Opcode::UavStructLoad | Opcode::UavStructStore => matches!(kind, UavKind::Struct { .. }),
        _ => matches!(kind, UavKind::Typed(_)),
    };
    if ok {
        Ok(())
    } else {
        Err(Fault::malformed(format!(
            "`{}` does not match the UAV's declaration ({kind:?})",
            op.info().mnemonic
        )))
    }
}

/// The components a store writes: its `mem` destination's mask (guide UAV_RAW_STORE).
fn store_mask(inst: &Inst) -> Res<[bool; 4]> {
    let Some(dst) = inst.dst.first() else {
        return Ok([true; 4]);
    };
    let mut out = [false; 4];
    for (o, c) in out.iter_mut().zip(dst.mask) {
        *o = match c {
            DstComp::Write => true,
            DstComp::NoWrite => false,
            DstComp::Zero | DstComp::One => {
                return Err(Fault::malformed(
                    "a store mask may only enable or skip components",
                ));
            }
        };
    }
    Ok(out)
}

/// Dword accesses need 4-byte alignment (amd-il.md §0.8). Hardware would silently ignore the
/// low bits; il-sim reports the address instead, since a translator never means it.
fn aligned(addr: u64) -> Res<u64> {
    aligned_to(addr, 4)
}

fn aligned_to(addr: u64, align: u64) -> Res<u64> {
    if addr.is_multiple_of(align) {
        Ok(addr)
    } else {
        Err(Fault::runtime(format!(
            "address {addr:#x} is not {align}-byte aligned"
        )))
    }
}

/// A dword at `addr`; out-of-range reads return 0 (amd-il.md §7.5).
fn load_dword(mem: &[u8], addr: u64) -> u32 {
    load_bytes(mem, addr, 4)
}

/// `len` little-endian bytes at `addr`, zero-extended; 0 when any byte is out of range.
fn load_bytes(mem: &[u8], addr: u64, len: usize) -> u32 {
    let Ok(start) = usize::try_from(addr) else {
        return 0;
    };
    match start.checked_add(len).and_then(|end| mem.get(start..end)) {
        Some(bytes) => bytes
            .iter()
            .rev()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b)),
        None => 0,
    }
}

/// Stores a dword; out-of-range stores are dropped (amd-il.md §7.5).
fn store_dword(mem: &mut [u8], addr: u64, v: u32) {
    store_bytes(mem, addr, v, 4);
}

fn store_bytes(mem: &mut [u8], addr: u64, v: u32, len: usize) {
    let Ok(start) = usize::try_from(addr) else {
        return;
    };
    if let Some(bytes) = start
        .checked_add(len)
        .and_then(|end| mem.get_mut(start..end))
    {
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (v >> (8 * i)) as u8;
        }
    }
}

fn zeroop_of(inst: &Inst) -> ZeroOp {
    ctrl_field(inst, "zeroop")
        .and_then(ZeroOp::from_value)
        .unwrap_or(ZeroOp::FltMax)
}

fn relop_of(inst: &Inst) -> Res<RelOp> {
    ctrl_field(inst, "relop")
        .and_then(RelOp::from_value)
        .ok_or_else(|| Fault::malformed("missing or invalid _relop"))
}
