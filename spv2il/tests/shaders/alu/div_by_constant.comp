// Division and remainder by non-zero constants: no zero-divisor guard is needed; negative constant
// divisors exercise the sign fix.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { ivec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { ivec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 x = a[i];
    r[i * 4u] = x / 7;
    r[i * 4u + 1u] = (x & 0x7FFFFFFF) % 7; // GLSL leaves % of negative operands undefined
    r[i * 4u + 2u] = x / ivec4(-3, 5, -9, 11);
    r[i * 4u + 3u] = ivec4(uvec4(x) / 10u);
}
