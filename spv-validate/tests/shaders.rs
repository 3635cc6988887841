//! The committed test shaders (`tests/shaders/*.comp`, compiled with glslangValidator for
//! Vulkan 1.0 and 1.2) validate, and the facts of `ModuleInfo` match their sources.
//! spirv-val 2025.5 accepts every one of them (`spirv-val --target-env vulkan1.x FILE`).

use std::path::PathBuf;

use spv_reader::spirv::ExecutionModel;
use spv_validate::{ModuleInfo, Options, TargetEnv, validate, verdict};

fn shader(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shaders")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn validated(name: &str, env: TargetEnv) -> ModuleInfo {
    let module = spv_reader::read(&shader(name)).unwrap();
    match validate(&module, &Options::new(env)) {
        Ok(info) => info,
        Err(d) => panic!("{name} is valid (spirv-val agrees) but:\n{d}"),
    }
}

const SHADERS: [&str; 3] = ["saxpy", "loops", "functions"];

#[test]
fn every_committed_shader_is_valid_in_its_environment() {
    for name in SHADERS {
        assert!(verdict(
            &shader(&format!("{name}.vk10.spv")),
            TargetEnv::Vulkan(1, 0)
        ));
        assert!(verdict(
            &shader(&format!("{name}.vk12.spv")),
            TargetEnv::Vulkan(1, 2)
        ));
        // The universal environment at the module's own version accepts them too.
        assert!(verdict(
            &shader(&format!("{name}.vk12.spv")),
            TargetEnv::ModuleVersion
        ));
    }
}

#[test]
fn a_module_newer_than_the_environment_is_rejected() {
    // glslang emits SPIR-V 1.5 for Vulkan 1.2; Vulkan 1.0 consumes only 1.0.
    let module = spv_reader::read(&shader("saxpy.vk12.spv")).unwrap();
    let err = validate(&module, &Options::new(TargetEnv::Vulkan(1, 0))).unwrap_err();
    assert!(err.has_rule("V-CAP-2"), "{err}");
}

#[test]
fn local_sizes_come_from_the_sources() {
    // local_size_x/y of each .comp file.
    for (name, size) in [
        ("saxpy", [64, 1, 1]),
        ("loops", [32, 2, 1]),
        ("functions", [8, 8, 1]),
    ] {
        for (file, env) in [
            (format!("{name}.vk10.spv"), TargetEnv::Vulkan(1, 0)),
            (format!("{name}.vk12.spv"), TargetEnv::Vulkan(1, 2)),
        ] {
            let info = validated(&file, env);
            assert_eq!(info.entry_points.len(), 1, "{file}");
            let ep = &info.entry_points[0];
            assert_eq!(ep.name, "main");
            assert_eq!(ep.execution_model, ExecutionModel::GLCompute as u32);
            assert_eq!(ep.local_size, Some(size), "{file}");
            assert_eq!(ep.local_size_spec, [None; 3]);
        }
    }
}

#[test]
fn call_trees_and_block_lists_match_the_sources() {
    // functions.comp: main calls shade(), so the call tree has two functions.
    let info = validated("functions.vk10.spv", TargetEnv::Vulkan(1, 0));
    let ep = &info.entry_points[0];
    assert_eq!(ep.call_tree.len(), 2);
    assert_eq!(ep.call_tree[0], ep.function);
    let main = info.function(ep.function).unwrap();
    // Every successor edge has its predecessor edge, and labels map back to indices.
    for f in &info.functions {
        for (i, b) in f.blocks.iter().enumerate() {
            assert_eq!(f.block_index(b.label), Some(i as u32));
            for &s in f.successors(i as u32) {
                assert!(f.predecessors(s).contains(&(i as u32)));
            }
        }
        assert!(f.predecessors(0).is_empty());
        assert!(f.blocks[0].reachable);
    }
    assert!(!main.blocks.is_empty());
    // The loops of loops.comp are structured: some blocks are loop headers.
    let loops = validated("loops.vk12.spv", TargetEnv::Vulkan(1, 2));
    let headers = loops.functions[0]
        .blocks
        .iter()
        .filter(|b| b.continue_target.is_some())
        .count();
    assert_eq!(headers, 2, "two for-loops");
    // saxpy.comp: the storage buffers and the uniform block are the referenced globals,
    // plus gl_GlobalInvocationID.
    let saxpy = validated("saxpy.vk12.spv", TargetEnv::Vulkan(1, 2));
    assert_eq!(saxpy.entry_points[0].globals.len(), 4);
    // SPIR-V 1.4+ interfaces list every global (glslang does so for 1.5).
    assert_eq!(saxpy.entry_points[0].interface.len(), 4);
}

/// Everything `validate` says about a module: the facts, or every diagnostic.
fn outcome(bytes: &[u8], env: TargetEnv) -> String {
    let module = spv_reader::read(bytes).unwrap();
    match validate(&module, &Options::new(env)) {
        Ok(info) => format!("{info:?}"),
        Err(diagnostics) => format!("{diagnostics}"),
    }
}

#[test]
fn validating_after_other_modules_gives_what_a_fresh_thread_gives() {
    // The validator keeps its working tables per thread between calls (src/scratch.rs), so a
    // module validated after larger, smaller or invalid ones must see nothing of them.
    let invalid = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/rules/invalid_aligned_not_power_of_two.spv"),
    )
    .unwrap();
    let mut modules: Vec<Vec<u8>> = SHADERS
        .iter()
        .map(|name| shader(&format!("{name}.vk12.spv")))
        .collect();
    modules.push(invalid);
    let env = TargetEnv::ModuleVersion;
    let fresh: Vec<String> = modules
        .iter()
        .map(|bytes| {
            let bytes = bytes.clone();
            std::thread::spawn(move || outcome(&bytes, env))
                .join()
                .unwrap()
        })
        .collect();
    // Every order of two, on this one thread: each module after each other one.
    for (i, first) in modules.iter().enumerate() {
        for (j, second) in modules.iter().enumerate() {
            assert_eq!(outcome(first, env), fresh[i]);
            assert_eq!(
                outcome(second, env),
                fresh[j],
                "module {j} after module {i}"
            );
        }
    }
    // The invalid module's outcome is a diagnostic and the valid ones' are facts, so the
    // comparisons above are between different texts.
    assert!(fresh[3].contains("V-"), "{}", fresh[3]);
    assert_ne!(fresh[0], fresh[1]);
}
