//! The numeric limits of an AMD IL program (amd-il.md §8.5, from the AMD IL guide), in one place
//! for the verifier that checks them, the translator that must stay within them and the
//! simulator that enforces them.

/// Temporary registers a program may use: `r0`…`r4095` (the DX10 limit of 4096 temps,
/// amd-il.md §5 and §8.5).
pub const MAX_TEMP_REGISTERS: u32 = 4096;

/// Elements (vec4) all indexed temporary arrays of a program may declare together (the same
/// DX10 limit).
pub const MAX_INDEXED_TEMP_ELEMENTS: u32 = 4096;

/// Bytes all LDS declarations of a program may use together (guide DCL_LDS: "the sum of all
/// LDS allocations must be <= 32k bytes").
pub const MAX_LDS_BYTES: u32 = 32 * 1024;

/// Highest constant-buffer number: `cb0`…`cb14`.
pub const MAX_CB_ID: u32 = 14;

/// Elements (vec4, 16 bytes each) of one constant buffer.
pub const MAX_CB_ELEMENTS: u32 = 4096;

/// UAV ids a program may declare, 0 to 7 ("Evergreen GPUs can use 0 to 7 UAV in the AMD IL",
/// guide DCL_STRUCT_UAV).
pub const UAV_IDS: u32 = 8;

/// Resource ids a program may declare, 0 to 255 (control bits 7:0 of `dcl_resource`).
pub const RESOURCE_IDS: u32 = 256;

/// Sampler ids, 0 to 15 (control bits 11:8 of `sample`, amd-il.md §1.12).
pub const SAMPLER_IDS: u32 = 16;

/// Invocations of one work-group (`dcl_num_thread_per_group`: "product ≤ 1024").
pub const MAX_GROUP_INVOCATIONS: u32 = 1024;

/// The invocations of a work-group of `size` (missing dimensions count as 1). Three 32-bit
/// sizes may need 96 bits, so the product is exact in 128.
pub fn group_invocations(size: &[u32]) -> u128 {
    size.iter().map(|&n| u128::from(n)).product()
}

/// Whether a program may declare a work-group of `size`: 1 to [`MAX_GROUP_INVOCATIONS`]
/// invocations.
pub fn declarable_group(size: &[u32]) -> bool {
    (1..=u128::from(MAX_GROUP_INVOCATIONS)).contains(&group_invocations(size))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 to 1024 invocations are declarable; none, more, and products past 64 bits are not.
    #[test]
    fn declarable_groups() {
        for ok in [&[1, 1, 1][..], &[64], &[1024, 1, 1], &[8, 8, 16]] {
            assert!(declarable_group(ok), "{ok:?}");
        }
        for refused in [&[0, 1, 1][..], &[1025], &[64, 32, 1], &[u32::MAX; 3]] {
            assert!(!declarable_group(refused), "{refused:?}");
        }
        assert_eq!(
            group_invocations(&[u32::MAX; 3]),
            u128::from(u32::MAX).pow(3)
        );
    }
}
