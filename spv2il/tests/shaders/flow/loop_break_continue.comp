// A counted loop with continue and an early break: sums the values below 1000 among the next
// 16 elements, stopping at the first zero.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint sum = 0u;
    for (uint k = 0u; k < 16u; k++) {
        uint v = src[(i + k) & 1023u];
        if (v == 0u) {
            break;
        }
        if (v >= 1000u) {
            continue;
        }
        sum += v;
    }
    dst[i] = sum;
}
