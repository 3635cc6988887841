// Bitwise and, or, xor and not on uvec4.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uvec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 x = a[i];
    uvec4 y = b[i];
    r[i * 4u] = x & y;
    r[i * 4u + 1u] = x | y;
    r[i * 4u + 2u] = x ^ y;
    r[i * 4u + 3u] = ~x;
}
