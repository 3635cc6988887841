//! Types that share members must not unfold: a struct of two copies of a struct of two
//! copies ... 64 levels deep has 2^64 paths through its members, so every walk over types
//! (containment, nesting depth, explicit layout, block layout) has to visit each type once.
//! Each test can only fail by a wrong verdict or by never finishing; the verdicts were
//! reasoned out (noted at each test), as spirv-val itself does not finish on such modules.

use spv_reader::rspirv::binary::Assemble;
use spv_reader::rspirv::dr::{Builder, Operand};
use spv_reader::spirv;
use spv_validate::{Options, TargetEnv, validate};

/// Nesting levels of the shared struct.
const LEVELS: usize = 64;

/// A compute module using the shared struct: with `buffer`, as the member of a
/// StorageBuffer Block (every level laid out with Offsets 0 and 4); without, undecorated, as
/// a Private variable loaded into a Function variable.
fn module(buffer: bool) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let fn_ty = b.type_function(void, vec![]);
    let float = b.type_float(32, None);
    let offset = |b: &mut Builder, st, member, at| {
        if buffer {
            b.member_decorate(
                st,
                member,
                spirv::Decoration::Offset,
                vec![Operand::LiteralBit32(at)],
            );
        }
    };
    let mut st = b.type_struct(vec![float]);
    offset(&mut b, st, 0, 0);
    for _ in 1..LEVELS {
        st = b.type_struct(vec![st, st]);
        offset(&mut b, st, 0, 0);
        offset(&mut b, st, 1, 4);
    }
    let mut interface = Vec::new();
    let mut private = None;
    if buffer {
        let block = b.type_struct(vec![st]);
        b.decorate(block, spirv::Decoration::Block, vec![]);
        offset(&mut b, block, 0, 0);
        let ptr = b.type_pointer(None, spirv::StorageClass::StorageBuffer, block);
        let var = b.variable(ptr, None, spirv::StorageClass::StorageBuffer, None);
        b.decorate(
            var,
            spirv::Decoration::DescriptorSet,
            vec![Operand::LiteralBit32(0)],
        );
        b.decorate(
            var,
            spirv::Decoration::Binding,
            vec![Operand::LiteralBit32(0)],
        );
        interface.push(var);
    } else {
        let ptr = b.type_pointer(None, spirv::StorageClass::Private, st);
        let var = b.variable(ptr, None, spirv::StorageClass::Private, None);
        interface.push(var);
        private = Some(var);
    }
    let function_ptr = b.type_pointer(None, spirv::StorageClass::Function, st);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    if let Some(private) = private {
        let local = b.variable(function_ptr, None, spirv::StorageClass::Function, None);
        let value = b.load(st, None, private, None, vec![]).unwrap();
        b.store(local, value, None, vec![]).unwrap();
    }
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", interface);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, vec![1, 1, 1]);
    b.module().assemble()
}

#[test]
fn structs_sharing_members_are_walked_once() {
    // Valid: a Private variable of a nested struct (float at the bottom), copied into a
    // Function variable; no decoration, no interface rule involved.
    let words = module(false);
    let m = spv_reader::read_words(&words).unwrap();
    for env in [TargetEnv::ModuleVersion, TargetEnv::Vulkan(1, 2)] {
        let result = validate(&m, &Options::new(env));
        assert!(result.is_ok(), "{env}: {}", result.unwrap_err());
    }
}

#[test]
fn block_layout_of_shared_structs_ends() {
    // Invalid: member 1 of each level sits at offset 4 while member 0 (the previous level)
    // is at least 8 bytes long from level 2 on, so the Vulkan storage-buffer layout overlaps
    // (V-LAYOUT-4); the walk has to reach the innermost levels to see it.
    let words = module(true);
    let m = spv_reader::read_words(&words).unwrap();
    let d = validate(&m, &Options::new(TargetEnv::Vulkan(1, 2))).unwrap_err();
    assert!(d.has_rule("V-LAYOUT-4"), "{d}");
}
