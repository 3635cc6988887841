// Function calls: a value-returning helper, an inout parameter (passed as a pointer), and a
// helper that touches a storage buffer itself.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

uint mix3(uint a, uint b) {
    return a * 3u + (b ^ 0x5Au);
}

void bump(inout uint counter, uint amount) {
    counter += amount;
}

void store_twice(uint index, uint value) {
    values[index] = value + value;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = mix3(values[i], i);
    bump(v, 11u);
    bump(v, mix3(v, 2u));
    store_twice(i, v);
}
