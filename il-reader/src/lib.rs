//! AMD IL text parser and binary token decoder.
//!
//! [`parse_text`] reads IL text (amd-il.md §3) and [`decode_tokens`] reads binary tokens
//! (amd-il.md §1) into an [`il_model::Program`]; they invert `il_writer::to_text` and
//! `il_writer::to_tokens`. Neither panics on any input: errors are located ([`TextError`]: line
//! and column; [`TokenError`]: token index), and every limit is a named constant.

mod text;
mod tokens;

pub use text::{MAX_LINE_LEN, TextError, parse_text};
pub use tokens::{MAX_OPERAND_DEPTH, TokenError, decode_tokens};

/// Reads a little-endian byte stream as tokens; `None` if the length is not a multiple of 4.
pub fn bytes_to_tokens(bytes: &[u8]) -> Option<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
            .collect(),
    )
}
