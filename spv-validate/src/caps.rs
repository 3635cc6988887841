//! The declared capabilities closed under "Implicitly Declares" (SPIR-V §3.2.30, digest
//! V-CAP-4), and the facts about single capabilities the checks need: the first version
//! that defines them (§9.1 "Missing before") and the extensions that enable them earlier.

use spv_reader::spirv::Capability as C;

/// A set of capabilities, closed under implication when built by [`CapabilitySet::new`].
#[derive(Clone, Default, Debug)]
pub(crate) struct CapabilitySet {
    /// Raw capability values, sorted and deduplicated.
    raw: Vec<u32>,
}

/// What a capability implicitly declares (SPIR-V §3.2.30, the "Implicitly Declares"
/// column), read from the grammar tables of the SPIR-V SDK rspirv was generated from (the
/// grammar lists it as the capability enumerant's own capabilities). A hand-written list went
/// wrong where extensions are concerned (FragmentBarycentricKHR implies nothing;
/// ShaderViewportIndexLayerEXT implies MultiViewport, not Shader), and spirv-val reads the
/// same grammar.
fn implies(cap: C) -> Vec<C> {
    spv_reader::rspirv::dr::Operand::Capability(cap).required_capabilities()
}

impl CapabilitySet {
    /// The closure of the declared capabilities `declared` (raw values) under implication.
    pub(crate) fn new(declared: &[u32]) -> Self {
        // Room for what the declared capabilities typically imply, so that the closure
        // rarely grows the vector again.
        let mut raw: Vec<u32> = Vec::with_capacity(2 * declared.len() + 8);
        raw.extend_from_slice(declared);
        let mut i = 0;
        // Each round adds only values not yet present, and there are finitely many
        // capabilities, so the loop ends.
        while let Some(&v) = raw.get(i) {
            if let Some(cap) = C::from_u32(v) {
                for implied in implies(cap) {
                    if !raw.contains(&(implied as u32)) {
                        raw.push(implied as u32);
                    }
                }
            }
            i += 1;
        }
        raw.sort_unstable();
        raw.dedup();
        CapabilitySet { raw }
    }

    /// Whether `cap` is in the set.
    pub(crate) fn has(&self, cap: C) -> bool {
        self.raw.binary_search(&(cap as u32)).is_ok()
    }

    /// Whether any of `caps` is in the set (an empty list is satisfied).
    pub(crate) fn any(&self, caps: &[C]) -> bool {
        caps.is_empty() || caps.iter().any(|&c| self.has(c))
    }
}

/// Marks a capability that no SPIR-V version defines without an extension.
pub(crate) const NEVER: u8 = u8::MAX;

/// The first SPIR-V minor version defining `cap` and the extensions that make it usable
/// before that (SPIR-V §9.1 of the digest; capabilities of 1.0 are absent).
pub(crate) fn capability_version(cap: C) -> Option<(u8, &'static [&'static str])> {
    Some(match cap {
        C::SubgroupDispatch | C::NamedBarrier | C::PipeStorage => (1, &[]),
        C::GroupNonUniform
        | C::GroupNonUniformVote
        | C::GroupNonUniformArithmetic
        | C::GroupNonUniformBallot
        | C::GroupNonUniformShuffle
        | C::GroupNonUniformShuffleRelative
        | C::GroupNonUniformClustered
        | C::GroupNonUniformQuad => (3, &[]),
        C::DrawParameters => (3, &["SPV_KHR_shader_draw_parameters"]),
        C::StorageBuffer16BitAccess
        | C::UniformAndStorageBuffer16BitAccess
        | C::StoragePushConstant16
        | C::StorageInputOutput16 => (3, &["SPV_KHR_16bit_storage"]),
        C::DeviceGroup => (3, &["SPV_KHR_device_group"]),
        C::MultiView => (3, &["SPV_KHR_multiview"]),
        C::VariablePointersStorageBuffer | C::VariablePointers => {
            (3, &["SPV_KHR_variable_pointers"])
        }
        C::DenormPreserve
        | C::DenormFlushToZero
        | C::SignedZeroInfNanPreserve
        | C::RoundingModeRTE
        | C::RoundingModeRTZ => (4, &["SPV_KHR_float_controls"]),
        C::StorageBuffer8BitAccess
        | C::UniformAndStorageBuffer8BitAccess
        | C::StoragePushConstant8 => (5, &["SPV_KHR_8bit_storage"]),
        C::ShaderNonUniform
        | C::RuntimeDescriptorArray
        | C::InputAttachmentArrayDynamicIndexing
        | C::UniformTexelBufferArrayDynamicIndexing
        | C::StorageTexelBufferArrayDynamicIndexing
        | C::UniformBufferArrayNonUniformIndexing
        | C::SampledImageArrayNonUniformIndexing
        | C::StorageBufferArrayNonUniformIndexing
        | C::StorageImageArrayNonUniformIndexing
        | C::InputAttachmentArrayNonUniformIndexing
        | C::UniformTexelBufferArrayNonUniformIndexing
        | C::StorageTexelBufferArrayNonUniformIndexing => (5, &["SPV_EXT_descriptor_indexing"]),
        C::VulkanMemoryModel | C::VulkanMemoryModelDeviceScope => {
            (5, &["SPV_KHR_vulkan_memory_model"])
        }
        C::PhysicalStorageBufferAddresses => (
            5,
            &[
                "SPV_EXT_physical_storage_buffer",
                "SPV_KHR_physical_storage_buffer",
            ],
        ),
        C::ShaderLayer | C::ShaderViewportIndex => (5, &[]),
        C::DemoteToHelperInvocation => (6, &["SPV_EXT_demote_to_helper_invocation"]),
        C::DotProductInputAll
        | C::DotProductInput4x8Bit
        | C::DotProductInput4x8BitPacked
        | C::DotProduct => (6, &["SPV_KHR_integer_dot_product"]),
        C::UniformDecoration => (6, &[]),
        // Capabilities that only an extension provides (no core version has them).
        C::RayTracingKHR => (NEVER, &["SPV_KHR_ray_tracing"]),
        C::RayQueryKHR => (NEVER, &["SPV_KHR_ray_query"]),
        C::RayTracingNV => (NEVER, &["SPV_NV_ray_tracing"]),
        C::RayTracingPositionFetchKHR => (NEVER, &["SPV_KHR_ray_tracing_position_fetch"]),
        C::MeshShadingEXT => (NEVER, &["SPV_EXT_mesh_shader"]),
        C::MeshShadingNV => (NEVER, &["SPV_NV_mesh_shader"]),
        C::FragmentShadingRateKHR => (NEVER, &["SPV_KHR_fragment_shading_rate"]),
        C::FragmentBarycentricKHR => (
            NEVER,
            &[
                "SPV_KHR_fragment_shader_barycentric",
                "SPV_NV_fragment_shader_barycentric",
            ],
        ),
        C::UntypedPointersKHR => (NEVER, &["SPV_KHR_untyped_pointers"]),
        C::ShaderClockKHR => (NEVER, &["SPV_KHR_shader_clock"]),
        C::Int64ImageEXT => (NEVER, &["SPV_EXT_shader_image_int64"]),
        C::StencilExportEXT => (NEVER, &["SPV_EXT_shader_stencil_export"]),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implication_is_transitive() {
        // VariablePointers ⇒ VariablePointersStorageBuffer ⇒ Shader ⇒ Matrix (§3.2.30).
        let set = CapabilitySet::new(&[C::VariablePointers as u32]);
        assert!(set.has(C::VariablePointersStorageBuffer));
        assert!(set.has(C::Shader));
        assert!(set.has(C::Matrix));
        assert!(!set.has(C::Kernel));
        // Kernel implies nothing (digest V-CAP-4).
        let kernel = CapabilitySet::new(&[C::Kernel as u32]);
        assert!(!kernel.has(C::Shader));
        assert!(kernel.any(&[C::Shader, C::Kernel]));
    }
}
