// Shifts by per-component amounts: one IL instruction per component, because IL shift amounts must
// be one replicated scalar.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uvec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 x = a[i];
    uvec4 n = b[i] & 31u;
    r[i * 3u] = x << n;
    r[i * 3u + 1u] = x >> n;
    r[i * 3u + 2u] = uvec4(ivec4(x) >> ivec4(n));
}
