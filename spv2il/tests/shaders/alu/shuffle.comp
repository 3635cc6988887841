// Vector shuffles (OpVectorShuffle) within one vector (no instruction) and across two.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    vec4 y = b[i];
    r[i * 3u] = x.wzyx;
    r[i * 3u + 1u] = vec4(x.xz, y.yw);
    r[i * 3u + 2u] = (x + y).yyxw;
}
