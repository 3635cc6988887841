//! Malformed text and token streams give located errors (line/column, token index), never panics;
//! and a seeded smoke test feeds random and mutated inputs to both readers.

mod common;

use common::{Rng, random_program, random_valid_compute};
use il_reader::{TextError, TokenError, decode_tokens, parse_text};
use il_writer::{to_text, to_tokens};

fn text_err(text: &str) -> TextError {
    parse_text(text).expect_err("must not parse")
}

fn token_err(tokens: &[u32]) -> TokenError {
    decode_tokens(tokens).expect_err("must not decode")
}

#[test]
fn text_errors_are_located() {
    // (input, line, column) — columns counted by hand on each line.
    let cases: [(&str, usize, usize); 14] = [
        ("", 1, 1),                                                    // no version line at all
        ("; only a comment\n", 1, 1),                                  // still no version line
        ("il_xx_2_0\nend\n", 1, 1),                                    // unknown shader kind
        ("il_cs_2_0\nfoo r0, r1\nend\n", 2, 1),                        // unknown mnemonic
        ("il_cs_2_0\nmov r0, q1\nend\n", 2, 9),                        // unknown register `q`
        ("il_cs_2_0\n  mov r0.xq, r1\nend\n", 2, 11),                  // `q` is no mask letter
        ("il_cs_2_0\nadd r0, r1\nend\n", 2, 11), // missing source: end of line
        ("il_cs_2_0\nmov r0, r1, r2\nend\n", 2, 13), // one operand too many
        ("il_cs_2_0\nmov r0, cb0[1\nend\n", 2, 14), // unclosed bracket: end of code
        ("il_cs_2_0\nuav_raw_load_id(0)_fast r1, r0.x\nend\n", 2, 20), // unknown suffix `_fast`
        ("il_cs_2_0\nmov r0, r99999999999\nend\n", 2, 10), // register number overflows u32
        ("il_cs_2_0\ndcl_literal l0, 1, 2, 3\nend\n", 2, 24), // three values instead of four
        ("add r0, r1, r2\nil_cs_2_0\nend\n", 1, 1), // only macros may precede the version line
        ("mdef(0)_out(0)_in(0)\nil_cs_2_0\nend\n", 2, 1), // the macro lacks its `mend`
    ];
    for (text, line, column) in cases {
        let e = text_err(text);
        assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn token_errors_are_located() {
    const MOV: u32 = 71;
    let cases: [(&[u32], usize); 10] = [
        (&[], 0),                                              // no IL_Lang
        (&[0], 1),                                             // no IL_Version
        (&[0x100, 0x0003_0200], 0),                            // IL_Lang reserved bits set
        (&[0, 0x0403_0200], 1),                                // IL_Version reserved bits set
        (&[0, 0x0009_0200], 1),                                // shader type 9 does not exist
        (&[0, 0x0003_0200, 0xFFFF], 2),                        // opcode 65535 is not in the table
        (&[0, 0x0003_0200, MOV], 3),                           // `mov` without operands
        (&[0, 0x0003_0200, MOV, 0x003F_0000, 0x0004_0001], 3), // register type 63 is not a register
        (&[0, 0x0003_0200, MOV, 0x0804_0000], 3),              // operand reserved bit 27 set
        (&[0, 0x0003_0200, 15, 0xFFFF], 4), // comment claims 65535 words, none follow
    ];
    for (tokens, index) in cases {
        let e = token_err(tokens);
        assert_eq!(e.index, index, "{tokens:x?}: {e}");
        assert!(!e.message.is_empty());
    }
    // A label count of 2^32-1 must be refused without allocating (dcl_function_table = 314).
    let e = token_err(&[0, 0x0003_0200, 314, u32::MAX]);
    assert_eq!(e.index, 4);
    // Operand nesting deeper than the limit: a register-relative index inside an index … .
    let mut deep = vec![0, 0x0003_0200, MOV, 4 << 16];
    deep.extend(std::iter::repeat_n(30 << 16 | 2 << 23, 10_000));
    let e = token_err(&deep);
    assert!(e.index > 3 && e.index < 20, "{e}");
}

/// Number of random inputs per smoke test (the same seeds every run).
const SMOKE_CASES: u64 = 2000;

/// Characters that make up IL text, so random text gets past the first checks.
const ALPHABET: &[u8] = b"il_cs20 \n,.[]()+-_xyzw01rvlcbom;\"{}=adfeqtngsuhpk#@\tLAT";

#[test]
fn random_and_mutated_text_never_panics() {
    let mut rng = Rng::new(7);
    let mut parsed = 0;
    for seed in 0..SMOKE_CASES {
        let text = match seed % 3 {
            0 => {
                let n = rng.below(200);
                let bytes: Vec<u8> = (0..n).map(|_| *rng.pick(ALPHABET)).collect();
                format!("il_cs_2_0\n{}", String::from_utf8_lossy(&bytes))
            }
            1 => mutate_text(&mut rng, &to_text(&random_program(&mut Rng::new(seed)))),
            _ => mutate_text(
                &mut rng,
                &to_text(&random_valid_compute(&mut Rng::new(seed))),
            ),
        };
        // Reaching the next line without a panic is the property; a parsed program must also
        // print and read back.
        if let Ok(program) = parse_text(&text) {
            parsed += 1;
            assert_eq!(
                parse_text(&to_text(&program)).as_ref(),
                Ok(&program),
                "{text}"
            );
        }
    }
    // Some mutations keep the text well-formed, so a share must still parse (else the test would
    // only ever exercise the first error path).
    assert!(parsed > SMOKE_CASES / 20, "only {parsed} parsed");
}

fn mutate_text(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        if bytes.is_empty() {
            break;
        }
        let at = rng.below(bytes.len());
        match rng.below(5) {
            0 => {
                bytes.remove(at);
            }
            // Digits for digits keeps most lines well-formed, so deeper paths get exercised.
            1 => {
                if let Some(d) = bytes.iter().skip(at).position(u8::is_ascii_digit) {
                    bytes[at + d] = b'0' + rng.below(10) as u8;
                }
            }
            4 => bytes.insert(at, *rng.pick(ALPHABET)),
            2 => bytes[at] = *rng.pick(ALPHABET),
            _ => {
                let end = (at + rng.below(20)).min(bytes.len());
                let chunk = bytes[at..end].to_vec();
                bytes.splice(at..at, chunk);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn random_and_mutated_tokens_never_panic() {
    let mut rng = Rng::new(11);
    let mut decoded = 0;
    for seed in 0..SMOKE_CASES {
        let tokens: Vec<u32> = match seed % 3 {
            0 => {
                let mut t = vec![0, 0x0003_0200];
                t.extend((0..rng.below(40)).map(|_| {
                    if rng.chance(2) {
                        rng.u32()
                    } else {
                        rng.below(500) as u32
                    }
                }));
                t
            }
            1 => mutate_tokens(&mut rng, to_tokens(&random_program(&mut Rng::new(seed)))),
            _ => mutate_tokens(
                &mut rng,
                to_tokens(&random_valid_compute(&mut Rng::new(seed))),
            ),
        };
        if let Ok(program) = decode_tokens(&tokens) {
            decoded += 1;
            assert_eq!(decode_tokens(&to_tokens(&program)).as_ref(), Ok(&program));
            let _ = parse_text(&to_text(&program));
        }
    }
    assert!(decoded > SMOKE_CASES / 10, "only {decoded} decoded");
}

fn mutate_tokens(rng: &mut Rng, mut tokens: Vec<u32>) -> Vec<u32> {
    for _ in 0..1 + rng.below(3) {
        if tokens.is_empty() {
            break;
        }
        let at = rng.below(tokens.len());
        match rng.below(4) {
            0 => tokens[at] ^= 1 << rng.below(32),
            1 => tokens.truncate(at),
            2 => tokens.insert(at, rng.u32()),
            _ => {
                tokens.remove(at);
            }
        }
    }
    tokens
}
