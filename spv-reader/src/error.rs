//! The reader's one error type, [`ReadError`], and the [`Location`] every diagnostic carries.
//!
//! The reader is fail-fast (style-anchors §7.3): it stops at the first problem and reports
//! where it is, as the instruction index in module order, the byte offset of its first word
//! and its opcode, so that a user can find it in `spirv-dis` output.

use std::fmt;

use crate::spirv;

/// Where an instruction sits in a module.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Location {
    /// Index of the instruction in module order, 0-based (the header is not an instruction).
    pub index: u32,
    /// Byte offset of the instruction's first word from the start of the module.
    pub byte_offset: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "instruction #{} (offset {:#x})",
            self.index, self.byte_offset
        )
    }
}

/// What kind of problem a [`ReadError`] reports; the rule ids are those of spirv.md §1.6.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// R-1…R-3: the container or the five header words are malformed.
    Header,
    /// a word count of 0, or an instruction running past the end of the module.
    WordCount,
    /// the operands do not consume exactly the instruction's words (missing or
    /// extra operands, literal widths inconsistent with the type).
    Operands,
    /// a literal string without its nul, with non-zero padding, not UTF-8 or too long.
    String,
    /// an enumerant value the reader must understand to decode the instruction.
    Enumerant,
    /// an id of 0 or not below the bound, or a result id defined twice.
    Id,
    /// an instruction in the wrong section of the logical layout (SPIR-V §2.4).
    Layout,
    /// an id used before its definition where no forward reference is allowed, or
    /// never defined.
    ForwardReference,
    /// OpFunction/OpLabel/terminator structure broken.
    Structure,
    /// A limit of [`crate::limits`] was crossed.
    Limit,
}

/// The error returned by [`crate::read`] and [`crate::read_words`].
///
/// Display: `instruction #12 (offset 0x3c, OpTypeInt): <problem>` or `header: <problem>`.
/// One pointer wide (the details are boxed), so that the reader's many `Result`s stay
/// cheap on the path where nothing fails.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ReadError(Box<Details>);

#[derive(Clone, PartialEq, Eq, Debug)]
struct Details {
    kind: ErrorKind,
    location: Option<Location>,
    opcode: Option<u16>,
    message: String,
}

impl ReadError {
    /// An error about the header or the container (no instruction to point at).
    pub(crate) fn header(message: impl Into<String>) -> Self {
        ReadError(Box::new(Details {
            kind: ErrorKind::Header,
            location: None,
            opcode: None,
            message: message.into(),
        }))
    }

    /// An error about one instruction.
    pub(crate) fn at(
        kind: ErrorKind,
        location: Location,
        opcode: Option<u16>,
        message: impl Into<String>,
    ) -> Self {
        ReadError(Box::new(Details {
            kind,
            location: Some(location),
            opcode,
            message: message.into(),
        }))
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The offending instruction, or `None` for header and container errors.
    pub fn location(&self) -> Option<Location> {
        self.0.location
    }

    /// The raw opcode of the offending instruction, when one was decoded.
    pub fn opcode(&self) -> Option<u16> {
        self.0.opcode
    }

    /// The problem, without the location prefix.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

/// Writes an opcode the way `spirv-dis` names it (`OpTypeInt`), or `Op<1234>` when the
/// opcode is not in the grammar this crate was built with.
pub(crate) fn write_opcode_name(f: &mut impl fmt::Write, opcode: u16) -> fmt::Result {
    match spirv::Op::from_u32(u32::from(opcode)) {
        Some(op) => write!(f, "Op{op:?}"),
        None => write!(f, "Op<{opcode}>"),
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.location {
            None => write!(f, "header: {}", self.0.message),
            Some(loc) => {
                write!(
                    f,
                    "instruction #{} (offset {:#x}",
                    loc.index, loc.byte_offset
                )?;
                if let Some(op) = self.0.opcode {
                    f.write_str(", ")?;
                    write_opcode_name(f, op)?;
                }
                write!(f, "): {}", self.0.message)
            }
        }
    }
}

impl std::error::Error for ReadError {}
