// findLSB (ffb_lo) and findMSB for uint (ffb_hi) and int (ffb_shi); IL counts from the MSB, so the
// index is 31 - r, keeping -1 for no bit.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { ivec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 x = a[i];
    r[i * 3u] = findLSB(x);
    r[i * 3u + 1u] = findMSB(x);
    r[i * 3u + 2u] = findMSB(ivec4(x));
}
