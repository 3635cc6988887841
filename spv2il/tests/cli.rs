//! The `spv2il` binary on good and bad input: one clear error line naming the file and the
//! problem, a non-zero exit status, and never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn spv2il(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spv2il"))
        .args(args)
        .output()
        .expect("the spv2il binary runs")
}

fn scratch(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spv2il-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write scratch file");
    path
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/gid_mul_add.spv")
}

/// Asserts a translation error: exit status 1, nothing on stdout, exactly one stderr line that
/// names the file and contains `problem`, and no panic message.
fn assert_one_line_error(output: &Output, file: &Path, problem: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    assert!(output.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
    assert!(
        stderr.contains(&file.display().to_string()),
        "names the file: {stderr}"
    );
    assert!(stderr.contains(problem), "says `{problem}`: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn translates_the_sample() {
    let output = spv2il(&[sample().to_str().expect("utf-8 path")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("IL text is UTF-8");
    assert!(text.starts_with("il_cs_2_0\n"));
    assert!(text.ends_with("end\n"));
}

#[test]
fn emits_binary_tokens() {
    let output = spv2il(&["--emit", "binary", sample().to_str().expect("utf-8 path")]);
    assert!(output.status.success());
    assert_eq!(output.stdout.len() % 4, 0);
    // Token 1 is IL_Version: il_cs_2_0 = 0x00030200 (amd-il.md §1.3), little-endian.
    assert_eq!(&output.stdout[4..8], &[0x00, 0x02, 0x03, 0x00]);
}

#[test]
fn missing_file() {
    let path = std::env::temp_dir().join("spv2il-cli-no-such-file.spv");
    assert_one_line_error(
        &spv2il(&[path.to_str().expect("utf-8")]),
        &path,
        "cannot read",
    );
}

/// A standard error that cannot be written (here `/dev/full`, where every write fails with "no
/// space left") still gives the error's exit status, not a panic's 101 as `eprintln!` would.
/// (Checked to fail before `main` wrote its messages without `eprintln!`.)
#[test]
fn an_unwritable_standard_error_is_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // Not Linux: no such device to test with.
    };
    let path = std::env::temp_dir().join("spv2il-cli-no-such-file.spv");
    let status = Command::new(env!("CARGO_BIN_EXE_spv2il"))
        .arg(&path)
        .stderr(full)
        .status()
        .expect("the spv2il binary runs");
    assert_eq!(status.code(), Some(1));
}

#[test]
fn empty_file() {
    let path = scratch("empty.spv", b"");
    assert_one_line_error(
        &spv2il(&[path.to_str().expect("utf-8")]),
        &path,
        "not a readable SPIR-V module",
    );
}

#[test]
fn random_bytes() {
    // A fixed xorshift sequence, so the bytes are the same on every run.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let path = scratch("random.spv", &bytes);
    assert_one_line_error(
        &spv2il(&[path.to_str().expect("utf-8")]),
        &path,
        "not a readable SPIR-V module",
    );
}

#[test]
fn text_file() {
    let path = scratch("shader.comp", b"#version 450\nvoid main() {}\n");
    assert_one_line_error(
        &spv2il(&[path.to_str().expect("utf-8")]),
        &path,
        "not a readable SPIR-V module",
    );
}

#[test]
fn usage_error_exits_2() {
    let output = spv2il(&["--emit", "nonsense", "x.spv"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn disassembles_the_sample() {
    let output = spv2il(&["dis", sample().to_str().expect("utf-8 path")]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.contains("OpCapability Shader"), "{text}");
    assert!(
        text.contains("OpEntryPoint GLCompute %4 \"main\""),
        "{text}"
    );
}

#[test]
fn prints_the_region_tree() {
    let output = spv2il(&["cfg", sample().to_str().expect("utf-8 path")]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.contains("regions (merges"), "{text}");
    let dot = spv2il(&["cfg", "--dot", sample().to_str().expect("utf-8 path")]);
    assert!(String::from_utf8_lossy(&dot.stdout).starts_with("digraph"));
}

#[test]
fn il_tokens_round_trip_through_the_cli() {
    let tokens = spv2il(&["--emit", "binary", sample().to_str().expect("utf-8 path")]);
    let token_file = scratch("sample.iltok", &tokens.stdout);
    let text = spv2il(&["il-dis", token_file.to_str().expect("utf-8")]);
    assert!(
        text.status.success(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    let text_file = scratch("sample.il", &text.stdout);
    let again = spv2il(&["il-as", text_file.to_str().expect("utf-8")]);
    assert!(again.status.success());
    assert_eq!(again.stdout, tokens.stdout);
}

#[test]
fn validate_accepts_the_sample() {
    let output = spv2il(&[
        "validate",
        "--target-env",
        "vulkan1.1",
        sample().to_str().expect("utf-8 path"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bad_env = spv2il(&[
        "validate",
        "--target-env",
        "vulkan9.9",
        sample().to_str().expect("utf-8 path"),
    ]);
    assert_eq!(bad_env.status.code(), Some(2));
}

#[test]
fn spec_overrides_and_reflection() {
    let shader =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/memory/spec_constants.spv");
    let reflect =
        std::env::temp_dir().join(format!("spv2il-cli-{}-reflect.json", std::process::id()));
    let output = spv2il(&[
        "--spec",
        "0=5",
        "--spec",
        "1=0x20",
        "--reflect",
        reflect.to_str().expect("utf-8"),
        shader.to_str().expect("utf-8"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    // SCALE = 5, OFFSET = SCALE * 2 + 1 = 11 (OpSpecConstantOp), work-group size x = 32.
    assert!(text.contains("dcl_num_thread_per_group 32, 1, 1"), "{text}");
    assert!(text.contains("dcl_literal l1, 0x00000005"), "{text}");
    assert!(text.contains("dcl_literal l2, 0x0000000B"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&reflect).expect("reflection written"))
            .expect("reflection is JSON");
    assert_eq!(json["workgroup_size"], serde_json::json!([32, 1, 1]));
    assert_eq!(
        json["spec_constants"],
        serde_json::json!([{"spec_id": 0, "value": 5}, {"spec_id": 1, "value": 32}])
    );
    assert_eq!(json["resources"][0]["kind"], "raw_uav");
    assert_eq!(json["resources"][0]["set"], 0);
    assert_eq!(json["resources"][0]["binding"], 0);
    assert_eq!(json["resources"][0]["il_id"], 0);
}

#[test]
fn a_bad_spec_value_is_a_clear_error() {
    let shader =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/memory/spec_constants.spv");
    let output = spv2il(&["--spec", "0=banana", shader.to_str().expect("utf-8")]);
    assert_one_line_error(&output, &shader, "--spec 0=banana");
}

#[test]
fn doubles_need_a_family_with_double_precision() {
    // Evergreen as a family has no double precision (only its HD 58xx/59xx parts do); Cayman
    // does, and the program then declares that it uses doubles.
    let shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/alu/double_arith.spv");
    let path = shader.to_str().expect("utf-8 path");
    let refused = spv2il(&["--target", "evergreen", path]);
    assert_one_line_error(&refused, &shader, "`dadd` (needed here) on evergreen");
    let translated = spv2il(&["--target", "cayman", path]);
    assert!(
        translated.status.success(),
        "{}",
        String::from_utf8_lossy(&translated.stderr)
    );
    let text = String::from_utf8(translated.stdout).expect("IL text is UTF-8");
    assert!(text.contains("\ndcl_global_flags enableDoublePrecisionFloatOps\n"));
    assert!(text.contains("\ndadd r"));
}
