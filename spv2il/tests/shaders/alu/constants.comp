// Constant operands: vector and scalar literals, splats and a vector constant used twice (one
// dcl_literal each).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    const vec4 weights = vec4(0.5, -1.25, 3.0, 8.0);
    vec4 x = a[i];
    r[i * 2u] = x * weights + weights.wzyx;
    r[i * 2u + 1u] = clamp(x, vec4(0.0), weights);
}
