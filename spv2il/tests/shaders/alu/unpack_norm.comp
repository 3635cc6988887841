// unpackSnorm4x8, unpackUnorm4x8, unpackSnorm2x16, unpackUnorm2x16: low bits to component 0; snorm
// clamps to [-1, 1].
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uint a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint p = a[i];
    r[i * 3u] = unpackSnorm4x8(p);
    r[i * 3u + 1u] = unpackUnorm4x8(p);
    r[i * 3u + 2u] = vec4(unpackSnorm2x16(p), unpackUnorm2x16(p));
}
