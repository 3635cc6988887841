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
//! registers are written on edges only, where SSA dominance keeps every alias of them current),
//! and a loaded value that names its variable's register instead of a copy (load forwarding,
//! [`super::memory`]) is only read before anything can write the variable again.
//!
//! Structs, arrays and matrices (as arrays of column vectors, SPIR-V §2.2.2) are aggregates:
//! a value whose [`Value::members`] hold one value per member (amd-il.md §9 "Types":
//! statically indexed aggregates are scalarised temporaries). Members are kept in one shared
//! list ([`MemberValues`]) that a value names a range of, so that values are plain words.

use il_model::{CompSel, Dst, DstComp, Inst, Reg, RegType, Src};
use indexmap::IndexSet;

/// The component words of a constant value ([`Registers::constant_words`]): at most four, kept
/// inline so that asking whether a value is a constant allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstantWords {
    words: [u32; 4],
    /// How many of `words` are the value's (1–4; the count of a value is at most 4).
    len: usize,
}

impl std::ops::Deref for ConstantWords {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        // `len` is at most 4: `constant_words` pushes at most four words.
        self.words.get(..self.len).unwrap_or(&self.words)
    }
}

/// The component selects x, y, z, w in order.
pub const XYZW: [CompSel; 4] = [CompSel::X, CompSel::Y, CompSel::Z, CompSel::W];

/// A range of [`MemberValues`]: the members of one aggregate or the two parts of one split
/// 64-bit vector, so that a [`Value`] stays plain words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemberRange {
    start: u32,
    len: u32,
}

/// A value: 1–4 elements held in components of one register, a 64-bit vector of 3–4 elements
/// in two registers, or an aggregate of member values.
///
/// A value is plain words: it is copied whenever an operand is read, so the members of an
/// aggregate and the parts of a split vector live in the lowering's [`MemberValues`] and the
/// value names their range.
#[derive(Clone, Copy, Debug)]
pub struct Value {
    /// The register (a temporary, a literal or a system register). For an aggregate or a split
    /// 64-bit vector, the register of its first part, so that no value names a register that
    /// does not exist.
    pub reg: Reg,
    /// Component `i` of the value is component `comps[i]` of the register.
    pub comps: [CompSel; 4],
    /// Number of components used, 1–4 (for 32-bit elements the element count, for 64-bit ones
    /// twice it); 0 for an aggregate or a split 64-bit vector.
    pub count: u8,
    /// Whether the elements are 64-bit: element `i` is components `2i` (low dword) and `2i + 1`
    /// (high dword), the layout of amd-il.md §0.10.
    pub wide: bool,
    /// The members of a struct, array or matrix, in order; for a split 64-bit vector its two
    /// register-sized parts (elements 0–1, then 2–3); empty otherwise. A range of
    /// [`MemberValues`].
    pub members: MemberRange,
}

impl Value {
    /// Elements 0..count in components x, y, z, w of `reg`.
    pub fn in_reg(reg: Reg, count: u8) -> Value {
        Value {
            reg,
            comps: XYZW,
            count,
            wide: false,
            members: MemberRange::default(),
        }
    }

    /// One or two 64-bit elements in components xy and zw of `reg`.
    pub fn wide_in_reg(reg: Reg, elements: u8) -> Value {
        Value {
            reg,
            comps: XYZW,
            count: elements.clamp(1, 2) * 2,
            wide: true,
            members: MemberRange::default(),
        }
    }

    /// Whether the value is a struct, array or matrix.
    pub fn is_aggregate(&self) -> bool {
        self.count == 0 && !self.wide
    }

    /// Whether the value is a 64-bit vector held in two registers.
    pub fn is_split(&self) -> bool {
        self.count == 0 && self.wide
    }

    /// The value as a source operand whose component `i` reads component `i` of the value;
    /// positions past the component count repeat the last one, so a scalar reads as `.xxxx`.
    /// (For a split 64-bit vector: its first part.)
    pub fn src(&self) -> Src {
        let mut src = Src::new(self.reg);
        src.swizzle = last_repeated(self.comps, self.count);
        src
    }

    /// Element `i` replicated into every position, for scalar operands (`r3.y`); an index past
    /// the last element reads the last element, so a scalar serves every position. For 64-bit
    /// elements see [`MemberValues::pair`].
    pub fn element(&self, i: usize) -> Src {
        let mut src = Src::new(self.reg);
        src.swizzle = [self.comp(i); 4];
        src
    }

    /// The component holding element `i`, clamped to the last element.
    fn comp(&self, i: usize) -> CompSel {
        let last = usize::from(self.count.clamp(1, 4)) - 1;
        self.comps[i.min(last)]
    }
}

/// The single-register parts of a scalar or vector ([`MemberValues::parts`]): one, or the two
/// halves of a split 64-bit vector; held inline, so asking for them borrows nothing.
#[derive(Clone, Copy, Debug)]
pub struct Parts {
    parts: [Value; 2],
    /// How many of `parts` are the value's (1 or 2).
    len: usize,
}

impl std::ops::Deref for Parts {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        // `len` is 1 or 2: `MemberValues::parts` makes nothing else.
        self.parts.get(..self.len).unwrap_or(&self.parts)
    }
}

/// The members of every aggregate and the parts of every split 64-bit vector made so far,
/// each value's one range of it ([`Value::members`]). Values are never taken apart in place
/// (a changed aggregate is a new one), so ranges stay valid; the list grows by the members of
/// the values made and is dropped with the lowering of a module.
#[derive(Default)]
pub struct MemberValues {
    values: Vec<Value>,
}

impl MemberValues {
    /// No members yet (as `default`, usable in constants).
    pub const EMPTY: MemberValues = MemberValues { values: Vec::new() };

    /// Room for how many members the list has (see `Scratch::keep`).
    pub fn capacity(&self) -> usize {
        self.values.capacity()
    }

    /// Forgets every member, keeping the list's room for the next translation.
    pub fn clear(&mut self) {
        self.values.clear();
    }

    /// The members of `value`: of an aggregate its member values, of a split 64-bit vector its
    /// two parts, otherwise none (also for a range that is not in the list, which cannot
    /// happen: ranges are only made by [`MemberValues::aggregate`], which pushes first).
    pub fn of(&self, value: &Value) -> &[Value] {
        let MemberRange { start, len } = value.members;
        let start = start as usize;
        self.values
            .get(start..start.saturating_add(len as usize))
            .unwrap_or(&[])
    }

    /// Member `i` of `value`, if it has one.
    pub fn get(&self, value: &Value, i: usize) -> Option<Value> {
        self.of(value).get(i).copied()
    }

    /// Pushes `members` and names their range.
    fn push(&mut self, members: &[Value]) -> MemberRange {
        // The list holds at most as many values as a module's lowering makes, far below
        // u32::MAX (modules are bounded by the reader's instruction limit).
        let start = u32::try_from(self.values.len()).unwrap_or(u32::MAX);
        self.values.extend_from_slice(members);
        MemberRange {
            start,
            len: u32::try_from(members.len()).unwrap_or(0),
        }
    }

    /// An aggregate of `members` (at least one; SPIR-V has no empty struct values in
    /// arithmetic, and an empty list yields an aggregate that reads as `r0`).
    pub fn aggregate(&mut self, members: &[Value]) -> Value {
        let (reg, comps) = members
            .first()
            .map(|first| (first.reg, first.comps))
            .unwrap_or((Reg::new(RegType::Temp, 0), XYZW));
        Value {
            reg,
            comps,
            count: 0,
            wide: false,
            members: self.push(members),
        }
    }

    /// A 64-bit vector of 3 or 4 elements: `low` holds elements 0 and 1, `high` the rest.
    pub fn wide_split(&mut self, low: Value, high: Value) -> Value {
        Value {
            reg: low.reg,
            comps: low.comps,
            count: 0,
            wide: true,
            members: self.push(&[low, high]),
        }
    }

    /// The single-register parts of a scalar or vector: the two halves of a split 64-bit
    /// vector, otherwise the value itself.
    pub fn parts(&self, value: &Value) -> Parts {
        if value.is_split()
            && let [low, high] = self.of(value)
        {
            return Parts {
                parts: [*low, *high],
                len: 2,
            };
        }
        Parts {
            parts: [*value; 2],
            len: 1,
        }
    }

    /// The number of elements of `value` as a `usize` (0 for an aggregate); a 64-bit element
    /// counts once.
    pub fn width(&self, value: &Value) -> usize {
        if value.wide {
            return self
                .parts(value)
                .iter()
                .map(|part| usize::from(part.count.min(4) / 2))
                .sum();
        }
        usize::from(value.count.min(4))
    }

    /// 64-bit element `i` of `value` as a source reading (low, high, low, high): the double and
    /// 64-bit integer instructions read `.xy` after the swizzle (guide §7.2.5), and the
    /// repetition serves a reading of `.zw` as well.
    pub fn pair(&self, value: &Value, i: usize) -> Src {
        let element = self.extract(value, i);
        let mut src = Src::new(element.reg);
        src.swizzle = element.comps;
        src
    }

    /// Element `i` of `value` as a one-element value (the last element for an index past the
    /// end); a 64-bit element keeps both its components, as (low, high, low, high).
    pub fn extract(&self, value: &Value, i: usize) -> Value {
        if value.wide {
            let parts = self.parts(value);
            let (part, j) = match *parts {
                [single] => (single, i),
                [_, high] if i >= 2 => (high, i - 2),
                [low, _] => (low, i),
                _ => (*value, i),
            };
            let last = usize::from((part.count.min(4) / 2).max(1)) - 1;
            let j = j.min(last);
            let (low, high) = (part.comps[2 * j], part.comps[2 * j + 1]);
            return Value {
                reg: part.reg,
                comps: [low, high, low, high],
                count: 2,
                wide: true,
                members: MemberRange::default(),
            };
        }
        Value {
            reg: value.reg,
            comps: [value.comp(i); 4],
            count: 1,
            wide: false,
            members: MemberRange::default(),
        }
    }

    /// The elements of `value` as one-element values.
    pub fn elements(&self, value: &Value) -> Vec<Value> {
        (0..self.width(value))
            .map(|i| self.extract(value, i))
            .collect()
    }
}

/// The first `count` (1–4) selectors of `comps`, with the last of them repeated in the positions
/// after: how a value of `count` elements reads as a four-component source (a scalar as
/// `.xxxx`).
pub fn last_repeated(comps: [CompSel; 4], count: u8) -> [CompSel; 4] {
    let last = usize::from(count.clamp(1, 4)) - 1;
    [
        comps[0],
        comps[1.min(last)],
        comps[2.min(last)],
        comps[3.min(last)],
    ]
}

/// `comps` rotated left by `k` (0–3) positions, as `<[_]>::rotate_left` would, built in place:
/// the slice rotation is a general out-of-line routine, and loads and stores of vector parts
/// rotate a selector for every element range they touch.
pub fn rotated_left(comps: [CompSel; 4], k: usize) -> [CompSel; 4] {
    [
        comps[k % 4],
        comps[(k + 1) % 4],
        comps[(k + 2) % 4],
        comps[(k + 3) % 4],
    ]
}

/// The write masks of the first `n` components, by `n` (0–4): a table, since every value
/// computed into a fresh temporary asks for one.
const FIRST_COMPONENTS: [[DstComp; 4]; 5] = {
    use DstComp::{NoWrite as N, Write as W};
    [
        [N, N, N, N],
        [W, N, N, N],
        [W, W, N, N],
        [W, W, W, N],
        [W, W, W, W],
    ]
};

/// The write masks of one component, by position (0–3), and of none (4).
const ONE_COMPONENT: [[DstComp; 4]; 5] = {
    use DstComp::{NoWrite as N, Write as W};
    [
        [W, N, N, N],
        [N, W, N, N],
        [N, N, W, N],
        [N, N, N, W],
        [N, N, N, N],
    ]
};

/// A destination writing components x.. of `count` elements of temporary `reg` (`r5.xy__`).
pub fn dst_first(reg: u32, count: u8) -> Dst {
    let mut dst = Dst::temp(reg);
    dst.mask = FIRST_COMPONENTS[usize::from(count.min(4))];
    dst
}

/// A destination writing only component `position` (0–3) of temporary `reg` (`r5._y__`).
pub fn dst_at(reg: u32, position: usize) -> Dst {
    let mut dst = Dst::temp(reg);
    dst.mask = ONE_COMPONENT[position.min(4)];
    dst
}

/// Hashes the four words of a literal for the literal set. The set is probed for every
/// constant a program reads, and its keys are a handful of words we made ourselves, so a
/// multiply-rotate hash serves; SipHash's resistance to chosen keys is not needed (an
/// adversarial module can only make the probes slower, and the set's size is bounded by the
/// module's instruction count). The order of the set, which numbers the literals, is insertion
/// order whatever the hasher.
#[derive(Default)]
pub struct WordHasher(u64);

/// The multiplier of [`WordHasher`] (the 64-bit golden-ratio constant used by FxHash).
const WORD_HASH_MULTIPLIER: u64 = 0x517c_c1b7_2722_0a95;

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(WORD_HASH_MULTIPLIER);
    }
}

impl std::hash::Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for byte in chunks.remainder() {
            self.add(u64::from(*byte));
        }
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The literal set of [`Registers`]: each literal's four words, in literal-number order.
pub type Literals = IndexSet<[u32; 4], std::hash::BuildHasherDefault<WordHasher>>;

/// Temporaries and literals of the program being built.
pub struct Registers {
    next_temp: u32,
    literals: Literals,
}

/// Literals the set has room for before it first grows: most programs declare fewer, and
/// growing from empty rehashes the set several times.
const LITERALS_RESERVED: usize = 16;

impl Default for Registers {
    fn default() -> Registers {
        Registers {
            next_temp: 0,
            literals: IndexSet::with_capacity_and_hasher(LITERALS_RESERVED, Default::default()),
        }
    }
}

impl Registers {
    /// No temporaries and no literals yet, the literals kept in `literals` (emptied first),
    /// a set left by an earlier translation ([`Registers::into_literals`]).
    pub fn reusing(mut literals: Literals) -> Registers {
        literals.clear();
        literals.reserve(LITERALS_RESERVED);
        Registers {
            next_temp: 0,
            literals,
        }
    }

    /// The literal set, for a later [`Registers::reusing`].
    pub fn into_literals(self) -> Literals {
        self.literals
    }

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

    /// [`Registers::scalar`] as the source reading its element (`.element(0)` of it), made
    /// without a value in between.
    pub fn scalar_src(&mut self, word: u32) -> Src {
        let mut src = Src::new(self.literal([word; 4]));
        src.swizzle = [CompSel::X; 4];
        src
    }

    /// A scalar literal, replicated in all four components so any swizzle reads it.
    pub fn scalar(&mut self, word: u32) -> Value {
        Value {
            reg: self.literal([word; 4]),
            comps: [CompSel::X; 4],
            count: 1,
            wide: false,
            members: MemberRange::default(),
        }
    }

    /// A 64-bit vector literal of `elements.len()` (1–4) elements: low dwords in x / z, high
    /// dwords in y / w; a scalar is repeated in both halves, and 3 or 4 elements take two
    /// literals (whose parts go to `members`).
    pub fn wide_vector(&mut self, members: &mut MemberValues, elements: &[u64]) -> Value {
        let halves = |pair: &[u64]| -> [u32; 4] {
            let first = pair.first().copied().unwrap_or(0);
            let second = pair.get(1).copied().unwrap_or(first);
            [
                first as u32,
                (first >> 32) as u32,
                second as u32,
                (second >> 32) as u32,
            ]
        };
        let count = |pair: &[u64]| u8::try_from(pair.len().clamp(1, 2)).unwrap_or(2);
        match elements {
            [_, _, _, ..] => {
                let (low, high) = elements.split_at(2);
                let high = &high[..high.len().min(2)];
                let low = Value::wide_in_reg(self.literal(halves(low)), 2);
                let high = Value::wide_in_reg(self.literal(halves(high)), count(high));
                members.wide_split(low, high)
            }
            _ => Value::wide_in_reg(self.literal(halves(elements)), count(elements)),
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

    /// The component words of `value` when it is held in a literal (a constant); `None` for
    /// aggregates and split 64-bit vectors.
    pub fn constant_words(&self, value: &Value) -> Option<ConstantWords> {
        if value.count == 0 {
            return None;
        }
        let words = self.literal_words(&value.reg)?;
        let mut constant = ConstantWords {
            words: [0; 4],
            len: 0,
        };
        for comp in &value.comps[..usize::from(value.count.min(4))] {
            let word = match comp {
                CompSel::X => words[0],
                CompSel::Y => words[1],
                CompSel::Z => words[2],
                CompSel::W => words[3],
                CompSel::Zero | CompSel::One => return None,
            };
            // At most four components are looked at, so every word has a slot.
            if let Some(slot) = constant.words.get_mut(constant.len) {
                *slot = word;
                constant.len += 1;
            }
        }
        Some(constant)
    }

    /// The `dcl_literal` declarations, in literal-number order.
    pub fn literal_decls(&self) -> impl Iterator<Item = Inst> + '_ {
        (0u32..)
            .zip(self.literals.iter())
            .map(|(n, words)| Inst::literal(n, *words))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A split 64-bit vector keeps its parts in the shared list: the expected registers and
    /// selectors follow from `wide_vector` putting elements 0–1 in the first literal (x/y and
    /// z/w) and element 2 in the x/y of the second.
    #[test]
    fn split_vectors_read_their_parts_from_the_list() {
        let mut regs = Registers::default();
        let mut members = MemberValues::default();
        let vector = regs.wide_vector(&mut members, &[1, 2, 3]);
        assert!(vector.is_split());
        assert_eq!(members.parts(&vector).len(), 2);
        assert_eq!(members.width(&vector), 3);
        let second = members.extract(&vector, 1);
        assert_eq!(second.reg, Reg::new(RegType::Literal, 0));
        assert_eq!(
            second.comps,
            [CompSel::Z, CompSel::W, CompSel::Z, CompSel::W]
        );
        // Element 2, and an index past the end, read the second literal.
        for i in [2, 5] {
            let third = members.extract(&vector, i);
            assert_eq!(third.reg, Reg::new(RegType::Literal, 1));
            assert_eq!(
                third.comps,
                [CompSel::X, CompSel::Y, CompSel::X, CompSel::Y]
            );
        }
    }

    /// A range that is not in the list names no members, and such a value reads as itself.
    #[test]
    fn a_range_outside_the_list_has_no_members() {
        let members = MemberValues::default();
        let mut value = Value::wide_in_reg(Reg::new(RegType::Temp, 7), 1);
        value.count = 0;
        value.members = MemberRange { start: 40, len: 2 };
        assert!(members.of(&value).is_empty());
        assert_eq!(members.get(&value, 0).map(|member| member.reg), None);
        assert_eq!(members.parts(&value).len(), 1);
    }
}
