// pow = exp2(y * log2 x), exp, log, exp2, log2, sqrt and inversesqrt with the per-component _vec
// forms.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    // pow(0, y) for y <= 0 is undefined; x^y stays below the float range.
    vec4 x = abs(a[i]) + 0.25;
    vec4 y = b[i];
    r[i * 7u] = pow(x, y * 0.015625);
    r[i * 7u + 1u] = exp(y);
    r[i * 7u + 2u] = log(x);
    r[i * 7u + 3u] = exp2(y);
    r[i * 7u + 4u] = log2(x);
    r[i * 7u + 5u] = sqrt(x);
    r[i * 7u + 6u] = inversesqrt(x);
}
