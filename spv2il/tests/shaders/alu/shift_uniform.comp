// Shifts by a replicated amount: a scalar, a constant and a splat vector (one IL instruction
// each); >> on int is arithmetic.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { ivec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer SBuffer { uint s[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { ivec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 x = a[i];
    uint n = s[i] & 31u;
    r[i * 4u] = x << n;
    r[i * 4u + 1u] = x >> n;
    r[i * 4u + 2u] = ivec4(uvec4(x) >> 3u);
    r[i * 4u + 3u] = x << ivec4(5);
}
