// bitfieldReverse (ubit_reverse) and bitCount (icbits).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 x = a[i];
    r[i * 3u] = bitfieldReverse(x);
    r[i * 3u + 1u] = uvec4(bitCount(x));
    r[i * 3u + 2u] = uvec4(bitCount(ivec4(x)));
}
