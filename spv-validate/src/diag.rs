//! [`Diagnostic`] and [`Diagnostics`], the validator's error type, and the one-line
//! disassembly of an instruction that every diagnostic shows.
//!
//! Display reads like spirv-val's output (rule id in brackets, then the instruction as
//! `spirv-dis --raw-id` would print it, then where it is):
//!
//! ```text
//! error: [V-CFG-2] the entry block %5 of function %4 is the target of a branch
//!   OpBranch %5  (instruction #40, offset 0x1a0)
//! ```

use std::fmt::{self, Write as _};

use spv_reader::rspirv::grammar::OperandKind;
use spv_reader::spirv;
use spv_reader::{Id, Inst, Location};

use crate::operands::{Kind, Operand, decode};

/// One violated rule.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// The rule id of spirv.md §2 (`V-*`) or §1.6 (`R-*`), e.g. `"V-SSA-3"`.
    pub rule: &'static str,
    /// The offending instruction, `None` for module-wide problems (a missing instruction).
    pub location: Option<Location>,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The ids the message is about, most relevant first.
    pub ids: Vec<Id>,
    /// The instruction in spirv-dis syntax with raw ids (`%12 = OpIAdd %3 %10 %11`).
    pub disassembly: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: [{}] {}", self.rule, self.message)?;
        match (&self.disassembly, self.location) {
            (Some(text), Some(loc)) => write!(
                f,
                "\n  {text}  (instruction #{}, offset {:#x})",
                loc.index, loc.byte_offset
            ),
            (None, Some(loc)) => write!(
                f,
                "\n  (instruction #{}, offset {:#x})",
                loc.index, loc.byte_offset
            ),
            (Some(text), None) => write!(f, "\n  {text}"),
            (None, None) => Ok(()),
        }
    }
}

/// Every diagnostic found in a module, in the order the checks found them.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Whether any diagnostic carries `rule`.
    pub fn has_rule(&self, rule: &str) -> bool {
        self.0.iter().any(|d| d.rule == rule)
    }

    /// The distinct rule ids, in first-seen order.
    pub fn rules(&self) -> Vec<&'static str> {
        let mut rules: Vec<&'static str> = Vec::new();
        for d in &self.0 {
            if !rules.contains(&d.rule) {
                rules.push(d.rule);
            }
        }
        rules
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char('\n')?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The opcode's spirv-dis name (`OpTypeInt`), or `Op<1234>` when the grammar lacks it.
pub(crate) fn opcode_name(opcode: u16) -> String {
    match spirv::Op::from_u32(u32::from(opcode)) {
        Some(op) => format!("Op{op:?}"),
        None => format!("Op<{opcode}>"),
    }
}

/// The name of enumerant `value` of `kind`, as spirv-dis prints it.
fn enumerant_name(kind: OperandKind, value: u32) -> String {
    use spirv as s;
    let name = match kind {
        OperandKind::StorageClass => s::StorageClass::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::Decoration => s::Decoration::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::BuiltIn => s::BuiltIn::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::Capability => s::Capability::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::ExecutionModel => s::ExecutionModel::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::ExecutionMode => s::ExecutionMode::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::AddressingModel => {
            s::AddressingModel::from_u32(value).map(|v| format!("{v:?}"))
        }
        OperandKind::MemoryModel => s::MemoryModel::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::Dim => s::Dim::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::ImageFormat => s::ImageFormat::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::SourceLanguage => s::SourceLanguage::from_u32(value).map(|v| format!("{v:?}")),
        OperandKind::FunctionControl
        | OperandKind::SelectionControl
        | OperandKind::LoopControl
        | OperandKind::MemoryAccess
        | OperandKind::ImageOperands
        | OperandKind::FPFastMathMode => {
            return if value == 0 {
                "None".to_owned()
            } else {
                format!("{value:#x}")
            };
        }
        _ => None,
    };
    name.unwrap_or_else(|| value.to_string())
}

/// The instruction in spirv-dis syntax with raw ids, e.g. `%12 = OpIAdd %3 %10 %11`.
/// Operands the grammar cannot decode are printed as raw words.
pub(crate) fn disassemble(inst: Inst<'_>) -> String {
    let mut operands: Vec<Operand> = Vec::new();
    let decoded = decode(inst, &mut operands).is_ok();
    let words = inst.words();
    let mut text = String::new();
    if let Some(result) = inst.result_id() {
        let _ = write!(text, "{result} = ");
    }
    text.push_str(&opcode_name(inst.raw_opcode()));
    if !decoded {
        for w in words.iter().skip(1) {
            let _ = write!(text, " {w}");
        }
        return text;
    }
    for op in operands.iter().filter(|o| o.kind != Kind::Result) {
        let start = usize::from(op.word);
        let slice = words.get(start..start + usize::from(op.len)).unwrap_or(&[]);
        match op.kind {
            Kind::String => {
                let mut bytes = Vec::new();
                for w in slice {
                    bytes.extend(w.to_le_bytes());
                }
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                let s = String::from_utf8_lossy(bytes.get(..end).unwrap_or(&[]));
                let _ = write!(text, " {s:?}");
            }
            Kind::Enum(kind) => {
                let value = slice.first().copied().unwrap_or(0);
                let _ = write!(text, " {}", enumerant_name(kind, value));
            }
            Kind::Literal => match slice {
                [low, high] => {
                    let v = u64::from(*low) | (u64::from(*high) << 32);
                    let _ = write!(text, " {v}");
                }
                _ => {
                    for w in slice {
                        let _ = write!(text, " {w}");
                    }
                }
            },
            _ => {
                for w in slice {
                    let _ = write!(text, " %{w}");
                }
            }
        }
    }
    text
}
