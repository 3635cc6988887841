// Double rounding: floor, ceil, trunc, fract, round, roundEven and modf, on values scaled so
// that halves, negative fractions and integers beyond 2^52 all occur.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { dvec2 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { dvec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    dvec2 x = a[i] * 8.0lf;
    // Halves: x.y rounded to a multiple of 0.5.
    double h = floor(x.y * 2.0lf) * 0.5lf;
    double big = x.x * 1099511627776.0lf * 65536.0lf;
    r[i * 4u] = dvec4(floor(x), ceil(x));
    r[i * 4u + 1u] = dvec4(trunc(x), fract(x));
    r[i * 4u + 2u] = dvec4(roundEven(h), roundEven(x.x), round(x.y + 0.25lf), floor(big) - big);
    double whole;
    double part = modf(x.x, whole);
    r[i * 4u + 3u] = dvec4(part, whole, trunc(-0.25lf * x.y), ceil(big * 0.125lf));
}
