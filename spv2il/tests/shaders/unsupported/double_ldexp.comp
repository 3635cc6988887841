// ldexp on doubles is refused on every family: `dldexp` takes a significand in (-1, 1) only
// (guide D_LDEXP), and no lowering of the general case is written yet.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { dvec2 values[]; };
layout(std430, set = 0, binding = 1) readonly buffer Exponents { ivec2 exponents[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    values[i] = ldexp(values[i], exponents[i]);
}
