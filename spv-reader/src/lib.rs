//! A fast, tolerant, located SPIR-V reader with dense per-id tables.
