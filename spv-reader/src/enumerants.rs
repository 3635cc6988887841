//! What this crate knows of the grammar's enumerants and masks (SPIR-V §3): which values are
//! known, their names, and the parameters that decorations, execution modes and mask
//! bits add. Used by the operand walk (`operands.rs`), and by the build script, which includes
//! this file to derive the opcode table (`grammar/derive.rs`).

use crate::rspirv::grammar::OperandKind as K;
use crate::spirv;

/// Whether operands of `kind` are bit masks (SPIR-V §3: the "-Mask" operand kinds).
pub(crate) fn is_mask(kind: K) -> bool {
    matches!(
        kind,
        K::ImageOperands
            | K::FPFastMathMode
            | K::SelectionControl
            | K::LoopControl
            | K::FunctionControl
            | K::MemorySemantics
            | K::MemoryAccess
            | K::KernelProfilingInfo
            | K::RayFlags
            | K::FragmentShadingRate
            | K::RawAccessChainOperands
            | K::CooperativeMatrixOperands
            | K::CooperativeMatrixReduce
            | K::TensorAddressingOperands
            | K::MatrixMultiplyAccumulateOperands
            | K::TensorOperands
    )
}

/// Whether enumerants of `kind` may take parameters (decorations and execution modes).
pub(crate) fn has_parameters(kind: K) -> bool {
    matches!(kind, K::Decoration | K::ExecutionMode)
}

/// Expands `$m!(Kind, spirv::Enum)` for every value-enumerant operand kind.
macro_rules! for_each_value_enum {
    ($m:ident, $kind:expr, $value:expr, $fallback:expr) => {
        match $kind {
            K::SourceLanguage => $m!(SourceLanguage, $value),
            K::ExecutionModel => $m!(ExecutionModel, $value),
            K::AddressingModel => $m!(AddressingModel, $value),
            K::MemoryModel => $m!(MemoryModel, $value),
            K::ExecutionMode => $m!(ExecutionMode, $value),
            K::StorageClass => $m!(StorageClass, $value),
            K::Dim => $m!(Dim, $value),
            K::SamplerAddressingMode => $m!(SamplerAddressingMode, $value),
            K::SamplerFilterMode => $m!(SamplerFilterMode, $value),
            K::ImageFormat => $m!(ImageFormat, $value),
            K::ImageChannelOrder => $m!(ImageChannelOrder, $value),
            K::ImageChannelDataType => $m!(ImageChannelDataType, $value),
            K::FPRoundingMode => $m!(FPRoundingMode, $value),
            K::FPDenormMode => $m!(FPDenormMode, $value),
            K::QuantizationModes => $m!(QuantizationModes, $value),
            K::FPOperationMode => $m!(FPOperationMode, $value),
            K::OverflowModes => $m!(OverflowModes, $value),
            K::LinkageType => $m!(LinkageType, $value),
            K::AccessQualifier => $m!(AccessQualifier, $value),
            K::HostAccessQualifier => $m!(HostAccessQualifier, $value),
            K::FunctionParameterAttribute => $m!(FunctionParameterAttribute, $value),
            K::Decoration => $m!(Decoration, $value),
            K::BuiltIn => $m!(BuiltIn, $value),
            K::Scope => $m!(Scope, $value),
            K::GroupOperation => $m!(GroupOperation, $value),
            K::KernelEnqueueFlags => $m!(KernelEnqueueFlags, $value),
            K::Capability => $m!(Capability, $value),
            K::RayQueryIntersection => $m!(RayQueryIntersection, $value),
            K::RayQueryCommittedIntersectionType => {
                $m!(RayQueryCommittedIntersectionType, $value)
            }
            K::RayQueryCandidateIntersectionType => {
                $m!(RayQueryCandidateIntersectionType, $value)
            }
            K::PackedVectorFormat => $m!(PackedVectorFormat, $value),
            K::CooperativeMatrixLayout => $m!(CooperativeMatrixLayout, $value),
            K::CooperativeMatrixUse => $m!(CooperativeMatrixUse, $value),
            K::TensorClampMode => $m!(TensorClampMode, $value),
            K::InitializationModeQualifier => $m!(InitializationModeQualifier, $value),
            K::LoadCacheControl => $m!(LoadCacheControl, $value),
            K::StoreCacheControl => $m!(StoreCacheControl, $value),
            K::NamedMaximumNumberOfRegisters => $m!(NamedMaximumNumberOfRegisters, $value),
            K::FPEncoding => $m!(FPEncoding, $value),
            K::CooperativeVectorMatrixLayout => $m!(CooperativeVectorMatrixLayout, $value),
            K::ComponentType => $m!(ComponentType, $value),
            _ => $fallback,
        }
    };
}

/// Decorations with values below this are answered from `crate::tables::COMMON_DECORATIONS`:
/// the ones shaders use (SPIR-V §3.20, `RelaxedPrecision` 0 to `InputAttachmentIndex` 43 and
/// the few after it) all lie below 64.
pub(crate) const COMMON_DECORATION_LIMIT: u32 = 64;

/// `spirv::Decoration::from_u32(value)`, from a table for the common values.
pub(crate) fn decoration_from_u32(value: u32) -> Option<spirv::Decoration> {
    // `crate::tables::COMMON_DECORATIONS`: `spirv::Decoration::from_u32` of each value below
    // `COMMON_DECORATION_LIMIT`, computed by the build script: that function is a long
    // match, and the read asks it for every decoration twice (R-7 and its parameters).
    match crate::tables::COMMON_DECORATIONS.get(value as usize) {
        Some(&known) => known,
        None => spirv::Decoration::from_u32(value),
    }
}

/// whether `value` is an enumerant of `kind` in this crate's grammar.
pub(crate) fn enum_is_known(kind: K, value: u32) -> bool {
    if matches!(kind, K::Decoration) {
        return decoration_from_u32(value).is_some();
    }
    macro_rules! known {
        ($e:ident, $v:expr) => {
            spirv::$e::from_u32($v).is_some()
        };
    }
    for_each_value_enum!(known, kind, value, false)
}

/// Whether operands of `kind` are single-word value enumerants without parameters.
pub(crate) fn is_plain_enumerant(kind: K) -> bool {
    !is_mask(kind) && !has_parameters(kind) && enum_kind_is_value(kind)
}

/// Whether `kind` is one of the value-enumerant kinds of [`enum_is_known`].
fn enum_kind_is_value(kind: K) -> bool {
    macro_rules! yes {
        ($e:ident, $v:expr) => {
            true
        };
    }
    for_each_value_enum!(yes, kind, 0, false)
}

/// The grammar name of enumerant `value` of `kind` (as spirv-dis prints it), if known.
pub(crate) fn enum_name(kind: K, value: u32) -> Option<String> {
    macro_rules! name {
        ($e:ident, $v:expr) => {
            spirv::$e::from_u32($v).map(|e| format!("{e:?}"))
        };
    }
    let name = for_each_value_enum!(name, kind, value, None)?;
    // Rust identifiers cannot start with a digit, so the `spirv` crate spells `Dim` values
    // `Dim1D`, `DimCube`, ...; the grammar names are `1D`, `Cube`, ... .
    Some(match (kind, name.strip_prefix("Dim")) {
        (K::Dim, Some(grammar_name)) => grammar_name.to_owned(),
        _ => name,
    })
}

/// Parameters of a decoration (SPIR-V §3.20 "Decoration", the "Extra Operands" column).
pub(crate) fn decoration_parameters(value: u32) -> &'static [K] {
    use spirv::Decoration as D;
    const LIT: &[K] = &[K::LiteralInteger];
    const ID: &[K] = &[K::IdRef];
    const STR: &[K] = &[K::LiteralString];
    let Some(d) = decoration_from_u32(value) else {
        return &[];
    };
    match d {
        D::SpecId
        | D::ArrayStride
        | D::MatrixStride
        | D::Stream
        | D::Location
        | D::Component
        | D::Index
        | D::Binding
        | D::DescriptorSet
        | D::Offset
        | D::XfbBuffer
        | D::XfbStride
        | D::InputAttachmentIndex
        | D::Alignment
        | D::MaxByteOffset
        | D::SecondaryViewportRelativeNV
        | D::MemberOffsetNV
        | D::BankNV
        | D::SIMTCallINTEL
        | D::FuncParamIOKindINTEL
        | D::GlobalVariableOffsetINTEL
        | D::NumbanksALTERA
        | D::BankwidthALTERA
        | D::MaxPrivateCopiesALTERA
        | D::MaxReplicatesALTERA
        | D::BankBitsALTERA
        | D::ForcePow2DepthALTERA
        | D::StridesizeALTERA
        | D::WordsizeALTERA
        | D::CacheSizeALTERA
        | D::PrefetchALTERA
        | D::InitiationIntervalALTERA
        | D::MaxConcurrencyALTERA
        | D::PipelineEnableALTERA
        | D::BufferLocationALTERA
        | D::IOPipeStorageALTERA
        | D::FPMaxErrorDecorationINTEL
        | D::LatencyControlLabelALTERA
        | D::MMHostInterfaceAddressWidthALTERA
        | D::MMHostInterfaceDataWidthALTERA
        | D::MMHostInterfaceLatencyALTERA
        | D::MMHostInterfaceMaxBurstALTERA
        | D::MMHostInterfaceWaitRequestALTERA
        | D::ImplementInRegisterMapALTERA => LIT,
        D::BuiltIn => &[K::BuiltIn],
        D::UniformId => &[K::IdScope],
        D::FuncParamAttr => &[K::FunctionParameterAttribute],
        D::FPRoundingMode => &[K::FPRoundingMode],
        D::FPFastMathMode => &[K::FPFastMathMode],
        D::LinkageAttributes => &[K::LiteralString, K::LinkageType],
        D::AlignmentId
        | D::MaxByteOffsetId
        | D::NodeSharesPayloadLimitsWithAMDX
        | D::NodeMaxPayloadsAMDX
        | D::PayloadNodeNameAMDX
        | D::PayloadNodeBaseIndexAMDX
        | D::PayloadNodeArraySizeAMDX
        | D::ArrayStrideIdEXT
        | D::OffsetIdEXT
        | D::AliasScopeINTEL
        | D::NoAliasINTEL
        | D::ConditionalINTEL
        | D::CounterBuffer => ID,
        D::ClobberINTEL | D::UserSemantic | D::UserTypeGOOGLE | D::MemoryALTERA => STR,
        D::FunctionRoundingModeINTEL => &[K::LiteralInteger, K::FPRoundingMode],
        D::FunctionDenormModeINTEL => &[K::LiteralInteger, K::FPDenormMode],
        D::FunctionFloatingPointModeINTEL => &[K::LiteralInteger, K::FPOperationMode],
        D::MergeALTERA => &[K::LiteralString, K::LiteralString],
        D::MathOpDSPModeALTERA => &[K::LiteralInteger, K::LiteralInteger],
        D::LatencyControlConstraintALTERA => {
            &[K::LiteralInteger, K::LiteralInteger, K::LiteralInteger]
        }
        D::MMHostInterfaceReadWriteModeALTERA => &[K::AccessQualifier],
        D::HostAccessINTEL => &[K::HostAccessQualifier, K::LiteralString],
        D::InitModeALTERA => &[K::InitializationModeQualifier],
        D::CacheControlLoadINTEL => &[K::LiteralInteger, K::LoadCacheControl],
        D::CacheControlStoreINTEL => &[K::LiteralInteger, K::StoreCacheControl],
        _ => &[],
    }
}

/// Parameters of an execution mode (SPIR-V §3.6 "Execution Mode", "Extra Operands").
pub(crate) fn execution_mode_parameters(value: u32) -> &'static [K] {
    use spirv::ExecutionMode as E;
    const LIT: &[K] = &[K::LiteralInteger];
    const LIT3: &[K] = &[K::LiteralInteger, K::LiteralInteger, K::LiteralInteger];
    const ID: &[K] = &[K::IdRef];
    const ID3: &[K] = &[K::IdRef, K::IdRef, K::IdRef];
    let Some(e) = E::from_u32(value) else {
        return &[];
    };
    match e {
        E::Invocations
        | E::OutputVertices
        | E::VecTypeHint
        | E::SubgroupSize
        | E::SubgroupsPerWorkgroup
        | E::DenormPreserve
        | E::DenormFlushToZero
        | E::SignedZeroInfNanPreserve
        | E::RoundingModeRTE
        | E::RoundingModeRTZ
        | E::OutputPrimitivesEXT
        | E::SharedLocalMemorySizeINTEL
        | E::RoundingModeRTPINTEL
        | E::RoundingModeRTNINTEL
        | E::FloatingPointModeALTINTEL
        | E::FloatingPointModeIEEEINTEL
        | E::MaxWorkDimINTEL
        | E::NumSIMDWorkitemsINTEL
        | E::SchedulerTargetFmaxMhzINTEL
        | E::StreamingInterfaceINTEL
        | E::RegisterMapInterfaceINTEL
        | E::NamedBarrierCountINTEL
        | E::MaximumRegistersINTEL => LIT,
        E::LocalSize | E::LocalSizeHint | E::TileShadingRateQCOM | E::MaxWorkgroupSizeINTEL => LIT3,
        E::SubgroupsPerWorkgroupId
        | E::IsApiEntryAMDX
        | E::MaxNodeRecursionAMDX
        | E::ShaderIndexAMDX
        | E::MaximumRegistersIdINTEL => ID,
        E::LocalSizeId
        | E::LocalSizeHintId
        | E::StaticNumWorkgroupsAMDX
        | E::MaxNumWorkgroupsAMDX => ID3,
        E::SharesInputWithAMDX | E::FPFastMathDefault => &[K::IdRef, K::IdRef],
        E::NamedMaximumRegistersINTEL => &[K::NamedMaximumNumberOfRegisters],
        _ => &[],
    }
}

/// Parameters of one set bit of a mask, `None` for a bit this crate's grammar does not
/// define (SPIR-V §3.14 Image Operands, §3.26 Memory Operands, §3.23 Loop Control, ...).
pub(crate) fn mask_bit_parameters(kind: K, bit: u32) -> Option<&'static [K]> {
    const NONE: &[K] = &[];
    const LIT: &[K] = &[K::LiteralInteger];
    const ID: &[K] = &[K::IdRef];
    const SCOPE: &[K] = &[K::IdScope];
    Some(match kind {
        K::ImageOperands => {
            use spirv::ImageOperands as I;
            let bit = I::from_bits(bit)?;
            if bit == I::GRAD {
                &[K::IdRef, K::IdRef]
            } else if bit == I::MAKE_TEXEL_AVAILABLE || bit == I::MAKE_TEXEL_VISIBLE {
                SCOPE
            } else if bit == I::NON_PRIVATE_TEXEL
                || bit == I::VOLATILE_TEXEL
                || bit == I::SIGN_EXTEND
                || bit == I::ZERO_EXTEND
                || bit == I::NONTEMPORAL
            {
                NONE
            } else {
                ID
            }
        }
        K::MemoryAccess => {
            use spirv::MemoryAccess as M;
            let bit = M::from_bits(bit)?;
            if bit == M::ALIGNED {
                LIT
            } else if bit == M::MAKE_POINTER_AVAILABLE || bit == M::MAKE_POINTER_VISIBLE {
                SCOPE
            } else if bit == M::ALIAS_SCOPE_INTEL_MASK || bit == M::NO_ALIAS_INTEL_MASK {
                ID
            } else {
                NONE
            }
        }
        K::LoopControl => {
            use spirv::LoopControl as L;
            let bit = L::from_bits(bit)?;
            if bit == L::UNROLL
                || bit == L::DONT_UNROLL
                || bit == L::DEPENDENCY_INFINITE
                || bit == L::NO_FUSION_ALTERA
            {
                NONE
            } else {
                LIT
            }
        }
        K::TensorAddressingOperands => {
            spirv::TensorAddressingOperands::from_bits(bit)?;
            ID
        }
        K::TensorOperands => {
            use spirv::TensorOperands as T;
            let bit = T::from_bits(bit)?;
            if bit == T::OUT_OF_BOUNDS_VALUE_ARM
                || bit == T::MAKE_ELEMENT_AVAILABLE_ARM
                || bit == T::MAKE_ELEMENT_VISIBLE_ARM
            {
                ID
            } else {
                NONE
            }
        }
        K::FPFastMathMode => {
            spirv::FPFastMathMode::from_bits(bit)?;
            NONE
        }
        K::SelectionControl => {
            spirv::SelectionControl::from_bits(bit)?;
            NONE
        }
        K::FunctionControl => {
            spirv::FunctionControl::from_bits(bit)?;
            NONE
        }
        K::MemorySemantics => {
            spirv::MemorySemantics::from_bits(bit)?;
            NONE
        }
        K::KernelProfilingInfo => {
            spirv::KernelProfilingInfo::from_bits(bit)?;
            NONE
        }
        K::RayFlags => {
            spirv::RayFlags::from_bits(bit)?;
            NONE
        }
        K::FragmentShadingRate => {
            spirv::FragmentShadingRate::from_bits(bit)?;
            NONE
        }
        K::RawAccessChainOperands => {
            spirv::RawAccessChainOperands::from_bits(bit)?;
            NONE
        }
        K::CooperativeMatrixOperands => {
            spirv::CooperativeMatrixOperands::from_bits(bit)?;
            NONE
        }
        K::CooperativeMatrixReduce => {
            spirv::CooperativeMatrixReduce::from_bits(bit)?;
            NONE
        }
        K::MatrixMultiplyAccumulateOperands => {
            spirv::MatrixMultiplyAccumulateOperands::from_bits(bit)?;
            NONE
        }
        _ => return None,
    })
}

/// The parameter words of mask `value` of `kind` when every bit is known and every
/// parameter is a one-word literal or id: `(literal count, id count)` is not enough since
/// ids must be checked in order, so this returns the parameter kinds' count and whether
/// they are all plain; `None` for unknown bits or parameters of other kinds.
pub(crate) fn plain_mask_parameters(kind: K, value: u32) -> Option<usize> {
    let mut count = 0;
    let mut bits = value;
    while bits != 0 {
        let bit = bits & bits.wrapping_neg();
        bits &= !bit;
        for &param in mask_bit_parameters(kind, bit)? {
            if !matches!(param, K::LiteralInteger | K::IdRef | K::IdScope) {
                return None;
            }
            count += 1;
        }
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::decoration_from_u32;
    use crate::spirv;

    /// The table answers exactly as `spirv::Decoration::from_u32` (the independent reference)
    /// for every 16-bit value and for values near and at the top of the 32-bit range.
    #[test]
    fn decoration_table_agrees_with_from_u32() {
        let large = [1 << 16, 5_999, 6_000, 1 << 31, u32::MAX - 1, u32::MAX];
        for value in (0..=u32::from(u16::MAX)).chain(large) {
            assert_eq!(
                decoration_from_u32(value),
                spirv::Decoration::from_u32(value),
                "decoration {value}"
            );
        }
        assert_eq!(decoration_from_u32(33), Some(spirv::Decoration::Binding));
    }
}
