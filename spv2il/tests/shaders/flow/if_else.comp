// if/else on a value read from a buffer: odd values are tripled, even ones halved.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = values[i];
    if ((v & 1u) != 0u) {
        values[i] = v * 3u + 1u;
    } else {
        values[i] = v >> 1;
    }
}
