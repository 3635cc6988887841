// A subroutine that calls another subroutine: both return early, so both are IL functions and
// the inner one is created while the outer one is being lowered.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

uint inner(uint v) {
    if (v > 100u) {
        return 100u;
    }
    return v * 2u;
}

uint outer(uint v) {
    if (v == 0u) {
        return 7u;
    }
    return inner(v) + inner(v + 1u);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    values[i] = outer(values[i]);
}
