// OpArrayLength: the element count of a runtime array comes from the buffer's byte size, which
// the runtime passes in the driver constant buffer.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data {
    uint header[4];
    uvec2 pairs[];
};

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = uint(pairs.length());
    if (i < n) {
        pairs[i] = uvec2(n, i);
    }
}
