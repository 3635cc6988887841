// sinh, cosh, tanh from exp_vec; asinh, acosh, atanh from log_vec (Vulkan inherits their precision
// from these formulas).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    r[i * 6u] = sinh(x);
    r[i * 6u + 1u] = cosh(x);
    r[i * 6u + 2u] = tanh(x);
    r[i * 6u + 3u] = asinh(x);
    r[i * 6u + 4u] = acosh(abs(x) + 1.0);
    r[i * 6u + 5u] = atanh(clamp(x, -0.99, 0.99));
}
