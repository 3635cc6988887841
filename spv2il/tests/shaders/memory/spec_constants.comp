// Specialization constants: a scale with a default, a work-group size taken from a constant id,
// and a constant computed from them (OpSpecConstantOp). `spv2il --spec 0=5 --spec 1=32` changes
// all three (tests/cli.rs).
#version 450
layout(local_size_x = 64, local_size_x_id = 1) in;
layout(constant_id = 0) const uint SCALE = 3u;
const uint OFFSET = SCALE * 2u + 1u;
layout(std430, set = 0, binding = 0) buffer Data { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    values[i] = values[i] * SCALE + OFFSET + gl_WorkGroupSize.x;
}
