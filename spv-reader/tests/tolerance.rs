//! Regression tests for what real modules contain and rspirv's `dr` loader rejects
//! (reference/tooling.md: module-scope `OpExtInst` of non-semantic sets,
//! `OpExecutionModeId`, global `OpUntypedVariableKHR`, `OpSpecConstantOp` forms), debug
//! instructions, and unknown opcodes and enumerants, which the reader keeps raw and reports
//! as warnings. Each module is written word by word with `common::Asm`; the expected
//! values follow from the words written.

mod common;

use common::{Asm, string, with_string};
use spv_reader::rspirv;
use spv_reader::spirv::{self, Op};
use spv_reader::{
    Constant, ErrorKind, Id, Type, dis::normalize_for_comparison, disassemble, read_words,
};

/// `void main()` with one empty block, as ids `fn_id` (function), `label`, returning void
/// `void` of function type `fn_ty`.
fn empty_main(a: &mut Asm, void: u32, fn_ty: u32, fn_id: u32, label: u32) {
    a.op(Op::Function, &[void, fn_id, 0, fn_ty])
        .op(Op::Label, &[label])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
}

#[test]
fn module_scope_non_semantic_ext_inst() {
    let mut a = Asm::new(6, 8);
    a.op(Op::Capability, &[1])
        .op(Op::Extension, &string("SPV_KHR_non_semantic_info"))
        .op(
            Op::ExtInstImport,
            &with_string(&[1], "NonSemantic.Shader.DebugInfo.100", &[]),
        )
        .op(Op::MemoryModel, &[0, 1])
        .op(Op::EntryPoint, &with_string(&[5, 2], "main", &[]))
        .op(Op::ExecutionMode, &[2, 17, 1, 1, 1])
        .op(Op::String, &with_string(&[3], "a.comp", &[]))
        .op(Op::TypeVoid, &[4])
        .op(Op::TypeFunction, &[5, 4])
        // %6 = OpExtInst %4 %1 DebugSource %3 (DebugSource is instruction 35).
        .op(Op::ExtInst, &[4, 6, 1, 35, 3]);
    empty_main(&mut a, 4, 5, 2, 7);
    let m = read_words(&a.words).expect("module-scope non-semantic OpExtInst reads");
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let ext = m.def(Id(6)).unwrap();
    assert_eq!(
        (ext.opcode(), ext.operands()),
        (Some(Op::ExtInst), &[1, 35, 3][..])
    );
    assert_eq!(
        m.ext_inst_imports().collect::<Vec<_>>(),
        vec![(Id(1), "NonSemantic.Shader.DebugInfo.100")]
    );
    assert!(
        rspirv::dr::load_words(&a.words).is_err(),
        "rspirv's loader rejects this module"
    );
    // Checked against `spirv-dis --raw-id` 2025.5 on the same words.
    let expected = r#"; SPIR-V
; Version: 1.6
; Generator: Khronos; 0
; Bound: 8
; Schema: 0
               OpCapability Shader
               OpExtension "SPV_KHR_non_semantic_info"
          %1 = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %2 "main"
               OpExecutionMode %2 LocalSize 1 1 1
          %3 = OpString "a.comp"
          %4 = OpTypeVoid
          %5 = OpTypeFunction %4
          %6 = OpExtInst %4 %1 DebugSource %3
          %2 = OpFunction %4 None %5
          %7 = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    assert_eq!(
        normalize_for_comparison(&disassemble(&m)),
        normalize_for_comparison(expected)
    );
}

#[test]
fn execution_mode_id_with_forward_constants() {
    let mut a = Asm::new(2, 8);
    a.shader_preamble()
        .op(Op::EntryPoint, &with_string(&[5, 1], "main", &[]))
        // OpExecutionModeId %1 LocalSizeId %5 %6 %6: its ids are defined later (§2.4).
        .op(Op::ExecutionModeId, &[1, 38, 5, 6, 6])
        .op(Op::TypeVoid, &[2])
        .op(Op::TypeFunction, &[3, 2])
        .op(Op::TypeInt, &[4, 32, 0])
        .op(Op::Constant, &[4, 5, 64])
        .op(Op::Constant, &[4, 6, 1]);
    empty_main(&mut a, 2, 3, 1, 7);
    let m = read_words(&a.words).expect("OpExecutionModeId reads");
    let mode = &m.execution_modes()[0];
    assert!(mode.is_id);
    assert_eq!(
        mode.execution_mode(),
        Some(spirv::ExecutionMode::LocalSizeId)
    );
    assert_eq!(mode.operands, vec![5, 6, 6]);
    assert_eq!(
        m.constant(Id(5)),
        Some(&Constant::Scalar {
            ty: Id(4),
            bits: 64,
            spec: false
        })
    );
    assert!(
        rspirv::dr::load_words(&a.words).is_err(),
        "rspirv's loader rejects this module"
    );

    // The same ids never defined: a located forward-reference error at the mode.
    let mut b = Asm::new(2, 8);
    b.shader_preamble()
        .op(Op::EntryPoint, &with_string(&[5, 1], "main", &[]))
        .op(Op::ExecutionModeId, &[1, 38, 5, 6, 6])
        .op(Op::TypeVoid, &[2])
        .op(Op::TypeFunction, &[3, 2]);
    empty_main(&mut b, 2, 3, 1, 7);
    let e = read_words(&b.words).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ForwardReference);
    assert_eq!(e.location().unwrap().index, 3, "the OpExecutionModeId");
}

#[test]
fn global_untyped_variable() {
    let mut a = Asm::new(6, 7);
    a.op(Op::Capability, &[1])
        .op(
            Op::Capability,
            &[spirv::Capability::UntypedPointersKHR as u32],
        )
        .op(Op::Extension, &string("SPV_KHR_untyped_pointers"))
        .op(Op::MemoryModel, &[0, 1])
        .op(Op::TypeUntypedPointerKHR, &[2, 12])
        .op(Op::TypeInt, &[3, 32, 0])
        .op(Op::TypeStruct, &[4, 3])
        // %5 = OpUntypedVariableKHR %2 StorageBuffer %4 (data type, no initializer).
        .op(Op::UntypedVariableKHR, &[2, 5, 12, 4]);
    let m = read_words(&a.words).expect("a global OpUntypedVariableKHR reads");
    let v = m.global_variables()[0];
    assert_eq!(
        (v.id, v.ty, v.storage_class, v.data_type, v.initializer),
        (Id(5), Id(2), 12, Some(Id(4)), None)
    );
    assert_eq!(
        m.ty(Id(2)),
        Some(&Type::UntypedPointer { storage_class: 12 })
    );
    assert!(
        rspirv::dr::load_words(&a.words).is_err(),
        "rspirv's loader rejects this module"
    );
}

/// Every opcode SPIR-V §3.3.7 allows in OpSpecConstantOp (Shader and Kernel lists), with
/// its operand words (ids %3/%4/%5 and literal indices).
#[test]
fn spec_constant_op_every_form() {
    let unary = [
        Op::SConvert,
        Op::UConvert,
        Op::FConvert,
        Op::SNegate,
        Op::Not,
        Op::LogicalNot,
        Op::QuantizeToF16,
        Op::ConvertFToS,
        Op::ConvertSToF,
        Op::ConvertFToU,
        Op::ConvertUToF,
        Op::ConvertPtrToU,
        Op::ConvertUToPtr,
        Op::GenericCastToPtr,
        Op::PtrCastToGeneric,
        Op::Bitcast,
        Op::FNegate,
    ];
    let binary = [
        Op::IAdd,
        Op::ISub,
        Op::IMul,
        Op::UDiv,
        Op::SDiv,
        Op::UMod,
        Op::SRem,
        Op::SMod,
        Op::ShiftRightLogical,
        Op::ShiftRightArithmetic,
        Op::ShiftLeftLogical,
        Op::BitwiseOr,
        Op::BitwiseXor,
        Op::BitwiseAnd,
        Op::LogicalOr,
        Op::LogicalAnd,
        Op::LogicalEqual,
        Op::LogicalNotEqual,
        Op::IEqual,
        Op::INotEqual,
        Op::ULessThan,
        Op::SLessThan,
        Op::UGreaterThan,
        Op::SGreaterThan,
        Op::ULessThanEqual,
        Op::SLessThanEqual,
        Op::UGreaterThanEqual,
        Op::SGreaterThanEqual,
        Op::FAdd,
        Op::FSub,
        Op::FMul,
        Op::FDiv,
        Op::FRem,
        Op::FMod,
    ];
    let mut forms: Vec<(Op, Vec<u32>)> = Vec::new();
    forms.extend(unary.iter().map(|&op| (op, vec![3])));
    forms.extend(binary.iter().map(|&op| (op, vec![3, 4])));
    forms.push((Op::Select, vec![3, 4, 5]));
    forms.push((Op::VectorShuffle, vec![3, 4, 0, 3, 1]));
    forms.push((Op::CompositeExtract, vec![3, 1, 0]));
    forms.push((Op::CompositeInsert, vec![3, 4, 2]));
    forms.push((Op::AccessChain, vec![3, 4, 4]));
    forms.push((Op::InBoundsAccessChain, vec![3, 4]));
    forms.push((Op::PtrAccessChain, vec![3, 4, 5]));
    forms.push((Op::InBoundsPtrAccessChain, vec![3, 4]));
    for (op, operands) in forms {
        let mut a = Asm::new(0, 7);
        a.shader_preamble()
            .op(Op::TypeInt, &[1, 32, 0])
            .op(Op::TypeBool, &[2])
            .op(Op::SpecConstant, &[1, 3, 7])
            .op(Op::SpecConstant, &[1, 4, 8])
            .op(Op::SpecConstantTrue, &[2, 5]);
        let mut words = vec![1, 6, op as u32];
        words.extend(&operands);
        a.op(Op::SpecConstantOp, &words);
        let m = read_words(&a.words).unwrap_or_else(|e| panic!("OpSpecConstantOp {op:?}: {e}"));
        assert_eq!(
            m.constant(Id(6)),
            Some(&Constant::SpecOp {
                ty: Id(1),
                opcode: op as u16,
                operands: operands.clone()
            }),
            "{op:?}"
        );
        let text = spv_reader::disassemble_inst(&m, m.def(Id(6)).unwrap());
        assert!(
            text.starts_with(&format!("%6 = OpSpecConstantOp %1 {op:?} %3")),
            "{text}"
        );
        // One word too many or too few for the embedded opcode is an operand error.
        let mut extra = a.words.clone();
        let last = extra.len() - words.len() - 1;
        extra[last] += 1 << 16;
        extra.push(3);
        if !matches!(
            op,
            Op::VectorShuffle | Op::CompositeExtract | Op::CompositeInsert
        ) && !format!("{op:?}").contains("AccessChain")
        {
            assert_eq!(
                read_words(&extra).unwrap_err().kind(),
                ErrorKind::Operands,
                "{op:?} + 1 word"
            );
        }
    }
}

#[test]
fn debug_instructions_and_lines() {
    let mut a = Asm::new(0, 10);
    a.shader_preamble()
        .op(Op::EntryPoint, &with_string(&[5, 4], "main", &[]))
        .op(Op::ExecutionMode, &[4, 17, 8, 8, 1])
        .op(Op::String, &with_string(&[1], "k.comp", &[]))
        .op(
            Op::Source,
            &with_string(&[2, 450, 1], "#version 450\nvoid main() {}\n", &[]),
        )
        .op(
            Op::SourceExtension,
            &string("GL_GOOGLE_cpp_style_line_directive"),
        )
        .op(Op::Name, &with_string(&[4], "main", &[]))
        .op(Op::ModuleProcessed, &string("client vulkan100"))
        .op(Op::Line, &[1, 1, 1])
        .op(Op::TypeVoid, &[2])
        .op(Op::NoLine, &[])
        .op(Op::TypeFunction, &[3, 2])
        .op(Op::Line, &[1, 2, 1])
        .op(Op::Function, &[2, 4, 0, 3])
        .op(Op::Label, &[5])
        .op(Op::Line, &[1, 2, 13])
        .op(Op::NoLine, &[])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    let m = read_words(&a.words).expect("debug instructions read");
    assert!(m.warnings().is_empty());
    assert_eq!(m.name(Id(4)), Some("main"));
    let f = &m.functions()[0];
    let body: Vec<_> = m
        .instructions_in(f.blocks[0].body())
        .map(|i| i.opcode())
        .collect();
    assert_eq!(body, vec![Some(Op::Line), Some(Op::NoLine)]);
    let text = disassemble(&m);
    assert!(
        text.contains("OpSource GLSL 450 %1 \"#version 450\nvoid main() {}\n\""),
        "{text}"
    );
    assert!(text.contains("OpLine %1 2 13"));
}

#[test]
fn unknown_enumerants_are_kept_raw_as_warnings() {
    let mut a = Asm::new(0, 6);
    a.op(Op::Capability, &[1])
        .op(Op::Capability, &[9999]) // not in this crate's grammar
        .op(Op::MemoryModel, &[0, 1])
        // OpDecorate %2 <decoration 9999> 7 8: parameters unknown, kept raw.
        .op(Op::Decorate, &[2, 9999, 7, 8])
        .op(Op::TypeInt, &[1, 32, 0])
        // %2 = OpTypePointer <storage class 4242> %1.
        .op(Op::TypePointer, &[2, 4242, 1]);
    let m = read_words(&a.words).expect("unknown enumerants are tolerated");
    let messages: Vec<_> = m
        .warnings()
        .iter()
        .map(|w| (w.location.index, w.message.clone()))
        .collect();
    assert_eq!(
        messages,
        vec![
            (1, "unknown Capability 9999".to_owned()),
            (3, "unknown Decoration 9999".to_owned()),
            (5, "unknown StorageClass 4242".to_owned()),
        ]
    );
    assert_eq!(m.capabilities(), &[1, 9999]);
    let d: Vec<_> = m
        .decorations(Id(2))
        .map(|d| (d.kind, d.decoration(), d.operands.to_vec()))
        .collect();
    assert_eq!(d, vec![(9999, None, vec![7, 8])]);
    assert_eq!(
        m.ty(Id(2)),
        Some(&Type::Pointer {
            storage_class: 4242,
            pointee: Id(1)
        })
    );
    // The disassembly prints what it cannot name as numbers.
    assert!(disassemble(&m).contains("OpDecorate %2 9999 7 8"));
}

#[test]
fn unknown_mask_bits_and_unknown_opcodes() {
    let mut a = Asm::new(0, 10);
    a.shader_preamble()
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::TypeInt, &[3, 32, 0])
        .op(Op::TypePointer, &[4, 7, 3])
        .op(Op::Function, &[1, 5, 0, 2])
        .op(Op::Label, &[6])
        .op(Op::Variable, &[4, 7, 7])
        // OpLoad %3 %8 %7 with memory-access bit 0x4000_0000 (unknown) and a raw word.
        .op(Op::Load, &[3, 8, 7, 0x4000_0000, 99])
        .raw(0x7ABC, &[1, 2])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    let m = read_words(&a.words).expect("unknown mask bits and opcodes are tolerated");
    let messages: Vec<_> = m.warnings().iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        messages,
        vec![
            "unknown MemoryAccess bit 0x40000000",
            "unknown opcode 31420, skipped (3 words)"
        ]
    );
    // The unknown instruction stays in its block's body, raw.
    let body: Vec<_> = m
        .instructions_in(m.functions()[0].blocks[0].body())
        .map(|i| i.raw_opcode())
        .collect();
    assert_eq!(body, vec![Op::Variable as u16, Op::Load as u16, 0x7ABC]);
}

/// `Module::ext_inst_set` names a set the grammar knows (answered from the grammar's own
/// name) and one it does not (answered from the module's bytes) alike, and nothing else.
#[test]
fn ext_inst_set_names_known_and_unknown_sets() {
    let mut a = Asm::new(6, 8);
    a.op(Op::Capability, &[1])
        .op(Op::ExtInstImport, &with_string(&[1], "GLSL.std.450", &[]))
        .op(
            Op::ExtInstImport,
            &with_string(&[3], "Vendor.unknown.7", &[]),
        )
        .op(Op::MemoryModel, &[0, 1])
        .op(Op::EntryPoint, &with_string(&[5, 2], "main", &[]))
        .op(Op::ExecutionMode, &[2, 17, 1, 1, 1])
        .op(Op::TypeVoid, &[4])
        .op(Op::TypeFunction, &[5, 4]);
    empty_main(&mut a, 4, 5, 2, 7);
    let m = read_words(&a.words).expect("the module reads");
    assert_eq!(m.ext_inst_set(Id(1)), Some("GLSL.std.450"));
    assert_eq!(m.ext_inst_set(Id(3)), Some("Vendor.unknown.7"));
    assert_eq!(m.ext_inst_set(Id(4)), None);
}
