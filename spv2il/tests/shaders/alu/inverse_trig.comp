// asin, acos, atan: IL's scalar forms read .w, so one instruction per component; atan(y, x) adds
// +-pi when x < 0.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    r[i * 4u] = asin(clamp(x, -1.0, 1.0));
    r[i * 4u + 1u] = acos(clamp(x, -1.0, 1.0));
    r[i * 4u + 2u] = atan(x);
    // atan(y, x) is undefined when both are zero.
    r[i * 4u + 3u] = atan(y, x + vec4(equal(x, vec4(0.0))));
}
