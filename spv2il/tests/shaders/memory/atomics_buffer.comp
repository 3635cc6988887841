// Atomics on a storage buffer: a histogram of the low 4 bits, plus min, max, and, or, xor,
// exchange and compare-exchange results written back per invocation.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Counters {
    uint histogram[16];
    uint lo;
    uint hi;
    uint bits_and;
    uint bits_or;
    uint bits_xor;
    uint swapped;
    int signed_min;
};
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint olds[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = src[i];
    atomicAdd(histogram[v & 15u], 1u);
    atomicMin(lo, v);
    atomicMax(hi, v);
    atomicAnd(bits_and, v);
    atomicOr(bits_or, v);
    atomicXor(bits_xor, v);
    atomicMin(signed_min, int(v));
    uint old = atomicExchange(swapped, v);
    olds[i] = atomicCompSwap(histogram[15], old, i) + old;
}
