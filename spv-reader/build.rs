//! Derives the reader's per-opcode table, its table of common decorations and its extended
//! sets' operand counts from rspirv's grammar at build time and writes them to
//! `OUT_DIR/tables.rs` as Rust literals, which `src/tables.rs` includes as `static` data: a
//! process then builds nothing at start-up (the opcode table took about 0.9 M instructions per
//! process to build, the extended sets' counts 42 K). The derivation is the crate's own
//! (`src/grammar/derive.rs`, with the types of `src/grammar/shapes.rs` and the enumerant facts
//! of `src/enumerants.rs`), included here under the module names the crate gives them; the
//! crate's tests derive the tables again and compare them with the written ones.

// The included modules carry run-time items that the derivation does not use.
#![allow(dead_code)]

extern crate rspirv;

use std::fmt::Write as _;

use grammar::{
    FastShape, Forward, IdOperands, OpInfo, Placement, Plain, PlainEnumerant, Quick, Section, Tail,
};
use lit::Lit;
use rspirv::spirv;

#[path = "src/grammar/derive.rs"]
mod derive;
#[path = "lit.rs"]
#[macro_use]
mod lit;
#[path = "src/enumerants.rs"]
mod enumerants;
#[path = "src/grammar/shapes.rs"]
mod grammar;

/// What `crate::tables` holds in the crate, for the derivation's own use here: the same
/// function computes it as computes the written literals.
mod tables {
    use std::sync::LazyLock;

    /// As the crate's `tables::COMMON_DECORATIONS`.
    pub(crate) static COMMON_DECORATIONS: LazyLock<
        [Option<crate::spirv::Decoration>; crate::enumerants::COMMON_DECORATION_LIMIT as usize],
    > = LazyLock::new(crate::derive::common_decorations);
}

fn main() -> Result<(), String> {
    for file in [
        "build.rs",
        "lit.rs",
        "src/grammar/derive.rs",
        "src/grammar/shapes.rs",
        "src/enumerants.rs",
    ] {
        println!("cargo::rerun-if-changed={file}");
    }
    let table = derive::build_table();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/// The facts of every opcode up to the grammar's largest, indexed by opcode.\n\
         pub(crate) static OP_INFO: [OpInfo; {}] = [",
        table.len()
    );
    for info in &table {
        if *info == grammar::UNKNOWN {
            out.push_str("UNKNOWN,\n");
        } else {
            info.lit(&mut out);
            out.push_str(",\n");
        }
    }
    out.push_str("];\n");
    let decorations = derive::common_decorations();
    let _ = writeln!(
        out,
        "/// `spirv::Decoration::from_u32` of each value below `COMMON_DECORATION_LIMIT`.\n\
         pub(crate) static COMMON_DECORATIONS: [Option<Decoration>; {}] = [",
        decorations.len()
    );
    for d in decorations {
        match d {
            Some(d) => {
                let _ = writeln!(out, "Some(Decoration::{d:?}),");
            }
            None => out.push_str("None,\n"),
        }
    }
    out.push_str("];\n");
    // The extended sets' tables as one list, and per set its range in the list.
    let mut ids = Vec::new();
    let mut ranges = Vec::new();
    for set in derive::ext_ids_only_tables() {
        ranges.push(set.map(|numbers| {
            let start = ids.len() as u32;
            ids.extend(numbers);
            (start, ids.len() as u32)
        }));
    }
    let _ = writeln!(
        out,
        "/// `grammar::ext_ids_only` of every set of `SETS`, one after the other.\n\
         pub(crate) static EXT_IDS_ONLY: [Option<IdOperands>; {}] = [",
        ids.len()
    );
    for id in &ids {
        id.lit(&mut out);
        out.push_str(",\n");
    }
    out.push_str("];\n");
    let _ = writeln!(
        out,
        "/// Per set of `SETS`: its range in `EXT_IDS_ONLY`, `None` without a grammar.\n\
         pub(crate) static EXT_SET_RANGES: [Option<(u32, u32)>; {}] = [",
        ranges.len()
    );
    for range in &ranges {
        range.lit(&mut out);
        out.push_str(",\n");
    }
    out.push_str("];\n");
    // An `Err` from `main` stops the build with its message.
    let dir = std::env::var_os("OUT_DIR").ok_or("cargo did not set OUT_DIR")?;
    let path = std::path::Path::new(&dir).join("tables.rs");
    std::fs::write(&path, out).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

unit_enum_lit!(Section, Forward);

struct_lit!(OpInfo {
    op,
    grammar_at,
    has_type,
    has_result,
    declares_type,
    placement,
    forward,
    fast,
    records,
    quick,
    plain
});
struct_lit!(FastShape {
    fixed,
    id_mask,
    enumerant,
    ext_inst,
    tail
});
struct_lit!(Plain {
    head,
    min_words,
    max_words,
    id_words,
    id_tail,
    tail_words,
    id_pairs,
    number,
    forward_words,
    forward_tail,
    enumerants,
    extras
});
struct_lit!(IdOperands { min, max });
struct_lit!(PlainEnumerant {
    at,
    is_mask,
    known,
    kind
});

impl Lit for Placement {
    fn lit(&self, out: &mut String) {
        match self {
            Placement::Module(section) => {
                out.push_str("Placement::Module(");
                section.lit(out);
                out.push(')');
            }
            _ => {
                let _ = write!(out, "Placement::{self:?}");
            }
        }
    }
}

impl Lit for Tail {
    fn lit(&self, out: &mut String) {
        match self {
            Tail::OptionalMask(kind) => {
                out.push_str("Tail::OptionalMask(");
                kind.lit(out);
                out.push(')');
            }
            _ => {
                let _ = write!(out, "Tail::{self:?}");
            }
        }
    }
}

impl Lit for Quick {
    fn lit(&self, out: &mut String) {
        match self {
            Quick::Type(op) | Quick::Constant(op) => {
                let variant = if matches!(self, Quick::Type(_)) {
                    "Type"
                } else {
                    "Constant"
                };
                let _ = write!(out, "Quick::{variant}(");
                op.lit(out);
                out.push(')');
            }
            _ => {
                let _ = write!(out, "Quick::{self:?}");
            }
        }
    }
}
