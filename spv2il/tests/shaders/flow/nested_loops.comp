// Nested loops where the inner loop leaves both loops through a flag, and a do-while whose
// back edge is conditional.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = values[i];
    uint count = 0u;
    bool done = false;
    for (uint a = 0u; a < 8u && !done; a++) {
        for (uint b = 0u; b < 8u; b++) {
            count += (v >> (a + b)) & 1u;
            if (count > 5u) {
                done = true;
                break;
            }
        }
    }
    uint n = 0u;
    do {
        n += 3u;
    } while (n < (v & 15u));
    values[i] = count * 100u + n;
}
