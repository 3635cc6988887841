//! Derives the reader's opcode table ([`OpInfo`] per opcode) and the other tables of
//! `crate::tables` from rspirv's grammar (`rspirv::grammar`) and the enumerant facts of
//! `crate::enumerants`. The build script (`build.rs`) includes this file and writes what it
//! computes as Rust literals, so a process pays nothing to build the tables; the crate
//! compiles it only for its tests, which compare those literals with a fresh derivation.

use crate::enumerants::{enum_is_known, is_mask, is_plain_enumerant, plain_mask_parameters};
use crate::grammar::{
    FastShape, Forward, IdOperands, OpInfo, Placement, Plain, PlainEnumerant, Quick, SETS, Section,
    Tail, UNKNOWN,
};
use crate::rspirv::grammar::{self, Instruction, LogicalOperand, OperandKind, OperandQuantifier};
use crate::spirv::{self, Op};

/// The facts of every opcode, indexed by opcode up to the grammar's largest.
pub(crate) fn build_table() -> Vec<OpInfo> {
    let max = grammar::INSTRUCTION_TABLE
        .iter()
        .map(|i| i.opcode as u32)
        .max()
        .unwrap_or(0);
    let mut table = vec![UNKNOWN; max as usize + 1];
    for (at, inst) in (0u16..).zip(grammar::INSTRUCTION_TABLE.iter()) {
        let kinds = inst.operands.iter().map(|o| o.kind);
        let mut first_two = kinds.take(2);
        let first = first_two.next();
        let second = first_two.next();
        let has_type = first == Some(OperandKind::IdResultType);
        let has_result = first == Some(OperandKind::IdResult)
            || (has_type && second == Some(OperandKind::IdResult));
        // `max` bounds every opcode of the same table, so the index is in range.
        if let Some(slot) = table.get_mut(inst.opcode as usize) {
            let declares_type = inst.opname.starts_with("Type");
            let declares_constant =
                inst.opname.starts_with("Constant") || inst.opname.starts_with("SpecConstant");
            let op = inst.opcode;
            let placement = placement(op, declares_type || declares_constant);
            let forward = forward(op);
            let fast = fast_shape(inst);
            let records = records(op, declares_type || declares_constant);
            let layout = plain_layout(inst, forward);
            *slot = OpInfo {
                op: Some(op),
                grammar_at: at,
                has_type,
                has_result,
                declares_type,
                placement,
                forward,
                fast,
                records,
                quick: quick(op, placement, records, declares_type, layout.is_some()),
                plain: layout.unwrap_or(Plain::NONE),
            };
        }
    }
    table
}

/// The layout placement of `op` (SPIR-V §2.4); `global` for type and constant declarations.
fn placement(op: Op, global: bool) -> Placement {
    Placement::Module(match op {
        Op::Capability => Section::Capabilities,
        Op::Extension => Section::Extensions,
        Op::ExtInstImport => Section::ExtInstImports,
        Op::MemoryModel => Section::MemoryModel,
        Op::EntryPoint => Section::EntryPoints,
        Op::ExecutionMode | Op::ExecutionModeId => Section::ExecutionModes,
        Op::String | Op::SourceExtension | Op::Source | Op::SourceContinued => {
            Section::DebugSources
        }
        Op::Name | Op::MemberName => Section::DebugNames,
        Op::ModuleProcessed => Section::DebugModuleProcessed,
        Op::Decorate
        | Op::MemberDecorate
        | Op::DecorationGroup
        | Op::GroupDecorate
        | Op::GroupMemberDecorate
        | Op::DecorateId
        | Op::DecorateString
        | Op::MemberDecorateString => Section::Annotations,
        Op::Line
        | Op::NoLine
        | Op::Nop
        | Op::ExtInst
        | Op::ExtInstWithForwardRefsKHR
        | Op::Undef
        | Op::Variable
        | Op::UntypedVariableKHR => return Placement::Anywhere,
        Op::Function => return Placement::Function,
        _ if global => Section::Globals,
        _ => return Placement::Body,
    })
}

/// The forward-reference policy of `op` (SPIR-V §2.4).
fn forward(op: Op) -> Forward {
    match op {
        Op::Name
        | Op::MemberName
        | Op::EntryPoint
        | Op::ExecutionMode
        | Op::ExecutionModeId
        | Op::Decorate
        | Op::DecorateId
        | Op::DecorateString
        | Op::MemberDecorate
        | Op::MemberDecorateString
        | Op::GroupDecorate
        | Op::GroupMemberDecorate
        | Op::TypeForwardPointer
        | Op::Phi
        | Op::Branch
        | Op::SelectionMerge
        | Op::LoopMerge
        | Op::ExtInstWithForwardRefsKHR
        | Op::EnqueueKernel
        | Op::GetKernelNDrangeSubGroupCount
        | Op::GetKernelNDrangeMaxSubGroupSize
        | Op::GetKernelWorkGroupSize
        | Op::GetKernelPreferredWorkGroupSizeMultiple
        | Op::GetKernelLocalSizeForSubgroupCount
        | Op::GetKernelMaxNumSubgroups
        | Op::ConstantFunctionPointerINTEL => Forward::Any,
        Op::BranchConditional | Op::Switch => Forward::AfterFirst,
        Op::FunctionCall => Forward::FirstOnly,
        Op::ExtInst => Forward::ExtInst,
        _ => Forward::Never,
    }
}

/// Whether the reader does more with `op` than check its operands: tables, function and
/// block structure.
fn records(op: Op, global: bool) -> bool {
    global
        || rspirv::grammar::reflect::is_block_terminator(op)
        || matches!(
            op,
            Op::Capability
                | Op::Extension
                | Op::ExtInstImport
                | Op::MemoryModel
                | Op::EntryPoint
                | Op::ExecutionMode
                | Op::ExecutionModeId
                | Op::Name
                | Op::MemberName
                | Op::Decorate
                | Op::DecorateId
                | Op::DecorateString
                | Op::MemberDecorate
                | Op::MemberDecorateString
                | Op::GroupDecorate
                | Op::GroupMemberDecorate
                | Op::Variable
                | Op::UntypedVariableKHR
                | Op::Function
                | Op::FunctionParameter
                | Op::Label
                | Op::FunctionEnd
                | Op::SelectionMerge
                | Op::LoopMerge
                | Op::Undef
                | Op::Line
                | Op::NoLine
                | Op::Nop
                | Op::ExtInst
                | Op::ExtInstWithForwardRefsKHR
        )
}

/// The plain layout of `inst`'s operands, if every fixed operand is a one-word id, literal
/// or parameterless enumerant and at most one tail of [`Tail`] follows.
fn fast_shape(inst: &Instruction<'static>) -> Option<FastShape> {
    let mut shape = FastShape {
        fixed: 0,
        id_mask: 0,
        enumerant: None,
        ext_inst: false,
        tail: Tail::None,
    };
    for operand in inst.operands {
        if shape.tail != Tail::None {
            // Something after the tail: leave it to the grammar walk.
            return None;
        }
        let kind = operand.kind;
        let is_id = matches!(
            kind,
            OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics
        );
        let is_literal = matches!(
            kind,
            OperandKind::LiteralInteger | OperandKind::LiteralExtInstInteger
        );
        shape.ext_inst |= kind == OperandKind::LiteralExtInstInteger;
        let is_mask = is_mask(kind);
        let is_plain_enum = is_plain_enumerant(kind) || is_mask;
        match operand.quantifier {
            _ if matches!(kind, OperandKind::IdResultType | OperandKind::IdResult) => {}
            OperandQuantifier::One if is_id || is_literal || is_plain_enum => {
                if shape.fixed >= 16 || (is_plain_enum && shape.enumerant.is_some()) {
                    return None;
                }
                if is_id {
                    shape.id_mask |= 1 << shape.fixed;
                }
                if is_plain_enum {
                    shape.enumerant = Some((shape.fixed, kind));
                }
                shape.fixed += 1;
            }
            OperandQuantifier::One => {
                shape.tail = match kind {
                    OperandKind::LiteralString => Tail::String,
                    OperandKind::Decoration => Tail::Decoration,
                    OperandKind::LiteralContextDependentNumber => Tail::Number,
                    _ => return None,
                }
            }
            OperandQuantifier::ZeroOrMore if is_id => shape.tail = Tail::Ids,
            OperandQuantifier::ZeroOrMore if is_literal => shape.tail = Tail::Literals,
            OperandQuantifier::ZeroOrOne if is_id => shape.tail = Tail::OptionalId,
            OperandQuantifier::ZeroOrOne if is_mask => shape.tail = Tail::OptionalMask(kind),
            _ => shape.tail = Tail::Other,
        }
    }
    Some(shape)
}

/// The shortest path of `op`; `plain` says whether it has a [`Plain`] layout.
fn quick(op: Op, placement: Placement, records: bool, declares_type: bool, plain: bool) -> Quick {
    let global = placement == Placement::Module(Section::Globals);
    let shaped = match op {
        // Declared by its operand rather than a result; OpUndef may be in a function.
        Op::TypeForwardPointer | Op::Undef => return Quick::None,
        Op::Name => return Quick::Name,
        Op::MemberName => return Quick::MemberName,
        Op::Decorate => return Quick::Decorate,
        Op::MemberDecorate => return Quick::MemberDecorate,
        Op::ExtInst => return Quick::ExtInst,
        Op::ExtInstImport => return Quick::ExtInstImport,
        Op::Extension => return Quick::Extension,
        Op::EntryPoint => return Quick::EntryPoint,
        Op::ExecutionMode => return Quick::ExecutionMode,
        Op::Label => return Quick::Label,
        _ if declares_type => Quick::Type(op),
        _ if global => Quick::Constant(op),
        Op::Variable => Quick::Variable,
        Op::SelectionMerge | Op::LoopMerge => Quick::Merge,
        _ if rspirv::grammar::reflect::is_block_terminator(op) => Quick::Terminator,
        // Inside a block these record nothing (OpLine outside a block is allowed: the
        // general path takes it).
        Op::Line | Op::NoLine | Op::Nop => Quick::Plain,
        _ if placement == Placement::Body && !records => Quick::Plain,
        _ => Quick::Checked,
    };
    if plain { shaped } else { Quick::None }
}

/// The [`Plain`] layout of `inst`, when it has one: fixed ids, literals and up to two
/// enumerants or masks without parameters, then ids, an optional id, literals, (id, id)
/// pairs, OpConstant's number or nothing; optional operands that no layout here describes
/// are taken when absent. Not OpExtInst, whose operands depend on its set.
fn plain_layout(inst: &Instruction<'static>, forward: Forward) -> Option<Plain> {
    /// What follows the fixed operands.
    #[derive(PartialEq)]
    enum After {
        Nothing,
        Ids,
        OptionalId,
        Literals,
        Pairs,
        Number,
        /// Optional operands taken only when absent.
        Absent,
    }
    if forward == Forward::ExtInst {
        return None;
    }
    let mut head = 1u8;
    let mut has_type = false;
    let mut at = 0u8;
    let mut id_words = 0u32;
    let mut enumerants = [PlainEnumerant::NONE; 2];
    let mut after = After::Nothing;
    for operand in inst.operands {
        let kind = operand.kind;
        let one = operand.quantifier == OperandQuantifier::One;
        if after != After::Nothing {
            // Only optional operands may follow a variadic or optional one, and only when
            // absent; a variadic tail must be last.
            if one || !matches!(after, After::OptionalId | After::Absent) {
                return None;
            }
            after = After::Absent;
            continue;
        }
        let is_id = matches!(
            kind,
            OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics
        );
        let is_enumerant = is_plain_enumerant(kind) || is_mask(kind);
        match (operand.quantifier, kind) {
            (_, OperandKind::IdResultType) => {
                has_type = true;
                head += 1;
                continue;
            }
            (_, OperandKind::IdResult) => {
                head += 1;
                continue;
            }
            (OperandQuantifier::One, _) if is_id => id_words |= 1 << (head + at),
            (OperandQuantifier::One, OperandKind::LiteralInteger) => {}
            (OperandQuantifier::One, _) if is_enumerant => {
                let slot = enumerants.iter_mut().find(|e| e.at == 0)?;
                *slot = plain_enumerant(head + at, kind);
            }
            (OperandQuantifier::One, OperandKind::LiteralContextDependentNumber) => {
                after = After::Number;
                continue;
            }
            (OperandQuantifier::One, _) => return None,
            (OperandQuantifier::ZeroOrMore, _) if is_id => after = After::Ids,
            (OperandQuantifier::ZeroOrMore, OperandKind::LiteralInteger) => {
                after = After::Literals;
            }
            (OperandQuantifier::ZeroOrMore, OperandKind::PairIdRefIdRef) => after = After::Pairs,
            (OperandQuantifier::ZeroOrOne, _) if is_id => after = After::OptionalId,
            _ => after = After::Absent,
        }
        if after == After::Nothing {
            at += 1;
            if u32::from(head) + u32::from(at) >= 32 {
                return None;
            }
        }
    }
    if has_type {
        id_words |= 1 << 1;
    }
    let fixed = u16::from(head) + u16::from(at);
    let (min_words, max_words) = match after {
        After::Nothing | After::Absent => (fixed, fixed),
        After::OptionalId => (fixed, fixed + 1),
        After::Ids | After::Literals | After::Pairs => (fixed, u16::MAX),
        After::Number => (fixed + 1, u16::MAX),
    };
    let id_tail = matches!(after, After::Ids | After::OptionalId | After::Pairs);
    // SPIR-V §2.4's policy by position: the operand ids in order are the fixed ones (the
    // result type is not an operand), then the tail.
    let operand_ids = if has_type {
        id_words & !(1 << 1)
    } else {
        id_words
    };
    let first = operand_ids & operand_ids.wrapping_neg();
    let (forward_words, forward_tail) = match forward {
        Forward::Never | Forward::ExtInst => (0, [false, false]),
        Forward::Any => (operand_ids, [true, true]),
        Forward::AfterFirst => (operand_ids & !first, [operand_ids != 0, true]),
        Forward::FirstOnly => (first, [operand_ids == 0, false]),
    };
    Some(Plain {
        head,
        min_words,
        max_words,
        id_words,
        id_tail: if id_tail { fixed } else { u16::MAX },
        tail_words: match 1u64.checked_shl(u32::from(fixed)) {
            Some(first) if id_tail => !(first - 1),
            _ => 0,
        },
        id_pairs: after == After::Pairs,
        number: after == After::Number,
        forward_words,
        forward_tail,
        enumerants,
        extras: after == After::Pairs || after == After::Number || enumerants[0].at != 0,
    })
}

/// The [`PlainEnumerant`] of an operand of `kind` at word `at`: the values below 64 (for a
/// mask, the bits) that the shortest paths accept without asking the grammar.
fn plain_enumerant(at: u8, kind: OperandKind) -> PlainEnumerant {
    let known = if is_mask(kind) {
        (0..32)
            .map(|bit| 1u32 << bit)
            .filter(|&bit| plain_mask_parameters(kind, bit) == Some(0))
            .fold(0, |bits, bit| bits | u64::from(bit))
    } else {
        (0..64)
            .filter(|&value| enum_is_known(kind, value))
            .fold(0, |known, value| known | 1u64 << value)
    };
    PlainEnumerant {
        at,
        is_mask: is_mask(kind),
        known,
        kind,
    }
}

/// `spirv::Decoration::from_u32` of each value below
/// [`COMMON_DECORATION_LIMIT`](crate::enumerants::COMMON_DECORATION_LIMIT).
pub(crate) fn common_decorations()
-> [Option<spirv::Decoration>; crate::enumerants::COMMON_DECORATION_LIMIT as usize] {
    let mut table = [None; crate::enumerants::COMMON_DECORATION_LIMIT as usize];
    for (value, entry) in (0u32..).zip(table.iter_mut()) {
        *entry = spirv::Decoration::from_u32(value);
    }
    table
}

/// For each of [`SETS`], per instruction number: how many operands it takes when the set's
/// grammar gives it ids alone (`None`: other operands, or a number the grammar lacks); `None`
/// for a set rspirv has no grammar for.
pub(crate) fn ext_ids_only_tables() -> Vec<Option<Vec<Option<IdOperands>>>> {
    SETS.iter()
        .map(|set| {
            let table = grammar::ext_inst_table(set)?;
            let max = table.iter().map(|i| u32::from(i.opcode)).max().unwrap_or(0);
            let mut numbers = vec![None; max as usize + 1];
            for inst in table.iter() {
                let all_ids = inst.operands.iter().all(|o| o.kind == OperandKind::IdRef);
                if let Some(slot) = numbers.get_mut(u32::from(inst.opcode) as usize) {
                    *slot = all_ids.then(|| id_operands(inst.operands));
                }
            }
            Some(numbers)
        })
        .collect()
}

/// The counts `operands` (all ids) allow, from their quantifiers.
fn id_operands(operands: &[LogicalOperand]) -> IdOperands {
    operands
        .iter()
        .fold(IdOperands { min: 0, max: 0 }, |n, o| match o.quantifier {
            OperandQuantifier::One => IdOperands {
                min: n.min.saturating_add(1),
                max: n.max.saturating_add(1),
            },
            OperandQuantifier::ZeroOrOne => IdOperands {
                max: n.max.saturating_add(1),
                ..n
            },
            OperandQuantifier::ZeroOrMore => IdOperands { max: u16::MAX, ..n },
        })
}
