// Integer add, subtract, multiply and negate on ivec4 (OpIAdd, OpISub, OpIMul, OpSNegate);
// wrapping is modulo 2^32.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { ivec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { ivec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 x = a[i];
    ivec4 y = b[i];
    r[i * 4u] = x + y;
    r[i * 4u + 1u] = x - y;
    r[i * 4u + 2u] = x * y;
    r[i * 4u + 3u] = -x;
}
