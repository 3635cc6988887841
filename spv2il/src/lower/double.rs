//! Doubles: arithmetic, compares, class tests, conversions and GLSL.std.450 functions on
//! 64-bit floats, and the conversions between 64-bit integers and floats.
//!
//! The double instructions (guide §7.12: `dadd`, `dmul`, `ddiv`, `dmad`, `deq`, `dne`, `dlt`,
//! `dge`, `dmin`, `dmax`, `dsqrt`, `f2d`, `d2f`) give IEEE-correct results (guide DADD, DMUL,
//! DDIV pages; `dmad` is a fused multiply-add from Evergreen on). They need double precision,
//! which [`Lowerer::require`] refuses on a family without it (Evergreen, see
//! [`il_model::Family::has_fp64`]). Everything that can be exact integer work on the bits is:
//!
//! * negation and absolute value flip or clear the high dword's sign bit (what the negate and
//!   abs modifiers do to doubles, guide §2.2.7, but exact for NaN too);
//! * IsNan, IsInf, IsFinite, IsNormal, SignBitSet, Ordered and Unordered compare the magnitude
//!   bits as 64-bit integers;
//! * Trunc clears the fraction bits below the binary point with a 64-bit mask (`i64shl`), so it
//!   keeps the sign of a zero result; Floor and Ceil adjust it by one where the truncation went
//!   the wrong way, Fract is x − floor(x), RoundEven adds and subtracts 2^52 (exact under
//!   round-to-nearest-even) and Round is RoundEven (GLSL lets halves round either way);
//! * float-to-integer conversions shift the significand by the exponent (64-bit shifts), so
//!   they truncate exactly without any double instruction; 64-bit integers to `float` round to
//!   nearest even by hand. Integers to `double` split into halves that convert exactly and
//!   recombine with one `dmad` (one rounding). IL's `dtoi`, `itod`, ... are enumerants without
//!   a page (amd-il.md §6.12), so they are not used.
//!
//! `drcp`/`drsq` are not used: their pages disagree on which components they read (guide
//! D_RCP: "the 4th channel" in the prose, dwords 1 and 2 in the pseudo-code), so InverseSqrt is
//! 1 / `dsqrt`.

use il_model::{Control, Opcode};
use spv_reader::{Inst as SpvInst, spirv};

use super::Lowerer;
use super::ops::negated;
use super::types::Scalar;
use super::values::Value;
use super::wide::{count_u8, high, part_of};
use crate::error::Error;

/// The sign bit of a double.
const SIGN: u64 = 0x8000_0000_0000_0000;
/// Every bit of a double but the sign.
const MAGNITUDE: u64 = 0x7FFF_FFFF_FFFF_FFFF;
/// The bits of +Inf; magnitudes above it are NaNs.
const INFINITY: u64 = 0x7FF0_0000_0000_0000;
/// The smallest normal magnitude (exponent field 1).
const SMALLEST_NORMAL: u64 = 0x0010_0000_0000_0000;
/// 2^52: from this magnitude on every double is an integer.
const TWO_52: f64 = 4_503_599_627_370_496.0;
/// The exponent bias plus the 52 fraction bits: a biased exponent `e` scales the significand
/// (as an integer) by 2^(e − 1075).
const DOUBLE_SHIFT_BIAS: u32 = 1075;
/// The same for a float: 127 plus 23 fraction bits.
const FLOAT_SHIFT_BIAS: u32 = 150;

/// The bits of `value` as a double constant.
fn bits(value: f64) -> u64 {
    value.to_bits()
}

/// GLSL.std.450 instruction names, by number (seed 004), for messages.
const GLSL_NAMES: [&str; 82] = [
    "",
    "Round",
    "RoundEven",
    "Trunc",
    "FAbs",
    "SAbs",
    "FSign",
    "SSign",
    "Floor",
    "Ceil",
    "Fract",
    "Radians",
    "Degrees",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Tanh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Atan2",
    "Pow",
    "Exp",
    "Log",
    "Exp2",
    "Log2",
    "Sqrt",
    "InverseSqrt",
    "Determinant",
    "MatrixInverse",
    "Modf",
    "ModfStruct",
    "FMin",
    "UMin",
    "SMin",
    "FMax",
    "UMax",
    "SMax",
    "FClamp",
    "UClamp",
    "SClamp",
    "FMix",
    "IMix",
    "Step",
    "SmoothStep",
    "Fma",
    "Frexp",
    "FrexpStruct",
    "Ldexp",
    "PackSnorm4x8",
    "PackUnorm4x8",
    "PackSnorm2x16",
    "PackUnorm2x16",
    "PackHalf2x16",
    "PackDouble2x32",
    "UnpackSnorm2x16",
    "UnpackUnorm2x16",
    "UnpackHalf2x16",
    "UnpackSnorm4x8",
    "UnpackUnorm4x8",
    "UnpackDouble2x32",
    "Length",
    "Distance",
    "Cross",
    "Normalize",
    "FaceForward",
    "Reflect",
    "Refract",
    "FindILsb",
    "FindSMsb",
    "FindUMsb",
    "InterpolateAtCentroid",
    "InterpolateAtSample",
    "InterpolateAtOffset",
    "NMin",
    "NMax",
    "NClamp",
];

/// GLSL.std.450 instruction numbers used here (seed 004).
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
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
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
    pub const STEP: u32 = 48;
    pub const SMOOTH_STEP: u32 = 49;
    pub const FMA: u32 = 50;
    pub const FREXP: u32 = 51;
    pub const FREXP_STRUCT: u32 = 52;
    pub const LDEXP: u32 = 53;
    pub const PACK_DOUBLE_2X32: u32 = 59;
    pub const UNPACK_DOUBLE_2X32: u32 = 65;
    pub const LENGTH: u32 = 66;
    pub const DISTANCE: u32 = 67;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
    pub const FACE_FORWARD: u32 = 70;
    pub const REFLECT: u32 = 71;
    pub const REFRACT: u32 = 72;
    pub const N_MIN: u32 = 79;
    pub const N_MAX: u32 = 80;
    pub const N_CLAMP: u32 = 81;
}

impl Lowerer<'_> {
    /// Double arithmetic, compares, class tests, dot products and matrix products; the rest of
    /// the 64-bit operations are refused, naming the instruction.
    pub(super) fn lower_double_op(
        &mut self,
        op: spirv::Op,
        inst: SpvInst<'_>,
    ) -> Result<(), Error> {
        use spirv::Op;
        let value = match op {
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod => {
                let a = self.operand(inst, 0)?;
                let b = self.operand(inst, 1)?;
                let elements = usize::from(self.result_shape(inst)?.count);
                match op {
                    Op::FAdd => self.double(inst, Opcode::DAdd, elements, &[&a, &b])?,
                    Op::FSub => self.double_subtract(inst, elements, &a, &b)?,
                    Op::FMul => self.double(inst, Opcode::DMul, elements, &[&a, &b])?,
                    Op::FDiv => self.double(inst, Opcode::DDiv, elements, &[&a, &b])?,
                    // a − b·trunc(a/b) (FRem, the sign of a) and a − b·floor(a/b) (FMod, the
                    // sign of b): the formulas Vulkan inherits their precision from.
                    _ => {
                        let quotient = self.double(inst, Opcode::DDiv, elements, &[&a, &b])?;
                        let whole = if op == Op::FRem {
                            self.double_trunc(inst, elements, &quotient)?
                        } else {
                            self.double_floor(inst, elements, &quotient)?
                        };
                        let product = self.double(inst, Opcode::DMul, elements, &[&b, &whole])?;
                        self.double_subtract(inst, elements, &a, &product)?
                    }
                }
            }
            Op::FNegate => {
                let a = self.operand(inst, 0)?;
                let sign = self.wide_splat(SIGN, self.members.width(&a));
                self.dwords_op(Opcode::IXor, &[&a, &sign])
            }
            Op::FOrdEqual
            | Op::FOrdNotEqual
            | Op::FOrdLessThan
            | Op::FOrdGreaterThan
            | Op::FOrdLessThanEqual
            | Op::FOrdGreaterThanEqual
            | Op::FUnordEqual
            | Op::FUnordNotEqual
            | Op::FUnordLessThan
            | Op::FUnordGreaterThan
            | Op::FUnordLessThanEqual
            | Op::FUnordGreaterThanEqual
            | Op::LessOrGreater => self.double_compare(op, inst)?,
            Op::IsNan
            | Op::IsInf
            | Op::IsFinite
            | Op::IsNormal
            | Op::SignBitSet
            | Op::Ordered
            | Op::Unordered => self.double_class(op, inst)?,
            Op::Dot => {
                let a = self.operand(inst, 0)?;
                let b = self.operand(inst, 1)?;
                self.double_dot(inst, &a, &b)?
            }
            Op::VectorTimesScalar => {
                let vector = self.operand(inst, 0)?;
                let scalar = self.operand(inst, 1)?;
                let elements = self.members.width(&vector);
                self.double(inst, Opcode::DMul, elements, &[&vector, &scalar])?
            }
            Op::MatrixTimesScalar => {
                let matrix = self.operand(inst, 0)?;
                let scalar = self.operand(inst, 1)?;
                let mut columns = Vec::new();
                for column in self.columns(inst, &matrix)? {
                    let elements = self.members.width(&column);
                    columns.push(self.double(inst, Opcode::DMul, elements, &[&column, &scalar])?);
                }
                self.members.aggregate(&columns)
            }
            Op::VectorTimesMatrix => {
                // Element j is dot(v, column j).
                let vector = self.operand(inst, 0)?;
                let matrix = self.operand(inst, 1)?;
                let mut elements = Vec::new();
                for column in self.columns(inst, &matrix)? {
                    elements.push(self.double_dot(inst, &vector, &column)?);
                }
                self.gather(&elements)
            }
            Op::MatrixTimesVector => {
                let matrix = self.operand(inst, 0)?;
                let vector = self.operand(inst, 1)?;
                let columns = self.columns(inst, &matrix)?;
                self.double_matrix_times_vector(inst, &columns, &vector)?
            }
            Op::MatrixTimesMatrix => {
                let left = self.operand(inst, 0)?;
                let right = self.operand(inst, 1)?;
                let left = self.columns(inst, &left)?;
                let mut product = Vec::new();
                for column in self.columns(inst, &right)? {
                    product.push(self.double_matrix_times_vector(inst, &left, &column)?);
                }
                self.members.aggregate(&product)
            }
            Op::OuterProduct => {
                // Column j is a·b[j].
                let a = self.operand(inst, 0)?;
                let b = self.operand(inst, 1)?;
                let mut columns = Vec::new();
                for j in 0..self.members.width(&b) {
                    let factor = self.members.extract(&b, j);
                    columns.push(self.double(
                        inst,
                        Opcode::DMul,
                        self.members.width(&a),
                        &[&a, &factor],
                    )?);
                }
                self.members.aggregate(&columns)
            }
            _ => return Err(self.unsupported(inst, format!("Op{op:?} on 64-bit values"))),
        };
        self.define(inst, value)
    }

    /// `op` (a double instruction, checked against the target) on the elements of `args`.
    fn double(
        &mut self,
        inst: SpvInst<'_>,
        op: Opcode,
        elements: usize,
        args: &[&Value],
    ) -> Result<Value, Error> {
        self.require(inst, op)?;
        Ok(self.wide_op(op, elements, args))
    }

    /// a − b: `dadd` with the negate modifier on b (it flips the high dword's sign, guide
    /// §2.2.7).
    fn double_subtract(
        &mut self,
        inst: SpvInst<'_>,
        elements: usize,
        a: &Value,
        b: &Value,
    ) -> Result<Value, Error> {
        self.require(inst, Opcode::DAdd)?;
        Ok(
            self.wide_each(Opcode::DAdd, Control::NONE, elements, |members, i| {
                vec![members.pair(a, i), negated(members.pair(b, i))]
            }),
        )
    }

    /// A 32-bit result of the double compare `op` per element (broadcast, guide §7.2.1).
    fn double_test(
        &mut self,
        inst: SpvInst<'_>,
        op: Opcode,
        elements: usize,
        a: &Value,
        b: &Value,
    ) -> Result<Value, Error> {
        self.require(inst, op)?;
        Ok(self.narrow_each(op, elements, |members, i| {
            vec![members.pair(a, i), members.pair(b, i)]
        }))
    }

    /// Ordered compares are `deq`, `dlt`, `dge` (operands swapped for the other directions)
    /// and `dlt` both ways for not-equal; unordered ones are the `inot` of the complementary
    /// ordered compare, and FUnordNotEqual is `dne`, which the guide makes true for NaN.
    fn double_compare(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        use spirv::Op;
        let a = self.operand(inst, 0)?;
        let b = self.operand(inst, 1)?;
        let elements = usize::from(self.result_shape(inst)?.count);
        let count = count_u8(elements);
        let (il, swap, invert) = match op {
            Op::FOrdEqual => (Opcode::Deq, false, false),
            Op::FOrdLessThan => (Opcode::Dlt, false, false),
            Op::FOrdGreaterThanEqual => (Opcode::Dge, false, false),
            Op::FOrdGreaterThan => (Opcode::Dlt, true, false),
            Op::FOrdLessThanEqual => (Opcode::Dge, true, false),
            Op::FUnordNotEqual => (Opcode::Dne, false, false),
            Op::FUnordLessThan => (Opcode::Dge, false, true),
            Op::FUnordGreaterThanEqual => (Opcode::Dlt, false, true),
            Op::FUnordGreaterThan => (Opcode::Dge, true, true),
            Op::FUnordLessThanEqual => (Opcode::Dlt, true, true),
            _ => {
                // FOrdNotEqual, LessOrGreater: a < b or b < a; FUnordEqual: neither.
                let below = self.double_test(inst, Opcode::Dlt, elements, &a, &b)?;
                let above = self.double_test(inst, Opcode::Dlt, elements, &b, &a)?;
                let differ = self.alu(Opcode::IOr, count, [below.src(), above.src()]);
                return Ok(if op == Op::FUnordEqual {
                    self.alu(Opcode::INot, count, [differ.src()])
                } else {
                    differ
                });
            }
        };
        let (first, second) = if swap { (&b, &a) } else { (&a, &b) };
        let result = self.double_test(inst, il, elements, first, second)?;
        Ok(if invert {
            self.alu(Opcode::INot, count, [result.src()])
        } else {
            result
        })
    }

    /// The class tests as 64-bit integer compares of the magnitude bits (EG+, no double
    /// instruction needed): NaN above +Inf, infinities equal to it, normals between the
    /// smallest normal and +Inf.
    fn double_class(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        use spirv::Op;
        for il in [Opcode::U64Lt, Opcode::U64Ge, Opcode::I64Eq, Opcode::I64Add] {
            self.require(inst, il)?;
        }
        let a = self.operand(inst, 0)?;
        let elements = usize::from(self.result_shape(inst)?.count);
        let count = count_u8(elements);
        if op == Op::SignBitSet {
            let zero = self.word(0);
            return Ok(self.narrow_each(Opcode::ILt, elements, |members, i| {
                vec![high(members, &a, i), zero.element(0)]
            }));
        }
        let infinity = self.wide_splat(INFINITY, elements);
        if matches!(op, Op::Ordered | Op::Unordered) {
            let b = self.operand(inst, 1)?;
            let not_nan_a = self.not_nan(elements, &a, &infinity);
            let not_nan_b = self.not_nan(elements, &b, &infinity);
            let ordered = self.alu(Opcode::And, count, [not_nan_a.src(), not_nan_b.src()]);
            return Ok(if op == Op::Unordered {
                self.alu(Opcode::INot, count, [ordered.src()])
            } else {
                ordered
            });
        }
        let magnitude = self.double_magnitude(elements, &a);
        Ok(match op {
            Op::IsNan => self.narrow_each(Opcode::U64Lt, elements, |members, i| {
                vec![members.pair(&infinity, i), members.pair(&magnitude, i)]
            }),
            Op::IsInf => self.narrow_each(Opcode::I64Eq, elements, |members, i| {
                vec![members.pair(&magnitude, i), members.pair(&infinity, i)]
            }),
            Op::IsFinite => self.narrow_each(Opcode::U64Lt, elements, |members, i| {
                vec![members.pair(&magnitude, i), members.pair(&infinity, i)]
            }),
            _ => {
                // Normal: magnitude − smallest normal < +Inf − smallest normal, unsigned.
                let minus_smallest = self.wide_splat(SMALLEST_NORMAL.wrapping_neg(), elements);
                let span = self.wide_splat(INFINITY - SMALLEST_NORMAL, elements);
                let offset = self.wide_op(Opcode::I64Add, elements, &[&magnitude, &minus_smallest]);
                self.narrow_each(Opcode::U64Lt, elements, |members, i| {
                    vec![members.pair(&offset, i), members.pair(&span, i)]
                })
            }
        })
    }

    /// The bits of |x|: the sign bit cleared.
    fn double_magnitude(&mut self, elements: usize, x: &Value) -> Value {
        let mask = self.wide_splat(MAGNITUDE, elements);
        self.dwords_op(Opcode::And, &[x, &mask])
    }

    /// Whether x is no NaN: |x| ≤ +Inf as unsigned 64-bit integers.
    fn not_nan(&mut self, elements: usize, x: &Value, infinity: &Value) -> Value {
        let magnitude = self.double_magnitude(elements, x);
        self.narrow_each(Opcode::U64Ge, elements, |members, i| {
            vec![members.pair(infinity, i), members.pair(&magnitude, i)]
        })
    }

    /// dot(a, b) of double vectors: a `dmul` and a chain of `dmad`.
    fn double_dot(&mut self, inst: SpvInst<'_>, a: &Value, b: &Value) -> Result<Value, Error> {
        self.require(inst, Opcode::DMul)?;
        self.require(inst, Opcode::DMuladd)?;
        let mut sum = self.wide_each(Opcode::DMul, Control::NONE, 1, |members, _| {
            vec![members.pair(a, 0), members.pair(b, 0)]
        });
        for i in 1..self.members.width(a) {
            let previous = sum;
            sum = self.wide_each(Opcode::DMuladd, Control::NONE, 1, |members, _| {
                vec![
                    members.pair(a, i),
                    members.pair(b, i),
                    members.pair(&previous, 0),
                ]
            });
        }
        Ok(sum)
    }

    /// M·v for a double matrix given by its columns: Σ column j · `v[j]`, as a `dmul` and a chain
    /// of `dmad`.
    fn double_matrix_times_vector(
        &mut self,
        inst: SpvInst<'_>,
        columns: &[Value],
        vector: &Value,
    ) -> Result<Value, Error> {
        let Some((first, rest)) = columns.split_first() else {
            return Err(self.unsupported(inst, "a matrix without columns"));
        };
        let elements = self.members.width(first);
        let factor = self.members.extract(vector, 0);
        let mut sum = self.double(inst, Opcode::DMul, elements, &[first, &factor])?;
        for (j, column) in rest.iter().enumerate() {
            let factor = self.members.extract(vector, j + 1);
            sum = self.double(inst, Opcode::DMuladd, elements, &[column, &factor, &sum])?;
        }
        Ok(sum)
    }

    /// trunc(x): the fraction bits below the binary point cleared. With the biased exponent
    /// e, 1075 − e low bits are fraction: none when e ≥ 1075 (also Inf and NaN), all but the
    /// sign when e < 1023 (|x| < 1, a signed zero). The mask is all ones shifted left by that
    /// many bits (`i64shl`, six-bit amounts: 63 keeps the sign only).
    fn double_trunc(
        &mut self,
        inst: SpvInst<'_>,
        elements: usize,
        x: &Value,
    ) -> Result<Value, Error> {
        self.require(inst, Opcode::UBitExtract)?;
        self.require(inst, Opcode::I64Shl)?;
        let count = count_u8(elements);
        let highs = self.high_words(x);
        let eleven = self.word(11);
        let twenty = self.word(20);
        let exponent = self.alu(
            Opcode::UBitExtract,
            count,
            [eleven.element(0), twenty.element(0), highs.src()],
        );
        let bias = self.word(DOUBLE_SHIFT_BIAS);
        let fraction_bits = self.alu(
            Opcode::IAdd,
            count,
            [bias.element(0), negated(exponent.src())],
        );
        let fifty_two = self.word(52);
        let below_one = self.alu(
            Opcode::ILt,
            count,
            [fifty_two.element(0), fraction_bits.src()],
        );
        let zero = self.word(0);
        let clear = self.alu(Opcode::IMax, count, [fraction_bits.src(), zero.element(0)]);
        let sixty_three = self.word(63);
        let amount = self.alu(
            Opcode::CmovLogical,
            count,
            [below_one.src(), sixty_three.element(0), clear.src()],
        );
        let ones = self.wide_splat(u64::MAX, elements);
        let mask = self.wide_each(Opcode::I64Shl, Control::NONE, elements, |members, i| {
            vec![members.pair(&ones, i), amount.element(i)]
        });
        Ok(self.dwords_op(Opcode::And, &[x, &mask]))
    }

    /// floor(x): trunc(x), less one where it exceeds x (negative non-integers).
    fn double_floor(
        &mut self,
        inst: SpvInst<'_>,
        elements: usize,
        x: &Value,
    ) -> Result<Value, Error> {
        self.double_trunc_corrected(inst, elements, x, -1.0)
    }

    /// ceil(x): trunc(x), plus one where it is below x (positive non-integers).
    fn double_ceil(
        &mut self,
        inst: SpvInst<'_>,
        elements: usize,
        x: &Value,
    ) -> Result<Value, Error> {
        self.double_trunc_corrected(inst, elements, x, 1.0)
    }

    /// trunc(x) moved by `step` (−1 for floor, +1 for ceil) where trunc went the wrong way:
    /// above x for floor, below x for ceil.
    fn double_trunc_corrected(
        &mut self,
        inst: SpvInst<'_>,
        elements: usize,
        x: &Value,
        step: f64,
    ) -> Result<Value, Error> {
        let whole = self.double_trunc(inst, elements, x)?;
        let (lower, upper) = if step < 0.0 { (x, &whole) } else { (&whole, x) };
        let wrong_way = self.double_test(inst, Opcode::Dlt, elements, lower, upper)?;
        let step = self.wide_splat(bits(step), elements);
        let moved = self.double(inst, Opcode::DAdd, elements, &[&whole, &step])?;
        Ok(self.select_wide(&wrong_way, &moved, &whole))
    }

    /// roundEven(x): (|x| + 2^52) − 2^52 rounds |x| < 2^52 to the nearest integer, ties to
    /// even (both additions are IEEE-correct, guide DADD), with the sign of x put back;
    /// larger magnitudes, infinities and NaNs are x itself.
    fn double_round_even(
        &mut self,
        inst: SpvInst<'_>,
        elements: usize,
        x: &Value,
    ) -> Result<Value, Error> {
        let magnitude = self.double_magnitude(elements, x);
        let magic = self.wide_splat(bits(TWO_52), elements);
        let integral = self.double_test(inst, Opcode::Dge, elements, &magnitude, &magic)?;
        let raised = self.double(inst, Opcode::DAdd, elements, &[&magnitude, &magic])?;
        let rounded = self.double_subtract(inst, elements, &raised, &magic)?;
        let sign_mask = self.wide_splat(SIGN, elements);
        let sign = self.dwords_op(Opcode::And, &[x, &sign_mask]);
        let signed = self.dwords_op(Opcode::IOr, &[&rounded, &sign]);
        Ok(self.select_wide(&integral, x, &signed))
    }

    /// ModfStruct on doubles: whole = trunc(x); fraction = x − whole, 0 for ±Inf, with x's sign
    /// (modf(−2) = {−0, −2}), as for 32-bit floats (spirv.md §7).
    fn double_modf(&mut self, inst: SpvInst<'_>, x: &Value) -> Result<(Value, Value), Error> {
        let elements = self.members.width(x);
        let whole = self.double_trunc(inst, elements, x)?;
        let difference = self.double_subtract(inst, elements, x, &whole)?;
        let magnitude = self.double_magnitude(elements, x);
        let infinity = self.wide_splat(INFINITY, elements);
        let infinite = self.narrow_each(Opcode::I64Eq, elements, |members, i| {
            vec![members.pair(&magnitude, i), members.pair(&infinity, i)]
        });
        let zero = self.wide_splat(0, elements);
        let fraction = self.select_wide(&infinite, &zero, &difference);
        let sign_mask = self.wide_splat(SIGN, elements);
        let sign = self.dwords_op(Opcode::And, &[x, &sign_mask]);
        let fraction = self.dwords_op(Opcode::IOr, &[&fraction, &sign]);
        Ok((fraction, whole))
    }

    /// FrexpStruct on doubles from the bits, as for 32-bit floats: exponent = field − 1022,
    /// significand = x with its exponent field set to 1022 (|significand| ∈ [0.5, 1)). Zero and
    /// denormals give ±0 and 0; Inf and NaN are undefined (GLSL.std.450 Frexp). Integer
    /// instructions only.
    fn double_frexp(&mut self, inst: SpvInst<'_>, x: &Value) -> Result<(Value, Value), Error> {
        self.require(inst, Opcode::UBitExtract)?;
        let elements = self.members.width(x);
        let count = count_u8(elements);
        let highs = self.high_words(x);
        let lows = self.low_words(x);
        let eleven = self.word(11);
        let twenty = self.word(20);
        let field = self.alu(
            Opcode::UBitExtract,
            count,
            [eleven.element(0), twenty.element(0), highs.src()],
        );
        let bias = self.word(1022);
        let unbiased = self.alu(Opcode::IAdd, count, [field.src(), negated(bias.src())]);
        let zero = self.word(0);
        let exponent = self.alu(
            Opcode::CmovLogical,
            count,
            [field.src(), unbiased.src(), zero.element(0)],
        );
        let keep = self.word(0x800F_FFFF);
        let half = self.word(0x3FE0_0000);
        let kept = self.alu(Opcode::And, count, [highs.src(), keep.element(0)]);
        let scaled = self.alu(Opcode::IOr, count, [kept.src(), half.element(0)]);
        let sign_mask = self.word(super::ops::SIGN_BIT);
        let signed_zero = self.alu(Opcode::And, count, [highs.src(), sign_mask.element(0)]);
        let high = self.alu(
            Opcode::CmovLogical,
            count,
            [field.src(), scaled.src(), signed_zero.src()],
        );
        let low = self.alu(
            Opcode::CmovLogical,
            count,
            [field.src(), lows.src(), zero.element(0)],
        );
        Ok((self.join_words(elements, &low, &high), exponent))
    }

    /// Ldexp(x, e) on doubles = x·2^h·2^(e−h) with h = e/2 (arithmetic shift) and e clamped to
    /// [−2044, 2046], so that both factors are normal doubles built from their exponent bits
    /// (as for 32-bit floats): every normal result is exact; a denormal one may be rounded
    /// twice.
    fn double_ldexp(
        &mut self,
        inst: SpvInst<'_>,
        x: &Value,
        exponent: &Value,
    ) -> Result<Value, Error> {
        self.require(inst, Opcode::DMul)?;
        let elements = self.members.width(x);
        let count = count_u8(elements);
        let low = self.word((-2044i32) as u32);
        let high = self.word(2046);
        let raised = self.alu(Opcode::IMax, count, [exponent.src(), low.element(0)]);
        let clamped = self.alu(Opcode::IMin, count, [raised.src(), high.element(0)]);
        let one = self.word(1);
        let half = self.alu(Opcode::IShr, count, [clamped.src(), one.element(0)]);
        let rest = self.alu(Opcode::IAdd, count, [clamped.src(), negated(half.src())]);
        let bias = self.word(1023);
        let twenty = self.word(20);
        let zero = self.word(0);
        let mut product = *x;
        for part in [half, rest] {
            let biased = self.alu(Opcode::IAdd, count, [part.src(), bias.element(0)]);
            let factor_high = self.alu(Opcode::IShl, count, [biased.src(), twenty.element(0)]);
            let factor = self.join_words(elements, &zero, &factor_high);
            product = self.wide_op(Opcode::DMul, elements, &[&product, &factor]);
        }
        Ok(product)
    }

    /// Refract(I, N, eta): k = 1 − eta²·(1 − dot(N, I)²); 0 where k < 0, else
    /// eta·I − (eta·dot(N, I) + √k)·N (GLSL.std.450 Refract).
    fn double_refract(
        &mut self,
        inst: SpvInst<'_>,
        elements: usize,
        incident: &Value,
        normal: &Value,
        eta: &Value,
    ) -> Result<Value, Error> {
        for op in [Opcode::DMuladd, Opcode::DSqrt, Opcode::Dlt] {
            self.require(inst, op)?;
        }
        let one = self.wide_splat(bits(1.0), 1);
        let dot = self.double_dot(inst, normal, incident)?;
        let sine2 = self.wide_each(Opcode::DMuladd, Control::NONE, 1, |members, _| {
            vec![
                members.pair(&dot, 0),
                negated(members.pair(&dot, 0)),
                members.pair(&one, 0),
            ]
        });
        let eta2 = self.wide_op(Opcode::DMul, 1, &[eta, eta]);
        let k = self.wide_each(Opcode::DMuladd, Control::NONE, 1, |members, _| {
            vec![
                negated(members.pair(&eta2, 0)),
                members.pair(&sine2, 0),
                members.pair(&one, 0),
            ]
        });
        let root = self.wide_op(Opcode::DSqrt, 1, &[&k]);
        let factor = self.wide_op(Opcode::DMuladd, 1, &[eta, &dot, &root]);
        let bent = self.wide_op(Opcode::DMul, elements, &[eta, incident]);
        let refracted = self.wide_each(Opcode::DMuladd, Control::NONE, elements, |members, i| {
            vec![
                negated(members.pair(&factor, 0)),
                members.pair(normal, i),
                members.pair(&bent, i),
            ]
        });
        let zero = self.wide_splat(0, elements);
        let total = self.narrow_each(Opcode::Dlt, 1, |members, _| {
            vec![members.pair(&k, 0), members.pair(&zero, 0)]
        });
        Ok(self.select_wide(&total, &zero, &refracted))
    }

    /// The high dwords of the elements of a 64-bit value, as a 32-bit vector.
    pub(super) fn high_words(&mut self, x: &Value) -> Value {
        let highs: Vec<Value> = (0..self.members.width(x))
            .map(|i| {
                let pair = self.members.extract(x, i);
                Value {
                    comps: [pair.comps[1]; 4],
                    count: 1,
                    wide: false,
                    ..pair
                }
            })
            .collect();
        self.gather(&highs)
    }

    /// The low dwords of the elements of a 64-bit value, as a 32-bit vector.
    pub(super) fn low_words(&mut self, x: &Value) -> Value {
        let lows: Vec<Value> = (0..self.members.width(x))
            .map(|i| {
                let pair = self.members.extract(x, i);
                Value {
                    comps: [pair.comps[0]; 4],
                    count: 1,
                    wide: false,
                    ..pair
                }
            })
            .collect();
        self.gather(&lows)
    }

    /// 64-bit values whose low dwords are `lows` and high dwords `highs` (32-bit vectors, or a
    /// scalar for every element).
    fn join_words(&mut self, elements: usize, lows: &Value, highs: &Value) -> Value {
        let result = self.wide_temp(elements);
        let mut moves = Vec::with_capacity(2 * elements);
        for i in 0..elements {
            let (part, position) = part_of(&self.members, &result, i);
            let (l, h) = (
                self.members.extract(lows, i),
                self.members.extract(highs, i),
            );
            moves.push((part.reg, 2 * position, l.reg, l.comps[0]));
            moves.push((part.reg, 2 * position + 1, h.reg, h.comps[0]));
        }
        self.move_dwords(&moves);
        result
    }

    /// FConvert between `float` and `double`: `f2d` (exact) and `d2f` (round to nearest even,
    /// guide D2F), one element at a time.
    pub(super) fn float_width_convert(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let from = self.operand_shape(inst, 0)?;
        let x = self.operand(inst, 0)?;
        let elements = usize::from(from.count);
        match from.scalar {
            Scalar::Float => {
                self.require(inst, Opcode::F2D)?;
                Ok(
                    self.wide_each(Opcode::F2D, Control::NONE, elements, |_, i| {
                        vec![x.element(i)]
                    }),
                )
            }
            Scalar::Double => {
                self.require(inst, Opcode::D2F)?;
                Ok(self.narrow_each(Opcode::D2F, elements, |members, i| {
                    vec![members.pair(&x, i)]
                }))
            }
            _ => Err(self.unsupported(inst, "OpFConvert between these types")),
        }
    }

    /// ConvertSToF / ConvertUToF with a 64-bit side.
    pub(super) fn int_to_float(
        &mut self,
        op: spirv::Op,
        inst: SpvInst<'_>,
    ) -> Result<Value, Error> {
        let from = self.operand_shape(inst, 0)?;
        let to = self.result_shape(inst)?;
        let signed = op == spirv::Op::ConvertSToF;
        let x = self.operand(inst, 0)?;
        let elements = usize::from(from.count);
        match (from.scalar, to.scalar) {
            (Scalar::Int { .. }, Scalar::Double) => self.words_to_double(inst, &x, signed),
            (Scalar::Int64 { .. }, Scalar::Double) => {
                // hi·2^32 + lo with both halves exact as doubles: one rounding, in `dmad`.
                let highs = self.high_words(&x);
                let lows = self.low_words(&x);
                let high = self.words_to_double(inst, &highs, signed)?;
                let low = self.words_to_double(inst, &lows, false)?;
                let scale = self.wide_splat(bits(4_294_967_296.0), elements);
                self.double(inst, Opcode::DMuladd, elements, &[&high, &scale, &low])
            }
            (Scalar::Int64 { .. }, Scalar::Float) => self.int64_to_float(inst, &x, signed),
            _ => Err(self.unsupported(inst, format!("Op{op:?} between these types"))),
        }
    }

    /// 32-bit integers to doubles, exactly: the high and low 16 bits convert exactly to float
    /// (`itof`/`utof` of a value below 2^16 cannot round), `f2d` is exact, and hi·65536 + lo
    /// (`dmad`) is exact in 53 bits.
    fn words_to_double(
        &mut self,
        inst: SpvInst<'_>,
        words: &Value,
        signed: bool,
    ) -> Result<Value, Error> {
        self.require(inst, Opcode::F2D)?;
        self.require(inst, Opcode::DMuladd)?;
        let elements = self.members.width(words);
        let count = count_u8(elements);
        let sixteen = self.word(16);
        let (shift, to_float) = if signed {
            (Opcode::IShr, Opcode::Itof)
        } else {
            (Opcode::UShr, Opcode::Utof)
        };
        let upper = self.alu(shift, count, [words.src(), sixteen.element(0)]);
        let mask = self.word(0xFFFF);
        let lower = self.alu(Opcode::And, count, [words.src(), mask.element(0)]);
        let upper = self.alu(to_float, count, [upper.src()]);
        let lower = self.alu(Opcode::Utof, count, [lower.src()]);
        let upper = self.wide_each(Opcode::F2D, Control::NONE, elements, |_, i| {
            vec![upper.element(i)]
        });
        let lower = self.wide_each(Opcode::F2D, Control::NONE, elements, |_, i| {
            vec![lower.element(i)]
        });
        let scale = self.wide_splat(bits(65_536.0), elements);
        Ok(self.wide_op(Opcode::DMuladd, elements, &[&upper, &scale, &lower]))
    }

    /// 64-bit integers to `float`, rounded to nearest even with integer instructions (EG+): the
    /// magnitude is normalised so its top bit is set (`ffb_hi` counts the leading zeros,
    /// amd-il.md §9), its top 24 bits are the significand, and the next bit and the bits
    /// below it (sticky) decide the rounding; the carry of rounding up runs into the exponent.
    fn int64_to_float(
        &mut self,
        inst: SpvInst<'_>,
        x: &Value,
        signed: bool,
    ) -> Result<Value, Error> {
        for il in [
            Opcode::IFirstbit,
            Opcode::I64Shl,
            Opcode::I64Lt,
            Opcode::I64Negate,
        ] {
            self.require(inst, il)?;
        }
        let elements = self.members.width(x);
        let count = count_u8(elements);
        let zero = self.word(0);
        let (magnitude, negative) = if signed {
            let zeros = self.wide_splat(0, elements);
            let negative = self.narrow_each(Opcode::I64Lt, elements, |members, i| {
                vec![members.pair(x, i), members.pair(&zeros, i)]
            });
            (self.negate_where(elements, x, &negative), Some(negative))
        } else {
            (*x, None)
        };
        let highs = self.high_words(&magnitude);
        let lows = self.low_words(&magnitude);
        // Leading zeros: of the high dword, or 32 plus those of the low one.
        let from_msb = Control(1);
        let high_zeros = self.alu_c(Opcode::IFirstbit, from_msb, count, [highs.src()]);
        let low_zeros = self.alu_c(Opcode::IFirstbit, from_msb, count, [lows.src()]);
        let thirty_two = self.word(32);
        let low_zeros = self.alu(
            Opcode::IAdd,
            count,
            [low_zeros.src(), thirty_two.element(0)],
        );
        let zeros = self.alu(
            Opcode::CmovLogical,
            count,
            [highs.src(), high_zeros.src(), low_zeros.src()],
        );
        let normalised = self.wide_each(Opcode::I64Shl, Control::NONE, elements, |members, i| {
            vec![members.pair(&magnitude, i), zeros.element(i)]
        });
        let top = self.high_words(&normalised);
        let rest = self.low_words(&normalised);
        let eight = self.word(8);
        let significand = self.alu(Opcode::UShr, count, [top.src(), eight.element(0)]);
        let seven = self.word(7);
        let half_bit = self.alu(Opcode::UShr, count, [top.src(), seven.element(0)]);
        let one = self.word(1);
        let half_bit = self.alu(Opcode::And, count, [half_bit.src(), one.element(0)]);
        let low_seven = self.word(0x7F);
        let sticky = self.alu(Opcode::And, count, [top.src(), low_seven.element(0)]);
        let sticky = self.alu(Opcode::IOr, count, [sticky.src(), rest.src()]);
        let sticky = self.alu(Opcode::INe, count, [sticky.src(), zero.element(0)]);
        let odd = self.alu(Opcode::And, count, [significand.src(), one.element(0)]);
        let tie_breaker = self.alu(Opcode::And, count, [sticky.src(), one.element(0)]);
        let tie_breaker = self.alu(Opcode::IOr, count, [tie_breaker.src(), odd.src()]);
        let round_up = self.alu(Opcode::And, count, [half_bit.src(), tie_breaker.src()]);
        // The biased exponent is 127 + 63 − zeros; the significand's own top bit adds one.
        let exponent_less_one = self.word(127 + 63 - 1);
        let exponent = self.alu(
            Opcode::IAdd,
            count,
            [exponent_less_one.element(0), negated(zeros.src())],
        );
        let twenty_three = self.word(23);
        let exponent = self.alu(
            Opcode::IShl,
            count,
            [exponent.src(), twenty_three.element(0)],
        );
        let result = self.alu(Opcode::IAdd, count, [exponent.src(), significand.src()]);
        let mut result = self.alu(Opcode::IAdd, count, [result.src(), round_up.src()]);
        if let Some(negative) = negative {
            let sign_bit = self.word(super::ops::SIGN_BIT);
            let sign = self.alu(Opcode::And, count, [negative.src(), sign_bit.element(0)]);
            result = self.alu(Opcode::IOr, count, [result.src(), sign.src()]);
        }
        let nonzero = self.alu(Opcode::IOr, count, [highs.src(), lows.src()]);
        Ok(self.alu(
            Opcode::CmovLogical,
            count,
            [nonzero.src(), result.src(), zero.element(0)],
        ))
    }

    /// ConvertFToS / ConvertFToU from `float` or `double` with a 64-bit side, truncating
    /// exactly with integer instructions (EG+): the significand with its implicit one, shifted
    /// left or right by the exponent less the bias and the fraction width; shifts of 64 or more
    /// bits right are clamped to 63 (the significand is shorter, so the result is 0), and
    /// out-of-range values, undefined in SPIR-V, wrap. Signed conversions negate where the sign
    /// bit is set.
    pub(super) fn float_to_int(
        &mut self,
        op: spirv::Op,
        inst: SpvInst<'_>,
    ) -> Result<Value, Error> {
        for il in [
            Opcode::UBitExtract,
            Opcode::I64Shl,
            Opcode::U64Shr,
            Opcode::I64Negate,
        ] {
            self.require(inst, il)?;
        }
        let from = self.operand_shape(inst, 0)?;
        let to = self.result_shape(inst)?;
        let signed = op == spirv::Op::ConvertFToS;
        let x = self.operand(inst, 0)?;
        let elements = usize::from(from.count);
        let count = count_u8(elements);
        let zero = self.word(0);
        let (sign_words, significand, exponent, bias) = match from.scalar {
            Scalar::Float => {
                let eight = self.word(8);
                let twenty_three = self.word(23);
                let exponent = self.alu(
                    Opcode::UBitExtract,
                    count,
                    [eight.element(0), twenty_three.element(0), x.src()],
                );
                let fraction_mask = self.word(0x007F_FFFF);
                let implicit = self.word(0x0080_0000);
                let fraction = self.alu(Opcode::And, count, [x.src(), fraction_mask.element(0)]);
                let significand =
                    self.alu(Opcode::IOr, count, [fraction.src(), implicit.element(0)]);
                let significand = self.join_words(elements, &significand, &zero);
                (x, significand, exponent, FLOAT_SHIFT_BIAS)
            }
            Scalar::Double => {
                let highs = self.high_words(&x);
                let lows = self.low_words(&x);
                let eleven = self.word(11);
                let twenty = self.word(20);
                let exponent = self.alu(
                    Opcode::UBitExtract,
                    count,
                    [eleven.element(0), twenty.element(0), highs.src()],
                );
                let fraction_mask = self.word(0x000F_FFFF);
                let implicit = self.word(0x0010_0000);
                let fraction =
                    self.alu(Opcode::And, count, [highs.src(), fraction_mask.element(0)]);
                let top = self.alu(Opcode::IOr, count, [fraction.src(), implicit.element(0)]);
                let significand = self.join_words(elements, &lows, &top);
                (highs, significand, exponent, DOUBLE_SHIFT_BIAS)
            }
            _ => return Err(self.unsupported(inst, format!("Op{op:?} between these types"))),
        };
        let bias = self.word(bias);
        let left = self.alu(
            Opcode::IAdd,
            count,
            [exponent.src(), negated(bias.element(0))],
        );
        let right = self.alu(
            Opcode::IAdd,
            count,
            [bias.element(0), negated(exponent.src())],
        );
        let sixty_three = self.word(63);
        let right = self.alu(Opcode::IMin, count, [right.src(), sixty_three.element(0)]);
        let shifted_left = self.wide_each(Opcode::I64Shl, Control::NONE, elements, |members, i| {
            vec![members.pair(&significand, i), left.element(i)]
        });
        let shifted_right =
            self.wide_each(Opcode::U64Shr, Control::NONE, elements, |members, i| {
                vec![members.pair(&significand, i), right.element(i)]
            });
        let grows = self.alu(Opcode::IGe, count, [left.src(), zero.element(0)]);
        let mut magnitude = self.select_wide(&grows, &shifted_left, &shifted_right);
        if signed {
            let negative = self.alu(Opcode::ILt, count, [sign_words.src(), zero.element(0)]);
            magnitude = self.negate_where(elements, &magnitude, &negative);
        }
        Ok(match to.scalar {
            Scalar::Int64 { .. } => magnitude,
            _ => self.low_words(&magnitude),
        })
    }

    /// A GLSL.std.450 instruction with a 64-bit argument or result.
    pub(super) fn lower_glsl_wide(&mut self, code: u32, inst: SpvInst<'_>) -> Result<Value, Error> {
        use self::number as n;
        let arg = |this: &mut Self, k: usize| this.operand(inst, 2 + k);
        let shape = self.result_shape(inst).ok();
        let elements = shape.map_or(1, |s| usize::from(s.count));
        let min_max = |number: u32| match number {
            n::F_MIN | n::N_MIN => Some(Opcode::DMin),
            n::F_MAX | n::N_MAX => Some(Opcode::DMax),
            n::S_MIN => Some(Opcode::I64Min),
            n::S_MAX => Some(Opcode::I64Max),
            n::U_MIN => Some(Opcode::U64Min),
            n::U_MAX => Some(Opcode::U64Max),
            _ => None,
        };
        if let Some(op) = min_max(code) {
            // dmin/dmax are IEEE-754-2008 minNum/maxNum (a NaN operand loses, guide D_MAX),
            // which is also NMin/NMax's rule.
            let x = arg(self, 0)?;
            let y = arg(self, 1)?;
            self.require(inst, op)?;
            return Ok(self.wide_op(op, elements, &[&x, &y]));
        }
        match code {
            n::F_CLAMP | n::N_CLAMP | n::S_CLAMP | n::U_CLAMP => {
                let (max, min) = match code {
                    n::S_CLAMP => (Opcode::I64Max, Opcode::I64Min),
                    n::U_CLAMP => (Opcode::U64Max, Opcode::U64Min),
                    _ => (Opcode::DMax, Opcode::DMin),
                };
                self.require(inst, max)?;
                self.require(inst, min)?;
                let x = arg(self, 0)?;
                let lower = arg(self, 1)?;
                let upper = arg(self, 2)?;
                let raised = self.wide_op(max, elements, &[&x, &lower]);
                Ok(self.wide_op(min, elements, &[&raised, &upper]))
            }
            n::S_ABS => {
                self.require(inst, Opcode::I64Max)?;
                self.require(inst, Opcode::I64Negate)?;
                let x = arg(self, 0)?;
                let minus = self.wide_op(Opcode::I64Negate, elements, &[&x]);
                Ok(self.wide_op(Opcode::I64Max, elements, &[&x, &minus]))
            }
            n::S_SIGN => {
                self.require(inst, Opcode::I64Max)?;
                self.require(inst, Opcode::I64Min)?;
                let x = arg(self, 0)?;
                let minus_one = self.wide_splat(u64::MAX, elements);
                let one = self.wide_splat(1, elements);
                let raised = self.wide_op(Opcode::I64Max, elements, &[&x, &minus_one]);
                Ok(self.wide_op(Opcode::I64Min, elements, &[&raised, &one]))
            }
            n::F_ABS => {
                let x = arg(self, 0)?;
                Ok(self.double_magnitude(elements, &x))
            }
            n::F_SIGN => {
                // 1.0 above zero, −1.0 below, x itself for ±0 (and NaN, whose sign is
                // undefined).
                let x = arg(self, 0)?;
                let zero = self.wide_splat(0, elements);
                let positive = self.double_test(inst, Opcode::Dlt, elements, &zero, &x)?;
                let negative = self.double_test(inst, Opcode::Dlt, elements, &x, &zero)?;
                let one = self.wide_splat(bits(1.0), elements);
                let minus_one = self.wide_splat(bits(-1.0), elements);
                let signed = self.select_wide(&negative, &minus_one, &x);
                Ok(self.select_wide(&positive, &one, &signed))
            }
            n::TRUNC => {
                let x = arg(self, 0)?;
                self.double_trunc(inst, elements, &x)
            }
            n::FLOOR => {
                let x = arg(self, 0)?;
                self.double_floor(inst, elements, &x)
            }
            n::CEIL => {
                let x = arg(self, 0)?;
                self.double_ceil(inst, elements, &x)
            }
            n::FRACT => {
                let x = arg(self, 0)?;
                let floor = self.double_floor(inst, elements, &x)?;
                self.double_subtract(inst, elements, &x, &floor)
            }
            // Round may round halves either way (GLSL.std.450 Round); it is RoundEven here, as
            // for 32-bit floats.
            n::ROUND | n::ROUND_EVEN => {
                let x = arg(self, 0)?;
                self.double_round_even(inst, elements, &x)
            }
            n::SQRT => {
                let x = arg(self, 0)?;
                self.double(inst, Opcode::DSqrt, elements, &[&x])
            }
            n::INVERSE_SQRT => {
                let x = arg(self, 0)?;
                let root = self.double(inst, Opcode::DSqrt, elements, &[&x])?;
                let one = self.wide_splat(bits(1.0), elements);
                self.double(inst, Opcode::DDiv, elements, &[&one, &root])
            }
            n::FMA => {
                // `dmad` is a fused multiply-add from Evergreen on (guide D_MULADD).
                let a = arg(self, 0)?;
                let b = arg(self, 1)?;
                let c = arg(self, 2)?;
                self.double(inst, Opcode::DMuladd, elements, &[&a, &b, &c])
            }
            n::F_MIX => {
                // x·(1 − a) + y·a.
                let x = arg(self, 0)?;
                let y = arg(self, 1)?;
                let a = arg(self, 2)?;
                let one = self.wide_splat(bits(1.0), elements);
                let rest = self.double_subtract(inst, elements, &one, &a)?;
                let part = self.double(inst, Opcode::DMul, elements, &[&x, &rest])?;
                self.double(inst, Opcode::DMuladd, elements, &[&y, &a, &part])
            }
            n::STEP => {
                // 0.0 where x < edge, else 1.0.
                let edge = arg(self, 0)?;
                let x = arg(self, 1)?;
                let below = self.double_test(inst, Opcode::Dlt, elements, &x, &edge)?;
                let zero = self.wide_splat(0, elements);
                let one = self.wide_splat(bits(1.0), elements);
                Ok(self.select_wide(&below, &zero, &one))
            }
            n::MODF | n::MODF_STRUCT => {
                let x = arg(self, 0)?;
                let (fraction, whole) = self.double_modf(inst, &x)?;
                if code == n::MODF_STRUCT {
                    return Ok(self.members.aggregate(&[fraction, whole]));
                }
                self.store_through(inst, 3, &whole)?;
                Ok(fraction)
            }
            n::FREXP | n::FREXP_STRUCT => {
                let x = arg(self, 0)?;
                let (significand, exponent) = self.double_frexp(inst, &x)?;
                if code == n::FREXP_STRUCT {
                    return Ok(self.members.aggregate(&[significand, exponent]));
                }
                self.store_through(inst, 3, &exponent)?;
                Ok(significand)
            }
            n::LDEXP => {
                let x = arg(self, 0)?;
                let exponent = arg(self, 1)?;
                self.double_ldexp(inst, &x, &exponent)
            }
            n::SMOOTH_STEP => {
                // t = clamp((x − e0) / (e1 − e0), 0, 1); t·t·(3 − 2t).
                let edge0 = arg(self, 0)?;
                let edge1 = arg(self, 1)?;
                let x = arg(self, 2)?;
                let offset = self.double_subtract(inst, elements, &x, &edge0)?;
                let span = self.double_subtract(inst, elements, &edge1, &edge0)?;
                let ratio = self.double(inst, Opcode::DDiv, elements, &[&offset, &span])?;
                let zero = self.wide_splat(0, elements);
                let one = self.wide_splat(bits(1.0), elements);
                let raised = self.double(inst, Opcode::DMax, elements, &[&ratio, &zero])?;
                let t = self.double(inst, Opcode::DMin, elements, &[&raised, &one])?;
                let minus_two = self.wide_splat(bits(-2.0), elements);
                let three = self.wide_splat(bits(3.0), elements);
                let factor =
                    self.double(inst, Opcode::DMuladd, elements, &[&t, &minus_two, &three])?;
                let square = self.double(inst, Opcode::DMul, elements, &[&t, &t])?;
                self.double(inst, Opcode::DMul, elements, &[&square, &factor])
            }
            n::FACE_FORWARD => {
                // N where dot(Nref, I) < 0, else −N.
                let normal = arg(self, 0)?;
                let incident = arg(self, 1)?;
                let reference = arg(self, 2)?;
                let dot = self.double_dot(inst, &reference, &incident)?;
                let zero = self.wide_splat(0, 1);
                let facing = self.double_test(inst, Opcode::Dlt, 1, &dot, &zero)?;
                let sign = self.wide_splat(SIGN, elements);
                let flipped = self.dwords_op(Opcode::IXor, &[&normal, &sign]);
                Ok(self.select_wide(&facing, &normal, &flipped))
            }
            n::REFLECT => {
                // I − 2·dot(N, I)·N; doubling is exact, so dot + dot.
                let incident = arg(self, 0)?;
                let normal = arg(self, 1)?;
                let dot = self.double_dot(inst, &normal, &incident)?;
                let twice = self.double(inst, Opcode::DAdd, 1, &[&dot, &dot])?;
                self.require(inst, Opcode::DMuladd)?;
                Ok(
                    self.wide_each(Opcode::DMuladd, Control::NONE, elements, |members, i| {
                        vec![
                            members.pair(&normal, i),
                            negated(members.pair(&twice, 0)),
                            members.pair(&incident, i),
                        ]
                    }),
                )
            }
            n::REFRACT => {
                let incident = arg(self, 0)?;
                let normal = arg(self, 1)?;
                let eta = arg(self, 2)?;
                self.double_refract(inst, elements, &incident, &normal, &eta)
            }
            n::LENGTH => {
                let x = arg(self, 0)?;
                let dot = self.double_dot(inst, &x, &x)?;
                self.double(inst, Opcode::DSqrt, 1, &[&dot])
            }
            n::DISTANCE => {
                let p0 = arg(self, 0)?;
                let p1 = arg(self, 1)?;
                let difference = self.double_subtract(inst, self.members.width(&p0), &p0, &p1)?;
                let dot = self.double_dot(inst, &difference, &difference)?;
                self.double(inst, Opcode::DSqrt, 1, &[&dot])
            }
            n::NORMALIZE => {
                let x = arg(self, 0)?;
                let dot = self.double_dot(inst, &x, &x)?;
                let length = self.double(inst, Opcode::DSqrt, 1, &[&dot])?;
                self.double(inst, Opcode::DDiv, elements, &[&x, &length])
            }
            n::CROSS => {
                // (a.y·b.z − a.z·b.y, a.z·b.x − a.x·b.z, a.x·b.y − a.y·b.x), each as a `dmul`
                // and a `dmad` with the product negated.
                let a = arg(self, 0)?;
                let b = arg(self, 1)?;
                self.require(inst, Opcode::DMul)?;
                self.require(inst, Opcode::DMuladd)?;
                let mut components = Vec::with_capacity(3);
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let product = self.wide_each(Opcode::DMul, Control::NONE, 1, |members, _| {
                        vec![members.pair(&a, j), members.pair(&b, i)]
                    });
                    let component =
                        self.wide_each(Opcode::DMuladd, Control::NONE, 1, |members, _| {
                            vec![
                                members.pair(&a, i),
                                members.pair(&b, j),
                                negated(members.pair(&product, 0)),
                            ]
                        });
                    components.push(component);
                }
                Ok(self.gather(&components))
            }
            n::PACK_DOUBLE_2X32 => {
                // The two words become the low and high dwords (GLSL.std.450 PackDouble2x32).
                let v = arg(self, 0)?;
                Ok(Value {
                    count: 2,
                    wide: true,
                    ..v
                })
            }
            n::UNPACK_DOUBLE_2X32 => {
                let v = arg(self, 0)?;
                Ok(Value { wide: false, ..v })
            }
            _ => {
                let name = usize::try_from(code)
                    .ok()
                    .and_then(|i| GLSL_NAMES.get(i))
                    .filter(|name| !name.is_empty())
                    .map_or_else(|| format!("instruction {code}"), |name| (*name).to_string());
                Err(self.unsupported(inst, format!("GLSL.std.450 {name} on 64-bit values")))
            }
        }
    }
}
