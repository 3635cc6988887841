//! A SPIR-V validator whose diagnostics name the rule and the instruction.
//!
//! [`validate`] checks a module read by `spv_reader` against the rules of the project's
//! SPIR-V digest (spirv.md §2, rule ids `V-*`; reader-level rules `R-*` of §1.6 that the
//! tolerant reader leaves to us) for Shader and Kernel modules, in the client environment
//! of [`Options::target_env`]. It collects every error of a module — each check goes on
//! after a failure unless continuing would only repeat the same problem — and returns
//! either the [`ModuleInfo`] facts later stages rely on or the [`Diagnostics`].
//!
//! Client-API rules (the digest's "\[client\]" rules) apply only in that client's environment.
//! Under Vulkan they are the Vulkan parts of core rule families (e.g. V-LAYOUT-4 block
//! layout, V-LAYOUT-10 Block decorations, V-MM-1/V-MM-2 scopes and orderings, V-DEC-7
//! duplicate built-ins, V-CAP-1 storage-image formats) plus families of their own:
//! V-VK-BUILTIN-1…5 for built-in variables (type, storage class, execution model, forbidden
//! forms, needed capabilities; the table is in `checks/vulkan_builtins.rs`),
//! V-VK-LOCATION-1 and V-VK-INTERFACE-1 for interface locations and interpolation
//! decorations. The crate's `RULES.md` lists the client rules, the digest rules enforced
//! under another id (aliases), and the ones deliberately not enforced because spirv-val
//! accepts modules breaking them.
//!
//! The reference is spirv-val 2025.5: the verdict (valid or not) is meant to agree with it
//! on every module; [`mutate`] builds the mutated modules that measure this.
//!
//! ```
//! use spv_reader::rspirv::binary::Assemble;
//! use spv_reader::rspirv::dr::Builder;
//! use spv_reader::spirv;
//!
//! let mut b = Builder::new();
//! b.capability(spirv::Capability::Shader);
//! b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
//! let void = b.type_void();
//! let fn_ty = b.type_function(void, vec![]);
//! let main = b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty).unwrap();
//! b.begin_block(None).unwrap();
//! b.ret().unwrap();
//! b.end_function().unwrap();
//! b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vec![]);
//! b.execution_mode(main, spirv::ExecutionMode::LocalSize, vec![8, 8, 1]);
//! let words = b.module().assemble();
//!
//! let module = spv_reader::read_words(&words).unwrap();
//! let info = spv_validate::validate(&module, &spv_validate::Options::default()).unwrap();
//! assert_eq!(info.entry_points[0].local_size, Some([8, 8, 1]));
//! ```

#![cfg_attr(
    not(test),
    warn(clippy::panic, clippy::unwrap_used, clippy::expect_used)
)]
#![cfg_attr(not(test), warn(clippy::indexing_slicing))]

mod caps;
mod cfg;
mod checks;
mod ctx;
mod diag;
mod dom;
mod env;
mod info;
pub mod limits;
pub mod mutate;
mod operands;
mod opset;
mod scratch;
mod stamped;

pub use diag::{Diagnostic, Diagnostics};
pub use env::{ParseTargetEnvError, TargetEnv};
pub use info::{BlockInfo, EntryPointInfo, FunctionInfo, ModuleInfo};

use spv_reader::Module;

/// How to validate.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// The client environment; the default validates core SPIR-V at the module's version.
    pub target_env: TargetEnv,
}

impl Options {
    /// Options for environment `target_env`.
    pub fn new(target_env: TargetEnv) -> Self {
        Options { target_env }
    }
}

/// Validates `module` in the environment of `options`: the facts later stages rely on, or
/// every diagnostic found.
pub fn validate(module: &Module, options: &Options) -> Result<ModuleInfo, Diagnostics> {
    let env = match options.target_env {
        TargetEnv::ModuleVersion => TargetEnv::Universal(module.header().version.1),
        env => env,
    };
    scratch::with(module.words().len(), |scratch| {
        let mut index = ctx::Index::new(module, std::mem::take(&mut scratch.index));
        let value_types = index.take_value_types();
        let mut ctx = ctx::Ctx::new(
            module,
            &index,
            env,
            std::mem::take(&mut scratch.holds),
            value_types,
        );
        let mut facts = checks::run(&mut ctx, scratch);
        let result = if ctx.diags.is_empty() {
            Ok(info::build(&ctx, &mut facts))
        } else {
            Err(Diagnostics(std::mem::take(&mut ctx.diags)))
        };
        scratch.holds = ctx.into_holds();
        scratch.index = index.into_storage();
        // The CFGs are in `facts` when the passes got as far as building them.
        if scratch.cfgs.is_empty() {
            scratch.cfgs = facts.cfgs;
        }
        result
    })
}

/// Whether `bytes` is a valid module in `env`: it reads and validates without error.
pub fn verdict(bytes: &[u8], env: TargetEnv) -> bool {
    spv_reader::read(bytes).is_ok_and(|m| validate(&m, &Options::new(env)).is_ok())
}

/// [`verdict`] for words.
pub fn verdict_words(words: &[u32], env: TargetEnv) -> bool {
    spv_reader::read_words(words).is_ok_and(|m| validate(&m, &Options::new(env)).is_ok())
}
