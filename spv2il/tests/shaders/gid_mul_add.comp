// The walking-skeleton shader: every invocation writes gid * 3 + 7 into its own slot of a
// storage buffer. It exercises a built-in, integer arithmetic, a raw UAV store and LocalSize.
#version 450
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) buffer Output {
    uint values[];
};

void main() {
    uint gid = gl_GlobalInvocationID.x;
    values[gid] = gid * 3u + 7u;
}
