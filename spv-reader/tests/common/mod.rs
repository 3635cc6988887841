//! A tiny word-level assembler for test modules: the header (SPIR-V §2.3) and instructions
//! as `word count << 16 | opcode` followed by operand words (§2.3), strings packed four
//! bytes per word, first byte lowest, nul-terminated and zero-padded (§2.2.1).

#![allow(dead_code)]

use spv_reader::spirv::Op;

/// The SPIR-V magic number.
pub const MAGIC: u32 = 0x0723_0203;

/// Words of a module under construction.
pub struct Asm {
    pub words: Vec<u32>,
}

impl Asm {
    /// A header for SPIR-V 1.`minor` with the given id bound.
    pub fn new(minor: u8, bound: u32) -> Self {
        Asm {
            words: vec![MAGIC, u32::from(minor) << 8 | 0x0001_0000, 0, bound, 0],
        }
    }

    /// Appends an instruction with `operands` after the opcode word.
    pub fn op(&mut self, op: Op, operands: &[u32]) -> &mut Self {
        self.raw(op as u16, operands)
    }

    /// Appends an instruction with a raw opcode.
    pub fn raw(&mut self, opcode: u16, operands: &[u32]) -> &mut Self {
        self.words
            .push(((operands.len() as u32 + 1) << 16) | u32::from(opcode));
        self.words.extend_from_slice(operands);
        self
    }

    /// OpCapability Shader + OpMemoryModel Logical GLSL450: the smallest valid preamble.
    pub fn shader_preamble(&mut self) -> &mut Self {
        self.op(Op::Capability, &[1]).op(Op::MemoryModel, &[0, 1])
    }

    /// The module's bytes, little-endian.
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// The words of a literal string.
pub fn string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `head` followed by the words of `s`, then `tail`.
pub fn with_string(head: &[u32], s: &str, tail: &[u32]) -> Vec<u32> {
    let mut v = head.to_vec();
    v.extend(string(s));
    v.extend_from_slice(tail);
    v
}
