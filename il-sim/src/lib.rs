//! An interpreter for AMD IL compute programs.
