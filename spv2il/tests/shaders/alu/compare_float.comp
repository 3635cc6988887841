// Ordered float comparisons and GLSL's != (OpFUnordNotEqual, true for NaN, as inot(eq)).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    r[i * 6u] = uvec4(lessThan(x, y));
    r[i * 6u + 1u] = uvec4(lessThanEqual(x, y));
    r[i * 6u + 2u] = uvec4(greaterThan(x, y));
    r[i * 6u + 3u] = uvec4(greaterThanEqual(x, y));
    r[i * 6u + 4u] = uvec4(equal(x, y));
    r[i * 6u + 5u] = uvec4(notEqual(x, y));
}
