// Sampled images as resources: texel fetches from a combined image sampler and from a separate
// texture and sampler, and an explicit-LOD sample, written to a buffer.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D colours;
layout(set = 0, binding = 1) uniform texture2D heights;
layout(set = 0, binding = 2) uniform sampler nearest;
layout(std430, set = 0, binding = 3) writeonly buffer Out { vec4 results[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec2 p = ivec2(i & 15u, i >> 4);
    vec4 fetched = texelFetch(colours, p, 0);
    vec4 height = texelFetch(sampler2D(heights, nearest), p, 1);
    vec4 sampled = textureLod(colours, vec2(p) / 16.0, 0.0);
    results[i] = fetched + sampled + height;
}
