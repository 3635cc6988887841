//! Limits the validator enforces or relies on, named so that no input can make it recurse
//! deeply or loop for long. The SPIR-V values are the universal minimums of SPIR-V §2.17
//! (digest spirv.md §2.14, rules V-LIM); validators must accept at least these.

/// Deepest nesting of types the recursive type walks follow (SPIR-V §2.17: structure
/// nesting depth 255; arrays, matrices and vectors add a few levels on top).
pub const MAX_TYPE_DEPTH: usize = 1024;

/// Largest number of members of an `OpTypeStruct` (SPIR-V §2.17: 16,383).
pub const MAX_STRUCT_MEMBERS: usize = 16_383;

/// Deepest nesting of structures (SPIR-V §2.17: 255).
pub const MAX_STRUCT_DEPTH: usize = 255;

/// Largest number of (literal, label) pairs of an `OpSwitch` (SPIR-V §2.17: 16,383).
pub const MAX_SWITCH_BRANCHES: usize = 16_383;

/// Largest number of indexes of an access chain or composite extract/insert
/// (SPIR-V §2.17: 255).
pub const MAX_ACCESS_CHAIN_INDEXES: usize = 255;

/// Largest number of function parameters and call arguments (SPIR-V §2.17: 255).
pub const MAX_FUNCTION_ARGS: usize = 255;

/// Largest number of global variables (SPIR-V §2.17: 65,535).
pub const MAX_GLOBAL_VARIABLES: usize = 65_535;

/// Largest number of function-local variables, per function (SPIR-V §2.17: 524,287).
pub const MAX_LOCAL_VARIABLES: usize = 524_287;

/// Deepest control-flow nesting per function (SPIR-V §2.17: 1,023).
pub const MAX_CONTROL_FLOW_NESTING: usize = 1023;
