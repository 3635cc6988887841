// Sixteen uniform buffers need cb0 to cb15; IL has cb0 to cb14 (amd-il.md §8.5), so the
// translation is refused at the sixteenth buffer's variable. (It once declared cb15.)
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform U0 { uint u0; };
layout(set = 0, binding = 1) uniform U1 { uint u1; };
layout(set = 0, binding = 2) uniform U2 { uint u2; };
layout(set = 0, binding = 3) uniform U3 { uint u3; };
layout(set = 0, binding = 4) uniform U4 { uint u4; };
layout(set = 0, binding = 5) uniform U5 { uint u5; };
layout(set = 0, binding = 6) uniform U6 { uint u6; };
layout(set = 0, binding = 7) uniform U7 { uint u7; };
layout(set = 0, binding = 8) uniform U8 { uint u8; };
layout(set = 0, binding = 9) uniform U9 { uint u9; };
layout(set = 0, binding = 10) uniform U10 { uint u10; };
layout(set = 0, binding = 11) uniform U11 { uint u11; };
layout(set = 0, binding = 12) uniform U12 { uint u12; };
layout(set = 0, binding = 13) uniform U13 { uint u13; };
layout(set = 0, binding = 14) uniform U14 { uint u14; };
layout(set = 0, binding = 15) uniform U15 { uint u15; };
layout(std430, set = 1, binding = 0) buffer Out { uint values[]; };

void main() {
    values[gl_GlobalInvocationID.x] = u0 + u1 + u2 + u3 + u4 + u5 + u6 + u7 + u8 + u9 + u10 +
        u11 + u12 + u13 + u14 + u15;
}
