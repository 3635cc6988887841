// 64-bit composites and control flow: dvec4 values built, shuffled, extracted from and inserted
// into (two registers each), a dynamic extract, selects of dvec3 and i64vec2, a loop carrying a
// double and a 64-bit integer, a function taking and returning doubles (inlined) and one that
// returns early (an IL subroutine with 64-bit parameters and result).
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { dvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { dvec4 r[]; };
layout(std430, set = 0, binding = 3) writeonly buffer NBuffer { i64vec2 n[]; };

dvec2 twist(dvec2 v, double k) {
    return dvec2(v.y * k, v.x - k);
}

dvec2 limit(dvec2 v, int64_t k) {
    if (v.x > double(k)) {
        return v.yx;
    }
    return v * 0.5lf;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    dvec4 x = a[i];
    ivec4 y = b[i];
    dvec4 s = x.wzyx;
    s.y = x.x + 1.0lf;
    dvec4 t = dvec4(s.xw, twist(x.yz, s.z));
    double picked = (t * 2.0lf)[y.x & 3];
    dvec3 chosen = y.y > 0 ? t.xyz : s.zyx;
    int64_t count = 0;
    double sum = 0.0lf;
    for (int k = 0; k < (y.z & 7); k++) {
        sum += a[i][k & 3] * 0.5lf;
        count += int64_t(k) << 33;
    }
    i64vec2 m = y.w < 0 ? i64vec2(count, -count) : i64vec2(int64_t(y.w), count + 1);
    r[i * 3u] = t;
    r[i * 3u + 1u] = dvec4(chosen, picked);
    r[i * 3u + 2u] = dvec4(sum, s.yz, double(count));
    n[i] = m;
    r[i * 3u + 2u].w += limit(x.zw, count).y + limit(s.xy, 3l).x;
}
