//! A SPIR-V validator whose diagnostics name the rule and the instruction.
