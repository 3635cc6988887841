//! Translate SPIR-V modules into AMD IL programs.
//!
//! [`translate`] runs the whole pipeline: spv-reader reads the bytes, spv-validate checks them,
//! spv-cfg structures each function's control flow, the private `lower` module turns the module
//! into an `il_model::Program`, and il-model's verifier checks the result for the chosen GPU
//! family. The [`Translation`] renders as IL text or binary tokens and carries a
//! [`Reflection`] that tells a runtime which IL resource ids its buffers must be bound to.
//!
//! ```
//! let spv = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders/gid_mul_add.spv"))?;
//! let translation = spv2il::translate(&spv, &spv2il::Options::default())?;
//! let text = translation.text();
//! assert!(text.starts_with("il_cs_2_0\n"));
//! assert!(text.ends_with("ret_dyn\nend\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod lower;
mod reflect;

pub use error::{Error, Unsupported};
pub use il_model::Family;
pub use reflect::{Reflection, ResourceBinding, ResourceKind};

/// What to translate and for which GPU.
#[derive(Clone, Debug)]
pub struct Options {
    /// The entry point to translate; `None` picks the only GLCompute entry point.
    pub entry: Option<String>,
    /// The GPU family whose IL the program must be valid for.
    pub target: Family,
    /// Specialization-constant overrides as (SpecId, value text); the text is decimal, `0x` hex
    /// or a float, interpreted by the constant's type.
    pub spec_overrides: Vec<(u32, String)>,
}

impl Options {
    /// Defaults for `target`: the only entry point, no overrides.
    pub fn new(target: Family) -> Options {
        Options {
            entry: None,
            target,
            spec_overrides: Vec::new(),
        }
    }
}

impl Default for Options {
    /// Evergreen, the oldest family with everything compute shaders need (raw UAVs, LDS atomics).
    fn default() -> Options {
        Options::new(Family::Evergreen)
    }
}

/// A translated program and what a runtime needs to run it.
#[derive(Clone, Debug)]
pub struct Translation {
    /// The IL program (verified for the target family).
    pub program: il_model::Program,
    /// Resource bindings, work-group size and constants used.
    pub reflection: Reflection,
}

impl Translation {
    /// The program as IL text.
    pub fn text(&self) -> String {
        il_writer::to_text(&self.program)
    }

    /// The program as binary tokens.
    pub fn tokens(&self) -> Vec<u32> {
        il_writer::to_tokens(&self.program)
    }

    /// The binary tokens as little-endian bytes, the form drivers take.
    pub fn token_bytes(&self) -> Vec<u8> {
        il_writer::tokens_to_bytes(&self.tokens())
    }
}

/// Translates one SPIR-V module (its bytes, either byte order) into an AMD IL program.
pub fn translate(bytes: &[u8], options: &Options) -> Result<Translation, Error> {
    let module = spv_reader::read(bytes)?;
    let validate_options = spv_validate::Options::default();
    let info = spv_validate::validate(&module, &validate_options).map_err(Error::Invalid)?;
    let (program, reflection) = lower::lower(&module, &info, options)?;
    if let Err(errors) = il_model::verify(&program, options.target) {
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(Error::Internal(format!(
            "the IL verifier rejects the translation: {}",
            messages.join("; ")
        )));
    }
    Ok(Translation {
        program,
        reflection,
    })
}
