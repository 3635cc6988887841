// Signed and unsigned integer comparisons; the booleans are stored as 0/1 through OpSelect.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { ivec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 x = a[i];
    ivec4 y = b[i];
    uvec4 ux = uvec4(x);
    uvec4 uy = uvec4(y);
    r[i * 10u] = uvec4(lessThan(x, y));
    r[i * 10u + 1u] = uvec4(lessThanEqual(x, y));
    r[i * 10u + 2u] = uvec4(greaterThan(x, y));
    r[i * 10u + 3u] = uvec4(greaterThanEqual(x, y));
    r[i * 10u + 4u] = uvec4(equal(x, y));
    r[i * 10u + 5u] = uvec4(notEqual(x, y));
    r[i * 10u + 6u] = uvec4(lessThan(ux, uy));
    r[i * 10u + 7u] = uvec4(lessThanEqual(ux, uy));
    r[i * 10u + 8u] = uvec4(greaterThan(ux, uy));
    r[i * 10u + 9u] = uvec4(greaterThanEqual(ux, uy));
}
