//! Scalar semantics of the ALU instructions, one function per rule of the AMD IL guide (v2.4,
//! Chapter 7), on raw 32-bit words. The executor applies them per component.
//!
//! Choices where the guide leaves a result undefined or contradicts itself are marked
//! **choice** and listed in the crate documentation.

use il_model::ZeroOp;

/// IEEE bits of 1.0f (what the `1` swizzle and `_x1` forced components insert, guide §2.2.7).
pub const ONE_F32: u32 = 0x3F80_0000;

/// All bits set: the IL boolean "true" (guide §7.2.1).
pub const TRUE: u32 = 0xFFFF_FFFF;

/// A compare result as an IL boolean.
pub fn boolean(b: bool) -> u32 {
    if b { TRUE } else { 0 }
}

/// Flushes an fp32 denormal to a zero of the same sign. The guide (§7.2.1): "denorms are flushed
/// before all float instructions (the original source registers remain untouched)"; Evergreen-era
/// parts also flush results (MAD page: "Denorms are flushed to zeros on input and output").
pub fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// A float input: the word as f32 with denormals flushed.
pub fn fin(bits: u32) -> f32 {
    ftz(f32::from_bits(bits))
}

/// A float result: denormals flushed, as a word.
pub fn fout(x: f32) -> u32 {
    ftz(x).to_bits()
}

/// DX9 multiply (`mul`/`mad`/`dp*` without `_ieee`): 0 · x = 0 even for x = Inf or NaN (guide MUL,
/// DP2 pages: "If the control field is 0, then 0*n = 0, even if n = NaN"). **choice**: the zero
/// takes the IEEE sign of the product (sign(a) xor sign(b)), as IEEE gives for finite x.
pub fn mul_dx9(a: f32, b: f32) -> f32 {
    if a == 0.0 || b == 0.0 {
        let negative = a.is_sign_negative() != b.is_sign_negative();
        if negative { -0.0 } else { 0.0 }
    } else {
        a * b
    }
}

/// `mul` or `mul_ieee` on flushed inputs.
pub fn mul(a: f32, b: f32, ieee: bool) -> f32 {
    if ieee { a * b } else { mul_dx9(a, b) }
}

/// `max[_ieee]` (guide MAX page): a NaN operand loses to the other operand; max(+0, −0) and
/// max(−0, +0) are +0; otherwise `a >= b ? a : b` (the guide: "MAX uses a greater-than-or-equal-to
/// comparison", so that min returns a exactly when max returns b). The `_ieee` form follows
/// IEEE-754r maxNum with flushed denormals, which on these rules gives the same results, so both
/// forms share this function.
pub fn max(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_positive() || b.is_sign_positive() {
            0.0
        } else {
            -0.0
        };
    }
    if a >= b { a } else { b }
}

/// `min[_ieee]` (guide MIN page): NaN loses; min(+0, −0) and min(−0, +0) are −0; otherwise
/// `a < b ? a : b`.
pub fn min(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() || b.is_sign_negative() {
            -0.0
        } else {
            0.0
        };
    }
    if a < b { a } else { b }
}

/// The value a `_zeroop` selects for a zero operand, before any sign is applied (guide DIV, RCP,
/// RSQ pages). `inf_else_max` "depends on IL implementation"; **choice**: infinity.
pub fn zeroop_value(op: ZeroOp) -> f32 {
    match op {
        ZeroOp::Zero => 0.0,
        ZeroOp::FltMax => f32::MAX,
        ZeroOp::Infinity | ZeroOp::InfElseMax => f32::INFINITY,
    }
}

/// `div_zeroop(z)` (guide DIV pseudo-code): a zero divisor (either sign) gives the zeroop value,
/// negated when the dividend is negative (`if (v1[i] < 0.0) f = -f`), so 0/0 is +value, not NaN.
pub fn div(a: f32, b: f32, op: ZeroOp) -> f32 {
    if b == 0.0 {
        let f = zeroop_value(op);
        if a < 0.0 { -f } else { f }
    } else {
        a / b
    }
}

/// `mod` (guide MOD pseudo-code): a zero divisor returns the dividend, otherwise
/// `a - b * trunc(a / b)` computed in single precision step by step.
pub fn fmod(a: f32, b: f32) -> f32 {
    if b == 0.0 { a } else { a - b * (a / b).trunc() }
}

/// `rcp_zeroop(z)` (guide RCP pseudo-code): 0 (either sign) gives the zeroop value unsigned;
/// 1.0 is returned exactly; otherwise 1/x.
pub fn rcp(x: f32, op: ZeroOp) -> f32 {
    if x == 0.0 {
        zeroop_value(op)
    } else if x == 1.0 {
        1.0
    } else {
        1.0 / x
    }
}

/// `rsq_zeroop(z)` (guide RSQ pseudo-code): 0 gives the zeroop value; negative is undefined
/// (**choice**: NaN); otherwise 1/√x.
pub fn rsq(x: f32, op: ZeroOp) -> f32 {
    if x == 0.0 {
        zeroop_value(op)
    } else if x < 0.0 {
        f32::NAN
    } else {
        1.0 / x.sqrt()
    }
}

/// `log_zeroop(z)` / `ln_zeroop(z)` (guide LOG, LN pseudo-code): 0 gives the negated zeroop value;
/// negative is undefined (**choice**: NaN). `natural` selects ln.
pub fn log(x: f32, op: ZeroOp, natural: bool) -> f32 {
    if x == 0.0 {
        -zeroop_value(op)
    } else if x < 0.0 {
        f32::NAN
    } else if natural {
        x.ln()
    } else {
        x.log2()
    }
}

/// `pow` (guide POWER pseudo-code): a negative base is undefined (**choice**: NaN); otherwise
/// exp2(b · log2 a), so 0^0 is NaN as the formula gives.
pub fn pow(a: f32, b: f32) -> f32 {
    if a < 0.0 {
        f32::NAN
    } else {
        (b * a.log2()).exp2()
    }
}

/// `sgn` (guide SGN pseudo-code): −1.0, 0.0 or 1.0; NaN is neither < 0 nor == 0, so 1.0.
pub fn sgn(x: f32) -> f32 {
    if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        1.0
    }
}

/// `frc` (guide FRC pseudo-code): `x - floor(x)`.
pub fn frc(x: f32) -> f32 {
    x - x.floor()
}

/// `rnd` (guide RND pseudo-code): `floor(x + 0.5)`, not round-half-even.
pub fn rnd(x: f32) -> f32 {
    (x + 0.5).floor()
}

/// `clamp` (guide CLAMP pseudo-code): raise to `lo` if below, then lower to `hi` if above; a NaN
/// input compares false both times and stays NaN.
pub fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    let mut v = x;
    if v < lo {
        v = lo;
    }
    if v > hi {
        v = hi;
    }
    v
}

/// `_sat` and the `clamp` source modifier: [0, 1], NaN → 0 (amd-il.md §7.2).
pub fn saturate(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// `ftoi` (guide FTOI): truncation toward zero; inputs outside [−2147483648.999, 2147483647.999]
/// and NaN are undefined. **choice**: saturate to the i32 range and map NaN to 0 (what AMD
/// hardware's conversion does).
pub fn ftoi(x: f32) -> u32 {
    // `as` saturates and maps NaN to 0.
    x as i32 as u32
}

/// `ftou` (guide FTOU): truncation; outside [0, 4294967296.999] undefined. **choice**: saturate,
/// NaN → 0.
pub fn ftou(x: f32) -> u32 {
    x as u32
}

/// `utof` (guide UTOF): the page says both "the nearest representable value is used" and
/// "rounding is performed towards zero". **choice**: round to nearest even (the first sentence,
/// and what the C cast it cites does).
pub fn utof(x: u32) -> f32 {
    x as f32
}

/// `itof`: signed integer to float, round to nearest even.
pub fn itof(x: u32) -> f32 {
    x as i32 as f32
}

/// `f_2_f16` (guide F_2_F16): the half-precision bits of `x` in the low 16 bits. Rounding is not
/// stated; **choice**: round to nearest even, overflow to infinity, NaN stays NaN (quiet).
pub fn f32_to_f16(x: f32) -> u32 {
    let bits = x.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let exp = ((bits >> 23) & 0xFF) as i32;
    let mant = bits & 0x7F_FFFF;
    if exp == 0xFF {
        let payload = if mant != 0 { 0x200 | (mant >> 13) } else { 0 };
        return sign | 0x7C00 | payload;
    }
    // Unbiased exponent; half normals have exponents -14..=15.
    let e = exp - 127;
    if e > 15 {
        return sign | 0x7C00;
    }
    if e >= -14 {
        // Normal half: 10 mantissa bits, round the 13 dropped bits to nearest even.
        let half = (((e + 15) as u32) << 10) | (mant >> 13);
        let rest = mant & 0x1FFF;
        let round_up = rest > 0x1000 || (rest == 0x1000 && half & 1 == 1);
        // A carry out of the mantissa correctly bumps the exponent (up to infinity).
        return sign | (half + u32::from(round_up));
    }
    if e < -25 {
        return sign;
    }
    // Subnormal half: value = m · 2^-24 with the implicit bit made explicit.
    let full = mant | 0x80_0000;
    let shift = (-14 - e + 13) as u32;
    let half = full >> shift;
    let rest = full & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    let round_up = rest > halfway || (rest == halfway && half & 1 == 1);
    sign | (half + u32::from(round_up))
}

/// `f16_2_f` (guide F16_2_F): the half in the low 16 bits as a float, exactly.
pub fn f16_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1F;
    let mant = h & 0x3FF;
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal half: m · 2^-24, exact in f32.
            let value = m as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -value } else { value };
        }
        (0x1F, 0) => sign | 0x7F80_0000,
        (0x1F, m) => sign | 0x7FC0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// `ubit_extract` (guide UBIT_EXTRACT pseudo-code, with the page's `^ 0x1F` read as `& 0x1F`):
/// width 0 gives 0; a field reaching bit 31 is a plain shift.
pub fn ubit_extract(width: u32, offset: u32, value: u32) -> u32 {
    let w = width & 31;
    let o = offset & 31;
    if w == 0 {
        0
    } else if w + o < 32 {
        (value << (32 - (w + o))) >> (32 - w)
    } else {
        value >> o
    }
}

/// `ibit_extract`: as [`ubit_extract`] with arithmetic shifts (sign-extended field).
pub fn ibit_extract(width: u32, offset: u32, value: u32) -> u32 {
    let w = width & 31;
    let o = offset & 31;
    let v = value as i32;
    let r = if w == 0 {
        0
    } else if w + o < 32 {
        (v << (32 - (w + o))) >> (32 - w)
    } else {
        v >> o
    };
    r as u32
}

/// `ubit_insert` (guide UBIT_INSERT pseudo-code, `src4` read as `src3`): width 0 returns `base`.
pub fn ubit_insert(width: u32, offset: u32, insert: u32, base: u32) -> u32 {
    let w = width & 31;
    let o = offset & 31;
    if w == 0 {
        return base;
    }
    let mask = ((((1u64 << w) - 1) << o) & 0xFFFF_FFFF) as u32;
    (((u64::from(insert) << o) as u32) & mask) | (base & !mask)
}

/// `ffb_lo`: index of the lowest set bit, 0xFFFFFFFF when none (guide IFIRSTBIT).
pub fn ffb_lo(x: u32) -> u32 {
    if x == 0 { TRUE } else { x.trailing_zeros() }
}

/// `ffb_hi`: the first set bit searching from the MSB, 0xFFFFFFFF when none. The guide does not
/// say how the position is numbered (amd-il.md §10.15). **choice**: counted from the MSB (DX11
/// `firstbit_hi`, the number of leading zeros), as AMD hardware's `ffbh` does.
pub fn ffb_hi(x: u32) -> u32 {
    if x == 0 { TRUE } else { x.leading_zeros() }
}

/// `ffb_shi`: for a negative value the first 0 from the MSB, else the first 1 (numbered as in
/// [`ffb_hi`]); 0 and −1 give 0xFFFFFFFF.
pub fn ffb_shi(x: u32) -> u32 {
    if x & 0x8000_0000 != 0 {
        ffb_hi(!x)
    } else {
        ffb_hi(x)
    }
}

/// Sign-extends the low 24 bits (the 24-bit multiplies ignore bits 31:24, guide IMUL24).
pub fn sext24(x: u32) -> i64 {
    i64::from(((x << 8) as i32) >> 8)
}

/// Low 24 bits, unsigned (guide UMUL24).
pub fn zext24(x: u32) -> u64 {
    u64::from(x & 0xFF_FFFF)
}

/// `udiv` (guide UDIV): the quotient; division by zero is unspecified. **choice**: 0xFFFFFFFF, the
/// D3D11 rule the IL mirrors.
pub fn udiv(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(TRUE)
}

/// `umod` (guide UMOD): the remainder; by zero unspecified. **choice**: 0xFFFFFFFF (D3D11).
pub fn umod(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(TRUE)
}

/// `bitalign` (guide §7.13): the low 32 bits of the 64-bit `a:b` shifted right by `s & 31`.
pub fn bitalign(a: u32, b: u32, s: u32) -> u32 {
    (((u64::from(a) << 32) | u64::from(b)) >> (s & 31)) as u32
}

/// `bytealign` (guide §7.13): `a:b` shifted right by 8 · (s & 3) bits.
pub fn bytealign(a: u32, b: u32, s: u32) -> u32 {
    (((u64::from(a) << 32) | u64::from(b)) >> (8 * (s & 3))) as u32
}

/// A 64-bit value from its low and high words (amd-il.md §0.10).
pub fn join64(lo: u32, hi: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

/// The low and high words of a 64-bit value.
pub fn split64(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

/// `d2f` (guide D2F): round to nearest even, overflow to infinity, denormal results to ±0.
pub fn d2f(x: f64) -> u32 {
    fout(x as f32)
}

/// IEEE-754-2008 maxNum for `dmax` (NaN loses).
pub fn dmax(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_positive() { a } else { b }
    } else if a >= b {
        a
    } else {
        b
    }
}

/// IEEE-754-2008 minNum for `dmin` (NaN loses).
pub fn dmin(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_negative() { a } else { b }
    } else if a < b {
        a
    } else {
        b
    }
}

/// The relational operator of `_relop(op)` applied to two floats (NaN compares false, except
/// `ne`, which is `!(a == b)` in the DX9-style `ifc`/`breakc`/`set`/`cmp` family).
pub fn relop(op: il_model::RelOp, a: f32, b: f32) -> bool {
    use il_model::RelOp;
    match op {
        RelOp::Eq => a == b,
        RelOp::Ne => a != b,
        RelOp::Gt => a > b,
        RelOp::Ge => a >= b,
        RelOp::Lt => a < b,
        RelOp::Le => a <= b,
    }
}

#[cfg(test)]
mod tests {
    //! Each expectation is worked out by hand from the guide page the function cites.
    use super::*;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn denormals_flush_to_signed_zero() {
        assert_eq!(fin(1), 0.0);
        assert!(fin(0x8000_0001).is_sign_negative());
        assert_eq!(fin(0x8000_0001), 0.0);
        assert_eq!(fout(f32::MIN_POSITIVE / 2.0), 0);
        assert_eq!(fin(f(1.5)), 1.5);
    }

    #[test]
    fn dx9_multiply_zero_beats_nan_and_inf() {
        assert_eq!(mul(0.0, f32::NAN, false), 0.0);
        assert_eq!(mul(f32::INFINITY, 0.0, false), 0.0);
        assert!(mul(-0.0, 3.0, false).is_sign_negative());
        assert!(mul(0.0, f32::NAN, true).is_nan());
        assert!(mul(f32::INFINITY, 0.0, true).is_nan());
        assert_eq!(mul(2.0, 3.0, false), 6.0);
    }

    #[test]
    fn min_max_nan_and_signed_zero_rules() {
        assert_eq!(max(f32::NAN, 2.0), 2.0);
        assert_eq!(max(2.0, f32::NAN), 2.0);
        assert_eq!(min(f32::NAN, -2.0), -2.0);
        assert!(max(0.0, -0.0).is_sign_positive());
        assert!(max(-0.0, 0.0).is_sign_positive());
        assert!(max(-0.0, -0.0).is_sign_negative());
        assert!(min(0.0, -0.0).is_sign_negative());
        assert!(min(-0.0, 0.0).is_sign_negative());
        assert!(min(0.0, 0.0).is_sign_positive());
        assert_eq!(max(1.0, 3.0), 3.0);
        assert_eq!(min(1.0, 3.0), 1.0);
        assert!(max(f32::NAN, f32::NAN).is_nan());
    }

    #[test]
    fn zeroop_division_follows_the_pseudo_code() {
        assert_eq!(div(1.0, 0.0, ZeroOp::FltMax), f32::MAX);
        assert_eq!(div(-1.0, 0.0, ZeroOp::FltMax), -f32::MAX);
        assert_eq!(div(-1.0, 0.0, ZeroOp::Infinity), f32::NEG_INFINITY);
        // The sign comes from the dividend only; 0/0 is not NaN.
        assert_eq!(div(1.0, -0.0, ZeroOp::Infinity), f32::INFINITY);
        assert_eq!(div(0.0, 0.0, ZeroOp::Infinity), f32::INFINITY);
        assert_eq!(div(5.0, 0.0, ZeroOp::Zero), 0.0);
        assert_eq!(div(6.0, 3.0, ZeroOp::Zero), 2.0);
        assert_eq!(rcp(0.0, ZeroOp::FltMax), f32::MAX);
        assert_eq!(rcp(-0.0, ZeroOp::Infinity), f32::INFINITY);
        assert_eq!(rcp(4.0, ZeroOp::Zero), 0.25);
        assert_eq!(rsq(0.0, ZeroOp::Zero), 0.0);
        assert_eq!(rsq(4.0, ZeroOp::Zero), 0.5);
        assert!(rsq(-4.0, ZeroOp::Zero).is_nan());
        assert_eq!(log(0.0, ZeroOp::FltMax, false), -f32::MAX);
        assert_eq!(log(0.0, ZeroOp::Infinity, true), f32::NEG_INFINITY);
        assert_eq!(log(8.0, ZeroOp::FltMax, false), 3.0);
    }

    #[test]
    fn mod_keeps_the_dividend_sign_and_returns_it_for_zero() {
        // Guide: mod(-1.7, 1.0) = -0.7 (in f32: -1.7 - 1.0 * trunc(-1.7) = -1.7 + 1.0).
        assert_eq!(fmod(-1.7, 1.0), -1.7f32 + 1.0);
        assert_eq!(fmod(7.0, 0.0), 7.0);
        assert_eq!(fmod(7.0, 2.0), 1.0);
        assert_eq!(fmod(-7.0, 2.0), -1.0);
    }

    #[test]
    fn rounding_family() {
        assert_eq!(rnd(2.5), 3.0);
        assert_eq!(rnd(-2.5), -2.0);
        assert_eq!(frc(-1.75), 0.25);
        assert_eq!(sgn(-3.0), -1.0);
        assert_eq!(sgn(-0.0), 0.0);
        assert_eq!(sgn(f32::NAN), 1.0);
        assert!(clamp(f32::NAN, 0.0, 1.0).is_nan());
        assert_eq!(clamp(5.0, 0.0, 1.0), 1.0);
        assert_eq!(saturate(f32::NAN), 0.0);
        assert_eq!(pow(2.0, 3.0), 8.0);
        assert!(pow(0.0, 0.0).is_nan());
        assert!(pow(-2.0, 2.0).is_nan());
    }

    #[test]
    fn conversions_saturate_and_round() {
        assert_eq!(ftoi(-1.9), (-1i32) as u32);
        assert_eq!(ftoi(3e9), i32::MAX as u32);
        assert_eq!(ftoi(-3e9), i32::MIN as u32);
        assert_eq!(ftoi(f32::NAN), 0);
        assert_eq!(ftou(-5.0), 0);
        assert_eq!(ftou(5e9), u32::MAX);
        assert_eq!(ftou(4.99), 4);
        // 16777217 is halfway between 16777216 and 16777218: nearest even is 16777216.
        assert_eq!(utof(16_777_217), 16_777_216.0);
        // 0xFFFFFFFF rounds up to 2^32 (not toward zero).
        assert_eq!(utof(u32::MAX), 4_294_967_296.0);
        assert_eq!(itof(0xFFFF_FFFF), -1.0);
    }

    #[test]
    fn half_conversions() {
        // Values checked against the IEEE binary16 table: 1.0 = 0x3C00, -2.0 = 0xC000,
        // 65504 = 0x7BFF (largest), 65520 rounds to infinity, 2^-24 = 0x0001 (smallest subnormal).
        assert_eq!(f32_to_f16(1.0), 0x3C00);
        assert_eq!(f32_to_f16(-2.0), 0xC000);
        assert_eq!(f32_to_f16(65504.0), 0x7BFF);
        assert_eq!(f32_to_f16(65520.0), 0x7C00);
        assert_eq!(f32_to_f16(2f32.powi(-24)), 0x0001);
        assert_eq!(f32_to_f16(2f32.powi(-26)), 0x0000);
        assert_eq!(f32_to_f16(f32::NEG_INFINITY), 0xFC00);
        assert_eq!(f32_to_f16(f32::NAN) & 0x7E00, 0x7E00);
        // 1 + 2^-11 is halfway between 1.0 and 1 + 2^-10: ties to even (1.0).
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3C00);
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3C02);
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7C00), f32::INFINITY);
        assert!(f16_to_f32(0x7E00).is_nan());
        for h in 0..0x7C00u32 {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "round trip of {h:#x}");
        }
    }

    #[test]
    fn bit_field_ops() {
        assert_eq!(ubit_extract(8, 4, 0x1234_5678), 0x67);
        assert_eq!(ubit_extract(0, 4, 0xFFFF_FFFF), 0);
        // Width and offset use five bits: 40 & 31 = 8, 36 & 31 = 4.
        assert_eq!(ubit_extract(40, 36, 0x1234_5678), 0x67);
        // width + offset ≥ 32: a plain shift.
        assert_eq!(ubit_extract(16, 24, 0xAB00_0000), 0xAB);
        assert_eq!(ibit_extract(4, 4, 0x0000_00F0), 0xFFFF_FFFF);
        assert_eq!(ibit_extract(4, 4, 0x0000_0070), 7);
        assert_eq!(ibit_extract(16, 24, 0x8000_0000), 0xFFFF_FF80);
        assert_eq!(ubit_insert(8, 8, 0xAB, 0x1111_1111), 0x1111_AB11);
        assert_eq!(ubit_insert(0, 8, 0xAB, 0x1111_1111), 0x1111_1111);
        assert_eq!(ubit_insert(8, 28, 0xFF, 0), 0xF000_0000);
        assert_eq!(0x1234_5678u32.reverse_bits(), 0x1E6A_2C48);
    }

    #[test]
    fn find_first_bit() {
        assert_eq!(ffb_lo(1), 0);
        assert_eq!(ffb_lo(0x80), 7);
        assert_eq!(ffb_lo(0), TRUE);
        assert_eq!(ffb_hi(1), 31);
        assert_eq!(ffb_hi(0x8000_0000), 0);
        assert_eq!(ffb_hi(0), TRUE);
        assert_eq!(ffb_shi(0xFFFF_FFFE), 31);
        assert_eq!(ffb_shi(0xFFFF_FFFF), TRUE);
        assert_eq!(ffb_shi(0), TRUE);
        assert_eq!(ffb_shi(0x0000_0100), 23);
    }

    #[test]
    fn integer_division_by_zero_and_24_bit_inputs() {
        assert_eq!(udiv(7, 2), 3);
        assert_eq!(udiv(7, 0), TRUE);
        assert_eq!(umod(7, 0), TRUE);
        assert_eq!(umod(7, 4), 3);
        assert_eq!(sext24(0x00FF_FFFF), -1);
        assert_eq!(sext24(0xFF00_0001), 1);
        assert_eq!(zext24(0xFFFF_FFFF), 0xFF_FFFF);
        assert_eq!(bitalign(0x1234_5678, 0x9ABC_DEF0, 8), 0x789A_BCDE);
        assert_eq!(bytealign(0x1234_5678, 0x9ABC_DEF0, 1), 0x789A_BCDE);
        assert_eq!(bytealign(0x1234_5678, 0x9ABC_DEF0, 4), 0x9ABC_DEF0);
    }

    #[test]
    fn doubles() {
        assert_eq!(d2f(1.0e300), f32::INFINITY.to_bits());
        assert_eq!(d2f(1.0e-45), 0);
        assert_eq!(dmax(f64::NAN, 1.0), 1.0);
        assert_eq!(dmin(2.0, f64::NAN), 2.0);
        assert!(dmin(0.0, -0.0).is_sign_negative());
        assert_eq!(join64(1, 2), 0x2_0000_0001);
        assert_eq!(split64(0x2_0000_0001), (1, 2));
    }
}
