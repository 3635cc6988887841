//! A module read after another on the same thread (which hands its buffers to the next read)
//! has exactly the tables of the same module read on a fresh thread. The expected values are
//! the fresh thread's, so the test fails if any table kept something of the previous module.

use spv_reader::rspirv::binary::Assemble;
use spv_reader::rspirv::dr::{Builder, Operand};
use spv_reader::spirv::{self, Decoration as Dec};
use spv_reader::{Id, Module, read_words};

/// A module with `n` struct types, each named, decorated and with a named member, and a
/// compute entry point.
fn module(n: u32) -> Vec<u32> {
    let mut b = Builder::new();
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let float = b.type_float(32, None);
    for i in 0..n {
        let st = b.type_struct(vec![float]);
        b.name(st, format!("S{i}"));
        b.member_name(st, 0, format!("m{i}"));
        b.member_decorate(st, 0, Dec::Offset, vec![Operand::LiteralBit32(4 * i)]);
        b.decorate(st, Dec::Block, vec![]);
        b.constant_bit32(float, i);
    }
    let fn_ty = b.type_function(void, vec![]);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![]);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, vec![1, 1, 1]);
    b.module().assemble()
}

/// Everything the module's accessors give, as text.
fn fingerprint(m: &Module) -> String {
    let mut out = spv_reader::disassemble(m);
    for id in 0..m.header().bound + 2 {
        let id = Id(id);
        let decorations: Vec<_> = m.decorations(id).collect();
        let members: Vec<_> = (0..2)
            .map(|k| {
                (
                    m.member_name(id, k),
                    m.member_decorations(id, k).collect::<Vec<_>>(),
                )
            })
            .collect();
        out += &format!(
            "{id:?} {:?} {:?} {:?} {:?} {decorations:?} {members:?}\n",
            m.def(id).map(|d| d.index()),
            m.name(id),
            m.ty(id),
            m.constant(id),
        );
    }
    out += &format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        m.capabilities(),
        m.entry_points(),
        m.execution_modes(),
        m.global_variables(),
        m.functions(),
        m.warnings(),
        m.ext_inst_imports().collect::<Vec<_>>(),
    );
    out
}

#[test]
fn a_module_read_after_another_has_only_its_own_tables() {
    let big = module(40);
    let small = module(2);
    let fresh = |words: Vec<u32>| {
        std::thread::spawn(move || fingerprint(&read_words(&words).unwrap()))
            .join()
            .unwrap()
    };
    let expected_small = fresh(small.clone());
    let expected_big = fresh(big.clone());
    // Big then small (buffers larger than needed), then big again (buffers too small).
    drop(read_words(&big).unwrap());
    assert_eq!(fingerprint(&read_words(&small).unwrap()), expected_small);
    assert_eq!(fingerprint(&read_words(&big).unwrap()), expected_big);
    assert_eq!(fingerprint(&read_words(&small).unwrap()), expected_small);
    // The two modules do differ, so equal fingerprints above are not vacuous.
    assert_ne!(expected_small, expected_big);
}
