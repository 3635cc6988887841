//! ALU instruction families against the AMD IL guide's pages (v2.4, Chapter 7). Every
//! expectation is worked out by hand from the page's pseudo-code or prose cited next to it.

mod common;

use common::{eval, eval_masked, eval_operands, f4, parse, run_err, run_ok, splat};

const NAN: u32 = 0x7FC0_0000;
const INF: u32 = 0x7F80_0000;
const NEG_INF: u32 = 0xFF80_0000;
const T: u32 = 0xFFFF_FFFF;
const UNTOUCHED: u32 = 0xDEAD_BEEF;

fn is_nan(bits: u32) -> bool {
    f32::from_bits(bits).is_nan()
}

#[test]
fn add_sub_follow_ieee() {
    let r = eval(
        "add",
        &[
            f4([1.5, -2.0, f32::INFINITY, 1.0]),
            f4([2.5, 2.0, f32::NEG_INFINITY, f32::NAN]),
        ],
    );
    assert_eq!(r[0], 4.0f32.to_bits());
    assert_eq!(r[1], 0);
    assert!(is_nan(r[2]) && is_nan(r[3]));
    // Guide SUB: dst = src0 - src1.
    let r = eval("sub", &[f4([5.0, 1.0, 0.0, 0.0]), f4([3.0, 4.0, 0.0, 0.0])]);
    assert_eq!(r, f4([2.0, -3.0, 0.0, 0.0]));
}

#[test]
fn mul_without_ieee_makes_zero_times_anything_zero() {
    // Guide MUL control: 0 = DX9 multiply (0·n = 0 even for NaN/Inf), 1 = IEEE.
    let a = f4([0.0, f32::INFINITY, f32::NAN, 2.0]);
    let b = f4([f32::INFINITY, 0.0, 0.0, 3.0]);
    assert_eq!(eval("mul", &[a, b]), f4([0.0, 0.0, 0.0, 6.0]));
    let r = eval("mul_ieee", &[a, b]);
    assert!(is_nan(r[0]) && is_nan(r[1]) && is_nan(r[2]));
    assert_eq!(r[3], 6.0f32.to_bits());
    // MAD: the same rule for its product, then the add.
    let c = f4([1.0, 1.0, 1.0, 1.0]);
    assert_eq!(eval("mad", &[a, b, c]), f4([1.0, 1.0, 1.0, 7.0]));
    assert!(eval("mad_ieee", &[a, b, c])[..3].iter().all(|&x| is_nan(x)));
}

#[test]
fn denormals_are_flushed_by_float_ops_but_not_by_mov() {
    let min_normal = f32::MIN_POSITIVE;
    // Inputs: a denormal plus 0 gives +0; outputs: 1.5·2^-126 − 2^-126 = 2^-127 is a denormal
    // result, flushed to 0 (guide §7.2.1, MAD page "flushed to zeros on input and output").
    let r = eval(
        "add",
        &[
            [
                1,
                0x8000_0001,
                (1.5 * min_normal).to_bits(),
                min_normal.to_bits(),
            ],
            f4([0.0, 0.0, -min_normal, 0.0]),
        ],
    );
    assert_eq!(r, [0, 0, 0, min_normal.to_bits()]);
    // mov is a bit copy (amd-il.md §7.1).
    assert_eq!(
        eval("mov", &[[1, 0x8000_0001, 2, 3]]),
        [1, 0x8000_0001, 2, 3]
    );
    // Compares flush too: a denormal equals zero (guide EQ).
    assert_eq!(
        eval("eq", &[[1, 0, 0, 0], f4([0.0, -0.0, 1.0, 0.0])]),
        [T, T, 0, T]
    );
}

#[test]
fn div_follows_zeroop() {
    let a = f4([1.0, -1.0, 0.0, 6.0]);
    let b = f4([0.0, 0.0, 0.0, 3.0]);
    // Guide DIV pseudo-code: default zeroop(fltmax); sign only from the dividend; 0/0 is not NaN.
    assert_eq!(
        eval("div", &[a, b]),
        f4([f32::MAX, -f32::MAX, f32::MAX, 2.0])
    );
    assert_eq!(
        eval("div_zeroop(infinity)", &[a, b]),
        [INF, NEG_INF, INF, 2.0f32.to_bits()]
    );
    assert_eq!(eval("div_zeroop(zero)", &[a, b]), f4([0.0, -0.0, 0.0, 2.0]));
}

#[test]
fn mod_truncates_and_returns_the_dividend_for_zero() {
    // Guide MOD pseudo-code: v2 == 0 ? v1 : v1 - v2 * trunc(v1 / v2).
    let r = eval(
        "mod",
        &[f4([-1.7, 7.0, 7.0, -7.0]), f4([1.0, 0.0, 2.0, 2.0])],
    );
    assert_eq!(r, f4([-1.7 + 1.0, 7.0, 1.0, -1.0]));
}

#[test]
fn min_max_nan_and_zero_rules() {
    // Guide MAX/MIN: a NaN operand loses; max(±0) = +0; min(±0) = −0.
    let a = f4([f32::NAN, 1.0, 0.0, -0.0]);
    let b = f4([2.0, f32::NAN, -0.0, 0.0]);
    assert_eq!(eval("max", &[a, b]), f4([2.0, 1.0, 0.0, 0.0]));
    assert_eq!(eval("min", &[a, b]), f4([2.0, 1.0, -0.0, -0.0]));
    assert_eq!(eval("max_ieee", &[a, b]), f4([2.0, 1.0, 0.0, 0.0]));
    assert_eq!(eval("min_ieee", &[a, b]), f4([2.0, 1.0, -0.0, -0.0]));
    assert_eq!(
        eval(
            "max",
            &[f4([1.0, 5.0, -3.0, 2.0]), f4([2.0, 4.0, -4.0, 2.0])]
        ),
        f4([2.0, 5.0, -3.0, 2.0])
    );
}

#[test]
fn float_compares_write_booleans_and_nan_is_false() {
    let a = f4([0.0, f32::NAN, 1.0, 1.0]);
    let b = f4([-0.0, f32::NAN, 2.0, f32::NAN]);
    assert_eq!(eval("eq", &[a, b]), [T, 0, 0, 0]);
    // Guide NE: "Comparison with NaN returns false".
    assert_eq!(eval("ne", &[a, b]), [0, 0, T, 0]);
    assert_eq!(eval("lt", &[a, b]), [0, 0, T, 0]);
    assert_eq!(eval("ge", &[a, b]), [T, 0, 0, 0]);
}

#[test]
fn rounding_family() {
    // RND = floor(x + 0.5); ROUND_NEAREST = to even; FRC = x − floor(x); FLR; ceil; trunc.
    assert_eq!(
        eval("rnd", &[f4([2.5, -2.5, 0.4, -0.6])]),
        f4([3.0, -2.0, 0.0, -1.0])
    );
    assert_eq!(
        eval("round_nearest", &[f4([2.5, 3.5, -2.5, 0.5])]),
        f4([2.0, 4.0, -2.0, 0.0])
    );
    assert_eq!(
        eval("frc", &[f4([-1.75, 1.25, 3.0, -0.5])]),
        f4([0.25, 0.25, 0.0, 0.5])
    );
    assert_eq!(
        eval("flr", &[f4([-1.5, 1.5, 0.0, -0.0])]),
        f4([-2.0, 1.0, 0.0, -0.0])
    );
    assert_eq!(
        eval("round_plusinf", &[f4([-1.5, 1.5, 2.0, 0.1])]),
        f4([-1.0, 2.0, 2.0, 1.0])
    );
    assert_eq!(
        eval("round_z", &[f4([-1.5, 1.5, 2.0, -0.9])]),
        f4([-1.0, 1.0, 2.0, -0.0])
    );
    assert_eq!(
        eval("sgn", &[f4([-3.0, 0.0, 7.0, -0.0])]),
        f4([-1.0, 0.0, 1.0, 0.0])
    );
    assert_eq!(
        eval("abs", &[f4([-3.0, 0.0, 7.0, -0.0])]),
        f4([3.0, 0.0, 7.0, 0.0])
    );
    assert_eq!(
        eval(
            "clamp",
            &[
                f4([-1.0, 0.5, 2.0, 0.0]),
                splat(0.0f32.to_bits()),
                splat(1.0f32.to_bits())
            ]
        ),
        f4([0.0, 0.5, 1.0, 0.0])
    );
}

#[test]
fn destination_modifiers_sat_and_shift_scale() {
    // _sat clamps to [0, 1], NaN → 0 (amd-il.md §7.2); _x2/_d2 scale the result (guide §2.2.5).
    let zero = splat(0);
    assert_eq!(
        eval("add_sat", &[f4([0.5, 2.0, -1.0, f32::NAN]), zero]),
        f4([0.5, 1.0, 0.0, 0.0])
    );
    assert_eq!(
        eval("add_x2", &[f4([1.0, 2.0, 3.0, 4.0]), zero]),
        f4([2.0, 4.0, 6.0, 8.0])
    );
    assert_eq!(
        eval("add_d2", &[f4([1.0, 2.0, 3.0, 4.0]), zero]),
        f4([0.5, 1.0, 1.5, 2.0])
    );
}

#[test]
fn source_swizzles_and_modifiers() {
    // Guide §2.2.7: swizzle first, then abs, then negate; `1` inserts 1.0f; integer negate is
    // two's complement.
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_literal l0, 0x3F800000, 0xC0000000, 0x40400000, 0xC0800000
dcl_literal l1, 0, 16, 32, 48
dcl_literal l2, 5, 7, 0, 0
mov r0, l0.wzyx
uav_raw_store_id(0) mem, l1.x, r0
mov r0, l0_abs
uav_raw_store_id(0) mem, l1.y, r0
mov r0, l0_neg(xz)
uav_raw_store_id(0) mem, l1.z, r0
iadd r0, l2.xy01, l2_neg(xyzw)
uav_raw_store_id(0) mem, l1.w, r0
end
";
    let w = run_ok(text);
    assert_eq!(&w[0..4], &f4([-4.0, 3.0, -2.0, 1.0]));
    assert_eq!(&w[4..8], &f4([1.0, 2.0, 3.0, 4.0]));
    assert_eq!(&w[8..12], &f4([-1.0, -2.0, -3.0, -4.0]));
    assert_eq!(&w[12..16], &[0, 0, 0, 0x3F80_0000]);
}

#[test]
fn scalar_transcendentals_read_w_and_broadcast() {
    // amd-il.md §0.4: rcp/rsq/sqrt/exp/log/sin read .w only and write all four components.
    let v = |w: f32| f4([99.0, 99.0, 99.0, w]);
    assert_eq!(eval("rcp", &[v(4.0)]), splat(0.25f32.to_bits()));
    assert_eq!(eval("rcp", &[v(0.0)]), splat(f32::MAX.to_bits()));
    assert_eq!(eval("rcp_zeroop(infinity)", &[v(0.0)]), splat(INF));
    assert_eq!(eval("rsq", &[v(16.0)]), splat(0.25f32.to_bits()));
    assert_eq!(eval("sqrt", &[v(9.0)]), splat(3.0f32.to_bits()));
    assert_eq!(eval("exp", &[v(3.0)]), splat(8.0f32.to_bits()));
    assert_eq!(eval("log", &[v(8.0)]), splat(3.0f32.to_bits()));
    // LOG default zeroop(fltmax): log(0) = −FLT_MAX.
    assert_eq!(eval("log", &[v(0.0)]), splat((-f32::MAX).to_bits()));
    assert_eq!(eval("sin", &[v(0.0)]), splat(0));
    assert_eq!(eval("cos", &[v(0.0)]), splat(1.0f32.to_bits()));
    // POW: src0.w ^ src1.w.
    assert_eq!(eval("pow", &[v(2.0), v(10.0)]), splat(1024.0f32.to_bits()));
}

#[test]
fn vector_transcendentals_work_per_component() {
    assert_eq!(
        eval("exp_vec", &[f4([0.0, 1.0, 2.0, -1.0])]),
        f4([1.0, 2.0, 4.0, 0.5])
    );
    let r = eval("log_vec", &[f4([1.0, 2.0, 0.0, -1.0])]);
    // LOG_VEC behaves as LOG with zeroop(infinity); negative input is undefined (NaN here).
    assert_eq!(&r[..3], &[0, 1.0f32.to_bits(), NEG_INF]);
    assert!(is_nan(r[3]));
    assert_eq!(
        eval("sqrt_vec", &[f4([4.0, 9.0, 0.0, 1.0])]),
        f4([2.0, 3.0, 0.0, 1.0])
    );
    assert_eq!(
        eval("rsq_vec", &[f4([4.0, 16.0, 0.0, 1.0])]),
        [0.5f32.to_bits(), 0.25f32.to_bits(), INF, 1.0f32.to_bits()]
    );
    assert_eq!(eval("sin_vec", &[f4([0.0, 0.0, 0.0, 0.0])]), splat(0));
}

#[test]
fn dot_products_broadcast_and_honour_ieee() {
    let a = f4([0.0, 1.0, 2.0, 3.0]);
    let b = f4([f32::INFINITY, 1.0, 1.0, 1.0]);
    // DX9 rule: 0·Inf = 0, so dp3 = 0 + 1 + 2.
    assert_eq!(eval("dp3", &[a, b]), splat(3.0f32.to_bits()));
    assert!(eval("dp3_ieee", &[a, b]).iter().all(|&x| is_nan(x)));
    assert_eq!(
        eval("dp4", &[f4([1.0, 2.0, 3.0, 4.0]), splat(1.0f32.to_bits())]),
        splat(10.0f32.to_bits())
    );
    assert_eq!(
        eval("dp2", &[f4([1.0, 2.0, 3.0, 4.0]), splat(1.0f32.to_bits())]),
        splat(3.0f32.to_bits())
    );
}

#[test]
fn instructions_that_leave_components_unwritten() {
    // SINCOS writes x = cos, y = sin only; CRS leaves w.
    let r = eval("sincos", &[f4([0.0, 0.0, 0.0, 0.0])]);
    assert_eq!(r, [1.0f32.to_bits(), 0, UNTOUCHED, UNTOUCHED]);
    let r = eval("crs", &[f4([1.0, 0.0, 0.0, 0.0]), f4([0.0, 1.0, 0.0, 0.0])]);
    assert_eq!(r, [0, 0, 1.0f32.to_bits(), UNTOUCHED]);
    // Masks: `_` keeps, `0`/`1` force 0.0/1.0 (guide §2.2.5).
    let r = eval_masked("mov", ".x_01", &[splat(7)]);
    assert_eq!(r, [7, UNTOUCHED, 0, 1.0f32.to_bits()]);
}

#[test]
fn cmov_logical_tests_any_bit() {
    // Guide CMOV_LOGICAL: integer test, so −0.0 (0x80000000) and NaN select src1.
    let c = [0, 1, 0x8000_0000, NAN];
    assert_eq!(
        eval("cmov_logical", &[c, splat(10), splat(20)]),
        [20, 10, 10, 10]
    );
}

#[test]
fn integer_arithmetic_wraps() {
    assert_eq!(
        eval(
            "iadd",
            &[[u32::MAX, 0x7FFF_FFFF, 5, 0], [1, 1, u32::MAX, 0]]
        ),
        [0, 0x8000_0000, 4, 0]
    );
    // INT_MIN negates to itself.
    assert_eq!(
        eval("inegate", &[[0x8000_0000, 1, 0, 5]]),
        [0x8000_0000, T, 0, (-5i32) as u32]
    );
    assert_eq!(
        eval("imul", &[[0x1_0000, 3, T, 7], [0x1_0000, 5, T, 0]]),
        [0, 15, 1, 0]
    );
    // imul_high: (-1)·(0x10000) = -0x10000, high word all ones; umul_high of the same: 0xFFFF.
    assert_eq!(
        eval(
            "imul_high",
            &[[T, 0x8000_0000, 2, 0], [0x1_0000, 0x8000_0000, 3, 0]]
        ),
        [T, 0x4000_0000, 0, 0]
    );
    assert_eq!(
        eval(
            "umul_high",
            &[[T, 0x8000_0000, 2, 0], [0x1_0000, 0x8000_0000, 3, 0]]
        ),
        [0xFFFF, 0x4000_0000, 0, 0]
    );
    assert_eq!(
        eval("imad", &[[2, T, 0, 0], [3, 2, 0, 0], [1, 3, 0, 0]]),
        [7, 1, 0, 0]
    );
    assert_eq!(
        eval("imax", &[[T, 5, 0x8000_0000, 0], [1, 4, 0x7FFF_FFFF, 0]]),
        [1, 5, 0x7FFF_FFFF, 0]
    );
    assert_eq!(
        eval("umax", &[[T, 5, 0x8000_0000, 0], [1, 4, 0x7FFF_FFFF, 0]]),
        [T, 5, 0x8000_0000, 0]
    );
    assert_eq!(
        eval("imin", &[[T, 5, 0x8000_0000, 0], [1, 4, 0x7FFF_FFFF, 0]]),
        [T, 4, 0x8000_0000, 0]
    );
    assert_eq!(
        eval("umin", &[[T, 5, 0x8000_0000, 0], [1, 4, 0x7FFF_FFFF, 0]]),
        [1, 4, 0x7FFF_FFFF, 0]
    );
    // ICARRY/IBORROW produce 1, not all ones.
    assert_eq!(
        eval("icarry", &[[T, 1, 0x8000_0000, 0], [1, 1, 0x8000_0000, 0]]),
        [1, 0, 1, 0]
    );
    assert_eq!(eval("iborrow", &[[0, 1, 5, T], [1, 1, 4, 0]]), [1, 0, 0, 0]);
    // udiv/umod; by zero (unspecified by the guide) il-sim gives all ones.
    assert_eq!(
        eval("udiv", &[[7, T, 5, 0], [2, 2, 0, 0]]),
        [3, 0x7FFF_FFFF, T, T]
    );
    assert_eq!(eval("umod", &[[7, T, 5, 0], [2, 2, 0, 0]]), [1, 1, T, T]);
}

#[test]
fn integer_compares() {
    let a = [T, 5, 0x8000_0000, 3];
    let b = [1, 5, 0x7FFF_FFFF, 4];
    assert_eq!(eval("ieq", &[a, b]), [0, T, 0, 0]);
    assert_eq!(eval("ine", &[a, b]), [T, 0, T, T]);
    assert_eq!(eval("ilt", &[a, b]), [T, 0, T, T]);
    assert_eq!(eval("ige", &[a, b]), [0, T, 0, 0]);
    assert_eq!(eval("ult", &[a, b]), [0, 0, 0, T]);
    assert_eq!(eval("uge", &[a, b]), [T, T, T, 0]);
}

#[test]
fn shifts_mask_the_amount_to_five_bits() {
    let v = [1, 0x8000_0000, 0xF0, T];
    // The amount is one replicated component (`l1.y`); the other components differ to show
    // they are not used.
    let shift = |op: &str, amount: u32| {
        let operands = ["l0".to_string(), "l1.y".to_string()];
        eval_operands(op, "", &[v, [0, amount, 7, 9]], &operands)
    };
    // Guide ISHL: "Shifts of 33 and 1 are treated identically"; 32 is a shift by 0.
    assert_eq!(shift("ishl", 33), [2, 0, 0x1E0, 0xFFFF_FFFE]);
    assert_eq!(shift("ishl", 32), v);
    assert_eq!(shift("ishr", 4), [0, 0xF800_0000, 0xF, T]);
    assert_eq!(shift("ushr", 36), [0, 0x0800_0000, 0xF, 0x0FFF_FFFF]);
}

#[test]
fn a_shift_amount_must_be_replicated() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_literal l0, 1, 2, 3, 4
ishl r0, l0, l0.xyzw
end
";
    let e = run_err(text);
    assert_eq!(e.inst, Some(2));
    assert_eq!(e.kind, il_sim::ErrorKind::Malformed);
}

#[test]
fn float_integer_conversions() {
    // FTOI/FTOU: truncation; out of range and NaN are undefined in the guide, saturated here.
    assert_eq!(
        eval("ftoi", &[[NAN, INF, NEG_INF, (-1.9f32).to_bits()]]),
        [0, 0x7FFF_FFFF, 0x8000_0000, T]
    );
    assert_eq!(
        eval("ftou", &[f4([-1.0, 4.9, f32::INFINITY, f32::NAN])]),
        [0, 4, T, 0]
    );
    assert_eq!(
        eval("itof", &[[T, 0x8000_0000, 3, 0]]),
        f4([-1.0, -2_147_483_648.0, 3.0, 0.0])
    );
    // UTOF: nearest even; 0xFFFFFFFF becomes 2^32 and 16777217 becomes 16777216.
    assert_eq!(
        eval("utof", &[[T, 16_777_217, 16_777_219, 0]]),
        f4([4_294_967_296.0, 16_777_216.0, 16_777_220.0, 0.0])
    );
}

#[test]
fn half_precision_conversions() {
    // IEEE binary16: 1.0 = 0x3C00, −2.0 = 0xC000, 0.5 = 0x3800; 65520 rounds to infinity.
    assert_eq!(
        eval("f2f16", &[f4([1.0, -2.0, 65520.0, 0.5])]),
        [0x3C00, 0xC000, 0x7C00, 0x3800]
    );
    assert_eq!(
        eval("f162f", &[[0x3C00, 0xC000, 0x7C00, 0xFFFF_3800]]),
        f4([1.0, -2.0, f32::INFINITY, 0.5])
    );
}

#[test]
fn bit_operations() {
    // Width/offset use five bits (the guide's `^ 0x1F` is a typo for `& 0x1F`).
    assert_eq!(
        eval(
            "ubit_extract",
            &[[8, 40, 0, 16], [4, 36, 4, 24], splat(0x1234_5678)]
        ),
        [0x67, 0x67, 0, 0x12]
    );
    assert_eq!(
        eval(
            "ibit_extract",
            &[
                [4, 4, 16, 8],
                [4, 4, 24, 0],
                [0xF0, 0x70, 0x8000_0000, 0x80]
            ]
        ),
        [T, 7, 0xFFFF_FF80, 0xFFFF_FF80]
    );
    assert_eq!(
        eval(
            "ubit_insert",
            &[[8, 0, 8, 4], [8, 8, 28, 0], splat(0xAB), splat(0x1111_1111)]
        ),
        [0x1111_AB11, 0x1111_1111, 0xB111_1111, 0x1111_111B]
    );
    assert_eq!(
        eval("ubit_reverse", &[[0x1234_5678, 1, 0, T]]),
        [0x1E6A_2C48, 0x8000_0000, 0, T]
    );
    assert_eq!(eval("icbits", &[[0, 1, T, 0xF0F0]]), [0, 1, 32, 8]);
    assert_eq!(eval("ffb_lo", &[[0, 1, 0x80, 0x8000_0000]]), [T, 0, 7, 31]);
    assert_eq!(eval("ffb_hi", &[[0, 1, 0x80, 0x8000_0000]]), [T, 31, 24, 0]);
    assert_eq!(
        eval("ffb_shi", &[[0, T, 0xFFFF_FFFE, 0x100]]),
        [T, T, 31, 23]
    );
}

#[test]
fn sixty_four_bit_integers() {
    // Pairs (x = low, y = high) from .xy; results to .xy and .zw (amd-il.md §0.10).
    assert_eq!(eval("i64add", &[[T, 0, 0, 0], [1, 0, 0, 0]]), [0, 1, 0, 1]);
    assert_eq!(
        eval("i64shl", &[[0x8000_0000, 0, 0, 0], splat(1)]),
        [0, 1, 0, 1]
    );
    // 64-bit shifts use six bits of the amount: 65 & 63 = 1.
    assert_eq!(
        eval("u64shr", &[[0, 1, 0, 0], splat(65)]),
        [0x8000_0000, 0, 0x8000_0000, 0]
    );
    assert_eq!(eval("i64lt", &[[0, T, 0, 0], [0, 0, 0, 0]]), splat(T));
    assert_eq!(eval("u64lt", &[[0, T, 0, 0], [0, 0, 0, 0]]), splat(0));
}

#[test]
fn doubles() {
    let d = |x: f64| {
        let b = x.to_bits();
        [b as u32, (b >> 32) as u32, 0, 0]
    };
    let pair = |x: f64| {
        let b = x.to_bits();
        [b as u32, (b >> 32) as u32, b as u32, (b >> 32) as u32]
    };
    assert_eq!(eval("dadd", &[d(1.5), d(2.25)]), pair(3.75));
    assert_eq!(eval("dmul", &[d(1.5), d(-2.0)]), pair(-3.0));
    assert_eq!(eval("deq", &[d(1.5), d(1.5)]), splat(T));
    // Guide D_NE: NaN compares not-equal (true), unlike float NE.
    assert_eq!(eval("dne", &[d(f64::NAN), d(1.0)]), splat(T));
    assert_eq!(eval("d2f", &[d(0.1)]), splat(0.1f32.to_bits()));
    assert_eq!(eval("f2d", &[f4([0.5, 0.0, 0.0, 0.0])]), pair(0.5));
}

/// A double in `.xy`, zeros in `.zw`.
fn double_xy(x: f64) -> [u32; 4] {
    let b = x.to_bits();
    [b as u32, (b >> 32) as u32, 0, 0]
}

/// A double in both `.xy` and `.zw`, as the double instructions write it without a mask.
fn double_pair(x: f64) -> [u32; 4] {
    let b = x.to_bits();
    [b as u32, (b >> 32) as u32, b as u32, (b >> 32) as u32]
}

/// A 64-bit integer in `.xy`, zeros in `.zw`.
fn int64_xy(x: i64) -> [u32; 4] {
    [x as u32, (x >> 32) as u32, 0, 0]
}

/// A 64-bit integer in both halves.
fn int64_pair(x: i64) -> [u32; 4] {
    [x as u32, (x >> 32) as u32, x as u32, (x >> 32) as u32]
}

#[test]
fn double_arithmetic_is_ieee() {
    // Guide DDIV, DSQRT: IEEE results; Rust's f64 operations are the reference.
    assert_eq!(
        eval("ddiv", &[double_xy(1.0), double_xy(3.0)]),
        double_pair(1.0 / 3.0)
    );
    assert_eq!(
        eval("ddiv", &[double_xy(-2.0), double_xy(0.0)]),
        double_pair(f64::NEG_INFINITY)
    );
    assert_eq!(eval("dsqrt", &[double_xy(2.0)]), double_pair(2f64.sqrt()));
    assert!(f64::from_bits(u64::from(eval("dsqrt", &[double_xy(-1.0)])[1]) << 32).is_nan());
    // Guide D_MULADD: a fused multiply-add from Evergreen on. (1 + 2^-30)(1 − 2^-30) − 1 is
    // −2^-60 exactly; rounding the product first would give 0.
    let e = 2f64.powi(-30);
    assert_eq!(
        eval(
            "dmad",
            &[double_xy(1.0 + e), double_xy(1.0 - e), double_xy(-1.0)]
        ),
        double_pair(-(2f64.powi(-60)))
    );
}

#[test]
fn double_compares_min_max_and_conversions() {
    assert_eq!(eval("dlt", &[double_xy(1.0), double_xy(2.0)]), splat(T));
    assert_eq!(
        eval("dlt", &[double_xy(f64::NAN), double_xy(2.0)]),
        splat(0)
    );
    assert_eq!(eval("dge", &[double_xy(2.0), double_xy(2.0)]), splat(T));
    assert_eq!(
        eval("dge", &[double_xy(f64::NAN), double_xy(f64::NAN)]),
        splat(0)
    );
    // Guide D_EQ: +0 equals −0; NaN equals nothing.
    assert_eq!(eval("deq", &[double_xy(0.0), double_xy(-0.0)]), splat(T));
    assert_eq!(
        eval("deq", &[double_xy(f64::NAN), double_xy(f64::NAN)]),
        splat(0)
    );
    // Guide D_MAX / D_MIN: IEEE-754-2008, a NaN operand loses.
    assert_eq!(
        eval("dmax", &[double_xy(f64::NAN), double_xy(1.0)]),
        double_pair(1.0)
    );
    assert_eq!(
        eval("dmin", &[double_xy(1.0), double_xy(f64::NAN)]),
        double_pair(1.0)
    );
    assert_eq!(
        eval("dmin", &[double_xy(-3.5), double_xy(2.0)]),
        double_pair(-3.5)
    );
    // Guide D2F: round to nearest even, overflow to infinity, tiny results to a signed zero.
    assert_eq!(
        eval("d2f", &[double_xy(1e300)]),
        splat(f32::INFINITY.to_bits())
    );
    assert_eq!(
        eval("d2f", &[double_xy(-1e-50)]),
        splat((-0.0f32).to_bits())
    );
    assert_eq!(
        eval("d2f", &[double_xy(1.0 + 2f64.powi(-24))]),
        splat(1.0f32.to_bits())
    );
    assert_eq!(
        eval("f2d", &[f4([-3.25, 0.0, 0.0, 0.0])]),
        double_pair(-3.25)
    );
}

#[test]
fn doubles_honour_masks_swizzles_and_modifiers() {
    // Results go to .xy or .zw (guide §7.2.5); sources are .xy after the swizzle.
    assert_eq!(
        eval_masked("dadd", ".__zw", &[double_xy(1.0), double_xy(2.0)]),
        [
            UNTOUCHED,
            UNTOUCHED,
            3.0f64.to_bits() as u32,
            (3.0f64.to_bits() >> 32) as u32
        ]
    );
    let two_doubles = {
        let (a, b) = (0.25f64.to_bits(), 8.0f64.to_bits());
        [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]
    };
    assert_eq!(
        eval_operands(
            "dmul",
            "",
            &[two_doubles, double_xy(2.0)],
            &["l0.zwzw".to_string(), "l1".to_string()]
        ),
        double_pair(16.0)
    );
    // The negate modifier flips the sign of the high dword only (guide §2.2.7): 1 + 2^-40 has a
    // non-zero low dword, which must not be two's-complemented.
    let x = 1.0 + 2f64.powi(-40);
    assert_eq!(
        eval_operands(
            "dadd",
            "",
            &[double_xy(0.0), double_xy(x)],
            &["l0".to_string(), "l1_neg(xyzw)".to_string()]
        ),
        double_pair(-x)
    );
    // Compares and d2f write their 32-bit result to the enabled components only.
    assert_eq!(
        eval_masked("dlt", "._y__", &[double_xy(1.0), double_xy(2.0)]),
        [UNTOUCHED, T, UNTOUCHED, UNTOUCHED]
    );
    assert_eq!(
        eval_masked("d2f", ".__z_", &[double_xy(0.5)]),
        [UNTOUCHED, UNTOUCHED, 0.5f32.to_bits(), UNTOUCHED]
    );
}

#[test]
fn sixty_four_bit_integer_negate_shifts_min_max_compares() {
    assert_eq!(eval("i64negate", &[int64_xy(1)]), int64_pair(-1));
    assert_eq!(
        eval("i64negate", &[int64_xy(i64::MIN)]),
        int64_pair(i64::MIN)
    );
    // Arithmetic and logical right shifts; the amount's low six bits (guide §7.7, §7.8).
    assert_eq!(
        eval("i64shr", &[int64_xy(i64::MIN), splat(4)]),
        int64_pair(i64::MIN >> 4)
    );
    assert_eq!(
        eval("u64shr", &[int64_xy(i64::MIN), splat(4)]),
        int64_pair(1i64 << 59)
    );
    assert_eq!(
        eval("i64shl", &[int64_xy(3), splat(64 + 40)]),
        int64_pair(3 << 40)
    );
    assert_eq!(eval("i64max", &[int64_xy(-1), int64_xy(1)]), int64_pair(1));
    assert_eq!(eval("i64min", &[int64_xy(-1), int64_xy(1)]), int64_pair(-1));
    assert_eq!(eval("u64max", &[int64_xy(-1), int64_xy(1)]), int64_pair(-1));
    assert_eq!(eval("u64min", &[int64_xy(-1), int64_xy(1)]), int64_pair(1));
    // Compares see the high dword: 2^32 > 1 although its low dword is 0.
    assert_eq!(eval("i64ge", &[int64_xy(1 << 32), int64_xy(1)]), splat(T));
    assert_eq!(eval("i64ge", &[int64_xy(-1), int64_xy(0)]), splat(0));
    assert_eq!(eval("u64ge", &[int64_xy(-1), int64_xy(0)]), splat(T));
    assert_eq!(eval("i64eq", &[int64_xy(5 << 32), int64_xy(5)]), splat(0));
    assert_eq!(eval("i64ne", &[int64_xy(5 << 32), int64_xy(5)]), splat(T));
}

#[test]
fn the_parsed_helper_program_is_compute() {
    // Guard for the helpers: the eval program is an il_cs program of five declarations.
    let p = parse("il_cs_2_0\nend\n");
    assert_eq!(p.shader, il_model::ShaderKind::Compute);
}
