//! Per-opcode facts from rspirv's grammar tables (`rspirv::grammar`), in a dense table
//! indexed by opcode so that the hot loop of the reader never searches. The build script
//! derives the table (`grammar/derive.rs`) and writes it as a `static`
//! (`crate::tables::OP_INFO`): a process pays no start-up work for it, only the page-ins of
//! the entries it reads.

use crate::tables::{EXT_IDS_ONLY, EXT_SET_RANGES, OP_INFO};

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

/// For extended instruction set `name`, per instruction number: how many operands it takes when
/// the set's grammar gives it ids alone (`None`: other operands, or a number the grammar lacks).
/// `None` for a set this crate has no grammar for. From the tables the build script derives
/// (`derive::ext_ids_only_tables`, written as one list and a range per set).
pub(crate) fn ext_ids_only(name: &str) -> Option<&'static [Option<IdOperands>]> {
    // The reflection set is imported with its version: `NonSemantic.ClspvReflection.6`.
    let name = if name.starts_with("NonSemantic.ClspvReflection.") {
        "NonSemantic.ClspvReflection"
    } else {
        name
    };
    let i = SETS.iter().position(|&s| s == name)?;
    let (start, end) = (*EXT_SET_RANGES.get(i)?)?;
    EXT_IDS_ONLY.get(start as usize..end as usize)
}

/// `name` as a `'static` string when it is the import name of one of the sets this crate has
/// a grammar for (`None` otherwise, and for a versioned reflection set's name).
pub(crate) fn known_set_name(name: &str) -> Option<&'static str> {
    SETS.iter().copied().find(|&s| s == name)
}

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
        let sets = derive::ext_ids_only_tables();
        assert_eq!(sets.len(), SETS.len());
        for (set, fresh) in SETS.iter().zip(&sets) {
            assert_eq!(ext_ids_only(set), fresh.as_deref(), "{set}");
        }
        assert_eq!(
            crate::tables::COMMON_DECORATIONS,
            derive::common_decorations()
        );
    }
}
