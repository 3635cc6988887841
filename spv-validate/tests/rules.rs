//! One small module per rule that validators most often get wrong (spirv.md §2.16): each
//! `tests/rules/NAME.spvasm` says in its first line `expect: valid` or `expect: RULE`, and
//! `NAME.spv` is its assembly (spirv-as --target-env spv1.5). A module may also name an
//! environment on that line, `env: vulkan1.2` (any `--target-env` spelling), to be validated
//! in it — client-API rules need one; with `env: spv1.x` the module is also assembled for that
//! version. The others are validated in their own version. spirv-val 2025.5 gives the same
//! verdicts in the same environments (every `invalid_*` module is rejected, for the reason the
//! comment names; every `valid_*` one is accepted).

use std::path::PathBuf;

use spv_validate::{Options, TargetEnv, validate};

#[test]
fn each_rule_module_gets_its_expected_verdict_and_rule() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/rules");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".spvasm").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 13, "{names:?}");
    for name in names {
        let source = std::fs::read_to_string(dir.join(format!("{name}.spvasm"))).unwrap();
        let first = source.lines().next().unwrap();
        let expected = first
            .split("expect: ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap();
        let env: TargetEnv = first
            .split("env: ")
            .nth(1)
            .and_then(|e| e.split_whitespace().next())
            .map_or(TargetEnv::ModuleVersion, |e| e.parse().unwrap());
        let bytes = std::fs::read(dir.join(format!("{name}.spv"))).unwrap();
        let module = spv_reader::read(&bytes).unwrap();
        let result = validate(&module, &Options::new(env));
        match (expected, result) {
            ("valid", Ok(_)) => {}
            ("valid", Err(d)) => panic!("{name} is valid but:\n{d}"),
            (rule, Ok(_)) => panic!("{name} must fail {rule} but validates"),
            (rule, Err(d)) => assert!(d.has_rule(rule), "{name} must fail {rule}, got:\n{d}"),
        }
    }
}

#[test]
fn diagnostics_read_like_spirv_val() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/rules");
    let bytes = std::fs::read(dir.join("invalid_entry_block_targeted.spv")).unwrap();
    let module = spv_reader::read(&bytes).unwrap();
    let d = validate(&module, &Options::default()).unwrap_err();
    let text = d.to_string();
    // The branch back to the entry block is instruction #15 (0-based, from OpCapability)
    // at byte offset 0xd8 (checked with spirv-dis --offsets --raw-id).
    let first = &d.0[0];
    assert_eq!(first.rule, "V-CFG-2");
    assert_eq!(first.disassembly.as_deref(), Some("OpBranch %9"));
    assert!(text.starts_with("error: [V-CFG-2] "), "{text}");
    assert!(
        text.contains("\n  OpBranch %9  (instruction #15, offset 0xd8)"),
        "{text}"
    );
    assert_eq!(first.location.map(|l| l.byte_offset), Some(0xd8));
}
