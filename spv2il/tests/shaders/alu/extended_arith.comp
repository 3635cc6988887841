// uaddCarry, usubBorrow (icarry/iborrow: 1 or 0), umulExtended and imulExtended
// (umul_high/imul_high): two-member struct results.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uvec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 x = a[i];
    uvec4 y = b[i];
    uvec4 carry;
    uvec4 sum = uaddCarry(x, y, carry);
    uvec4 borrow;
    uvec4 difference = usubBorrow(x, y, borrow);
    uvec4 high;
    uvec4 low;
    umulExtended(x, y, high, low);
    ivec4 shigh;
    ivec4 slow;
    imulExtended(ivec4(x), ivec4(y), shigh, slow);
    r[i * 8u] = sum;
    r[i * 8u + 1u] = carry;
    r[i * 8u + 2u] = difference;
    r[i * 8u + 3u] = borrow;
    r[i * 8u + 4u] = high;
    r[i * 8u + 5u] = low;
    r[i * 8u + 6u] = uvec4(shigh);
    r[i * 8u + 7u] = uvec4(slow);
}
