//! Instruction-level round trips: text → model → tokens → model → text must reproduce the
//! canonical line. The lines are written in the writer's canonical style (amd-il.md §3).

use il_reader::{decode_tokens, parse_text};
use il_writer::{to_text, to_tokens};
use pretty_assertions::assert_eq;

/// Compute-relevant instructions of milestone 1 (raw UAV, LDS, ALU, compare, convert, flow control,
/// constant buffers, literals, indexed temps), each a canonical line.
const LINES: &str = "il_cs_2_0
dcl_num_thread_per_group 64, 1, 1
dcl_max_thread_per_group 256
dcl_cb cb0[15]
dcl_literal l0, 0x00000002, 0x3F800000, 0xFFFFFFFF, 0x80000000
dcl_indexed_temp_array x0[16]
dcl_raw_uav_id(0)
dcl_raw_uav_id(11)
dcl_struct_uav_id(2) 16
dcl_lds_id(0) 1024
dcl_struct_lds_id(1) 4, 64
mov r0.x___, vAbsTidFlat.x
mov r1.xyz0, vAbsTid.xyz0
mov r2, vTidInGrp
mov r3.xy__, vThreadGrpId.xxyy
mov r4.___w, vThreadGrpIdFlat
mov r5, vTidInGrpFlat.x
mov r6, cb0[3]
mov r7.x___, cb0[r1.x+4].y
mov x0[r2.x+1], r3
mov r8, x0[5].wzyx
mov r9, r1_neg(xw)
mov r9, r1.x_abs
uav_raw_load_id(0) r1.x___, r0.x
uav_raw_load_id(11)_cached r1.xy__, r0.x
uav_raw_store_id(0) mem.xy__, r0.x, r1
uav_struct_load_id(2) r1, r0.xyyy
uav_struct_store_id(2) mem, r0.xyyy, r1
lds_load_id(0) r1.x___, r0.x
lds_store_id(0) r0.x, r1.x
lds_load_vec_id(1) r1, r0.x, r0.y
lds_store_vec_id(1) mem.xyz_, r0.x, r0.y, r1
lds_read_add_id(0) r2.x___, r0.x, r1.x
lds_add_id(0) r0.x, r1.x
lds_read_cmp_xchg_id(0) r2.x___, r0.x, r1.x, r1.y
uav_read_add_id(0) r2.x___, r0.x, r1.x
uav_add_id(0) r0.x, r1.x
uav_read_cmp_xchg_id(0) r2.x___, r0.x, r1.x, r1.y
fence_threads_lds
fence_threads_lds_memory
fence_memory
add r0, r1, r2
add_sat r0, r1, r2
add_x2_sat r0, r1, r2
sub r0, r1, r2
mul_ieee r0, r1, r2
mad_ieee r0, r1, r2, r3
div_zeroop(infinity) r0, r1, r2
div r0, r1, r2
min_ieee r0, r1, r2
max r0, r1, r2
dp3_ieee r0.x___, r1, r2
sqrt_vec r0, r1
rsq_zeroop(infinity) r0, r1.x
exp_vec r0, r1
log_vec r0, r1
sin_vec r0, r1
cos_vec r0, r1
flr r0, r1
frc r0, r1
round_nearest r0, r1
round_z r0, r1
round_neginf r0, r1
round_plusinf r0, r1
eq r0, r1, r2
ne r0, r1, r2
lt r0, r1, r2
ge r0, r1, r2
cmov_logical r0, r1, r2, r3
iadd r0, r1, r2
inegate r0, r1
imul r0, r1, r2
imad r0, r1, r2, r3
imul_high r0, r1, r2
imax r0, r1, r2
imin r0, r1, r2
ieq r0, r1, r2
ine r0, r1, r2
ilt r0, r1, r2
ige r0, r1, r2
iand r0, r1, r2
ior r0, r1, r2
ixor r0, r1, r2
inot r0, r1
ishl r0, r1, r2.x
ishr r0, r1, r2.x
ushr r0, r1, r2.x
udiv r0, r1, r2
umod r0, r1, r2
umul r0, r1, r2
umul_high r0, r1, r2
umad r0, r1, r2, r3
umax r0, r1, r2
umin r0, r1, r2
ult r0, r1, r2
uge r0, r1, r2
ftoi r0, r1
ftou r0, r1
itof r0, r1
utof r0, r1
f2d r0.xy__, r1.x
d2f r0.x___, r1
dadd r0.xy__, r1, r2
ffb_hi r0, r1
icbits r0, r1
ubit_extract r0, r1, r2, r3
ubit_insert r0, r1, r2, r3, r4
call 1
call_logicalnz r0.x, 1
whileloop
    if_logicalnz r0.x
        break
    else
        continue
    endif
    break_logicalz r0.y
    break_logicalnz r0.y
    continue_logicalz r0.y
    continue_logicalnz r0.y
    switch r0.x
        case 0
            mov r1, r2
            break
        case -1
            break
        default
            break
    endswitch
    if_logicalz r0.x
        ret_dyn
    endif
endloop
ret_dyn
endmain
func 1
    mov r0, r1
    ret_dyn
endfunc
end
";

#[test]
fn canonical_lines_round_trip_through_tokens() {
    let program = parse_text(LINES).expect("parses");
    assert_eq!(to_text(&program), LINES, "text → model → text");
    let tokens = to_tokens(&program);
    let decoded = decode_tokens(&tokens).expect("decodes");
    assert_eq!(decoded, program, "tokens → model");
    assert_eq!(to_text(&decoded), LINES, "… → text");
}

#[test]
fn milestone_program_verifies_but_for_its_two_group_sizes() {
    // The listing declares both work-group size forms to exercise both spellings; Appendix C.3
    // forbids that, and it is the only rule the listing breaks.
    let program = parse_text(LINES).expect("parses");
    let errors = il_model::verify(&program, il_model::Family::Evergreen).expect_err("C.3");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].inst, Some(1));
    assert!(errors[0].message.contains("Appendix C.3"));
}
