// bitfieldExtract, unsigned and signed, with a dynamic count (including 32, special-cased because
// IL widths have five bits) and constant counts.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer FBuffer { uvec2 f[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 x = a[i];
    int offset = int(f[i].x % 33u);
    int bits = int(min(f[i].y % 33u, 32u - uint(offset)));
    r[i * 4u] = bitfieldExtract(x, offset, bits);
    r[i * 4u + 1u] = uvec4(bitfieldExtract(ivec4(x), offset, bits));
    r[i * 4u + 2u] = bitfieldExtract(x, 4, 8);
    r[i * 4u + 3u] = uvec4(bitfieldExtract(ivec4(x), 0, 32));
}
