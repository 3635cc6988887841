// OpSelect (cmov_logical): a vector condition through mix(a, b, bvec), and scalar conditions
// selecting scalars and vectors.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    bvec4 c = lessThan(x, y);
    r[i * 3u] = mix(x, y, c);
    r[i * 3u + 1u] = x.x < y.x ? x : y;
    r[i * 3u + 2u] = vec4(mix(y.z, x.z, x.y > 0.0), x.w >= y.w ? 1.0 : -1.0, 0.0, 1.0);
}
