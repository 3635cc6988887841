// A called function with early returns becomes an IL subroutine (func/call/ret_dyn); it is
// called twice with different pointer arguments, so two instances exist.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

uint classify(uint v, inout uint steps) {
    if (v == 0u) {
        return 100u;
    }
    for (uint k = 0u; k < 8u; k++) {
        steps += 1u;
        if ((v & (1u << k)) != 0u) {
            return k;
        }
    }
    return 200u;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint a = 0u;
    uint b = 5u;
    uint first = classify(values[i], a);
    uint second = classify(values[i] >> 8, b);
    values[i] = first + 1000u * second + 100000u * (a + b);
}
