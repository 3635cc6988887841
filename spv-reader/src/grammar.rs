//! Per-opcode facts from rspirv's grammar tables (`rspirv::grammar`), in a dense table
//! indexed by opcode so that the hot loop of the reader never searches. The build script
//! derives the table (`grammar/derive.rs`) and writes it as a `static`
//! (`crate::tables::OP_INFO`): a process pays no start-up work for it, only the page-ins of
//! the entries it reads.

use std::sync::OnceLock;

use crate::rspirv::grammar::{self, LogicalOperand, OperandKind, OperandQuantifier};
use crate::tables::OP_INFO;

#[cfg(test)]
mod derive;
mod shapes;

pub(crate) use shapes::*;

/// Facts about `opcode`; unknown opcodes have no grammar, no result type and no result.
#[inline]
pub(crate) fn op_info(opcode: u16) -> &'static OpInfo {
    OP_INFO.get(usize::from(opcode)).unwrap_or(&UNKNOWN)
}

/// The [`Path`] of every 16-bit opcode ([`Path::None`] beyond the opcode table): an array
/// of that length, so that looking an opcode up needs no bounds check (64 KiB, of which a
/// reading loop touches the lines of the opcodes it meets).
#[inline]
pub(crate) fn paths() -> &'static [Path; 1 << 16] {
    static PATHS: [Path; 1 << 16] = paths_of(&OP_INFO);
    &PATHS
}

/// The [`Path`] of each opcode of `table`, evaluated at compile time.
// Evaluated by the compiler only (an index out of range would fail the build), and the
// loop bounds both indices; `get` is not a `const fn`.
#[allow(clippy::indexing_slicing)]
const fn paths_of(table: &[OpInfo]) -> [Path; 1 << 16] {
    let mut paths = [Path::None; 1 << 16];
    let mut op = 0;
    while op < table.len() && op < paths.len() {
        paths[op] = table[op].quick.path();
        op += 1;
    }
    paths
}

/// How many operands an extended instruction takes after its instruction number, when its set's
/// grammar gives it ids alone: the shortest paths check the count, as the grammar walk does
/// the operands consume exactly the instruction's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IdOperands {
    /// The operands the grammar requires.
    min: u16,
    /// The most it allows (`u16::MAX` for a repeated last operand).
    max: u16,
}

impl IdOperands {
    /// Whether `count` operands fit.
    pub(crate) fn allows(self, count: usize) -> bool {
        (usize::from(self.min)..=usize::from(self.max)).contains(&count)
    }

    /// The counts `operands` (all ids) allow, from their quantifiers.
    fn of(operands: &[LogicalOperand]) -> IdOperands {
        operands
            .iter()
            .fold(IdOperands { min: 0, max: 0 }, |n, o| match o.quantifier {
                OperandQuantifier::One => IdOperands {
                    min: n.min.saturating_add(1),
                    max: n.max.saturating_add(1),
                },
                OperandQuantifier::ZeroOrOne => IdOperands {
                    max: n.max.saturating_add(1),
                    ..n
                },
                OperandQuantifier::ZeroOrMore => IdOperands { max: u16::MAX, ..n },
            })
    }
}

/// For extended instruction set `name`, per instruction number: how many operands it takes when
/// the set's grammar gives it ids alone (`None`: other operands, or a number the grammar lacks).
/// `None` for a set this crate has no grammar for. Built once per set from rspirv's tables.
pub(crate) fn ext_ids_only(name: &str) -> Option<&'static [Option<IdOperands>]> {
    static TABLES: OnceLock<Vec<Option<Vec<Option<IdOperands>>>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        SETS.iter()
            .map(|set| {
                let table = grammar::ext_inst_table(set)?;
                let max = table.iter().map(|i| u32::from(i.opcode)).max().unwrap_or(0);
                let mut numbers = vec![None; max as usize + 1];
                for inst in table.iter() {
                    let all_ids = inst.operands.iter().all(|o| o.kind == OperandKind::IdRef);
                    if let Some(slot) = numbers.get_mut(u32::from(inst.opcode) as usize) {
                        *slot = all_ids.then(|| IdOperands::of(inst.operands));
                    }
                }
                Some(numbers)
            })
            .collect()
    });
    // The reflection set is imported with its version: `NonSemantic.ClspvReflection.6`.
    let name = if name.starts_with("NonSemantic.ClspvReflection.") {
        "NonSemantic.ClspvReflection"
    } else {
        name
    };
    let i = SETS.iter().position(|&s| s == name)?;
    tables.get(i)?.as_deref()
}

/// `name` as a `'static` string when it is the import name of one of the sets this crate has
/// a grammar for (`None` otherwise, and for a versioned reflection set's name).
pub(crate) fn known_set_name(name: &str) -> Option<&'static str> {
    SETS.iter().copied().find(|&s| s == name)
}

/// The sets of `rspirv::grammar::ext_inst_table`, by import name.
const SETS: [&str; 15] = [
    "Arm.MotionEngine.100",
    "DebugInfo",
    "GLSL.std.450",
    "NonSemantic.ClspvReflection",
    "NonSemantic.DebugBreak",
    "NonSemantic.DebugPrintf",
    "NonSemantic.Shader.DebugInfo.100",
    "NonSemantic.VkspReflection",
    "OpenCL.DebugInfo.100",
    "OpenCL.std",
    "SPV_AMD_gcn_shader",
    "SPV_AMD_shader_ballot",
    "SPV_AMD_shader_explicit_vertex_parameter",
    "SPV_AMD_shader_trinary_minmax",
    "TOSA.001000.1",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::Op;

    /// `Inst::opcode` reads the enum from this table; it must name exactly the opcodes
    /// `spirv::Op::from_u32` names (aliases included), for every 16-bit opcode, and the
    /// grammar entry must be that opcode's.
    #[test]
    fn table_opcode_matches_the_spirv_enum() {
        for raw in 0..=u16::MAX {
            let info = op_info(raw);
            assert_eq!(info.op, Op::from_u32(u32::from(raw)), "opcode {raw}");
            assert_eq!(info.grammar().map(|g| g.opcode), info.op, "opcode {raw}");
        }
    }

    /// The table the build script wrote is the one `derive.rs` derives from the grammar now,
    /// entry for entry, and the paths are its entries' (the literals and their reading back
    /// are the build script's; the derivation is the one it ran).
    #[test]
    fn written_tables_match_a_fresh_derivation() {
        let derived = derive::build_table();
        assert_eq!(OP_INFO.len(), derived.len());
        for (raw, (written, fresh)) in OP_INFO.iter().zip(&derived).enumerate() {
            assert_eq!(written, fresh, "opcode {raw}");
        }
        for (raw, path) in paths().iter().enumerate() {
            let quick = derived.get(raw).map_or(Quick::None, |i| i.quick);
            assert_eq!(*path, quick.path(), "opcode {raw}");
        }
        assert_eq!(
            crate::tables::COMMON_DECORATIONS,
            derive::common_decorations()
        );
    }
}
