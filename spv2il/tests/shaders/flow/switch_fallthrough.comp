// A switch with fall-through, a shared arm and a default.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = values[i];
    uint r = 0u;
    switch (v & 7u) {
    case 0u:
        r += 10u;
    case 1u:
        r += 1u;
        break;
    case 2u:
    case 3u:
        r = 23u;
        break;
    default:
        r = v;
        break;
    }
    values[i] = r;
}
