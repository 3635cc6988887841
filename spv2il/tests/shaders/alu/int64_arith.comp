// 64-bit integer arithmetic: add, subtract, multiply, negate, shifts, bitwise operations,
// compares, min/max/abs/sign/clamp and the 32 <-> 64-bit conversions, on int64_t and uint64_t.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { i64vec2 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { i64vec4 r[]; };
layout(std430, set = 0, binding = 3) writeonly buffer UBuffer { u64vec4 u[]; };
layout(std430, set = 0, binding = 4) writeonly buffer CBuffer { ivec4 c[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    i64vec2 x = a[i];
    ivec4 y = b[i];
    int64_t s = int64_t(y.x);
    uint64_t t = uint64_t(uint(y.y));
    r[i * 4u] = i64vec4(x + x.yx, x - x.yx);
    r[i * 4u + 1u] = i64vec4(x * x.yx, -x.x, x.y * int64_t(-3));
    r[i * 4u + 2u] = i64vec4(x.x << (y.z & 63), x.y >> (y.w & 63), s * 1000000007l, t << 17);
    r[i * 4u + 3u] = i64vec4(min(x.x, x.y), max(x.x, s), abs(x.y), sign(x.x) + clamp(s, -5l, 5l));
    uint64_t ux = uint64_t(x.x);
    u[i * 2u] = u64vec4(ux >> (y.z & 63), ~ux, ux & uint64_t(x.y), ux | t);
    u[i * 2u + 1u] = u64vec4(ux ^ t, min(ux, t), max(ux, uint64_t(x.y)), clamp(t, 10ul, 1000ul));
    c[i * 2u] = ivec4(int(x.x), int(x.y >> 32), int(x.x < x.y), int(ux < uint64_t(x.y)));
    c[i * 2u + 1u] = ivec4(int(x.x == s), int(x.y != s), int(x.x >= x.y), int(ux > t));
}
