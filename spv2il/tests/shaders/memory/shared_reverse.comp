// Workgroup memory and a barrier: each group reverses its 64 values through LDS.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };
shared uint tile[64];

void main() {
    uint local = gl_LocalInvocationIndex;
    uint base = gl_WorkGroupID.x * 64u;
    tile[local] = values[base + local];
    barrier();
    values[base + local] = tile[63u - local];
}
