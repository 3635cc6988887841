//! Translate SPIR-V modules into AMD IL programs.
