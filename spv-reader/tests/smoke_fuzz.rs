//! A deterministic stand-in for the `read` fuzz target that runs inside `cargo test`:
//! thousands of mutations (bit flips, interesting words, truncations, duplicated and
//! dropped words, changed word counts) of a few small modules. Every mutant must give
//! `Ok` or `Err` — no panic — and every accepted mutant must survive the views and the
//! disassembler.

mod common;

use common::{Asm, string, with_string};
use spv_reader::spirv::Op;
use spv_reader::{Id, read};

/// xorshift64*: a fixed-seed generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seeds() -> Vec<Vec<u32>> {
    let mut compute = Asm::new(3, 20);
    compute
        .op(Op::Capability, &[1])
        .op(Op::ExtInstImport, &with_string(&[16], "GLSL.std.450", &[]))
        .op(Op::MemoryModel, &[0, 1])
        .op(Op::EntryPoint, &with_string(&[5, 4], "main", &[9]))
        .op(Op::ExecutionMode, &[4, 17, 64, 1, 1])
        .op(Op::Name, &with_string(&[4], "main", &[]))
        .op(Op::Decorate, &[9, 11, 28]) // BuiltIn GlobalInvocationId
        .op(Op::Decorate, &[8, 2]) // Block
        .op(Op::MemberDecorate, &[8, 0, 35, 0]) // Offset 0
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::TypeInt, &[3, 32, 0])
        .op(Op::TypeVector, &[6, 3, 3])
        .op(Op::TypePointer, &[7, 1, 6])
        .op(Op::TypeStruct, &[8, 3])
        .op(Op::Variable, &[7, 9, 1])
        .op(Op::TypeFloat, &[10, 32])
        .op(Op::Constant, &[10, 11, 0x3F80_0000])
        .op(Op::Constant, &[3, 12, 0])
        .op(Op::Function, &[1, 4, 0, 2])
        .op(Op::Label, &[13])
        .op(Op::Load, &[6, 14, 9, 2, 4])
        .op(Op::CompositeExtract, &[3, 15, 14, 0])
        .op(Op::ExtInst, &[10, 17, 16, 31, 11]) // Sqrt
        .op(Op::SelectionMerge, &[18, 0])
        .op(Op::Switch, &[15, 18, 1, 19])
        .op(Op::Label, &[19])
        .op(Op::Branch, &[18])
        .op(Op::Label, &[18])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    let mut kernel = Asm::new(0, 9);
    kernel
        .op(Op::Capability, &[4]) // Addresses
        .op(Op::Capability, &[6]) // Kernel
        .op(Op::MemoryModel, &[2, 2]) // Physical64 OpenCL
        .op(Op::EntryPoint, &with_string(&[6, 4], "k", &[]))
        .op(Op::Source, &[3, 120]) // OpenCL_C 1.2
        .op(Op::TypeVoid, &[1])
        .op(Op::TypeFunction, &[2, 1])
        .op(Op::TypeInt, &[3, 64, 0])
        .op(Op::SpecConstant, &[3, 5, 1, 0])
        .op(Op::SpecConstantOp, &[3, 6, Op::IAdd as u32, 5, 5])
        .op(Op::Function, &[1, 4, 0, 2])
        .op(Op::Label, &[7])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    let mut strings = Asm::new(0, 4);
    strings
        .op(Op::Capability, &[1])
        .op(
            Op::Extension,
            &string("SPV_KHR_storage_buffer_storage_class"),
        )
        .op(Op::MemoryModel, &[0, 1])
        .op(Op::String, &with_string(&[1], "a file name", &[]))
        .op(Op::Name, &with_string(&[2], "flag", &[]))
        .op(Op::Line, &[1, 3, 4])
        .op(Op::TypeBool, &[2]);
    vec![compute.words, kernel.words, strings.words]
}

/// Values that make readers trip: zero, all ones, word counts, ids near the bound.
const INTERESTING: [u32; 10] = [
    0,
    1,
    0xFFFF,
    0x1_0000,
    0xFFFF_0000,
    u32::MAX,
    0x7FFF_FFFF,
    0x0723_0203,
    0x3F_FFFF,
    20,
];

fn mutate(rng: &mut Rng, words: &mut Vec<u32>) {
    for _ in 0..=rng.below(3) {
        let i = rng.below(words.len());
        match rng.below(7) {
            0 => words[i] ^= 1 << rng.below(32),
            1 => words[i] = INTERESTING[rng.below(INTERESTING.len())],
            2 => words.truncate(i.max(1)),
            3 => {
                let w = words[i];
                words.insert(i, w);
            }
            4 => {
                words.remove(i);
            }
            5 => words[i] = (words[i] & 0xFFFF) | ((rng.below(8) as u32) << 16),
            _ => {
                let j = rng.below(words.len());
                words.swap(i, j);
            }
        }
        if words.is_empty() {
            words.push(0);
        }
    }
}

#[test]
fn mutated_modules_never_panic() {
    let seeds = seeds();
    for s in &seeds {
        if let Err(e) = spv_reader::read_words(s) {
            panic!("the seeds themselves read: {e}");
        }
    }
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..6000 {
        let mut words = seeds[round % seeds.len()].clone();
        mutate(&mut rng, &mut words);
        // Keep the header mostly intact so that mutations reach the instructions.
        if round % 4 != 0 && words.len() >= 5 {
            words[..5].copy_from_slice(&seeds[round % seeds.len()][..5]);
        }
        let bytes: Vec<u8> = if round % 2 == 0 {
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        } else {
            words.iter().flat_map(|w| w.to_be_bytes()).collect()
        };
        match read(&bytes) {
            Ok(m) => {
                accepted += 1;
                for inst in m.instructions() {
                    let _ = (inst.result_type(), inst.result_id(), inst.operands());
                    if let Some(id) = inst.result_id() {
                        let _ = (
                            m.ty(id),
                            m.constant(id),
                            m.name(id),
                            m.decorations(id).count(),
                        );
                    }
                }
                for f in m.functions() {
                    for b in &f.blocks {
                        assert!(b.first.0 <= b.merge.unwrap_or(b.terminator).0);
                    }
                }
                assert!(m.def(Id(u32::MAX)).is_none());
                assert!(!spv_reader::disassemble(&m).is_empty());
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    // Both outcomes occur, so the mutations reach the reader's checks.
    assert!(
        accepted > 100 && refused > 100,
        "accepted {accepted}, refused {refused}"
    );
}
