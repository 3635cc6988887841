// 64-bit division and remainder, signed and unsigned (a shift-subtract loop in IL), with
// non-zero divisors of both signs and dividends that use the high dword. GLSL's % becomes OpSMod,
// which lavapipe computes as a truncated remainder when the signs differ, so its operands here
// are non-negative; mixed signs are checked by the reviewed snapshot.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { i64vec2 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec2 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { i64vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    i64vec2 x = a[i];
    ivec2 y = b[i];
    int64_t d = int64_t(y.x | 1) * int64_t(abs(y.y) % 1000 + 1000);
    int64_t n = (x.x >> 1) ^ (int64_t(y.y) << 40);
    uint64_t un = uint64_t(x.y);
    uint64_t ud = uint64_t(d) >> (uint(y.x) & 31u) | 1ul;
    i64vec2 pair = i64vec2(n, -n) / i64vec2(d, 7l);
    r[i * 2u] = i64vec4(pair, abs(n) % abs(d), int64_t(un / ud));
    r[i * 2u + 1u] = i64vec4(int64_t(un % ud), n / 3l, abs(n) % 9l, int64_t(un / 1000000007ul));
}
