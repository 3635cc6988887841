// dot() on vec2, vec3 and vec4 (dp2/dp3/dp4_ieee) and vector times scalar.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    r[i * 2u] = vec4(dot(x.xy, y.xy), dot(x.xyz, y.xyz), dot(x, y), 0.0);
    r[i * 2u + 1u] = x * y.w;
}
