//! Where SPIR-V values live in IL: register components, literals and system registers.
//!
//! Every SSA result gets a fresh temporary register (`r#`); the IL compiler behind the driver
//! allocates real registers, as it did for AMD's own OpenCL compiler output (amd-il.md §9).
//! Constants become `dcl_literal` registers (`l#`), deduplicated by their four words, so a
//! constant used a hundred times is declared once (DESIGN.md: literals live in an `IndexSet`
//! whose index is the literal number). Built-in inputs are read straight from the IL system
//! registers (`vAbsTid`, ...) without a copy.

use il_model::{CompSel, Dst, DstComp, Inst, Reg, RegType, Src};
use indexmap::IndexSet;

/// The component selects x, y, z, w in order.
pub const XYZW: [CompSel; 4] = [CompSel::X, CompSel::Y, CompSel::Z, CompSel::W];

/// A value of 1–4 components: which register holds it and which component holds each element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// The register (a temporary, a literal or a system register).
    pub reg: Reg,
    /// Element `i` of the value is component `comps[i]` of the register.
    pub comps: [CompSel; 4],
    /// Number of elements, 1–4.
    pub count: u8,
}

impl Value {
    /// Elements 0..count in components x, y, z, w of `reg`.
    pub fn in_reg(reg: Reg, count: u8) -> Value {
        Value {
            reg,
            comps: XYZW,
            count,
        }
    }

    /// The value as a source operand whose component `i` reads element `i`; positions past the
    /// element count repeat the last element, so a scalar reads as `.xxxx`.
    pub fn src(&self) -> Src {
        let last = usize::from(self.count.clamp(1, 4)) - 1;
        let mut swizzle = self.comps;
        let last_comp = self.comps[last];
        for comp in swizzle.iter_mut().skip(last + 1) {
            *comp = last_comp;
        }
        let mut src = Src::new(self.reg.clone());
        src.swizzle = swizzle;
        src
    }

    /// Element `i` replicated into every position, for scalar operands (`r3.y`).
    pub fn element(&self, i: usize) -> Src {
        let mut src = Src::new(self.reg.clone());
        src.swizzle = [self.comps.get(i).copied().unwrap_or(CompSel::X); 4];
        src
    }

    /// Element `i` as a one-element value.
    pub fn extract(&self, i: usize) -> Value {
        Value {
            reg: self.reg.clone(),
            comps: [self.comps.get(i).copied().unwrap_or(CompSel::X); 4],
            count: 1,
        }
    }
}

/// A destination writing components x.. of `count` elements of temporary `reg` (`r5.xy__`).
pub fn dst_first(reg: u32, count: u8) -> Dst {
    let mut dst = Dst::temp(reg);
    for (position, comp) in dst.mask.iter_mut().enumerate() {
        *comp = if position < usize::from(count) {
            DstComp::Write
        } else {
            DstComp::NoWrite
        };
    }
    dst
}

/// Temporaries and literals of the program being built.
#[derive(Default)]
pub struct Registers {
    next_temp: u32,
    literals: IndexSet<[u32; 4]>,
}

impl Registers {
    /// A fresh temporary register number.
    pub fn temp(&mut self) -> u32 {
        let reg = self.next_temp;
        self.next_temp += 1;
        reg
    }

    /// The literal register holding `words` (declared once, at first use).
    pub fn literal(&mut self, words: [u32; 4]) -> Reg {
        let (index, _) = self.literals.insert_full(words);
        // Literal numbers stay far below u32::MAX: each one is a distinct constant of the
        // module, and modules are bounded by the reader's instruction limit.
        Reg::new(RegType::Literal, u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// A scalar literal, replicated in all four components so any swizzle reads it.
    pub fn scalar(&mut self, word: u32) -> Value {
        Value {
            reg: self.literal([word; 4]),
            comps: [CompSel::X; 4],
            count: 1,
        }
    }

    /// The `dcl_literal` declarations, in literal-number order.
    pub fn literal_decls(&self) -> impl Iterator<Item = Inst> + '_ {
        (0u32..)
            .zip(self.literals.iter())
            .map(|(n, words)| Inst::literal(n, *words))
    }
}
