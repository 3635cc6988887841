// packSnorm4x8, packUnorm4x8, packSnorm2x16, packUnorm2x16: component 0 in the low bits.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    r[i] = uvec4(packSnorm4x8(x), packUnorm4x8(x), packSnorm2x16(x.xy), packUnorm2x16(x.zw));
}
