// isnan and isinf as integer tests on the bits (float compares flush denormals).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    r[i * 2u] = uvec4(isnan(x));
    r[i * 2u + 1u] = uvec4(isinf(x));
}
