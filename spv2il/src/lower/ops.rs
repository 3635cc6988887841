//! Arithmetic, logic, comparison, conversion and composite instructions.
//!
//! Most SPIR-V operations map to one component-wise IL instruction (amd-il.md §9 table). The
//! exceptions are written out where they occur: subtraction is addition with a negated source
//! (integer negate is two's complement, amd-il.md §1.6), float multiplies carry `_ieee` so that
//! 0·Inf is NaN as SPIR-V requires (amd-il.md §0.3), and comparisons IL has only one direction
//! of swap their operands.

use il_model::{Control, Inst, Opcode, Reg, RegType, Src};
use spv_reader::{Id, Inst as SpvInst, spirv};

use super::Lowerer;
use super::memory::located;
use super::types;
use super::values::{Value, dst_first};
use crate::error::{Error, Unsupported};

/// How a component-wise SPIR-V operation becomes IL.
#[derive(Clone, Copy)]
struct Elementwise {
    op: Opcode,
    ctrl: Control,
    /// Swap the two sources (`a > b` is `b < a`).
    swap: bool,
    /// Negate the second source (subtraction).
    negate_second: bool,
}

const fn plain(op: Opcode) -> Elementwise {
    Elementwise {
        op,
        ctrl: Control::NONE,
        swap: false,
        negate_second: false,
    }
}

const fn swapped(op: Opcode) -> Elementwise {
    Elementwise {
        op,
        ctrl: Control::NONE,
        swap: true,
        negate_second: false,
    }
}

const fn ieee(op: Opcode) -> Elementwise {
    Elementwise {
        op,
        ctrl: Control::IEEE,
        swap: false,
        negate_second: false,
    }
}

const fn minus(op: Opcode) -> Elementwise {
    Elementwise {
        op,
        ctrl: Control::NONE,
        swap: false,
        negate_second: true,
    }
}

/// The component-wise mapping of `op`, if it has one.
fn elementwise(op: spirv::Op) -> Option<Elementwise> {
    use spirv::Op;
    Some(match op {
        Op::IAdd => plain(Opcode::IAdd),
        Op::ISub => minus(Opcode::IAdd),
        Op::IMul => plain(Opcode::IMul),
        Op::UDiv => plain(Opcode::UDiv),
        Op::UMod => plain(Opcode::UMod),
        Op::FAdd => plain(Opcode::Add),
        Op::FSub => minus(Opcode::Add),
        Op::FMul => ieee(Opcode::Mul),
        Op::BitwiseAnd | Op::LogicalAnd => plain(Opcode::And),
        Op::BitwiseOr | Op::LogicalOr => plain(Opcode::IOr),
        Op::BitwiseXor | Op::LogicalNotEqual => plain(Opcode::IXor),
        Op::IEqual | Op::LogicalEqual => plain(Opcode::IEq),
        Op::INotEqual => plain(Opcode::INe),
        Op::SLessThan => plain(Opcode::ILt),
        Op::SGreaterThanEqual => plain(Opcode::IGe),
        Op::SGreaterThan => swapped(Opcode::ILt),
        Op::SLessThanEqual => swapped(Opcode::IGe),
        Op::ULessThan => plain(Opcode::ULt),
        Op::UGreaterThanEqual => plain(Opcode::UGe),
        Op::UGreaterThan => swapped(Opcode::ULt),
        Op::ULessThanEqual => swapped(Opcode::UGe),
        Op::FOrdEqual => plain(Opcode::Eq),
        Op::FOrdLessThan => plain(Opcode::Lt),
        Op::FOrdGreaterThanEqual => plain(Opcode::Ge),
        Op::FOrdGreaterThan => swapped(Opcode::Lt),
        Op::FOrdLessThanEqual => swapped(Opcode::Ge),
        Op::Not | Op::LogicalNot => plain(Opcode::INot),
        Op::SNegate => plain(Opcode::INegate),
        Op::ConvertFToS => plain(Opcode::Ftoi),
        Op::ConvertFToU => plain(Opcode::Ftou),
        Op::ConvertSToF => plain(Opcode::Itof),
        Op::ConvertUToF => plain(Opcode::Utof),
        Op::Bitcast | Op::CopyObject => plain(Opcode::Mov),
        _ => return None,
    })
}

impl Lowerer<'_> {
    /// Lowers an instruction that is neither memory nor control flow.
    pub(super) fn lower_op(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<(), Error> {
        if let Some(mapping) = elementwise(op) {
            return self.lower_elementwise(mapping, inst);
        }
        Err(Unsupported::at(self.module, inst.index(), format!("Op{op:?}")).into())
    }

    /// A one-instruction component-wise operation on all operands.
    fn lower_elementwise(&mut self, mapping: Elementwise, inst: SpvInst<'_>) -> Result<(), Error> {
        let module = self.module;
        let (Some(result), Some(ty)) = (inst.result_id(), inst.result_type()) else {
            return Err(
                Unsupported::at(module, inst.index(), "an operation without a result").into(),
            );
        };
        let shape = types::shape_of(module, ty).map_err(|u| located(module, inst, u))?;
        let mut sources: Vec<Src> = Vec::with_capacity(inst.operands().len());
        for operand in inst.operands() {
            sources.push(self.value(Id(*operand), inst)?.src());
        }
        if mapping.swap {
            sources.reverse();
        }
        if mapping.negate_second
            && let Some(second) = sources.get_mut(1)
        {
            second.neg = [true; 4];
        }
        let reg = self.regs.temp();
        let mut il = Inst::new(mapping.op)
            .ctrl(mapping.ctrl)
            .dst(dst_first(reg, shape.count));
        il.src = sources;
        self.emit(il);
        self.set_value(
            result,
            Value::in_reg(Reg::new(RegType::Temp, reg), shape.count),
        );
        Ok(())
    }
}
