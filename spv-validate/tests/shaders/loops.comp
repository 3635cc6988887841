#version 450
// Nested loops with break/continue, a switch with fall-through, shared memory and a barrier.
// Every invocation owns one element of v (indexed by its flat position in the dispatch), so the
// result does not depend on how work-groups are scheduled.
layout(local_size_x = 32, local_size_y = 2) in;
layout(std430, set = 0, binding = 0) buffer Data { uint total; int v[]; };
shared int tile[64];
void main() {
    uint l = gl_LocalInvocationIndex;
    uint id = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + l;
    tile[l] = v[id];
    barrier();
    int acc = 0;
    for (int i = 0; i < 64; i++) {
        if (tile[i] < 0) continue;
        for (int j = 0; j < i; j++) {
            if (j == 7) break;
            acc += tile[j] & 3;
        }
        switch (tile[i] % 4) {
        case 0: acc += 1;
        case 1: acc += 2; break;
        case 2: acc -= 1; break;
        default: acc ^= 5;
        }
        if (acc > 1000) break;
    }
    atomicAdd(total, uint(acc));
    v[id] = acc;
}
