//! The tables that the build script derives from rspirv's grammar (`build.rs`, running
//! `grammar/derive.rs`) and writes as Rust literals: `static` data, so that a process builds
//! nothing at start-up, and plain data (indices, no references), so that the loader has
//! nothing to relocate in them.
//!
//! - `OP_INFO: [OpInfo; N]`: the facts of every opcode up to the grammar's largest
//!   ([`crate::grammar::op_info`]).
//! - `COMMON_DECORATIONS`: `spirv::Decoration::from_u32` of each value below
//!   [`crate::enumerants::COMMON_DECORATION_LIMIT`].
//! - `EXT_IDS_ONLY` and `EXT_SET_RANGES`: [`crate::grammar::ext_ids_only`] of every
//!   extended set, one after the other, and each set's range among them.

use crate::grammar::{
    FastShape, Forward, IdOperands, OpInfo, Placement, Plain, PlainEnumerant, Quick, Section, Tail,
    UNKNOWN,
};
use crate::rspirv::grammar::OperandKind;
use crate::spirv::{Decoration, Op};

include!(concat!(env!("OUT_DIR"), "/tables.rs"));
