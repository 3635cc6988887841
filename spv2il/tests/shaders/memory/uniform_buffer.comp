// A std140 uniform block read with constant and dynamic indices (constant buffer cb0).
#version 450
layout(local_size_x = 64) in;
layout(std140, set = 0, binding = 0) uniform Params {
    uint scale;
    uint bias;
    uvec4 table[16];
};
layout(std430, set = 0, binding = 1) buffer Data { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 entry = table[i & 15u];
    values[i] = values[i] * scale + bias + entry.y;
}
