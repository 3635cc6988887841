// bitfieldInsert with a dynamic count (32 replaces the whole value) and a constant count; IL takes
// (count, offset, insert, base).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uvec4 b[]; };
layout(std430, set = 0, binding = 2) readonly buffer FBuffer { uvec2 f[]; };
layout(std430, set = 0, binding = 3) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 base = a[i];
    uvec4 insert = b[i];
    int offset = int(f[i].x % 33u);
    int bits = int(min(f[i].y % 33u, 32u - uint(offset)));
    r[i * 2u] = bitfieldInsert(base, insert, offset, bits);
    r[i * 2u + 1u] = bitfieldInsert(base, insert, 12, 7);
}
