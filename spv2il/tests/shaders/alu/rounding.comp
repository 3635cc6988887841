// round (round to nearest even here), roundEven, trunc, floor, ceil and fract.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    r[i * 6u] = round(x);
    r[i * 6u + 1u] = roundEven(x);
    r[i * 6u + 2u] = trunc(x);
    r[i * 6u + 3u] = floor(x);
    r[i * 6u + 4u] = ceil(x);
    r[i * 6u + 5u] = fract(x);
}
