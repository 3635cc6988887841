// packHalf2x16 (f2f16) and unpackHalf2x16 (f162f of each half).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec2 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uint b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint packed = packHalf2x16(a[i]);
    r[i] = vec4(uintBitsToFloat(packed), 0.0, unpackHalf2x16(b[i]));
}
