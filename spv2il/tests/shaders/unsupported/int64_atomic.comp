// A 64-bit atomic is refused on every family: IL's UAV and LDS atomics are 32-bit.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Counter { uint64_t total; };
layout(std430, set = 0, binding = 1) readonly buffer Data { uint64_t values[]; };

void main() {
    atomicAdd(total, values[gl_GlobalInvocationID.x]);
}
