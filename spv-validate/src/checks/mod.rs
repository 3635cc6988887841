//! The validation passes, in the order they run, and the facts they leave for
//! [`crate::ModuleInfo`].
//!
//! Order matters only for noise: when the encoding pass finds operands that do not decode,
//! nothing after it can trust an operand, so the run stops there; when ids are undefined or
//! of the wrong kind, the type-directed passes would mostly repeat those errors, so they are
//! skipped. Every other pass runs on every module and reports everything it finds.

mod atomic_flags;
mod atomics;
mod block_layout;
mod buffer_blocks;
mod builtin_objects;
mod decoration_rules;
pub(crate) mod decorations;
mod encoding;
pub(crate) mod entry;
mod enums;
mod extended_sets;
mod float_controls;
mod flow;
mod glsl_std_450;
mod ids;
mod image_capabilities;
mod image_coordinates;
mod images;
mod instructions;
pub(crate) mod layout;
mod linkage;
pub(crate) mod logical_pointers;
mod memory;
mod memory_model;
mod pointer_instructions;
pub(crate) mod repeats;
mod sampled_images;
pub(crate) mod scf;
mod shader_call_operands;
mod small_types;
mod spec_constants;
pub(crate) mod types;
mod values;
mod vulkan_builtins;
mod vulkan_interfaces;
mod vulkan_locations;

use spv_reader::Id;

use crate::cfg::{self, FuncCfg};
use crate::ctx::Ctx;
use crate::scratch::Scratch;

/// Facts computed along the way that [`crate::ModuleInfo`] exposes.
#[derive(Default)]
pub(crate) struct Facts {
    /// Each function definition's CFG.
    pub(crate) cfgs: Vec<FuncCfg>,
    /// Per entry point (module order): the functions its call tree reaches.
    pub(crate) call_trees: Vec<Vec<Id>>,
    /// Per entry point: the module-scope variables its call tree references.
    pub(crate) entry_globals: Vec<Vec<Id>>,
    /// Result Type of each id (0 when the id has none), indexed by id.
    pub(crate) value_types: Vec<u32>,
}

/// Runs every pass over the module in `ctx`, with `scratch` as working memory.
pub(crate) fn run(ctx: &mut Ctx<'_>, scratch: &mut Scratch) -> Facts {
    let mut facts = Facts::default();
    if !encoding::check(ctx) {
        return facts;
    }
    layout::check(ctx);
    enums::check(ctx);
    let before_ids = ctx.diags.len();
    let mut pointer_facts = logical_pointers::PointerFacts::new(ctx, &mut scratch.pointers);
    ids::check(ctx, &mut pointer_facts);
    let ids_ok = ctx.diags.len() == before_ids;
    types::check(ctx, scratch);
    if !ids_ok {
        if let Some(f) = pointer_facts {
            scratch.pointers = f.into_storage();
        }
        facts.value_types = ctx.take_value_types();
        return facts;
    }
    instructions::check(ctx);
    decorations::check(ctx, scratch);
    memory_model::check(ctx);
    logical_pointers::check(ctx, pointer_facts.as_mut());
    if let Some(f) = pointer_facts {
        scratch.pointers = f.into_storage();
    }
    spec_constants::check(ctx);
    image_capabilities::check(ctx);
    image_coordinates::check(ctx);
    decoration_rules::check(ctx);
    linkage::check(ctx);
    atomic_flags::check(ctx);
    float_controls::check(ctx);
    pointer_instructions::check(ctx);
    small_types::check(ctx);
    extended_sets::check(ctx);
    glsl_std_450::check(ctx);
    shader_call_operands::check(ctx);
    builtin_objects::check(ctx);
    buffer_blocks::check(ctx);
    vulkan_locations::check(ctx);
    vulkan_interfaces::check(ctx);
    block_layout::check(ctx, &mut scratch.ids[0]);
    entry::check(ctx, &mut facts, scratch);
    vulkan_builtins::check(ctx, &facts);
    facts.cfgs = cfg::build(ctx, scratch);
    flow::check(ctx, &facts.cfgs);
    sampled_images::check(ctx);
    scf::check(ctx, &facts.cfgs, &mut scratch.scf);
    facts.value_types = ctx.take_value_types();
    facts
}
