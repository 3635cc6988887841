//! Malformed inputs: each must give a located error of the right kind, never a panic.
//! Modules are written as raw words; the expected problem follows from the word layout
//! (SPIR-V §2.3: header of 5 words; instruction word 0 = word count << 16 | opcode).

use spv_reader::{ErrorKind, read, read_words};

const MAGIC: u32 = 0x0723_0203;

fn header(bound: u32) -> Vec<u32> {
    vec![MAGIC, 0x0001_0000, 0, bound, 0]
}

fn inst(opcode: u16, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | u32::from(opcode)];
    v.extend_from_slice(operands);
    v
}

#[test]
fn header_problems() {
    assert_eq!(read(&[]).unwrap_err().kind(), ErrorKind::Header);
    assert_eq!(
        read(&[3, 2, 35, 7, 0]).unwrap_err().kind(),
        ErrorKind::Header,
        "not a multiple of 4"
    );
    assert_eq!(
        read(&[0; 20]).unwrap_err().kind(),
        ErrorKind::Header,
        "bad magic"
    );
    let mut w = header(10);
    w[1] = 0x0001_0700;
    assert_eq!(
        read_words(&w).unwrap_err().kind(),
        ErrorKind::Header,
        "version 1.7"
    );
    let mut w = header(10);
    w[4] = 1;
    assert_eq!(
        read_words(&w).unwrap_err().kind(),
        ErrorKind::Header,
        "schema 1"
    );
    let e = read_words(&header(0)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Header);
    assert_eq!(
        e.to_string(),
        "header: id bound is 0, it must be at least 1"
    );
    assert_eq!(
        read_words(&header(u32::MAX)).unwrap_err().kind(),
        ErrorKind::Header,
        "absurd bound"
    );
    let e = read_words(&header(1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "header: the module has no OpMemoryModel (SPIR-V §2.4)"
    );
    let mut w = header(1);
    w.extend(inst(14, &[0, 1])); // OpMemoryModel Logical GLSL450
    assert!(
        read_words(&w).is_ok(),
        "one OpMemoryModel with bound 1 reads"
    );
}

#[test]
fn word_count_zero_is_located() {
    let mut w = header(10);
    w.extend(inst(17, &[1])); // OpCapability Shader
    w.push(17); // word count 0
    let e = read_words(&w).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WordCount);
    let loc = e.location().unwrap();
    // Second instruction, after 5 header words and the 2-word OpCapability.
    assert_eq!((loc.index, loc.byte_offset), (1, 28));
    assert_eq!(
        e.to_string(),
        "instruction #1 (offset 0x1c, OpCapability): word count is 0"
    );
}

#[test]
fn word_count_past_the_end() {
    let mut w = header(10);
    w.push((9 << 16) | 21); // OpTypeInt claiming 9 words, 0 present after it
    let e = read_words(&w).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WordCount);
    assert_eq!(e.opcode(), Some(21));
}

#[test]
fn ids_outside_the_bound_and_redefinitions() {
    let mut w = header(3);
    w.extend(inst(19, &[3])); // OpTypeVoid %3 with bound 3
    assert_eq!(read_words(&w).unwrap_err().kind(), ErrorKind::Id);
    let mut w = header(3);
    w.extend(inst(19, &[0]));
    assert_eq!(read_words(&w).unwrap_err().kind(), ErrorKind::Id, "id 0");
    let mut w = header(3);
    w.extend(inst(19, &[1]));
    w.extend(inst(20, &[1])); // OpTypeBool %1 again
    let e = read_words(&w).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Id);
    assert_eq!(e.location().unwrap().index, 1);
}

#[test]
fn unterminated_string() {
    let mut w = header(3);
    w.extend(inst(10, &[u32::from_le_bytes(*b"SPV_")])); // OpExtension without a nul
    assert_eq!(read_words(&w).unwrap_err().kind(), ErrorKind::String);
}

#[test]
fn unknown_opcode_is_a_warning() {
    let mut w = header(3);
    w.extend(inst(17, &[1]));
    w.extend(inst(0x7FFF, &[1, 2, 3]));
    w.extend(inst(14, &[0, 1]));
    let m = read_words(&w).unwrap();
    assert_eq!(m.warnings().len(), 1);
    assert_eq!(m.warnings()[0].opcode, 0x7FFF);
    assert_eq!(m.instructions().len(), 3);
}
