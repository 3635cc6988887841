//! The AMD IL program model, its opcode table and verifier.
