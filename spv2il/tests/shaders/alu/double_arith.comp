// Double arithmetic: add, subtract, multiply, divide, negate, fma, min/max/clamp, abs, sign,
// sqrt, mix, step, mod and the ordered compares, on dvec2 and dvec3 values.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { dvec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { dvec2 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { dvec4 r[]; };
layout(std430, set = 0, binding = 3) writeonly buffer SBuffer { dvec3 s[]; };
layout(std430, set = 0, binding = 4) writeonly buffer CBuffer { ivec4 c[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    dvec4 x = a[i];
    dvec2 y = b[i];
    r[i * 4u] = dvec4(x.xy + y, x.zw - y);
    r[i * 4u + 1u] = dvec4(x.xy * y, x.zw / (abs(y) + 1.0lf));
    r[i * 4u + 2u] = dvec4(-x.x, fma(x.y, y.x, x.z), min(x.z, y.y), max(x.w, y.x));
    r[i * 4u + 3u] = dvec4(clamp(x.x, -1.0lf, 1.0lf), sign(x.y), sqrt(abs(x.z)), mix(x.w, y.y, 0.25lf));
    dvec3 p = x.xyz * 2.5lf - dvec3(y, 0.5lf);
    s[i * 2u] = p;
    s[i * 2u + 1u] = dvec3(step(0.0lf, x.x), x.w * y.x + x.z, mod(-p.y, abs(y.x) + 0.5lf));
    c[i * 2u] = ivec4(x.x < y.x, x.y > y.y, x.z <= x.w, x.w >= x.z);
    c[i * 2u + 1u] = ivec4(x.x == x.x, x.y != y.y, lessThan(x.xy, y));
}
