//! Memory (guide §7.15, §7.16): raw/structured/typed UAVs, SRVs, constant buffers, literals,
//! indexed temps, LDS, atomics with their operand orders, barriers and the compute system
//! registers. Expected values are traced by hand.

mod common;

use common::{parse, run_err, run_full, run_ok, run_uav, words};
use il_sim::{ChannelType, Dispatch, ErrorKind, Image, TexelFormat, run};

#[test]
fn raw_store_and_load_follow_the_masks() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_literal l0, 11, 22, 33, 44
dcl_literal l1, 0, 16, 32, 0
uav_raw_store_id(0) mem.x_z_, l1.x, l0
uav_raw_load_id(0) r0, l1.x
uav_raw_store_id(0) mem, l1.y, r0
mov r1, l0
uav_raw_load_id(0) r1._y_w, l1.y
uav_raw_store_id(0) mem, l1.z, r1
end
";
    let w = run_uav(text, [1, 1, 1], &[7; 16]).unwrap();
    // Gaps in the store mask keep memory (guide UAV_RAW_STORE); the load mask keeps r1.x, r1.z.
    assert_eq!(&w[0..4], &[11, 7, 33, 7]);
    assert_eq!(&w[4..8], &[11, 7, 33, 7]);
    assert_eq!(&w[8..12], &[11, 7, 33, 7]);
}

#[test]
fn out_of_range_loads_read_zero_and_stores_are_dropped() {
    // A 16-byte UAV: dword 3 (byte 12) is the last in range (amd-il.md §7.5).
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_literal l0, 12, 0, 0xFFFFFFFC, 99
uav_raw_load_id(0) r0, l0.x
uav_raw_store_id(0) mem, l0.z, l0.w
uav_raw_store_id(0) mem.x, l0.y, r0.x
uav_raw_store_id(0) mem._y, l0.y, r0.y
end
";
    let w = run_uav(text, [1, 1, 1], &[1, 2, 3, 4]).unwrap();
    assert_eq!(w, vec![4, 0, 3, 4]);
}

#[test]
fn unaligned_dword_addresses_are_errors() {
    let e = run_err(
        "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_literal l0, 2, 0, 0, 0
uav_raw_load_id(0) r0.x, l0.x
end
",
    );
    assert_eq!((e.kind, e.inst), (ErrorKind::Runtime, Some(3)));
}

#[test]
fn structured_and_typed_uavs() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_struct_uav_id(0) 12
dcl_uav_id(1)_type(buffer)_fmtx(uint)
dcl_literal l0, 2, 4, 77, 3
dcl_literal l1, 3, 0, 0, 0
uav_struct_store_id(0) mem.xy, l0.xy, l0.zw
uav_struct_load_id(0) r0, l0.xy
uav_store_id(1) l0.w, l0.z
uav_load_id(1) r1, l0.w
uav_struct_store_id(0) mem.xy, l1, r1
end
";
    let program = parse(text);
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs = vec![vec![0; 64]];
    d.images = vec![
        None,
        Some(image(ChannelType::Uint32, 1, [8, 1, 1], vec![0; 32])),
    ];
    run(&program, &mut d).unwrap();
    let s = words(&d.uavs[0]);
    // Element 2 of 12 bytes, offset 4: byte 28 = word 7; then element 3 at offset 0 = word 9,
    // where the typed load put (77, 0, 0, 1): an R32 image's missing channels.
    assert_eq!(&s[7..9], &[77, 3]);
    assert_eq!(&s[9..11], &[77, 0]);
    let texels = words(&d.images[1].as_ref().unwrap().data);
    assert_eq!(texels, vec![0, 0, 0, 77, 0, 0, 0, 0]);
}

fn image(ty: ChannelType, channels: u8, size: [u32; 3], data: Vec<u8>) -> Image {
    Image {
        format: TexelFormat { channels, ty },
        size,
        data,
    }
}

#[test]
fn two_dimensional_images_convert_texels() {
    // Invocation (x, y) of a 2×2 group reads texel (x, y) of an rgba8 unorm image, stores it
    // doubled (saturating) into an rgba8 image and as floats into an r32f image.
    let text = "il_cs_2_0
dcl_num_thread_per_group 2, 2, 1
dcl_uav_id(0)_type(2d)_fmtx(unorm)
dcl_uav_id(1)_type(2d)_fmtx(unorm)
dcl_uav_id(2)_type(2d)_fmtx(float)
uav_load_id(0) r0, vTidInGrp.xyyy
add r1, r0, r0
uav_store_id(1) vTidInGrp.xyyy, r1
uav_store_id(2) vTidInGrp.xyyy, r0.y
end
";
    let program = parse(text);
    let mut d = Dispatch::new([1, 1, 1]);
    let texels: Vec<u8> = vec![
        0, 51, 102, 255, 10, 20, 30, 40, 200, 100, 1, 0, 255, 254, 128, 127,
    ];
    d.images = vec![
        Some(image(ChannelType::Unorm8, 4, [2, 2, 1], texels)),
        Some(image(ChannelType::Unorm8, 4, [2, 2, 1], vec![0; 16])),
        Some(image(ChannelType::Float32, 1, [2, 2, 1], vec![0; 16])),
    ];
    run(&program, &mut d).unwrap();
    // 2·c/255 back to unorm8: 2c, saturating at 255 (rounding exact for these values).
    let doubled = &d.images[1].as_ref().unwrap().data;
    assert_eq!(
        doubled,
        &vec![
            0, 102, 204, 255, 20, 40, 60, 80, 255, 200, 2, 0, 255, 255, 255, 254
        ]
    );
    let floats = words(&d.images[2].as_ref().unwrap().data);
    let g = |c: u8| (f32::from(c) / 255.0).to_bits();
    assert_eq!(floats, vec![g(51), g(20), g(100), g(254)]);
}

#[test]
fn resource_loads_and_nearest_sampling() {
    // load_resource(0) at (1, 0, mip 0) and at mip 1 (not bound: zeros); sample_l at the centre
    // of texel (1, 1) with a nearest sampler.
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_resource_id(0)_type(2d)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)
dcl_literal l0, 1, 0, 0, 0
dcl_literal l1, 1, 0, 0, 1
dcl_literal l2, 0x3F400000, 0x3F400000, 0, 0
dcl_literal l3, 0, 16, 32, 0
load_resource(0) r0, l0
uav_raw_store_id(0) mem, l3.x, r0
load_resource(0) r0, l1
uav_raw_store_id(0) mem, l3.y, r0
sample_l_resource(0)_sampler(0) r0, l2.xyyy, l3.w
uav_raw_store_id(0) mem, l3.z, r0
end
";
    let program = parse(text);
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs = vec![vec![0; 48]];
    let texels: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    d.textures = vec![Some(image(ChannelType::Float32, 1, [2, 2, 1], texels))];
    run(&program, &mut d).unwrap();
    let w = words(&d.uavs[0]);
    let one = 1.0f32.to_bits();
    assert_eq!(&w[0..4], &[2.0f32.to_bits(), 0, 0, one]);
    assert_eq!(&w[4..8], &[0, 0, 0, 0]);
    // (0.75, 0.75) · 2 = (1.5, 1.5): texel (1, 1) = 4.0.
    assert_eq!(&w[8..12], &[4.0f32.to_bits(), 0, 0, one]);
}

#[test]
fn image_atomics_need_a_32_bit_integer_format() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_uav_id(0)_type(2d)_fmtx(uint)
dcl_literal l0, 1, 1, 5, 0
uav_add_id(0) l0.xyyy, l0.z
uav_add_id(0) l0.zzzz, l0.z
end
";
    let program = parse(text);
    let mut d = Dispatch::new([1, 1, 1]);
    d.images = vec![Some(image(ChannelType::Uint32, 1, [2, 2, 1], vec![0; 16]))];
    run(&program, &mut d).unwrap();
    // Texel (1, 1) is word 3; (5, 5) is outside and changes nothing.
    assert_eq!(words(&d.images[0].as_ref().unwrap().data), vec![0, 0, 0, 5]);
    d.images = vec![Some(image(ChannelType::Unorm8, 4, [2, 2, 1], vec![0; 16]))];
    let e = run(&program, &mut d).unwrap_err();
    assert_eq!((e.kind, e.inst), (ErrorKind::Malformed, Some(3)));
}

#[test]
fn constant_buffers_immediate_and_relative_indexing() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_cb cb2[3]
dcl_literal l0, 0, 16, 32, 1
mov r1.x, l0.w
mov r0, cb2[1]
uav_raw_store_id(0) mem, l0.x, r0
mov r0, cb2[r1.x+1]
uav_raw_store_id(0) mem, l0.y, r0
mov r0, cb2[r1.x+2]
uav_raw_store_id(0) mem, l0.z, r0
end
";
    let program = parse(text);
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs = vec![vec![0; 48]];
    d.cbs = vec![
        Vec::new(),
        Vec::new(),
        vec![[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13; 4]],
    ];
    run(&program, &mut d).unwrap();
    // cb2[1]; cb2[1 + 1]; cb2[3] is past the declared size 3, so zeros.
    assert_eq!(
        words(&d.uavs[0]),
        vec![5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0, 0]
    );
}

#[test]
fn indexed_temp_arrays() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_indexed_temp_array x0[4]
dcl_literal l0, 0, 1, 2, 3
dcl_literal l1, 10, 20, 30, 40
mov x0[0], l0
mov r1.x, l0.y
mov x0[r1.x+2], l1
mov r0, x0[r1.x+2]
iadd r0, r0, x0[0]
uav_raw_store_id(0) mem, l0.x, r0
end
";
    assert_eq!(&run_ok(text)[..4], &[10, 21, 32, 43]);
    let e = run_err(
        "il_cs_2_0
dcl_num_thread_per_group 1
dcl_indexed_temp_array x0[4]
dcl_literal l0, 4, 0, 0, 0
mov r0, x0[l0.x]
end
",
    );
    assert_eq!((e.kind, e.inst), (ErrorKind::Runtime, Some(3)));
}

#[test]
fn srv_raw_loads() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_raw_srv_id(3)
dcl_literal l0, 4, 0, 0, 0
srv_raw_load_id(3) r0.xy__, l0.x
uav_raw_store_id(0) mem.xy, l0.y, r0
end
";
    let program = parse(text);
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs = vec![vec![0; 8]];
    d.srvs = vec![
        Vec::new(),
        Vec::new(),
        Vec::new(),
        [1u32, 2, 3].iter().flat_map(|w| w.to_le_bytes()).collect(),
    ];
    run(&program, &mut d).unwrap();
    assert_eq!(words(&d.uavs[0]), vec![2, 3]);
}

/// Runs `op` (a UAV atomic) on word 1 of a UAV holding `initial`, with data `s1`, `s2`, and
/// returns (memory word 1, value returned in r0.x or 0xDEAD when the op returns nothing).
fn uav_atomic(op: &str, returns: bool, initial: u32, s1: u32, s2: u32) -> (u32, u32) {
    let dst = if returns { "r0.x, " } else { "" };
    let extra = if op.ends_with("cmp") || op.ends_with("cmp_xchg") {
        ", l0.z"
    } else {
        ""
    };
    let text = format!(
        "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_literal l0, 4, {s1}, {s2}, 8
dcl_literal l1, 0xDEAD, 0, 0, 0
mov r0, l1
uav_{op}_id(0) {dst}l0.x, l0.y{extra}
uav_raw_store_id(0) mem.x, l0.w, r0.x
end
"
    );
    let w = run_uav(&text, [1, 1, 1], &[0, initial, 0, 0]).unwrap();
    (w[1], w[2])
}

#[test]
fn uav_atomics_compute_and_return_the_old_value() {
    const OLD: u32 = 10;
    let cases: [(&str, u32, u32); 12] = [
        ("add", 5, 15),
        ("sub", 3, 7),
        ("rsub", 3, 3u32.wrapping_sub(10)),
        ("min", 0xFFFF_FFFF, 0xFFFF_FFFF),
        ("max", 0xFFFF_FFFF, 10),
        ("umin", 0xFFFF_FFFF, 10),
        ("umax", 0xFFFF_FFFF, 0xFFFF_FFFF),
        ("and", 6, 2),
        ("or", 5, 15),
        ("xor", 3, 9),
        // uinc: old >= s1 ? 0 : old + 1; udec: (old == 0 || old > s1) ? s1 : old − 1.
        ("uinc", 10, 0),
        ("udec", 5, 5),
    ];
    for (op, s1, want) in cases {
        assert_eq!(
            uav_atomic(op, false, OLD, s1, 0),
            (want, 0xDEAD),
            "uav_{op}"
        );
        assert_eq!(
            uav_atomic(&format!("read_{op}"), true, OLD, s1, 0),
            (want, OLD),
            "uav_read_{op}"
        );
    }
    assert_eq!(uav_atomic("uinc", false, OLD, 11, 0).0, 11);
    assert_eq!(uav_atomic("udec", false, OLD, 20, 0).0, 9);
    assert_eq!(uav_atomic("read_xchg", true, OLD, 99, 0), (99, OLD));
    // UAV compare-exchange: if (mem == s2) mem = s1 (amd-il.md §0.7).
    assert_eq!(uav_atomic("cmp", false, OLD, 99, 10).0, 99);
    assert_eq!(uav_atomic("cmp", false, OLD, 10, 99).0, OLD);
    assert_eq!(uav_atomic("read_cmp_xchg", true, OLD, 99, 10), (99, OLD));
    assert_eq!(uav_atomic("read_cmp_xchg", true, OLD, 10, 99), (OLD, OLD));
}

#[test]
fn lds_atomics_use_the_other_compare_order() {
    // LDS: if (lds == s1) lds = s2 (amd-il.md §0.7); mskor: (lds & ~s1) | s2.
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_lds_id(1) 64
dcl_literal l0, 0, 4, 8, 12
dcl_literal l1, 10, 99, 0xF0, 0x0F
lds_store_id(1) l0.x, l1.x
lds_store_id(1) l0.y, l1.x
lds_store_id(1) l0.z, l1.z
lds_cmp_id(1) l0.x, l1.x, l1.y
lds_read_cmp_xchg_id(1) r0.x, l0.y, l1.y, l1.y
lds_mskor_id(1) l0.z, l1.z, l1.w
lds_read_add_id(1) r0.y, l0.z, l1.x
lds_load_vec_id(1) r1, l0.x, l0.x
uav_raw_store_id(0) mem, l0.x, r1
uav_raw_store_id(0) mem.xy, l0.w, r0
end
";
    let w = run_ok(text);
    // word0: 10 == s1 (10) → 99; word1: 10 != s1 (99) → stays 10 (old 10 returned);
    // word2: (0xF0 & ~0xF0) | 0x0F = 0x0F, then read_add 10 → 0x19 (old 0x0F returned).
    assert_eq!(&w[0..3], &[99, 10, 0x19]);
    assert_eq!(&w[3..5], &[10, 0x0F]);
}

#[test]
fn lds_sub_dword_loads_extend() {
    let text = "il_cs_2_0
dcl_num_thread_per_group 1
dcl_raw_uav_id(0)
dcl_lds_id(0) 16
dcl_literal l0, 0, 0x8081, 2, 16
lds_store_id(0) l0.x, l0.y
lds_load_byte_id(0) r0.x, l0.x
lds_load_ubyte_id(0) r0.y, l0.x
lds_load_short_id(0) r0.z, l0.x
lds_load_ushort_id(0) r0.w, l0.x
uav_raw_store_id(0) mem, l0.x, r0
lds_store_byte_id(0) l0.z, l0.y
lds_store_short_id(0) l0.z, l0.y
lds_load_id(0) r1.x, l0.x
uav_raw_store_id(0) mem.x, l0.w, r1.x
end
";
    let w = run_ok(text);
    assert_eq!(&w[0..4], &[0xFFFF_FF81, 0x81, 0xFFFF_8081, 0x8081]);
    // Bytes after the byte and short stores at byte 2: 81 80 81 80 (little-endian).
    assert_eq!(w[4], 0x8081_8081);
}

#[test]
fn barrier_makes_lds_writes_visible_to_the_group() {
    // Each of 64 invocations stores its id; after the barrier invocation 0 sums them all.
    let text = "il_cs_2_0
dcl_num_thread_per_group 64
dcl_raw_uav_id(0)
dcl_lds_id(0) 256
dcl_literal l0, 2, 0, 64, 1
ishl r0.x, vTidInGrpFlat.x, l0.x
lds_store_id(0) r0.x, vTidInGrpFlat.x
fence_threads_lds
if_logicalz vTidInGrpFlat.x
    mov r1, l0.y
    mov r2, l0.y
    whileloop
        ieq r3.x, r1.x, l0.z
        break_logicalnz r3.x
        ishl r4.x, r1.x, l0.x
        lds_load_id(0) r5.x, r4.x
        iadd r2.x, r2.x, r5.x
        iadd r1.x, r1.x, l0.w
    endloop
    ishl r6.x, vThreadGrpIdFlat.x, l0.x
    uav_raw_store_id(0) mem.x, r6.x, r2.x
endif
end
";
    let (w, stats) = run_full(text, [3, 1, 1], &[0; 3]).unwrap();
    assert_eq!(w, vec![2016, 2016, 2016]);
    assert_eq!(stats.barriers, 3);
    assert_eq!(stats.invocations, 192);
}

#[test]
fn invocations_that_finished_leave_the_barrier() {
    // Invocations 2 and 3 return before the barrier; 0 and 1 store their id in LDS, wait, then
    // read their neighbour's (1 ^ id). The barrier is released once the rest finished.
    let text = "il_cs_2_0
dcl_num_thread_per_group 4
dcl_raw_uav_id(0)
dcl_lds_id(0) 16
dcl_literal l0, 2, 1, 0, 0
uge r0.x, vTidInGrpFlat.x, l0.x
if_logicalnz r0.x
    ret_dyn
endif
ishl r1.x, vTidInGrpFlat.x, l0.x
lds_store_id(0) r1.x, vTidInGrpFlat.x
fence_threads_lds
ixor r2.x, vTidInGrpFlat.x, l0.y
ishl r2.x, r2.x, l0.x
lds_load_id(0) r3.x, r2.x
uav_raw_store_id(0) mem.x, r1.x, r3.x
end
";
    let (w, stats) = run_full(text, [1, 1, 1], &[9; 4]).unwrap();
    assert_eq!(w, vec![1, 0, 9, 9]);
    assert_eq!(stats.barriers, 1);
}

#[test]
fn compute_system_registers() {
    // Group size (2, 2, 1), grid (2, 3, 1). Invocation local (1, 0, 0) of group (1, 2, 0) stores
    // its registers: vAbsTid = (3, 4, 0); vTidInGrp = (1, 0, 0); vThreadGrpId = (1, 2, 0);
    // flat local = 1; flat group = 2·2 + 1 = 5; vAbsTidFlat = 5·4 + 1 = 21.
    let text = "il_cs_2_0
dcl_num_thread_per_group 2, 2, 1
dcl_raw_uav_id(0)
dcl_literal l0, 1, 2, 0, 64
dcl_literal l1, 5, 0, 16, 32
ieq r0.x, vTidInGrpFlat.x, l0.x
ieq r0.y, vThreadGrpIdFlat.x, l1.x
iand r0.x, r0.x, r0.y
if_logicalnz r0.x
    mov r1, vAbsTid
    uav_raw_store_id(0) mem.xyz, l0.z, r1
    mov r1, vTidInGrp
    uav_raw_store_id(0) mem.xyz, l1.z, r1
    mov r1, vThreadGrpId
    uav_raw_store_id(0) mem.xyz, l1.w, r1
    mov r1.x, vTidInGrpFlat.x
    mov r1.y, vThreadGrpIdFlat.x
    mov r1.z, vAbsTidFlat.x
    uav_raw_store_id(0) mem.xyz, l0.w, r1
endif
end
";
    let w = run_uav(text, [2, 3, 1], &[0xAA; 20]).unwrap();
    assert_eq!(&w[0..3], &[3, 4, 0]);
    assert_eq!(&w[4..7], &[1, 0, 0]);
    assert_eq!(&w[8..11], &[1, 2, 0]);
    assert_eq!(&w[16..19], &[1, 5, 21]);
}

#[test]
fn the_schedule_order_decides_order_sensitive_atomics() {
    // Each invocation exchanges (its id + 1) into word 0 and stores what it got back at word
    // 1 + id. Forward: ids 0, 1, 2, 3 see 0, 1, 2, 3 and word 0 ends as 4. Reverse: ids 3, 2,
    // 1, 0 see 0, 4, 3, 2 and word 0 ends as 1.
    let text = "il_cs_2_0
dcl_num_thread_per_group 4
dcl_raw_uav_id(0)
dcl_literal l0, 0, 1, 2, 4
iadd r0.x, vTidInGrpFlat.x, l0.y
uav_read_xchg_id(0) r1.x, l0.x, r0.x
ishl r2.x, r0.x, l0.z
uav_raw_store_id(0) mem.x, r2.x, r1.x
end
";
    let program = parse(text);
    let run_in = |order| {
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs = vec![vec![0; 20]];
        d.order = order;
        run(&program, &mut d).unwrap();
        words(&d.uavs[0])
    };
    assert_eq!(run_in(il_sim::Order::Forward), vec![4, 0, 1, 2, 3]);
    assert_eq!(run_in(il_sim::Order::Reverse), vec![1, 2, 3, 4, 0]);
    // Interleaved, the exchanges still come in id order (all four reach it in the same round).
    assert_eq!(run_in(il_sim::Order::Interleaved), vec![4, 0, 1, 2, 3]);
}

#[test]
fn interleaving_separates_read_modify_write_sequences() {
    // Each invocation reads word 0, adds one and writes it back (a race). Run one after another
    // the increments all land (4); interleaved, all four read 0 before anyone writes (1).
    let text = "il_cs_2_0
dcl_num_thread_per_group 4
dcl_raw_uav_id(0)
dcl_literal l0, 0, 1, 0, 0
uav_raw_load_id(0) r0.x, l0.x
iadd r0.x, r0.x, l0.y
uav_raw_store_id(0) mem.x, l0.x, r0.x
end
";
    let program = parse(text);
    let run_in = |order| {
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs = vec![vec![0; 4]];
        d.order = order;
        let stats = run(&program, &mut d).unwrap();
        (words(&d.uavs[0])[0], stats.steps)
    };
    // Seven instructions each (declarations count), whatever the order.
    assert_eq!(run_in(il_sim::Order::Forward), (4, 28));
    assert_eq!(run_in(il_sim::Order::Reverse), (4, 28));
    assert_eq!(run_in(il_sim::Order::Interleaved), (1, 28));
}
