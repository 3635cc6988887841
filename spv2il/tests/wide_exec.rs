//! 64-bit lowerings run in il-sim on chosen inputs — rounding ties, signed zeros, extremes —
//! that the differential stage's random inputs seldom reach. Expected values come from Rust's
//! own conversions and `f64` functions, which are IEEE-correct (round to nearest even).

use spv2il::{Family, Options, ResourceKind, translate};

/// Translates `shader` (under `tests/shaders/`) for Cayman, binds `inputs` by binding number
/// (set 0), runs one work-group in il-sim and returns every storage buffer by binding.
fn run(shader: &str, inputs: &[(u32, Vec<u8>)], output_bytes: usize) -> Vec<(u32, Vec<u8>)> {
    let path = format!("{}/tests/shaders/{shader}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("read the test shader");
    let translation = translate(&bytes, &Options::new(Family::Cayman)).expect("translates");
    let mut dispatch = il_sim::Dispatch::new([1, 1, 1]);
    let mut bound = Vec::new();
    for resource in &translation.reflection.resources {
        assert_eq!(resource.kind, ResourceKind::RawUav, "storage buffers only");
        let binding = resource.binding.expect("a binding");
        let id = resource.il_id as usize;
        if dispatch.uavs.len() <= id {
            dispatch.uavs.resize(id + 1, Vec::new());
        }
        dispatch.uavs[id] = inputs
            .iter()
            .find(|(b, _)| *b == binding)
            .map_or_else(|| vec![0; output_bytes], |(_, data)| data.clone());
        bound.push((binding, id));
    }
    il_sim::run(&translation.program, &mut dispatch).expect("il-sim runs the program");
    bound
        .into_iter()
        .map(|(binding, id)| (binding, dispatch.uavs[id].clone()))
        .collect()
}

fn buffer(outputs: &[(u32, Vec<u8>)], binding: u32) -> &[u8] {
    &outputs
        .iter()
        .find(|(b, _)| *b == binding)
        .expect("the binding is bound")
        .1
}

fn word(bytes: &[u8], index: usize) -> u32 {
    u32::from_le_bytes(
        bytes[4 * index..4 * index + 4]
            .try_into()
            .expect("four bytes"),
    )
}

fn dword(bytes: &[u8], index: usize) -> u64 {
    u64::from(word(bytes, 2 * index)) | u64::from(word(bytes, 2 * index + 1)) << 32
}

fn to_bytes<T: Copy>(values: &[T], encode: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    values.iter().flat_map(|v| encode(*v)).collect()
}

/// Work-group size of the test shaders, and so the number of rows of every buffer.
const ROWS: usize = 64;

#[test]
fn integer_to_float_conversions_round_to_nearest_even() {
    // Rows of `c` (ivec4): w = (z.x << 32) | uint(z.y) is converted to float (f[2i].z) and
    // double (d[3i+1].x); v = uint64(w) ^ (uint64(uint(z.z)) << 11) likewise (f[2i].w,
    // d[3i+1].y); z.x and uint(z.y) to double exactly (d[3i].zw), z.w through int64 to float
    // (f[2i+1].x).
    let rows: [[i32; 4]; 10] = [
        [0, 0x0100_0001, 0, 0x0100_0001],  // 2^24 + 1: a tie, to even 2^24
        [0, 0x0100_0003, 0, -0x0100_0003], // 2^24 + 3: a tie, to even 2^24 + 4
        [0, 0x0100_0002u32 as i32, 1, 7],  // exact
        [0x7FFF_FFFF, -1, -1, i32::MAX],   // i64::MAX: rounds up to 2^63
        [i32::MIN, 0, 0x8000_0000u32 as i32, i32::MIN], // i64::MIN: exact
        [-1, -1, 3, -1],                   // −1
        [0x0020_0000, 1, 0, 5],            // 2^53 + 1: a double tie, to 2^53
        [0x0020_0000, 3, 0x1234_5678, -5], // 2^53 + 3: to 2^53 + 4
        [0x1234_5678, 0x9ABC_DEF0u32 as i32, -7, 0x00FF_FFFF],
        [-0x0765_4321, 0x0000_0080, 0x7FFF_FFFF, 0x0100_0001],
    ];
    let mut c = vec![[0i32; 4]; ROWS];
    c[..rows.len()].copy_from_slice(&rows);
    let inputs = [
        (0, vec![0; ROWS * 16]),
        (1, vec![0; ROWS * 8]),
        (
            2,
            to_bytes(&c, |r| r.iter().flat_map(|x| x.to_le_bytes()).collect()),
        ),
    ];
    let out = run("alu/double_convert.spv", &inputs, ROWS * 96);
    let (d, f) = (buffer(&out, 3), buffer(&out, 4));
    for (i, z) in rows.iter().enumerate() {
        let w = (i64::from(z[0]) << 32) | i64::from(z[1] as u32);
        let v = (w as u64) ^ (u64::from(z[2] as u32) << 11);
        assert_eq!(
            word(f, 8 * i + 2),
            (w as f32).to_bits(),
            "float(int64) row {i}"
        );
        assert_eq!(
            word(f, 8 * i + 3),
            (v as f32).to_bits(),
            "float(uint64) row {i}"
        );
        assert_eq!(
            word(f, 8 * i + 4),
            (i64::from(z[3]) as f32).to_bits(),
            "float(int64(int)) row {i}"
        );
        assert_eq!(
            dword(d, 12 * i + 4),
            (w as f64).to_bits(),
            "double(int64) row {i}"
        );
        assert_eq!(
            dword(d, 12 * i + 5),
            (v as f64).to_bits(),
            "double(uint64) row {i}"
        );
        assert_eq!(
            dword(d, 12 * i + 2),
            f64::from(z[0]).to_bits(),
            "double(int) row {i}"
        );
        assert_eq!(
            dword(d, 12 * i + 3),
            f64::from(z[1] as u32).to_bits(),
            "double(uint) row {i}"
        );
    }
}

#[test]
fn double_rounding_keeps_signed_zeros_and_breaks_ties_to_even() {
    // x = a[i] * 8 (exact); r[4i] = (floor(x), ceil(x)), r[4i+1] = (trunc(x), fract(x)).
    let values = [
        2.5,
        -2.5,
        0.5,
        -0.5,
        -0.0,
        -1e-300,
        3.75,
        -3.75,
        1e300,
        f64::NEG_INFINITY,
        2f64.powi(51) + 0.5,
        -(2f64.powi(52)) - 1.0,
        7.0,
        -7.0,
        // Ties next to an odd integer, which round up in magnitude to the even one.
        1.5,
        -3.5,
    ];
    let mut a = vec![0f64; 2 * ROWS];
    for (i, x) in values.iter().enumerate() {
        a[2 * i] = x / 8.0;
        a[2 * i + 1] = -x / 8.0;
    }
    let inputs = [(0, to_bytes(&a, |x: f64| x.to_le_bytes().to_vec()))];
    let out = run("alu/double_round.spv", &inputs, ROWS * 128);
    let r = buffer(&out, 1);
    for (i, &x) in values.iter().enumerate() {
        for (lane, x) in [(0, x), (1, -x)] {
            let at = |slot: usize, element: usize| dword(r, 16 * i + 4 * slot + element);
            let check = |got: u64, want: f64, what: &str| {
                assert_eq!(got, want.to_bits(), "{what}({x}) = {}", f64::from_bits(got));
            };
            check(at(0, lane), x.floor(), "floor");
            check(at(0, 2 + lane), x.ceil(), "ceil");
            check(at(1, lane), x.trunc(), "trunc");
            check(at(1, 2 + lane), x - x.floor(), "fract");
            if lane == 0 {
                // r[4i+2].y = roundEven(x.x); r[4i+3].xy = modf(x.x) = (fraction, whole): the
                // fraction has x's sign and is 0 for an infinity (C's modf; spirv.md §7).
                check(at(2, 1), x.round_ties_even(), "roundEven");
                // r[4i+2].x = roundEven(h), h = floor(2 x.y) / 2 a multiple of one half
                // (x.y = -x): every row's h is a tie or an integer.
                let h = (-x * 2.0).floor() * 0.5;
                check(at(2, 0), h.round_ties_even(), "roundEven of halves");
                check(at(3, 1), x.trunc(), "modf whole");
                let fraction = if x.is_infinite() { 0.0 } else { x - x.trunc() };
                check(at(3, 0), fraction.copysign(x), "modf fraction");
            }
        }
    }
}
