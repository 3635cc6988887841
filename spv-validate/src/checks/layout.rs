//! Logical layout (SPIR-V §2.4, digest §1.5; rules V-LAY-1…9, V-EP-1): the section order
//! of module-level instructions, what may appear inside functions, function declarations
//! before definitions, function-local variables at the start of the entry block, OpPhi at
//! the start of its block, and OpLine/OpNoLine placement.

use spv_reader::spirv::{self, Op};
use spv_reader::{Id, InstIndex};

use crate::ctx::{Ctx, Inst, NONE};
use crate::diag::opcode_name;

impl Section {
    fn name(self) -> &'static str {
        match self {
            Section::Capability => "capabilities",
            Section::Extension => "extensions",
            Section::ExtInstImport => "extended instruction imports",
            Section::MemoryModel => "memory model",
            Section::EntryPoint => "entry points",
            Section::ExecutionMode => "execution modes",
            Section::DebugSource => "debug (source)",
            Section::DebugName => "debug (names)",
            Section::DebugModuleProcessed => "debug (module processed)",
            Section::Annotation => "annotations",
            Section::Types => "types, constants and global variables",
            Section::Functions => "functions",
        }
    }
}

pub(crate) use crate::operands::{Section, is_type_decl};

/// Whether `inst` is an `OpExtInst` of a `NonSemantic.*` set (allowed at module scope).
pub(crate) fn is_non_semantic(ctx: &Ctx<'_>, inst: &Inst<'_>) -> bool {
    ctx.op_of(inst) == Some(Op::ExtInst)
        && inst
            .words()
            .get(3)
            .and_then(|&set| ctx.m.ext_inst_set(Id(set)))
            .is_some_and(|name| name.starts_with("NonSemantic."))
}

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let mut current = Section::Capability;
    let mut memory_models = 0usize;
    let mut in_function = false;
    let mut seen_definition = false;
    let ix = ctx.ix;
    let all = ix.insts().as_slice();
    let mut next = 0usize;
    while let Some(inst) = all.get(next) {
        next += 1;
        let i = inst.index();
        let Some(op) = ctx.op_of(inst) else { continue };
        let fi = inst.func();
        if fi != NONE {
            if !in_function {
                in_function = true;
                current = Section::Functions;
            }
            // The instruction opens function `fi` (the index's functions are the reader's
            // OpFunction … OpFunctionEnd ranges): the whole function is checked here.
            let end = m
                .functions()
                .get(fi as usize)
                .map_or(next, |f| (f.end.0 as usize + 1).min(all.len()))
                .max(next);
            for inst in all.get(next - 1..end).unwrap_or(&[]) {
                check_function_inst(ctx, inst, &mut seen_definition);
            }
            next = end;
            continue;
        }
        if op == Op::MemoryModel {
            memory_models += 1;
        }
        match inst.section() {
            Some(section) if in_function => ctx.err(
                "V-LAY-1",
                i,
                &[],
                format!(
                    "{} belongs to the {} section and cannot follow function definitions",
                    opcode_name(op as u16),
                    section.name()
                ),
            ),
            Some(section) if section < current => ctx.err(
                "V-LAY-1",
                i,
                &[],
                format!(
                    "{} belongs to the {} section, which comes before the {} section it \
                     appears in",
                    opcode_name(op as u16),
                    section.name(),
                    current.name()
                ),
            ),
            Some(section) => current = section,
            None => {
                let allowed_here = match op {
                    Op::Line | Op::NoLine | Op::Undef => current >= Section::Types,
                    Op::ExtInst => current >= Section::Types && is_non_semantic(ctx, inst),
                    _ => false,
                };
                if allowed_here {
                    if current < Section::Types {
                        current = Section::Types;
                    }
                } else {
                    let rule = if matches!(op, Op::Line | Op::NoLine) {
                        "V-LAY-5"
                    } else {
                        "V-LAY-1"
                    };
                    ctx.err(
                        rule,
                        i,
                        &[],
                        format!(
                            "{} cannot appear in the {} section",
                            opcode_name(op as u16),
                            current.name()
                        ),
                    );
                }
            }
        }
    }
    if memory_models == 0 {
        ctx.report(
            "V-LAY-2",
            None,
            Vec::new(),
            "the module has no OpMemoryModel (exactly one is required)",
        );
    }
    if m.entry_points().is_empty() && !ctx.has_cap(spirv::Capability::Linkage) {
        ctx.report(
            "V-EP-1",
            None,
            Vec::new(),
            "the module has no OpEntryPoint and does not declare the Linkage capability",
        );
    }
    check_blocks(ctx);
}

/// One instruction of a function: module-level instructions are not allowed inside it
/// (V-LAY-1), and function declarations come before definitions (V-LAY-6);
/// `seen_definition` tells whether a definition came before.
fn check_function_inst(ctx: &mut Ctx<'_>, inst: &Inst<'_>, seen_definition: &mut bool) {
    let Some(op) = ctx.op_of(inst) else { return };
    // Only instructions of a module-level section have rules here.
    let Some(section) = inst.section() else {
        return;
    };
    let i = inst.index();
    check_in_function(ctx, i, op, Some(section));
    if op == Op::Function
        && let Some(f) = ctx.m.functions().get(inst.func() as usize)
    {
        if f.blocks.is_empty() && *seen_definition {
            ctx.err(
                "V-LAY-6",
                i,
                &[f.id],
                format!(
                    "function declaration {} appears after a function definition",
                    f.id
                ),
            );
        }
        *seen_definition |= !f.blocks.is_empty();
    }
}

/// Instructions inside a function: module-level instructions are not allowed, nor are
/// global variables.
fn check_in_function(ctx: &mut Ctx<'_>, i: InstIndex, op: Op, section: Option<Section>) {
    let module_only = match section {
        Some(Section::Functions) => false,
        Some(Section::Types) => !matches!(op, Op::Variable | Op::UntypedVariableKHR),
        Some(_) => true,
        None => false,
    };
    if module_only {
        ctx.err(
            "V-LAY-1",
            i,
            &[],
            format!(
                "{} cannot appear in a function body",
                opcode_name(op as u16)
            ),
        );
    }
}

/// Placement inside blocks: local variables (V-LAY-7), OpPhi (V-LAY-8), OpLine/OpNoLine
/// (V-LAY-9).
///
/// Only OpVariable and OpPhi can break these rules, so only they are visited (in module
/// order, which is the order of functions and blocks), with what the instructions of their
/// block before them allow: the variables of the first block come first, after OpPhi,
/// OpLine, OpNoLine and non-semantic OpExtInst; OpPhi comes first, after OpLine and
/// OpNoLine. Each block is scanned at most once, up to its last OpVariable or OpPhi, and
/// not beyond the point where both prefixes have ended.
fn check_blocks(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let ix = ctx.ix;
    /// The block being scanned: (function, block index), the next instruction to scan,
    /// and whether the variable and OpPhi prefixes still hold there.
    struct Cursor {
        block: (u32, usize),
        next: u32,
        in_prefix_vars: bool,
        in_prefix_phis: bool,
    }
    let mut cursor: Option<Cursor> = None;
    // The two groups, each in module order, merged as they are read: no list is built or
    // sorted.
    let mut variables = ix.with_op(Op::Variable).peekable();
    let mut phis = ix.with_op(Op::Phi).peekable();
    while let Some(inst) = match (variables.peek(), phis.peek()) {
        (Some(v), Some(p)) if p.index().0 < v.index().0 => phis.next(),
        (Some(_), _) => variables.next(),
        (None, _) => phis.next(),
    } {
        let i = inst.index();
        let fi = inst.func();
        let Some(f) = m.functions().get(fi as usize) else {
            continue;
        };
        // The block holding the instruction between its first instruction and its
        // terminator, if any.
        let bi = f.blocks.partition_point(|b| b.terminator.0 <= i.0);
        let Some(b) = f.blocks.get(bi).filter(|b| b.first.0 <= i.0) else {
            continue;
        };
        let here = (fi, bi);
        let c = match &mut cursor {
            Some(c) if c.block == here => c,
            _ => cursor.insert(Cursor {
                block: here,
                next: b.first.0,
                in_prefix_vars: bi == 0,
                in_prefix_phis: true,
            }),
        };
        if c.in_prefix_vars || c.in_prefix_phis {
            for before in ix.insts_in(c.next..i.0) {
                let Some(op) = ctx.op_of(before) else {
                    continue;
                };
                match op {
                    Op::Line | Op::NoLine => {}
                    _ if is_non_semantic(ctx, before) => c.in_prefix_phis = false,
                    _ => {
                        c.in_prefix_vars = false;
                        c.in_prefix_phis = false;
                    }
                }
            }
        }
        c.next = i.0 + 1;
        match ctx.op_of(inst) {
            Some(Op::Variable) => {
                if !c.in_prefix_vars {
                    ctx.err(
                        "V-LAY-7",
                        i,
                        &inst.result_id().into_iter().collect::<Vec<_>>(),
                        "all OpVariable instructions in a function must be the first \
                         instructions in the first block",
                    );
                }
                c.in_prefix_phis = false;
            }
            Some(Op::Phi) => {
                if bi == 0 {
                    ctx.err(
                        "V-CFG-2",
                        i,
                        &[],
                        "OpPhi in the entry block, which has no predecessors",
                    );
                } else if !c.in_prefix_phis {
                    ctx.err(
                        "V-LAY-8",
                        i,
                        &[],
                        "OpPhi must appear before all non-OpPhi instructions of its \
                         block (except OpLine/OpNoLine)",
                    );
                }
            }
            _ => {}
        }
    }
}
