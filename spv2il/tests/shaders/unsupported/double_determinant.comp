// determinant() of a dmat3 is refused on every family: the GLSL.std.450 matrix functions
// (Determinant, MatrixInverse) have no lowering for doubles yet.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Matrices { dmat3 matrices[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Results { double results[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    results[i] = determinant(matrices[i]);
}
