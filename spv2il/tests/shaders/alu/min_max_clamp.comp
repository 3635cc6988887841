// min, max and clamp for float (min_ieee/max_ieee/clamp), int and uint.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) readonly buffer CBuffer { ivec4 c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    ivec4 n = c[i];
    uvec4 u = uvec4(n);
    r[i * 6u] = min(x, y);
    r[i * 6u + 1u] = max(x, y);
    r[i * 6u + 2u] = clamp(x, -1.0, 1.0);
    r[i * 6u + 3u] = vec4(min(n, ivec4(3))) + vec4(max(n, -ivec4(y)));
    r[i * 6u + 4u] = vec4(min(u, uvec4(9u))) + vec4(max(u, uvec4(abs(y))));
    r[i * 6u + 5u] = vec4(clamp(n, -5, 5)) + vec4(clamp(u, 2u, 100u));
}
