// Scalar (one-component) operands of the same operations: replicated swizzles and single-component
// writes.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { int b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    int n = b[i];
    r[i * 2u] = vec4(sqrt(abs(x)), x / 3.0, floor(x) + fract(x), float(n / 4 + (n & 0xFFFF) % 3));
    r[i * 2u + 1u] = vec4(float(n << 2), float(findMSB(n)), exp2(x), min(x, 2.0));
}
