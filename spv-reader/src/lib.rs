//! A fast, tolerant, located SPIR-V reader with dense per-id tables.
//!
//! [`read`] takes the bytes of a module in either byte order (SPIR-V §3.1), checks the header
//! and every instruction, and returns a [`Module`]: the words (converted once), the
//! [`Location`] of every instruction, dense tables indexed by [`Id`] (definition, type,
//! constant, name, decorations) and the module-level records (entry points, execution
//! modes, global variables, functions with their blocks). Reading stops at the first
//! problem with a [`ReadError`] that names the instruction, its byte offset and opcode.
//!
//! It tolerates what real modules contain and rspirv's `dr` loader rejects: unknown opcodes
//! and enumerants (kept raw and listed in [`Module::warnings`]), `OpExecutionModeId`,
//! module-scope `OpExtInst` and `OpUntypedVariableKHR`, every `OpSpecConstantOp` form.
//!
//! What it checks (spirv.md §1.6): the header (R-1 … R-3); word counts (R-4); that each
//! instruction's operands, decoded through rspirv's grammar tables, consume exactly its
//! words (R-5), with well-formed strings (R-6), known enumerants (R-7, tolerated), ids in
//! `1..bound` defined once (R-8), the logical layout of SPIR-V §2.4 (R-9), forward
//! references only where §2.4 allows them (R-10), function and block structure (R-11) and
//! literal widths that agree with their types (R-12). It does not judge validity beyond
//! that: `spv-validate` does. The named limits of [`limits`] bound what any input can cost.
//!
//! [`disassemble`] and [`disassemble_inst`] print `spirv-dis --raw-id` syntax (an
//! [`Inst`] also displays that way), for diagnostics and for comparing with SPIRV-Tools.
//!
//! Where to look: `parse` is the reading pass (`parse::quick` takes the common
//! instructions on shortest paths that build no `Result` and leave anything unusual to the
//! general path, `parse::fast` checks plain operand layouts without the generic walk,
//! `parse::record` fills the tables), `operands` the grammar walk shared with the
//! disassembler, `enumerants` what it knows of enumerants and masks, `grammar` the
//! per-opcode facts derived from rspirv's tables by the build script (`build.rs`, written
//! to `tables` as static data), `module` and `types` the public model, `spare` the buffers
//! a dropped module leaves for the next read on its thread.
//!
//! ```
//! use spv_reader::rspirv::dr::Builder;
//! use spv_reader::{read_words, spirv, Type};
//!
//! // A tiny module: `void main() {}` as a GLCompute entry point.
//! let mut b = Builder::new();
//! b.capability(spirv::Capability::Shader);
//! b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
//! let void = b.type_void();
//! let fn_ty = b.type_function(void, vec![]);
//! let main = b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty).unwrap();
//! b.begin_block(None).unwrap();
//! b.ret().unwrap();
//! b.end_function().unwrap();
//! b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![]);
//! let words = spv_reader::rspirv::binary::Assemble::assemble(&b.module());
//!
//! let module = read_words(&words)?;
//! assert_eq!(module.entry_points()[0].name, "main");
//! assert_eq!(module.ty(spv_reader::Id(void)), Some(&Type::Void));
//! let f = &module.functions()[0];
//! assert_eq!(f.blocks.len(), 1);
//! let ret = module.inst(f.blocks[0].terminator).unwrap();
//! assert_eq!(ret.opcode(), Some(spirv::Op::Return));
//! assert_eq!(module.def(spv_reader::Id(void)).unwrap().to_string(), format!("%{void} = OpTypeVoid"));
//! # Ok::<(), spv_reader::ReadError>(())
//! ```

#![cfg_attr(
    not(test),
    warn(clippy::panic, clippy::unwrap_used, clippy::expect_used)
)]
#![cfg_attr(not(test), warn(clippy::indexing_slicing))]

pub use rspirv;
pub use rspirv::spirv;

pub mod dis;
mod enumerants;
mod error;
mod grammar;
pub mod limits;
mod module;
mod operands;
mod parse;
mod spare;
mod tables;
mod types;

pub use dis::{disassemble, disassemble_inst};
pub use error::{ErrorKind, Location, ReadError};
pub use module::{Header, Id, Inst, InstIndex, Module};
pub use types::{
    Block, Constant, Decoration, EntryPoint, ExecutionMode, Function, GlobalVariable, Type, Warning,
};

use parse::MAGIC;

/// Reads a module from its bytes, in either byte order (the magic number decides, SPIR-V
/// §3.1). The bytes are converted to native-order words once.
pub fn read(bytes: &[u8]) -> Result<Module, ReadError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(ReadError::header(format!(
            "the length {} is not a multiple of 4 bytes",
            bytes.len()
        )));
    }
    if bytes.len() < 4 * parse::HEADER_WORDS {
        return Err(ReadError::header(format!(
            "{} bytes are too few for the 5-word header",
            bytes.len()
        )));
    }
    if bytes.len() / 4 > limits::MAX_WORDS {
        return Err(ReadError::header(format!(
            "{} words exceed the limit of {} (limits::MAX_WORDS)",
            bytes.len() / 4,
            limits::MAX_WORDS
        )));
    }
    let first = bytes.first_chunk::<4>().copied().unwrap_or_default();
    let little = u32::from_le_bytes(first) == MAGIC;
    if !little && u32::from_be_bytes(first) != MAGIC {
        return Err(ReadError::header(format!(
            "magic number {:#010x} is not SPIR-V in either byte order",
            u32::from_le_bytes(first)
        )));
    }
    // The previous module's buffers, when this thread dropped one (see `spare`).
    let mut spare = spare::take();
    let (chunks, _) = bytes.as_chunks::<4>();
    if little {
        spare
            .words
            .extend(chunks.iter().map(|&c| u32::from_le_bytes(c)));
    } else {
        spare
            .words
            .extend(chunks.iter().map(|&c| u32::from_be_bytes(c)));
    }
    parse::read_native(spare)
}

/// Reads a module from words. Words whose magic number is byte-swapped (`0x03022307`) are
/// swapped back first.
pub fn read_words(words: &[u32]) -> Result<Module, ReadError> {
    if words.len() > limits::MAX_WORDS {
        return Err(ReadError::header(format!(
            "{} words exceed the limit of {} (limits::MAX_WORDS)",
            words.len(),
            limits::MAX_WORDS
        )));
    }
    let mut spare = spare::take();
    match words.first() {
        Some(&m) if m == MAGIC.swap_bytes() => {
            spare.words.extend(words.iter().map(|w| w.swap_bytes()));
        }
        _ => spare.words.extend_from_slice(words),
    }
    parse::read_native(spare)
}
