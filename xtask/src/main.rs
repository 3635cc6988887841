//! Development and batch pipelines for the workspace, run as `cargo xtask <task>`.

fn main() {}
