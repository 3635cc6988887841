// sin and cos (sin_vec/cos_vec, absolute error up to 8e-4), tan as sin/cos, radians and degrees.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    r[i * 5u] = sin(x);
    r[i * 5u + 1u] = cos(x);
    r[i * 5u + 2u] = tan(x);
    r[i * 5u + 3u] = radians(x);
    r[i * 5u + 4u] = degrees(x);
}
