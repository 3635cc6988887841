// Conversions with a 64-bit side: float <-> double, int and uint <-> double, double -> int64 and
// uint64, int64 and uint64 -> double and float, float -> int64 and uint64, and the bit casts.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { dvec2 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec2 b[]; };
layout(std430, set = 0, binding = 2) readonly buffer CBuffer { ivec4 c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer DBuffer { dvec4 d[]; };
layout(std430, set = 0, binding = 4) writeonly buffer FBuffer { vec4 f[]; };
layout(std430, set = 0, binding = 5) writeonly buffer IBuffer { i64vec4 n[]; };
layout(std430, set = 0, binding = 6) writeonly buffer JBuffer { ivec4 m[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    dvec2 x = a[i];
    vec2 y = b[i];
    ivec4 z = c[i];
    int64_t w = (int64_t(z.x) << 32) | int64_t(uint(z.y));
    uint64_t v = uint64_t(w) ^ (uint64_t(uint(z.z)) << 11);
    d[i * 3u] = dvec4(dvec2(y), double(z.x), double(uint(z.y)));
    d[i * 3u + 1u] = dvec4(double(w), double(v), double(int64_t(z.w)), double(uint64_t(uint(z.z))));
    d[i * 3u + 2u] = dvec4(int64BitsToDouble(doubleBitsToInt64(x.x) + 1l),
                           packDouble2x32(uvec2(z.xy)), uint64BitsToDouble(v & 0x7FEFFFFFFFFFFFFFul),
                           double(float(x.y)));
    f[i * 2u] = vec4(vec2(x), float(w), float(v));
    f[i * 2u + 1u] = vec4(float(int64_t(z.w)), float(uint64_t(uint(z.z)) * 12345ul), 0.0, 0.0);
    n[i * 2u] = i64vec4(int64_t(x.x * 1000.0lf), int64_t(y.x * 1099511627776.0), int64_t(uint64_t(abs(x.y) * 4.0e12lf)), int64_t(uint64_t(abs(y.y))));
    n[i * 2u + 1u] = i64vec4(int64_t(x.y), int64_t(y.y * 3.0), doubleBitsToInt64(x.y), int64_t(doubleBitsToUint64(x.x) >> 3));
    m[i * 2u] = ivec4(int(x.x * 1.0e6lf), int(uint(abs(x.y) * 1.0e6lf)), int(x.y), unpackDouble2x32(x.x).y);
    m[i * 2u + 1u] = ivec4(int(float(x.x) * 4.0), int(uint(abs(x.x))), ivec2(unpackDouble2x32(x.y)));
}
