// Whole structs moved between a storage buffer and function variables, with a matrix member
// (column-major, MatrixStride 16) and an array member.
#version 450
layout(local_size_x = 64) in;

struct Particle {
    vec4 position;
    vec2 velocity;
    uint flags;
    float weights[3];
    mat2 spin;
};

layout(std430, set = 0, binding = 0) buffer Particles { Particle particles[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    Particle p = particles[i];
    Particle q = p;
    q.position.xy += p.velocity;
    q.flags = p.flags | 1u;
    q.weights[1] = p.weights[0] + p.weights[2];
    q.spin = p.spin * 2.0;
    particles[i] = q;
}
