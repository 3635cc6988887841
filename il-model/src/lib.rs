//! The AMD IL program model, its opcode table and verifier.
//!
//! * [`Program`] / [`Inst`] / [`Dst`] / [`Src`] / [`Reg`]: the model, one-to-one with the binary token
//!   stream of the AMD IL guide §2 (digest amd-il.md §1), so text and tokens both map onto it.
//!   Operands are `Copy`; an operand nested in another (relative index, second dimension) is kept
//!   in the program's [`Nested`] table and named by a [`NestedId`].
//! * [`Opcode`] and [`OPCODES`]: one table row per Appendix-B opcode plus `IL_OP_MOVA`
//!   ([`OPCODE_COUNT`] = 483), from which il-writer, il-reader and [`verify`] derive everything.
//! * [`enums`]: every other numbered enumeration of the guide.
//! * [`LiteralPool`]: deduplicated `l#` registers and their `dcl_literal` declarations.
//! * [`limits`]: the numeric limits of a program (register, constant-buffer, UAV, resource,
//!   sampler, LDS and work-group counts, amd-il.md §8.5).
//! * [`verify`]: declarations before use, balanced blocks, call targets, legal registers per shader
//!   kind, masks and swizzles per opcode, and device validity per [`Family`].
//!
//! This crate knows nothing of SPIR-V.

pub mod enums;
pub mod limits;
mod literals;
mod opcode_table;
mod optable;
mod program;
mod regs;
mod verify;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use enums::{
    Addressing, CompSel, DivComp, DstComp, LanguageType, RelOp, ShaderKind, ShiftScale, ZeroOp,
};
pub use literals::LiteralPool;
pub use opcode_table::{OPCODE_COUNT, OPCODES, Opcode};
pub use optable::{
    ControlLayout, CtrlField, Extra, Family, FamilySet, FieldKind, Flow, OpInfo, ShaderModel,
    ShaderSet,
};
pub use program::{
    Control, Dst, Dsts, ExtraWords, IDENTITY, Index, Inst, Nested, NestedId, PacketMods, Program,
    Reg, Src, SrcMods, Srcs, parse_mask, parse_swizzle,
};
pub use regs::{REG_TYPES, RegInfo, RegType};
pub use verify::{VerifyError, verify};

impl Opcode {
    /// The opcode's table row.
    #[inline]
    pub fn info(self) -> &'static OpInfo {
        // The discriminants are exactly 0..OPCODE_COUNT in table order (checked by a test), so the
        // index is always in range.
        &OPCODES[self as usize]
    }

    /// The MOVA-corrected binary code.
    #[inline]
    pub const fn code(self) -> u16 {
        self as u16
    }

    /// The opcode with binary code `code`, if it is in the table.
    pub fn from_code(code: u16) -> Option<Opcode> {
        OPCODES.get(usize::from(code)).map(|info| info.op)
    }

    /// The opcode spelled `mnemonic` (canonical or alias, exact lower case, no suffixes).
    pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
        static BY_NAME: OnceLock<HashMap<&'static str, Opcode>> = OnceLock::new();
        let map = BY_NAME.get_or_init(|| {
            let mut map = HashMap::new();
            for info in &OPCODES {
                map.insert(info.mnemonic, info.op);
                for alias in info.aliases {
                    map.insert(*alias, info.op);
                }
            }
            map
        });
        map.get(mnemonic).copied()
    }
}
