//! Limits the reader enforces so that no input can make it allocate without bound, recurse
//! deeply or run for long.
//!
//! The values are the universal minimums of SPIR-V §2.17 ("Universal Limits", digest
//! spirv.md §2.14) where the specification names one, and generous fixed caps elsewhere.
//! Every limit that is crossed produces a located [`crate::ReadError`] of kind
//! [`crate::ErrorKind::Limit`].

/// Largest accepted header `Bound` (SPIR-V §2.17: result `<id>` bound 4,194,303 = 0x3FFFFF).
///
/// The dense per-id table is sized by the largest id a module defines or references (at
/// most half its word count to begin with), never by the bound alone; at the bound's limit
/// it holds 4 Mi slots of 16 bytes.
pub const MAX_ID_BOUND: u32 = 0x3F_FFFF;

/// Largest accepted number of instructions in one module.
///
/// A module of this many minimal instructions is already 64 MiB; real shaders have thousands.
pub const MAX_INSTRUCTIONS: usize = 1 << 24;

/// Largest accepted module length in words (256 MiB of SPIR-V).
pub const MAX_WORDS: usize = 1 << 26;

/// Longest accepted literal string, in bytes without the terminating nul
/// (SPIR-V §2.17: 65,535 characters).
pub const MAX_STRING_LENGTH: usize = 0xFFFF;

/// Deepest accepted nesting of structured control flow inside one function, counting merge
/// instructions whose merge block has not been reached yet in module order
/// (SPIR-V §2.17: control-flow nesting depth 1,023).
pub const MAX_NESTING_DEPTH: usize = 0x3FF;

/// Largest accepted width, in bits, of a numeric type whose literals the reader decodes
/// (OpConstant, OpSpecConstant, OpSwitch case literals). Wider literals cannot be held in the
/// `u64` of [`crate::Constant::Scalar`].
pub const MAX_LITERAL_WIDTH: u32 = 64;
