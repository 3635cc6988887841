//! Writes values as the Rust expressions that rebuild them: the [`Lit`] trait, its
//! implementations for the primitive types, options, arrays, pairs, `Op` and `OperandKind`, and
//! macros that implement it for unit enums and structs. Shared by the build scripts of
//! spv-reader and spv-validate (`#[path]`-included), which write the opcode tables they derive
//! as `static` data.

use std::fmt::Write as _;

use crate::rspirv::grammar::OperandKind;
use crate::rspirv::spirv;

/// A value written as the Rust expression that rebuilds it, in a scope that imports its type
/// (and `Op`, `OperandKind`) by name.
pub(crate) trait Lit {
    fn lit(&self, out: &mut String);
}

impl Lit for bool {
    fn lit(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl Lit for u8 {
    fn lit(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl Lit for u16 {
    fn lit(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl Lit for u32 {
    fn lit(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl Lit for u64 {
    fn lit(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl<T: Lit> Lit for Option<T> {
    fn lit(&self, out: &mut String) {
        match self {
            Some(value) => {
                out.push_str("Some(");
                value.lit(out);
                out.push(')');
            }
            None => out.push_str("None"),
        }
    }
}

impl<T: Lit, const N: usize> Lit for [T; N] {
    fn lit(&self, out: &mut String) {
        out.push('[');
        for value in self {
            value.lit(out);
            out.push_str(", ");
        }
        out.push(']');
    }
}

impl<A: Lit, B: Lit> Lit for (A, B) {
    fn lit(&self, out: &mut String) {
        out.push('(');
        self.0.lit(out);
        out.push_str(", ");
        self.1.lit(out);
        out.push(')');
    }
}

impl Lit for spirv::Op {
    fn lit(&self, out: &mut String) {
        let _ = write!(out, "Op::{self:?}");
    }
}

impl Lit for OperandKind {
    fn lit(&self, out: &mut String) {
        // The core grammar's kinds are unit variants, named as their `Debug` prints them.
        let _ = write!(out, "OperandKind::{self:?}");
    }
}

/// Implements [`Lit`] for an enum without fields, as `Type::Variant`.
macro_rules! unit_enum_lit {
    ($($ty:ident),*) => {$(
        impl Lit for $ty {
            fn lit(&self, out: &mut String) {
                let _ = write!(out, "{}::{self:?}", stringify!($ty));
            }
        }
    )*};
}

/// Implements [`Lit`] for a struct, as `Type { field: value, ... }`.
macro_rules! struct_lit {
    ($ty:ident { $($field:ident),* }) => {
        impl Lit for $ty {
            fn lit(&self, out: &mut String) {
                out.push_str(concat!(stringify!($ty), " {"));
                $(
                    out.push_str(concat!(stringify!($field), ": "));
                    self.$field.lit(out);
                    out.push_str(", ");
                )*
                out.push('}');
            }
        }
    };
}
