// Matrices as aggregates of column registers: matrix times vector (mul + mad chain), vector
// times matrix (one dot per component), matrix times matrix, transpose, outer product, matrix
// times scalar.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RBuffer { vec4 r[]; };

// Matrices are built where they are used: a named local matrix would be a Function variable of
// matrix type, which the memory lowering does not hold yet.
#define M mat4(a[i * 4u], a[i * 4u + 1u], a[i * 4u + 2u], a[i * 4u + 3u])

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 v = a[i * 4u + 1u];
    r[i * 8u] = M * v;
    r[i * 8u + 1u] = v * M;
    r[i * 8u + 2u] = vec4(mat3(M) * v.xyz, 1.0);
    r[i * 8u + 3u] = (M * transpose(M))[1];
    r[i * 8u + 4u] = (M * transpose(M))[3];
    r[i * 8u + 5u] = (outerProduct(v, v.wzyx) * 0.5)[0] + (outerProduct(v, v.wzyx) * 0.5)[2];
    r[i * 8u + 6u] = transpose(M)[2];
    r[i * 8u + 7u] = vec4(mat2(M) * v.xy, v.zw * mat2(M));
}
