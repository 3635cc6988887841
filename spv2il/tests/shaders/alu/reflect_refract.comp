// faceforward, reflect (I - 2 dot(N, I) N) and refract (0 on total internal reflection).
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 b[]; };
layout(std430, set = 0, binding = 2) readonly buffer ETABuffer { float eta[]; };
layout(std430, set = 0, binding = 3) writeonly buffer RBuffer { vec4 r[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec3 incident = a[i].xyz;
    vec3 normal = normalize(b[i].xyz);
    r[i * 3u] = vec4(faceforward(normal, incident, b[i].zxy), 0.0);
    r[i * 3u + 1u] = vec4(reflect(incident, normal), 0.0);
    r[i * 3u + 2u] = vec4(refract(normalize(incident), normal, eta[i]), 0.0);
}
