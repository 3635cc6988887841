//! Arithmetic, logic, comparison, conversion, bit and composite instructions.
//!
//! Most SPIR-V operations map to one component-wise IL instruction (amd-il.md §9 table). The
//! exceptions are written out where they occur, each with the rule it follows:
//!
//! * subtraction is addition with a negated source (integer negate is two's complement,
//!   amd-il.md §1.6); float multiplies carry `_ieee` so that 0·Inf is NaN (amd-il.md §0.3);
//! * comparisons IL has in one direction only swap their operands; unordered float compares
//!   are the `inot` of the complementary ordered compare, and `ne` is never used because the
//!   guide and IEEE disagree on its NaN result (amd-il.md §7.2, §10.12);
//! * IL has no signed division (amd-il.md §7.3): SDiv, SRem and SMod divide magnitudes with
//!   `udiv`/`umod` and fix the sign; a zero divisor, undefined in SPIR-V and unspecified in IL,
//!   gives all ones in every lane (the D3D11 rule), so the result is deterministic;
//! * shifts need one replicated amount (amd-il.md §0.5): differing amounts take one instruction
//!   per component; amounts of 32 or more are masked to five bits, a value SPIR-V allows
//!   because the result is undefined there;
//! * composites re-label components where they can (extracting, shuffling and copying emit
//!   nothing) and gather elements with one `mov` per source register where they cannot.

use il_model::{Control, DstComp, Inst, Opcode, Reg, RegType, Src, Srcs, ZeroOp};
use spv_reader::{Id, Inst as SpvInst, spirv};

use super::Lowerer;
use super::memory::located;
use super::types::{self, Layout, Shape};
use super::values::{MemberRange, Value, XYZW, dst_at, dst_first};
use crate::error::{Error, Unsupported};

/// All ones: IL's boolean true (amd-il.md §0.2), and the quotient of a division by zero.
pub(super) const TRUE: u32 = u32::MAX;
/// The sign bit of a 32-bit float or integer.
pub(super) const SIGN_BIT: u32 = 0x8000_0000;
/// Every bit of a float but the sign.
pub(super) const MAGNITUDE_BITS: u32 = 0x7FFF_FFFF;
/// The bits of +Inf; a float's magnitude bits above it are a NaN.
pub(super) const INFINITY_BITS: u32 = 0x7F80_0000;

/// A fresh temporary's value of `count` elements.
pub(super) fn temp_value(reg: u32, count: u8) -> Value {
    Value::in_reg(Reg::new(RegType::Temp, reg), count)
}

/// `src` with every component negated (`_neg(xyzw)`): float negation, or two's complement for
/// integer instructions (amd-il.md §1.6).
pub(super) fn negated(src: Src) -> Src {
    src.negate()
}

/// `src` with the `_abs` modifier.
pub(super) fn absolute(src: Src) -> Src {
    src.abs()
}

/// How a component-wise SPIR-V operation becomes one IL instruction.
#[derive(Clone, Copy)]
pub(super) struct Elementwise {
    op: Opcode,
    ctrl: Control,
    /// Swap the two sources (`a > b` is `b < a`).
    swap: bool,
    /// Negate the second source (subtraction).
    negate_second: bool,
    /// Negate the result with `inot` (unordered compares as the complement of ordered ones).
    invert: bool,
}

const fn plain(op: Opcode) -> Elementwise {
    Elementwise {
        op,
        ctrl: Control::NONE,
        swap: false,
        negate_second: false,
        invert: false,
    }
}

const fn swapped(op: Opcode) -> Elementwise {
    Elementwise {
        swap: true,
        ..plain(op)
    }
}

const fn ieee(op: Opcode) -> Elementwise {
    Elementwise {
        ctrl: Control::IEEE,
        ..plain(op)
    }
}

const fn minus(op: Opcode) -> Elementwise {
    Elementwise {
        negate_second: true,
        ..plain(op)
    }
}

const fn not(mapping: Elementwise) -> Elementwise {
    Elementwise {
        invert: true,
        ..mapping
    }
}

/// How many opcode numbers [`ELEMENTWISE`] covers: every elementwise opcode is below it (the
/// conversion, arithmetic, bit and relational instructions of SPIR-V §3.3.11–3.3.15 are numbered
/// 109–200).
const ELEMENTWISE_OPCODES: usize = 256;

/// How many opcode numbers [`Lowerer::split_parts`] remembers (the arithmetic, relational,
/// bit, conversion and composite opcodes are numbered below it; larger ones are split each
/// time they are met).
pub(super) const TYPED_OPCODES_CACHED: usize = 256;

/// The component-wise mapping of each opcode lowered by [`Lowerer::lower_elementwise`], by
/// opcode number: one table lookup on the number as written tells an elementwise
/// instruction apart and gives its IL, without decoding the number into `spirv::Op`.
const ELEMENTWISE: [Option<Elementwise>; ELEMENTWISE_OPCODES] = {
    use spirv::Op;
    let mappings = [
        (Op::IAdd, plain(Opcode::IAdd)),
        (Op::ISub, minus(Opcode::IAdd)),
        (Op::IMul, plain(Opcode::IMul)),
        (Op::FAdd, plain(Opcode::Add)),
        (Op::FSub, minus(Opcode::Add)),
        (Op::FMul, ieee(Opcode::Mul)),
        // `mod` is a − b·trunc(a/b), the sign of the dividend (amd-il.md §6.13), which is
        // OpFRem; a zero divisor returns the dividend, and SPIR-V leaves that case undefined.
        (Op::FRem, plain(Opcode::Mod)),
        (Op::BitwiseAnd, plain(Opcode::And)),
        (Op::LogicalAnd, plain(Opcode::And)),
        (Op::BitwiseOr, plain(Opcode::IOr)),
        (Op::LogicalOr, plain(Opcode::IOr)),
        (Op::BitwiseXor, plain(Opcode::IXor)),
        (Op::LogicalNotEqual, plain(Opcode::IXor)),
        (Op::IEqual, plain(Opcode::IEq)),
        (Op::LogicalEqual, plain(Opcode::IEq)),
        (Op::INotEqual, plain(Opcode::INe)),
        (Op::SLessThan, plain(Opcode::ILt)),
        (Op::SGreaterThanEqual, plain(Opcode::IGe)),
        (Op::SGreaterThan, swapped(Opcode::ILt)),
        (Op::SLessThanEqual, swapped(Opcode::IGe)),
        (Op::ULessThan, plain(Opcode::ULt)),
        (Op::UGreaterThanEqual, plain(Opcode::UGe)),
        (Op::UGreaterThan, swapped(Opcode::ULt)),
        (Op::ULessThanEqual, swapped(Opcode::UGe)),
        (Op::FOrdEqual, plain(Opcode::Eq)),
        (Op::FOrdLessThan, plain(Opcode::Lt)),
        (Op::FOrdGreaterThanEqual, plain(Opcode::Ge)),
        (Op::FOrdGreaterThan, swapped(Opcode::Lt)),
        (Op::FOrdLessThanEqual, swapped(Opcode::Ge)),
        // Unordered compares are true when either operand is NaN: the complement of the
        // opposite ordered compare (amd-il.md §9: FUnordLessThan = inot(ge)).
        (Op::FUnordNotEqual, not(plain(Opcode::Eq))),
        (Op::FUnordLessThan, not(plain(Opcode::Ge))),
        (Op::FUnordGreaterThanEqual, not(plain(Opcode::Lt))),
        (Op::FUnordGreaterThan, not(swapped(Opcode::Ge))),
        (Op::FUnordLessThanEqual, not(swapped(Opcode::Lt))),
        (Op::Not, plain(Opcode::INot)),
        (Op::LogicalNot, plain(Opcode::INot)),
        (Op::SNegate, plain(Opcode::INegate)),
        // Out-of-range conversions are undefined in SPIR-V (spirv.md §6.13 item 7). IL's
        // `itof`/`utof` rounding is not stated by the guide (amd-il.md §10.13).
        (Op::ConvertFToS, plain(Opcode::Ftoi)),
        (Op::ConvertFToU, plain(Opcode::Ftou)),
        (Op::ConvertSToF, plain(Opcode::Itof)),
        (Op::ConvertUToF, plain(Opcode::Utof)),
    ];
    let mut table = [None; ELEMENTWISE_OPCODES];
    let mut i = 0;
    while i < mappings.len() {
        let (op, mapping) = mappings[i];
        table[op as usize] = Some(mapping);
        i += 1;
    }
    table
};

/// Whether `op` is lowered by [`Lowerer::lower_elementwise`] (when no operand or result is
/// 64-bit): one IL instruction, or two for the inverted comparisons, reading the operands where
/// they are and writing a fresh temporary.
pub(super) fn is_elementwise(op: u32) -> bool {
    elementwise(op).is_some()
}

/// The component-wise mapping of the opcode numbered `op`, if it has one.
pub(super) fn elementwise(op: u32) -> Option<Elementwise> {
    ELEMENTWISE.get(op as usize).copied().flatten()
}

impl Lowerer<'_> {
    /// Lowers an instruction whose opcode number has the elementwise mapping `mapping`
    /// ([`elementwise`]); told apart by [`Lowerer::lower_inst`] before it decodes the opcode.
    pub(super) fn lower_elementwise_op(
        &mut self,
        mapping: Elementwise,
        inst: SpvInst<'_>,
    ) -> Result<(), Error> {
        // Every elementwise opcode has a Result Type and a Result id, so the instruction is
        // split once; one with a 64-bit operand or result has its own lowering.
        let parts = super::typed_parts(inst);
        if self.touches_wide_parts(parts.0, parts.2) {
            let Some(op) = inst.opcode() else {
                return Err(self.unsupported(inst, "an opcode unknown to this version"));
            };
            return self.lower_wide_op(op, inst);
        }
        self.lower_elementwise(mapping, inst, parts)
    }

    /// Lowers an instruction that is neither memory nor control flow, nor elementwise
    /// ([`Lowerer::lower_elementwise_op`]).
    pub(super) fn lower_op(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<(), Error> {
        use spirv::Op;
        // Copies, composites and selects re-label or move components, for 32- and 64-bit
        // elements alike, and extended instructions choose for themselves; everything else on
        // 64-bit values has its own lowering.
        let generic = matches!(
            op,
            Op::Undef
                | Op::ExtInst
                | Op::CopyObject
                | Op::CopyLogical
                | Op::CompositeConstruct
                | Op::CompositeExtract
                | Op::CompositeInsert
                | Op::VectorShuffle
                | Op::Select
                | Op::Transpose
        );
        // Every other arm below has a Result Type and a Result id; the opcode-table lookup that
        // finds their words is made once per opcode (see `split_parts`) rather than by each
        // accessor.
        let (result_type, result, operands) = self.split_parts(inst);
        if !generic && self.touches_wide_parts(result_type, operands) {
            return self.lower_wide_op(op, inst);
        }
        let value = match op {
            // An OpUndef value is a constant of the reader's table (read as zero where it is
            // used, spirv.md §6.13 item 1); the instruction itself does nothing.
            Op::Undef => return Ok(()),
            Op::ExtInst => return self.lower_ext_inst(inst),
            Op::CopyObject | Op::CopyLogical => self.operand_in(inst, operands, 0)?,
            Op::Bitcast => self.lower_bitcast(inst)?,
            Op::QuantizeToF16 => self.lower_quantize(inst)?,
            Op::CompositeConstruct => self.lower_composite_construct(inst)?,
            Op::CompositeExtract => self.lower_composite_extract(inst)?,
            Op::CompositeInsert => self.lower_composite_insert(inst)?,
            Op::VectorShuffle => self.lower_vector_shuffle(inst)?,
            Op::VectorExtractDynamic => self.lower_extract_dynamic(inst)?,
            Op::VectorInsertDynamic => self.lower_insert_dynamic(inst)?,
            Op::Select => {
                if let Some(value) = self.select_in_place(inst, operands)? {
                    return self.define_result(inst, result, value);
                }
                let condition = self.operand_in(inst, operands, 0)?;
                let accept = self.operand_in(inst, operands, 1)?;
                let reject = self.operand_in(inst, operands, 2)?;
                self.select(inst, &condition, &accept, &reject)?
            }
            Op::SDiv | Op::SRem | Op::SMod => self.lower_signed_division(op, inst)?,
            Op::FDiv => {
                let a = self.operand_in(inst, operands, 0)?;
                let b = self.operand_in(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                self.float_divide(count, &a, &b)
            }
            Op::FNegate => {
                let a = self.operand_src_in(inst, operands, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                self.alu(Opcode::Mov, count, [negated(a)])
            }
            Op::ShiftLeftLogical => self.lower_shift(Opcode::IShl, inst)?,
            Op::ShiftRightArithmetic => self.lower_shift(Opcode::IShr, inst)?,
            Op::ShiftRightLogical => self.lower_shift(Opcode::UShr, inst)?,
            Op::BitFieldInsert => self.lower_bitfield_insert(inst)?,
            Op::BitFieldSExtract => self.lower_bitfield_extract(Opcode::IBitExtract, inst)?,
            Op::BitFieldUExtract => self.lower_bitfield_extract(Opcode::UBitExtract, inst)?,
            Op::BitReverse => self.unary_checked(Opcode::UBitReverse, inst)?,
            Op::BitCount => self.unary_checked(Opcode::ICountbits, inst)?,
            Op::IsNan | Op::IsInf | Op::IsFinite | Op::IsNormal | Op::SignBitSet => {
                self.lower_float_class(op, inst)?
            }
            Op::Dot => {
                if let Some(value) = self.dot_in_place(inst, operands)? {
                    return self.define_result(inst, result, value);
                }
                let a = self.operand_in(inst, operands, 0)?;
                let b = self.operand_in(inst, operands, 1)?;
                self.dot(&a, &b, 1)
            }
            Op::VectorTimesScalar => {
                let vector = self.operand_src_in(inst, operands, 0)?;
                let scalar = self.operand_element_in(inst, operands, 1, 0)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                self.alu_c(Opcode::Mul, Control::IEEE, count, [vector, scalar])
            }
            Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
                self.lower_extended(op, inst)?
            }
            // The rest, rarely met, out of line (see `lower_op_rare`).
            _ => self.lower_op_rare(op, inst, result_type, operands)?,
        };
        self.define_result(inst, result, value)
    }

    /// The value of an instruction [`Lowerer::lower_op`] does not lower itself, given its Result
    /// Type and operands (from [`Lowerer::split_parts`]).
    // Out of line: rare instructions. Without them `lower_op` is small enough to be inlined into
    // the block loop (no call and no frame of its own per instruction), and its common
    // instructions run in compact code.
    #[inline(never)]
    fn lower_op_rare(
        &mut self,
        op: spirv::Op,
        inst: SpvInst<'_>,
        result_type: Option<Id>,
        operands: &[u32],
    ) -> Result<Value, Error> {
        use spirv::Op;
        Ok(match op {
            Op::UConvert | Op::SConvert | Op::FConvert => {
                // Both types are scalars or vectors of different widths and neither is 64-bit
                // (those are lowered as 64-bit operations), so one is narrower than 32 bits;
                // the shape check names it.
                let operand_type = self.operand_type(inst, 0)?;
                self.shape(inst, operand_type)?;
                self.shape_of_result(inst, result_type)?;
                return Err(self.unsupported(inst, format!("Op{op:?} between 32-bit types")));
            }
            Op::SatConvertSToU => {
                let a = self.operand_src_in(inst, operands, 0)?;
                let zero = self.regs.scalar_src(0);
                let count = self.shape_of_result(inst, result_type)?.count;
                self.alu(Opcode::IMax, count, [a, zero])
            }
            Op::SatConvertUToS => {
                let a = self.operand_src_in(inst, operands, 0)?;
                let max = self.regs.scalar_src(MAGNITUDE_BITS);
                let count = self.shape_of_result(inst, result_type)?.count;
                self.alu(Opcode::UMin, count, [a, max])
            }
            Op::UDiv | Op::UMod => {
                let a = self.operand_in(inst, operands, 0)?;
                let b = self.operand_in(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let il = if op == Op::UDiv {
                    Opcode::UDiv
                } else {
                    Opcode::UMod
                };
                self.unsigned_divide(il, count, &a, &b)
            }
            Op::FMod => {
                // a − b·floor(a/b): the sign of the divisor, exactly Vulkan's definition of
                // OpFMod's precision (inherited from this formula).
                let a = self.operand_in(inst, operands, 0)?;
                let b = self.operand_in(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let quotient = self.float_divide(count, &a, &b);
                let floor = self.alu(Opcode::RoundNegInf, count, [quotient.src()]);
                self.alu_c(
                    Opcode::Mad,
                    Control::IEEE,
                    count,
                    [negated(b.src()), floor.src(), a.src()],
                )
            }
            Op::FOrdNotEqual | Op::LessOrGreater | Op::FUnordEqual => {
                // a < b or b < a: false for NaN whatever the hardware's `ne` does.
                let a = self.operand_in(inst, operands, 0)?;
                let b = self.operand_in(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let below = self.alu(Opcode::Lt, count, [a.src(), b.src()]);
                let above = self.alu(Opcode::Lt, count, [b.src(), a.src()]);
                let differ = self.alu(Opcode::IOr, count, [below.src(), above.src()]);
                if op == Op::FUnordEqual {
                    self.alu(Opcode::INot, count, [differ.src()])
                } else {
                    differ
                }
            }
            Op::Ordered | Op::Unordered => {
                // A float equals itself unless it is NaN.
                let a = self.operand_in(inst, operands, 0)?;
                let b = self.operand_in(inst, operands, 1)?;
                let count = self.shape_of_result(inst, result_type)?.count;
                let a_ordered = self.alu(Opcode::Eq, count, [a.src(), a.src()]);
                let b_ordered = self.alu(Opcode::Eq, count, [b.src(), b.src()]);
                let ordered = self.alu(Opcode::And, count, [a_ordered.src(), b_ordered.src()]);
                if op == Op::Unordered {
                    self.alu(Opcode::INot, count, [ordered.src()])
                } else {
                    ordered
                }
            }
            Op::Any | Op::All => {
                let vector = self.operand_in(inst, operands, 0)?;
                let il = if op == Op::Any {
                    Opcode::IOr
                } else {
                    Opcode::And
                };
                self.reduce(il, &vector)
            }
            Op::MatrixTimesScalar => {
                let matrix = self.operand_in(inst, operands, 0)?;
                let scalar = self.operand_in(inst, operands, 1)?;
                let columns = self.columns(inst, &matrix)?;
                let scaled: Vec<Value> = columns
                    .iter()
                    .map(|column| {
                        self.alu_c(
                            Opcode::Mul,
                            Control::IEEE,
                            column.count,
                            [column.src(), scalar.element(0)],
                        )
                    })
                    .collect();
                self.members.aggregate(&scaled)
            }
            Op::VectorTimesMatrix => {
                let vector = self.operand_in(inst, operands, 0)?;
                let matrix = self.operand_in(inst, operands, 1)?;
                let columns = self.columns(inst, &matrix)?;
                self.vector_times_matrix(inst, &vector, &columns)?
            }
            Op::MatrixTimesVector => {
                let matrix = self.operand_in(inst, operands, 0)?;
                let vector = self.operand_in(inst, operands, 1)?;
                let columns = self.columns(inst, &matrix)?;
                self.matrix_times_vector(inst, &columns, &vector)?
            }
            Op::MatrixTimesMatrix => {
                let left = self.operand_in(inst, operands, 0)?;
                let right = self.operand_in(inst, operands, 1)?;
                let left = self.columns(inst, &left)?;
                let right = self.columns(inst, &right)?;
                let mut product = Vec::with_capacity(right.len());
                for column in &right {
                    product.push(self.matrix_times_vector(inst, &left, column)?);
                }
                self.members.aggregate(&product)
            }
            Op::OuterProduct => {
                let a = self.operand_in(inst, operands, 0)?;
                let b = self.operand_in(inst, operands, 1)?;
                let columns: Vec<Value> = (0..self.members.width(&b))
                    .map(|j| {
                        self.alu_c(Opcode::Mul, Control::IEEE, a.count, [a.src(), b.element(j)])
                    })
                    .collect();
                self.members.aggregate(&columns)
            }
            Op::Transpose => {
                let matrix = self.operand_in(inst, operands, 0)?;
                let columns = self.columns(inst, &matrix)?;
                self.transpose(inst, &columns)?
            }
            _ => return Err(self.unsupported(inst, format!("Op{op:?}"))),
        })
    }

    /// The Result Type, Result id and operands of `inst`, as [`SpvInst::split`] gives them.
    /// Whether an instruction has a Result Type and a Result id is a property of its opcode
    /// (SPIR-V §2.3), so once an instruction with the opcode has shown both, later ones are
    /// read from their fixed word positions ([`super::typed_parts`], the same words `split`
    /// would give) and the opcode-table lookup `split` makes is made once per opcode and
    /// translation rather than once per instruction.
    pub(super) fn split_parts<'i>(
        &mut self,
        inst: SpvInst<'i>,
    ) -> (Option<Id>, Option<Id>, &'i [u32]) {
        const UNKNOWN: u8 = 0;
        const TYPED: u8 = 1;
        let opcode = usize::from(inst.raw_opcode());
        match self.typed_opcodes.get(opcode) {
            Some(&TYPED) => return super::typed_parts(inst),
            Some(&UNKNOWN) => {}
            // Past the cached opcodes, or one seen without both.
            _ => return inst.split(),
        }
        let parts = inst.split();
        if let Some(slot) = self.typed_opcodes.get_mut(opcode) {
            // An instruction too short to hold both marks the opcode as one without: later
            // ones are split, as now (validation allows no such instruction anyway).
            const OTHER: u8 = 2;
            *slot = if parts.0.is_some() && parts.1.is_some() {
                TYPED
            } else {
                OTHER
            };
        }
        parts
    }

    // ----- helpers shared with the GLSL.std.450 lowering -----------------------------------

    /// An [`Unsupported`] error located at `inst`.
    #[cold]
    #[inline(never)]
    pub(super) fn unsupported(&self, inst: SpvInst<'_>, feature: impl Into<String>) -> Error {
        Unsupported::at(self.module, inst.index(), feature).into()
    }

    /// Records `value` as the result of `inst`.
    pub(super) fn define(&mut self, inst: SpvInst<'_>, value: Value) -> Result<(), Error> {
        self.define_result(inst, inst.result_id(), value)
    }

    /// [`Lowerer::define`] given the Result id of `inst` (from [`SpvInst::split`]).
    fn define_result(
        &mut self,
        inst: SpvInst<'_>,
        result: Option<Id>,
        value: Value,
    ) -> Result<(), Error> {
        let result =
            result.ok_or_else(|| self.unsupported(inst, "an operation without a result"))?;
        // Re-labelling operations (shuffles, extracts, copies) define their result here.
        let (_, _, operands) = super::typed_parts(inst);
        self.define_relabelled(result, value, operands);
        Ok(())
    }

    /// The register shape of type `ty`, located at `inst`.
    pub(super) fn shape(&self, inst: SpvInst<'_>, ty: Id) -> Result<Shape, Error> {
        self.shape_of(ty).map_err(|u| located(self.module, inst, u))
    }

    /// The register shape of the result of `inst`.
    pub(super) fn result_shape(&self, inst: SpvInst<'_>) -> Result<Shape, Error> {
        self.shape_of_result(inst, inst.result_type())
    }

    /// [`Lowerer::result_shape`] given the Result Type of `inst` (from [`SpvInst::split`]).
    pub(super) fn shape_of_result(
        &self,
        inst: SpvInst<'_>,
        result_type: Option<Id>,
    ) -> Result<Shape, Error> {
        let ty = result_type
            .ok_or_else(|| self.unsupported(inst, "an operation without a result type"))?;
        self.shape(inst, ty)
    }

    /// The register layout of the result of `inst`, whose Result Type is `result_type` (from
    /// [`SpvInst::split`]).
    fn layout_of_result(
        &self,
        inst: SpvInst<'_>,
        result_type: Option<Id>,
    ) -> Result<Layout, Error> {
        let ty = result_type
            .ok_or_else(|| self.unsupported(inst, "an operation without a result type"))?;
        self.layout_of(ty)
            .map_err(|u| located(self.module, inst, u))
    }

    /// The type of operand `n` of `inst` (an id operand).
    fn operand_type(&self, inst: SpvInst<'_>, n: usize) -> Result<Id, Error> {
        self.operand_type_in(inst, inst.operands(), n)
    }

    /// [`Lowerer::operand_type`] given the operand words of `inst` (from [`SpvInst::split`]).
    fn operand_type_in(&self, inst: SpvInst<'_>, operands: &[u32], n: usize) -> Result<Id, Error> {
        let id = self.operand_id_in(inst, operands, n)?;
        self.info
            .value_type(id)
            .ok_or_else(|| self.unsupported(inst, format!("operand {id} without a type")))
    }

    /// The id in operand word `n` of `inst`.
    pub(super) fn operand_id(&self, inst: SpvInst<'_>, n: usize) -> Result<Id, Error> {
        self.operand_id_in(inst, inst.operands(), n)
    }

    /// [`Lowerer::operand_id`] given the operand words of `inst` (from [`SpvInst::split`]).
    pub(super) fn operand_id_in(
        &self,
        inst: SpvInst<'_>,
        operands: &[u32],
        n: usize,
    ) -> Result<Id, Error> {
        operands
            .get(n)
            .map(|word| Id(*word))
            .ok_or_else(|| self.unsupported(inst, format!("a missing operand {n}")))
    }

    /// The value of operand word `n` of `inst`.
    pub(super) fn operand(&mut self, inst: SpvInst<'_>, n: usize) -> Result<Value, Error> {
        self.operand_in(inst, inst.operands(), n)
    }

    /// [`Lowerer::operand`] given the operand words of `inst` (from [`SpvInst::split`]).
    pub(super) fn operand_in(
        &mut self,
        inst: SpvInst<'_>,
        operands: &[u32],
        n: usize,
    ) -> Result<Value, Error> {
        let id = self.operand_id_in(inst, operands, n)?;
        self.operand_value(id, inst)
    }

    /// [`Lowerer::operand_in`] as a source operand ([`Value::src`]), read in place.
    pub(super) fn operand_src_in(
        &mut self,
        inst: SpvInst<'_>,
        operands: &[u32],
        n: usize,
    ) -> Result<Src, Error> {
        let id = self.operand_id_in(inst, operands, n)?;
        self.id_src(id, inst)
    }

    /// Element `element` of [`Lowerer::operand_in`] as a scalar source ([`Value::element`]),
    /// read in place.
    fn operand_element_in(
        &mut self,
        inst: SpvInst<'_>,
        operands: &[u32],
        n: usize,
        element: usize,
    ) -> Result<Src, Error> {
        let id = self.operand_id_in(inst, operands, n)?;
        self.value_element(id, inst, element)
    }

    /// The value of `id`, an operand of `inst`, as a source operand ([`Value::src`]); a lowered
    /// result is read in place rather than copied out first.
    fn id_src(&mut self, id: Id, inst: SpvInst<'_>) -> Result<Src, Error> {
        if let Some(value) = self.values.get(id) {
            return Ok(value.src());
        }
        Ok(self.operand_value(id, inst)?.src())
    }

    /// The value of `id`: a lowered result or a constant. OpConstantNull and OpUndef of a
    /// struct, array or matrix type become aggregates of zeros here; every other constant is
    /// the module-level lowering's.
    pub(super) fn operand_value(&mut self, id: Id, at: SpvInst<'_>) -> Result<Value, Error> {
        if let Some(value) = self.values.get(id) {
            return Ok(*value);
        }
        let module = self.module;
        let zero_aggregate = match module.constant(id) {
            Some(spv_reader::Constant::Null { ty } | spv_reader::Constant::Undef { ty }) => {
                matches!(
                    module.ty(*ty),
                    Some(spv_reader::Type::Struct { .. })
                        | Some(spv_reader::Type::Array { .. })
                        | Some(spv_reader::Type::Matrix { .. })
                )
                .then_some(*ty)
            }
            _ => None,
        };
        let Some(ty) = zero_aggregate else {
            return self.value(id, at);
        };
        // The layout bounds the size and nesting of the value (MAX_AGGREGATE_LEAVES).
        let layout = types::layout_of(module, ty).map_err(|u| located(module, at, u))?;
        let value = self.zero_of(&layout);
        self.set_value(id, value);
        Ok(value)
    }

    /// A zero value of `layout` (OpConstantNull; also the value chosen for OpUndef).
    fn zero_of(&mut self, layout: &Layout) -> Value {
        match layout {
            Layout::Vector(shape) if shape.is_wide() => {
                self.wide_splat(0, usize::from(shape.count))
            }
            Layout::Vector(_) => self.word(0),
            Layout::Aggregate(members) => {
                let values: Vec<Value> =
                    members.iter().map(|member| self.zero_of(member)).collect();
                self.members.aggregate(&values)
            }
        }
    }

    /// A scalar literal.
    pub(super) fn word(&mut self, word: u32) -> Value {
        self.regs.scalar(word)
    }

    /// A scalar float literal.
    pub(super) fn float(&mut self, value: f32) -> Value {
        self.regs.scalar(value.to_bits())
    }

    /// Fails unless the target family has `op` (guide Appendix D; amd-il.md §8.4), double
    /// precision included: the double instructions need a family all of whose parts have it
    /// ([`il_model::Family::has_fp64`]: Cayman and SI, not Evergreen).
    pub(super) fn require(&self, inst: SpvInst<'_>, op: Opcode) -> Result<(), Error> {
        let info = op.info();
        let target = self.options.target;
        if info.fp64 && !target.has_fp64() {
            return Err(self.unsupported(
                inst,
                format!(
                    "`{}` (needed here) on {}: double precision exists only on some parts of \
                     the family (guide §7.2.5: R670, R770, Cypress); Cayman and Southern \
                     Islands have it",
                    info.mnemonic,
                    target.name()
                ),
            ));
        }
        if info.families.contains(target) {
            return Ok(());
        }
        Err(self.unsupported(
            inst,
            format!("`{}` (needed here) on {}", info.mnemonic, target.name()),
        ))
    }

    /// Emits `op` on `sources` into the first `count` components of a fresh temporary.
    pub(super) fn alu(
        &mut self,
        op: Opcode,
        count: u8,
        sources: impl IntoIterator<Item = Src>,
    ) -> Value {
        self.alu_c(op, Control::NONE, count, sources)
    }

    /// [`Lowerer::alu`] with a control field (`_ieee`, `_zeroop(z)`, ...).
    pub(super) fn alu_c(
        &mut self,
        op: Opcode,
        ctrl: Control,
        count: u8,
        sources: impl IntoIterator<Item = Src>,
    ) -> Value {
        // The sources arrive as arrays (or iterators), so that building an instruction
        // allocates nothing: at most three go into the inline list.
        let mut srcs = Srcs::new();
        for source in sources {
            srcs.push(source);
        }
        self.alu_srcs(op, ctrl, count, srcs)
    }

    /// [`Lowerer::alu_c`] with the sources already in an instruction's inline source list.
    pub(super) fn alu_srcs(
        &mut self,
        op: Opcode,
        ctrl: Control,
        count: u8,
        sources: Srcs,
    ) -> Value {
        let reg = self.regs.temp();
        self.emit_whole(op, ctrl, dst_first(reg, count), sources);
        temp_value(reg, count)
    }

    /// A scalar IL operation that reads `.w` and broadcasts (amd-il.md §0.4), applied to each
    /// element: one instruction per element, each reading that element replicated and writing
    /// one component.
    pub(super) fn alu_each(&mut self, op: Opcode, count: u8, sources: &[&Value]) -> Value {
        let reg = self.regs.temp();
        for i in 0..usize::from(count) {
            let mut il = Inst::new(op).dst(dst_at(reg, i));
            il.src = sources.iter().map(|value| value.element(i)).collect();
            self.emit(il);
        }
        temp_value(reg, count)
    }

    /// A vector whose elements are the given one-element values: the components re-labelled
    /// when they all live in one register, otherwise one `mov` per source register (constant
    /// elements are first merged into one literal).
    pub(super) fn gather(&mut self, elements: &[Value]) -> Value {
        if elements.first().is_some_and(|e| e.wide) {
            return self.gather_wide(elements);
        }
        let elements = elements.get(..4).unwrap_or(elements);
        if let Some(value) = same_register(elements) {
            return value;
        }
        // At most four elements: the constant ones are listed in place, without a heap list.
        let mut constant_slots = [(0usize, 0u32); 4];
        let mut constant_count = 0;
        for (i, element) in elements.iter().enumerate() {
            if let Some(word) = self
                .regs
                .constant_words(element)
                .and_then(|words| words.first().copied())
                && let Some(slot) = constant_slots.get_mut(constant_count)
            {
                *slot = (i, word);
                constant_count += 1;
            }
        }
        let constants = constant_slots.get(..constant_count).unwrap_or(&[]);
        // Constants from two or more literals become one literal; constants already in one
        // literal are read from it by the swizzle.
        // (The positions index `elements`, which they were enumerated from.)
        let several_literals = constants.first().is_some_and(|(first, _)| {
            constants
                .iter()
                .any(|(i, _)| elements[*i].reg != elements[*first].reg)
        });
        // The elements are only copied when some of them are replaced by the merged literal.
        let merged: Vec<Value>;
        let elements = if several_literals {
            let mut words = [0u32; 4];
            for (i, word) in constants {
                words[*i] = *word;
            }
            let literal = self.regs.literal(words);
            let mut elements = elements.to_vec();
            for (i, _) in constants {
                elements[*i] = Value {
                    reg: literal,
                    comps: [XYZW[*i]; 4],
                    count: 1,
                    members: MemberRange::default(),
                    wide: false,
                };
            }
            if let Some(value) = same_register(&elements) {
                return value;
            }
            merged = elements;
            &merged[..]
        } else {
            elements
        };
        let reg = self.regs.temp();
        let mut done = [false; 4];
        for i in 0..elements.len() {
            if done[i] {
                continue;
            }
            let source_reg = elements[i].reg;
            let mut dst = dst_first(reg, 0);
            let mut src = Src::new(source_reg);
            src.swizzle = [elements[i].comps[0]; 4];
            for (j, element) in elements.iter().enumerate().skip(i) {
                if element.reg == source_reg {
                    dst.mask[j] = DstComp::Write;
                    src.swizzle[j] = element.comps[0];
                    done[j] = true;
                }
            }
            self.emit_mov(dst, src);
        }
        let count = u8::try_from(elements.len().clamp(1, 4)).unwrap_or(4);
        temp_value(reg, count)
    }

    /// `src` when one replicated component serves every element of `value` (a scalar, a splat
    /// constant or a value whose elements share a component).
    fn uniform_scalar(&self, value: &Value) -> Option<Src> {
        let comps = &value.comps[..self.members.width(value)];
        if comps.iter().all(|comp| *comp == comps[0]) {
            return Some(value.element(0));
        }
        let words = self.regs.constant_words(value)?;
        words
            .iter()
            .all(|word| *word == words[0])
            .then(|| value.element(0))
    }

    /// The first element of `value` as a constant word, if it is one.
    fn constant_scalar(&self, value: &Value) -> Option<u32> {
        self.regs.constant_words(value)?.first().copied()
    }

    // ----- per-instruction lowerings --------------------------------------------------------

    /// A one-instruction component-wise operation on all operands; `parts` is `inst` split by
    /// [`super::typed_parts`].
    fn lower_elementwise(
        &mut self,
        mapping: Elementwise,
        inst: SpvInst<'_>,
        (result_type, result, operands): (Option<Id>, Option<Id>, &[u32]),
    ) -> Result<(), Error> {
        let ty = result_type
            .ok_or_else(|| self.unsupported(inst, "an operation without a result type"))?;
        let count = self.shape(inst, ty)?.count;
        let mut sources = Srcs::new();
        for word in operands {
            sources.push(self.id_src(Id(*word), inst)?);
        }
        if mapping.swap {
            sources.reverse();
        }
        if mapping.negate_second
            && let Some(second) = sources.get_mut(1)
        {
            *second = second.negate();
        }
        let mut value = self.alu_srcs(mapping.op, mapping.ctrl, count, sources);
        if mapping.invert {
            value = self.alu(Opcode::INot, count, [value.src()]);
        }
        let result =
            result.ok_or_else(|| self.unsupported(inst, "an operation without a result"))?;
        self.define_fresh(result, value);
        Ok(())
    }

    /// A one-operand operation on a family that has it.
    fn unary_checked(&mut self, op: Opcode, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        self.require(inst, op)?;
        let a = self.operand_src_in(inst, operands, 0)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        Ok(self.alu(op, count, [a]))
    }

    /// OpBitcast between 32-bit types of the same component count: the bits stay where they
    /// are (IL registers are untyped, amd-il.md §7.1).
    // Out of line: `lower_op` stays a compact dispatch; this instruction's lowering is large
    // and runs alone.
    #[inline(never)]
    fn lower_bitcast(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        let operand_type = self.operand_type_in(inst, operands, 0)?;
        let from = self.shape(inst, operand_type)?;
        let to = self.shape_of_result(inst, result_type)?;
        if from.count != to.count {
            return Err(self.unsupported(inst, "OpBitcast between vectors of different sizes"));
        }
        self.operand_in(inst, operands, 0)
    }

    /// OpQuantizeToF16: through half precision and back (`f2f16`, `f162f`, EG+), with half
    /// denormals flushed to a zero of the same sign as SPIR-V requires (spirv.md §6.13 item 8).
    // Out of line: a rare instruction, which inlined would spread `lower_op`'s code.
    #[inline(never)]
    fn lower_quantize(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        self.require(inst, Opcode::F2F16)?;
        let a = self.operand_in(inst, operands, 0)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        let half = self.alu(Opcode::F2F16, count, [a.src()]);
        let exponent_mask = self.word(0x7C00);
        let sign_mask = self.word(0x8000);
        let exponent = self.alu(Opcode::And, count, [half.src(), exponent_mask.src()]);
        let sign = self.alu(Opcode::And, count, [half.src(), sign_mask.src()]);
        let flushed = self.alu(
            Opcode::CmovLogical,
            count,
            [exponent.src(), half.src(), sign.src()],
        );
        Ok(self.alu(Opcode::F162F, count, [flushed.src()]))
    }

    // Out of line: `lower_op` stays a compact dispatch; this instruction's lowering is large
    // and runs alone.
    #[inline(never)]
    fn lower_composite_construct(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        let layout = self.layout_of_result(inst, result_type)?;
        match layout {
            Layout::Aggregate(members) => {
                let mut parts = Vec::with_capacity(operands.len());
                for n in 0..operands.len() {
                    parts.push(self.operand_in(inst, operands, n)?);
                }
                if members.len() != parts.len() {
                    return Err(self.unsupported(inst, "a composite with a wrong member count"));
                }
                Ok(self.members.aggregate(&parts))
            }
            Layout::Vector(shape) => {
                // Vector constituents are concatenated (SPIR-V OpCompositeConstruct). A lowered
                // constituent is read in place; only its elements are copied.
                let mut elements = std::mem::take(&mut self.element_scratch);
                elements.clear();
                let mut any_aggregate = false;
                for n in 0..operands.len() {
                    let id = self.operand_id_in(inst, operands, n)?;
                    let part = match self.values.get(id) {
                        Some(part) => *part,
                        None => self.operand_value(id, inst)?,
                    };
                    let members = &self.members;
                    elements.extend((0..members.width(&part)).map(|i| members.extract(&part, i)));
                    any_aggregate |= part.is_aggregate();
                }
                if elements.len() != usize::from(shape.count) || any_aggregate {
                    return Err(self.unsupported(inst, "a vector with a wrong element count"));
                }
                let value = self.gather(&elements);
                elements.clear();
                self.element_scratch = elements;
                Ok(value)
            }
        }
    }

    // Out of line: `lower_op` stays a compact dispatch; this instruction's lowering is large
    // and runs alone.
    #[inline(never)]
    fn lower_composite_extract(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (_, _, operands) = super::typed_parts(inst);
        let id = self.operand_id_in(inst, operands, 0)?;
        let indices = operands.get(1..).unwrap_or_default();
        // A lowered composite is walked in place; only the selected part is copied.
        if let Some(composite) = self.values.get(id) {
            return self.extract_path(inst, composite, indices);
        }
        let composite = self.operand_value(id, inst)?;
        self.extract_path(inst, &composite, indices)
    }

    /// The part of `composite` that literal `indices` select.
    fn extract_path(
        &self,
        inst: SpvInst<'_>,
        composite: &Value,
        indices: &[u32],
    ) -> Result<Value, Error> {
        let past_end = || self.unsupported(inst, "a composite index past the end");
        let mut current = *composite;
        let mut rest = indices;
        while let (true, Some((index, tail))) = (current.is_aggregate(), rest.split_first()) {
            current = self
                .members
                .get(&current, *index as usize)
                .ok_or_else(past_end)?;
            rest = tail;
        }
        let Some((index, tail)) = rest.split_first() else {
            return Ok(current);
        };
        // `current` is no aggregate here: the index picks an element.
        let index = *index as usize;
        if index >= self.members.width(&current) {
            return Err(past_end());
        }
        let mut current = self.members.extract(&current, index);
        for index in tail {
            let index = *index as usize;
            current = if current.is_aggregate() {
                self.members.get(&current, index).ok_or_else(past_end)?
            } else if index < self.members.width(&current) {
                self.members.extract(&current, index)
            } else {
                return Err(past_end());
            };
        }
        Ok(current)
    }

    // Out of line: a rare instruction, which inlined would spread `lower_op`'s code.
    #[inline(never)]
    fn lower_composite_insert(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (_, _, operands) = super::typed_parts(inst);
        let object = self.operand_in(inst, operands, 0)?;
        let composite = self.operand_in(inst, operands, 1)?;
        let indices = operands.get(2..).unwrap_or_default();
        self.insert_path(inst, &composite, indices, object)
    }

    /// `composite` with the part that `indices` select replaced by `object`.
    fn insert_path(
        &mut self,
        inst: SpvInst<'_>,
        composite: &Value,
        indices: &[u32],
        object: Value,
    ) -> Result<Value, Error> {
        let Some((first, rest)) = indices.split_first() else {
            return Ok(object);
        };
        let index = *first as usize;
        if composite.is_aggregate() {
            let mut members = self.members.of(composite).to_vec();
            let Some(member) = members.get(index).copied() else {
                return Err(self.unsupported(inst, "a composite index past the end"));
            };
            members[index] = self.insert_path(inst, &member, rest, object)?;
            return Ok(self.members.aggregate(&members));
        }
        if !rest.is_empty() || index >= self.members.width(composite) || object.is_aggregate() {
            return Err(self.unsupported(inst, "a composite index past the end"));
        }
        let mut elements = self.members.elements(composite);
        elements[index] = self.members.extract(&object, 0);
        Ok(self.gather(&elements))
    }

    // Out of line: `lower_op` stays a compact dispatch; this instruction's lowering is large
    // and runs alone.
    #[inline(never)]
    fn lower_vector_shuffle(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (_, _, operands) = super::typed_parts(inst);
        let mut elements = std::mem::take(&mut self.element_scratch);
        elements.clear();
        // Lowered operands are read in place; only the others are computed (in operand order,
        // as `operand` would).
        let first_id = self.operand_id_in(inst, operands, 0)?;
        let first_owned = self.value_unless_lowered(first_id, inst)?;
        let second_id = self.operand_id_in(inst, operands, 1)?;
        let second_owned = self.value_unless_lowered(second_id, inst)?;
        let first = self.lowered_or(first_id, first_owned.as_ref())?;
        let second = self.lowered_or(second_id, second_owned.as_ref())?;
        // Component `s` of the concatenated operands, extracted on demand (the concatenation
        // itself is never built).
        let first_width = self.members.width(first);
        let total = first_width + self.members.width(second);
        let pick = |s: usize| -> Option<Value> {
            if s < first_width {
                Some(self.members.extract(first, s))
            } else if s < total {
                Some(self.members.extract(second, s - first_width))
            } else {
                None
            }
        };
        let selectors = operands.get(2..).unwrap_or_default();
        // An undefined component (0xFFFFFFFF, spirv.md §6.13 item 5) repeats a selected one,
        // so that it adds no source register.
        let fallback = selectors
            .iter()
            .find_map(|s| pick(*s as usize))
            .or_else(|| pick(0))
            .ok_or_else(|| self.unsupported(inst, "a shuffle of empty vectors"))?;
        for selector in selectors {
            let element = match pick(*selector as usize) {
                Some(element) => element,
                None if *selector == u32::MAX => fallback,
                None => return Err(self.unsupported(inst, "a shuffle component past the end")),
            };
            elements.push(element);
        }
        if elements.is_empty() || elements.len() > 4 {
            return Err(self.unsupported(inst, "a shuffle of more than four components"));
        }
        let value = self.gather(&elements);
        elements.clear();
        self.element_scratch = elements;
        Ok(value)
    }

    /// The value of operand `id` of `inst` when it is not a lowered result (those are read in
    /// place with [`Lowerer::lowered_or`]).
    fn value_unless_lowered(&mut self, id: Id, inst: SpvInst<'_>) -> Result<Option<Value>, Error> {
        if self.values.get(id).is_some() {
            return Ok(None);
        }
        self.operand_value(id, inst).map(Some)
    }

    /// The lowered result `id`, or `owned` ([`Lowerer::value_unless_lowered`]) for another
    /// operand.
    fn lowered_or<'v>(&'v self, id: Id, owned: Option<&'v Value>) -> Result<&'v Value, Error> {
        owned
            .or_else(|| self.values.get(id))
            .ok_or_else(|| super::internal(format_args!("operand {id} has no value")))
    }

    /// OpVectorExtractDynamic: a constant index re-labels; otherwise one compare against every
    /// index at once and a `cmov_logical` chain. An index out of range is undefined in SPIR-V;
    /// here it yields element 0.
    pub(super) fn lower_extract_dynamic(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (_, _, operands) = super::typed_parts(inst);
        let vector = self.operand_in(inst, operands, 0)?;
        let index = self.operand_in(inst, operands, 1)?;
        if let Some(constant) = self.constant_scalar(&index) {
            return Ok(self.members.extract(
                &vector,
                (constant as usize).min(self.members.width(&vector).saturating_sub(1)),
            ));
        }
        let width = self.members.width(&vector);
        if width <= 1 {
            return Ok(self.members.extract(&vector, 0));
        }
        // Element i (i ≥ 1) of the comparison tells whether the index is i.
        let indices: Vec<u32> = (1u32..).take(width - 1).collect();
        let candidates = self.regs.vector(&indices);
        let is = self.alu(
            Opcode::IEq,
            u8::try_from(width - 1).unwrap_or(3),
            [index.element(0), candidates.src()],
        );
        let reg = self.regs.temp();
        let mut current = vector.element(0);
        for i in 1..width {
            self.emit(
                Inst::new(Opcode::CmovLogical)
                    .dst(dst_first(reg, 1))
                    .src(is.element(i - 1))
                    .src(vector.element(i))
                    .src(current),
            );
            current = temp_value(reg, 1).element(0);
        }
        Ok(temp_value(reg, 1))
    }

    /// OpVectorInsertDynamic: a constant index is a composite insert; otherwise one compare
    /// per component and one `cmov_logical`. An index out of range changes nothing.
    pub(super) fn lower_insert_dynamic(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (_, _, operands) = super::typed_parts(inst);
        let vector = self.operand_in(inst, operands, 0)?;
        let component = self.operand_in(inst, operands, 1)?;
        let index = self.operand_in(inst, operands, 2)?;
        let width = self.members.width(&vector);
        if let Some(constant) = self.constant_scalar(&index) {
            let mut elements = self.members.elements(&vector);
            if let Some(slot) = elements.get_mut(constant as usize) {
                *slot = self.members.extract(&component, 0);
            }
            return Ok(self.gather(&elements));
        }
        let count = vector.count;
        let positions: Vec<u32> = (0u32..).take(width).collect();
        let positions = self.regs.vector(&positions);
        let is = self.alu(Opcode::IEq, count, [index.element(0), positions.src()]);
        Ok(self.alu(
            Opcode::CmovLogical,
            count,
            [is.src(), component.element(0), vector.src()],
        ))
    }

    /// OpSelect: `cmov_logical` per component; a scalar condition selects whole vectors and,
    /// member by member, whole aggregates (spirv.md §6.13 item 6).
    fn select(
        &mut self,
        inst: SpvInst<'_>,
        condition: &Value,
        accept: &Value,
        reject: &Value,
    ) -> Result<Value, Error> {
        if accept.is_aggregate() {
            if condition.is_aggregate()
                || condition.count != 1
                || self.members.of(accept).len() != self.members.of(reject).len()
            {
                return Err(self.unsupported(inst, "this OpSelect of aggregates"));
            }
            let count = self.members.of(accept).len();
            let mut members = Vec::with_capacity(count);
            // Members are read by position: each select needs the lowerer mutably, so the list
            // of members is not borrowed across it.
            for i in 0..count {
                let (Some(a), Some(r)) = (self.members.get(accept, i), self.members.get(reject, i))
                else {
                    break;
                };
                members.push(self.select(inst, condition, &a, &r)?);
            }
            return Ok(self.members.aggregate(&members));
        }
        if accept.wide {
            return Ok(self.select_wide(condition, accept, reject));
        }
        Ok(self.alu(
            Opcode::CmovLogical,
            accept.count,
            [condition.src(), accept.src(), reject.src()],
        ))
    }

    /// OpSelect of lowered scalars or vectors, read in place (no copies of the operand
    /// values); `None` when an operand is not in the value table yet or the values are
    /// aggregates or 64-bit, which [`Lowerer::select`] handles. The operand ids are looked up
    /// in operand order, so a missing operand is reported as [`Lowerer::operand_in`] would.
    fn select_in_place(
        &mut self,
        inst: SpvInst<'_>,
        operands: &[u32],
    ) -> Result<Option<Value>, Error> {
        let mut values = [None; 3];
        for (n, value) in values.iter_mut().enumerate() {
            let id = self.operand_id_in(inst, operands, n)?;
            let Some(lowered) = self.values.get(id) else {
                return Ok(None);
            };
            *value = Some(lowered);
        }
        let [Some(condition), Some(accept), Some(reject)] = values else {
            return Ok(None);
        };
        if accept.is_aggregate() || accept.wide {
            return Ok(None);
        }
        let count = accept.count;
        let sources = [condition.src(), accept.src(), reject.src()];
        Ok(Some(self.alu(Opcode::CmovLogical, count, sources)))
    }

    /// OpDot of two lowered vectors, read in place (no copies of the operand values); `None`
    /// when an operand is not in the value table yet. Operand ids are looked up in operand
    /// order, so a missing operand is reported as [`Lowerer::operand_in`] would.
    fn dot_in_place(
        &mut self,
        inst: SpvInst<'_>,
        operands: &[u32],
    ) -> Result<Option<Value>, Error> {
        let a = self.operand_id_in(inst, operands, 0)?;
        if self.values.get(a).is_none() {
            return Ok(None);
        }
        let b = self.operand_id_in(inst, operands, 1)?;
        let (Some(a), Some(b)) = (self.values.get(a), self.values.get(b)) else {
            return Ok(None);
        };
        let op = dot_opcode(self.members.width(a));
        let sources = [a.src(), b.src()];
        Ok(Some(self.alu_c(op, Control::IEEE, 1, sources)))
    }

    /// a / b. IL's default divide returns ±FLT_MAX for a zero divisor; `div_zeroop(infinity)`
    /// gives ±Inf with the sign of the dividend, and +Inf for 0/0 (amd-il.md §0.6). Vulkan
    /// allows that by default: a non-zero divided by zero must be an infinity, but the sign of
    /// a zero may be ignored and results assumed not to be NaN. Under the
    /// SignedZeroInfNanPreserve execution mode the zero-divisor case is made IEEE's: a·(±Inf
    /// with the divisor's sign), which is ±Inf with the XOR of the signs, and NaN for 0/0.
    pub(super) fn float_divide(&mut self, count: u8, a: &Value, b: &Value) -> Value {
        let quotient = self.alu_c(
            Opcode::Div,
            Control::zeroop(ZeroOp::Infinity),
            count,
            [a.src(), b.src()],
        );
        if !self.preserves_signed_zero_inf_nan() {
            return quotient;
        }
        let zero = self.word(0);
        let sign_mask = self.word(SIGN_BIT);
        let infinity = self.word(INFINITY_BITS);
        // Float compares flush denormals, as `div` does: a denormal divisor is a zero here.
        let by_zero = self.alu(Opcode::Eq, count, [b.src(), zero.src()]);
        let sign = self.alu(Opcode::And, count, [b.src(), sign_mask.src()]);
        let signed_infinity = self.alu(Opcode::IOr, count, [sign.src(), infinity.src()]);
        let ieee = self.alu_c(
            Opcode::Mul,
            Control::IEEE,
            count,
            [a.src(), signed_infinity.src()],
        );
        self.alu(
            Opcode::CmovLogical,
            count,
            [by_zero.src(), ieee.src(), quotient.src()],
        )
    }

    /// Whether an entry point of the module declares SignedZeroInfNanPreserve for 32-bit floats
    /// (SPV_KHR_float_controls; SPIR-V §3.2.5).
    fn preserves_signed_zero_inf_nan(&self) -> bool {
        self.module.execution_modes().iter().any(|mode| {
            mode.execution_mode() == Some(spirv::ExecutionMode::SignedZeroInfNanPreserve)
                && mode.operands.first() == Some(&32)
        })
    }

    /// `udiv`/`umod` with a zero divisor giving all ones (a deterministic choice for a result
    /// SPIR-V leaves undefined and IL unspecified, amd-il.md §6.9); a constant non-zero
    /// divisor needs no guard.
    fn unsigned_divide(&mut self, op: Opcode, count: u8, a: &Value, b: &Value) -> Value {
        let result = self.alu(op, count, [a.src(), b.src()]);
        let nonzero_constant = self
            .regs
            .constant_words(b)
            .is_some_and(|words| words.iter().all(|w| *w != 0));
        if nonzero_constant {
            return result;
        }
        let all_ones = self.word(TRUE);
        self.alu(
            Opcode::CmovLogical,
            count,
            [b.src(), result.src(), all_ones.src()],
        )
    }

    /// SDiv, SRem and SMod from magnitudes (amd-il.md §7.3): |x| is `imax(x, −x)` (which
    /// leaves INT_MIN as 2^31, its magnitude read unsigned), the quotient is negated when the
    /// signs differ, the remainder takes the dividend's sign, and SMod adds the divisor to a
    /// non-zero remainder whose sign differs from the divisor's (spirv.md §6.13 item 2).
    // Out of line: a rare instruction, which inlined would spread `lower_op`'s code.
    #[inline(never)]
    fn lower_signed_division(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        let a = self.operand_in(inst, operands, 0)?;
        let b = self.operand_in(inst, operands, 1)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        let magnitude_a = self.magnitude(count, &a);
        let magnitude_b = self.magnitude(count, &b);
        let zero = self.word(0);
        if op == spirv::Op::SDiv {
            let quotient = self.unsigned_divide(Opcode::UDiv, count, &magnitude_a, &magnitude_b);
            let signs = self.alu(Opcode::IXor, count, [a.src(), b.src()]);
            let negative = self.alu(Opcode::ILt, count, [signs.src(), zero.src()]);
            return Ok(self.conditional_negate(count, &quotient, &negative));
        }
        let remainder = self.unsigned_divide(Opcode::UMod, count, &magnitude_a, &magnitude_b);
        let negative = self.alu(Opcode::ILt, count, [a.src(), zero.src()]);
        let remainder = self.conditional_negate(count, &remainder, &negative);
        if op == spirv::Op::SRem {
            return Ok(remainder);
        }
        let signs = self.alu(Opcode::IXor, count, [remainder.src(), b.src()]);
        let differ = self.alu(Opcode::ILt, count, [signs.src(), zero.src()]);
        // A zero remainder keeps its value whatever the signs.
        let adjust = self.alu(
            Opcode::CmovLogical,
            count,
            [remainder.src(), differ.src(), zero.src()],
        );
        let addend = self.alu(Opcode::And, count, [adjust.src(), b.src()]);
        Ok(self.alu(Opcode::IAdd, count, [remainder.src(), addend.src()]))
    }

    /// |x| of signed integers as `imax(x, −x)`, folded for a constant.
    fn magnitude(&mut self, count: u8, x: &Value) -> Value {
        if let Some(words) = self.regs.constant_words(x) {
            let magnitudes: Vec<u32> = words.iter().map(|w| (*w as i32).unsigned_abs()).collect();
            return self.regs.vector(&magnitudes);
        }
        self.alu(Opcode::IMax, count, [x.src(), negated(x.src())])
    }

    /// `value` negated where `mask` is all ones: (v ^ m) − m.
    fn conditional_negate(&mut self, count: u8, value: &Value, mask: &Value) -> Value {
        let flipped = self.alu(Opcode::IXor, count, [value.src(), mask.src()]);
        self.alu(Opcode::IAdd, count, [flipped.src(), negated(mask.src())])
    }

    /// Shifts: one instruction when the amount is one replicated component, else one per
    /// component (amd-il.md §0.5).
    fn lower_shift(&mut self, op: Opcode, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        let base = self.operand_in(inst, operands, 0)?;
        let amount = self.operand_in(inst, operands, 1)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        if let Some(uniform) = self.uniform_scalar(&amount) {
            return Ok(self.alu(op, count, [base.src(), uniform]));
        }
        let reg = self.regs.temp();
        for i in 0..usize::from(count) {
            self.emit(
                Inst::new(op)
                    .dst(dst_at(reg, i))
                    .src(base.element(i))
                    .src(amount.element(i)),
            );
        }
        Ok(temp_value(reg, count))
    }

    /// OpBitFieldUExtract / SExtract (base, offset, count) → `u/ibit_extract d, count, offset,
    /// base`. IL widths are five bits, so a count of 32 (offset 0, the whole value) reads as
    /// an empty field; it is special-cased (amd-il.md §7.3).
    fn lower_bitfield_extract(&mut self, op: Opcode, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        self.require(inst, op)?;
        let base = self.operand_in(inst, operands, 0)?;
        let offset = self.operand_in(inst, operands, 1)?;
        let width = self.operand_in(inst, operands, 2)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        if self.constant_scalar(&width) == Some(32) {
            return Ok(base);
        }
        let field = self.alu(op, count, [width.element(0), offset.element(0), base.src()]);
        if self.constant_scalar(&width).is_some() {
            return Ok(field);
        }
        Ok(self.whole_when_32(count, &width, &base, &field))
    }

    /// OpBitFieldInsert (base, insert, offset, count) → `ubit_insert d, count, offset, insert,
    /// base`; a count of 32 replaces the whole value.
    // Out of line: a rare instruction, which inlined would spread `lower_op`'s code.
    #[inline(never)]
    fn lower_bitfield_insert(&mut self, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        self.require(inst, Opcode::UBitInsert)?;
        let base = self.operand_in(inst, operands, 0)?;
        let insert = self.operand_in(inst, operands, 1)?;
        let offset = self.operand_in(inst, operands, 2)?;
        let width = self.operand_in(inst, operands, 3)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        if self.constant_scalar(&width) == Some(32) {
            return Ok(insert);
        }
        let merged = self.alu(
            Opcode::UBitInsert,
            count,
            [
                width.element(0),
                offset.element(0),
                insert.src(),
                base.src(),
            ],
        );
        if self.constant_scalar(&width).is_some() {
            return Ok(merged);
        }
        Ok(self.whole_when_32(count, &width, &insert, &merged))
    }

    /// `whole` where the bit count `width` is 32, else `field`.
    fn whole_when_32(&mut self, count: u8, width: &Value, whole: &Value, field: &Value) -> Value {
        let thirty_two = self.word(32);
        let is_whole = self.alu(Opcode::IEq, 1, [width.element(0), thirty_two.src()]);
        self.alu(
            Opcode::CmovLogical,
            count,
            [is_whole.element(0), whole.src(), field.src()],
        )
    }

    /// IsNan, IsInf, IsFinite, IsNormal and SignBitSet as integer tests of the bits: float
    /// compares flush denormals and say nothing reliable about NaN (amd-il.md §9).
    // Out of line: a rare instruction, which inlined would spread `lower_op`'s code.
    #[inline(never)]
    fn lower_float_class(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (result_type, _, operands) = super::typed_parts(inst);
        use spirv::Op;
        let a = self.operand_in(inst, operands, 0)?;
        let count = self.shape_of_result(inst, result_type)?.count;
        if op == Op::SignBitSet {
            let zero = self.word(0);
            return Ok(self.alu(Opcode::ILt, count, [a.src(), zero.src()]));
        }
        let mask = self.word(MAGNITUDE_BITS);
        let magnitude = self.alu(Opcode::And, count, [a.src(), mask.src()]);
        let infinity = self.word(INFINITY_BITS);
        Ok(match op {
            Op::IsNan => self.alu(Opcode::ULt, count, [infinity.src(), magnitude.src()]),
            Op::IsInf => self.alu(Opcode::IEq, count, [magnitude.src(), infinity.src()]),
            Op::IsFinite => self.alu(Opcode::ULt, count, [magnitude.src(), infinity.src()]),
            _ => {
                // Normal: the exponent field is 1..=254, i.e. magnitude − 2^23 < 0x7F000000.
                let smallest = self.word(0x0080_0000);
                let span = self.word(INFINITY_BITS - 0x0080_0000);
                let offset = self.alu(
                    Opcode::IAdd,
                    count,
                    [magnitude.src(), negated(smallest.src())],
                );
                self.alu(Opcode::ULt, count, [offset.src(), span.src()])
            }
        })
    }

    /// OpAny / OpAll: `ior` / `iand` of the elements.
    fn reduce(&mut self, op: Opcode, vector: &Value) -> Value {
        let mut acc = self.members.extract(vector, 0);
        for i in 1..self.members.width(vector) {
            acc = self.alu(op, 1, [acc.src(), vector.element(i)]);
        }
        acc
    }

    /// `dot(a, b)` (`dp2/dp3/dp4_ieee`, amd-il.md §0.3), broadcast into `count` components.
    pub(super) fn dot(&mut self, a: &Value, b: &Value, count: u8) -> Value {
        self.alu_c(
            dot_opcode(self.members.width(a)),
            Control::IEEE,
            count,
            [a.src(), b.src()],
        )
    }

    /// The column vectors of a matrix value.
    pub(super) fn columns(&self, inst: SpvInst<'_>, matrix: &Value) -> Result<Vec<Value>, Error> {
        let columns = self.members.of(matrix);
        if !matrix.is_aggregate() || columns.iter().any(Value::is_aggregate) {
            return Err(self.unsupported(inst, "a matrix operand that is not a matrix"));
        }
        Ok(columns.to_vec())
    }

    /// `v · M`: element j is dot(v, column j), each dot written into its own component.
    fn vector_times_matrix(
        &mut self,
        inst: SpvInst<'_>,
        vector: &Value,
        columns: &[Value],
    ) -> Result<Value, Error> {
        if columns.is_empty() || columns.len() > 4 {
            return Err(self.unsupported(inst, "a matrix of more than four columns"));
        }
        let op = match self.members.width(vector) {
            2 => Opcode::Dp2,
            3 => Opcode::Dp3,
            _ => Opcode::Dp4,
        };
        let reg = self.regs.temp();
        for (j, column) in columns.iter().enumerate() {
            self.emit(
                Inst::new(op)
                    .ctrl(Control::IEEE)
                    .dst(dst_at(reg, j))
                    .src(vector.src())
                    .src(column.src()),
            );
        }
        Ok(temp_value(reg, u8::try_from(columns.len()).unwrap_or(4)))
    }

    /// `M · v`: Σ column j · `v[j]`, as a multiply and a chain of `mad_ieee`.
    fn matrix_times_vector(
        &mut self,
        inst: SpvInst<'_>,
        columns: &[Value],
        vector: &Value,
    ) -> Result<Value, Error> {
        let Some(first) = columns.first() else {
            return Err(self.unsupported(inst, "a matrix without columns"));
        };
        let count = first.count;
        let mut sum = self.alu_c(
            Opcode::Mul,
            Control::IEEE,
            count,
            [first.src(), vector.element(0)],
        );
        for (j, column) in columns.iter().enumerate().skip(1) {
            sum = self.alu_c(
                Opcode::Mad,
                Control::IEEE,
                count,
                [column.src(), vector.element(j), sum.src()],
            );
        }
        Ok(sum)
    }

    /// The transpose of a matrix given by its columns.
    pub(super) fn transpose(
        &mut self,
        inst: SpvInst<'_>,
        columns: &[Value],
    ) -> Result<Value, Error> {
        let rows = columns.first().map_or(0, |c| self.members.width(c));
        if columns.is_empty() || columns.len() > 4 || rows == 0 {
            return Err(self.unsupported(inst, "a matrix of more than four columns"));
        }
        let mut transposed = Vec::with_capacity(rows);
        for i in 0..rows {
            let row: Vec<Value> = columns
                .iter()
                .map(|column| self.members.extract(column, i))
                .collect();
            transposed.push(self.gather(&row));
        }
        Ok(self.members.aggregate(&transposed))
    }

    /// IAddCarry, ISubBorrow, UMulExtended, SMulExtended: two-member structs (low part, carry /
    /// borrow / high part). The carry and borrow are 1 or 0: `icarry`/`iborrow` where the
    /// family has them (EG+), otherwise an unsigned compare masked to 1.
    // Out of line: a rare instruction, which inlined would spread `lower_op`'s code.
    #[inline(never)]
    fn lower_extended(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<Value, Error> {
        let (_, _, operands) = super::typed_parts(inst);
        use spirv::Op;
        let a = self.operand_in(inst, operands, 0)?;
        let b = self.operand_in(inst, operands, 1)?;
        let count = a.count;
        let has_carry = Opcode::ICarry.info().families.contains(self.options.target);
        let (low, high) = match op {
            Op::IAddCarry => {
                let sum = self.alu(Opcode::IAdd, count, [a.src(), b.src()]);
                let carry = if has_carry {
                    self.alu(Opcode::ICarry, count, [a.src(), b.src()])
                } else {
                    // The sum wrapped exactly when it is below an operand.
                    let wrapped = self.alu(Opcode::ULt, count, [sum.src(), a.src()]);
                    self.low_bit(count, &wrapped)
                };
                (sum, carry)
            }
            Op::ISubBorrow => {
                let difference = self.alu(Opcode::IAdd, count, [a.src(), negated(b.src())]);
                let borrow = if has_carry {
                    self.alu(Opcode::IBorrow, count, [a.src(), b.src()])
                } else {
                    let below = self.alu(Opcode::ULt, count, [a.src(), b.src()]);
                    self.low_bit(count, &below)
                };
                (difference, borrow)
            }
            Op::UMulExtended => (
                self.alu(Opcode::IMul, count, [a.src(), b.src()]),
                self.alu(Opcode::UMulHigh, count, [a.src(), b.src()]),
            ),
            _ => (
                self.alu(Opcode::IMul, count, [a.src(), b.src()]),
                self.alu(Opcode::IMulHigh, count, [a.src(), b.src()]),
            ),
        };
        Ok(self.members.aggregate(&[low, high]))
    }

    /// An IL boolean (0 / all ones) as 0 / 1.
    fn low_bit(&mut self, count: u8, boolean: &Value) -> Value {
        let one = self.word(1);
        self.alu(Opcode::And, count, [boolean.src(), one.src()])
    }
}

/// The value whose elements are `elements` when they all live in one register.
fn same_register(elements: &[Value]) -> Option<Value> {
    let first = elements.first()?;
    if elements.iter().any(|element| element.reg != first.reg) {
        return None;
    }
    let mut comps = XYZW;
    for (slot, element) in comps.iter_mut().zip(elements) {
        *slot = element.comps[0];
    }
    Some(Value {
        reg: first.reg,
        comps,
        count: u8::try_from(elements.len().clamp(1, 4)).unwrap_or(4),
        members: MemberRange::default(),
        wide: false,
    })
}

/// The IL dot-product opcode for vectors as wide as `a` (a plain multiply for scalars).
fn dot_opcode(width: usize) -> Opcode {
    match width {
        2 => Opcode::Dp2,
        3 => Opcode::Dp3,
        4 => Opcode::Dp4,
        _ => Opcode::Mul,
    }
}
