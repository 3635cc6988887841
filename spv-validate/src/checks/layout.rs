//! Logical layout (SPIR-V §2.4, digest §1.5; rules V-LAY-1…9, V-EP-1): the section order
//! of module-level instructions, what may appear inside functions, function declarations
//! before definitions, function-local variables at the start of the entry block, OpPhi at
//! the start of its block, and OpLine/OpNoLine placement.
//!
//! Function bodies are not walked: the reader already refuses an instruction of a
//! module-level section inside a function (its R-9), the only V-LAY-1 case a body could
//! hold, and the block rules visit only OpVariable and OpPhi.

use spv_reader::Id;
use spv_reader::spirv::{self, Op};

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

/// Runs the pass.
pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let ix = ctx.ix;
    let all = ix.insts().as_slice();
    let mut walk = Walk {
        current: Section::Capability,
        memory_models: 0,
        in_function: false,
    };
    let mut seen_definition = false;
    // The module-level instructions are those between the reader's functions (each from
    // its OpFunction to its OpFunctionEnd, in module order). Of a function only its
    // OpFunction has a rule here (V-LAY-6): the reader refuses a module-level instruction
    // inside a function, so the body is not walked for V-LAY-1
    // (`tests::reader_refuses_module_level_instructions_in_functions` checks every such
    // opcode).
    let mut next = 0usize;
    for f in m.functions() {
        let start = (f.def.0 as usize).clamp(next, all.len());
        walk.module_level(ctx, all.get(next..start).unwrap_or(&[]));
        next = (f.end.0 as usize).saturating_add(1).clamp(start, all.len());
        let Some(inst) = all
            .get(start)
            .filter(|inst| inst.opcode() == Some(Op::Function))
        else {
            continue;
        };
        walk.in_function = true;
        walk.current = Section::Functions;
        if f.blocks.is_empty() && seen_definition {
            ctx.err(
                "V-LAY-6",
                inst.index(),
                &[f.id],
                format!(
                    "function declaration {} appears after a function definition",
                    f.id
                ),
            );
        }
        seen_definition |= !f.blocks.is_empty();
    }
    walk.module_level(ctx, all.get(next..).unwrap_or(&[]));
    if walk.memory_models == 0 {
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

/// The state of the walk over module-level instructions (V-LAY-1, V-LAY-2, V-LAY-5).
struct Walk {
    /// The section of the last instruction in order.
    current: Section,
    /// How many OpMemoryModel instructions were seen.
    memory_models: usize,
    /// Whether a function came before.
    in_function: bool,
}

impl Walk {
    /// The module-level instructions `insts`, in module order: each of a section (nearly all
    /// of them) costs one comparison when it is in order; the others go to
    /// [`Walk::unordered`].
    fn module_level(&mut self, ctx: &mut Ctx<'_>, insts: &[Inst<'_>]) {
        for inst in insts {
            match inst.section() {
                Some(section) if !self.in_function && section >= self.current => {
                    self.memory_models += usize::from(section == Section::MemoryModel);
                    self.current = section;
                }
                section => self.unordered(ctx, inst, section),
            }
        }
    }

    /// A module-level instruction out of its section's order, after the functions, or of
    /// no section (OpLine, OpNoLine, OpUndef, OpExtInst and the opcodes only allowed in
    /// functions).
    #[inline(never)]
    fn unordered(&mut self, ctx: &mut Ctx<'_>, inst: &Inst<'_>, section: Option<Section>) {
        let Some(op) = ctx.op_of(inst) else { return };
        let i = inst.index();
        if op == Op::MemoryModel {
            self.memory_models += 1;
        }
        let current = self.current;
        match section {
            Some(section) if self.in_function => ctx.err(
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
            Some(section) => self.current = section,
            None => {
                let allowed_here = match op {
                    Op::Line | Op::NoLine | Op::Undef => current >= Section::Types,
                    Op::ExtInst => current >= Section::Types && is_non_semantic(ctx, inst),
                    _ => false,
                };
                if allowed_here {
                    if current < Section::Types {
                        self.current = Section::Types;
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
        // terminator, if any: the index noted it for the result id (searched for only
        // when the id is not this instruction's or outside blocks).
        let bi = match inst.result_id().and_then(|id| ix.id(id)) {
            Some(info) if info.def == i.0 && info.block != NONE => info.block as usize,
            _ => f.blocks.partition_point(|b| b.terminator.0 <= i.0),
        };
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

#[cfg(test)]
mod tests {
    use spv_reader::ErrorKind;
    use spv_reader::spirv::Op;

    use super::Section;
    use crate::operands::{lean_table, op_slots};

    /// A module with one function whose block holds `body` (whole instructions' words).
    fn module_with_body(body: &[u32]) -> Vec<u32> {
        let op = |op: Op, count: u32| (count << 16) | op as u32;
        let mut words = vec![0x0723_0203, 0x0001_0000, 0, 10, 0];
        words.extend([op(Op::Capability, 2), 1]);
        words.extend([op(Op::MemoryModel, 3), 0, 1]);
        words.extend([op(Op::TypeVoid, 2), 1]);
        words.extend([op(Op::TypeFunction, 3), 2, 1]);
        words.extend([op(Op::Function, 5), 1, 3, 0, 2]);
        words.extend([op(Op::Label, 2), 4]);
        words.extend_from_slice(body);
        words.extend([op(Op::Return, 1), op(Op::FunctionEnd, 1)]);
        words
    }

    /// `check` does not walk function bodies for V-LAY-1 (an instruction of a module-level
    /// section other than a variable inside a function) because the reader refuses every
    /// such instruction for its placement, whatever its operands.
    #[test]
    fn reader_refuses_module_level_instructions_in_functions() {
        assert!(spv_reader::read_words(&module_with_body(&[])).is_ok());
        let mut checked = 0;
        for (op, _) in op_slots() {
            let Some(section) = lean_table().get(op as u16).section else {
                continue;
            };
            if section == Section::Functions || matches!(op, Op::Variable | Op::UntypedVariableKHR)
            {
                continue;
            }
            checked += 1;
            for operands in [0u32, 1, 2, 3, 4] {
                let mut body = vec![((1 + operands) << 16) | op as u32];
                body.extend((0..operands).map(|k| 1 + k % 3));
                let read = spv_reader::read_words(&module_with_body(&body));
                assert_eq!(
                    read.err().map(|e| e.kind()),
                    Some(ErrorKind::Layout),
                    "{op:?} with {operands} operand words"
                );
            }
        }
        assert!(checked > 60, "{checked} opcodes");
    }
}
