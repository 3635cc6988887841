// A private array of 4096 elements plus the temporaries around it needs more than the 4096
// temporary registers IL gives a program (amd-il.md §8.5): refused as not supported.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint big[4096];
    big[i & 4095u] = values[i];
    values[i] = big[(i * 7u) & 4095u];
}
