// Float add, subtract, multiply (mul_ieee), divide (div_zeroop(infinity)) and negate on vec4.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    // A zero divisor's sign and 0 / 0 are not required by default (Vulkan: implementations may
    // ignore the sign of zero and assume no NaN results), so divisors stay away from zero.
    vec4 y = b[i] + sign(b[i]) * 0.5 + vec4(equal(b[i], vec4(0.0)));
    r[i * 5u] = x + y;
    r[i * 5u + 1u] = x - y;
    r[i * 5u + 2u] = x * y;
    r[i * 5u + 3u] = x / y;
    r[i * 5u + 4u] = -x;
}
