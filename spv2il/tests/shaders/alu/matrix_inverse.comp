// determinant (2x2 ad - bc, 3x3 triple product, 4x4 expansion along column 0) and inverse
// (adjugate / determinant) for 2x2, 3x3 and 4x4.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { vec4 r[]; };

// Matrices are built where they are used: a named local matrix would be a Function variable of
// matrix type, which the memory lowering does not hold yet.
// A large diagonal keeps the random matrices far from singular (the inverse of a singular
// matrix is undefined).
#define M (mat4(a[i * 4u], a[i * 4u + 1u], a[i * 4u + 2u], a[i * 4u + 3u]) + mat4(2048.0))

void main() {
    uint i = gl_GlobalInvocationID.x;
    // Each inverse is used once (GLSL has no common-subexpression elimination, so every
    // use would compute it again); a product with distinct weights reads every column.
    r[i * 4u] = vec4(determinant(M), determinant(mat3(M)), determinant(mat2(M)), 0.0);
    r[i * 4u + 1u] = inverse(M) * vec4(1.0, 10.0, 100.0, 1000.0);
    r[i * 4u + 2u] = vec4(inverse(mat3(M)) * vec3(1.0, 10.0, 100.0), 0.0);
    r[i * 4u + 3u] = vec4(inverse(mat2(M)) * vec2(1.0, 10.0), 0.0, 0.0);
}
