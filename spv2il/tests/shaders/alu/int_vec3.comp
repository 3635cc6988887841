// Operations on ivec3/vec3 values: three-component destinations and swizzles.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec3 x = a[i].xyz;
    ivec3 n = b[i].xyz;
    vec3 s = x * 2.0 + vec3(n);
    ivec3 q = n / ivec3(2, -3, 5);
    r[i] = vec4(s + vec3(q), 1.0);
}
