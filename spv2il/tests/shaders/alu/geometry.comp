// length, distance, normalize (x / length(x)) and cross (two instructions on swizzles).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    r[i * 3u] = vec4(length(x), length(x.xy), distance(x, y), length(x.z));
    r[i * 3u + 1u] = normalize(x);
    r[i * 3u + 2u] = vec4(cross(x.xyz, y.xyz), 0.0);
}
