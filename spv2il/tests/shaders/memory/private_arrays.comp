// Private arrays as indexed temporaries: a constant kernel indexed dynamically, a local array
// written and read with dynamic indices, and a module-scope (Private) array. Neighbours are read
// from an input buffer that nobody writes, so the result does not depend on scheduling.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint inputs[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint values[]; };

const uint weights[5] = uint[](1u, 4u, 6u, 4u, 1u);
uint history[4];

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint window[5];
    for (uint k = 0u; k < 5u; k++) {
        window[k] = inputs[(i + k) & 1023u];
    }
    uint sum = 0u;
    for (uint k = 0u; k < 5u; k++) {
        sum += window[k] * weights[k];
    }
    history[i & 3u] = sum;
    history[(i + 1u) & 3u] = sum + 1u;
    values[i] = history[i & 3u] + history[(i + 1u) & 3u];
}
