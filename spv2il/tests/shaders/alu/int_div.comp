// Signed division and remainder (OpSDiv, and OpSMod, which glslang emits for %) emulated with udiv/umod on magnitudes; zero
// divisors and INT_MIN / -1 are undefined in SPIR-V and must not be fed by the differential
// tester.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { ivec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { ivec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 x = a[i];
    ivec4 y = b[i];
    r[i * 2u] = x / y;
    r[i * 2u + 1u] = x % y;
}
