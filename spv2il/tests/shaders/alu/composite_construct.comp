// Vector construction from scalars, vectors and constants: re-labelled components when all come
// from one register, else one mov per source register.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    r[i * 4u] = vec4(x.xy, y.zw);
    r[i * 4u + 1u] = vec4(x.w, 1.0, 2.0, y.x);
    r[i * 4u + 2u] = vec4(vec3(x.z), 5.0);
    r[i * 4u + 3u] = vec4(vec2(x.x, y.y), vec2(3.0, 4.0));
}
