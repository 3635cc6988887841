//! Inputs and bookkeeping for the spv2il benchmarks.
//!
//! The criterion benches (`benches/stages.rs`, `benches/scaling.rs`) and the `synth` binary share
//! this library: [`inputs`] loads the real modules (the shared corpus beside the workspace and the
//! workspace's own test shaders), [`synth`] builds the synthetic scaling modules, and [`report`]
//! writes the side file that tells `cargo xtask bench` how many modules and bytes each benchmark
//! measured (criterion's own files keep only the times).

pub mod inputs;
pub mod report;
pub mod synth;
