// Storage images as typed UAVs: read one image, write another (an edge-detect-like kernel).
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D inputImage;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D resultImage;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 centre = imageLoad(inputImage, p);
    vec4 right = imageLoad(inputImage, p + ivec2(1, 0));
    imageStore(resultImage, p, abs(right - centre));
}
