// Signed division and remainder (OpSDiv; OpSMod, which glslang emits for %) emulated with
// udiv/umod on magnitudes and a sign fix.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { ivec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { ivec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    // Defined operands only: no zero divisor, no INT_MIN / -1 (x >> 1 is never INT_MIN), and
    // for % no negative operand (GLSL leaves those undefined; glslang emits OpSMod, which
    // lavapipe computes as a truncated remainder when the signs differ).
    ivec4 x = a[i] >> 1;
    ivec4 y = b[i] | 1;
    r[i * 2u] = x / y;
    r[i * 2u + 1u] = (x & 0x3FFFFFFF) % (y & 0x7FFF);
}
