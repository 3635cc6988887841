// Doubles and 64-bit integers in memory: std430 storage buffers with dvec3/dvec4 and a struct,
// a std140 uniform buffer, push constants, shared memory (LDS) with a barrier, and function
// variables and private arrays of 64-bit values.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

struct Item {
    double weight;
    int tag;
    dvec3 position;
    u64vec2 ids;
};

layout(std430, set = 0, binding = 0) readonly buffer In { Item items[]; };
layout(std430, set = 0, binding = 1) readonly buffer Vectors { dvec4 vectors[]; };
layout(std140, set = 0, binding = 2) uniform Params {
    double scale;
    dvec2 offset;
    dvec3 axis;
    int64_t bias;
} params;
layout(push_constant) uniform Push {
    double shift;
    uint64_t mask;
} pc;
layout(std430, set = 0, binding = 3) writeonly buffer Out { Item results[]; };
layout(std430, set = 0, binding = 4) writeonly buffer More { dvec4 more[]; };

shared double tile[64];
shared i64vec2 pairs[64];

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint local = gl_LocalInvocationIndex;
    Item item = items[i];
    dvec4 v = vectors[i];
    tile[local] = item.weight * params.scale + pc.shift;
    pairs[local] = i64vec2(item.ids) + params.bias;
    barrier();
    double neighbour = tile[63u - local];
    i64vec2 other = pairs[(local + 1u) & 63u];

    double history[4];
    for (int k = 0; k < 4; k++) {
        history[k] = vectors[i][k] * double(k + 1);
    }
    dvec3 p = item.position;
    p.y += neighbour;
    p.z *= 2.0lf;

    Item outItem;
    outItem.weight = history[item.tag & 3] + params.offset.y;
    outItem.tag = item.tag + 1;
    outItem.position = p + params.axis;
    outItem.ids = u64vec2(other) & pc.mask;
    results[i] = outItem;
    more[i] = dvec4(v.wzy, history[3] - params.offset.x);
}
