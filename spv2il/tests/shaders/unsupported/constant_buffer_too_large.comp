// A uniform buffer of 4097 vec4 (65,552 bytes) is larger than an IL constant buffer's 4096
// elements (amd-il.md §8.5): refused at its variable. (It was once declared as cb0[4097].)
#version 450
layout(local_size_x = 64) in;
layout(std140, set = 0, binding = 0) uniform Table { vec4 rows[4097]; };
layout(std430, set = 0, binding = 1) buffer Out { vec4 values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    values[i] = rows[i % 4097u];
}
