//! Per-id tables on modules written word by word: decoration groups resolved onto their
//! targets, forward-declared pointers, names and member names, constants and types of
//! every kind the reader decodes. Expected values follow from the words written.

mod common;

use common::{Asm, with_string};
use spv_reader::spirv::{Decoration as Dec, Op};
use spv_reader::{Constant, Id, InstIndex, Type, read_words};

#[test]
fn decoration_groups_are_resolved_onto_their_targets() {
    let mut a = Asm::new(0, 8);
    a.shader_preamble()
        // %1 = OpDecorationGroup, decorated Restrict and Binding 5.
        .op(Op::Decorate, &[1, Dec::Restrict as u32])
        .op(Op::Decorate, &[1, Dec::Binding as u32, 5])
        .op(Op::DecorationGroup, &[1])
        .op(Op::Decorate, &[3, Dec::NonWritable as u32])
        .op(Op::GroupDecorate, &[1, 3, 4])
        .op(Op::GroupMemberDecorate, &[1, 6, 1])
        .op(Op::TypeInt, &[2, 32, 0])
        .op(Op::TypePointer, &[3, 12, 2])
        .op(Op::TypePointer, &[4, 7, 2])
        .op(Op::TypeStruct, &[6, 2, 2]);
    let m = read_words(&a.words).unwrap();
    let of = |id: u32| {
        m.decorations(Id(id))
            .map(|d| (d.inst, d.kind, d.operands.to_vec()))
            .collect::<Vec<_>>()
    };
    // %3: its own NonWritable (instruction 5), then the group's two (instructions 2 and 3),
    // in the order of their decorating instructions.
    assert_eq!(
        of(3),
        vec![
            (InstIndex(2), Dec::Restrict as u32, vec![]),
            (InstIndex(3), Dec::Binding as u32, vec![5]),
            (InstIndex(5), Dec::NonWritable as u32, vec![]),
        ]
    );
    assert_eq!(of(4).len(), 2);
    let member: Vec<_> = m
        .member_decorations(Id(6), 1)
        .map(|d| d.decoration())
        .collect();
    assert_eq!(member, vec![Some(Dec::Restrict), Some(Dec::Binding)]);
    assert_eq!(m.member_decorations(Id(6), 0).count(), 0);
    assert_eq!(
        m.decoration(Id(4), Dec::Binding)
            .map(|d| d.operands.to_vec()),
        Some(vec![5])
    );
}

#[test]
fn forward_pointers_and_types() {
    let mut a = Asm::new(5, 20);
    a.op(Op::Capability, &[1])
        .op(Op::Capability, &[5347]) // PhysicalStorageBufferAddresses
        .op(Op::MemoryModel, &[5348, 1]) // PhysicalStorageBuffer64 GLSL450
        .op(Op::TypeForwardPointer, &[1, 5349])
        .op(Op::TypeInt, &[2, 32, 1])
        .op(Op::TypeStruct, &[3, 2, 1]) // struct { int; ptr-to-self }
        .op(Op::TypePointer, &[1, 5349, 3])
        .op(Op::TypeFloat, &[4, 64])
        .op(Op::TypeVector, &[5, 4, 3])
        .op(Op::TypeMatrix, &[6, 5, 4])
        .op(Op::Constant, &[2, 7, 4])
        .op(Op::TypeArray, &[8, 6, 7])
        .op(Op::TypeRuntimeArray, &[9, 8])
        .op(Op::TypeBool, &[10])
        .op(Op::TypeFunction, &[11, 10, 2, 4])
        .op(Op::TypeImage, &[12, 4, 1, 0, 0, 0, 2, 1, 2])
        .op(Op::TypeSampler, &[13])
        .op(Op::TypeSampledImage, &[14, 12])
        .op(Op::TypeEvent, &[15])
        .op(Op::ConstantComposite, &[5, 16, 17, 17, 17])
        .op(Op::Constant, &[4, 17, 0, 0x3FF0_0000]) // 1.0 as a double
        .op(Op::ConstantNull, &[6, 18])
        .op(Op::Undef, &[2, 19]);
    let err = read_words(&a.words).unwrap_err();
    // %17 is used by %16 before its definition: not a forward reference SPIR-V allows.
    assert_eq!(err.kind(), spv_reader::ErrorKind::ForwardReference);
    assert_eq!(err.location().unwrap().index, 19, "the OpConstantComposite");

    // Swap %16 and %17 into definition order.
    let mut b = Asm::new(5, 20);
    b.words = a.words.clone();
    let composite = [
        ((6 << 16) | Op::ConstantComposite as u32),
        5,
        16,
        17,
        17,
        17,
    ];
    let double = [((5 << 16) | Op::Constant as u32), 4, 17, 0, 0x3FF0_0000];
    let at = b.words.windows(6).position(|w| w == composite).unwrap();
    b.words
        .splice(at..at + 11, double.iter().chain(composite.iter()).copied());
    let m = read_words(&b.words).unwrap();
    assert_eq!(
        m.ty(Id(1)),
        Some(&Type::Pointer {
            storage_class: 5349,
            pointee: Id(3)
        })
    );
    assert_eq!(
        m.ty(Id(3)),
        Some(&Type::Struct {
            members: vec![Id(2), Id(1)]
        })
    );
    assert_eq!(
        m.ty(Id(2)),
        Some(&Type::Int {
            width: 32,
            signed: true
        })
    );
    assert_eq!(
        m.ty(Id(6)),
        Some(&Type::Matrix {
            column: Id(5),
            count: 4
        })
    );
    assert_eq!(
        m.ty(Id(8)),
        Some(&Type::Array {
            element: Id(6),
            length: Id(7)
        })
    );
    assert_eq!(m.ty(Id(9)), Some(&Type::RuntimeArray { element: Id(8) }));
    assert_eq!(
        m.ty(Id(11)),
        Some(&Type::Function {
            ret: Id(10),
            params: vec![Id(2), Id(4)]
        })
    );
    assert_eq!(
        m.ty(Id(12)),
        Some(&Type::Image {
            sampled_type: Id(4),
            dim: 1,
            depth: 0,
            arrayed: 0,
            multisampled: 0,
            sampled: 2,
            format: 1,
            access: Some(2),
        })
    );
    assert_eq!(m.ty(Id(14)), Some(&Type::SampledImage { image: Id(12) }));
    assert_eq!(
        m.ty(Id(15)),
        Some(&Type::Other {
            opcode: Op::TypeEvent as u16
        })
    );
    assert_eq!(
        m.constant(Id(17)),
        Some(&Constant::Scalar {
            ty: Id(4),
            bits: 0x3FF0_0000_0000_0000,
            spec: false
        })
    );
    assert_eq!(
        m.constant(Id(16)),
        Some(&Constant::Composite {
            ty: Id(5),
            parts: vec![Id(17); 3],
            spec: false
        })
    );
    assert_eq!(m.constant(Id(18)), Some(&Constant::Null { ty: Id(6) }));
    assert_eq!(m.constant(Id(19)), Some(&Constant::Undef { ty: Id(2) }));
    assert_eq!(m.ty(Id(16)), None);
    assert_eq!(m.constant(Id(2)), None);
}

#[test]
fn the_first_name_wins() {
    let mut a = Asm::new(0, 3);
    a.shader_preamble()
        .op(Op::Name, &with_string(&[1], "first", &[]))
        .op(Op::Name, &with_string(&[1], "second", &[]))
        .op(Op::MemberName, &with_string(&[1, 0], "a", &[]))
        .op(Op::MemberName, &with_string(&[1, 0], "b", &[]))
        .op(Op::MemberName, &with_string(&[1, 1], "c", &[]))
        .op(Op::TypeInt, &[2, 32, 0])
        .op(Op::TypeStruct, &[1, 2, 2]);
    let m = read_words(&a.words).unwrap();
    assert_eq!(m.name(Id(1)), Some("first"));
    assert_eq!(
        (m.member_name(Id(1), 0), m.member_name(Id(1), 1)),
        (Some("a"), Some("c"))
    );
    assert_eq!(m.name(Id(2)), None);
}

/// An `OpTypeForwardPointer` operand that a constant instruction defines (invalid, but
/// within what the reader reads) is both a type and a constant, whichever comes first; the
/// expected values are the two instructions' (checked against the reader of main before the
/// id table was narrowed, which kept the two in separate fields).
#[test]
fn a_forward_pointer_defined_by_a_constant_is_both() {
    for forward_pointer_first in [true, false] {
        let mut a = Asm::new(0, 10);
        a.shader_preamble().op(Op::TypeInt, &[1, 32, 0]);
        let forward_pointer = [2, 12]; // %2, StorageBuffer
        let null = [1, 2]; // %2 = OpConstantNull %1
        if forward_pointer_first {
            a.op(Op::TypeForwardPointer, &forward_pointer)
                .op(Op::ConstantNull, &null);
        } else {
            a.op(Op::ConstantNull, &null)
                .op(Op::TypeForwardPointer, &forward_pointer);
        }
        let m = read_words(&a.words).unwrap();
        assert_eq!(
            m.ty(Id(2)),
            Some(&Type::ForwardPointer { storage_class: 12 })
        );
        assert_eq!(m.constant(Id(2)), Some(&Constant::Null { ty: Id(1) }));
        assert_eq!(
            m.ty(Id(1)),
            Some(&Type::Int {
                width: 32,
                signed: false
            })
        );
        assert_eq!(m.constant(Id(1)), None);
    }
}
