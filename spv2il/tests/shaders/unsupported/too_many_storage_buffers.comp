// Nine storage buffers need nine UAV ids; Evergreen's IL has 0 to 7 (AMD IL guide, DCL_STRUCT_UAV;
// amd-il.md §8.5), so the translation is refused at the ninth buffer's variable. (It once
// declared dcl_raw_uav_id(8), which IL does not allow.)
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer B0 { uint b0[]; };
layout(std430, set = 0, binding = 1) buffer B1 { uint b1[]; };
layout(std430, set = 0, binding = 2) buffer B2 { uint b2[]; };
layout(std430, set = 0, binding = 3) buffer B3 { uint b3[]; };
layout(std430, set = 0, binding = 4) buffer B4 { uint b4[]; };
layout(std430, set = 0, binding = 5) buffer B5 { uint b5[]; };
layout(std430, set = 0, binding = 6) buffer B6 { uint b6[]; };
layout(std430, set = 0, binding = 7) buffer B7 { uint b7[]; };
layout(std430, set = 0, binding = 8) buffer B8 { uint b8[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    b8[i] = b0[i] + b1[i] + b2[i] + b3[i] + b4[i] + b5[i] + b6[i] + b7[i];
}
