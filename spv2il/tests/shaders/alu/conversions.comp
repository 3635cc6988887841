// Float to int and uint (truncating), int and uint to float, bool to int and float.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    ivec4 y = b[i];
    r[i * 4u] = vec4(ivec4(x));
    r[i * 4u + 1u] = vec4(uvec4(abs(x)));
    r[i * 4u + 2u] = vec4(y) + vec4(uvec4(y));
    r[i * 4u + 3u] = vec4(greaterThan(x, vec4(0.0))) + vec4(ivec4(lessThan(y, ivec4(0))));
}
