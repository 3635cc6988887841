//! What the tolerant reader leaves to the validator (reader checklist of
//! spirv.md §1.6) and the version and capability gates on opcodes (V-CAP-1, V-CAP-2):
//! unknown opcodes and enumerants, operands that do not consume the word count exactly,
//! opcodes missing before (or after) the module's version, opcodes whose enabling
//! capability or extension is not declared, and the module version against the
//! environment.

use std::sync::LazyLock;

use spv_reader::spirv::Op;

use crate::caps::{NEVER, capability_version};
use crate::ctx::{Ctx, Inst, OpSet};
use crate::diag::opcode_name;
use crate::operands::{Operand, decode, gated, grammar_of, opcode_versions};

/// Runs the encoding checks; returns whether every instruction decoded (later checks rely
/// on decoded operands).
pub(crate) fn check(ctx: &mut Ctx<'_>) -> bool {
    if let Some(max) = ctx.env.max_spirv_minor()
        && ctx.version > max
    {
        ctx.report(
            "V-CAP-2",
            None,
            Vec::new(),
            format!(
                "invalid SPIR-V binary version 1.{} for target environment {} (at most 1.{max})",
                ctx.version, ctx.env
            ),
        );
    }
    let mut scratch = Vec::new();
    if ctx.ix.all_decoded() {
        // Then only the capabilities and the gated opcodes have anything to check.
        static CHECKED: LazyLock<OpSet> =
            LazyLock::new(|| OpSet::new(|op| op == Op::Capability || gated(op)));
        for inst in ctx.ix.with_ops_in(&CHECKED) {
            check_inst(ctx, inst, &mut scratch);
        }
        return true;
    }
    let mut all_decoded = true;
    for inst in ctx.ix.insts() {
        all_decoded &= check_inst(ctx, inst, &mut scratch);
    }
    all_decoded
}

/// The checks of one instruction; whether it decoded. `scratch` receives the operands of
/// an instruction that does not decode.
fn check_inst(ctx: &mut Ctx<'_>, inst: &Inst<'_>, scratch: &mut Vec<Operand>) -> bool {
    let i = inst.index();
    let opcode = inst.raw_opcode();
    // The index names the opcode exactly when the grammar knows it.
    let Some(op) = inst.opcode() else {
        ctx.err(
            "R-4",
            i,
            &[],
            format!("invalid opcode {opcode}: not in the SPIR-V grammar"),
        );
        return false;
    };
    if !inst.decoded() {
        let err = ctx.m.inst(i).and_then(|r| decode(r, scratch).err());
        let (rule, message) = match err {
            Some(e) if e.enumerant => ("R-7", e.message),
            Some(e) => ("R-5", e.message),
            None => ("R-5", "the operands do not decode".to_owned()),
        };
        ctx.err(rule, i, &[], format!("{}: {message}", opcode_name(opcode)));
        return false;
    }
    if op == Op::Capability {
        check_capability_version(ctx, inst);
    }
    if !gated(op) {
        return true;
    }
    let Some(g) = grammar_of(opcode) else {
        return true;
    };
    if let Some((min, max, exts)) = opcode_versions(op) {
        let by_ext = exts.iter().any(|e| ctx.has_ext(e));
        if ctx.version < min && !by_ext {
            ctx.err(
                "V-CAP-2",
                i,
                &[],
                format!(
                    "{} requires SPIR-V version 1.{min} or later",
                    opcode_name(opcode)
                ),
            );
        } else if ctx.version > max {
            ctx.err(
                "V-CAP-2",
                i,
                &[],
                format!(
                    "{} is not allowed after SPIR-V version 1.{max}",
                    opcode_name(opcode)
                ),
            );
        }
    }
    // An opcode listing capabilities needs one of them even when its extension is
    // declared (spirv-val 2025.5: OpTypeRayQueryKHR needs RayQueryKHR beside
    // SPV_KHR_ray_query).
    if !g.capabilities.is_empty() && !ctx.caps.any(g.capabilities) {
        let names: Vec<String> = g.capabilities.iter().map(|c| format!("{c:?}")).collect();
        ctx.err(
            "V-CAP-1",
            i,
            &[],
            format!(
                "{} requires one of these capabilities: {}",
                opcode_name(opcode),
                names.join(" ")
            ),
        );
    }
    true
}

/// V-CAP-2: a capability operand defined only from a later version than the module's, and
/// not enabled by a declared extension.
fn check_capability_version(ctx: &mut Ctx<'_>, inst: &Inst<'_>) {
    let Some(&raw) = inst.words().get(1) else {
        return;
    };
    let Some(cap) = spv_reader::spirv::Capability::from_u32(raw) else {
        return;
    };
    if let Some((min, exts)) = capability_version(cap)
        && ctx.version < min
        && !exts.iter().any(|e| ctx.has_ext(e))
    {
        let message = if min == NEVER {
            format!(
                "operand {cap:?}({raw}) of OpCapability requires one of these extensions: {}",
                exts.join(" ")
            )
        } else {
            format!(
                "operand {cap:?}({raw}) of OpCapability requires SPIR-V version 1.{min} or later"
            )
        };
        ctx.err("V-CAP-2", inst.index(), &[], message);
    }
    if ctx.env.is_vulkan() && !vulkan_capability(cap) {
        ctx.err(
            "V-CAP-2",
            inst.index(),
            &[],
            format!("capability {cap:?} is not allowed by the Vulkan specification"),
        );
    }
}

/// Whether a Vulkan module may declare `cap` (the OpenCL-only capabilities may not).
fn vulkan_capability(cap: spv_reader::spirv::Capability) -> bool {
    use spv_reader::spirv::Capability as C;
    !matches!(
        cap,
        C::Kernel
            | C::Addresses
            | C::Linkage
            | C::Vector16
            | C::Float16Buffer
            | C::ImageBasic
            | C::ImageReadWrite
            | C::ImageMipmap
            | C::Pipes
            | C::Groups
            | C::DeviceEnqueue
            | C::LiteralSampler
            | C::GenericPointer
            | C::SubgroupDispatch
            | C::NamedBarrier
            | C::PipeStorage
            | C::ImageRect
            | C::SampledRect
    )
}
