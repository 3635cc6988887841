//! One pass over the program before it runs: collect declarations (literals, constant buffers,
//! indexed temp arrays, UAVs, SRVs, LDS, work-group size), resolve every flow-control
//! instruction to its jump targets (the IL is structured, guide §7.2.2, so every target is
//! static), and check register numbers and operand counts so that execution never indexes out
//! of range.

use std::collections::{BTreeMap, HashMap};

use il_model::{Extra, Flow, Index, Inst, Nested, Opcode, Program, Reg, RegType, ShaderKind, Src};

use il_model::enums::ElementFormat;

use crate::error::{ErrorKind, SimError};
use crate::image::Shape;

/// Highest temp register number accepted (`r0`…`r4095`, [`il_model::limits`]). Bounds the
/// register file allocated per invocation.
pub const MAX_TEMP_REGISTERS: u32 = il_model::limits::MAX_TEMP_REGISTERS;

/// Most vec4 elements all indexed temp arrays together may declare ([`il_model::limits`]).
pub const MAX_INDEXED_TEMP_ELEMENTS: u64 = il_model::limits::MAX_INDEXED_TEMP_ELEMENTS as u64;

/// Most LDS bytes all declarations together may use ([`il_model::limits`], guide DCL_LDS).
pub const MAX_LDS_BYTES: u64 = il_model::limits::MAX_LDS_BYTES as u64;

/// Most vec4 elements of one constant buffer ([`il_model::limits`]).
pub const MAX_CB_ELEMENTS: u32 = il_model::limits::MAX_CB_ELEMENTS;

/// Highest constant-buffer number (`cb0`…`cb14`, [`il_model::limits`]).
pub const MAX_CB_ID: u32 = il_model::limits::MAX_CB_ID;

/// How a UAV was declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UavKind {
    /// `dcl_raw_uav_id(n)` / `dcl_typeless_uav`: byte addresses.
    Raw,
    /// `dcl_struct_uav_id(n) stride`: (index, byte offset) addresses.
    Struct {
        /// Bytes per element.
        stride: u32,
    },
    /// `dcl_uav_id(n)_type(t)_fmtx(f)`: element coordinates into a bound [`crate::Image`].
    Typed(Shape),
}

/// How an SRV was declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrvKind {
    /// `dcl_raw_srv_id(n)`.
    Raw,
    /// `dcl_struct_srv_id(n) stride`.
    Struct {
        /// Bytes per element.
        stride: u32,
    },
}

/// One LDS declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdsDecl {
    /// Total bytes.
    pub bytes: u32,
    /// The struct stride of `dcl_struct_lds`, `None` for typeless LDS.
    pub stride: Option<u32>,
}

/// Literal numbers below this live in a table indexed by number (the hot path of operand
/// reads); higher ones in a map.
pub const DIRECT_LITERALS: u32 = 4096;

/// Where control goes for a flow-control instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Jump {
    /// Not a jump (or a no-op marker such as `case`, `endif`).
    None,
    /// `if_logical*`, `ifc`: where to go when the condition fails (after `else` or `endif`).
    If { on_false: usize },
    /// `else`, reached at the end of the true branch: go past `endif`.
    Else { end: usize },
    /// `endloop`: back to the first instruction of the loop body.
    EndLoop { body: usize },
    /// A break form: past the innermost `endloop`/`endswitch`.
    Break { target: usize },
    /// A continue form: to the innermost `endloop` (which jumps back).
    Continue { target: usize },
    /// `switch`: the case labels (value, index of the instruction after the label), the default
    /// label, and the instruction after `endswitch`.
    Switch {
        cases: Vec<(u32, usize)>,
        default: Option<usize>,
        end: usize,
    },
    /// `call*`: the first instruction of the function body.
    Call { body: usize },
}

/// Everything execution needs to know besides the instructions.
#[derive(Debug)]
pub struct Prepared {
    /// One entry per instruction.
    pub jumps: Vec<Jump>,
    /// `dcl_literal` values by literal number, below [`DIRECT_LITERALS`].
    pub literals: Vec<Option<[u32; 4]>>,
    /// `dcl_literal` values of higher numbers.
    pub far_literals: HashMap<u32, [u32; 4]>,
    /// Declared constant buffers: number → vec4 count.
    pub cbs: HashMap<u32, u32>,
    /// Immediate constant buffer data (`dcl_cb` with the immediate flag), vec4 elements.
    pub icb: Vec<[u32; 4]>,
    /// Indexed temp arrays: number → (slot in the per-invocation list, vec4 count).
    pub itemps: BTreeMap<u32, (usize, u32)>,
    /// Number of temp registers each invocation needs (highest `r` number + 1).
    pub temp_count: usize,
    /// UAV declarations by id.
    pub uavs: BTreeMap<u32, UavKind>,
    /// SRV declarations by id.
    pub srvs: BTreeMap<u32, SrvKind>,
    /// Resource (`dcl_resource`) declarations by id.
    pub resources: BTreeMap<u32, Shape>,
    /// LDS declarations by id.
    pub lds: BTreeMap<u32, LdsDecl>,
    /// `dcl_num_thread_per_group` (missing dimensions are 1), if declared.
    pub group_size: Option<[u32; 3]>,
}

impl Prepared {
    /// The value of literal `num`, if declared.
    pub fn literal(&self, num: u32) -> Option<[u32; 4]> {
        if num < DIRECT_LITERALS {
            self.literals.get(num as usize).copied().flatten()
        } else {
            self.far_literals.get(&num).copied()
        }
    }
}

/// Open blocks during the structure walk.
enum Block {
    If {
        at: usize,
        else_at: Option<usize>,
    },
    Loop {
        at: usize,
        exits: Vec<usize>,
    },
    Switch {
        at: usize,
        cases: Vec<(u32, usize)>,
        default: Option<usize>,
        breaks: Vec<usize>,
    },
    Func {
        returned: bool,
    },
}

fn malformed(at: usize, message: impl Into<String>) -> SimError {
    SimError::at(at, ErrorKind::Malformed, message)
}

fn unsupported(at: usize, message: impl Into<String>) -> SimError {
    SimError::at(at, ErrorKind::Unsupported, message)
}

/// The value of the control field called `name` in the instruction's layout, if it has one.
pub fn ctrl_field(inst: &Inst, name: &str) -> Option<u32> {
    inst.info()
        .control
        .fields()
        .iter()
        .find(|f| f.name == name || f.aliases.contains(&name))
        .map(|f| f.get(inst.ctrl.0))
}

/// The resource id of a UAV/LDS/SRV instruction or declaration (its `_id(n)` field).
pub fn resource_id(inst: &Inst) -> u32 {
    ctrl_field(inst, "id").unwrap_or(0)
}

/// Analyses `program`; see the module documentation.
pub fn prepare(program: &Program) -> Result<Prepared, SimError> {
    if program.shader != ShaderKind::Compute {
        return Err(SimError::whole(
            ErrorKind::Unsupported,
            format!(
                "il-sim runs compute programs (il_cs), not {:?}",
                program.shader
            ),
        ));
    }
    let body = &program.body;
    let mut p = Prepared {
        jumps: vec![Jump::None; body.len()],
        literals: Vec::new(),
        far_literals: HashMap::new(),
        cbs: HashMap::new(),
        icb: Vec::new(),
        itemps: BTreeMap::new(),
        temp_count: 0,
        uavs: BTreeMap::new(),
        srvs: BTreeMap::new(),
        resources: BTreeMap::new(),
        lds: BTreeMap::new(),
        group_size: None,
    };
    let mut itemp_total = 0u64;
    let mut lds_total = 0u64;
    let mut max_temp: Option<u32> = None;
    for (at, inst) in body.iter().enumerate() {
        check_shape(at, inst)?;
        for dst in &inst.dst {
            scan_reg(at, &dst.reg, &program.nested, &mut max_temp)?;
        }
        for src in &inst.src {
            scan_reg(at, &src.reg, &program.nested, &mut max_temp)?;
        }
        declare(at, inst, &mut p, &mut itemp_total, &mut lds_total)?;
    }
    p.temp_count = max_temp.map_or(0, |m| m as usize + 1);
    structure(body, &mut p.jumps)?;
    Ok(p)
}

/// Operand counts per the opcode table, so the executor may rely on them.
fn check_shape(at: usize, inst: &Inst) -> Result<(), SimError> {
    let info = inst.info();
    let immediate_cb = inst.op == Opcode::DclConstBuffer && inst.ctrl.0 & 0x8000 != 0;
    let want_src = if immediate_cb {
        0
    } else {
        usize::from(info.src + info.control.extra_srcs(inst.ctrl.0))
    };
    if inst.op != Opcode::Macrocall
        && (inst.dst.len() != usize::from(info.dst) || inst.src.len() != want_src)
    {
        return Err(malformed(
            at,
            format!(
                "`{}` takes {} destination(s) and {want_src} source(s), found {} and {}",
                info.mnemonic,
                info.dst,
                inst.dst.len(),
                inst.src.len()
            ),
        ));
    }
    let n = inst.extra.len();
    let extra_ok = match info.extra {
        Extra::Words(k) => n == usize::from(k),
        Extra::Label | Extra::CaseValue => n == 1,
        Extra::CountedWords => (1..=3).contains(&n),
        _ => true,
    };
    if !extra_ok {
        return Err(malformed(
            at,
            format!(
                "`{}` has {n} trailing token(s), which its layout does not allow",
                info.mnemonic
            ),
        ));
    }
    Ok(())
}

/// Checks temp register numbers (recursively through index operands) and records the highest.
fn scan_reg(
    at: usize,
    reg: &Reg,
    nested: &Nested,
    max_temp: &mut Option<u32>,
) -> Result<(), SimError> {
    if reg.ty == RegType::Temp {
        if reg.num >= MAX_TEMP_REGISTERS {
            return Err(malformed(
                at,
                format!(
                    "r{} is beyond the {MAX_TEMP_REGISTERS} temp registers il-sim provides",
                    reg.num
                ),
            ));
        }
        *max_temp = Some(max_temp.map_or(reg.num, |m| m.max(reg.num)));
    }
    for id in reg.index_reg().into_iter().chain(reg.dim2) {
        let nested_reg = nested
            .get(id)
            .ok_or_else(|| malformed(at, "an operand refers to a missing nested operand"))?;
        scan_reg(at, &nested_reg.reg, nested, max_temp)?;
    }
    Ok(())
}

fn first_src(at: usize, inst: &Inst) -> Result<&Src, SimError> {
    inst.src
        .first()
        .ok_or_else(|| malformed(at, "declaration without its register operand"))
}

fn imm_index(at: usize, reg: &Reg) -> Result<u32, SimError> {
    match reg.index {
        Some(Index::Imm(n)) => Ok(n),
        _ => Err(malformed(
            at,
            "declaration needs an immediate size in brackets",
        )),
    }
}

fn extra_word(at: usize, inst: &Inst, i: usize) -> Result<u32, SimError> {
    inst.extra
        .get(i)
        .copied()
        .ok_or_else(|| malformed(at, "missing trailing token"))
}

/// Records one declaration instruction; other instructions are ignored here.
fn declare(
    at: usize,
    inst: &Inst,
    p: &mut Prepared,
    itemp_total: &mut u64,
    lds_total: &mut u64,
) -> Result<(), SimError> {
    match inst.op {
        Opcode::DclLiteral => {
            let num = first_src(at, inst)?.reg.num;
            let mut values = [0u32; 4];
            for (i, v) in values.iter_mut().enumerate() {
                *v = extra_word(at, inst, i)?;
            }
            // Guide DCL_LITERAL: "the lexically nearest preceding" declaration applies; the
            // verifier forbids redeclaring, so the last one wins here.
            if num < DIRECT_LITERALS {
                let i = num as usize;
                if p.literals.len() <= i {
                    p.literals.resize(i + 1, None);
                }
                p.literals[i] = Some(values);
            } else {
                p.far_literals.insert(num, values);
            }
        }
        Opcode::DclConstBuffer => {
            if inst.ctrl.0 & 0x8000 != 0 {
                // Immediate constant buffer: a count word, then that many data words (amd-il.md
                // §1.11), read as vec4 elements.
                let count = extra_word(at, inst, 0)? as usize;
                let data = inst.extra.get(1..).unwrap_or(&[]);
                if data.len() != count {
                    return Err(malformed(
                        at,
                        "immediate constant buffer count does not match its data",
                    ));
                }
                p.icb = data
                    .chunks(4)
                    .map(|c| {
                        let mut v = [0u32; 4];
                        v[..c.len()].copy_from_slice(c);
                        v
                    })
                    .collect();
            } else {
                let src = first_src(at, inst)?;
                let size = imm_index(at, &src.reg)?;
                if src.reg.num > MAX_CB_ID || size > MAX_CB_ELEMENTS {
                    return Err(malformed(
                        at,
                        format!(
                            "cb{}[{size}] exceeds cb0–cb{MAX_CB_ID} of at most {MAX_CB_ELEMENTS} vec4",
                            src.reg.num
                        ),
                    ));
                }
                p.cbs.insert(src.reg.num, size);
            }
        }
        Opcode::DclIndexedTempArray => {
            let src = first_src(at, inst)?;
            let size = imm_index(at, &src.reg)?;
            *itemp_total += u64::from(size);
            if *itemp_total > MAX_INDEXED_TEMP_ELEMENTS {
                return Err(malformed(
                    at,
                    format!("indexed temp arrays exceed {MAX_INDEXED_TEMP_ELEMENTS} vec4 in total"),
                ));
            }
            let slot = p.itemps.len();
            let slot = p.itemps.get(&src.reg.num).map_or(slot, |&(s, _)| s);
            p.itemps.insert(src.reg.num, (slot, size));
        }
        Opcode::DclNumThreadPerGroup => {
            let mut size = [1u32; 3];
            for (i, w) in inst.extra.iter().take(3).enumerate() {
                size[i] = *w;
            }
            p.group_size = Some(size);
        }
        Opcode::DclRawUav | Opcode::DclTypelessUav => {
            p.uavs.insert(resource_id(inst), UavKind::Raw);
        }
        Opcode::DclStructUav => {
            let stride = extra_word(at, inst, 0)?;
            if stride == 0 || !stride.is_multiple_of(4) {
                return Err(malformed(
                    at,
                    "a structured UAV stride must be a positive multiple of 4 (guide DCL_STRUCT_UAV)",
                ));
            }
            p.uavs.insert(resource_id(inst), UavKind::Struct { stride });
        }
        Opcode::DclUav => {
            let shape = ctrl_field(inst, "type").and_then(Shape::of_usage);
            let fmt = ctrl_field(inst, "fmtx").and_then(ElementFormat::from_value);
            let fmt_ok = matches!(
                fmt,
                Some(
                    ElementFormat::Uint
                        | ElementFormat::Sint
                        | ElementFormat::Float
                        | ElementFormat::Unorm
                        | ElementFormat::Snorm
                )
            );
            let (Some(shape), true) = (shape, fmt_ok) else {
                return Err(unsupported(
                    at,
                    "il-sim runs typed UAVs of type buffer, 1d, 2d, 3d, 1darray or 2darray with uint, sint, float, unorm or snorm elements",
                ));
            };
            p.uavs.insert(resource_id(inst), UavKind::Typed(shape));
        }
        Opcode::DclResource => {
            let Some(shape) = ctrl_field(inst, "type").and_then(Shape::of_usage) else {
                return Err(unsupported(
                    at,
                    "il-sim reads resources of type buffer, 1d, 2d, 3d, 1darray or 2darray",
                ));
            };
            if ctrl_field(inst, "unnorm") == Some(1) {
                return Err(unsupported(at, "unnormalised resources are not simulated"));
            }
            p.resources.insert(resource_id(inst), shape);
        }
        Opcode::DclRawSrv => {
            p.srvs.insert(resource_id(inst), SrvKind::Raw);
        }
        Opcode::DclStructSrv => {
            let stride = extra_word(at, inst, 0)?;
            if stride == 0 || !stride.is_multiple_of(4) {
                return Err(malformed(
                    at,
                    "a structured SRV stride must be a positive multiple of 4",
                ));
            }
            p.srvs.insert(resource_id(inst), SrvKind::Struct { stride });
        }
        Opcode::DclLds | Opcode::DclStructLds => {
            let (bytes, stride) = if inst.op == Opcode::DclLds {
                (u64::from(extra_word(at, inst, 0)?), None)
            } else {
                let stride = extra_word(at, inst, 0)?;
                let count = extra_word(at, inst, 1)?;
                (u64::from(stride) * u64::from(count), Some(stride))
            };
            *lds_total += bytes;
            if *lds_total > MAX_LDS_BYTES {
                return Err(malformed(
                    at,
                    format!("LDS declarations exceed {MAX_LDS_BYTES} bytes (guide DCL_LDS)"),
                ));
            }
            // Bounded by MAX_LDS_BYTES just above.
            let bytes = bytes as u32;
            p.lds.insert(resource_id(inst), LdsDecl { bytes, stride });
        }
        Opcode::DclArenaUav | Opcode::DclGds | Opcode::DclStructGds | Opcode::DclSharedTemp => {
            return Err(unsupported(
                at,
                format!("`{}` is not simulated", inst.info().mnemonic),
            ));
        }
        _ => {}
    }
    Ok(())
}

/// Resolves every flow-control instruction (guide §7.4) and checks that blocks balance.
fn structure(body: &[Inst], jumps: &mut [Jump]) -> Result<(), SimError> {
    let mut stack: Vec<Block> = Vec::new();
    let mut funcs: HashMap<u32, usize> = HashMap::new();
    let mut calls: Vec<(usize, u32)> = Vec::new();
    for (at, inst) in body.iter().enumerate() {
        let flow = inst.info().flow;
        // A function that returned with `ret` at its top level ends at the next `func` or `end`
        // (the same reading as il-model's verifier).
        if matches!(flow, Flow::Func | Flow::End)
            && matches!(stack.last(), Some(Block::Func { returned: true }))
        {
            stack.pop();
        }
        match flow {
            Flow::None => {}
            Flow::If => {
                if matches!(inst.op, Opcode::Ifnz) {
                    return Err(unsupported(
                        at,
                        "`ifnz` tests DX9 boolean constants, which il-sim does not model",
                    ));
                }
                stack.push(Block::If { at, else_at: None });
            }
            Flow::Else => match stack.last_mut() {
                Some(Block::If { else_at, .. }) if else_at.is_none() => *else_at = Some(at),
                _ => return Err(malformed(at, "`else` without an open `if` block")),
            },
            Flow::EndIf => match stack.pop() {
                Some(Block::If { at: start, else_at }) => {
                    let after = at + 1;
                    if let (Some(e), Some(slot)) = (else_at, jumps.get_mut(start)) {
                        *slot = Jump::If { on_false: e + 1 };
                        if let Some(slot) = jumps.get_mut(e) {
                            *slot = Jump::Else { end: after };
                        }
                    } else if let Some(slot) = jumps.get_mut(start) {
                        *slot = Jump::If { on_false: after };
                    }
                }
                _ => return Err(malformed(at, "`endif` does not close an `if` block")),
            },
            Flow::Loop => {
                if inst.op != Opcode::While {
                    return Err(unsupported(
                        at,
                        "the DX9 counted `loop` is not simulated; use `whileloop`",
                    ));
                }
                stack.push(Block::Loop {
                    at,
                    exits: Vec::new(),
                });
            }
            Flow::EndLoop => match stack.pop() {
                Some(Block::Loop { at: start, exits }) => {
                    if let Some(slot) = jumps.get_mut(at) {
                        *slot = Jump::EndLoop { body: start + 1 };
                    }
                    for e in exits {
                        if let Some(slot) = jumps.get_mut(e) {
                            match slot {
                                Jump::Continue { target } => *target = at,
                                _ => *slot = Jump::Break { target: at + 1 },
                            }
                        }
                    }
                }
                _ => return Err(malformed(at, "`endloop` does not close a loop")),
            },
            Flow::Switch => stack.push(Block::Switch {
                at,
                cases: Vec::new(),
                default: None,
                breaks: Vec::new(),
            }),
            Flow::Case => match stack.last_mut() {
                Some(Block::Switch { cases, .. }) => {
                    let value = inst.extra.first().copied().unwrap_or(0);
                    if !cases.iter().any(|&(v, _)| v == value) {
                        cases.push((value, at + 1));
                    }
                }
                _ => return Err(malformed(at, "`case` outside a `switch`")),
            },
            Flow::Default => match stack.last_mut() {
                Some(Block::Switch { default, .. }) if default.is_none() => *default = Some(at + 1),
                Some(Block::Switch { .. }) => {
                    return Err(malformed(at, "a second `default` in one `switch`"));
                }
                _ => return Err(malformed(at, "`default` outside a `switch`")),
            },
            Flow::EndSwitch => match stack.pop() {
                Some(Block::Switch {
                    at: start,
                    cases,
                    default,
                    breaks,
                }) => {
                    if let Some(slot) = jumps.get_mut(start) {
                        *slot = Jump::Switch {
                            cases,
                            default,
                            end: at + 1,
                        };
                    }
                    for b in breaks {
                        if let Some(slot) = jumps.get_mut(b) {
                            *slot = Jump::Break { target: at + 1 };
                        }
                    }
                }
                _ => return Err(malformed(at, "`endswitch` does not close a `switch`")),
            },
            Flow::Break | Flow::Continue => {
                attach_exit(at, flow == Flow::Continue, &mut stack, jumps)?;
            }
            Flow::Func => {
                if !stack.is_empty() {
                    return Err(malformed(at, "`func` inside an open block"));
                }
                let label = inst.extra.first().copied().unwrap_or(0);
                if funcs.insert(label, at + 1).is_some() {
                    return Err(malformed(at, format!("function {label} defined twice")));
                }
                stack.push(Block::Func { returned: false });
            }
            Flow::EndFunc => match stack.pop() {
                Some(Block::Func { .. }) => {}
                _ => return Err(malformed(at, "`endfunc` without an open `func`")),
            },
            Flow::Ret => {
                if let Some(Block::Func { returned }) = stack.last_mut() {
                    *returned = true;
                }
            }
            Flow::EndMain | Flow::End => {
                if let Some(open) = stack.last() {
                    return Err(malformed(
                        open_at(open).unwrap_or(at),
                        format!("block not closed before `{}`", inst.info().mnemonic),
                    ));
                }
            }
            Flow::Call => {
                if inst.op == Opcode::Callnz {
                    return Err(unsupported(
                        at,
                        "`callnz` tests DX9 boolean constants, which il-sim does not model",
                    ));
                }
                calls.push((at, inst.extra.first().copied().unwrap_or(0)));
            }
            Flow::Phase | Flow::EndPhase | Flow::MacroDef | Flow::MacroEnd => {
                return Err(unsupported(
                    at,
                    format!("`{}` is not simulated", inst.info().mnemonic),
                ));
            }
        }
    }
    if let Some(at) = stack.iter().find_map(open_at) {
        return Err(malformed(at, "block never closed"));
    }
    for (at, label) in calls {
        let body = *funcs
            .get(&label)
            .ok_or_else(|| malformed(at, format!("call target {label} has no `func {label}`")))?;
        if let Some(slot) = jumps.get_mut(at) {
            *slot = Jump::Call { body };
        }
    }
    Ok(())
}

/// Where a block opened (functions have no single opening that matters for errors).
fn open_at(block: &Block) -> Option<usize> {
    match block {
        Block::If { at, .. } | Block::Loop { at, .. } | Block::Switch { at, .. } => Some(*at),
        Block::Func { .. } => None,
    }
}

/// Binds a break (to the innermost loop or switch) or a continue (to the innermost loop); the
/// targets are filled in when that block closes.
fn attach_exit(
    at: usize,
    is_continue: bool,
    stack: &mut [Block],
    jumps: &mut [Jump],
) -> Result<(), SimError> {
    for block in stack.iter_mut().rev() {
        match block {
            Block::Loop { exits, .. } => {
                exits.push(at);
                if let Some(slot) = jumps.get_mut(at) {
                    *slot = if is_continue {
                        Jump::Continue { target: 0 }
                    } else {
                        Jump::Break { target: 0 }
                    };
                }
                return Ok(());
            }
            Block::Switch { breaks, .. } if !is_continue => {
                breaks.push(at);
                return Ok(());
            }
            Block::Func { .. } => break,
            _ => {}
        }
    }
    Err(malformed(
        at,
        if is_continue {
            "continue outside a loop"
        } else {
            "break outside a loop or switch"
        },
    ))
}
