//! Derives the validator's opcode tables from rspirv's grammar (`rspirv::grammar`): an
//! [`OpEntry`] and a [`Lean`] record per opcode the grammar knows, and the other facts of
//! [`Derived`]. The build script (`build.rs`) includes this file and writes what it computes
//! as Rust literals, so a process pays nothing to build the tables (about 0.5 M instructions
//! per process before); the crate compiles it only for its tests, which compare those
//! literals with a fresh derivation.

use spv_reader::rspirv::grammar::{self, Instruction, OperandKind, OperandQuantifier};
use spv_reader::spirv::{self, Op};

use crate::operands::{
    DecorationParams, Kind, Lean, OpEntry, OperandKinds, Quantity, Section, Special, Step,
    decoration_params, opcode_versions, planned_step, step_of,
};

/// What the build script writes.
pub(crate) struct Derived {
    /// Per opcode up to the grammar's largest: its entry's slot plus one, 0 when the grammar
    /// lacks it.
    pub(crate) index: Vec<u16>,
    /// Per slot, in the order of rspirv's `INSTRUCTION_TABLE`.
    pub(crate) entries: Vec<OpEntry>,
    /// Per slot.
    pub(crate) leans: Vec<Lean>,
    /// A bit per decoration below 64 that the decoder knows and whose parameters are
    /// literals, any number of them (`DecorationParams::Rest`).
    pub(crate) decorations_any_params: u64,
    /// ... and those whose one parameter is a literal (`DecorationParams::Literal`).
    pub(crate) decorations_one_literal: u64,
    /// The opcodes whose grammar operands include Image Operands, in slot order.
    pub(crate) ops_with_image_operands: Vec<Op>,
}

/// Derives the tables.
pub(crate) fn derive() -> Derived {
    let max = grammar::INSTRUCTION_TABLE
        .iter()
        .map(|i| i.opcode as usize)
        .max()
        .unwrap_or(0);
    let mut index = vec![0u16; max + 1];
    let mut entries = Vec::new();
    let mut leans = Vec::new();
    for inst in grammar::INSTRUCTION_TABLE.iter() {
        // The same derivation as the reader's: a Result Type comes first, the Result
        // first or right after it.
        let mut kinds = inst.operands.iter().map(|o| o.kind);
        let (first, second) = (kinds.next(), kinds.next());
        let has_type = first == Some(OperandKind::IdResultType);
        let has_result = first == Some(OperandKind::IdResult)
            || (has_type && second == Some(OperandKind::IdResult));
        let entry = OpEntry {
            type_decl: inst.opname.starts_with("Type"),
            annotation: matches!(
                inst.opcode,
                Op::MemoryModel
                    | Op::EntryPoint
                    | Op::Decorate
                    | Op::MemberDecorate
                    | Op::DecorateId
                    | Op::DecorateString
                    | Op::MemberDecorateString
            ),
            has_type,
            has_result,
            kinds: operand_kinds(inst),
            slot: entries.len() as u16,
            gated: !inst.capabilities.is_empty() || opcode_versions(inst.opcode).is_some(),
        };
        leans.push(lean_of(&entry, inst));
        entries.push(entry);
        // The grammar has fewer than 65,535 instructions (about a thousand).
        if let Some(slot) = index.get_mut(inst.opcode as usize) {
            *slot = entries.len() as u16;
        }
    }
    let (mut decorations_any_params, mut decorations_one_literal) = (0u64, 0u64);
    for d in 0..64u32 {
        match spirv::Decoration::from_u32(d).map(decoration_params) {
            Some(DecorationParams::Rest) => decorations_any_params |= 1 << d,
            Some(DecorationParams::Literal) => decorations_one_literal |= 1 << d,
            _ => {}
        }
    }
    let ops_with_image_operands = grammar::INSTRUCTION_TABLE
        .iter()
        .zip(&entries)
        .filter(|(_, e)| e.kinds & OperandKinds::IMAGE_OPERANDS != 0)
        .map(|(inst, _)| inst.opcode)
        .collect();
    Derived {
        index,
        entries,
        leans,
        decorations_any_params,
        decorations_one_literal,
        ops_with_image_operands,
    }
}

/// The [`OperandKinds`] bits of the kinds among `inst`'s grammar operands.
fn operand_kinds(inst: &Instruction<'_>) -> u8 {
    inst.operands
        .iter()
        .map(|o| match o.kind {
            OperandKind::ImageOperands => OperandKinds::IMAGE_OPERANDS,
            OperandKind::IdScope => OperandKinds::SCOPE,
            OperandKind::IdMemorySemantics => OperandKinds::SEMANTICS,
            OperandKind::MemoryAccess => OperandKinds::MEMORY_ACCESS,
            _ => 0,
        })
        .fold(0, |a, b| a | b)
}

/// The [`Lean`] record of `entry`'s opcode, whose grammar entry is `g`.
fn lean_of(entry: &OpEntry, g: &Instruction<'_>) -> Lean {
    let mut flags = 0;
    for (set, bit) in [
        (entry.has_type, Lean::HAS_TYPE),
        (entry.has_result, Lean::HAS_RESULT),
        (entry.type_decl, Lean::TYPE_DECL),
        (entry.annotation, Lean::ANNOTATION),
    ] {
        if set {
            flags |= bit;
        }
    }
    let mut lean = Lean {
        op: Some(g.opcode),
        slot: entry.slot,
        section: section_with(g.opcode, entry.type_decl),
        flags,
        ..Lean::UNKNOWN
    };
    // The same layout `Compiled::of` gives `read_instruction` (a test compares them),
    // worked out without its allocations: the table is built for every opcode.
    let mut operands = g.operands.iter().peekable();
    let mut words = 0usize;
    let mut refs = 0usize;
    while let Some(o) = operands.peek() {
        if o.quantifier != OperandQuantifier::One {
            break;
        }
        match step_of(o.kind) {
            Step::Word(kind) if kind.is_ref() => {
                let (Some(slot), Ok(at)) = (lean.refs.get_mut(refs), u8::try_from(words + 1))
                else {
                    return lean;
                };
                *slot = (at, kind);
                refs += 1;
            }
            Step::Word(_) | Step::Enum(_) => {}
            _ => break,
        }
        words += 1;
        operands.next();
    }
    let rest: Vec<(Step, Quantity)> = operands.map(planned_step).collect();
    let mut special = Special::No;
    let locates = match rest.as_slice() {
        // OpSpecConstantOp's operands continue with the embedded opcode's.
        _ if g.opcode == Op::SpecConstantOp => return lean,
        [] | [(Step::String, Quantity::One)] => Lean::LOCATES,
        [(Step::Other(OperandKind::LiteralContextDependentNumber), Quantity::One)] => Lean::LOCATES,
        [(Step::Word(kind), Quantity::ZeroOrOne | Quantity::ZeroOrMore)] => {
            lean.tail = *kind;
            if kind.is_ref() {
                Lean::LOCATES | Lean::TAIL_REFS
            } else {
                Lean::LOCATES
            }
        }
        [(Step::IdPair, Quantity::ZeroOrMore)] => {
            lean.tail = Kind::Id;
            Lean::LOCATES | Lean::TAIL_REFS
        }
        // A decoration's parameters are looked at even when the reader checked them.
        [(Step::Other(OperandKind::Decoration), Quantity::One)] => {
            special = Special::Decoration;
            0
        }
        [(Step::Other(OperandKind::LoopControl), Quantity::One)] => {
            special = Special::LoopControl;
            0
        }
        [(Step::Other(OperandKind::ExecutionMode), Quantity::One)] => {
            special = Special::ExecutionMode;
            0
        }
        [
            (Step::String, Quantity::One),
            (Step::Word(kind), Quantity::ZeroOrMore),
        ] if kind.is_ref() => {
            special = Special::StringThenRefs(*kind);
            0
        }
        _ if rest.iter().all(|&(_, q)| q != Quantity::One) => {
            Lean::LOCATES | Lean::LOCATES_IF_FIXED
        }
        _ => return lean,
    };
    let (Ok(end), Ok(count)) = (u8::try_from(words + 1), u8::try_from(refs)) else {
        return lean;
    };
    lean.flags |= locates;
    lean.special = special;
    lean.max_words = if locates & Lean::LOCATES == 0 {
        0
    } else if locates & Lean::LOCATES_IF_FIXED != 0 {
        u32::from(end)
    } else {
        u32::MAX
    };
    lean.end = end;
    lean.count = count;
    lean
}

/// Whether `op` is a constant instruction (including specialization constants).
fn is_constant_op(op: Op) -> bool {
    matches!(
        op,
        Op::ConstantTrue
            | Op::ConstantFalse
            | Op::Constant
            | Op::ConstantComposite
            | Op::ConstantSampler
            | Op::ConstantNull
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstant
            | Op::SpecConstantComposite
            | Op::SpecConstantOp
            | Op::ConstantCompositeReplicateEXT
            | Op::SpecConstantCompositeReplicateEXT
            | Op::ConstantPipeStorage
    )
}

/// The module-level section `op` belongs to (SPIR-V §2.4), `None` for instructions only
/// allowed inside functions (or allowed in several places: OpLine, OpNoLine, OpUndef,
/// OpExtInst); `type_decl` says whether `op` declares a type.
fn section_with(op: Op, type_decl: bool) -> Option<Section> {
    Some(match op {
        Op::Capability => Section::Capability,
        Op::Extension => Section::Extension,
        Op::ExtInstImport => Section::ExtInstImport,
        Op::MemoryModel => Section::MemoryModel,
        Op::EntryPoint => Section::EntryPoint,
        Op::ExecutionMode | Op::ExecutionModeId => Section::ExecutionMode,
        Op::String | Op::SourceExtension | Op::Source | Op::SourceContinued => Section::DebugSource,
        Op::Name | Op::MemberName => Section::DebugName,
        Op::ModuleProcessed => Section::DebugModuleProcessed,
        Op::Decorate
        | Op::MemberDecorate
        | Op::DecorationGroup
        | Op::GroupDecorate
        | Op::GroupMemberDecorate
        | Op::DecorateId
        | Op::DecorateString
        | Op::MemberDecorateString => Section::Annotation,
        Op::Variable | Op::UntypedVariableKHR => Section::Types,
        Op::Function => Section::Functions,
        _ if type_decl || is_constant_op(op) => Section::Types,
        _ => return None,
    })
}
