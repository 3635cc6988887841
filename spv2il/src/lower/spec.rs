//! Constants, specialization constants included, evaluated to 32-bit words at translation time.
//!
//! A specialization constant takes the value given with `--spec ID=VALUE` for its `SpecId`, or
//! else its default (SPIR-V §2.12). `OpSpecConstantOp` is evaluated here for the operations that
//! SPIR-V allows on integers and booleans in shaders (SPIR-V §3.3.7 OpSpecConstantOp), so that
//! IL, which has no specialization, sees plain literals. Every value used is recorded for the
//! reflection.

use spv_reader::{Constant, Id, Module, spirv};

use super::types;
use crate::error::{Error, Unsupported};

/// Nesting limit for evaluating constants made of constants; deeper chains are refused.
const MAX_CONSTANT_DEPTH: u32 = 64;

/// Evaluates constants of one module under a set of overrides.
pub struct ConstantEvaluator<'m> {
    module: &'m Module,
    overrides: Vec<(u32, String)>,
    /// (SpecId, value word) of every specialization constant evaluated, in first-use order.
    used: Vec<(u32, u32)>,
}

impl<'m> ConstantEvaluator<'m> {
    /// An evaluator applying `overrides` (SpecId, value text).
    pub fn new(module: &'m Module, overrides: &[(u32, String)]) -> ConstantEvaluator<'m> {
        ConstantEvaluator {
            module,
            overrides: overrides.to_vec(),
            used: Vec::new(),
        }
    }

    /// The specialization constants used, as (SpecId, value word), sorted by SpecId.
    pub fn used(&self) -> Vec<(u32, u32)> {
        let mut used = self.used.clone();
        used.sort_unstable();
        used.dedup();
        used
    }

    /// Element `element` of constant `id` as a 32-bit word.
    pub fn word(&mut self, id: Id, element: usize) -> Result<u32, Error> {
        self.word_at(id, element, 0)
    }

    fn word_at(&mut self, id: Id, element: usize, depth: u32) -> Result<u32, Error> {
        if depth > MAX_CONSTANT_DEPTH {
            return Err(Unsupported::new(format!(
                "constant {id} nested more than {MAX_CONSTANT_DEPTH} deep"
            ))
            .into());
        }
        let module = self.module;
        match module.constant(id) {
            Some(Constant::Bool { value, spec, .. }) => {
                let mut value = *value;
                if *spec && let Some((spec_id, text)) = self.override_of(id) {
                    value = parse_bool(&text)
                        .ok_or_else(|| bad_override(spec_id, &text, "a boolean"))?;
                    self.used.push((spec_id, u32::from(value)));
                }
                Ok(if value { u32::MAX } else { 0 })
            }
            Some(Constant::Scalar { ty, bits, spec }) => {
                // A 32-bit scalar's bits are its low word (wider scalars are refused by shape_of).
                let mut word = *bits as u32;
                if *spec {
                    let spec_id = types::decoration_literal(module, id, spirv::Decoration::SpecId);
                    if let Some((spec_id, text)) = self.override_of(id) {
                        word = parse_scalar(module, *ty, &text).ok_or_else(|| {
                            bad_override(spec_id, &text, "a number of the constant's type")
                        })?;
                    }
                    if let Some(spec_id) = spec_id {
                        self.used.push((spec_id, word));
                    }
                }
                Ok(word)
            }
            Some(Constant::Null { .. }) | Some(Constant::Undef { .. }) => Ok(0),
            Some(Constant::Composite { parts, .. }) => match parts.get(element) {
                Some(part) => self.word_at(*part, 0, depth + 1),
                None => {
                    Err(Unsupported::new(format!("constant {id}: no element {element}")).into())
                }
            },
            Some(Constant::SpecOp {
                ty,
                opcode,
                operands,
            }) => {
                let (ty, opcode, operands) = (*ty, *opcode, operands.clone());
                self.spec_op(id, ty, opcode, &operands, element, depth)
            }
            _ => Err(Unsupported::new(format!("constant {id} of this kind")).into()),
        }
    }

    /// Element `element` of the 64-bit constant `id` (a double or 64-bit integer, or a vector
    /// of them) as its bit pattern. Specialization constants of 64-bit types are refused: the
    /// reflection records their values as 32-bit words.
    pub fn bits64(&mut self, id: Id, element: usize) -> Result<u64, Error> {
        self.bits64_at(id, element, 0)
    }

    fn bits64_at(&mut self, id: Id, element: usize, depth: u32) -> Result<u64, Error> {
        if depth > MAX_CONSTANT_DEPTH {
            return Err(Unsupported::new(format!(
                "constant {id} nested more than {MAX_CONSTANT_DEPTH} deep"
            ))
            .into());
        }
        match self.module.constant(id) {
            Some(Constant::Scalar {
                bits, spec: false, ..
            }) => Ok(*bits),
            Some(Constant::Null { .. }) | Some(Constant::Undef { .. }) => Ok(0),
            Some(Constant::Composite {
                parts, spec: false, ..
            }) => match parts.get(element) {
                Some(part) => {
                    let part = *part;
                    self.bits64_at(part, 0, depth + 1)
                }
                None => {
                    Err(Unsupported::new(format!("constant {id}: no element {element}")).into())
                }
            },
            _ => Err(Unsupported::new(format!(
                "64-bit specialization constants or constant operations ({id})"
            ))
            .into()),
        }
    }

    /// The override for specialization constant `id`, if its SpecId has one.
    fn override_of(&self, id: Id) -> Option<(u32, String)> {
        let spec_id = types::decoration_literal(self.module, id, spirv::Decoration::SpecId)?;
        self.overrides
            .iter()
            .rev()
            .find(|(s, _)| *s == spec_id)
            .map(|(s, text)| (*s, text.clone()))
    }

    /// Evaluates `OpSpecConstantOp` (SPIR-V §3.3.7) on 32-bit integers and booleans.
    fn spec_op(
        &mut self,
        id: Id,
        ty: Id,
        opcode: u16,
        operands: &[u32],
        element: usize,
        depth: u32,
    ) -> Result<u32, Error> {
        use spirv::Op;
        let op = Op::from_u32(u32::from(opcode))
            .ok_or_else(|| Unsupported::new(format!("OpSpecConstantOp with opcode {opcode}")))?;
        if op == Op::CompositeExtract {
            let (Some(composite), Some(index)) = (operands.first(), operands.get(1)) else {
                return Err(Unsupported::new(format!(
                    "constant {id}: a malformed OpCompositeExtract"
                ))
                .into());
            };
            return self.word_at(Id(*composite), *index as usize, depth + 1);
        }
        if op == Op::VectorShuffle {
            let (Some(a), Some(b)) = (operands.first(), operands.get(1)) else {
                return Err(Unsupported::new(format!(
                    "constant {id}: a malformed OpVectorShuffle"
                ))
                .into());
            };
            let width = types::shape_of(
                self.module,
                self.module.constant(Id(*a)).map(Constant::ty).unwrap_or(ty),
            )
            .map(|s| usize::from(s.count))
            .unwrap_or(1);
            let selector = *operands.get(2 + element).unwrap_or(&0) as usize;
            return if selector < width {
                self.word_at(Id(*a), selector, depth + 1)
            } else {
                self.word_at(Id(*b), selector - width, depth + 1)
            };
        }
        let mut args = Vec::with_capacity(operands.len());
        for operand in operands {
            args.push(self.word_at(Id(*operand), element, depth + 1)?);
        }
        let arg = |n: usize| args.get(n).copied().unwrap_or(0);
        let (a, b, c) = (arg(0), arg(1), arg(2));
        let bool_word = |v: bool| if v { u32::MAX } else { 0 };
        let signed = |v: u32| v as i32;
        Ok(match op {
            Op::SConvert | Op::UConvert | Op::Bitcast => a,
            Op::SNegate => a.wrapping_neg(),
            Op::Not => !a,
            Op::IAdd => a.wrapping_add(b),
            Op::ISub => a.wrapping_sub(b),
            Op::IMul => a.wrapping_mul(b),
            // Division by zero is undefined in SPIR-V; evaluate it to 0 deterministically.
            Op::UDiv => a.checked_div(b).unwrap_or(0),
            Op::SDiv => signed(a).checked_div(signed(b)).unwrap_or(0) as u32,
            Op::UMod => a.checked_rem(b).unwrap_or(0),
            Op::SRem => signed(a).checked_rem(signed(b)).unwrap_or(0) as u32,
            Op::SMod => match signed(a).checked_rem(signed(b)) {
                Some(r) if r != 0 && (r < 0) != (signed(b) < 0) => r.wrapping_add(signed(b)) as u32,
                Some(r) => r as u32,
                None => 0,
            },
            Op::ShiftRightLogical => a.checked_shr(b).unwrap_or(0),
            Op::ShiftRightArithmetic => signed(a).checked_shr(b).unwrap_or(signed(a) >> 31) as u32,
            Op::ShiftLeftLogical => a.checked_shl(b).unwrap_or(0),
            Op::BitwiseOr | Op::LogicalOr => a | b,
            Op::BitwiseXor | Op::LogicalNotEqual => a ^ b,
            Op::BitwiseAnd | Op::LogicalAnd => a & b,
            Op::LogicalNot => !a,
            Op::LogicalEqual => bool_word(a == b),
            Op::Select => {
                if a != 0 {
                    b
                } else {
                    c
                }
            }
            Op::IEqual => bool_word(a == b),
            Op::INotEqual => bool_word(a != b),
            Op::ULessThan => bool_word(a < b),
            Op::SLessThan => bool_word(signed(a) < signed(b)),
            Op::UGreaterThan => bool_word(a > b),
            Op::SGreaterThan => bool_word(signed(a) > signed(b)),
            Op::ULessThanEqual => bool_word(a <= b),
            Op::SLessThanEqual => bool_word(signed(a) <= signed(b)),
            Op::UGreaterThanEqual => bool_word(a >= b),
            Op::SGreaterThanEqual => bool_word(signed(a) >= signed(b)),
            _ => return Err(Unsupported::new(format!("OpSpecConstantOp {op:?}")).into()),
        })
    }
}

fn bad_override(spec_id: u32, text: &str, expected: &str) -> Error {
    Error::Options(format!("--spec {spec_id}={text}: expected {expected}"))
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// Parses an override for a 32-bit scalar of type `ty`: integers in decimal (optionally
/// negative) or `0x` hex, floats as decimal numbers.
fn parse_scalar(module: &Module, ty: Id, text: &str) -> Option<u32> {
    match module.ty(ty)? {
        spv_reader::Type::Float { width: 32 } => text.parse::<f32>().ok().map(f32::to_bits),
        spv_reader::Type::Int { width: 32, .. } => {
            if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                u32::from_str_radix(hex, 16).ok()
            } else if let Some(negative) = text.strip_prefix('-') {
                negative.parse::<u32>().ok().map(u32::wrapping_neg)
            } else {
                text.parse::<u32>().ok()
            }
        }
        _ => None,
    }
}
