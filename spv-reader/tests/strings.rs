//! Literal strings (R-6, SPIR-V §2.2.1) against an independent statement of the rule, over
//! every one-word byte pattern of a small alphabet and two-word strings built from them, in
//! the instructions that keep their string (OpName, OpExtension) and one that does not
//! (OpString). The reader has a shortcut for ASCII strings; this checks that it and the
//! general decoder agree with the rule on every pattern, valid or not.

mod common;

use common::Asm;
use spv_reader::spirv::Op;
use spv_reader::{ErrorKind, read_words};

/// Bytes that matter to the rule: nul, ASCII, the top of ASCII, a UTF-8 lead and
/// continuation byte ("é" is C3 A9), and bytes that are never UTF-8.
const ALPHABET: [u8; 8] = [0x00, 0x01, b'A', 0x7f, 0x80, 0xc3, 0xa9, 0xff];

/// The rule of SPIR-V §2.2.1 and spirv.md R-6, stated independently of the reader: the
/// string is the bytes before the first nul; the nul must be inside the words and the rest
/// of its word zero; the text must be UTF-8.
fn expected(words: &[u32]) -> Option<String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let nul = bytes.iter().position(|&b| b == 0)?;
    if bytes[nul..].iter().any(|&b| b != 0) {
        return None;
    }
    String::from_utf8(bytes[..nul].to_vec()).ok()
}

/// Every one-word pattern of the alphabet.
fn one_word_patterns() -> impl Iterator<Item = u32> {
    (0..ALPHABET.len().pow(4)).map(|mut n| {
        let mut bytes = [0u8; 4];
        for b in &mut bytes {
            *b = ALPHABET[n % ALPHABET.len()];
            n /= ALPHABET.len();
        }
        u32::from_le_bytes(bytes)
    })
}

/// The strings to try: every one-word pattern alone, and after a first word that is plain
/// ASCII, a complete "é" and a split "é" (a lead byte whose continuation is in word two).
fn strings() -> impl Iterator<Item = Vec<u32>> {
    let firsts = [
        None,
        Some(u32::from_le_bytes(*b"ABCD")),
        Some(u32::from_le_bytes([0xc3, 0xa9, b'x', b'y'])),
        Some(u32::from_le_bytes([b'x', b'y', b'z', 0xc3])),
    ];
    firsts
        .into_iter()
        .flat_map(|first| one_word_patterns().map(move |w| first.into_iter().chain([w]).collect()))
}

/// Reads a module whose instruction #2 carries `string` through `op` (in the layout order of
/// SPIR-V §2.4), and returns the string the reader kept, or the error kind and instruction
/// index.
fn read_with(op: Op, string: &[u32]) -> Result<String, (ErrorKind, Option<u32>)> {
    let mut asm = Asm::new(0, 3);
    asm.op(Op::Capability, &[1]);
    match op {
        Op::Extension => asm
            .op(Op::Capability, &[2])
            .op(Op::Extension, string)
            .op(Op::MemoryModel, &[0, 1]),
        Op::Name => asm
            .op(Op::MemoryModel, &[0, 1])
            .op(Op::Name, &[[1].as_slice(), string].concat()),
        _ => asm
            .op(Op::MemoryModel, &[0, 1])
            .op(Op::String, &[[2].as_slice(), string].concat()),
    };
    asm.op(Op::TypeVoid, &[1]);
    let module = read_words(&asm.words).map_err(|e| (e.kind(), e.location().map(|l| l.index)))?;
    Ok(match op {
        Op::Extension => module.extensions().next().unwrap_or("").to_owned(),
        Op::Name => module.name(spv_reader::Id(1)).unwrap_or("").to_owned(),
        _ => String::new(),
    })
}

#[test]
fn strings_follow_the_rule_in_every_instruction() {
    let mut checked = 0;
    for string in strings() {
        let rule = expected(&string);
        for op in [Op::Name, Op::Extension, Op::String] {
            let got = read_with(op, &string);
            match (&rule, &got) {
                (Some(text), Ok(kept)) if op == Op::String || kept == text => {}
                (None, Err((ErrorKind::String, Some(2)))) => {}
                _ => panic!("{op:?} {string:08x?}: the rule says {rule:?}, the reader {got:?}"),
            }
            checked += 1;
        }
    }
    // 4 first words × 8^4 patterns × 3 instructions.
    assert_eq!(checked, 4 * 4096 * 3);
}
