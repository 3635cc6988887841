// modf (ModfStruct: fraction and whole, both with the sign of x), frexp (FrexpStruct from the
// bits) and ldexp (two exact power-of-two factors).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 whole;
    vec4 fraction = modf(x, whole);
    ivec4 e;
    vec4 significand = frexp(x, e);
    r[i * 5u] = fraction;
    r[i * 5u + 1u] = whole;
    r[i * 5u + 2u] = significand;
    r[i * 5u + 3u] = vec4(e);
    r[i * 5u + 4u] = ldexp(x, clamp(b[i], -140, 140));
}
