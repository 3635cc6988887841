// GLSL functions on doubles written as formulas or bit operations: frexp, ldexp, modf,
// smoothstep, faceforward, reflect and refract. (Vulkan lets lavapipe assume there are no
// infinities, so modf of one is checked by the il-sim test of double_round instead.)
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { dvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec2 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { dvec4 r[]; };
layout(std430, set = 0, binding = 3) writeonly buffer EBuffer { ivec2 e[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    dvec4 x = a[i];
    ivec2 k = b[i] & 63;
    ivec2 exponents;
    dvec2 significands = frexp(x.xy, exponents);
    e[i] = exponents;
    dvec2 scaled = ldexp(x.zw, k - 31);
    double whole;
    double fraction = modf(x.w * 3.5lf, whole);
    r[i * 5u] = dvec4(significands, scaled);
    r[i * 5u + 1u] = dvec4(fraction, whole, modf(-x.y, whole), whole);
    r[i * 5u + 2u] = dvec4(smoothstep(-1.0lf, 2.0lf, x.xyz), 0.0lf);
    dvec3 n = normalize(x.yzw);
    r[i * 5u + 3u] = dvec4(faceforward(n, x.xyz, x.zxy), 1.0lf);
    r[i * 5u + 4u] = dvec4(reflect(x.xyz, n), refract(x.xy * 0.1lf, n.xy, 0.75lf).x);
}
