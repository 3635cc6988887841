//! 64-bit values: doubles and 64-bit integers as pairs of components.
//!
//! A 64-bit element is two components, low dword first (x = low, y = high, or z / w): the
//! layout the double and 64-bit integer instructions read and write (guide §7.2.5: sources in
//! `.xy` after the swizzle, results to `.xy` or `.zw`; amd-il.md §0.10). A scalar takes half a
//! register, a 2-vector a whole one, a 3- or 4-vector two ([`MemberValues::wide_split`]). An IL
//! instruction on 64-bit data handles one element, so a vector operation is one instruction per
//! element, reading its operands as (low, high, low, high) ([`MemberValues::pair`]) and writing `.xy`
//! or `.zw` of the result ([`pair_dst`]). Compares write their 32-bit boolean to every enabled
//! component (guide §7.2.1), so one component of a boolean vector is written per element.
//!
//! * Copies, selects and the bitwise operations work dword by dword with the 32-bit
//!   instructions, a register at a time.
//! * 64-bit integers use the Evergreen instructions (`i64add`, `i64negate`, `i64shl`,
//!   `i64shr`, `u64shr`, `i64max`/`min`, `u64max`/`min` and the compares; guide §7.7, §7.8).
//!   IL's `i64mul`, `i64div`, `u64mod`, ... are enumerants without a page (amd-il.md §10.28),
//!   so multiplication is written with 32-bit multiplies and division as a shift-subtract loop.
//! * The double instructions (guide §7.12) and conversions are in [`super::double`].

use il_model::{CompSel, Control, Dst, DstComp, Inst, Opcode, Reg, RegType, Src, Srcs};
use spv_reader::{Id, Inst as SpvInst, Type, spirv};

use super::Lowerer;
use super::ops::{TRUE, temp_value};
use super::types::{Scalar, Shape};
use super::values::{MemberRange, MemberValues, Value, dst_at, dst_first};
use crate::error::Error;

/// The part of a 64-bit value holding element `i`, and the element's position (0 or 1) in it.
pub(super) fn part_of(members: &MemberValues, value: &Value, i: usize) -> (Value, usize) {
    match *members.parts(value) {
        [_, high] if i >= 2 => (high, (i - 2).min(1)),
        [first, ..] => (first, i.min(1)),
        [] => (*value, 0),
    }
}

/// The destination writing 64-bit element `i` of `result` (a value of [`Lowerer::wide_temp`]):
/// `.xy__` or `.__zw` of the register that holds it.
pub(super) fn pair_dst(members: &MemberValues, result: &Value, i: usize) -> Dst {
    let (part, position) = part_of(members, result, i);
    let mut dst = Dst::new(part.reg);
    for (at, comp) in dst.mask.iter_mut().enumerate() {
        *comp = if at / 2 == position {
            DstComp::Write
        } else {
            DstComp::NoWrite
        };
    }
    dst
}

/// The destination writing the low (`high` false) or high dword of element `i` of `result`.
pub(super) fn dword_dst(members: &MemberValues, result: &Value, i: usize, high: bool) -> Dst {
    let (part, position) = part_of(members, result, i);
    let mut dst = Dst::new(part.reg);
    dst.mask = [DstComp::NoWrite; 4];
    dst.mask[2 * position + usize::from(high)] = DstComp::Write;
    dst
}

/// The low dword of 64-bit element `i` of `value`, replicated.
pub(super) fn low(members: &MemberValues, value: &Value, i: usize) -> Src {
    members.extract(value, i).element(0)
}

/// The high dword of 64-bit element `i` of `value`, replicated.
pub(super) fn high(members: &MemberValues, value: &Value, i: usize) -> Src {
    members.extract(value, i).element(1)
}

/// Element `i` of a boolean (32-bit) condition replicated over the two dwords of each 64-bit
/// element of part `part`: `(c[2p], c[2p], c[2p+1], c[2p+1])`.
fn pair_condition(condition: &Value, part: usize) -> Src {
    let first = condition.element(2 * part).swizzle[0];
    let second = condition.element(2 * part + 1).swizzle[0];
    let mut src = Src::new(condition.reg);
    src.swizzle = [first, first, second, second];
    src
}

/// How many times the 64-bit division loop runs: once per quotient bit.
const DIVISION_STEPS: u32 = 64;

impl Lowerer<'_> {
    /// Whether `ty` is a 64-bit scalar, or a vector or matrix of them.
    pub(super) fn is_wide_type(&self, ty: Id) -> bool {
        if !self.declares_wide {
            return false;
        }
        let vector = match self.module.ty(ty) {
            Some(Type::Matrix { column, .. }) => *column,
            _ => ty,
        };
        let scalar = match self.module.ty(vector) {
            Some(Type::Vector { component, .. }) => *component,
            _ => vector,
        };
        matches!(
            self.module.ty(scalar),
            Some(Type::Int { width: 64, .. } | Type::Float { width: 64 })
        )
    }

    /// Whether an instruction has a 64-bit result (`result_type`), or an id operand of a 64-bit
    /// type among `operands` (the operand words to look at, from [`SpvInst::split`]).
    pub(super) fn touches_wide_parts(&mut self, result_type: Option<Id>, operands: &[u32]) -> bool {
        // Without a 64-bit type in the module no value is 64-bit: no per-operand lookups.
        if !self.declares_wide {
            return false;
        }
        if result_type.is_some_and(|ty| self.is_wide_type_cached(ty)) {
            return true;
        }
        let info = self.info;
        operands.iter().any(|word| {
            // The validator's table of result types answers without decoding the
            // defining instruction.
            info.value_type(Id(*word))
                .is_some_and(|ty| self.is_wide_type_cached(ty))
        })
    }

    /// [`Lowerer::is_wide_type`], remembered per type id: every arithmetic instruction asks it
    /// of its result type and each of its operands' types, and a module has few types.
    fn is_wide_type_cached(&mut self, ty: Id) -> bool {
        const UNKNOWN: u8 = 0;
        const NARROW: u8 = 1;
        const WIDE: u8 = 2;
        match self.wide_types.get(ty.0 as usize) {
            Some(&NARROW) => false,
            Some(&WIDE) => true,
            Some(&UNKNOWN) => {
                let wide = self.is_wide_type(ty);
                if let Some(mark) = self.wide_types.get_mut(ty.0 as usize) {
                    *mark = if wide { WIDE } else { NARROW };
                }
                wide
            }
            // Past the bound (not an id) or an unexpected mark: ask the module directly.
            _ => self.is_wide_type(ty),
        }
    }

    /// Fresh temporaries for `elements` (1–4) 64-bit elements: one register for one or two
    /// elements, two registers for three or four.
    pub(super) fn wide_temp(&mut self, elements: usize) -> Value {
        let first = self.regs.temp();
        let low = Value::wide_in_reg(Reg::new(RegType::Temp, first), count_u8(elements.min(2)));
        if elements <= 2 {
            return low;
        }
        let second = self.regs.temp();
        let high = Value::wide_in_reg(
            Reg::new(RegType::Temp, second),
            count_u8(elements.clamp(3, 4) - 2),
        );
        self.members.wide_split(low, high)
    }

    /// A constant of `elements` 64-bit elements, all `bits`.
    pub(super) fn wide_splat(&mut self, bits: u64, elements: usize) -> Value {
        self.regs
            .wide_vector(&mut self.members, &vec![bits; elements.clamp(1, 4)])
    }

    /// Emits `op` once per 64-bit element, with the given sources for each element; the
    /// results go to `.xy` / `.zw` of fresh temporaries.
    pub(super) fn wide_each(
        &mut self,
        op: Opcode,
        ctrl: Control,
        elements: usize,
        sources: impl Fn(&MemberValues, usize) -> Vec<Src>,
    ) -> Value {
        let result = self.wide_temp(elements);
        for i in 0..elements {
            let mut il = Inst::new(op)
                .ctrl(ctrl)
                .dst(pair_dst(&self.members, &result, i));
            il.src = Srcs::from_vec(sources(&self.members, i));
            self.emit(il);
        }
        result
    }

    /// `op` on the 64-bit elements of `args` (read as pairs), one instruction per element.
    pub(super) fn wide_op(&mut self, op: Opcode, elements: usize, args: &[&Value]) -> Value {
        let args: Vec<Value> = args.iter().map(|a| *(*a)).collect();
        self.wide_each(op, Control::NONE, elements, |members, i| {
            args.iter().map(|a| members.pair(a, i)).collect()
        })
    }

    /// Emits `op` once per 64-bit element with a 32-bit result in component `i` of a fresh
    /// temporary (compares and conversions to 32 bits broadcast their result, guide §7.2.1).
    pub(super) fn narrow_each(
        &mut self,
        op: Opcode,
        elements: usize,
        sources: impl Fn(&MemberValues, usize) -> Vec<Src>,
    ) -> Value {
        let reg = self.regs.temp();
        for i in 0..elements.min(4) {
            let mut il = Inst::new(op).dst(dst_at(reg, i));
            il.src = Srcs::from_vec(sources(&self.members, i));
            self.emit(il);
        }
        temp_value(reg, count_u8(elements))
    }

    /// A 32-bit instruction applied dword by dword to 64-bit values, a register at a time: the
    /// arguments must have the same number of elements (constants made by [`Lowerer::wide_splat`]
    /// do).
    pub(super) fn dwords_op(&mut self, op: Opcode, args: &[&Value]) -> Value {
        let elements = args.first().map_or(1, |a| self.members.width(a));
        let result = self.wide_temp(elements);
        for (k, part) in self.members.parts(&result).iter().enumerate() {
            let mut il = Inst::new(op).dst(dst_first(part.reg.num, part.count));
            il.src = args
                .iter()
                .map(|a| {
                    let parts = self.members.parts(a);
                    parts
                        .get(k)
                        .or(parts.last())
                        .map_or_else(|| a.src(), Value::src)
                })
                .collect();
            self.emit(il);
        }
        result
    }

    /// `accept` where `condition` (a boolean scalar or vector) is true, else `reject`, for
    /// 64-bit values: `cmov_logical` over both dwords of each element.
    pub(super) fn select_wide(
        &mut self,
        condition: &Value,
        accept: &Value,
        reject: &Value,
    ) -> Value {
        let result = self.wide_temp(self.members.width(accept));
        for (k, part) in self.members.parts(&result).iter().enumerate() {
            let pick = |v: &Value| {
                let parts = self.members.parts(v);
                parts
                    .get(k)
                    .or(parts.last())
                    .map_or_else(|| v.src(), Value::src)
            };
            self.emit(
                Inst::new(Opcode::CmovLogical)
                    .dst(dst_first(part.reg.num, part.count))
                    .src(pair_condition(condition, k))
                    .src(pick(accept))
                    .src(pick(reject)),
            );
        }
        result
    }

    /// Emits `mov`s writing dword `position` of register `dst` from component `comp` of `src`,
    /// for each move: one `mov` per pair of registers.
    pub(super) fn move_dwords(&mut self, moves: &[(Reg, usize, Reg, CompSel)]) {
        let mut done = vec![false; moves.len()];
        for (i, (dst_reg, first_position, src_reg, comp)) in moves.iter().enumerate() {
            // Positions are 0–3 (two dwords of one of two elements per register); one out of
            // range would write nothing, so it is skipped.
            if done[i] || *first_position > 3 {
                continue;
            }
            let mut dst = Dst::new(*dst_reg);
            dst.mask = [DstComp::NoWrite; 4];
            let mut src = Src::new(*src_reg);
            src.swizzle = [*comp; 4];
            for (j, (d, position, s, c)) in moves.iter().enumerate().skip(i) {
                if done[j] || d != dst_reg || s != src_reg {
                    continue;
                }
                if let Some(slot) = dst.mask.get_mut(*position)
                    && *slot == DstComp::NoWrite
                {
                    *slot = DstComp::Write;
                    src.swizzle[*position] = *c;
                    done[j] = true;
                }
            }
            self.emit_mov(dst, src);
        }
    }

    /// The moves copying 64-bit `elements` (one-element values) into `result`.
    fn element_moves(
        members: &MemberValues,
        result: &Value,
        elements: &[Value],
    ) -> Vec<(Reg, usize, Reg, CompSel)> {
        let mut moves = Vec::with_capacity(2 * elements.len());
        for (i, element) in elements.iter().enumerate() {
            let (part, position) = part_of(members, result, i);
            for half in 0..2 {
                moves.push((
                    part.reg,
                    2 * position + half,
                    element.reg,
                    element.comps[half],
                ));
            }
        }
        moves
    }

    /// A 64-bit vector whose elements are the given one-element values: the components
    /// re-labelled where each register's worth lives in one register, otherwise copied.
    pub(super) fn gather_wide(&mut self, elements: &[Value]) -> Value {
        let elements = &elements[..elements.len().min(4)];
        let relabel = |chunk: &[Value]| -> Option<Value> {
            let first = chunk.first()?;
            if chunk.iter().any(|e| e.reg != first.reg) {
                return None;
            }
            let last = chunk.last()?;
            Some(Value {
                reg: first.reg,
                comps: [first.comps[0], first.comps[1], last.comps[0], last.comps[1]],
                count: count_u8(chunk.len()) * 2,
                members: MemberRange::default(),
                wide: true,
            })
        };
        let parts: Option<Vec<Value>> = elements.chunks(2).map(relabel).collect();
        match parts.as_deref() {
            Some([single]) => return *single,
            Some([low, high]) => return self.members.wide_split(*low, *high),
            _ => {}
        }
        self.copy_wide(elements)
    }

    /// The 64-bit `elements` copied into fresh temporaries.
    pub(super) fn copy_wide(&mut self, elements: &[Value]) -> Value {
        let result = self.wide_temp(elements.len());
        let moves = Self::element_moves(&self.members, &result, elements);
        self.move_dwords(&moves);
        result
    }

    /// The shape of operand `n` of `inst`.
    pub(super) fn operand_shape(&self, inst: SpvInst<'_>, n: usize) -> Result<Shape, Error> {
        let id = self.operand_id(inst, n)?;
        let ty = self
            .info
            .value_type(id)
            .ok_or_else(|| self.unsupported(inst, format!("operand {id} without a type")))?;
        self.shape(inst, ty)
    }

    /// Instructions on 64-bit values other than copies, composites and selects (which
    /// [`Value`] handles for both widths).
    pub(super) fn lower_wide_op(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<(), Error> {
        use spirv::Op;
        let value = match op {
            Op::Bitcast => self.wide_bitcast(inst)?,
            Op::UConvert | Op::SConvert => self.int_width_convert(op, inst)?,
            Op::FConvert => self.float_width_convert(inst)?,
            Op::ConvertSToF | Op::ConvertUToF => self.int_to_float(op, inst)?,
            Op::ConvertFToS | Op::ConvertFToU => self.float_to_int(op, inst)?,
            Op::IAdd | Op::ISub | Op::IMul | Op::SNegate => self.int64_arith(op, inst)?,
            Op::Not => {
                let a = self.operand(inst, 0)?;
                self.dwords_op(Opcode::INot, &[&a])
            }
            Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor => {
                let a = self.operand(inst, 0)?;
                let b = self.operand(inst, 1)?;
                let il = match op {
                    Op::BitwiseAnd => Opcode::And,
                    Op::BitwiseOr => Opcode::IOr,
                    _ => Opcode::IXor,
                };
                self.dwords_op(il, &[&a, &b])
            }
            Op::ShiftLeftLogical | Op::ShiftRightArithmetic | Op::ShiftRightLogical => {
                self.wide_shift(op, inst)?
            }
            Op::IEqual
            | Op::INotEqual
            | Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual => self.int64_compare(op, inst)?,
            Op::UDiv | Op::UMod | Op::SDiv | Op::SRem | Op::SMod => {
                self.int64_division(op, inst)?
            }
            // A 64-bit index into a 32-bit vector reads its low dword (`element(0)`).
            Op::VectorExtractDynamic | Op::VectorInsertDynamic
                if !inst.result_type().is_some_and(|ty| self.is_wide_type(ty)) =>
            {
                if op == Op::VectorExtractDynamic {
                    self.lower_extract_dynamic(inst)?
                } else {
                    self.lower_insert_dynamic(inst)?
                }
            }
            Op::VectorExtractDynamic => self.wide_extract_dynamic(inst)?,
            Op::VectorInsertDynamic => self.wide_insert_dynamic(inst)?,
            _ => return self.lower_double_op(op, inst),
        };
        self.define(inst, value)
    }

    /// OpBitcast to or from a 64-bit type: the same dwords re-labelled (IL registers are
    /// untyped, amd-il.md §7.1): a double or 64-bit integer and a 2-vector of 32-bit values,
    /// a 2-vector of them and a 4-vector, or doubles and 64-bit integers of the same count.
    fn wide_bitcast(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let from = self.operand_shape(inst, 0)?;
        let to = self.result_shape(inst)?;
        if from.dwords() != to.dwords() {
            return Err(self.unsupported(inst, "OpBitcast between types of different sizes"));
        }
        let value = self.operand(inst, 0)?;
        if from.is_wide() == to.is_wide() {
            return Ok(value);
        }
        Ok(Value {
            wide: to.is_wide(),
            ..value
        })
    }

    /// UConvert / SConvert between 32- and 64-bit integers: widening puts the value in the low
    /// dword and zero or the sign (`ishr` by 31) in the high one; narrowing keeps the low
    /// dword (SPIR-V OpUConvert, OpSConvert).
    fn int_width_convert(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        let from = self.operand_shape(inst, 0)?;
        let to = self.result_shape(inst)?;
        let narrow = |shape: Shape| matches!(shape.scalar, Scalar::Int { .. });
        let x = self.operand(inst, 0)?;
        match (narrow(from), to.scalar) {
            (false, Scalar::Int { .. }) => {
                let lows: Vec<Value> = (0..self.members.width(&x))
                    .map(|i| {
                        let pair = self.members.extract(&x, i);
                        Value {
                            count: 1,
                            wide: false,
                            ..pair
                        }
                    })
                    .collect();
                Ok(self.gather(&lows))
            }
            (true, Scalar::Int64 { .. }) => {
                let count = from.count;
                let high = if op == spirv::Op::SConvert {
                    let thirty_one = self.word(31);
                    self.alu(Opcode::IShr, count, [x.src(), thirty_one.element(0)])
                } else {
                    self.word(0)
                };
                let result = self.wide_temp(usize::from(count));
                let mut moves = Vec::new();
                for i in 0..usize::from(count) {
                    let (part, position) = part_of(&self.members, &result, i);
                    let (x_i, h_i) = (self.members.extract(&x, i), self.members.extract(&high, i));
                    moves.push((part.reg, 2 * position, x_i.reg, x_i.comps[0]));
                    moves.push((part.reg, 2 * position + 1, h_i.reg, h_i.comps[0]));
                }
                self.move_dwords(&moves);
                Ok(result)
            }
            _ => Err(self.unsupported(
                inst,
                format!("Op{op:?} between these types (only 32- and 64-bit integers)"),
            )),
        }
    }

    /// IAdd, ISub, IMul and SNegate on 64-bit integers. `i64add` and `i64negate` are EG+
    /// (guide §7.7); the product's low 64 bits are lo·lo (`imul` and `umul_high`) plus the two
    /// cross products shifted up by 32 bits.
    fn int64_arith(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        use spirv::Op;
        let elements = usize::from(self.result_shape(inst)?.count);
        if op == Op::SNegate {
            self.require(inst, Opcode::I64Negate)?;
            let a = self.operand(inst, 0)?;
            return Ok(self.wide_op(Opcode::I64Negate, elements, &[&a]));
        }
        let a = self.operand(inst, 0)?;
        let b = self.operand(inst, 1)?;
        Ok(match op {
            Op::IAdd => {
                self.require(inst, Opcode::I64Add)?;
                self.wide_op(Opcode::I64Add, elements, &[&a, &b])
            }
            Op::ISub => {
                self.require(inst, Opcode::I64Negate)?;
                let minus_b = self.wide_op(Opcode::I64Negate, elements, &[&b]);
                self.wide_op(Opcode::I64Add, elements, &[&a, &minus_b])
            }
            _ => self.int64_multiply(elements, &a, &b),
        })
    }

    /// The low 64 bits of a·b per element: lo = lo(a)·lo(b) mod 2^32, hi = umul_high(lo(a),
    /// lo(b)) + lo(a)·hi(b) + hi(a)·lo(b) mod 2^32.
    fn int64_multiply(&mut self, elements: usize, a: &Value, b: &Value) -> Value {
        let result = self.wide_temp(elements);
        for i in 0..elements {
            let carry = self.alu(
                Opcode::UMulHigh,
                1,
                [low(&self.members, a, i), low(&self.members, b, i)],
            );
            let cross_a = self.alu(
                Opcode::IMul,
                1,
                [low(&self.members, a, i), high(&self.members, b, i)],
            );
            let cross_b = self.alu(
                Opcode::IMul,
                1,
                [high(&self.members, a, i), low(&self.members, b, i)],
            );
            let cross = self.alu(Opcode::IAdd, 1, [cross_a.src(), cross_b.src()]);
            self.emit(
                Inst::new(Opcode::IMul)
                    .dst(dword_dst(&self.members, &result, i, false))
                    .src(low(&self.members, a, i))
                    .src(low(&self.members, b, i)),
            );
            self.emit(
                Inst::new(Opcode::IAdd)
                    .dst(dword_dst(&self.members, &result, i, true))
                    .src(carry.src())
                    .src(cross.src()),
            );
        }
        result
    }

    /// Shifts with a 64-bit base or amount. `i64shl`, `i64shr` and `u64shr` take the amount from
    /// one replicated component and use its low six bits (guide §7.7, §7.8; amd-il.md §0.5),
    /// so each element is one instruction reading the low dword of its amount; amounts of 64
    /// or more are undefined in SPIR-V. A 32-bit base shifted by a 64-bit amount uses the
    /// 32-bit shift on the amount's low dword.
    fn wide_shift(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        use spirv::Op;
        let base_shape = self.operand_shape(inst, 0)?;
        let amount_shape = self.operand_shape(inst, 1)?;
        let base = self.operand(inst, 0)?;
        let amount = self.operand(inst, 1)?;
        let elements = usize::from(base_shape.count);
        let amount_of = move |members: &MemberValues, i: usize| {
            if amount_shape.is_wide() {
                low(members, &amount, i)
            } else {
                amount.element(i)
            }
        };
        if !base_shape.is_wide() {
            let il = match op {
                Op::ShiftLeftLogical => Opcode::IShl,
                Op::ShiftRightArithmetic => Opcode::IShr,
                _ => Opcode::UShr,
            };
            return Ok(self.narrow_each(il, elements, |members, i| {
                vec![base.element(i), amount_of(members, i)]
            }));
        }
        let il = match op {
            Op::ShiftLeftLogical => Opcode::I64Shl,
            Op::ShiftRightArithmetic => Opcode::I64Shr,
            _ => Opcode::U64Shr,
        };
        self.require(inst, il)?;
        Ok(self.wide_each(il, Control::NONE, elements, |members, i| {
            vec![members.pair(&base, i), amount_of(members, i)]
        }))
    }

    /// Integer compares of 64-bit operands: `i64eq`, `i64ne`, `i64lt`, `i64ge`, `u64lt`,
    /// `u64ge` (EG+), swapping the operands for the other directions.
    fn int64_compare(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        use spirv::Op;
        let (il, swap) = match op {
            Op::IEqual => (Opcode::I64Eq, false),
            Op::INotEqual => (Opcode::I64Ne, false),
            Op::SLessThan => (Opcode::I64Lt, false),
            Op::SGreaterThanEqual => (Opcode::I64Ge, false),
            Op::SGreaterThan => (Opcode::I64Lt, true),
            Op::SLessThanEqual => (Opcode::I64Ge, true),
            Op::ULessThan => (Opcode::U64Lt, false),
            Op::UGreaterThanEqual => (Opcode::U64Ge, false),
            Op::UGreaterThan => (Opcode::U64Lt, true),
            _ => (Opcode::U64Ge, true),
        };
        self.require(inst, il)?;
        let mut a = self.operand(inst, 0)?;
        let mut b = self.operand(inst, 1)?;
        if swap {
            std::mem::swap(&mut a, &mut b);
        }
        let elements = usize::from(self.result_shape(inst)?.count);
        Ok(self.narrow_each(il, elements, |members, i| {
            vec![members.pair(&a, i), members.pair(&b, i)]
        }))
    }

    /// UDiv, UMod, SDiv, SRem and SMod on 64-bit integers. IL has no documented 64-bit divide
    /// (amd-il.md §10.14, §10.28), so the quotient and remainder come from a restoring division
    /// loop over the 64 quotient bits; signed forms divide magnitudes and fix the signs as the
    /// 32-bit lowering does (amd-il.md §7.3). A zero divisor, undefined in SPIR-V, gives all
    /// ones, as in the 32-bit lowering.
    fn int64_division(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        use spirv::Op;
        for il in [
            Opcode::I64Shl,
            Opcode::U64Shr,
            Opcode::U64Ge,
            Opcode::I64Add,
            Opcode::I64Negate,
            Opcode::I64Max,
            Opcode::I64Lt,
        ] {
            self.require(inst, il)?;
        }
        let a = self.operand(inst, 0)?;
        let b = self.operand(inst, 1)?;
        let elements = usize::from(self.result_shape(inst)?.count);
        let signed = matches!(op, Op::SDiv | Op::SRem | Op::SMod);
        let (dividend, divisor) = if signed {
            (
                self.int64_magnitude(elements, &a),
                self.int64_magnitude(elements, &b),
            )
        } else {
            (a, b)
        };
        let (quotient, remainder) = self.unsigned_divide64(elements, &dividend, &divisor);
        let zero = self.wide_splat(0, elements);
        match op {
            Op::UDiv => Ok(quotient),
            Op::UMod => Ok(remainder),
            Op::SDiv => {
                let signs = self.dwords_op(Opcode::IXor, &[&a, &b]);
                let negative = self.narrow_each(Opcode::I64Lt, elements, |members, i| {
                    vec![members.pair(&signs, i), members.pair(&zero, i)]
                });
                Ok(self.negate_where(elements, &quotient, &negative))
            }
            _ => {
                let negative = self.narrow_each(Opcode::I64Lt, elements, |members, i| {
                    vec![members.pair(&a, i), members.pair(&zero, i)]
                });
                let remainder = self.negate_where(elements, &remainder, &negative);
                if op == Op::SRem {
                    return Ok(remainder);
                }
                // SMod: add the divisor to a non-zero remainder whose sign differs from it.
                let signs = self.dwords_op(Opcode::IXor, &[&remainder, &b]);
                let differ = self.narrow_each(Opcode::I64Lt, elements, |members, i| {
                    vec![members.pair(&signs, i), members.pair(&zero, i)]
                });
                let nonzero = self.narrow_each(Opcode::I64Ne, elements, |members, i| {
                    vec![members.pair(&remainder, i), members.pair(&zero, i)]
                });
                let adjust = self.alu(
                    Opcode::And,
                    count_u8(elements),
                    [differ.src(), nonzero.src()],
                );
                let adjusted = self.wide_op(Opcode::I64Add, elements, &[&remainder, &b]);
                Ok(self.select_wide(&adjust, &adjusted, &remainder))
            }
        }
    }

    /// |x| of 64-bit signed integers as `i64max(x, −x)` (INT64_MIN stays 2^63 read unsigned).
    fn int64_magnitude(&mut self, elements: usize, x: &Value) -> Value {
        let minus = self.wide_op(Opcode::I64Negate, elements, &[x]);
        self.wide_op(Opcode::I64Max, elements, &[x, &minus])
    }

    /// `value` negated (`i64negate`) where the boolean `mask` is true.
    pub(super) fn negate_where(&mut self, elements: usize, value: &Value, mask: &Value) -> Value {
        let minus = self.wide_op(Opcode::I64Negate, elements, &[value]);
        self.select_wide(mask, &minus, value)
    }

    /// Unsigned 64-bit division by the restoring method, one loop for all elements: for each
    /// bit i from 63 down, r = (r << 1) | bit i of a; if r ≥ b then r −= b and bit i of q is
    /// set. A zero divisor gives all ones for both results.
    fn unsigned_divide64(&mut self, elements: usize, a: &Value, b: &Value) -> (Value, Value) {
        let quotient = self.wide_temp(elements);
        let remainder = self.wide_temp(elements);
        let zero = self.wide_splat(0, elements);
        let one = self.wide_splat(1, elements);
        let (quotient_parts, remainder_parts) = (
            self.members.parts(&quotient),
            self.members.parts(&remainder),
        );
        for part in quotient_parts.iter().chain(remainder_parts.iter()) {
            let zero = self.members.parts(&zero)[0].src();
            self.emit_mov(dst_first(part.reg.num, part.count), zero);
        }
        let minus_b = self.wide_op(Opcode::I64Negate, elements, &[b]);
        let counter = self.regs.temp();
        let steps = self.word(DIVISION_STEPS);
        self.emit_mov(dst_first(counter, 1), steps.element(0));
        let counter = temp_value(counter, 1);
        self.emit(Inst::new(Opcode::While));
        self.emit(Inst::new(Opcode::BreakLogicalz).src(counter.element(0)));
        let minus_one = self.word(TRUE);
        self.emit(
            Inst::new(Opcode::IAdd)
                .dst(dst_first(counter.reg.num, 1))
                .src(counter.element(0))
                .src(minus_one.element(0)),
        );
        let bit_position = counter.element(0);
        let shifted = self.wide_each(Opcode::I64Shl, Control::NONE, elements, |members, i| {
            vec![members.pair(&remainder, i), one.element(0)]
        });
        let bits = self.wide_each(Opcode::U64Shr, Control::NONE, elements, |members, i| {
            vec![members.pair(a, i), bit_position]
        });
        let bit = self.dwords_op(Opcode::And, &[&bits, &one]);
        let widened = self.dwords_op(Opcode::IOr, &[&shifted, &bit]);
        let fits = self.narrow_each(Opcode::U64Ge, elements, |members, i| {
            vec![members.pair(&widened, i), members.pair(b, i)]
        });
        let reduced = self.wide_op(Opcode::I64Add, elements, &[&widened, &minus_b]);
        let next = self.select_wide(&fits, &reduced, &widened);
        let place = self.wide_each(Opcode::I64Shl, Control::NONE, elements, |members, i| {
            vec![members.pair(&one, i), bit_position]
        });
        let set = self.select_wide(&fits, &place, &zero);
        let grown = self.dwords_op(Opcode::IOr, &[&quotient, &set]);
        for (target, source) in [(&remainder, &next), (&quotient, &grown)] {
            for (t, s) in self
                .members
                .parts(target)
                .iter()
                .zip(self.members.parts(source).iter())
            {
                self.emit_mov(dst_first(t.reg.num, t.count), s.src());
            }
        }
        self.emit(Inst::new(Opcode::Endloop));
        let by_zero = self.narrow_each(Opcode::I64Eq, elements, |members, i| {
            vec![members.pair(b, i), members.pair(&zero, i)]
        });
        let all_ones = self.wide_splat(u64::MAX, elements);
        let quotient = self.select_wide(&by_zero, &all_ones, &quotient);
        let remainder = self.select_wide(&by_zero, &all_ones, &remainder);
        (quotient, remainder)
    }

    /// OpVectorExtractDynamic on a 64-bit vector: a constant index re-labels; otherwise a
    /// `cmov_logical` chain over the elements, comparing the index with each position.
    fn wide_extract_dynamic(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let vector = self.operand(inst, 0)?;
        let index = self.operand(inst, 1)?;
        let width = self.members.width(&vector);
        if let Some(constant) = self
            .regs
            .constant_words(&index)
            .and_then(|w| w.first().copied())
        {
            return Ok(self
                .members
                .extract(&vector, (constant as usize).min(width.saturating_sub(1))));
        }
        let mut current = self.members.extract(&vector, 0);
        for i in 1..width {
            let position = self.word(u32::try_from(i).unwrap_or(u32::MAX));
            let is = self.alu(Opcode::IEq, 1, [index.element(0), position.element(0)]);
            let element = self.members.extract(&vector, i);
            current = self.select_wide(&is, &element, &current);
        }
        Ok(current)
    }

    /// OpVectorInsertDynamic on a 64-bit vector: each element replaced where the index names it.
    fn wide_insert_dynamic(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let vector = self.operand(inst, 0)?;
        let component = self.operand(inst, 1)?;
        let index = self.operand(inst, 2)?;
        let width = self.members.width(&vector);
        let positions: Vec<u32> = (0u32..).take(width).collect();
        let positions = self.regs.vector(&positions);
        let is = self.alu(
            Opcode::IEq,
            count_u8(width),
            [index.element(0), positions.src()],
        );
        let spread: Vec<Value> = (0..width)
            .map(|_| self.members.extract(&component, 0))
            .collect();
        let spread = self.gather_wide(&spread);
        Ok(self.select_wide(&is, &spread, &vector))
    }
}

/// An element or component count as a `u8` (counts here are at most 4).
pub(super) fn count_u8(n: usize) -> u8 {
    u8::try_from(n.clamp(1, 4)).unwrap_or(4)
}
