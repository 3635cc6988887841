//! The `spv2il` command-line tool.

fn main() {}
