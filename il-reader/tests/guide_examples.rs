//! The AMD IL guide's own examples: the operand token examples of §2.2.8 (digest amd-il.md §1.9),
//! the destination-mask and swizzle values of §2.2.5/§2.2.7 (digest §1.5/§1.6), and every example
//! program that is complete IL (digest §3.9). Expected tokens are the guide's; programs must parse,
//! verify, and round-trip through text and tokens.

use il_model::{Family, Program, verify};
use il_reader::{decode_tokens, parse_text};
use il_writer::{to_text, to_tokens};
use pretty_assertions::assert_eq;

/// Tokens of the single source operand of `mov r0, OPERAND` in a program of kind `kind`, after
/// optional declarations `decls` (the `mov` packet is opcode · r0 · operand tokens).
fn src_tokens(kind: &str, decls: &str, operand: &str) -> Vec<u32> {
    let text = format!("il_{kind}_2_0\n{decls}mov r0, {operand}\nend\n");
    let program = parse_text(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let tokens = to_tokens(&program);
    let mov = tokens.len() - 1 - program_tail_len(&program, &tokens);
    // Operand tokens sit between `opcode r0` and `end`.
    tokens[mov + 2..tokens.len() - 1].to_vec()
}

/// Number of tokens from the `mov` opcode to the end of the stream, minus the `mov` packet's
/// own offset: the `mov` is the second-to-last packet, so find it by scanning from the end.
fn program_tail_len(program: &Program, tokens: &[u32]) -> usize {
    let mov_code = u32::from(il_model::Opcode::Mov.code());
    let last_mov = tokens
        .iter()
        .rposition(|t| *t == mov_code)
        .expect("a mov packet");
    assert_eq!(
        program.body.last().map(|i| i.op),
        Some(il_model::Opcode::End)
    );
    tokens.len() - 1 - last_mov
}

/// After parsing, the operand must print back as written and decode to the same model.
fn assert_operand_round_trip(kind: &str, decls: &str, operand: &str) {
    let text = format!("il_{kind}_2_0\n{decls}mov r0, {operand}\nend\n");
    let program = parse_text(&text).expect("parses");
    assert_eq!(to_text(&program), text);
    assert_eq!(decode_tokens(&to_tokens(&program)).as_ref(), Ok(&program));
}

#[test]
fn guide_2_2_8_source_operand_examples() {
    // Guide §2.2.8 / digest §1.9 table. Header bits: num 15:0, type 21:16, modifier 22,
    // addressing 24:23, dimension 25, immediate 26. ITEMP = 30, TEMP = 4, VERTEX = 5, CONST_BUFF = 31.
    assert_eq!(
        src_tokens("cs", "dcl_indexed_temp_array x5[8]\n", "x5[6].y"),
        [5 | 30 << 16 | 1 << 22 | 1 << 26, 0x1111, 6]
    );
    assert_eq!(
        src_tokens("cs", "dcl_indexed_temp_array x5[8]\n", "x5[r2.x+6].y"),
        [
            5 | 30 << 16 | 1 << 22 | 2 << 23 | 1 << 26,
            0x1111,
            2 | 4 << 16 | 1 << 22,
            0x0000,
            6
        ]
    );
    // `v[1][2]` uses VERTEX registers, i.e. a DX9 vertex shader (after a `dclv`).
    assert_eq!(
        src_tokens("vs", "dclv_elem(0) v0\n", "v[1][2]"),
        [1 | 5 << 16 | 1 << 25, 2 | 5 << 16]
    );
    assert_eq!(
        src_tokens("vs", "dclv_elem(0) v0\n", "v[1][2].xyxx"),
        [1 | 5 << 16 | 1 << 22 | 1 << 25, 0x0010, 2 | 5 << 16]
    );
    // The nine-token example; the second level has register type 0 as in the guide.
    assert_eq!(
        src_tokens("cs", "", "cb[r6.w+2][r2.x+4].y"),
        [
            31 << 16 | 1 << 22 | 2 << 23 | 1 << 25 | 1 << 26,
            0x1111,
            6 | 4 << 16 | 1 << 22,
            0x3333,
            2,
            2 << 23 | 1 << 26,
            2 | 4 << 16 | 1 << 22,
            0x0000,
            4,
        ]
    );
    assert_operand_round_trip("cs", "dcl_indexed_temp_array x5[8]\n", "x5[6].y");
    assert_operand_round_trip("cs", "dcl_indexed_temp_array x5[8]\n", "x5[r2.x+6].y");
    assert_operand_round_trip("vs", "dclv_elem(0) v0\n", "v[1][2].xyxx");
    assert_operand_round_trip("cs", "", "cb[r6.w+2][r2.x+4].y");
}

#[test]
fn guide_2_2_5_and_2_2_7_modifier_values() {
    // Digest §1.5: IL_Dst_Mod values of write masks.
    for (mask, value) in [
        ("x___", 0x01),
        ("xy__", 0x05),
        ("__z_", 0x10),
        ("xyz1", 0xD5),
        ("_y_w", 0x44),
    ] {
        let text = format!("il_cs_2_0\nmov r0.{mask}, r1\nend\n");
        let tokens = to_tokens(&parse_text(&text).expect("parses"));
        assert_eq!(tokens[3..5], [4 << 16 | 1 << 22, value], "{mask}");
    }
    // `.xyzw` needs no modifier token at all (§2.2.4: without Dst_Mod all four are written).
    let tokens = to_tokens(&parse_text("il_cs_2_0\nmov r0.xyzw, r1\nend\n").expect("parses"));
    assert_eq!(tokens[3], 4 << 16);
    // Digest §1.6: replicate swizzles and a mixed one.
    for (swizzle, value) in [
        ("x", 0x0000),
        ("y", 0x1111),
        ("z", 0x2222),
        ("w", 0x3333),
        ("wzyx", 0x0123),
    ] {
        assert_eq!(
            src_tokens("cs", "", &format!("r1.{swizzle}")),
            [1 | 4 << 16 | 1 << 22, value],
            "{swizzle}"
        );
    }
}

/// Parses, verifies for `family`, and checks both round trips; returns the program.
fn check_program(text: &str, family: Family) -> Program {
    let program = parse_text(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(verify(&program, family), Ok(()));
    let canonical = to_text(&program);
    assert_eq!(
        parse_text(&canonical).as_ref(),
        Ok(&program),
        "canonical text reads back"
    );
    let tokens = to_tokens(&program);
    assert_eq!(
        decode_tokens(&tokens).as_ref(),
        Ok(&program),
        "tokens read back"
    );
    program
}

/// Guide §3: the green-stripes vertex shader (comments as in the guide).
const GUIDE_3_VS: &str = "il_vs
dclv_elem(0) v0          ; Declare position
dclv_elem(1) v1          ; Declare color
dclv_elem(2) v2          ; Declare texture coordinates

mmul_matrix(4x4) oPos, v0, c[0] ; Transform position to clip space

mov oPriColor0, v1       ; Export vertex color
mov oT0, v2              ; Export texture coordinates

end
";

/// Guide §3: the green-stripes pixel shader. The extracted guide text wraps one comment onto the
/// next line ("coordinates"); it is rejoined here.
const GUIDE_3_PS: &str = "il_ps
dclpi_x(1)_y(1)_z(1)_w(1) vPriColor0 ; Declare primary color import
dclpi_x(1)_y(1)_z(*)_w(*) vT0        ; Declare vs import texture coordinates

def c0, 0.5, 1, 0, 0
def c1, 0.0, 1.0, 0.0, 1.0          ; Green color

mod r0.x, vT0.x, c0.y              ; x = mod( s, 1.0 )

ifc_relop(lt) r0.x, c0.x            ; if ( x < 0.5 )
    mov oC0, vPriColor0            ; Output surface color
else ; else
    mov oC0.rgb1, c1                ; Output green color
endif

end
";

/// Guide §3.8: the checkerboard pixel shader with a subroutine (same comment fix as above).
const GUIDE_3_8_PS: &str = "il_ps
dclpi_x(1)_y(1)_z(1)_w(1) vPriColor0 ; Declare vs import color
dclpi_x(1)_y(1)_z(*)_w(*) vT0         ; Declare vs import texture coordinates

def c0, 0, 1, 0.5, 0
def c1, 2.0, 2.0, 0.0, 0.0          ; tfreq, sfreq
def c2, 1.0, 0.0, 0.0, 0.0          ; red checker color

; Perform mod( s * sfreq, 1 )
mul r10.x, vT0.x, c1.x              ; a = s * sfreq
mov r10.y, c0.y                     ; b = 1
call 1
mov r1.x, r11.x                     ; smod = mod( a, b )

; Perform mod( t * tfreq, 1 )
mul r10.x, vT0.y, c1.y              ; a = t * tfreq
mov r10.y, c0.y                     ; b = 1
call 1
mov r2.x, r11.x                     ; tmod = mod( a, b )

ifc_relop(lt) r1.x, c0.z              ; if ( smod < 0.5 ) {
    ifc_relop(lt) r2.x, c0.z          ;   if ( tmod < 0.5 )
        mov r0, vPriColor0           ;       Ci = Cs
    else                             ;   else
        mov r0, c2                   ;       Ci = redcolor
    endif                           ; }
else                                ; else {
    ifc_relop(lt) r2.x, c0.z          ;   if ( tmod < 0.5 )
        mov r0, vPriColor0           ;       Ci = Cs
    else                             ;   else
        mov r0, c2                   ;       Ci = redcolor
    endif                           ;
endif                               ; }

mov oC0, r0.rgb1                    ; ensure alpha is 1

endmain                                ; seperator between shader and subroutines.

; float c = mod( float a, float b )
func 1
    rcp r12.y, r10.y                    ; ( 1 / b )
    mul r12.x, r10.x, r12.y            ; ( a / b )
    frc r12.z, r12.x
    sub r12.x, r12.x, r12.z            ; n = (int)(a/b)
    mul r12.x, r12.x, r10.y            ; n*b
    sub r10.x, r10.x, r12.x            ; a -= (n*b)

    ifc_relop(lt) r10.x, c0.x          ; if ( a < 0 )
        add r10.x, r10.x, r10.y        ;     a += b
    endif

    mov r11.x, r10.x                  ; return a;
ret
end
";

#[test]
fn guide_3_green_stripes() {
    let vs = check_program(GUIDE_3_VS, Family::R600);
    // §2.2.2 / digest §1.3: `il_vs` is VS (0) with the default version 2.0.
    assert_eq!(to_tokens(&vs)[..2], [0, 0x0000_0200]);
    let ps = check_program(GUIDE_3_PS, Family::R600);
    assert_eq!(to_tokens(&ps)[..2], [0, 0x0001_0200]);
    // `def c0, 0.5, 1, 0, 0`: IL_Dst{CONST_FLOAT 0} then four float bit patterns (digest §1.11).
    let tokens = to_tokens(&ps);
    let def = tokens
        .iter()
        .position(|t| *t == u32::from(il_model::Opcode::Def.code()))
        .expect("def");
    assert_eq!(
        tokens[def + 1..def + 6],
        [1 << 16, 0x3F00_0000, 0x3F80_0000, 0, 0]
    );
}

#[test]
fn guide_3_8_subroutine() {
    check_program(GUIDE_3_VS, Family::R600);
    let ps = check_program(GUIDE_3_8_PS, Family::R600);
    // `call 1` is opcode IL_OP_CALL (8) followed by the label (digest §1.11).
    let tokens = to_tokens(&ps);
    assert!(tokens.windows(2).any(|w| w == [8, 1]));
}

#[test]
fn guide_7_5_init_shared_registers() {
    let p = check_program("il_cs_2\ninit_shared_registers\nend\n", Family::R700);
    // IL_OP_INIT_SR = Appendix-B 209 + 1 = 210 (digest §2.1); `il_cs_2` is version 2.0.
    assert_eq!(to_tokens(&p), [0, 0x0003_0200, 210, 40]);
}

#[test]
fn guide_7_19_macro() {
    // The §7.19 macro (digest §3.9 (e)) in front of a minimal kernel that calls it.
    let text = "mdef(0)_out(1)_in(2)
inot r1, in0
ult r2, r1, in1
dcl_literal l1, 1, 1, 1, 1
iand out0, r2, l1
mend
il_cs_2_0
dcl_num_thread_per_group 1
mcall(0) (r5), (r3, r4)
end
";
    let p = check_program(text, Family::Evergreen);
    let tokens = to_tokens(&p);
    // mdef(0) · signature {in 2, out 1} comes before IL_Lang (guide §7.19, digest §1.1).
    assert_eq!(tokens[..2], [345, 0x0102]);
    // mcall(0) · {outputs 1, inputs 2} · r5 · r3 · r4.
    let mcall = tokens.iter().position(|t| *t == 347).expect("mcall");
    assert_eq!(
        tokens[mcall..mcall + 5],
        [347, 1 | 2 << 16, 5 | 4 << 16, 3 | 4 << 16, 4 | 4 << 16]
    );
}

/// Digest §3.9 (f): constructed compute kernel using only documented forms.
const DIGEST_F: &str = "il_cs_2_0
dcl_num_thread_per_group 64, 1, 1
dcl_raw_uav_id(0)                                  ; a
dcl_raw_uav_id(1)                                  ; b
dcl_raw_uav_id(2)                                  ; out
dcl_cb cb0[1]                                      ; cb0[0].x = element count
dcl_literal l0, 0x00000002, 0x3F800000, 0x00000000, 0x00000000
mov r0.x___, vAbsTidFlat.x
uge r0._y__, r0.x, cb0[0].x                        ; out of range?  (0xFFFFFFFF / 0)
if_logicalz r0.y
    ishl r1.x___, r0.x, l0.x                       ; byte address = i*4
    uav_raw_load_id(0) r2.x___, r1.x
    uav_raw_load_id(1) r3.x___, r1.x
    mad_ieee r2.x___, r2.x, r3.x, l0.y
    uav_raw_store_id(2) mem.x___, r1.x, r2.x
endif
end
";

/// Digest §3.9 (g): the reduction skeleton, its elided tail (`…`) replaced by nothing.
const DIGEST_G: &str = "il_cs_2_0
dcl_num_thread_per_group 256, 1, 1
dcl_raw_uav_id(0)
dcl_lds_id(0) 1024                                 ; 256 dwords
dcl_literal l0, 0x00000002, 0x00000080, 0x00000000, 0x00000001
mov r0.x___, vTidInGrpFlat.x
ishl r0._y__, r0.x, l0.x                            ; lds byte address = lid*4
ishl r1.x___, vAbsTidFlat.x, l0.x
uav_raw_load_id(0) r2.x___, r1.x
lds_store_id(0) r0.y, r2.x
fence_threads_lds
mov r3.x___, l0.y                                  ; stride = 128
whileloop
    ieq r4.x___, r3.x, l0.z
    break_logicalnz r4.x                           ; stride == 0 → done
    ult r4.x___, r0.x, r3.x
    if_logicalnz r4.x
        iadd r5.x___, r0.x, r3.x
        ishl r5.x___, r5.x, l0.x
        lds_load_id(0) r6.x___, r5.x
        lds_load_id(0) r7.x___, r0.y
        iadd r7.x___, r7.x, r6.x
        lds_store_id(0) r0.y, r7.x
    endif
    fence_threads_lds
    ushr r3.x___, r3.x, l0.w
endloop
end
";

#[test]
fn digest_constructed_kernels() {
    for text in [DIGEST_F, DIGEST_G] {
        let p = check_program(text, Family::Evergreen);
        // The writer's canonical text of these is the listing minus comments and padding.
        let stripped: String = text
            .lines()
            .map(|l| l.split(';').next().unwrap_or("").trim_end())
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(to_text(&p), stripped);
    }
}

#[test]
fn guide_spellings_next_to_amd_tool_spellings() {
    // Guide syntax lines (`ffb(option)`, `emitthencut`, `dcl_num_instance`,
    // `dcl_lds_sharing_mode _wavefrontRel`, flags after `dcl_global_flags`) and AMD-tool spellings
    // (`ffb_hi`, `emitcut`, `and`, `round_posinf`, `vThreadGrpID`, `lds_read_add_resource(0)`,
    // `dcl_typeless_uav_…_access(read_write)`) read the same; the writer prints one canonical form.
    let pairs = [
        ("ffb(hi) r0, r1", "ffb_hi r0, r1"),
        ("and r0, r1, r2", "iand r0, r1, r2"),
        ("round_posinf r0, r1", "round_plusinf r0, r1"),
        (
            "dcl_lds_sharing_mode_wavefrontAbs",
            "dcl_lds_sharing_mode _wavefrontAbs",
        ),
        (
            "dcl_global_flags refactoringAllowed, enableDoublePrecisionFloatOps",
            "dcl_global_flags refactoringAllowed enableDoublePrecisionFloatOps",
        ),
        (
            "dcl_typeless_uav_id(11)_stride(4)_length(4)_access(read_write)",
            "dcl_typeless_uav_id(11)_stride(4)_length(4)",
        ),
        ("mov r0, vThreadGrpID", "mov r0, vThreadGrpId"),
        ("mov r0, vaTid", "mov r0, vAbsTidFlat"),
        (
            "lds_read_add_resource(0) r0.x___, r1.x, r2.x",
            "lds_read_add_id(0) r0.x___, r1.x, r2.x",
        ),
        ("mov r0.y r1", "mov r0._y__, r1"),
        ("mov r0, mem0", "mov r0, mem"),
    ];
    for (variant, canonical) in pairs {
        let p = parse_text(&format!("il_cs_2_0\n{variant}\nend\n"))
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(to_text(&p), format!("il_cs_2_0\n{canonical}\nend\n"));
    }
    for (variant, canonical) in [
        ("emitcut", "emitthencut"),
        ("dcl_num_instances 2", "dcl_num_instance 2"),
        ("dcl_ts_domain ts_domain_tri", "dcl_ts_domain ts_domain_tri"),
    ] {
        let p = parse_text(&format!("il_gs_2_0\n{variant}\nend\n"))
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(to_text(&p), format!("il_gs_2_0\n{canonical}\nend\n"));
    }
}
