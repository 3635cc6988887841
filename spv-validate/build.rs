//! Derives the validator's opcode tables from rspirv's grammar at build time and writes them to
//! `OUT_DIR/opcodes.rs` as Rust literals, which `src/operands.rs` includes as `static` data: a
//! process then builds nothing at start-up (the tables took about 0.5 M instructions per
//! process to build). The derivation is the crate's own (`src/operands/derive.rs`, with the
//! types of `src/operands/opcodes.rs`), included here under the module names the crate gives
//! them; the crate's tests derive the tables again and compare them with the written ones.

// The included modules carry run-time items that the derivation does not use.
#![allow(dead_code)]

use std::fmt::Write as _;

use lit::Lit;
use operands::{Kind, Lean, OpEntry, Section, Special};
use spv_reader::rspirv;

#[path = "src/operands/derive.rs"]
mod derive;
#[path = "../spv-reader/lit.rs"]
#[macro_use]
mod lit;
#[path = "src/operands/opcodes.rs"]
mod operands;

fn main() -> Result<(), String> {
    for file in [
        "build.rs",
        "../spv-reader/lit.rs",
        "src/operands/derive.rs",
        "src/operands/opcodes.rs",
    ] {
        println!("cargo::rerun-if-changed={file}");
    }
    let d = derive::derive();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/// How many opcodes the grammar knows.\n\
         pub(crate) const OPCODES: usize = {};",
        d.entries.len()
    );
    list(
        &mut out,
        "Per opcode: its slot plus one, 0 when the grammar lacks it.",
        "OPCODE_SLOTS",
        "u16",
        &d.index,
    );
    list(&mut out, "Per slot.", "ENTRIES", "OpEntry", &d.entries);
    list(&mut out, "Per slot.", "LEANS", "Lean", &d.leans);
    list(
        &mut out,
        "The opcodes whose grammar operands include Image Operands.",
        "OPS_WITH_IMAGE_OPERANDS",
        "Op",
        &d.ops_with_image_operands,
    );
    for (name, bits) in [
        ("DECORATIONS_ANY_PARAMS", d.decorations_any_params),
        ("DECORATIONS_ONE_LITERAL", d.decorations_one_literal),
    ] {
        let _ = writeln!(
            out,
            "/// See `derive::Derived`.\npub(crate) const {name}: u64 = {bits};"
        );
    }
    // An `Err` from `main` stops the build with its message.
    let dir = std::env::var_os("OUT_DIR").ok_or("cargo did not set OUT_DIR")?;
    let path = std::path::Path::new(&dir).join("opcodes.rs");
    std::fs::write(&path, out).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

/// Writes `values` as `pub(crate) static NAME: [TYPE; N]`, documented by `doc`.
fn list<T: Lit>(out: &mut String, doc: &str, name: &str, ty: &str, values: &[T]) {
    let _ = writeln!(
        out,
        "/// {doc}\npub(crate) static {name}: [{ty}; {}] = [",
        values.len()
    );
    for value in values {
        value.lit(out);
        out.push_str(",\n");
    }
    out.push_str("];\n");
}

unit_enum_lit!(Section);

impl Lit for Kind {
    fn lit(&self, out: &mut String) {
        match self {
            Kind::Enum(kind) => {
                out.push_str("Kind::Enum(");
                kind.lit(out);
                out.push(')');
            }
            _ => {
                let _ = write!(out, "Kind::{self:?}");
            }
        }
    }
}

impl Lit for Special {
    fn lit(&self, out: &mut String) {
        match self {
            Special::StringThenRefs(kind) => {
                out.push_str("Special::StringThenRefs(");
                kind.lit(out);
                out.push(')');
            }
            _ => {
                let _ = write!(out, "Special::{self:?}");
            }
        }
    }
}

struct_lit!(OpEntry {
    type_decl,
    annotation,
    has_type,
    has_result,
    kinds,
    slot,
    gated
});
struct_lit!(Lean {
    op,
    slot,
    section,
    flags,
    end,
    max_words,
    count,
    tail,
    refs,
    special
});
