//! Where SPIR-V values live in IL: register components, literals and system registers.
//!
//! Every SSA result gets a fresh temporary register (`r#`); the IL compiler behind the driver
//! allocates real registers, as it did for AMD's own OpenCL compiler output (amd-il.md §9).
//! Constants become `dcl_literal` registers (`l#`), deduplicated by their four words, so a
//! constant used a hundred times is declared once (DESIGN.md: literals live in an `IndexSet`
//! whose index is the literal number). Built-in inputs are read straight from the IL system
//! registers (`vAbsTid`, ...) without a copy.
//!
//! A [`Value`] names components rather than owning a register: extracting an element,
//! shuffling the elements of one vector or copying an object re-labels components and emits
//! nothing. This is sound because a temporary that holds an SSA value is written once (phi
//! registers are written on edges only, where SSA dominance keeps every alias of them current).
//!
//! Structs, arrays and matrices (as arrays of column vectors, SPIR-V §2.2.2) are aggregates:
//! a value whose [`Value::members`] hold one value per member (amd-il.md §9 "Types":
//! statically indexed aggregates are scalarised temporaries).

use il_model::{CompSel, Dst, DstComp, Inst, Reg, RegType, Src};
use indexmap::IndexSet;

/// The component selects x, y, z, w in order.
pub const XYZW: [CompSel; 4] = [CompSel::X, CompSel::Y, CompSel::Z, CompSel::W];

/// A value: 1–4 elements held in components of one register, or an aggregate of member values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// The register (a temporary, a literal or a system register). For an aggregate, the
    /// register of its first scalar, so that no aggregate names a register that does not exist.
    pub reg: Reg,
    /// Element `i` of the value is component `comps[i]` of the register.
    pub comps: [CompSel; 4],
    /// Number of elements, 1–4; 0 for an aggregate.
    pub count: u8,
    /// The members of a struct, array or matrix, in order; empty for a scalar or vector.
    pub members: Vec<Value>,
}

impl Value {
    /// Elements 0..count in components x, y, z, w of `reg`.
    pub fn in_reg(reg: Reg, count: u8) -> Value {
        Value {
            reg,
            comps: XYZW,
            count,
            members: Vec::new(),
        }
    }

    /// An aggregate of `members` (at least one; SPIR-V has no empty struct values in
    /// arithmetic, and an empty list yields an aggregate that reads as `r0`).
    pub fn aggregate(members: Vec<Value>) -> Value {
        let (reg, comps) = members
            .first()
            .map(|first| (first.reg.clone(), first.comps))
            .unwrap_or((Reg::new(RegType::Temp, 0), XYZW));
        Value {
            reg,
            comps,
            count: 0,
            members,
        }
    }

    /// Whether the value is a struct, array or matrix.
    pub fn is_aggregate(&self) -> bool {
        self.count == 0
    }

    /// The number of elements as a `usize` (0 for an aggregate).
    pub fn width(&self) -> usize {
        usize::from(self.count.min(4))
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

    /// Element `i` replicated into every position, for scalar operands (`r3.y`); an index past
    /// the last element reads the last element, so a scalar serves every position.
    pub fn element(&self, i: usize) -> Src {
        let mut src = Src::new(self.reg.clone());
        src.swizzle = [self.comp(i); 4];
        src
    }

    /// Element `i` as a one-element value (the last element for an index past the end).
    pub fn extract(&self, i: usize) -> Value {
        Value {
            reg: self.reg.clone(),
            comps: [self.comp(i); 4],
            count: 1,
            members: Vec::new(),
        }
    }

    /// The component holding element `i`, clamped to the last element.
    fn comp(&self, i: usize) -> CompSel {
        let last = usize::from(self.count.clamp(1, 4)) - 1;
        self.comps[i.min(last)]
    }

    /// The elements as one-element values.
    pub fn elements(&self) -> Vec<Value> {
        (0..self.width()).map(|i| self.extract(i)).collect()
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

/// A destination writing only component `position` (0–3) of temporary `reg` (`r5._y__`).
pub fn dst_at(reg: u32, position: usize) -> Dst {
    let mut dst = Dst::temp(reg);
    for (at, comp) in dst.mask.iter_mut().enumerate() {
        *comp = if at == position {
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

    /// How many temporaries have been handed out.
    pub fn temps_used(&self) -> u32 {
        self.next_temp
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
            members: Vec::new(),
        }
    }

    /// A vector literal of `words.len()` (1–4) elements.
    pub fn vector(&mut self, words: &[u32]) -> Value {
        let mut all = [0u32; 4];
        for (slot, word) in all.iter_mut().zip(words) {
            *slot = *word;
        }
        if let Some(last) = words.last() {
            for slot in all.iter_mut().skip(words.len()) {
                *slot = *last;
            }
        }
        let count = u8::try_from(words.len().clamp(1, 4)).unwrap_or(4);
        Value::in_reg(self.literal(all), count)
    }

    /// The four words of literal register `reg`, if it is one of ours.
    pub fn literal_words(&self, reg: &Reg) -> Option<[u32; 4]> {
        if reg.ty != RegType::Literal || reg.index.is_some() {
            return None;
        }
        self.literals
            .get_index(usize::try_from(reg.num).ok()?)
            .copied()
    }

    /// The element words of `value` when it is held in a literal (a constant).
    pub fn constant_words(&self, value: &Value) -> Option<Vec<u32>> {
        let words = self.literal_words(&value.reg)?;
        value.comps[..value.width()]
            .iter()
            .map(|comp| match comp {
                CompSel::X => Some(words[0]),
                CompSel::Y => Some(words[1]),
                CompSel::Z => Some(words[2]),
                CompSel::W => Some(words[3]),
                CompSel::Zero | CompSel::One => None,
            })
            .collect()
    }

    /// The `dcl_literal` declarations, in literal-number order.
    pub fn literal_decls(&self) -> impl Iterator<Item = Inst> + '_ {
        (0u32..)
            .zip(self.literals.iter())
            .map(|(n, words)| Inst::literal(n, *words))
    }
}
