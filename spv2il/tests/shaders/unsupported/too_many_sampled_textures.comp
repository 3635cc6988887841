// Seventeen sampled textures: texture n samples with sampler n, and IL has samplers 0 to 15
// (amd-il.md §8.5), so sampling the seventeenth is refused. (Its sampler id was once masked to
// four bits: the seventeenth texture read the first one's texels.)
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D t0;
layout(set = 0, binding = 1) uniform sampler2D t1;
layout(set = 0, binding = 2) uniform sampler2D t2;
layout(set = 0, binding = 3) uniform sampler2D t3;
layout(set = 0, binding = 4) uniform sampler2D t4;
layout(set = 0, binding = 5) uniform sampler2D t5;
layout(set = 0, binding = 6) uniform sampler2D t6;
layout(set = 0, binding = 7) uniform sampler2D t7;
layout(set = 0, binding = 8) uniform sampler2D t8;
layout(set = 0, binding = 9) uniform sampler2D t9;
layout(set = 0, binding = 10) uniform sampler2D t10;
layout(set = 0, binding = 11) uniform sampler2D t11;
layout(set = 0, binding = 12) uniform sampler2D t12;
layout(set = 0, binding = 13) uniform sampler2D t13;
layout(set = 0, binding = 14) uniform sampler2D t14;
layout(set = 0, binding = 15) uniform sampler2D t15;
layout(set = 0, binding = 16) uniform sampler2D t16;
layout(std430, set = 1, binding = 0) buffer Out { vec4 values[]; };

void main() {
    vec2 uv = vec2(gl_GlobalInvocationID.xy) / 64.0;
    vec4 sum = vec4(0.0);
    sum += textureLod(t0, uv, 0.0);
    sum += textureLod(t1, uv, 0.0);
    sum += textureLod(t2, uv, 0.0);
    sum += textureLod(t3, uv, 0.0);
    sum += textureLod(t4, uv, 0.0);
    sum += textureLod(t5, uv, 0.0);
    sum += textureLod(t6, uv, 0.0);
    sum += textureLod(t7, uv, 0.0);
    sum += textureLod(t8, uv, 0.0);
    sum += textureLod(t9, uv, 0.0);
    sum += textureLod(t10, uv, 0.0);
    sum += textureLod(t11, uv, 0.0);
    sum += textureLod(t12, uv, 0.0);
    sum += textureLod(t13, uv, 0.0);
    sum += textureLod(t14, uv, 0.0);
    sum += textureLod(t15, uv, 0.0);
    sum += textureLod(t16, uv, 0.0);
    values[gl_GlobalInvocationID.x] = sum;
}
