//! The verifier: rules of the AMD IL guide that a well-formed program must meet, checked on the
//! model before it is written (il-writer trusts it). Every rule cites its source.
//!
//! Checked: operand and trailing-token counts and control bits per the opcode table; the program
//! ends with exactly one `end` (guide §4.1); block balance of if/else/endif, loops, switch/case,
//! func/endfunc/ret and `endmain` (§4.1, §7.4); call targets exist; `break`/`continue` only inside
//! loops (and switch for break); declarations before use for literals, constant buffers, indexed
//! temps, UAVs, SRVs, LDS, GDS and shared registers (§2.1, §7.5); registers legal for the shader
//! kind and readable/writable in their position (§5); the index operand selects one component
//! (§2.2.6); instruction and register device validity per [`Family`] (Appendix D); no mixing of
//! SM40-only and SM30-only items (Appendix C.2).

use std::collections::HashSet;
use std::fmt;

use crate::Opcode;
use crate::enums::{CompSel, DivComp, DstComp, ShiftScale};
use crate::optable::{ControlLayout, Extra, Family, Flow, ShaderModel};
use crate::program::{Dst, Index, Inst, Program, Reg, Src};
use crate::regs::RegType;

/// One rule violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// Index of the offending instruction in `Program::body` (`None` for whole-program rules).
    pub inst: Option<usize>,
    /// What is wrong, citing the rule.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inst {
            Some(i) => write!(f, "instruction {i}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Open blocks during the structure walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    If { has_else: bool },
    Loop,
    Switch { has_default: bool },
    Func { returned: bool },
    Phase,
    Macro,
}

/// Instructions and registers seen so far, for the mutual-exclusion rules of Appendix C.3.
#[derive(Default)]
struct Seen {
    num_thread_per_group: bool,
    max_thread_per_group: bool,
    stream_ops: bool,
    plain_emit_ops: bool,
    owner_computes_lds: bool,
    random_access_lds: bool,
    depth_kinds: u8,
    vertex_declared: bool,
}

/// Integer, bit, multimedia and memory instructions: no `_sat`/shift and no float-only source
/// modifiers (guide §2.2.5, §2.2.7 Table 2.10, §7.13 "no modifiers").
const INTEGER_OPS: &[Opcode] = &[
    Opcode::IAdd,
    Opcode::INegate,
    Opcode::IMul,
    Opcode::IMulHigh,
    Opcode::IMad,
    Opcode::IMul24,
    Opcode::IMad24,
    Opcode::IMul24High,
    Opcode::IMax,
    Opcode::IMin,
    Opcode::IEq,
    Opcode::INe,
    Opcode::ILt,
    Opcode::IGe,
    Opcode::And,
    Opcode::IOr,
    Opcode::IXor,
    Opcode::INot,
    Opcode::IShl,
    Opcode::IShr,
    Opcode::ICarry,
    Opcode::IBorrow,
    Opcode::UDiv,
    Opcode::UMod,
    Opcode::UMul,
    Opcode::UMulHigh,
    Opcode::UMad,
    Opcode::UMul24,
    Opcode::UMad24,
    Opcode::UMul24High,
    Opcode::UMax,
    Opcode::UMin,
    Opcode::UGe,
    Opcode::ULt,
    Opcode::UShr,
    Opcode::UBitExtract,
    Opcode::IBitExtract,
    Opcode::UBitInsert,
    Opcode::UBitReverse,
    Opcode::ICountbits,
    Opcode::IFirstbit,
    Opcode::BitAlign,
    Opcode::ByteAlign,
    Opcode::Sad,
    Opcode::SadHi,
    Opcode::Sad4,
    Opcode::U4lerp,
    Opcode::F2U4,
    Opcode::Ftoi,
    Opcode::Ftou,
    Opcode::I64Add,
    Opcode::I64Eq,
    Opcode::I64Ge,
    Opcode::I64Lt,
    Opcode::I64Ne,
    Opcode::I64Max,
    Opcode::I64Min,
    Opcode::I64Negate,
    Opcode::I64Shl,
    Opcode::I64Shr,
    Opcode::U64Ge,
    Opcode::U64Lt,
    Opcode::U64Max,
    Opcode::U64Min,
    Opcode::U64Shr,
];

/// 64-bit results that go to `.xy` or `.zw` (guide §7.2.5, §7.2.8; amd-il.md §0 item 10).
const PAIR_RESULT_OPS: &[Opcode] = &[
    Opcode::DAdd,
    Opcode::DMul,
    Opcode::DDiv,
    Opcode::DMuladd,
    Opcode::DMax,
    Opcode::DMin,
    Opcode::DMov,
    Opcode::DMovc,
    Opcode::DSqrt,
    Opcode::DRcp,
    Opcode::DRsq,
    Opcode::DFrac,
    Opcode::DLdexp,
    Opcode::F2D,
    Opcode::I64Add,
    Opcode::I64Negate,
    Opcode::I64Max,
    Opcode::I64Min,
    Opcode::U64Max,
    Opcode::U64Min,
    Opcode::I64Shl,
    Opcode::I64Shr,
    Opcode::U64Shr,
];

/// Shifts whose amount (`src1`) must be one replicated component (guide §7.7, amd-il.md §0 item 5).
const SHIFT_OPS: &[Opcode] = &[
    Opcode::IShl,
    Opcode::IShr,
    Opcode::UShr,
    Opcode::I64Shl,
    Opcode::I64Shr,
    Opcode::U64Shr,
];

/// Stores whose destination is the mask-only `mem` register (guide §7.16; amd-il.md §6.3/§6.4).
const MEM_DST_OPS: &[Opcode] = &[
    Opcode::UavRawStore,
    Opcode::UavStructStore,
    Opcode::LdsStoreVec,
    Opcode::LdsWriteVec,
];

/// Declared objects, by kind and number.
#[derive(Default)]
struct Declared {
    literals: HashSet<u32>,
    cbs: HashSet<u32>,
    itemps: HashSet<u32>,
    uavs: HashSet<u32>,
    srvs: HashSet<u32>,
    lds: HashSet<u32>,
    gds: HashSet<u32>,
    shared_temps: Option<u32>,
}

struct Verifier<'a> {
    program: &'a Program,
    family: Family,
    errors: Vec<VerifyError>,
    at: usize,
    saw_sm40: Option<usize>,
    saw_sm30: Option<usize>,
}

/// Checks `program` against the rules above for GPU family `family`.
pub fn verify(program: &Program, family: Family) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier {
        program,
        family,
        errors: Vec::new(),
        at: 0,
        saw_sm40: None,
        saw_sm30: None,
    };
    v.run();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

impl Verifier<'_> {
    fn err(&mut self, message: impl Into<String>) {
        self.errors.push(VerifyError {
            inst: Some(self.at),
            message: message.into(),
        });
    }

    fn run(&mut self) {
        let body = &self.program.body;
        match body.last() {
            Some(last) if last.op == Opcode::End => {}
            _ => self.errors.push(VerifyError {
                inst: None,
                message: "the program must end with `end` (guide §4.1)".into(),
            }),
        }
        let labels: HashSet<u32> = body
            .iter()
            .filter(|i| i.op == Opcode::Func)
            .filter_map(|i| i.extra.first().copied())
            .collect();
        let mut declared = Declared::default();
        let mut stack: Vec<Block> = Vec::new();
        let mut after_endmain = false;
        let mut func_labels = HashSet::new();
        let mut seen = Seen::default();
        self.check_macros();
        for (at, inst) in body.iter().enumerate() {
            self.at = at;
            self.check_shape(inst);
            self.check_device(inst);
            self.check_structure(
                inst,
                &mut stack,
                &mut after_endmain,
                &mut func_labels,
                &labels,
            );
            self.check_declarations(inst, &mut declared);
            self.check_operand_rules(inst);
            self.check_exclusions(inst, &mut seen);
            if matches!(inst.op, Opcode::Dclv | Opcode::Initv) {
                seen.vertex_declared = true;
            }
            for dst in &inst.dst {
                self.check_dst(dst, inst);
            }
            for src in &inst.src {
                self.check_src(src, inst);
            }
            if !seen.vertex_declared && !is_declaration(inst.op) && uses_reg(inst, RegType::Vertex)
            {
                self.err("VERTEX registers need a `dclv` or `initv` first (guide §4.1)");
            }
        }
        if let (Some(a), Some(b)) = (self.saw_sm40, self.saw_sm30) {
            self.errors.push(VerifyError {
                inst: Some(a.max(b)),
                message: format!(
                    "SM40-only item (instruction {a}) mixed with SM30-only item (instruction {b}) (guide Appendix C.2)"
                ),
            });
        }
        if !stack.is_empty() && !matches!(stack.as_slice(), [Block::Func { returned: true }]) {
            self.errors.push(VerifyError {
                inst: None,
                message: format!("unclosed block(s) at end: {stack:?}"),
            });
        }
    }

    /// Operand counts, trailing tokens and control bits per the table (amd-il.md §1.10–§1.12).
    fn check_shape(&mut self, inst: &Inst) {
        let info = inst.info();
        let layout = info.control;
        let ctrl = inst.ctrl.0;
        let undefined = ctrl & !layout.defined_bits();
        if undefined != 0 {
            self.err(format!(
                "control bits {undefined:#06x} are not defined for `{}` (amd-il.md §1.12)",
                info.mnemonic
            ));
        }
        if layout.owns_modifier_bits() && (inst.pri_mod.is_some() || inst.sec_mod.is_some()) {
            self.err(format!(
                "`{}` uses opcode bits 31:30 itself; no modifier tokens (amd-il.md §1.4)",
                info.mnemonic
            ));
        }
        let ext_layout = matches!(
            layout,
            ControlLayout::Sample
                | ControlLayout::Load
                | ControlLayout::ResInfo
                | ControlLayout::BufInfo
        );
        let ext = ctrl & (1 << 12) != 0;
        if inst.resource_format.is_some() && !(ext_layout && ext) {
            self.err(
                "a resource-format token needs an `_ext` sample/load instruction (amd-il.md §1.10)",
            );
        }
        if inst.addr_offset.is_some()
            && !matches!(layout, ControlLayout::Sample | ControlLayout::Load)
        {
            self.err("an address-offset token needs a sample/load instruction (amd-il.md §1.10)");
        }
        let immediate_cb = inst.op == Opcode::DclConstBuffer && ctrl & 0x8000 != 0;
        let want_src = if immediate_cb {
            0
        } else {
            usize::from(info.src + layout.extra_srcs(ctrl))
        };
        let want_dst = usize::from(info.dst);
        if inst.op != Opcode::Macrocall
            && (inst.dst.len() != want_dst || inst.src.len() != want_src)
        {
            self.err(format!(
                "`{}` takes {want_dst} destination(s) and {want_src} source(s), found {} and {}",
                info.mnemonic,
                inst.dst.len(),
                inst.src.len()
            ));
        }
        let n = inst.extra.len();
        let extra_ok = match info.extra {
            Extra::None => n == 0,
            Extra::Label | Extra::CaseValue | Extra::Float | Extra::ResourceFormat => n == 1,
            Extra::MacroSignature => n == usize::from(inst.op == Opcode::Macrodef),
            Extra::InterfacePtr => n >= 2,
            Extra::Words(k) => n == usize::from(k),
            Extra::StrideLength => n == 2,
            Extra::CountedWords => (1..=3).contains(&n),
            Extra::ImmediateConstants => immediate_cb || n == 0,
            Extra::Comment | Extra::LabelList => true,
        };
        if !extra_ok {
            self.err(format!(
                "`{}` has {n} trailing token(s), which its layout does not allow (amd-il.md §1.11)",
                info.mnemonic
            ));
        }
    }

    /// Shader kind, family and shader-model partition of the instruction (Appendix C, D).
    fn check_device(&mut self, inst: &Inst) {
        let info = inst.info();
        if !info.shaders.contains(self.program.shader) {
            self.err(format!(
                "`{}` is not available in {:?} shaders",
                info.mnemonic, self.program.shader
            ));
        }
        if !info.families.contains(self.family) {
            self.err(format!(
                "`{}` is not supported on {} (guide Appendix D)",
                info.mnemonic,
                self.family.name()
            ));
        }
        if info.fp64 && self.family < Family::R700 {
            self.err(format!(
                "`{}` needs double precision, which {} lacks (guide Appendix D)",
                info.mnemonic,
                self.family.name()
            ));
        }
        self.note_model(info.model);
    }

    fn note_model(&mut self, model: ShaderModel) {
        match model {
            ShaderModel::Sm40 => {
                self.saw_sm40.get_or_insert(self.at);
            }
            ShaderModel::Sm30 => {
                self.saw_sm30.get_or_insert(self.at);
            }
            ShaderModel::Any => {}
        }
    }

    /// Block balance and placement (guide §4.1, §7.4).
    fn check_structure(
        &mut self,
        inst: &Inst,
        stack: &mut Vec<Block>,
        after_endmain: &mut bool,
        func_labels: &mut HashSet<u32>,
        labels: &HashSet<u32>,
    ) {
        let info = inst.info();
        if *after_endmain && stack.is_empty() && !matches!(info.flow, Flow::Func | Flow::End) {
            self.err("after `endmain` only `func` blocks and `end` may follow (guide §4.1)");
        }
        // A function that returned with `ret` at its top level ends at the next `func` or `end`.
        if matches!(info.flow, Flow::Func | Flow::End)
            && stack.last() == Some(&Block::Func { returned: true })
        {
            stack.pop();
        }
        match info.flow {
            Flow::If => stack.push(Block::If { has_else: false }),
            Flow::Else => match stack.last_mut() {
                Some(Block::If { has_else }) if !*has_else => *has_else = true,
                _ => self.err("`else` without an open `if` block (guide §7.4)"),
            },
            Flow::EndIf => self.close(stack, |b| matches!(b, Block::If { .. }), "endif"),
            Flow::Loop => stack.push(Block::Loop),
            Flow::EndLoop => self.close(stack, |b| matches!(b, Block::Loop), "endloop"),
            Flow::Switch => stack.push(Block::Switch { has_default: false }),
            Flow::Case => {
                if !matches!(stack.last(), Some(Block::Switch { .. })) {
                    self.err("`case` outside a `switch` (guide §7.4)");
                }
            }
            Flow::Default => match stack.last_mut() {
                Some(Block::Switch { has_default }) if !*has_default => *has_default = true,
                Some(Block::Switch { .. }) => {
                    self.err("a second `default` in one `switch` (guide §7.4)")
                }
                _ => self.err("`default` outside a `switch` (guide §7.4)"),
            },
            Flow::EndSwitch => {
                self.close(stack, |b| matches!(b, Block::Switch { .. }), "endswitch")
            }
            Flow::Func => {
                if !*after_endmain {
                    self.err("`func` before `endmain` (guide §4.1)");
                }
                if !stack.is_empty() {
                    self.err("`func` inside an open block");
                }
                if let Some(&label) = inst.extra.first()
                    && !func_labels.insert(label)
                {
                    self.err(format!(
                        "function label {label} defined twice (guide §7.4 FUNC)"
                    ));
                }
                stack.push(Block::Func { returned: false });
            }
            Flow::EndFunc => self.close(stack, |b| matches!(b, Block::Func { .. }), "endfunc"),
            Flow::Ret => {
                if let Some(Block::Func { returned }) = stack.last_mut() {
                    *returned = true;
                } else if !stack.is_empty() {
                    self.err("`ret` inside a flow-control block; use `ret_dyn` (guide §7.4)");
                }
            }
            Flow::EndMain => {
                if !stack.is_empty() || *after_endmain {
                    self.err(
                        "`endmain` must be at the top level of the main program, once (guide §4.1)",
                    );
                }
                *after_endmain = true;
            }
            Flow::End => {
                if !stack.is_empty() {
                    self.err("`end` inside an open block (guide §4.1)");
                }
                if self.at + 1 != self.program.body.len() {
                    self.err("`end` must be the last instruction (guide §4.1)");
                }
            }
            Flow::Call => {
                if let Some(label) = inst.extra.first()
                    && !labels.contains(label)
                {
                    self.err(format!(
                        "call target {label} has no `func {label}` (guide §7.4)"
                    ));
                }
            }
            Flow::Break => {
                if !stack
                    .iter()
                    .any(|b| matches!(b, Block::Loop | Block::Switch { .. }))
                {
                    self.err("`break` outside a loop or switch (guide §7.4)");
                }
            }
            Flow::Continue => {
                if !stack.contains(&Block::Loop) {
                    self.err("`continue` outside a loop (guide §7.4)");
                }
            }
            Flow::Phase => {
                if stack.last() == Some(&Block::Phase) {
                    stack.pop();
                }
                stack.push(Block::Phase);
            }
            Flow::EndPhase => self.close(stack, |b| matches!(b, Block::Phase), "endphase"),
            Flow::MacroDef => stack.push(Block::Macro),
            Flow::MacroEnd => self.close(stack, |b| matches!(b, Block::Macro), "mend"),
            Flow::None => {}
        }
    }

    fn close(&mut self, stack: &mut Vec<Block>, opens: impl Fn(&Block) -> bool, name: &str) {
        match stack.last() {
            Some(b) if opens(b) => {
                stack.pop();
            }
            _ => self.err(format!(
                "`{name}` does not close the innermost open block (guide §7.4)"
            )),
        }
    }

    /// Declarations before use (guide §2.1, §7.5) and uniqueness of literals (§7.5 DCL_LITERAL).
    fn check_declarations(&mut self, inst: &Inst, d: &mut Declared) {
        let id = u32::from(inst.ctrl.0 & 0x3FF);
        let first_num = inst.src.first().map(|s| s.reg.num);
        match inst.op {
            Opcode::DclLiteral => {
                if let Some(n) = first_num
                    && !d.literals.insert(n)
                {
                    self.err(format!(
                        "literal l{n} declared twice (guide §7.5 DCL_LITERAL)"
                    ));
                }
                return;
            }
            Opcode::DclConstBuffer => {
                d.cbs.extend(first_num);
                return;
            }
            Opcode::DclIndexedTempArray => {
                d.itemps.extend(first_num);
                return;
            }
            Opcode::DclSharedTemp => {
                d.shared_temps = first_num;
                return;
            }
            Opcode::DclRawUav
            | Opcode::DclStructUav
            | Opcode::DclUav
            | Opcode::DclArenaUav
            | Opcode::DclTypedUav
            | Opcode::DclTypelessUav => {
                d.uavs.insert(
                    id & if inst.op == Opcode::DclUav {
                        0xF
                    } else {
                        0x3FF
                    },
                );
            }
            Opcode::DclRawSrv | Opcode::DclStructSrv => {
                d.srvs.insert(id & 0xFF);
            }
            Opcode::DclLds | Opcode::DclStructLds => {
                d.lds.insert(id & 0xF);
            }
            Opcode::DclGds | Opcode::DclStructGds => {
                d.gds.insert(id);
            }
            _ => {}
        }
        let mnemonic = inst.info().mnemonic;
        let layout = inst.info().control;
        let is_decl = mnemonic.starts_with("dcl");
        if !is_decl {
            if mnemonic.starts_with("uav_") && !d.uavs.contains(&(id & 0x3FF)) {
                self.err(format!(
                    "UAV {} used before its declaration (guide §2.1)",
                    id & 0x3FF
                ));
            }
            if mnemonic.starts_with("lds_")
                && layout == ControlLayout::LdsId
                && !d.lds.contains(&(id & 0xF))
            {
                self.err(format!(
                    "LDS {} used before its declaration (guide §2.1)",
                    id & 0xF
                ));
            }
            if mnemonic.starts_with("srv_") && !d.srvs.contains(&(id & 0xFF)) {
                self.err(format!(
                    "SRV {} used before its declaration (guide §2.1)",
                    id & 0xFF
                ));
            }
            if mnemonic.starts_with("gds_") && !d.gds.contains(&id) {
                self.err(format!("GDS {id} used before its declaration (guide §2.1)"));
            }
        }
        let mut regs: Vec<&Reg> = Vec::new();
        for dst in &inst.dst {
            collect_regs(&dst.reg, &mut regs);
        }
        for src in &inst.src {
            collect_regs(&src.reg, &mut regs);
        }
        for reg in regs {
            let missing = match reg.ty {
                RegType::Literal => !d.literals.contains(&reg.num),
                RegType::ConstBuff if reg.dim2.is_none() => !d.cbs.contains(&reg.num),
                RegType::ITemp => !d.itemps.contains(&reg.num),
                RegType::SharedTemp => d.shared_temps.is_none_or(|count| reg.num >= count),
                _ => false,
            };
            if missing {
                self.err(format!(
                    "{:?} {} used before its declaration (guide §2.1)",
                    reg.ty, reg.num
                ));
            }
        }
    }

    /// Macro definitions before the version line: `mdef` … `mend` groups (guide §7.19).
    fn check_macros(&mut self) {
        let mut open = false;
        for (at, inst) in self.program.macros.iter().enumerate() {
            let message = match (inst.op, open) {
                (Opcode::Macrodef, false) => {
                    open = true;
                    None
                }
                (Opcode::Macrodef, true) => Some("`mdef` inside a macro body (guide §7.19)"),
                (Opcode::Macroend, true) => {
                    open = false;
                    None
                }
                (_, false) => {
                    Some("only macro definitions may precede the version line (guide §7.19)")
                }
                _ => None,
            };
            if let Some(message) = message {
                self.errors.push(VerifyError {
                    inst: None,
                    message: format!("macro instruction {at}: {message}"),
                });
            }
        }
        if open {
            self.errors.push(VerifyError {
                inst: None,
                message: "a macro lacks its `mend` (guide §7.19)".into(),
            });
        }
    }

    /// Masks, swizzles and modifiers legal for the opcode, and the forms the text syntax can
    /// express (guide §2.2.4–§2.2.8, §7).
    fn check_operand_rules(&mut self, inst: &Inst) {
        let op = inst.op;
        let info = inst.info();
        if info.control == ControlLayout::CountOfExtra && inst.ctrl.0 != 0 {
            self.err("the control field of this declaration is derived from its values (amd-il.md §1.11)");
        }
        if inst
            .dst
            .iter()
            .skip(1)
            .any(|d| d.sat || d.shift != ShiftScale::None)
        {
            self.err("only the first destination can carry `_sat` or a shift (amd-il.md §3.6)");
        }
        if is_declaration(op) {
            self.check_declaration_operand(inst);
            return;
        }
        let integer = INTEGER_OPS.contains(&op)
            || info.model == ShaderModel::Sm40 && !info.mnemonic.starts_with("sample");
        for dst in &inst.dst {
            let writes = dst.mask.iter().filter(|c| **c == DstComp::Write).count();
            if dst.mask.iter().all(|c| *c == DstComp::NoWrite) {
                self.err("the write mask selects no component (guide §2.2.5)");
            }
            if integer && (dst.sat || dst.shift != ShiftScale::None) {
                self.err(format!(
                    "`{}` takes no `_sat` or shift (guide §2.2.5)",
                    info.mnemonic
                ));
            }
            let scalar_result = info.mnemonic.contains("_read_") && info.mnemonic != "lds_read_vec"
                || info.mnemonic.starts_with("append_buf");
            if scalar_result && writes != 1 {
                self.err(format!(
                    "`{}` returns one value: the mask must write one component (guide §7.16)",
                    info.mnemonic
                ));
            }
            if PAIR_RESULT_OPS.contains(&op) {
                let m = dst.mask.map(|c| c == DstComp::Write);
                if m != [true, true, false, false] && m != [false, false, true, true] {
                    self.err(format!(
                        "`{}` writes a 64-bit pair: mask `.xy__` or `.__zw` (guide §7.2.5)",
                        info.mnemonic
                    ));
                }
            }
            let mem = dst.reg.ty == RegType::GenericMem;
            if MEM_DST_OPS.contains(&op) && !mem {
                self.err(format!(
                    "`{}` stores through the `mem` destination (guide §7.16)",
                    info.mnemonic
                ));
            }
            if mem && !(MEM_DST_OPS.contains(&op) || info.mnemonic.contains("store")) {
                self.err("`mem` is only the mask of store instructions (guide §5)");
            }
        }
        for src in &inst.src {
            if integer
                && (src.invert
                    || src.bias
                    || src.x2
                    || src.sign
                    || src.abs
                    || src.clamp
                    || src.divcomp != DivComp::None)
            {
                self.err(format!(
                    "`{}` allows only swizzle and negate on sources (guide §2.2.7 Table 2.10)",
                    info.mnemonic
                ));
            }
        }
        if SHIFT_OPS.contains(&op)
            && let Some(amount) = inst.src.get(1)
            && amount.swizzle.iter().any(|c| *c != amount.swizzle[0])
        {
            self.err("the shift amount must be one replicated component (guide §7.7)");
        }
        for operand in inst
            .dst
            .iter()
            .map(|d| &d.reg)
            .chain(inst.src.iter().map(|s| &s.reg))
        {
            self.check_representable(operand);
        }
    }

    /// The operand of `dcl_literal` / `dcl_cb` / `dcl_indexed_temp_array` / `dcl_shared_temp`.
    fn check_declaration_operand(&mut self, inst: &Inst) {
        let want = match inst.op {
            Opcode::DclLiteral => Some((RegType::Literal, false)),
            Opcode::DclConstBuffer if inst.ctrl.0 & 0x8000 == 0 => Some((RegType::ConstBuff, true)),
            Opcode::DclIndexedTempArray => Some((RegType::ITemp, true)),
            Opcode::DclSharedTemp => Some((RegType::SharedTemp, false)),
            _ => None,
        };
        if let (Some((ty, sized)), Some(src)) = (want, inst.src.first()) {
            let size_ok = matches!(src.reg.index, Some(Index::Imm(_))) == sized;
            if src.reg.ty != ty || !size_ok || src.reg.dim2.is_some() || src.has_modifier() {
                let form = if sized {
                    "name[size]"
                } else {
                    "a plain register"
                };
                self.err(format!(
                    "`{}` declares a {ty:?} register written as {form} (guide §7.5)",
                    inst.info().mnemonic
                ));
            }
        }
    }

    /// Operand shapes the text syntax cannot tell apart (amd-il.md §3.3; il-writer's `reg_text`).
    fn check_representable(&mut self, reg: &Reg) {
        if let Some(Index::Rel { reg: index, .. }) = &reg.index
            && index.reg.ty == RegType::Addr
        {
            self.err("an `a#` index is written `[a0.x]`, the DX9 address-register form; use it (amd-il.md §1.7)");
        }
        if let Some(second) = &reg.dim2 {
            let plain = second.reg.ty == reg.ty
                && second.reg.index.is_none()
                && second.reg.dim2.is_none()
                && !second.has_modifier();
            let relative = second.reg.ty == RegType::ConstBool
                && second.reg.num == 0
                && matches!(second.reg.index, Some(Index::Rel { .. }))
                && second.reg.dim2.is_none()
                && !second.has_modifier();
            if !plain && !relative {
                self.err("a second index must be a number or a register-relative expression (guide §2.2.8)");
            }
        }
    }

    /// Appendix C.3 mutual exclusions.
    fn check_exclusions(&mut self, inst: &Inst, seen: &mut Seen) {
        let (flag, other, rule) = match inst.op {
            Opcode::DclNumThreadPerGroup => (
                &mut seen.num_thread_per_group,
                seen.max_thread_per_group,
                "dcl_num_thread_per_group ✕ dcl_max_thread_per_group",
            ),
            Opcode::DclMaxThreadPerGroup => (
                &mut seen.max_thread_per_group,
                seen.num_thread_per_group,
                "dcl_num_thread_per_group ✕ dcl_max_thread_per_group",
            ),
            Opcode::DclStream
            | Opcode::EmitStream
            | Opcode::CutStream
            | Opcode::EmitThenCutStream => (
                &mut seen.stream_ops,
                seen.plain_emit_ops,
                "stream ✕ non-stream emit/cut",
            ),
            Opcode::Emit | Opcode::Cut | Opcode::EmitThenCut => (
                &mut seen.plain_emit_ops,
                seen.stream_ops,
                "stream ✕ non-stream emit/cut",
            ),
            Opcode::DclLdsSizePerThread
            | Opcode::DclLdsSharingMode
            | Opcode::LdsReadVec
            | Opcode::LdsWriteVec => (
                &mut seen.owner_computes_lds,
                seen.random_access_lds,
                "owner-computes ✕ random-access LDS",
            ),
            Opcode::DclLds | Opcode::DclStructLds => (
                &mut seen.random_access_lds,
                seen.owner_computes_lds,
                "owner-computes ✕ random-access LDS",
            ),
            _ => {
                for (i, ty) in [RegType::Depth, RegType::DepthLe, RegType::DepthGe]
                    .into_iter()
                    .enumerate()
                {
                    if inst.dst.iter().any(|d| d.reg.ty == ty) {
                        seen.depth_kinds |= 1 << i;
                    }
                }
                if seen.depth_kinds.count_ones() > 1 {
                    self.err("oDepth ✕ oDepthLE ✕ oDepthGE (guide Appendix C.3)");
                    seen.depth_kinds = 0;
                }
                return;
            }
        };
        *flag = true;
        if other {
            self.err(format!("{rule} (guide Appendix C.3)"));
        }
    }

    fn check_reg(&mut self, reg: &Reg, write: bool) {
        let info = reg.ty.info();
        if write && !info.writable {
            self.err(format!(
                "{:?} registers cannot be written (guide §5)",
                reg.ty
            ));
        }
        if !write && !info.readable {
            self.err(format!("{:?} registers cannot be read (guide §5)", reg.ty));
        }
        if !info.shaders.contains(self.program.shader) {
            self.err(format!(
                "{:?} registers do not exist in {:?} shaders (guide §5)",
                reg.ty, self.program.shader
            ));
        }
        if !info.families.contains(self.family) {
            self.err(format!(
                "{:?} registers are not supported on {} (guide Appendix D)",
                reg.ty,
                self.family.name()
            ));
        }
        self.note_model(info.model);
        if let Some(Index::Rel { reg: index, .. }) = &reg.index {
            let s = index.swizzle;
            if s.iter().any(|c| *c != s[0]) || matches!(s[0], CompSel::Zero | CompSel::One) {
                self.err("an index register must select one component, replicated (guide §2.2.6)");
            }
            self.check_reg(&index.reg, false);
        }
        if let Some(second) = &reg.dim2
            && let Some(Index::Rel { reg: index, .. }) = &second.reg.index
        {
            self.check_reg(&index.reg, false);
        }
    }

    fn check_dst(&mut self, dst: &Dst, inst: &Inst) {
        // Declaration operands name the register they declare; they are not writes.
        if is_declaration(inst.op) {
            return;
        }
        self.check_reg(&dst.reg, true);
        if dst.reg.index.is_some()
            && !matches!(
                dst.reg.ty,
                RegType::ITemp | RegType::Output | RegType::Global | RegType::Persist
            )
        {
            self.err(format!(
                "{:?} destinations cannot be indexed (guide §2.2.4)",
                dst.reg.ty
            ));
        }
    }

    fn check_src(&mut self, src: &Src, inst: &Inst) {
        if is_declaration(inst.op) {
            return;
        }
        self.check_reg(&src.reg, false);
    }
}

/// Whether any operand of `inst` (indices included) is a register of type `ty`.
fn uses_reg(inst: &Inst, ty: RegType) -> bool {
    let mut regs = Vec::new();
    for dst in &inst.dst {
        collect_regs(&dst.reg, &mut regs);
    }
    for src in &inst.src {
        collect_regs(&src.reg, &mut regs);
    }
    regs.iter().any(|r| r.ty == ty)
}

/// Declarations and DX9 definitions: their operands name registers rather than access them.
fn is_declaration(op: Opcode) -> bool {
    op.info().mnemonic.starts_with("dcl")
        || matches!(op, Opcode::Def | Opcode::Defb | Opcode::Initv)
}

fn collect_regs<'a>(reg: &'a Reg, out: &mut Vec<&'a Reg>) {
    out.push(reg);
    if let Some(Index::Rel { reg: index, .. }) = &reg.index {
        collect_regs(&index.reg, out);
    }
    if let Some(second) = &reg.dim2 {
        collect_regs(&second.reg, out);
    }
}
