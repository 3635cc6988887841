// Push constants as a constant buffer: a vec4 and a scalar at a 16-byte boundary.
#version 450
layout(local_size_x = 32) in;
layout(push_constant) uniform Push {
    vec4 weights;
    float offset;
} pc;
layout(std430, set = 0, binding = 0) buffer Data { vec4 values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    values[i] = values[i] * pc.weights + vec4(pc.offset);
}
