// Bit casts between float, int and uint (OpBitcast): the bits are not touched.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uvec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    r[i * 3u] = floatBitsToUint(a[i]);
    r[i * 3u + 1u] = uvec4(floatBitsToInt(a[i]) + 1);
    // The random bits become a float in [1, 2) first: other patterns can be denormals or NaNs.
    r[i * 3u + 2u] = floatBitsToUint(uintBitsToFloat((b[i] & 0x007FFFFFu) | 0x3F800000u) * 2.0);
}
