//! Every family il-model knows can be asked for: the translator's own targets translate, the
//! older ones are refused as not supported, and no committed test shader makes the lowering emit
//! IL that il-model's verifier rejects for any family (that error, `Error::Internal`, is a bug).

mod common;

use common::shader_modules;
use spv2il::{Error, Family, Options, translate};

const ALL_FAMILIES: [Family; 5] = [
    Family::R600,
    Family::R700,
    Family::Evergreen,
    Family::Cayman,
    Family::Si,
];

fn sample() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/shaders/gid_mul_add.spv"
    ))
    .expect("the committed sample")
}

#[test]
fn families_before_evergreen_are_refused_as_not_supported() {
    for family in [Family::R600, Family::R700] {
        match translate(&sample(), &Options::new(family)) {
            Err(Error::Unsupported(u)) => {
                assert!(u.feature.contains(family.name()), "{u}");
                assert!(u.feature.contains("evergreen, cayman and si"), "{u}");
            }
            other => panic!("{family:?}: expected a refusal, got {other:?}"),
        }
    }
    for family in [Family::Evergreen, Family::Cayman, Family::Si] {
        assert!(
            translate(&sample(), &Options::new(family)).is_ok(),
            "{family:?}"
        );
    }
}

#[test]
fn no_test_shader_makes_unverifiable_il_for_any_family() {
    let mut files = Vec::new();
    shader_modules(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders")),
        &mut files,
    );
    assert!(files.len() > 50, "the test shaders are there");
    let mut bugs = Vec::new();
    for file in &files {
        let bytes = std::fs::read(file).expect("a test shader");
        for family in ALL_FAMILIES {
            if let Err(Error::Internal(message)) = translate(&bytes, &Options::new(family)) {
                bugs.push(format!("{} for {family:?}: {message}", file.display()));
            }
        }
    }
    assert!(bugs.is_empty(), "{}", bugs.join("\n"));
}
