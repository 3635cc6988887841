//! AMD IL text and binary token writer.
//!
//! [`to_text`] renders an [`il_model::Program`] as canonical IL text (amd-il.md §3) and
//! [`to_tokens`] as the binary token stream (amd-il.md §1); [`tokens_to_bytes`] gives the
//! little-endian byte form. Both are deterministic and never panic. The writer trusts the model's
//! verifier ([`il_model::verify`]) and does no validation of its own.

mod text;
mod tokens;

pub use text::{INDENT, dst_text, inst_text, reg_text, src_text, to_text};
pub use tokens::{to_tokens, tokens_to_bytes};
