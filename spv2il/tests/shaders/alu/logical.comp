// Logical and, or, not, ==, != on booleans (0 / 0xFFFFFFFF in IL), any() and all().
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uvec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { uvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    bvec4 p = notEqual(a[i], uvec4(0u));
    bvec4 q = notEqual(b[i], uvec4(0u));
    bool s = p.x && q.y;
    bool t = p.z || q.w;
    bool u = !p.y;
    bool v = p.w == q.x;
    bool w = p.z != q.z;
    r[i * 3u] = uvec4(s, t, u, v);
    r[i * 3u + 1u] = uvec4(w, any(p), all(q), any(not(p)));
    r[i * 3u + 2u] = uvec4(equal(p, q));
}
