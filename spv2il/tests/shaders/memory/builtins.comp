// Every compute built-in: invocation ids, work-group id and size, and the number of work-groups
// (which comes from the driver constant buffer).
#version 450
layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uvec4 records[]; };

void main() {
    uint flat_id = gl_GlobalInvocationID.x
        + gl_NumWorkGroups.x * gl_WorkGroupSize.x
            * (gl_GlobalInvocationID.y + gl_NumWorkGroups.y * gl_WorkGroupSize.y * gl_GlobalInvocationID.z);
    records[flat_id * 3u] = uvec4(gl_GlobalInvocationID, gl_LocalInvocationIndex);
    records[flat_id * 3u + 1u] = uvec4(gl_LocalInvocationID, gl_WorkGroupID.x);
    records[flat_id * 3u + 2u] = uvec4(gl_NumWorkGroups, gl_WorkGroupSize.x);
}
