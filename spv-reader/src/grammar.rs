//! Per-opcode facts taken once from rspirv's grammar tables (`rspirv::grammar`), in a dense
//! table indexed by opcode so that the hot loop of the reader never searches.

use std::sync::OnceLock;

use crate::rspirv::grammar::{self, Instruction, OperandKind};

/// What the reader needs to know about one opcode.
#[derive(Clone, Copy)]
pub(crate) struct OpInfo {
    /// The grammar entry, `None` for opcodes this crate's grammar does not define.
    pub(crate) grammar: Option<&'static Instruction<'static>>,
    /// Whether word 1 is a Result Type id.
    pub(crate) has_type: bool,
    /// Whether the instruction has a Result id (word 2 with a result type, word 1 without).
    pub(crate) has_result: bool,
    /// Whether the opcode declares a type (`OpType*`, OpTypeForwardPointer included).
    pub(crate) declares_type: bool,
    /// Whether the opcode declares a constant or specialization constant (`OpConstant*`,
    /// `OpSpecConstant*`), which belong to the types section (SPIR-V §2.4).
    pub(crate) declares_constant: bool,
}

const UNKNOWN: OpInfo = OpInfo {
    grammar: None,
    has_type: false,
    has_result: false,
    declares_type: false,
    declares_constant: false,
};

fn table() -> &'static [OpInfo] {
    static TABLE: OnceLock<Vec<OpInfo>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let max = grammar::INSTRUCTION_TABLE
            .iter()
            .map(|i| i.opcode as u32)
            .max()
            .unwrap_or(0);
        let mut table = vec![UNKNOWN; max as usize + 1];
        for inst in grammar::INSTRUCTION_TABLE.iter() {
            let kinds = inst.operands.iter().map(|o| o.kind);
            let mut first_two = kinds.take(2);
            let first = first_two.next();
            let second = first_two.next();
            let has_type = first == Some(OperandKind::IdResultType);
            let has_result = first == Some(OperandKind::IdResult)
                || (has_type && second == Some(OperandKind::IdResult));
            // `max` bounds every opcode of the same table, so the index is in range.
            if let Some(slot) = table.get_mut(inst.opcode as usize) {
                let declares_type = inst.opname.starts_with("Type");
                let declares_constant =
                    inst.opname.starts_with("Constant") || inst.opname.starts_with("SpecConstant");
                *slot = OpInfo {
                    grammar: Some(inst),
                    has_type,
                    has_result,
                    declares_type,
                    declares_constant,
                };
            }
        }
        table
    })
}

/// Facts about `opcode`; unknown opcodes have no grammar, no result type and no result.
#[inline]
pub(crate) fn op_info(opcode: u16) -> OpInfo {
    table().get(usize::from(opcode)).copied().unwrap_or(UNKNOWN)
}
