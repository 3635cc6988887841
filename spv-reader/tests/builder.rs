//! Tables of a tiny module built with `rspirv::dr::Builder`: every expected value below
//! follows from the builder calls (the builder numbers ids in call order from 1).

use spv_reader::rspirv::binary::Assemble;
use spv_reader::rspirv::dr::{Builder, Operand};
use spv_reader::spirv::{self, Decoration as Dec, Op};
use spv_reader::{Constant, Id, InstIndex, Type, read, read_words};

/// A compute shader writing `buf.x[0] = 7` with a selection in its body.
fn compute_module() -> (Vec<u32>, Ids) {
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let uint = b.type_int(32, 0);
    let bool_ty = b.type_bool();
    let arr = b.type_runtime_array(uint);
    let st = b.type_struct(vec![arr]);
    let ptr_st = b.type_pointer(None, spirv::StorageClass::StorageBuffer, st);
    let ptr_u = b.type_pointer(None, spirv::StorageClass::StorageBuffer, uint);
    let c0 = b.constant_bit32(uint, 0);
    let c7 = b.constant_bit32(uint, 7);
    let t = b.constant_true(bool_ty);
    let buf = b.variable(ptr_st, None, spirv::StorageClass::StorageBuffer, None);
    b.name(buf, "buf");
    b.member_name(st, 0, "x");
    b.decorate(st, Dec::Block, vec![]);
    b.member_decorate(st, 0, Dec::Offset, vec![Operand::LiteralBit32(0)]);
    b.decorate(buf, Dec::DescriptorSet, vec![Operand::LiteralBit32(0)]);
    b.decorate(buf, Dec::Binding, vec![Operand::LiteralBit32(3)]);
    let fn_ty = b.type_function(void, vec![]);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.name(main, "main");
    b.begin_block(None).unwrap();
    let then_label = b.id();
    let merge_label = b.id();
    b.selection_merge(merge_label, spirv::SelectionControl::NONE)
        .unwrap();
    b.branch_conditional(t, then_label, merge_label, vec![])
        .unwrap();
    b.begin_block(Some(then_label)).unwrap();
    let p = b.access_chain(ptr_u, None, buf, vec![c0, c0]).unwrap();
    b.store(p, c7, None, vec![]).unwrap();
    b.branch(merge_label).unwrap();
    b.begin_block(Some(merge_label)).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![buf]);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, vec![64, 1, 1]);
    let ids = Ids {
        void,
        uint,
        st,
        ptr_st,
        c7,
        t,
        buf,
        main,
        then_label,
        merge_label,
    };
    (b.module().assemble(), ids)
}

struct Ids {
    void: u32,
    uint: u32,
    st: u32,
    ptr_st: u32,
    c7: u32,
    t: u32,
    buf: u32,
    main: u32,
    then_label: u32,
    merge_label: u32,
}

#[test]
fn tables_of_a_built_module() {
    let (words, ids) = compute_module();
    let m = read_words(&words).expect("the built module reads");
    assert_eq!(m.header().version, (1, 3));
    assert_eq!(m.capabilities(), &[spirv::Capability::Shader as u32]);
    assert_eq!(m.memory_model(), Some((0, 1)));
    assert_eq!(m.ty(Id(ids.void)), Some(&Type::Void));
    assert_eq!(
        m.ty(Id(ids.uint)),
        Some(&Type::Int {
            width: 32,
            signed: false
        })
    );
    assert_eq!(
        m.ty(Id(ids.ptr_st)),
        Some(&Type::Pointer {
            storage_class: spirv::StorageClass::StorageBuffer as u32,
            pointee: Id(ids.st)
        })
    );
    assert_eq!(
        m.constant(Id(ids.c7)),
        Some(&Constant::Scalar {
            ty: Id(ids.uint),
            bits: 7,
            spec: false
        })
    );
    assert_eq!(m.constant(Id(ids.t)).map(|c| c.is_spec()), Some(false));
    assert_eq!(m.name(Id(ids.buf)), Some("buf"));
    assert_eq!(m.name(Id(ids.main)), Some("main"));
    assert_eq!(m.member_name(Id(ids.st), 0), Some("x"));
    assert_eq!(m.member_name(Id(ids.st), 1), None);
    let kinds: Vec<_> = m
        .decorations(Id(ids.buf))
        .map(|d| (d.decoration(), d.operands.to_vec()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (Some(Dec::DescriptorSet), vec![0]),
            (Some(Dec::Binding), vec![3])
        ]
    );
    let member: Vec<_> = m
        .member_decorations(Id(ids.st), 0)
        .map(|d| d.decoration())
        .collect();
    assert_eq!(member, vec![Some(Dec::Offset)]);
    assert_eq!(m.decorations(Id(ids.st)).count(), 1);

    let globals = m.global_variables();
    assert_eq!(globals.len(), 1);
    assert_eq!(globals[0].id, Id(ids.buf));
    assert_eq!(
        globals[0].storage_class,
        spirv::StorageClass::StorageBuffer as u32
    );

    let ep = &m.entry_points()[0];
    assert_eq!(
        (ep.model(), ep.function, ep.name.as_str()),
        (Some(spirv::ExecutionModel::GLCompute), Id(ids.main), "main")
    );
    assert_eq!(ep.interface, vec![Id(ids.buf)]);
    let mode = &m.execution_modes()[0];
    assert_eq!(
        (
            mode.target,
            mode.execution_mode(),
            mode.operands.as_slice(),
            mode.is_id
        ),
        (
            Id(ids.main),
            Some(spirv::ExecutionMode::LocalSize),
            &[64, 1, 1][..],
            false
        )
    );

    let f = &m.functions()[0];
    assert_eq!(f.id, Id(ids.main));
    assert_eq!(f.result_type, Id(ids.void));
    let labels: Vec<_> = f.blocks.iter().map(|b| b.label).collect();
    assert_eq!(labels[1..], [Id(ids.then_label), Id(ids.merge_label)]);
    let entry = &f.blocks[0];
    let merge = m
        .inst(entry.merge.expect("the entry block has a selection merge"))
        .unwrap();
    assert_eq!(merge.opcode(), Some(Op::SelectionMerge));
    assert_eq!(merge.operands(), &[ids.merge_label, 0]);
    assert_eq!(
        entry.body().len(),
        0,
        "nothing between OpLabel and OpSelectionMerge"
    );
    let then_body: Vec<_> = m
        .instructions_in(f.blocks[1].body())
        .map(|i| i.opcode())
        .collect();
    assert_eq!(then_body, vec![Some(Op::AccessChain), Some(Op::Store)]);
    assert_eq!(
        m.inst(f.end).and_then(|i| i.opcode()),
        Some(Op::FunctionEnd)
    );
    assert_eq!(
        m.inst(f.def).and_then(|i| i.result_id()),
        Some(Id(ids.main))
    );
    assert!(m.warnings().is_empty());
}

#[test]
fn locations_and_views() {
    let (words, ids) = compute_module();
    let m = read_words(&words).unwrap();
    let first = m.inst(InstIndex(0)).unwrap();
    // The first instruction follows the 5-word header.
    assert_eq!(
        (first.location().index, first.location().byte_offset),
        (0, 20)
    );
    assert_eq!(first.opcode(), Some(Op::Capability));
    let uint = m.def(Id(ids.uint)).unwrap();
    assert_eq!(
        uint.words(),
        &[(4 << 16) | Op::TypeInt as u32, ids.uint, 32, 0]
    );
    assert_eq!(
        (uint.result_type(), uint.result_id(), uint.operands()),
        (None, Some(Id(ids.uint)), &[32, 0][..])
    );
    assert_eq!(m.result_type(Id(ids.c7)), Some(Id(ids.uint)));
    assert_eq!(m.instructions().len(), m.instruction_count());
    assert_eq!(Id(7).to_string(), "%7");
    // Byte offsets are 4 × the word offset; consecutive instructions tile the module.
    let mut expected = 20;
    for inst in m.instructions() {
        assert_eq!(inst.location().byte_offset, expected);
        expected += 4 * inst.words().len() as u32;
    }
    assert_eq!(expected as usize, words.len() * 4);
}

#[test]
fn both_byte_orders_read_the_same() {
    let (words, _) = compute_module();
    let le: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    let a = read(&le).unwrap();
    let b = read(&be).unwrap();
    assert_eq!(a.words(), b.words());
    assert_eq!(a.words(), &words[..]);
    let swapped: Vec<u32> = words.iter().map(|w| w.swap_bytes()).collect();
    assert_eq!(read_words(&swapped).unwrap().words(), &words[..]);
}

/// `Inst::split` gives the three parts the separate accessors give, for every instruction of
/// the built module (typed, untyped with a result, without a result). The two spelled-out
/// cases follow from the builder calls: `OpStore %p %c7` has neither Result Type nor Result
/// id, `OpTypeInt` has a Result id and no Result Type.
#[test]
fn split_agrees_with_the_separate_accessors() {
    let (words, ids) = compute_module();
    let m = read_words(&words).expect("the built module reads");
    for inst in m.instructions() {
        assert_eq!(
            inst.split(),
            (inst.result_type(), inst.result_id(), inst.operands()),
            "{inst}"
        );
    }
    let store = m
        .instructions()
        .find(|i| i.opcode() == Some(Op::Store))
        .expect("the module stores");
    let (ty, result, operands) = store.split();
    assert_eq!((ty, result, operands.len()), (None, None, 2));
    assert_eq!(operands[1], ids.c7);
    let int = m
        .instructions()
        .find(|i| i.opcode() == Some(Op::TypeInt))
        .expect("the module declares an int");
    assert_eq!(int.split(), (None, Some(Id(ids.uint)), &[32, 0][..]));
}
