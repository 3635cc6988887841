//! IL snapshot tests: every test shader under `tests/shaders/` is translated and its IL text
//! compared with the reviewed `.il` file beside it (or, for a shader the translator must refuse,
//! its error with the `.err` file). `BLESS=1 cargo test` rewrites the expectations; read every
//! diff before committing it.
//!
//! Each shader is translated for Evergreen, Cayman and Southern Islands. A later family must
//! translate whatever an earlier one does; the `.il` snapshot is the translation for the first
//! family that accepts the shader, and each earlier family's refusal is a `<stem>.<family>.err`
//! snapshot (double precision, which Evergreen as a family lacks, is the reason today). Each
//! translation is also round-tripped: IL text → il-reader → IL text must be unchanged, and
//! tokens → il-reader → model must equal the program, so the writers and readers are checked on
//! every program the translator produces. A last test translates every shader on a fresh thread
//! and again on a thread that has translated all the others, which must agree.

mod common;

use std::path::{Path, PathBuf};

use common::shader_modules;

/// The families every shader is translated for, oldest first.
const FAMILIES: [spv2il::Family; 3] = [
    spv2il::Family::Evergreen,
    spv2il::Family::Cayman,
    spv2il::Family::Si,
];

/// The snapshot of `family`'s refusal of a shader that a later family translates.
fn family_err_path(spv: &Path, family: spv2il::Family) -> PathBuf {
    spv.with_extension(format!("{}.err", family.name()))
}

/// Compares `actual` with the file at `expected_path`, or rewrites it under BLESS=1. Returns a
/// failure description.
fn check_snapshot(expected_path: &Path, actual: &str, bless: bool) -> Option<String> {
    let expected = std::fs::read_to_string(expected_path).unwrap_or_default();
    if expected == actual {
        return None;
    }
    if bless {
        std::fs::write(expected_path, actual).expect("write snapshot");
        return None;
    }
    Some(format!(
        "{} differs (BLESS=1 rewrites it):\n{}",
        expected_path.display(),
        pretty_assertions::StrComparison::new(&expected, actual)
    ))
}

#[test]
fn il_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let bless = std::env::var_os("BLESS").is_some();
    let mut modules = Vec::new();
    shader_modules(&root, &mut modules);
    assert!(!modules.is_empty(), "no test shaders found");
    let mut failures = Vec::new();
    for spv in &modules {
        let bytes = std::fs::read(spv).expect("read .spv");
        let results: Vec<(spv2il::Family, Result<spv2il::Translation, spv2il::Error>)> = FAMILIES
            .iter()
            .map(|&family| {
                (
                    family,
                    spv2il::translate(&bytes, &spv2il::Options::new(family)),
                )
            })
            .collect();
        let first_ok = results.iter().position(|(_, result)| result.is_ok());
        // A family that translates the shader is followed only by families that do too.
        for (family, result) in results.iter().skip(first_ok.unwrap_or(results.len())) {
            if let Err(error) = result {
                failures.push(format!(
                    "{}: an earlier family translates it, {family:?} does not: {error}",
                    spv.display()
                ));
            }
        }
        for (index, (family, result)) in results.iter().enumerate() {
            let refusal = family_err_path(spv, *family);
            match (first_ok, result) {
                (Some(ok), Err(error)) if index < ok => {
                    failures.extend(check_snapshot(&refusal, &format!("{error}\n"), bless));
                }
                _ if refusal.exists() => failures.push(format!(
                    "{} is stale: {family:?} is not a refusing family before a translating one",
                    refusal.display()
                )),
                _ => {}
            }
        }
        let result = match first_ok {
            Some(ok) => results.into_iter().nth(ok).map(|(_, result)| result),
            None => results.into_iter().next().map(|(_, result)| result),
        }
        .expect("three families were tried");
        match result {
            Ok(translation) => {
                let text = translation.text();
                failures.extend(check_snapshot(&spv.with_extension("il"), &text, bless));
                match il_reader::parse_text(&text) {
                    Ok(parsed) => {
                        let again = il_writer::to_text(&parsed);
                        if again != text {
                            failures
                                .push(format!("{}: text round trip changes the IL", spv.display()));
                        }
                    }
                    Err(e) => failures.push(format!(
                        "{}: il-reader rejects our text: {e}",
                        spv.display()
                    )),
                }
                match il_reader::decode_tokens(&translation.tokens()) {
                    Ok(decoded) if decoded == translation.program => {}
                    Ok(_) => failures.push(format!(
                        "{}: token round trip changes the program",
                        spv.display()
                    )),
                    Err(e) => failures.push(format!(
                        "{}: il-reader rejects our tokens: {e}",
                        spv.display()
                    )),
                }
            }
            Err(error) => {
                let message = format!("{error}\n");
                failures.extend(check_snapshot(&spv.with_extension("err"), &message, bless));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} snapshot failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The outcome of translating `bytes` for Southern Islands (the family that accepts the
/// most shaders): the IL text, or the error's message.
fn outcome(bytes: &[u8]) -> String {
    match spv2il::translate(bytes, &spv2il::Options::new(spv2il::Family::Si)) {
        Ok(translation) => translation.text(),
        Err(error) => format!("error: {error}"),
    }
}

/// Per-thread reuse is invisible in results. The reader, the validator, spv-cfg and the lowering
/// keep emptied buffers per thread between translations (ARCHITECTURE.md, "Per-thread reuse"),
/// so a translation on a thread that has translated other modules must equal the same
/// translation on a fresh thread: same IL text, same error.
#[test]
fn a_used_thread_translates_like_a_fresh_one() {
    let mut files = Vec::new();
    shader_modules(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders"),
        &mut files,
    );
    let modules: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("shader is readable"))
        .collect();
    assert!(modules.len() > 50, "the test shaders are present");
    // Fresh: each module on a thread of its own.
    let fresh: Vec<String> = modules
        .iter()
        .map(|bytes| {
            std::thread::scope(|s| {
                s.spawn(|| outcome(bytes))
                    .join()
                    .expect("translation thread")
            })
        })
        .collect();
    // Used: all modules on one thread, in reverse order so that each module follows others of
    // different sizes than in the sorted order.
    let used: Vec<String> = std::thread::scope(|s| {
        s.spawn(|| modules.iter().rev().map(|b| outcome(b)).collect::<Vec<_>>())
            .join()
            .expect("translation thread")
    });
    for ((file, fresh), used) in files.iter().zip(&fresh).zip(used.iter().rev()) {
        assert_eq!(fresh, used, "{} differs on a used thread", file.display());
    }
    assert!(
        fresh.iter().any(|o| !o.starts_with("error:"))
            && fresh.iter().any(|o| o.starts_with("error:")),
        "both translations and refusals are covered"
    );
}
