// Atomics on Workgroup memory, with barriers around them.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };
shared uint total;
shared uint slots[4];

void main() {
    uint local = gl_LocalInvocationIndex;
    uint i = gl_GlobalInvocationID.x;
    total = 0u;
    slots[local & 3u] = 0u;
    barrier();
    atomicAdd(total, values[i]);
    uint previous = atomicCompSwap(slots[local & 3u], 0u, local + 1u);
    barrier();
    values[i] = total + previous * 1000u;
}
