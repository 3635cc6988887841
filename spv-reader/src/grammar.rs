//! Per-opcode facts taken once from rspirv's grammar tables (`rspirv::grammar`), in a dense
//! table indexed by opcode so that the hot loop of the reader never searches.

use std::sync::OnceLock;

use crate::rspirv::grammar::{self, Instruction, LogicalOperand, OperandKind, OperandQuantifier};
use crate::spirv::Op;

/// What the reader needs to know about one opcode.
#[derive(Clone, Copy)]
pub(crate) struct OpInfo {
    /// The grammar entry, `None` for opcodes this crate's grammar does not define.
    pub(crate) grammar: Option<&'static Instruction<'static>>,
    /// Whether word 1 is a Result Type id.
    pub(crate) has_type: bool,
    /// Whether the instruction has a Result id (word 2 with a result type, word 1 without).
    pub(crate) has_result: bool,
    /// Whether the opcode declares a type (`OpType*`, OpTypeForwardPointer included).
    pub(crate) declares_type: bool,
    /// Where the opcode may appear in the logical layout (SPIR-V §2.4).
    pub(crate) placement: Placement,
    /// Which id operands may be forward references (SPIR-V §2.4).
    pub(crate) forward: Forward,
    /// The operand layout when it is plain enough to check without the grammar walk.
    pub(crate) fast: Option<FastShape>,
    /// Whether the reader's tables or function structure need this instruction.
    pub(crate) records: bool,
    /// How the reading loop's shortest paths (`parse::quick`) take the opcode.
    pub(crate) quick: Quick,
    /// The [`Plain`] layout of the shortest paths that check one ([`Plain::NONE`] for the
    /// others): kept out of [`Quick`], so that those paths read it without matching the
    /// variant again.
    pub(crate) plain: Plain,
}

/// The shortest path of the reading loop for an opcode. Each checks everything the general
/// path checks and returns `false`, having changed nothing the general path would do
/// differently, when anything is unusual or wrong; the general path then locates the
/// problem.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Quick {
    /// No shortest path.
    None,
    /// A block instruction of [`Plain`] layout that adds nothing to the tables beyond its
    /// result.
    Plain,
    /// A block terminator of [`Plain`] layout.
    Terminator,
    /// OpSelectionMerge and OpLoopMerge, of [`Plain`] layout.
    Merge,
    /// OpVariable: in a block, a plain instruction; at module scope, a global variable.
    Variable,
    /// A type declaration of [`Plain`] layout.
    Type(Op),
    /// A constant declaration of [`Plain`] layout.
    Constant(Op),
    /// Any other opcode of [`Plain`] layout: the layout check of R-9 and the operands here,
    /// then the general path's `record`.
    Checked,
    /// OpLabel.
    Label,
    /// OpName.
    Name,
    /// OpMemberName.
    MemberName,
    /// OpDecorate.
    Decorate,
    /// OpMemberDecorate.
    MemberDecorate,
    /// OpExtInst in a block.
    ExtInst,
    /// OpExtInstImport.
    ExtInstImport,
    /// OpExtension.
    Extension,
    /// OpEntryPoint.
    EntryPoint,
    /// OpExecutionMode.
    ExecutionMode,
}

/// Which [`Quick`] an opcode has, one byte per opcode in [`paths`]: the reading loop
/// branches on this small table (a few cache lines for the common opcodes) rather than on
/// the [`OpInfo`] table (80 bytes per opcode), whose entry it then reads for the layout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum Path {
    None,
    Plain,
    Terminator,
    Merge,
    Variable,
    Type,
    Constant,
    Checked,
    Label,
    Name,
    MemberName,
    Decorate,
    MemberDecorate,
    ExtInst,
    ExtInstImport,
    Extension,
    EntryPoint,
    ExecutionMode,
}

impl Quick {
    /// The variant, without its layout.
    fn path(&self) -> Path {
        match self {
            Quick::None => Path::None,
            Quick::Plain => Path::Plain,
            Quick::Terminator => Path::Terminator,
            Quick::Merge => Path::Merge,
            Quick::Variable => Path::Variable,
            Quick::Type(_) => Path::Type,
            Quick::Constant(_) => Path::Constant,
            Quick::Checked => Path::Checked,
            Quick::Label => Path::Label,
            Quick::Name => Path::Name,
            Quick::MemberName => Path::MemberName,
            Quick::Decorate => Path::Decorate,
            Quick::MemberDecorate => Path::MemberDecorate,
            Quick::ExtInst => Path::ExtInst,
            Quick::ExtInstImport => Path::ExtInstImport,
            Quick::Extension => Path::Extension,
            Quick::EntryPoint => Path::EntryPoint,
            Quick::ExecutionMode => Path::ExecutionMode,
        }
    }
}

/// The [`Path`] of every 16-bit opcode ([`Path::None`] beyond [`table`]): an array of that
/// length, so that looking an opcode up needs no bounds check (64 KiB, of which a reading
/// loop touches the lines of the opcodes it meets).
#[inline]
pub(crate) fn paths() -> &'static [Path; 1 << 16] {
    static PATHS: OnceLock<Box<[Path; 1 << 16]>> = OnceLock::new();
    PATHS.get_or_init(|| {
        let mut paths = Box::new([Path::None; 1 << 16]);
        for (path, info) in paths.iter_mut().zip(table()) {
            *path = info.quick.path();
        }
        paths
    })
}

/// An operand layout the shortest paths check, as positions in the instruction's words so
/// that the check needs no branch per operand kind: a word count in `min_words..=max_words`,
/// ids at the positions of `id_words` (the result type first, if any) and from `id_tail` to
/// the end, up to two enumerants or masks, literals elsewhere.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Plain {
    /// Words before the operands: 1, 2 with a result, 3 with a result type and a result.
    pub(crate) head: u8,
    pub(crate) min_words: u16,
    pub(crate) max_words: u16,
    /// Every id position of the fixed operands, the result type first.
    pub(crate) id_words: u32,
    /// The first word of a tail of ids (`u16::MAX`: none).
    pub(crate) id_tail: u16,
    /// Bit `i` for every word `i` from `id_tail` on, below 64 (none without a tail).
    pub(crate) tail_words: u64,
    /// Whether the id tail is of (id, id) pairs (OpPhi), hence of even length.
    pub(crate) id_pairs: bool,
    /// Whether the last operand is OpConstant's literal, as wide as the result type.
    pub(crate) number: bool,
    /// The positions of `id_words` that may hold a forward reference (`Forward` applied to
    /// the fixed operands; never the result type).
    pub(crate) forward_words: u32,
    /// Whether the first id of the tail, and the others, may be forward references.
    pub(crate) forward_tail: [bool; 2],
    pub(crate) enumerants: [PlainEnumerant; 2],
    /// Whether an id-pair tail, an enumerant or a number needs checking.
    pub(crate) extras: bool,
}

impl Plain {
    /// The layout of opcodes without one: no word count fits it.
    pub(crate) const NONE: Plain = Plain {
        head: 1,
        min_words: u16::MAX,
        max_words: 0,
        id_words: 0,
        id_tail: u16::MAX,
        tail_words: 0,
        id_pairs: false,
        number: false,
        forward_words: 0,
        forward_tail: [false, false],
        enumerants: [PlainEnumerant::NONE; 2],
        extras: false,
    };
}

/// An enumerant or mask of a [`Plain`] layout and the values the shortest paths accept
/// without asking the grammar; others go to the general path (which warns about unknown
/// values and decodes mask parameters).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct PlainEnumerant {
    /// Its position in the words (0: none).
    pub(crate) at: u8,
    pub(crate) is_mask: bool,
    /// For a value enumerant, bit `v` set for each known value `v` below 64 (larger values
    /// are looked up by `kind`); for a mask, the known bits without parameters.
    pub(crate) known: u64,
    pub(crate) kind: OperandKind,
}

impl PlainEnumerant {
    const NONE: PlainEnumerant = PlainEnumerant {
        at: 0,
        is_mask: false,
        known: 0,
        kind: OperandKind::LiteralInteger,
    };

    fn new(at: u8, kind: OperandKind) -> PlainEnumerant {
        use crate::operands::{enum_is_known, is_mask, plain_mask_parameters};
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

    /// Whether `value` is known (for a mask: only known bits without parameters).
    #[inline]
    pub(crate) fn accepts(&self, value: u32) -> bool {
        let value = u64::from(value);
        if self.is_mask {
            value & !self.known == 0
        } else if value < 64 {
            self.known & (1 << value) != 0
        } else {
            crate::operands::enum_is_known(self.kind, value as u32)
        }
    }
}

/// The sections of the logical layout (SPIR-V §2.4, spirv.md §1.5), in order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Section {
    Capabilities,
    Extensions,
    ExtInstImports,
    MemoryModel,
    EntryPoints,
    ExecutionModes,
    DebugSources,
    DebugNames,
    DebugModuleProcessed,
    Annotations,
    Globals,
    Functions,
}

/// Where an opcode may appear.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Placement {
    /// Only at module scope, in this section.
    Module(Section),
    /// Only inside functions (OpFunctionParameter, OpLabel, block instructions, ...).
    Body,
    /// At module scope from the types section on, and in functions (OpLine, OpNoLine,
    /// OpNop, OpExtInst, OpUndef, OpVariable, OpUntypedVariableKHR).
    Anywhere,
    /// OpFunction, which opens the function section.
    Function,
}

/// Where forward references are allowed among an instruction's id operands (SPIR-V §2.4,
/// spirv.md §1.5 "Forward references").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Forward {
    /// Every id operand must already be defined.
    Never,
    /// Any id operand may be defined later.
    Any,
    /// Only the first id operand must already be defined (the condition of
    /// OpBranchConditional, the selector of OpSwitch).
    AfterFirst,
    /// Only the first id operand may be defined later (the callee of OpFunctionCall).
    FirstOnly,
    /// Depends on the imported set (OpExtInst): decided by the reader.
    ExtInst,
}

/// A plain operand layout after the result type and result: `fixed` one-word operands
/// (ids where `id_mask` has a bit, at most one value enumerant without parameters at
/// `enum_at`, literals elsewhere), then a tail.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct FastShape {
    pub(crate) fixed: u8,
    pub(crate) id_mask: u16,
    /// Position and kind of the enumerant (or parameterless mask) among the fixed operands.
    pub(crate) enumerant: Option<(u8, OperandKind)>,
    /// Whether the last fixed operand is OpExtInst's instruction number, whose operands
    /// the fast path takes only when the set's grammar gives ids alone.
    pub(crate) ext_inst: bool,
    pub(crate) tail: Tail,
}

/// What may follow the fixed operands of a [`FastShape`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Tail {
    /// Nothing.
    None,
    /// Any number of ids.
    Ids,
    /// Any number of literal integers.
    Literals,
    /// An optional id (OpVariable's initializer).
    OptionalId,
    /// One literal string, last.
    String,
    /// A decoration and its parameters, last (OpDecorate and its relatives).
    Decoration,
    /// A context-dependent number, last (OpConstant, OpSpecConstant).
    Number,
    /// An optional mask whose parameters are literals or ids (memory access, image
    /// operands, ...), last.
    OptionalMask(OperandKind),
    /// Something the grammar walk must decode (masks, optional operands, ...).
    Other,
}

/// The facts of an opcode the grammar does not define.
pub(crate) const UNKNOWN: OpInfo = OpInfo {
    grammar: None,
    has_type: false,
    has_result: false,
    declares_type: false,
    placement: Placement::Body,
    forward: Forward::Never,
    fast: None,
    records: false,
    quick: Quick::None,
    plain: Plain::NONE,
};

/// The opcode table, indexed by opcode (unknown opcodes above the largest are absent).
#[inline]
pub(crate) fn table() -> &'static [OpInfo] {
    static TABLE: OnceLock<Vec<OpInfo>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// Builds the opcode table from rspirv's grammar (once per process).
#[cold]
fn build_table() -> Vec<OpInfo> {
    let max = grammar::INSTRUCTION_TABLE
        .iter()
        .map(|i| i.opcode as u32)
        .max()
        .unwrap_or(0);
    let mut table = vec![UNKNOWN; max as usize + 1];
    for inst in grammar::INSTRUCTION_TABLE.iter() {
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
                grammar: Some(inst),
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

/// Facts about `opcode`; unknown opcodes have no grammar, no result type and no result.
#[inline]
pub(crate) fn op_info(opcode: u16) -> &'static OpInfo {
    table().get(usize::from(opcode)).unwrap_or(&UNKNOWN)
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
        let is_mask = crate::operands::is_mask(kind);
        let is_plain_enum = crate::operands::is_plain_enumerant(kind) || is_mask;
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
        let is_enumerant =
            crate::operands::is_plain_enumerant(kind) || crate::operands::is_mask(kind);
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
                *slot = PlainEnumerant::new(head + at, kind);
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

/// How many operands an extended instruction takes after its instruction number, when its set's
/// grammar gives it ids alone: the shortest paths check the count, as the grammar walk does
/// the operands consume exactly the instruction's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IdOperands {
    /// The operands the grammar requires.
    min: u16,
    /// The most it allows (`u16::MAX` for a repeated last operand).
    max: u16,
}

impl IdOperands {
    /// Whether `count` operands fit.
    pub(crate) fn allows(self, count: usize) -> bool {
        (usize::from(self.min)..=usize::from(self.max)).contains(&count)
    }

    /// The counts `operands` (all ids) allow, from their quantifiers.
    fn of(operands: &[LogicalOperand]) -> IdOperands {
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
}

/// For extended instruction set `name`, per instruction number: how many operands it takes when
/// the set's grammar gives it ids alone (`None`: other operands, or a number the grammar lacks).
/// `None` for a set this crate has no grammar for. Built once per set from rspirv's tables.
pub(crate) fn ext_ids_only(name: &str) -> Option<&'static [Option<IdOperands>]> {
    static TABLES: OnceLock<Vec<Option<Vec<Option<IdOperands>>>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        SETS.iter()
            .map(|set| {
                let table = grammar::ext_inst_table(set)?;
                let max = table.iter().map(|i| u32::from(i.opcode)).max().unwrap_or(0);
                let mut numbers = vec![None; max as usize + 1];
                for inst in table.iter() {
                    let all_ids = inst.operands.iter().all(|o| o.kind == OperandKind::IdRef);
                    if let Some(slot) = numbers.get_mut(u32::from(inst.opcode) as usize) {
                        *slot = all_ids.then(|| IdOperands::of(inst.operands));
                    }
                }
                Some(numbers)
            })
            .collect()
    });
    // The reflection set is imported with its version: `NonSemantic.ClspvReflection.6`.
    let name = if name.starts_with("NonSemantic.ClspvReflection.") {
        "NonSemantic.ClspvReflection"
    } else {
        name
    };
    let i = SETS.iter().position(|&s| s == name)?;
    tables.get(i)?.as_deref()
}

/// `name` as a `'static` string when it is the import name of one of the sets this crate has
/// a grammar for (`None` otherwise, and for a versioned reflection set's name).
pub(crate) fn known_set_name(name: &str) -> Option<&'static str> {
    SETS.iter().copied().find(|&s| s == name)
}

/// The sets of `rspirv::grammar::ext_inst_table`, by import name.
const SETS: [&str; 15] = [
    "Arm.MotionEngine.100",
    "DebugInfo",
    "GLSL.std.450",
    "NonSemantic.ClspvReflection",
    "NonSemantic.DebugBreak",
    "NonSemantic.DebugPrintf",
    "NonSemantic.Shader.DebugInfo.100",
    "NonSemantic.VkspReflection",
    "OpenCL.DebugInfo.100",
    "OpenCL.std",
    "SPV_AMD_gcn_shader",
    "SPV_AMD_shader_ballot",
    "SPV_AMD_shader_explicit_vertex_parameter",
    "SPV_AMD_shader_trinary_minmax",
    "TOSA.001000.1",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `Inst::opcode` reads the enum from this table; it must name exactly the opcodes
    /// `spirv::Op::from_u32` names (aliases included), for every 16-bit opcode.
    #[test]
    fn table_opcode_matches_the_spirv_enum() {
        for raw in 0..=u16::MAX {
            let from_table = op_info(raw).grammar.map(|g| g.opcode);
            assert_eq!(from_table, Op::from_u32(u32::from(raw)), "opcode {raw}");
        }
    }
}
