// abs and sign for float (the _abs modifier; sgn with the sign of -0 kept) and int (imax(x, -x);
// imin(imax(x, -1), 1)).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    r[i * 4u] = abs(a[i]);
    r[i * 4u + 1u] = sign(a[i]);
    r[i * 4u + 2u] = vec4(abs(b[i]));
    r[i * 4u + 3u] = vec4(sign(b[i]));
}
