//! The one error type of the translator.
//!
//! Invalid input and input that is valid but not supported yet are different variants, so that
//! users (and tests) can tell "fix your module" from "spv2il cannot do this yet".

use std::fmt;

use spv_reader::{Id, Location, Module, ReadError};

/// Why a module could not be translated.
#[derive(Debug)]
pub enum Error {
    /// The bytes are not a readable SPIR-V module.
    Read(ReadError),
    /// The module is not valid SPIR-V; every diagnostic the validator found.
    Invalid(spv_validate::Diagnostics),
    /// The module is valid but uses something the translator does not support yet.
    Unsupported(Unsupported),
    /// The options do not fit the module: no such entry point, none to pick, a bad `--spec`.
    Options(String),
    /// The translator produced IL that il-model's verifier rejects: a bug in spv2il.
    Internal(String),
}

/// A valid feature the translator cannot lower yet, and where it was met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// What is not supported, e.g. "64-bit integers on evergreen".
    pub feature: String,
    /// The instruction that needs it, when one does.
    pub location: Option<Location>,
    /// Its opcode, spelled as spirv-dis spells it.
    pub opcode: Option<String>,
    /// Its result id, or the id it concerns.
    pub id: Option<Id>,
}

impl Unsupported {
    /// A feature met at no particular instruction.
    #[cold]
    #[inline(never)]
    pub fn new(feature: impl Into<String>) -> Unsupported {
        Unsupported {
            feature: feature.into(),
            location: None,
            opcode: None,
            id: None,
        }
    }

    /// A feature needed by the instruction at `index` of `module`.
    #[cold]
    #[inline(never)]
    pub fn at(
        module: &Module,
        index: spv_reader::InstIndex,
        feature: impl Into<String>,
    ) -> Unsupported {
        let inst = module.inst(index);
        Unsupported {
            feature: feature.into(),
            location: inst.map(|i| i.location()),
            opcode: inst.map(|i| opcode_name(i.raw_opcode())),
            id: inst.and_then(|i| i.result_id()),
        }
    }
}

/// `OpIAdd` for a known opcode, `Op#1234` for an unknown one.
pub(crate) fn opcode_name(raw: u16) -> String {
    match spv_reader::spirv::Op::from_u32(u32::from(raw)) {
        Some(op) => format!("Op{op:?}"),
        None => format!("Op#{raw}"),
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not supported: {}", self.feature)?;
        let mut parts = Vec::new();
        if let Some(location) = self.location {
            parts.push(format!(
                "instruction #{}, offset {:#x}",
                location.index, location.byte_offset
            ));
        }
        if let Some(opcode) = &self.opcode {
            parts.push(opcode.clone());
        }
        if let Some(id) = self.id {
            parts.push(id.to_string());
        }
        if !parts.is_empty() {
            write!(f, " ({})", parts.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(e) => write!(f, "not a readable SPIR-V module: {e}"),
            Error::Invalid(diagnostics) => {
                write!(f, "invalid SPIR-V ({} errors)", diagnostics.0.len())?;
                for diagnostic in &diagnostics.0 {
                    write!(f, "\n{diagnostic}")?;
                }
                Ok(())
            }
            Error::Unsupported(u) => u.fmt(f),
            Error::Options(message) => f.write_str(message),
            Error::Internal(message) => write!(f, "internal error (please report): {message}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Error {
        Error::Read(e)
    }
}

impl From<Unsupported> for Error {
    fn from(u: Unsupported) -> Error {
        Error::Unsupported(u)
    }
}
