//! The GLSL.std.450 extended instructions (`OpExtInst` with that set; spirv.md §7).
//!
//! Where IL has a per-component instruction it is used (`round_nearest`, `frc`, `sqrt_vec`,
//! `min_ieee`, ...). The scalar IL operations that read `.w` and broadcast (amd-il.md §0.4:
//! `asin`, `acos`, `atan`) run once per component. Everything else is written with the formula
//! from which Vulkan says its precision is inherited ("Precision and Operation of SPIR-V
//! Instructions"): Tan = sin/cos, Pow = exp2(y·log2 x), Exp = exp2(x·log2 e), the hyperbolic
//! functions from exp, Length = sqrt(dot(x, x)), Normalize = x / length(x), FMix =
//! x·(1−a) + y·a, Fma = a·b + c, and so on, so the results are those Vulkan allows.
//!
//! Approximations IL imposes, beyond Vulkan's bounds where noted:
//! * `sin_vec`/`cos_vec` have an absolute error up to 8e-4 on [−100π, 100π] (guide SIN_VEC;
//!   Vulkan asks 2^-11 ≈ 4.9e-4 on [−π, π]); Tan inherits it.
//! * `asin`, `acos`, `atan` have an absolute error up to 0.002 (guide ASIN/ACOS/ATAN), so Asin,
//!   Acos, Atan and Atan2 can exceed Vulkan's 4096-ULP bound near 0.
//! * `exp_vec`, `log_vec` are accurate to at least 21 bits; `sqrt_vec`, `rsq_vec` are
//!   "approximate" (guide), as is `div`, whose precision the guide does not state.
//! * Fma is `mad_ieee`, not fused: the fused `fma` exists only on double-capable Evergreen
//!   parts, and Vulkan lets Fma inherit its precision from a multiply and an add.
//! * fp32 denormals are flushed by every IL float instruction (amd-il.md §7.2); Vulkan allows
//!   that unless the module asks for DenormPreserve.

use il_model::{Control, Inst, Opcode, Src, Srcs, ZeroOp};
use spv_reader::Inst as SpvInst;

use super::Lowerer;
use super::ops::{INFINITY_BITS, MAGNITUDE_BITS, SIGN_BIT, absolute, negated, temp_value};
use super::values::{MemberRange, MemberValues, Value, XYZW, dst_at};
use crate::error::Error;

/// GLSL.std.450 instruction numbers (the extended-instruction specification, seed 004).
mod number {
    pub const ROUND: u32 = 1;
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const F_ABS: u32 = 4;
    pub const S_ABS: u32 = 5;
    pub const F_SIGN: u32 = 6;
    pub const S_SIGN: u32 = 7;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const FRACT: u32 = 10;
    pub const RADIANS: u32 = 11;
    pub const DEGREES: u32 = 12;
    pub const SIN: u32 = 13;
    pub const COS: u32 = 14;
    pub const TAN: u32 = 15;
    pub const ASIN: u32 = 16;
    pub const ACOS: u32 = 17;
    pub const ATAN: u32 = 18;
    pub const SINH: u32 = 19;
    pub const COSH: u32 = 20;
    pub const TANH: u32 = 21;
    pub const ASINH: u32 = 22;
    pub const ACOSH: u32 = 23;
    pub const ATANH: u32 = 24;
    pub const ATAN2: u32 = 25;
    pub const POW: u32 = 26;
    pub const EXP: u32 = 27;
    pub const LOG: u32 = 28;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
    pub const DETERMINANT: u32 = 33;
    pub const MATRIX_INVERSE: u32 = 34;
    pub const MODF: u32 = 35;
    pub const MODF_STRUCT: u32 = 36;
    pub const F_MIN: u32 = 37;
    pub const U_MIN: u32 = 38;
    pub const S_MIN: u32 = 39;
    pub const F_MAX: u32 = 40;
    pub const U_MAX: u32 = 41;
    pub const S_MAX: u32 = 42;
    pub const F_CLAMP: u32 = 43;
    pub const U_CLAMP: u32 = 44;
    pub const S_CLAMP: u32 = 45;
    pub const F_MIX: u32 = 46;
    pub const I_MIX: u32 = 47;
    pub const STEP: u32 = 48;
    pub const SMOOTH_STEP: u32 = 49;
    pub const FMA: u32 = 50;
    pub const FREXP: u32 = 51;
    pub const FREXP_STRUCT: u32 = 52;
    pub const LDEXP: u32 = 53;
    pub const PACK_SNORM_4X8: u32 = 54;
    pub const PACK_UNORM_4X8: u32 = 55;
    pub const PACK_SNORM_2X16: u32 = 56;
    pub const PACK_UNORM_2X16: u32 = 57;
    pub const PACK_HALF_2X16: u32 = 58;
    pub const PACK_DOUBLE_2X32: u32 = 59;
    pub const UNPACK_SNORM_2X16: u32 = 60;
    pub const UNPACK_UNORM_2X16: u32 = 61;
    pub const UNPACK_HALF_2X16: u32 = 62;
    pub const UNPACK_SNORM_4X8: u32 = 63;
    pub const UNPACK_UNORM_4X8: u32 = 64;
    pub const UNPACK_DOUBLE_2X32: u32 = 65;
    pub const LENGTH: u32 = 66;
    pub const DISTANCE: u32 = 67;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
    pub const FACE_FORWARD: u32 = 70;
    pub const REFLECT: u32 = 71;
    pub const REFRACT: u32 = 72;
    pub const FIND_I_LSB: u32 = 73;
    pub const FIND_S_MSB: u32 = 74;
    pub const FIND_U_MSB: u32 = 75;
    pub const INTERPOLATE_AT_CENTROID: u32 = 76;
    pub const INTERPOLATE_AT_OFFSET: u32 = 78;
    pub const N_MIN: u32 = 79;
    pub const N_MAX: u32 = 80;
    pub const N_CLAMP: u32 = 81;
}

/// `div_zeroop(infinity)`: IEEE-like ±Inf for a zero divisor (amd-il.md §0.6).
fn divide() -> Control {
    Control::zeroop(ZeroOp::Infinity)
}

/// The `_neg` pattern that negates the components `signs` marks.
fn with_signs(mut src: Src, signs: [bool; 4]) -> Src {
    let mask = (signs.iter())
        .enumerate()
        .fold(0u8, |mask, (k, &sign)| mask | u8::from(sign) << k);
    src.mods = src.mods.with_neg_mask(mask);
    src
}

/// `value` with its elements re-labelled: element i of the result is element `order[i]`.
fn permuted(members: &MemberValues, value: &Value, order: &[usize]) -> Value {
    let mut comps = XYZW;
    for (slot, index) in comps.iter_mut().zip(order) {
        *slot = members.extract(value, *index).comps[0];
    }
    Value {
        reg: value.reg,
        comps,
        count: u8::try_from(order.len().clamp(1, 4)).unwrap_or(4),
        members: MemberRange::default(),
        wide: false,
    }
}

impl Lowerer<'_> {
    /// `OpExtInst`: GLSL.std.450 instructions; other non-NonSemantic sets are not supported.
    pub(super) fn lower_ext_inst(&mut self, inst: SpvInst<'_>) -> Result<(), Error> {
        // OpExtInst has a Result Type and a Result id: the instruction is split once.
        let (result_type, result, operands) = super::typed_parts(inst);
        let set = self.operand_id_in(inst, operands, 0)?;
        if self.ext_set(set) != super::ExtSet::Glsl {
            let name = self.module.ext_inst_set(set).unwrap_or("an unknown set");
            return Err(self.unsupported(inst, format!("extended instructions of {name}")));
        }
        let Some(number) = operands.get(1).copied() else {
            return Err(self.unsupported(inst, "an OpExtInst without an instruction number"));
        };
        let value = if self.touches_wide_parts(result_type, operands.get(2..).unwrap_or_default()) {
            self.lower_glsl_wide(number, inst)?
        } else {
            self.lower_glsl(number, inst)?
        };
        let result =
            result.ok_or_else(|| self.unsupported(inst, "an operation without a result"))?;
        self.define_fresh(result, value);
        Ok(())
    }

    /// Argument `k` of a GLSL.std.450 instruction whose operand words are `operands` (from
    /// [`super::typed_parts`]: set, instruction number, then the arguments).
    fn arg(&mut self, inst: SpvInst<'_>, operands: &[u32], k: usize) -> Result<Value, Error> {
        self.operand_in(inst, operands, 2 + k)
    }

    /// [`Lowerer::arg`] as a source operand, read in place (no copy of the value).
    fn arg_src(&mut self, inst: SpvInst<'_>, operands: &[u32], k: usize) -> Result<Src, Error> {
        self.operand_src_in(inst, operands, 2 + k)
    }

    /// One GLSL.std.450 instruction's value.
    // Out of line: with its rare instructions gone (see `lower_glsl_rare`), it would be inlined
    // into `lower_ext_inst` and on into the block loop, whose other instructions would then run
    // in code spread over more cache lines.
    #[inline(never)]
    fn lower_glsl(&mut self, code: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (result_type, _, operands) = super::typed_parts(inst);
        use self::number as n;
        let number = code;
        // Instructions that are one IL instruction on their arguments.
        let simple = match number {
            n::ROUND | n::ROUND_EVEN => Some(Opcode::RoundNear),
            n::TRUNC => Some(Opcode::RoundZero),
            n::FLOOR => Some(Opcode::RoundNegInf),
            n::CEIL => Some(Opcode::RoundPlusInf),
            n::FRACT => Some(Opcode::Frc),
            n::SIN => Some(Opcode::SinVec),
            n::COS => Some(Opcode::CosVec),
            n::EXP2 => Some(Opcode::ExpVec),
            n::LOG2 => Some(Opcode::LogVec),
            n::SQRT => Some(Opcode::SqrtVec),
            n::INVERSE_SQRT => Some(Opcode::RsqVec),
            n::U_MIN => Some(Opcode::UMin),
            n::S_MIN => Some(Opcode::IMin),
            n::U_MAX => Some(Opcode::UMax),
            n::S_MAX => Some(Opcode::IMax),
            // GLSL Round may round halves either way; it is RoundEven here, as `rnd` is
            // floor(x + 0.5) (amd-il.md §7.2). F_CLAMP's NaN and ±0 results are undefined, so
            // the one-instruction `clamp` serves.
            n::F_CLAMP => Some(Opcode::Clamp),
            _ => None,
        };
        if let Some(op) = simple {
            let count = self.shape_of_result(inst, result_type)?.count;
            // At most three arguments: they stay inline, no allocation.
            let mut sources = Srcs::new();
            for k in 0..operands.len().saturating_sub(2) {
                sources.push(self.arg_src(inst, operands, k)?);
            }
            return Ok(self.alu_srcs(op, Control::NONE, count, sources));
        }
        match number {
            // IEEE-754r minNum/maxNum: a NaN operand loses, which is also NMin/NMax's rule.
            n::F_MIN | n::N_MIN | n::F_MAX | n::N_MAX => {
                let x = self.arg_src(inst, operands, 0)?;
                let y = self.arg_src(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let op = if matches!(number, n::F_MIN | n::N_MIN) {
                    Opcode::Min
                } else {
                    Opcode::Max
                };
                Ok(self.alu_c(op, Control::IEEE, count, [x, y]))
            }
            n::N_CLAMP | n::U_CLAMP | n::S_CLAMP => {
                let x = self.arg_src(inst, operands, 0)?;
                let low = self.arg_src(inst, operands, 1)?;
                let high = self.arg_src(inst, operands, 2)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let (max, min, ctrl) = match number {
                    n::N_CLAMP => (Opcode::Max, Opcode::Min, Control::IEEE),
                    n::U_CLAMP => (Opcode::UMax, Opcode::UMin, Control::NONE),
                    _ => (Opcode::IMax, Opcode::IMin, Control::NONE),
                };
                let raised = self.alu_c(max, ctrl, count, [x, low]);
                Ok(self.alu_c(min, ctrl, count, [raised.src(), high]))
            }
            n::F_ABS => {
                let x = self.arg_src(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                Ok(self.alu(Opcode::Mov, count, [absolute(x)]))
            }
            n::POW => {
                let x = self.arg_src(inst, operands, 0)?;
                let y = self.arg_src(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let log = self.alu(Opcode::LogVec, count, [x]);
                let product = self.alu_c(Opcode::Mul, Control::IEEE, count, [y, log.src()]);
                Ok(self.alu(Opcode::ExpVec, count, [product.src()]))
            }
            n::F_MIX => {
                // lrp t, a, b = a·t + b·(1 − t) (guide LRP): y·a + x·(1 − a).
                let x = self.arg_src(inst, operands, 0)?;
                let y = self.arg_src(inst, operands, 1)?;
                let a = self.arg_src(inst, operands, 2)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                Ok(self.alu(Opcode::Lrp, count, [a, y, x]))
            }
            n::FMA => {
                let a = self.arg(inst, operands, 0)?;
                let b = self.arg(inst, operands, 1)?;
                let c = self.arg(inst, operands, 2)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                Ok(self.alu_c(
                    Opcode::Mad,
                    Control::IEEE,
                    count,
                    [a.src(), b.src(), c.src()],
                ))
            }
            n::LENGTH => {
                let x = self.arg(inst, operands, 0)?;
                Ok(self.length(&x))
            }
            n::CROSS => {
                let x = self.arg(inst, operands, 0)?;
                let y = self.arg(inst, operands, 1)?;
                Ok(self.cross(&x, &y))
            }
            n::NORMALIZE => {
                let x = self.arg(inst, operands, 0)?;
                let length = self.length(&x);
                Ok(self.float_divide(x.count, &x, &length))
            }
            // The rest, rarely met, out of line (see `lower_glsl_rare`).
            _ => self.lower_glsl_rare(number, inst),
        }
    }

    /// The GLSL.std.450 instructions [`Lowerer::lower_glsl`] does not lower itself.
    // Out of line: rare instructions, which inlined would spread `lower_glsl`'s code over many
    // cache lines and make its common instructions miss the instruction cache.
    #[inline(never)]
    fn lower_glsl_rare(&mut self, number: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        use self::number as n;
        match number {
            n::S_ABS => {
                // imax(x, −x): INT_MIN stays INT_MIN, the wrapped value SPIR-V expects.
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                Ok(self.alu(Opcode::IMax, count, [x.src(), negated(x.src())]))
            }
            n::F_SIGN => {
                // `sgn` gives +0.0 for −0.0; the sign bit of x restores FSign(−0) = −0.
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let sign = self.alu(Opcode::Sgn, count, [x.src()]);
                self.copy_sign(count, &sign, &x)
            }
            n::S_SIGN => {
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let minus_one = self.word(u32::MAX);
                let one = self.word(1);
                let raised = self.alu(Opcode::IMax, count, [x.src(), minus_one.src()]);
                Ok(self.alu(Opcode::IMin, count, [raised.src(), one.src()]))
            }
            n::RADIANS | n::DEGREES => {
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                // The factors rounded once from double precision (180/π computed in single
                // precision would be one ULP low).
                let factor = if number == n::RADIANS {
                    (std::f64::consts::PI / 180.0) as f32
                } else {
                    (180.0 / std::f64::consts::PI) as f32
                };
                self.scale(count, &x, factor)
            }
            n::TAN => {
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let sin = self.alu(Opcode::SinVec, count, [x.src()]);
                let cos = self.alu(Opcode::CosVec, count, [x.src()]);
                Ok(self.float_divide(count, &sin, &cos))
            }
            n::ASIN | n::ACOS | n::ATAN => {
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let op = match number {
                    n::ASIN => Opcode::Asin,
                    n::ACOS => Opcode::Acos,
                    _ => Opcode::Atan,
                };
                Ok(self.alu_each(op, count, &[&x]))
            }
            n::ATAN2 => self.atan2(inst),
            n::SINH | n::COSH | n::TANH => self.hyperbolic(number, inst),
            n::ASINH | n::ACOSH | n::ATANH => self.inverse_hyperbolic(number, inst),
            n::EXP => {
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let power = self.scale(count, &x, std::f32::consts::LOG2_E)?;
                Ok(self.alu(Opcode::ExpVec, count, [power.src()]))
            }
            n::LOG => {
                let x = self.arg(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let log2 = self.alu(Opcode::LogVec, count, [x.src()]);
                self.scale(count, &log2, std::f32::consts::LN_2)
            }
            n::DETERMINANT => {
                let matrix = self.arg(inst, operands, 0)?;
                let columns = self.square_columns(inst, &matrix)?;
                Ok(self.determinant(&columns))
            }
            n::MATRIX_INVERSE => {
                let matrix = self.arg(inst, operands, 0)?;
                let columns = self.square_columns(inst, &matrix)?;
                self.inverse(inst, &columns)
            }
            n::MODF_STRUCT => {
                let x = self.arg(inst, operands, 0)?;
                let (fraction, whole) = self.modf(&x);
                Ok(self.members.aggregate(&[fraction, whole]))
            }
            n::FREXP_STRUCT => {
                let x = self.arg(inst, operands, 0)?;
                let (significand, exponent) = self.frexp(&x);
                Ok(self.members.aggregate(&[significand, exponent]))
            }
            // The deprecated forms return one part and store the other through a pointer.
            n::MODF => {
                let x = self.arg(inst, operands, 0)?;
                let (fraction, whole) = self.modf(&x);
                self.store_through(inst, 3, &whole)?;
                Ok(fraction)
            }
            n::FREXP => {
                let x = self.arg(inst, operands, 0)?;
                let (significand, exponent) = self.frexp(&x);
                self.store_through(inst, 3, &exponent)?;
                Ok(significand)
            }
            n::STEP => {
                // 0.0 if x < edge, else 1.0 (also for NaN).
                let edge = self.arg(inst, operands, 0)?;
                let x = self.arg(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let below = self.alu(Opcode::Lt, count, [x.src(), edge.src()]);
                let zero = self.float(0.0);
                let one = self.float(1.0);
                Ok(self.alu(
                    Opcode::CmovLogical,
                    count,
                    [below.src(), zero.src(), one.src()],
                ))
            }
            n::SMOOTH_STEP => self.smooth_step(inst),
            n::LDEXP => self.ldexp(inst),
            n::PACK_SNORM_4X8 | n::PACK_UNORM_4X8 | n::PACK_SNORM_2X16 | n::PACK_UNORM_2X16 => {
                self.pack_norm(number, inst)
            }
            n::UNPACK_SNORM_4X8
            | n::UNPACK_UNORM_4X8
            | n::UNPACK_SNORM_2X16
            | n::UNPACK_UNORM_2X16 => self.unpack_norm(number, inst),
            n::PACK_HALF_2X16 => {
                // Component 0 in bits 0–15, component 1 in bits 16–31 (spirv.md §7).
                self.require(inst, Opcode::F2F16)?;
                let v = self.arg(inst, operands, 0)?;
                let halves = self.alu(Opcode::F2F16, 2, [v.src()]);
                let sixteen = self.word(16);
                let high = self.alu(Opcode::IShl, 1, [halves.element(1), sixteen.src()]);
                Ok(self.alu(Opcode::IOr, 1, [halves.element(0), high.src()]))
            }
            n::UNPACK_HALF_2X16 => {
                // `f162f` reads the low 16 bits of each component, exactly (guide F16_2_F).
                self.require(inst, Opcode::F162F)?;
                let p = self.arg(inst, operands, 0)?;
                let sixteen = self.word(16);
                let high = self.alu(Opcode::UShr, 1, [p.element(0), sixteen.src()]);
                let reg = self.regs.temp();
                self.emit(
                    Inst::new(Opcode::F162F)
                        .dst(dst_at(reg, 0))
                        .src(p.element(0)),
                );
                self.emit(Inst::new(Opcode::F162F).dst(dst_at(reg, 1)).src(high.src()));
                Ok(temp_value(reg, 2))
            }
            n::DISTANCE => {
                let p0 = self.arg(inst, operands, 0)?;
                let p1 = self.arg(inst, operands, 1)?;
                let difference = self.alu(Opcode::Add, p0.count, [p0.src(), negated(p1.src())]);
                Ok(self.length(&difference))
            }
            n::FACE_FORWARD => {
                // N if dot(Nref, I) < 0, else −N.
                let normal = self.arg(inst, operands, 0)?;
                let incident = self.arg(inst, operands, 1)?;
                let reference = self.arg(inst, operands, 2)?;
                let dot = self.dot(&reference, &incident, 1);
                let zero = self.float(0.0);
                let facing = self.alu(Opcode::Lt, 1, [dot.src(), zero.src()]);
                Ok(self.alu(
                    Opcode::CmovLogical,
                    normal.count,
                    [facing.element(0), normal.src(), negated(normal.src())],
                ))
            }
            n::REFLECT => {
                // I − 2·dot(N, I)·N; doubling is exact, so dot + dot.
                let incident = self.arg(inst, operands, 0)?;
                let normal = self.arg(inst, operands, 1)?;
                let dot = self.dot(&normal, &incident, 1);
                let twice = self.alu(Opcode::Add, 1, [dot.src(), dot.src()]);
                Ok(self.alu_c(
                    Opcode::Mad,
                    Control::IEEE,
                    incident.count,
                    [normal.src(), negated(twice.element(0)), incident.src()],
                ))
            }
            n::REFRACT => self.refract(inst),
            n::FIND_I_LSB | n::FIND_U_MSB | n::FIND_S_MSB => self.find_bit(number, inst),
            n::I_MIX => Err(self.unsupported(
                inst,
                "GLSL.std.450 instruction 47 (IMix, removed from the specification)",
            )),
            n::PACK_DOUBLE_2X32 | n::UNPACK_DOUBLE_2X32 => Err(self.unsupported(
                inst,
                "GLSL.std.450 PackDouble2x32 / UnpackDouble2x32 (64-bit floats)",
            )),
            n::INTERPOLATE_AT_CENTROID..=n::INTERPOLATE_AT_OFFSET => Err(self.unsupported(
                inst,
                "GLSL.std.450 interpolation functions (fragment shaders only)",
            )),
            _ => Err(self.unsupported(inst, format!("GLSL.std.450 instruction {number}"))),
        }
    }

    /// Stores `value` through the pointer in operand word `n` of `inst` (Modf's and Frexp's
    /// second result). The pointer must designate a register-backed Function variable or an
    /// element of one, which is what compilers pass (a local `out` argument).
    pub(super) fn store_through(
        &mut self,
        inst: SpvInst<'_>,
        n: usize,
        value: &Value,
    ) -> Result<(), Error> {
        let pointer = self.operand_id(inst, n)?;
        let place = self.place(pointer, inst)?;
        let ty = self
            .module
            .result_type(pointer)
            .and_then(|ty| super::types::pointer_parts(self.module, ty))
            .map(|(_, pointee)| pointee)
            .ok_or_else(|| self.unsupported(inst, "Modf or Frexp storing through a non-pointer"))?;
        self.store_place(inst, place, ty, value, 0)
    }

    /// `x · factor` (`mul_ieee`) for a float constant factor.
    fn scale(&mut self, count: u8, x: &Value, factor: f32) -> Result<Value, Error> {
        let factor = self.float(factor);
        Ok(self.alu_c(Opcode::Mul, Control::IEEE, count, [x.src(), factor.src()]))
    }

    /// `magnitude` with the sign bit of `sign` or-ed in: for values whose own sign is already
    /// that of `sign` unless they are +0.
    fn copy_sign(&mut self, count: u8, magnitude: &Value, sign: &Value) -> Result<Value, Error> {
        let sign_mask = self.word(SIGN_BIT);
        let bit = self.alu(Opcode::And, count, [sign.src(), sign_mask.src()]);
        Ok(self.alu(Opcode::IOr, count, [magnitude.src(), bit.src()]))
    }

    /// Atan2(y, x) = atan(y/x), plus π with the sign of y when x < 0. The sign of y is read
    /// from its bits so that Atan2(−0, −1) = −π.
    fn atan2(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (result_type, _, operands) = super::typed_parts(inst);
        let y = self.arg(inst, operands, 0)?;
        let x = self.arg(inst, operands, 1)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        let ratio = self.float_divide(count, &y, &x);
        let angle = self.alu_each(Opcode::Atan, count, &[&ratio]);
        let zero = self.float(0.0);
        let left = self.alu(Opcode::Lt, count, [x.src(), zero.src()]);
        let pi = self.float(std::f32::consts::PI);
        let signed_pi = self.copy_sign(count, &pi, &y)?;
        let adjust = self.alu(Opcode::And, count, [left.src(), signed_pi.src()]);
        Ok(self.alu(Opcode::Add, count, [angle.src(), adjust.src()]))
    }

    /// Sinh = (e^x − e^−x)/2, Cosh = (e^x + e^−x)/2, Tanh = (e^x − e^−x)/(e^x + e^−x) with x
    /// clamped to [−10, 10] first (beyond, tanh is ±1 in f32 and e^x would overflow).
    fn hyperbolic(&mut self, number: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (result_type, _, operands) = super::typed_parts(inst);
        let mut x = self.arg(inst, operands, 0)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        if number == number::TANH {
            let low = self.float(-10.0);
            let high = self.float(10.0);
            x = self.alu(Opcode::Clamp, count, [x.src(), low.src(), high.src()]);
        }
        let power = self.scale(count, &x, std::f32::consts::LOG2_E)?;
        let up = self.alu(Opcode::ExpVec, count, [power.src()]);
        let down = self.alu(Opcode::ExpVec, count, [negated(power.src())]);
        let difference =
            |this: &mut Self| this.alu(Opcode::Add, count, [up.src(), negated(down.src())]);
        let sum = |this: &mut Self| this.alu(Opcode::Add, count, [up.src(), down.src()]);
        match number {
            number::SINH => {
                let difference = difference(self);
                self.scale(count, &difference, 0.5)
            }
            number::COSH => {
                let sum = sum(self);
                self.scale(count, &sum, 0.5)
            }
            _ => {
                let difference = difference(self);
                let sum = sum(self);
                Ok(self.float_divide(count, &difference, &sum))
            }
        }
    }

    /// Asinh = sign(x)·ln(|x| + √(x² + 1)), Acosh = ln(x + √(x² − 1)),
    /// Atanh = ½·ln((1 + x)/(1 − x)).
    fn inverse_hyperbolic(&mut self, number: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (result_type, _, operands) = super::typed_parts(inst);
        let x = self.arg(inst, operands, 0)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        let one = self.float(1.0);
        let ln = |this: &mut Self, value: &Value, factor: f32| -> Result<Value, Error> {
            let log2 = this.alu(Opcode::LogVec, count, [value.src()]);
            this.scale(count, &log2, factor)
        };
        match number {
            number::ASINH => {
                let magnitude = self.alu(Opcode::Mov, count, [absolute(x.src())]);
                let square = self.alu_c(
                    Opcode::Mad,
                    Control::IEEE,
                    count,
                    [magnitude.src(), magnitude.src(), one.src()],
                );
                let root = self.alu(Opcode::SqrtVec, count, [square.src()]);
                let sum = self.alu(Opcode::Add, count, [magnitude.src(), root.src()]);
                let result = ln(self, &sum, std::f32::consts::LN_2)?;
                self.copy_sign(count, &result, &x)
            }
            number::ACOSH => {
                let square = self.alu_c(
                    Opcode::Mad,
                    Control::IEEE,
                    count,
                    [x.src(), x.src(), negated(one.src())],
                );
                let root = self.alu(Opcode::SqrtVec, count, [square.src()]);
                let sum = self.alu(Opcode::Add, count, [x.src(), root.src()]);
                ln(self, &sum, std::f32::consts::LN_2)
            }
            _ => {
                let numerator = self.alu(Opcode::Add, count, [one.src(), x.src()]);
                let denominator = self.alu(Opcode::Add, count, [one.src(), negated(x.src())]);
                let ratio = self.float_divide(count, &numerator, &denominator);
                ln(self, &ratio, 0.5 * std::f32::consts::LN_2)
            }
        }
    }

    /// SmoothStep: t·t·(3 − 2t) with t = clamp((x − e0)/(e1 − e0), 0, 1).
    fn smooth_step(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (result_type, _, operands) = super::typed_parts(inst);
        let edge0 = self.arg(inst, operands, 0)?;
        let edge1 = self.arg(inst, operands, 1)?;
        let x = self.arg(inst, operands, 2)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        let offset = self.alu(Opcode::Add, count, [x.src(), negated(edge0.src())]);
        let span = self.alu(Opcode::Add, count, [edge1.src(), negated(edge0.src())]);
        let ratio = self.float_divide(count, &offset, &span);
        let zero = self.float(0.0);
        let one = self.float(1.0);
        let t = self.alu(Opcode::Clamp, count, [ratio.src(), zero.src(), one.src()]);
        let minus_two = self.float(-2.0);
        let three = self.float(3.0);
        let factor = self.alu_c(
            Opcode::Mad,
            Control::IEEE,
            count,
            [t.src(), minus_two.src(), three.src()],
        );
        let square = self.alu_c(Opcode::Mul, Control::IEEE, count, [t.src(), t.src()]);
        Ok(self.alu_c(
            Opcode::Mul,
            Control::IEEE,
            count,
            [square.src(), factor.src()],
        ))
    }

    /// ModfStruct: whole = trunc(x); fraction = x − whole, 0 for ±Inf, with x's sign (so
    /// modf(−2) = {−0, −2}, spirv.md §7).
    fn modf(&mut self, x: &Value) -> (Value, Value) {
        let count = x.count;
        let whole = self.alu(Opcode::RoundZero, count, [x.src()]);
        let fraction = self.alu(Opcode::Add, count, [x.src(), negated(whole.src())]);
        let magnitude_mask = self.word(MAGNITUDE_BITS);
        let infinity = self.word(INFINITY_BITS);
        let magnitude = self.alu(Opcode::And, count, [x.src(), magnitude_mask.src()]);
        let finite = self.alu(Opcode::INe, count, [magnitude.src(), infinity.src()]);
        let fraction = self.alu(Opcode::And, count, [fraction.src(), finite.src()]);
        let sign_mask = self.word(SIGN_BIT);
        let sign = self.alu(Opcode::And, count, [x.src(), sign_mask.src()]);
        let fraction = self.alu(Opcode::IOr, count, [fraction.src(), sign.src()]);
        (fraction, whole)
    }

    /// FrexpStruct from the bits: exponent = field − 126, significand = x with its exponent
    /// field set to 126 (so |significand| ∈ [0.5, 1)). Zero and denormals (which IL float
    /// instructions flush, amd-il.md §7.2) give ±0 and 0; Inf and NaN are undefined.
    fn frexp(&mut self, x: &Value) -> (Value, Value) {
        let count = x.count;
        let twenty_three = self.word(23);
        let byte = self.word(0xFF);
        let shifted = self.alu(Opcode::UShr, count, [x.src(), twenty_three.src()]);
        let field = self.alu(Opcode::And, count, [shifted.src(), byte.src()]);
        let bias = self.word(126);
        let unbiased = self.alu(Opcode::IAdd, count, [field.src(), negated(bias.src())]);
        let zero = self.word(0);
        let exponent = self.alu(
            Opcode::CmovLogical,
            count,
            [field.src(), unbiased.src(), zero.src()],
        );
        let keep = self.word(SIGN_BIT | 0x007F_FFFF);
        let half = self.word(0x3F00_0000);
        let kept = self.alu(Opcode::And, count, [x.src(), keep.src()]);
        let scaled = self.alu(Opcode::IOr, count, [kept.src(), half.src()]);
        let sign_mask = self.word(SIGN_BIT);
        let signed_zero = self.alu(Opcode::And, count, [x.src(), sign_mask.src()]);
        let significand = self.alu(
            Opcode::CmovLogical,
            count,
            [field.src(), scaled.src(), signed_zero.src()],
        );
        (significand, exponent)
    }

    /// Ldexp(x, e) = x·2^h·2^(e−h) with h = e/2 (arithmetic shift) and e clamped to
    /// [−252, 254], so that both factors are normal floats built from their exponent bits and
    /// every result that is a normal float (and more) is computed exactly.
    fn ldexp(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (result_type, _, operands) = super::typed_parts(inst);
        let x = self.arg(inst, operands, 0)?;
        let exponent = self.arg(inst, operands, 1)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        let low = self.word((-252i32) as u32);
        let high = self.word(254);
        let raised = self.alu(Opcode::IMax, count, [exponent.src(), low.src()]);
        let clamped = self.alu(Opcode::IMin, count, [raised.src(), high.src()]);
        let one = self.word(1);
        let half = self.alu(Opcode::IShr, count, [clamped.src(), one.src()]);
        let rest = self.alu(Opcode::IAdd, count, [clamped.src(), negated(half.src())]);
        let bias = self.word(127);
        let twenty_three = self.word(23);
        let mut product = x;
        for part in [half, rest] {
            let biased = self.alu(Opcode::IAdd, count, [part.src(), bias.src()]);
            let factor = self.alu(Opcode::IShl, count, [biased.src(), twenty_three.src()]);
            product = self.alu_c(
                Opcode::Mul,
                Control::IEEE,
                count,
                [product.src(), factor.src()],
            );
        }
        Ok(product)
    }

    /// PackSnorm4x8, PackUnorm4x8, PackSnorm2x16, PackUnorm2x16: round(clamp(c)·scale) per
    /// component (round to nearest even, what GLSL's "round" may be), masked to its field,
    /// moved into place by a multiply (shift amounts differ per component) and or-ed together,
    /// component 0 lowest (spirv.md §7).
    fn pack_norm(&mut self, number: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (_, _, operands) = super::typed_parts(inst);
        let v = self.arg(inst, operands, 0)?;
        let count = v.count;
        let (signed, scale, mask, places): (bool, f32, u32, &[u32]) = match number {
            number::PACK_SNORM_4X8 => (true, 127.0, 0xFF, &[1, 1 << 8, 1 << 16, 1 << 24]),
            number::PACK_UNORM_4X8 => (false, 255.0, 0xFF, &[1, 1 << 8, 1 << 16, 1 << 24]),
            number::PACK_SNORM_2X16 => (true, 32767.0, 0xFFFF, &[1, 1 << 16]),
            _ => (false, 65535.0, 0xFFFF, &[1, 1 << 16]),
        };
        let low = self.float(if signed { -1.0 } else { 0.0 });
        let high = self.float(1.0);
        let clamped = self.alu(Opcode::Clamp, count, [v.src(), low.src(), high.src()]);
        let scaled = self.scale(count, &clamped, scale)?;
        let rounded = self.alu(Opcode::RoundNear, count, [scaled.src()]);
        let mut field = if signed {
            let integer = self.alu(Opcode::Ftoi, count, [rounded.src()]);
            let mask = self.word(mask);
            self.alu(Opcode::And, count, [integer.src(), mask.src()])
        } else {
            self.alu(Opcode::Ftou, count, [rounded.src()])
        };
        let places = self.regs.vector(places);
        field = self.alu(Opcode::IMul, count, [field.src(), places.src()]);
        if count == 4 {
            let low_half = permuted(&self.members, &field, &[0, 1]);
            let high_half = permuted(&self.members, &field, &[2, 3]);
            field = self.alu(Opcode::IOr, 2, [low_half.src(), high_half.src()]);
        }
        Ok(self.alu(Opcode::IOr, 1, [field.element(0), field.element(1)]))
    }

    /// The unpack counterparts: each field moved to the top by a multiply, then shifted down
    /// (arithmetic for snorm, sign-extending), converted and divided by the scale; snorm
    /// results are clamped to [−1, 1] (spirv.md §7).
    fn unpack_norm(&mut self, number: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (_, _, operands) = super::typed_parts(inst);
        let p = self.arg(inst, operands, 0)?;
        let (signed, scale, lifts, shift): (bool, f32, &[u32], u32) = match number {
            number::UNPACK_SNORM_4X8 => (true, 127.0, &[1 << 24, 1 << 16, 1 << 8, 1], 24),
            number::UNPACK_UNORM_4X8 => (false, 255.0, &[1 << 24, 1 << 16, 1 << 8, 1], 24),
            number::UNPACK_SNORM_2X16 => (true, 32767.0, &[1 << 16, 1], 16),
            _ => (false, 65535.0, &[1 << 16, 1], 16),
        };
        let count = u8::try_from(lifts.len()).unwrap_or(4);
        let lifts = self.regs.vector(lifts);
        let lifted = self.alu(Opcode::IMul, count, [p.element(0), lifts.src()]);
        let shift = self.word(shift);
        let (shift_op, convert) = if signed {
            (Opcode::IShr, Opcode::Itof)
        } else {
            (Opcode::UShr, Opcode::Utof)
        };
        let field = self.alu(shift_op, count, [lifted.src(), shift.src()]);
        let float = self.alu(convert, count, [field.src()]);
        let scale = self.float(scale);
        let quotient = self.alu_c(Opcode::Div, divide(), count, [float.src(), scale.src()]);
        if !signed {
            return Ok(quotient);
        }
        let low = self.float(-1.0);
        let high = self.float(1.0);
        Ok(self.alu(
            Opcode::Clamp,
            count,
            [quotient.src(), low.src(), high.src()],
        ))
    }

    /// Length: √dot(x, x); |x| for a scalar.
    fn length(&mut self, x: &Value) -> Value {
        if x.count == 1 {
            return self.alu(Opcode::Mov, 1, [absolute(x.src())]);
        }
        let dot = self.dot(x, x, 1);
        self.alu(Opcode::SqrtVec, 1, [dot.src()])
    }

    /// The cross product of two 3-vectors: x.yzx·y.zxy − x.zxy·y.yzx (two instructions, no
    /// fused rounding: `mad_ieee` rounds its product, amd-il.md §6.13).
    pub(super) fn cross(&mut self, x: &Value, y: &Value) -> Value {
        let x_yzx = permuted(&self.members, x, &[1, 2, 0]);
        let x_zxy = permuted(&self.members, x, &[2, 0, 1]);
        let y_yzx = permuted(&self.members, y, &[1, 2, 0]);
        let y_zxy = permuted(&self.members, y, &[2, 0, 1]);
        let right = self.alu_c(Opcode::Mul, Control::IEEE, 3, [x_zxy.src(), y_yzx.src()]);
        self.alu_c(
            Opcode::Mad,
            Control::IEEE,
            3,
            [x_yzx.src(), y_zxy.src(), negated(right.src())],
        )
    }

    /// Refract(I, N, eta): k = 1 − eta²·(1 − dot(N, I)²); 0 if k < 0, else
    /// eta·I − (eta·dot(N, I) + √k)·N.
    fn refract(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (_, _, operands) = super::typed_parts(inst);
        let incident = self.arg(inst, operands, 0)?;
        let normal = self.arg(inst, operands, 1)?;
        let eta = self.arg(inst, operands, 2)?;
        let count = incident.count;
        let one = self.float(1.0);
        let dot = self.dot(&normal, &incident, 1);
        let sine2 = self.alu_c(
            Opcode::Mad,
            Control::IEEE,
            1,
            [dot.src(), negated(dot.src()), one.src()],
        );
        let eta2 = self.alu_c(
            Opcode::Mul,
            Control::IEEE,
            1,
            [eta.element(0), eta.element(0)],
        );
        let k = self.alu_c(
            Opcode::Mad,
            Control::IEEE,
            1,
            [negated(eta2.src()), sine2.src(), one.src()],
        );
        let root = self.alu(Opcode::SqrtVec, 1, [k.src()]);
        let factor = self.alu_c(
            Opcode::Mad,
            Control::IEEE,
            1,
            [eta.element(0), dot.src(), root.src()],
        );
        let bent = self.alu_c(
            Opcode::Mul,
            Control::IEEE,
            count,
            [eta.element(0), incident.src()],
        );
        let refracted = self.alu_c(
            Opcode::Mad,
            Control::IEEE,
            count,
            [negated(factor.element(0)), normal.src(), bent.src()],
        );
        let zero = self.float(0.0);
        let total = self.alu(Opcode::Lt, 1, [k.src(), zero.src()]);
        Ok(self.alu(
            Opcode::CmovLogical,
            count,
            [total.element(0), zero.src(), refracted.src()],
        ))
    }

    /// FindILsb = `ffb_lo`. FindUMsb / FindSMsb: `ffb_hi` / `ffb_shi` count from the MSB
    /// (amd-il.md §10.15; DX11 `firstbit_hi`), so the bit index is 31 − r, keeping −1 when no
    /// bit is found (amd-il.md §9).
    fn find_bit(&mut self, number: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        // Reached from OpExtInst, which has a Result Type and a Result id.
        let (result_type, _, operands) = super::typed_parts(inst);
        self.require(inst, Opcode::IFirstbit)?;
        let x = self.arg(inst, operands, 0)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        let kind = match number {
            number::FIND_I_LSB => 0,
            number::FIND_U_MSB => 1,
            _ => 2,
        };
        let found = self.alu_c(Opcode::IFirstbit, Control(kind), count, [x.src()]);
        if number == number::FIND_I_LSB {
            return Ok(found);
        }
        let thirty_one = self.word(31);
        let index = self.alu(
            Opcode::IAdd,
            count,
            [thirty_one.src(), negated(found.src())],
        );
        // `ffb_hi` finds a bit exactly when x ≠ 0; `ffb_shi` when its result is not all ones.
        let condition = if number == number::FIND_U_MSB {
            x
        } else {
            self.alu(Opcode::INot, count, [found.src()])
        };
        Ok(self.alu(
            Opcode::CmovLogical,
            count,
            [condition.src(), index.src(), found.src()],
        ))
    }

    /// The columns of a square matrix of 2–4 columns.
    fn square_columns(&self, inst: SpvInst<'_>, matrix: &Value) -> Result<Vec<Value>, Error> {
        let columns = self.members.of(matrix);
        let size = columns.len();
        if !(2..=4).contains(&size)
            || columns
                .iter()
                .any(|c| c.is_aggregate() || self.members.width(c) != size)
        {
            return Err(self.unsupported(inst, "a matrix operand that is not a square matrix"));
        }
        Ok(columns.to_vec())
    }

    /// The determinant of a 2×2, 3×3 or 4×4 matrix given by its columns: a·d − b·c for 2×2,
    /// the triple product c0 · (c1 × c2) for 3×3, and for 4×4 the expansion along column 0,
    /// whose 3×3 minors are triple products of swizzled columns.
    fn determinant(&mut self, columns: &[Value]) -> Value {
        match columns {
            [c0, c1] => {
                let product = self.alu_c(
                    Opcode::Mul,
                    Control::IEEE,
                    1,
                    [c1.element(0), c0.element(1)],
                );
                self.alu_c(
                    Opcode::Mad,
                    Control::IEEE,
                    1,
                    [c0.element(0), c1.element(1), negated(product.src())],
                )
            }
            [c0, c1, c2] => {
                let cross = self.cross(c1, c2);
                self.dot(c0, &cross, 1)
            }
            [c0, c1, c2, c3] => {
                // Minor of row r (column 0 removed): the triple product of c1, c2, c3 without
                // row r, written into component r, then dotted with column 0 with alternating
                // signs.
                let minors = self.regs.temp();
                for row in 0..4 {
                    let rows = without(row);
                    let [p1, p2, p3] =
                        [c1, c2, c3].map(|column| permuted(&self.members, column, &rows));
                    let cross = self.cross(&p2, &p3);
                    self.dot_into(minors, row, &p1, &cross);
                }
                let signed = with_signs(temp_value(minors, 4).src(), [false, true, false, true]);
                self.alu_c(Opcode::Dp4, Control::IEEE, 1, [c0.src(), signed])
            }
            // `square_columns` admits only 2–4 columns.
            _ => self.float(0.0),
        }
    }

    /// dot(a, b) of two 3-vectors, written into component `at` of temporary `reg`.
    fn dot_into(&mut self, reg: u32, at: usize, a: &Value, b: &Value) {
        self.emit(
            Inst::new(Opcode::Dp3)
                .ctrl(Control::IEEE)
                .dst(dst_at(reg, at))
                .src(a.src())
                .src(b.src()),
        );
    }

    /// MatrixInverse = adjugate / determinant. 2×2: the swapped diagonal and negated
    /// off-diagonal; 3×3: the rows of the inverse are c1×c2, c2×c0, c0×c1; 4×4: every
    /// cofactor as a 3×3 triple product, column c of the inverse holding the cofactors of
    /// row c.
    fn inverse(&mut self, inst: SpvInst<'_>, columns: &[Value]) -> Result<Value, Error> {
        match columns {
            [c0, c1] => {
                let det = self.determinant(columns);
                let first =
                    self.gather(&[self.members.extract(c1, 1), self.members.extract(c0, 1)]);
                let second =
                    self.gather(&[self.members.extract(c1, 0), self.members.extract(c0, 0)]);
                let mut result = Vec::with_capacity(2);
                for (column, signs) in [(first, [false, true]), (second, [true, false])] {
                    let src = with_signs(column.src(), [signs[0], signs[1], false, false]);
                    result.push(self.alu_c(Opcode::Div, divide(), 2, [src, det.element(0)]));
                }
                Ok(self.members.aggregate(&result))
            }
            [c0, c1, c2] => {
                let rows = [self.cross(c1, c2), self.cross(c2, c0), self.cross(c0, c1)];
                let det = self.dot(c0, &rows[0], 1);
                let transposed = self.transpose(inst, &rows)?;
                let mut result = Vec::with_capacity(3);
                for column in self.members.of(&transposed).to_vec() {
                    result.push(self.alu_c(
                        Opcode::Div,
                        divide(),
                        3,
                        [column.src(), det.element(0)],
                    ));
                }
                Ok(self.members.aggregate(&result))
            }
            [c0, c1, c2, c3] => {
                // cofactor(c, r) = (−1)^(c+r)·det(M without column c and row r); inverse
                // column c, row r = cofactor(r, c) / det. For one c, the four minors need
                // only three cross products: rows r = 0 and 1 share c2 × c3.
                let mut adjugate = Vec::with_capacity(4);
                for c in 0..4 {
                    let rows = without(c);
                    let [p0, p1, p2, p3] =
                        [c0, c1, c2, c3].map(|column| permuted(&self.members, column, &rows));
                    let x23 = self.cross(&p2, &p3);
                    let x13 = self.cross(&p1, &p3);
                    let x12 = self.cross(&p1, &p2);
                    let reg = self.regs.temp();
                    for (r, (first, cross)) in [(&p1, &x23), (&p0, &x23), (&p0, &x13), (&p0, &x12)]
                        .into_iter()
                        .enumerate()
                    {
                        self.dot_into(reg, r, first, cross);
                    }
                    adjugate.push(reg);
                }
                // Signs of column c: (−1)^(c+r) for r = 0..3.
                let signs = |c: usize| std::array::from_fn(|r| (c + r) % 2 == 1);
                let Some(first) = adjugate.first() else {
                    return Err(self.unsupported(inst, "an empty matrix"));
                };
                let row0: Vec<Value> = columns
                    .iter()
                    .map(|column| self.members.extract(column, 0))
                    .collect();
                let row0 = self.gather(&row0);
                let det = self.alu_c(
                    Opcode::Dp4,
                    Control::IEEE,
                    1,
                    [
                        row0.src(),
                        with_signs(temp_value(*first, 4).src(), signs(0)),
                    ],
                );
                let mut result = Vec::with_capacity(4);
                for (c, reg) in adjugate.iter().enumerate() {
                    let src = with_signs(temp_value(*reg, 4).src(), signs(c));
                    result.push(self.alu_c(Opcode::Div, divide(), 4, [src, det.element(0)]));
                }
                Ok(self.members.aggregate(&result))
            }
            _ => Err(self.unsupported(inst, "a matrix operand that is not a square matrix")),
        }
    }
}

/// The indices 0..4 without `skip` (the rows of a 4×4 minor).
fn without(skip: usize) -> [usize; 3] {
    let mut rows = [0usize; 3];
    for (slot, row) in rows.iter_mut().zip((0..4).filter(|row| *row != skip)) {
        *slot = row;
    }
    rows
}
