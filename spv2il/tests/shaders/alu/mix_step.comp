// mix (lrp), step, smoothstep and fma (mad_ieee).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) readonly buffer CBuffer { vec4 c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    vec4 t = c[i];
    r[i * 5u] = mix(x, y, t);
    r[i * 5u + 1u] = step(x, y);
    r[i * 5u + 2u] = smoothstep(vec4(-1.0), vec4(2.0), t);
    r[i * 5u + 3u] = fma(x, y, t);
    r[i * 5u + 4u] = mix(x, y, 0.25);
}
