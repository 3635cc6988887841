// An early return from the entry point inside a loop.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= 1000u) {
        return;
    }
    uint v = values[i];
    while (v > 1u) {
        if (v == 77u) {
            values[i] = 0xDEADu;
            return;
        }
        v = (v & 1u) != 0u ? 3u * v + 1u : v / 2u;
    }
    values[i] = v;
}
