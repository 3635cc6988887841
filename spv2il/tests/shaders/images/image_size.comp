// imageSize of a storage image: the size comes from the driver constant buffer.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32f) uniform image2D target;

void main() {
    ivec2 size = imageSize(target);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x < size.x && p.y < size.y) {
        imageStore(target, p, vec4(vec2(p) / vec2(size), 0.0, 1.0));
    }
}
