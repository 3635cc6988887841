//! Control-flow graphs, dominance and a structurizer for SPIR-V functions.
