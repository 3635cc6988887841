//! Capabilities required by enumerant operands (V-CAP-1, V-CAP-3, SPIR-V §3.2 tables'
//! "Enabling Capabilities" column): the addressing and memory models, execution models and
//! the BuiltIn and other decorations. Storage classes are checked with the pointer rules.

use spv_reader::spirv::{
    AddressingModel as A, BuiltIn as B, Capability as C, Decoration as D, ExecutionModel as X,
    MemoryModel as M, Op,
};

use std::borrow::Cow;

use crate::ctx::Ctx;

fn memory_model_caps(m: M) -> &'static [C] {
    match m {
        M::Simple | M::GLSL450 => &[C::Shader],
        M::OpenCL => &[C::Kernel],
        M::Vulkan => &[C::VulkanMemoryModel],
    }
}

fn addressing_caps(a: A) -> &'static [C] {
    match a {
        A::Logical => &[],
        A::Physical32 | A::Physical64 => &[C::Addresses],
        A::PhysicalStorageBuffer64 => &[C::PhysicalStorageBufferAddresses],
    }
}

fn execution_model_caps(x: X) -> &'static [C] {
    match x {
        X::Vertex | X::Fragment | X::GLCompute => &[C::Shader],
        X::TessellationControl | X::TessellationEvaluation => &[C::Tessellation],
        X::Geometry => &[C::Geometry],
        X::Kernel => &[C::Kernel],
        X::TaskNV | X::MeshNV => &[C::MeshShadingNV],
        X::TaskEXT | X::MeshEXT => &[C::MeshShadingEXT],
        _ => &[C::RayTracingNV, C::RayTracingKHR],
    }
}

fn builtin_caps(b: B) -> &'static [C] {
    match b {
        B::Position
        | B::PointSize
        | B::VertexId
        | B::InstanceId
        | B::FragCoord
        | B::PointCoord
        | B::FrontFacing
        | B::SampleMask
        | B::FragDepth
        | B::HelperInvocation
        | B::VertexIndex
        | B::InstanceIndex => &[C::Shader],
        // Declaring gl_PerVertex members ClipDistance/CullDistance needs no capability
        // (glslang always emits them; spirv-val checks the capability on use instead).
        B::PrimitiveId => &[
            C::Geometry,
            C::Tessellation,
            C::RayTracingNV,
            C::RayTracingKHR,
            C::MeshShadingNV,
            C::MeshShadingEXT,
        ],
        B::InvocationId => &[C::Geometry, C::Tessellation],
        B::Layer => &[
            C::Geometry,
            C::ShaderLayer,
            C::ShaderViewportIndexLayerEXT,
            C::MeshShadingNV,
            C::MeshShadingEXT,
        ],
        B::ViewportIndex => &[
            C::MultiViewport,
            C::ShaderViewportIndex,
            C::ShaderViewportIndexLayerEXT,
            C::MeshShadingNV,
            C::MeshShadingEXT,
        ],
        B::TessLevelOuter | B::TessLevelInner | B::TessCoord | B::PatchVertices => {
            &[C::Tessellation]
        }
        B::SampleId | B::SamplePosition => &[C::SampleRateShading],
        B::BaseVertex | B::BaseInstance | B::DrawIndex => {
            &[C::DrawParameters, C::MeshShadingNV, C::MeshShadingEXT]
        }
        B::ViewIndex => &[C::MultiView],
        B::DeviceIndex => &[C::DeviceGroup],
        B::WorkDim
        | B::GlobalSize
        | B::EnqueuedWorkgroupSize
        | B::GlobalOffset
        | B::GlobalLinearId
        | B::SubgroupMaxSize
        | B::NumEnqueuedSubgroups => &[C::Kernel],
        _ => &[],
    }
}

/// `listed`, or when it is empty the grammar's enabling capabilities (for the extension
/// enumerants the lists here leave out; spirv-val 2025.5 requires those capabilities even
/// when the extension is declared).
fn with_grammar_fallback(
    listed: &'static [C],
    grammar: impl FnOnce() -> Vec<C>,
) -> Cow<'static, [C]> {
    if listed.is_empty() {
        Cow::Owned(grammar())
    } else {
        // Borrowed: most decorations are listed, and their check then allocates nothing.
        Cow::Borrowed(listed)
    }
}

/// The capabilities a BuiltIn decoration needs: the list above, else the grammar's, except
/// that merely declaring ClipDistance or CullDistance needs none (spirv-val checks those on
/// use).
fn builtin_needs(b: B) -> Cow<'static, [C]> {
    if matches!(b, B::ClipDistance | B::CullDistance) {
        return Cow::Borrowed(&[]);
    }
    with_grammar_fallback(builtin_caps(b), || {
        spv_reader::rspirv::dr::Operand::BuiltIn(b).required_capabilities()
    })
}

fn decoration_caps(d: D) -> &'static [C] {
    match d {
        D::RelaxedPrecision
        | D::Block
        | D::BufferBlock
        | D::GLSLShared
        | D::GLSLPacked
        | D::NoPerspective
        | D::Flat
        | D::Centroid
        | D::Invariant
        | D::Uniform
        | D::Location
        | D::Component
        | D::Index
        | D::Binding
        | D::DescriptorSet
        | D::Offset
        | D::NoContraction
        | D::ArrayStride => &[C::Shader],
        D::RowMajor | D::ColMajor | D::MatrixStride => &[C::Matrix],
        D::SpecId => &[C::Shader, C::Kernel],
        D::Patch => &[C::Tessellation],
        D::Sample => &[C::SampleRateShading],
        D::Stream => &[C::GeometryStreams],
        D::XfbBuffer | D::XfbStride => &[C::TransformFeedback],
        D::InputAttachmentIndex => &[C::InputAttachment],
        D::CPacked
        | D::Constant
        | D::SaturatedConversion
        | D::FuncParamAttr
        | D::FPFastMathMode
        | D::Alignment
        | D::MaxByteOffset => &[C::Kernel],
        D::LinkageAttributes => &[C::Linkage],
        _ => &[],
    }
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    // The only instructions with rules here.
    for inst in ctx.ix.annotations() {
        let words = inst.words();
        let i = inst.index();
        match ctx.op_of(inst) {
            Some(Op::MemoryModel) => {
                let a = words.get(1).copied().and_then(A::from_u32);
                let mm = words.get(2).copied().and_then(M::from_u32);
                if let Some(a) = a
                    && !ctx.caps.any(addressing_caps(a))
                {
                    ctx.err(
                        "V-CAP-3",
                        i,
                        &[],
                        format!(
                            "addressing model {a:?} requires one of these capabilities: {:?}",
                            addressing_caps(a)
                        ),
                    );
                }
                if let Some(mm) = mm
                    && !ctx.caps.any(memory_model_caps(mm))
                {
                    ctx.err(
                        "V-CAP-3",
                        i,
                        &[],
                        format!(
                            "memory model {mm:?} requires one of these capabilities: {:?}",
                            memory_model_caps(mm)
                        ),
                    );
                }
                if mm != Some(M::Vulkan) && ctx.has_cap(C::VulkanMemoryModel) {
                    ctx.err(
                        "V-CAP-3",
                        i,
                        &[],
                        "VulkanMemoryModel capability requires the Vulkan memory model",
                    );
                }
                if ctx.env.is_vulkan() && !matches!(mm, Some(M::GLSL450 | M::Vulkan)) {
                    ctx.err("V-CAP-3", i, &[], "[VUID-StandaloneSpirv-MemoryModel-04635] the memory model must be GLSL450 or Vulkan in the Vulkan environment");
                }
                if ctx.env.is_vulkan()
                    && !matches!(a, Some(A::Logical | A::PhysicalStorageBuffer64))
                {
                    ctx.err("V-CAP-3", i, &[], "[VUID-StandaloneSpirv-None-04634] the addressing model must be Logical or PhysicalStorageBuffer64 in the Vulkan environment");
                }
            }
            Some(Op::EntryPoint) => {
                if let Some(x) = words.get(1).copied().and_then(X::from_u32)
                    && !ctx.caps.any(execution_model_caps(x))
                {
                    ctx.err(
                        "V-CAP-1",
                        i,
                        &[],
                        format!(
                            "execution model {x:?} requires one of these capabilities: {:?}",
                            execution_model_caps(x)
                        ),
                    );
                }
            }
            Some(
                Op::Decorate
                | Op::MemberDecorate
                | Op::DecorateId
                | Op::DecorateString
                | Op::MemberDecorateString,
            ) => {
                let at = if matches!(
                    ctx.op_of(inst),
                    Some(Op::MemberDecorate | Op::MemberDecorateString)
                ) {
                    3
                } else {
                    2
                };
                let Some(d) = words.get(at).copied().and_then(D::from_u32) else {
                    continue;
                };
                let caps = with_grammar_fallback(decoration_caps(d), || {
                    spv_reader::rspirv::dr::Operand::Decoration(d).required_capabilities()
                });
                if !ctx.caps.any(&caps) {
                    ctx.err(
                        "V-CAP-1",
                        i,
                        &[],
                        format!("decoration {d:?} requires one of these capabilities: {caps:?}"),
                    );
                }
                let builtin_needs = words
                    .get(at + 1)
                    .copied()
                    .and_then(B::from_u32)
                    .filter(|_| d == D::BuiltIn)
                    .map(|b| (b, builtin_needs(b)));
                if let Some((b, caps)) = builtin_needs
                    && !ctx.caps.any(&caps)
                {
                    ctx.err(
                        "V-CAP-1",
                        i,
                        &[],
                        format!("built-in {b:?} requires one of these capabilities: {caps:?}"),
                    );
                }
            }
            _ => {}
        }
    }
}
