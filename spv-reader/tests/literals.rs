//! Number literals print exactly as `spirv-dis --raw-id` 2025.5 prints them: signed and
//! unsigned integers of 8 to 64 bits, `%.9g`/`%.17g` for normal 32/64-bit floats and zeros,
//! hex floats for 16-bit floats, denormals, infinities and NaNs. The module was written with
//! `spirv-as` from constants chosen for these cases; the expected lines are `spirv-dis`'s
//! output for it, copied verbatim.

use spv_reader::spirv::Op;

/// Float16/Float64/Int64/Int16/Int8 capabilities, the numeric types %1 to %10 and 25
/// OpConstants.
const MODULE: &[u32] = &[
    0x07230203, 0x00010600, 0x00070000, 0x00000024, 0x00000000, 0x00020011, 0x00000001, 0x00020011,
    0x00000009, 0x00020011, 0x0000000a, 0x00020011, 0x0000000b, 0x00020011, 0x00000016, 0x00020011,
    0x00000027, 0x0003000e, 0x00000000, 0x00000001, 0x00030016, 0x00000001, 0x00000010, 0x00030016,
    0x00000002, 0x00000020, 0x00030016, 0x00000003, 0x00000040, 0x00040015, 0x00000004, 0x00000008,
    0x00000001, 0x00040015, 0x00000005, 0x00000008, 0x00000000, 0x00040015, 0x00000006, 0x00000010,
    0x00000001, 0x00040015, 0x00000007, 0x00000020, 0x00000001, 0x00040015, 0x00000008, 0x00000020,
    0x00000000, 0x00040015, 0x00000009, 0x00000040, 0x00000001, 0x00040015, 0x0000000a, 0x00000040,
    0x00000000, 0x0004002b, 0x00000001, 0x0000000b, 0x00003e00, 0x0004002b, 0x00000001, 0x0000000c,
    0x0000ae66, 0x0004002b, 0x00000001, 0x0000000d, 0x00000010, 0x0004002b, 0x00000002, 0x0000000e,
    0x7f800000, 0x0004002b, 0x00000002, 0x0000000f, 0xff800000, 0x0004002b, 0x00000002, 0x00000010,
    0x7fc00000, 0x0004002b, 0x00000002, 0x00000011, 0x00000001, 0x0004002b, 0x00000002, 0x00000012,
    0x4ceb79a3, 0x0005002b, 0x00000003, 0x00000013, 0x9999999a, 0x3fb99999, 0x0005002b, 0x00000003,
    0x00000014, 0x8800759c, 0x7e37e43c, 0x0004002b, 0x00000004, 0x00000015, 0xfffffffb, 0x0004002b,
    0x00000005, 0x00000016, 0x000000fa, 0x0004002b, 0x00000006, 0x00000017, 0xfffffed4, 0x0004002b,
    0x00000007, 0x00000018, 0xfffffff9, 0x0004002b, 0x00000008, 0x00000019, 0xffffffff, 0x0005002b,
    0x00000009, 0x0000001a, 0xe78ee600, 0xfffffffd, 0x0005002b, 0x0000000a, 0x0000001b, 0xc5080000,
    0xf9ccd8a1, 0x0004002b, 0x00000002, 0x0000001c, 0x80000000, 0x0004002b, 0x00000002, 0x0000001d,
    0x3727c5ac, 0x0004002b, 0x00000002, 0x0000001e, 0x4cbebc20, 0x0004002b, 0x00000002, 0x0000001f,
    0x38d1b717, 0x0005002b, 0x00000003, 0x00000020, 0x00000000, 0x7ff00000, 0x0004002b, 0x00000001,
    0x00000021, 0x00007c00, 0x0004002b, 0x00000001, 0x00000022, 0x00007bff, 0x0004002b, 0x00000002,
    0x00000023, 0x7f800001,
];

/// `spirv-dis --raw-id` 2025.5 on `MODULE`, its OpConstant lines.
const EXPECTED: &[&str] = &[
    "%11 = OpConstant %1 0x1.8p+0",
    "%12 = OpConstant %1 -0x1.998p-4",
    "%13 = OpConstant %1 0x1p-20",
    "%14 = OpConstant %2 0x1p+128",
    "%15 = OpConstant %2 -0x1p+128",
    "%16 = OpConstant %2 0x1.8p+128",
    "%17 = OpConstant %2 0x1p-149",
    "%18 = OpConstant %2 123456792",
    "%19 = OpConstant %3 0.10000000000000001",
    "%20 = OpConstant %3 1.0000000000000001e+300",
    "%21 = OpConstant %4 -5",
    "%22 = OpConstant %5 250",
    "%23 = OpConstant %6 -300",
    "%24 = OpConstant %7 -7",
    "%25 = OpConstant %8 4294967295",
    "%26 = OpConstant %9 -9000000000",
    "%27 = OpConstant %10 18000000000000000000",
    "%28 = OpConstant %2 -0",
    "%29 = OpConstant %2 9.99999975e-06",
    "%30 = OpConstant %2 100000000",
    "%31 = OpConstant %2 9.99999975e-05",
    "%32 = OpConstant %3 0x1p+1024",
    "%33 = OpConstant %1 0x1p+16",
    "%34 = OpConstant %1 0x1.ffcp+15",
    "%35 = OpConstant %2 0x1.000002p+128",
];

#[test]
fn number_literals_print_as_spirv_dis_does() {
    let m = spv_reader::read_words(MODULE).expect("the literal module reads");
    let lines: Vec<String> = m
        .instructions()
        .filter(|i| i.opcode() == Some(Op::Constant))
        .map(|i| i.to_string())
        .collect();
    assert_eq!(lines, EXPECTED);
}
