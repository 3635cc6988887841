// GLSL mod() is OpFMod: x - y * floor(x / y), the sign of the divisor.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    r[i * 2u] = mod(a[i], b[i]);
    r[i * 2u + 1u] = mod(a[i], 2.5);
}
