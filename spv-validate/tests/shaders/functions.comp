#version 450
// Functions with out parameters, a struct, vectors and matrices, and an image store.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D img;
layout(push_constant) uniform PC { mat2 m; vec2 offset; } pc;
struct Ray { vec2 o; vec2 d; };
float shade(Ray r, out int steps) {
    steps = 0;
    float t = 0.0;
    while (t < 4.0 && steps < 16) {
        vec2 p = r.o + r.d * t;
        t += max(length(pc.m * p) - 0.5, 0.01);
        steps++;
    }
    return t;
}
void main() {
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    Ray r = Ray(vec2(c) / 64.0 + pc.offset, normalize(vec2(1.0, 0.5)));
    int steps;
    float t = shade(r, steps);
    imageStore(img, c, vec4(t / 4.0, float(steps) / 16.0, 0.0, 1.0));
}
