// Double vectors and matrices: dot, length, distance, normalize and cross on dvec3, and
// dmat3 / dmat2x4 products with vectors, matrices and scalars, transpose and outerProduct.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer MBuffer { dmat3 m[]; };
layout(std430, set = 0, binding = 1) readonly buffer VBuffer { dvec4 v[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RBuffer { dvec4 r[]; };
layout(std430, set = 0, binding = 3) writeonly buffer TBuffer { dmat3 t[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    dmat3 a = m[i];
    dvec3 x = v[i].xyz;
    dvec3 y = v[i].wzx;
    r[i * 4u] = dvec4(dot(x, y), length(x), distance(x, y), 0.0lf);
    r[i * 4u + 1u] = dvec4(normalize(x), 1.0lf);
    r[i * 4u + 2u] = dvec4(cross(x, y), 2.0lf);
    r[i * 4u + 3u] = dvec4(a * x + y * a, v[i].w);
    t[i * 3u] = a * transpose(a);
    t[i * 3u + 1u] = outerProduct(x, y) * 0.5lf;
    dmat2x4 b = dmat2x4(v[i], v[i].yxwz);
    t[i * 3u + 2u] = dmat3(b * dvec2(x.x, y.z), 1.0lf, 2.0lf, 3.0lf, x.y, y.x);
}
