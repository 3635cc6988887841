//! The crate's one error type: what went wrong, and at which instruction.

use std::fmt;

/// The class of a [`SimError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The program is not well formed (unbalanced blocks, undeclared or unbound resources,
    /// register numbers out of range, wrong operand counts, ...).
    Malformed,
    /// The program is valid IL that il-sim does not execute (graphics-only instructions, GDS,
    /// DX9 constant registers, ...).
    Unsupported,
    /// The dispatch executed more instructions than [`crate::Dispatch::step_limit`] allows.
    StepLimit,
    /// Execution reached a state the guide leaves undefined and il-sim refuses to guess
    /// (calls nested deeper than the hardware allows, an index outside an indexed temp array,
    /// an unaligned dword address).
    Runtime,
}

/// An error located at an instruction of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    /// Index of the instruction in `Program::body`, when one is to blame.
    pub inst: Option<usize>,
    /// The class of error.
    pub kind: ErrorKind,
    /// What is wrong, in words.
    pub message: String,
}

impl SimError {
    /// An error of `kind` at instruction `inst`.
    pub(crate) fn at(inst: usize, kind: ErrorKind, message: impl Into<String>) -> SimError {
        SimError {
            inst: Some(inst),
            kind,
            message: message.into(),
        }
    }

    /// An error of `kind` that no single instruction causes.
    pub(crate) fn whole(kind: ErrorKind, message: impl Into<String>) -> SimError {
        SimError {
            inst: None,
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ErrorKind::Malformed => "malformed program",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::StepLimit => "step limit",
            ErrorKind::Runtime => "runtime error",
        };
        match self.inst {
            Some(i) => write!(f, "instruction {i}: {kind}: {}", self.message),
            None => write!(f, "{kind}: {}", self.message),
        }
    }
}

impl std::error::Error for SimError {}

/// An error without a location yet; the executor adds the instruction index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    pub kind: ErrorKind,
    pub message: String,
}

impl Fault {
    pub(crate) fn malformed(message: impl Into<String>) -> Fault {
        Fault {
            kind: ErrorKind::Malformed,
            message: message.into(),
        }
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Fault {
        Fault {
            kind: ErrorKind::Unsupported,
            message: message.into(),
        }
    }

    pub(crate) fn runtime(message: impl Into<String>) -> Fault {
        Fault {
            kind: ErrorKind::Runtime,
            message: message.into(),
        }
    }

    pub(crate) fn located(self, inst: usize) -> SimError {
        SimError::at(inst, self.kind, self.message)
    }
}

/// Results inside the executor, located later.
pub(crate) type Res<T> = Result<T, Fault>;
