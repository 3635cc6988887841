//! The reader rules R-5 … R-12 of spirv.md §1.6 and the limits of `spv_reader::limits`:
//! each malformed module gives a located error of the expected kind (and never a panic).
//! The modules are written word by word; the comments say which word is wrong.

mod common;

use common::{Asm, string, with_string};
use spv_reader::limits::{MAX_ID_BOUND, MAX_NESTING_DEPTH, MAX_STRING_LENGTH};
use spv_reader::spirv::Op;
use spv_reader::{ErrorKind, ReadError, read_words};

fn err(a: &Asm) -> ReadError {
    read_words(&a.words).expect_err("the module must be rejected")
}

/// The index of the last instruction of `a` (header excluded), for location checks.
fn last_index(a: &Asm) -> u32 {
    read_words(&a.words[..]).map_or_else(|_| 0, |m| m.instruction_count() as u32 - 1)
}

/// A compute module whose function computes `%17 = OpExtInst %float %16 <number> <operands>`
/// with the GLSL.std.450 set imported as %16 and `%11` a float constant.
fn glsl_ext_inst(number: u32, operands: &[u32]) -> Asm {
    let mut a = Asm::new(3, 20);
    a.op(Op::Capability, &[1])
        .op(Op::ExtInstImport, &with_string(&[16], "GLSL.std.450", &[]))
        .op(Op::MemoryModel, &[0, 1])
        .op(Op::EntryPoint, &with_string(&[5, 4], "main", &[]))
        .op(Op::ExecutionMode, &[4, 17, 64, 1, 1])
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::TypeFloat, &[10, 32])
        .op(Op::Constant, &[10, 11, 0x3F80_0000])
        .op(Op::Function, &[1, 4, 0, 2])
        .op(Op::Label, &[13]);
    let mut words = vec![10, 17, 16, number];
    words.extend_from_slice(operands);
    a.op(Op::ExtInst, &words)
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    a
}

#[test]
fn r5_extended_instructions_take_their_grammars_operand_count() {
    // GLSL.std.450 Cos (14) takes one id, Fma (50) three: the instruction is #11 (the
    // ExtInst after the eleven above, counted from 0), and its operands go through the
    // shortest path for ids-only extended instructions, which must count them as the grammar
    // walk does.
    assert!(read_words(&glsl_ext_inst(14, &[11]).words).is_ok());
    assert!(read_words(&glsl_ext_inst(50, &[11, 11, 11]).words).is_ok());
    for (number, operands) in [(14, &[11, 11, 11][..]), (14, &[]), (50, &[11, 11])] {
        let e = err(&glsl_ext_inst(number, operands));
        assert_eq!(
            (e.kind(), e.location().map(|l| l.index), e.opcode()),
            (ErrorKind::Operands, Some(11), Some(Op::ExtInst as u16)),
            "instruction {number} with {} operands: {e}",
            operands.len()
        );
    }
}

#[test]
fn r5_operands_consume_exactly_the_word_count() {
    // OpTypeInt %1 32 (Signedness missing).
    let mut a = Asm::new(0, 4);
    a.shader_preamble().op(Op::TypeInt, &[1, 32]);
    let e = err(&a);
    assert_eq!(
        (e.kind(), e.location().unwrap().index, e.opcode()),
        (ErrorKind::Operands, 2, Some(21))
    );
    // OpTypeInt %1 32 0 7 (one word too many).
    let mut a = Asm::new(0, 4);
    a.shader_preamble().op(Op::TypeInt, &[1, 32, 0, 7]);
    assert_eq!(err(&a).kind(), ErrorKind::Operands);
    // OpDecorate %1 Binding (its literal missing).
    let mut a = Asm::new(0, 4);
    a.shader_preamble()
        .op(Op::Decorate, &[1, 33])
        .op(Op::TypeVoid, &[1]);
    assert_eq!(err(&a).kind(), ErrorKind::Operands);
    // OpLoopMerge %1 %2 DependencyLength (its literal missing), inside a function.
    let mut a = Asm::new(0, 9);
    a.shader_preamble()
        .op(Op::TypeVoid, &[3])
        .op(Op::TypeFunction, &[4, 3])
        .op(Op::Function, &[3, 5, 0, 4])
        .op(Op::Label, &[6])
        .op(Op::LoopMerge, &[1, 2, 0x8]);
    let e = err(&a);
    assert_eq!(
        (e.kind(), e.opcode()),
        (ErrorKind::Operands, Some(Op::LoopMerge as u16))
    );
    assert!(
        e.to_string().starts_with("instruction #6 (offset 0x"),
        "{e}"
    );
}

#[test]
fn r6_strings() {
    // The padding after the nul is not zero: "ab\0x".
    let mut a = Asm::new(0, 2);
    a.op(Op::Capability, &[1])
        .op(Op::Extension, &[u32::from_le_bytes(*b"ab\0x")]);
    assert_eq!(err(&a).kind(), ErrorKind::String);
    // Not UTF-8: 0xFF.
    let mut a = Asm::new(0, 2);
    a.op(Op::Capability, &[1]).op(Op::Extension, &[0x0000_00FF]);
    assert_eq!(err(&a).kind(), ErrorKind::String);
    // A string running to the end of its instruction without a nul (OpName %1 "abcd").
    let mut a = Asm::new(0, 2);
    a.shader_preamble()
        .op(Op::Name, &[1, u32::from_le_bytes(*b"abcd")]);
    assert_eq!(err(&a).kind(), ErrorKind::String);
    // Longer than the limit.
    let long = "x".repeat(MAX_STRING_LENGTH + 1);
    let mut a = Asm::new(0, 2);
    a.shader_preamble().op(Op::SourceExtension, &string(&long));
    let e = err(&a);
    assert_eq!(e.kind(), ErrorKind::String);
    assert!(e.message().contains("limits::MAX_STRING_LENGTH"), "{e}");
    // Exactly at the limit is fine, and a non-ASCII UTF-8 name reads back.
    let mut a = Asm::new(0, 3);
    a.shader_preamble()
        .op(Op::SourceExtension, &string(&"y".repeat(MAX_STRING_LENGTH)))
        .op(Op::Name, &with_string(&[1], "größe", &[]))
        .op(Op::TypeVoid, &[1]);
    let m = read_words(&a.words).unwrap();
    assert_eq!(m.name(spv_reader::Id(1)), Some("größe"));
}

#[test]
fn r8_ids_in_bound_and_defined_once() {
    // OpTypePointer %2 Function %9 with bound 4.
    let mut a = Asm::new(0, 4);
    a.shader_preamble()
        .op(Op::TypeInt, &[1, 32, 0])
        .op(Op::TypePointer, &[2, 7, 9]);
    assert_eq!(err(&a).kind(), ErrorKind::Id);
    // A Result Type of 0.
    let mut a = Asm::new(0, 4);
    a.shader_preamble().op(Op::Undef, &[0, 1]);
    assert_eq!(err(&a).kind(), ErrorKind::Id);
}

#[test]
fn r9_logical_layout() {
    // OpCapability after OpMemoryModel.
    let mut a = Asm::new(0, 2);
    a.op(Op::MemoryModel, &[0, 1]).op(Op::Capability, &[1]);
    let e = err(&a);
    assert_eq!(
        (e.kind(), e.location().unwrap().index),
        (ErrorKind::Layout, 1)
    );
    // Two OpMemoryModel.
    let mut a = Asm::new(0, 2);
    a.shader_preamble().op(Op::MemoryModel, &[0, 1]);
    assert_eq!(err(&a).kind(), ErrorKind::Layout);
    // OpDecorate after a type.
    let mut a = Asm::new(0, 2);
    a.shader_preamble()
        .op(Op::TypeVoid, &[1])
        .op(Op::Decorate, &[1, 2]);
    assert_eq!(err(&a).kind(), ErrorKind::Layout);
    // An arithmetic instruction at module scope.
    let mut a = Asm::new(0, 4);
    a.shader_preamble()
        .op(Op::TypeInt, &[1, 32, 0])
        .op(Op::Constant, &[1, 2, 1])
        .op(Op::IAdd, &[1, 3, 2, 2]);
    assert_eq!(err(&a).kind(), ErrorKind::Layout);
    // A type inside a function.
    let mut a = Asm::new(0, 7);
    a.shader_preamble()
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::Function, &[1, 3, 0, 2])
        .op(Op::Label, &[4])
        .op(Op::TypeBool, &[5]);
    assert_eq!(err(&a).kind(), ErrorKind::Layout);
}

#[test]
fn r10_forward_references() {
    // %3 = OpTypePointer Function %1 before %1 is declared.
    let mut a = Asm::new(0, 4);
    a.shader_preamble()
        .op(Op::TypePointer, &[3, 7, 1])
        .op(Op::TypeInt, &[1, 32, 0]);
    let e = err(&a);
    assert_eq!(
        (e.kind(), e.location().unwrap().index),
        (ErrorKind::ForwardReference, 2)
    );
    // OpName of an id that is never defined.
    let mut a = Asm::new(0, 4);
    a.shader_preamble()
        .op(Op::Name, &with_string(&[3], "ghost", &[]));
    let e = err(&a);
    assert_eq!(
        (e.kind(), e.location().unwrap().index),
        (ErrorKind::ForwardReference, 2)
    );
    // OpBranchConditional may name later labels but not a later condition.
    let mut a = Asm::new(0, 12);
    a.shader_preamble()
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::TypeBool, &[3])
        .op(Op::Function, &[1, 4, 0, 2])
        .op(Op::Label, &[5])
        .op(Op::SelectionMerge, &[7, 0])
        .op(Op::BranchConditional, &[9, 6, 7]);
    assert_eq!(err(&a).kind(), ErrorKind::ForwardReference);
}

#[test]
fn r11_function_structure() {
    let base = |a: &mut Asm| {
        a.shader_preamble()
            .op(Op::TypeVoid, &[1])
            .op(Op::TypeInt, &[2, 32, 0])
            .op(Op::TypeFunction, &[3, 1, 2]); // void (uint)
    };
    // No OpFunctionParameter for the one parameter of %3.
    let mut a = Asm::new(0, 9);
    base(&mut a);
    a.op(Op::Function, &[1, 4, 0, 3])
        .op(Op::Label, &[5])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    assert_eq!(err(&a).kind(), ErrorKind::Structure);
    // A block without a terminator before OpFunctionEnd.
    let mut a = Asm::new(0, 9);
    base(&mut a);
    a.op(Op::Function, &[1, 4, 0, 3])
        .op(Op::FunctionParameter, &[2, 6])
        .op(Op::Label, &[5])
        .op(Op::FunctionEnd, &[]);
    assert_eq!(err(&a).kind(), ErrorKind::Structure);
    // OpFunction without OpFunctionEnd.
    let mut a = Asm::new(0, 9);
    base(&mut a);
    a.op(Op::Function, &[1, 4, 0, 3])
        .op(Op::FunctionParameter, &[2, 6]);
    let e = err(&a);
    assert_eq!(
        (e.kind(), e.opcode()),
        (ErrorKind::Structure, Some(Op::Function as u16))
    );
    // OpLabel in a block (missing terminator).
    let mut a = Asm::new(0, 9);
    base(&mut a);
    a.op(Op::Function, &[1, 4, 0, 3])
        .op(Op::FunctionParameter, &[2, 6])
        .op(Op::Label, &[5])
        .op(Op::Label, &[7]);
    assert_eq!(err(&a).kind(), ErrorKind::Structure);
    // A declaration after a definition.
    let mut a = Asm::new(0, 12);
    a.shader_preamble()
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1]);
    a.op(Op::Function, &[1, 3, 0, 2])
        .op(Op::Label, &[4])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    a.op(Op::Function, &[1, 5, 0, 2]).op(Op::FunctionEnd, &[]);
    assert_eq!(err(&a).kind(), ErrorKind::Layout);
}

#[test]
fn r12_literal_widths() {
    let consts = |ty: &[u32], value: &[u32]| {
        let mut a = Asm::new(0, 4);
        let mut words = vec![1, 2];
        words.extend_from_slice(value);
        a.shader_preamble()
            .op(Op::TypeInt, ty)
            .op(Op::Constant, &words);
        a
    };
    // 64-bit integer with one word, 32-bit with two.
    assert_eq!(err(&consts(&[1, 64, 0], &[5])).kind(), ErrorKind::Operands);
    assert_eq!(
        err(&consts(&[1, 32, 0], &[5, 0])).kind(),
        ErrorKind::Operands
    );
    // 16-bit unsigned with high bits set; 16-bit signed -1 not sign-extended.
    assert_eq!(
        err(&consts(&[1, 16, 0], &[0x1_0000])).kind(),
        ErrorKind::Operands
    );
    assert_eq!(
        err(&consts(&[1, 16, 1], &[0xFFFF])).kind(),
        ErrorKind::Operands
    );
    // The same, well formed, read: 16-bit signed -1 is 0xFFFF_FFFF.
    let m = read_words(&consts(&[1, 16, 1], &[0xFFFF_FFFF]).words).unwrap();
    assert!(matches!(
        m.constant(spv_reader::Id(2)),
        Some(spv_reader::Constant::Scalar {
            bits: 0xFFFF_FFFF,
            ..
        })
    ));
    // A 64-bit constant keeps both words, low first.
    let m = read_words(&consts(&[1, 64, 0], &[1, 2]).words).unwrap();
    assert!(matches!(
        m.constant(spv_reader::Id(2)),
        Some(spv_reader::Constant::Scalar {
            bits: 0x2_0000_0001,
            ..
        })
    ));
    // OpConstant of a non-numeric type.
    let mut a = Asm::new(0, 4);
    a.shader_preamble()
        .op(Op::TypeBool, &[1])
        .op(Op::Constant, &[1, 2, 1]);
    assert_eq!(err(&a).kind(), ErrorKind::Operands);
    // A 128-bit integer literal is over the reader's limit.
    assert_eq!(
        err(&consts(&[1, 128, 0], &[1, 2, 3, 4])).kind(),
        ErrorKind::Limit
    );

    // OpSwitch on a 64-bit selector: each case literal takes two words.
    let switch = |cases: &[u32]| {
        let mut a = Asm::new(0, 12);
        a.shader_preamble()
            .op(Op::TypeVoid, &[1])
            .op(Op::TypeFunction, &[2, 1])
            .op(Op::TypeInt, &[3, 64, 0])
            .op(Op::Constant, &[3, 4, 7, 0])
            .op(Op::Function, &[1, 5, 0, 2])
            .op(Op::Label, &[6])
            .op(Op::SelectionMerge, &[8, 0]);
        let mut words = vec![4, 8];
        words.extend_from_slice(cases);
        a.op(Op::Switch, &words)
            .op(Op::Label, &[7])
            .op(Op::Branch, &[8]);
        a.op(Op::Label, &[8])
            .op(Op::Return, &[])
            .op(Op::FunctionEnd, &[]);
        a
    };
    assert!(read_words(&switch(&[1, 0, 7, 2, 0, 8]).words).is_ok());
    assert_eq!(
        err(&switch(&[1, 7])).kind(),
        ErrorKind::Operands,
        "a one-word literal"
    );
    let text = {
        let m = read_words(&switch(&[1, 0, 7, 0, 1, 8]).words).unwrap();
        spv_reader::disassemble(&m)
    };
    // Case 0x1_0000_0000 = 4294967296 (low word 0, high word 1).
    assert!(text.contains("OpSwitch %4 %8 1 %7 4294967296 %8"), "{text}");
}

#[test]
fn limits() {
    // A bound just over MAX_ID_BOUND + 1 is refused before anything is allocated.
    let a = Asm::new(0, MAX_ID_BOUND + 2);
    assert_eq!(err(&a).kind(), ErrorKind::Header);
    // The largest accepted bound with a tiny module: the tables follow the module's size.
    let mut a = Asm::new(0, MAX_ID_BOUND + 1);
    a.shader_preamble().op(Op::TypeVoid, &[MAX_ID_BOUND]);
    let m = read_words(&a.words).unwrap();
    assert_eq!(
        m.def(spv_reader::Id(MAX_ID_BOUND)).map(|i| i.index().0),
        Some(2)
    );

    // Control flow nested one level deeper than MAX_NESTING_DEPTH: each block opens a
    // selection whose merge block comes only at the end.
    let depth = MAX_NESTING_DEPTH as u32 + 1;
    let mut a = Asm::new(0, 10 + 3 * depth);
    a.shader_preamble()
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::TypeBool, &[3])
        .op(Op::ConstantTrue, &[3, 4])
        .op(Op::Function, &[1, 5, 0, 2]);
    let label = |i: u32| 10 + 2 * i; // the block opening level i
    let merge = |i: u32| 11 + 2 * i; // its merge block
    for i in 0..depth {
        a.op(Op::Label, &[label(i)])
            .op(Op::SelectionMerge, &[merge(i), 0])
            .op(Op::BranchConditional, &[4, label(i + 1), merge(i)]);
    }
    let e = err(&a);
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert_eq!(e.opcode(), Some(Op::SelectionMerge as u16));
}

#[test]
fn wrong_word_counts_are_located() {
    // OpTypeVoid claiming 3 words with only 2 present, at the very end.
    let mut a = Asm::new(0, 4);
    a.shader_preamble();
    let before = last_index(&a);
    a.words.extend([(3 << 16) | 19, 1]);
    let e = err(&a);
    assert_eq!(
        (e.kind(), e.location().unwrap().index),
        (ErrorKind::WordCount, before + 1)
    );
    // Every prefix of a valid module is refused or read, never a panic.
    let mut a = Asm::new(0, 8);
    a.shader_preamble()
        .op(Op::EntryPoint, &with_string(&[5, 4], "main", &[]))
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::Function, &[1, 4, 0, 2])
        .op(Op::Label, &[5])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    let m = read_words(&a.words).unwrap();
    let boundaries: Vec<usize> = m
        .instructions()
        .map(|i| i.location().byte_offset as usize / 4)
        .collect();
    let bytes = a.bytes();
    for len in 0..a.words.len() {
        let result = spv_reader::read(&bytes[..len * 4]);
        // A prefix that cuts an instruction (or the header) is refused; one that ends on an
        // instruction boundary may be a smaller valid module.
        if !boundaries.contains(&len) {
            assert!(result.is_err(), "a {len}-word prefix must be refused");
        }
    }
}
