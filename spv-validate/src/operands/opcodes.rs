//! The per-opcode records of the validator's opcode tables ([`OpEntry`], [`Lean`]) and the
//! operand shapes they are derived from. The build script derives the tables from rspirv's
//! grammar (`derive.rs`, included by `build.rs`), so this file is compiled both there and in
//! the crate: it holds types, constants and the small functions the derivation shares with
//! the run-time decoders, nothing that reads the tables.

use spv_reader::rspirv::grammar::{LogicalOperand, OperandKind, OperandQuantifier};
use spv_reader::spirv::{self, Op};

/// What an operand is, as far as validation needs to know.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// The Result Type id.
    ResultType,
    /// The Result id.
    Result,
    /// Any other `<id>` operand (IdRef).
    Id,
    /// A Scope `<id>`.
    Scope,
    /// A Memory Semantics `<id>`.
    Semantics,
    /// A literal number (one or more words).
    Literal,
    /// A literal string.
    String,
    /// An enumerant or mask word of the given kind.
    Enum(OperandKind),
}

impl Kind {
    /// Whether the operand refers to an id defined elsewhere (every id but the Result).
    pub(crate) fn is_ref(self) -> bool {
        matches!(
            self,
            Kind::ResultType | Kind::Id | Kind::Scope | Kind::Semantics
        )
    }
}

/// What the validator keeps per opcode: the facts derived from its grammar entry, which is
/// entry [`OpEntry::slot`] of rspirv's `INSTRUCTION_TABLE` (the slots follow that table).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct OpEntry {
    /// Whether the opcode declares a type (its name starts with `Type`).
    pub(crate) type_decl: bool,
    /// Whether the opcode is one of the index's annotations (`Index::annotations`).
    pub(crate) annotation: bool,
    /// Whether the first operand is a Result Type.
    pub(crate) has_type: bool,
    /// Whether the opcode has a Result id (first, or after the Result Type).
    pub(crate) has_result: bool,
    /// Which of the [`OperandKinds`] its grammar operands include.
    pub(crate) kinds: u8,
    /// Its `op_slot`.
    pub(crate) slot: u16,
    /// Whether instructions of the opcode have version or capability gates to check
    /// ([`opcode_versions`], or capabilities that enable it in the grammar).
    pub(crate) gated: bool,
}

/// The operand kinds that [`crate::ctx::Ctx::may_have_operand`] asks about, as bits of the
/// set an opcode's grammar entry precomputes.
pub(crate) struct OperandKinds;

impl OperandKinds {
    /// `ImageOperands`.
    pub(crate) const IMAGE_OPERANDS: u8 = 1;
    /// `IdScope`.
    pub(crate) const SCOPE: u8 = 2;
    /// `IdMemorySemantics`.
    pub(crate) const SEMANTICS: u8 = 4;
    /// `MemoryAccess`.
    pub(crate) const MEMORY_ACCESS: u8 = 8;
}

/// One grammar operand as a step of a plan.
pub(crate) fn planned_step(o: &LogicalOperand) -> (Step, Quantity) {
    let quantity = match o.quantifier {
        OperandQuantifier::One => Quantity::One,
        OperandQuantifier::ZeroOrOne => Quantity::ZeroOrOne,
        OperandQuantifier::ZeroOrMore => Quantity::ZeroOrMore,
    };
    (step_of(o.kind), quantity)
}

/// How many times a logical operand appears (the grammar's quantifier).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Quantity {
    One,
    ZeroOrOne,
    ZeroOrMore,
}

/// A logical operand as `decode_refs` handles it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    /// One word of the given kind.
    Word(Kind),
    /// Two `<id>` words (`PairIdRefIdRef`, OpPhi's operands).
    IdPair,
    /// An enumerant or mask that implies no parameters.
    Enum(OperandKind),
    /// A literal string.
    String,
    /// Anything else (parameterised masks, context-dependent literals, other pairs),
    /// decoded by `Decoder::operand`.
    Other(OperandKind),
}

/// The step that decodes operands of `kind` (mirrors `Decoder::operand`).
pub(crate) fn step_of(kind: OperandKind) -> Step {
    match kind {
        OperandKind::IdResultType => Step::Word(Kind::ResultType),
        OperandKind::IdResult => Step::Word(Kind::Result),
        OperandKind::IdRef => Step::Word(Kind::Id),
        OperandKind::IdScope => Step::Word(Kind::Scope),
        OperandKind::IdMemorySemantics => Step::Word(Kind::Semantics),
        OperandKind::LiteralInteger
        | OperandKind::LiteralFloat
        | OperandKind::LiteralExtInstInteger
        | OperandKind::LiteralSpecConstantOpInteger => Step::Word(Kind::Literal),
        OperandKind::LiteralString => Step::String,
        OperandKind::PairIdRefIdRef => Step::IdPair,
        OperandKind::LiteralContextDependentNumber
        | OperandKind::PairLiteralIntegerIdRef
        | OperandKind::PairIdRefLiteralInteger
        | OperandKind::ImageOperands
        | OperandKind::MemoryAccess
        | OperandKind::LoopControl
        | OperandKind::ExecutionMode
        | OperandKind::Decoration => Step::Other(kind),
        _ => Step::Enum(kind),
    }
}

/// [`Lean::slot`] of an opcode the grammar lacks.
pub(crate) const NO_SLOT: u16 = u16::MAX;

/// The most referring ids among an opcode's fixed operands that [`Lean`] lists (the grammar's
/// common instructions have at most five: Result Type and four operands).
pub(crate) const LEAN_REFS: usize = 7;

/// What the index's loop needs of one opcode, in one small record per opcode slot (the
/// grammar entry and its compiled plan are two and three loads further, over wider records):
/// the facts the index stores, and, for the common layouts, where the referring ids are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Lean {
    /// The opcode, `None` only for [`Lean::UNKNOWN`].
    pub(crate) op: Option<Op>,
    /// The opcode's `op_slot` ([`NO_SLOT`] for [`Lean::UNKNOWN`]).
    pub(crate) slot: u16,
    /// The module-level section of the opcode (`checks::layout::section_of`).
    pub(crate) section: Option<Section>,
    /// [`Lean::HAS_TYPE`] and the other bits.
    pub(crate) flags: u8,
    /// One more than the fixed operand words: where a tail starts.
    pub(crate) end: u8,
    /// The most words of an instruction [`Lean::locate`] reads: 0 when it reads none (no
    /// [`Lean::LOCATES`]), `end` when only the fixed words ([`Lean::LOCATES_IF_FIXED`]),
    /// else any number. (One comparison instead of two flag tests per instruction.)
    pub(crate) max_words: u32,
    /// How many entries of `refs` are used.
    pub(crate) count: u8,
    /// The kind of every tail word, when [`Lean::TAIL_REFS`] is set.
    pub(crate) tail: Kind,
    /// The referring `<id>` operands among the fixed words: (word index, kind).
    pub(crate) refs: [(u8, Kind); LEAN_REFS],
    /// How [`Lean::locate_special`] reads the words past the fixed ones of an opcode that
    /// [`Lean::locate`] does not take.
    pub(crate) special: Special,
}

/// The shapes past the fixed words that [`Lean::locate_special`] reads: nearly every
/// instruction [`Lean::locate`] does not take has one (decorations, loop merges, entry points
/// and execution modes), and these would otherwise go through `read_instruction`'s
/// compiled plan, several hundred instructions each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    /// None of these.
    No,
    /// A Decoration and its parameters (OpDecorate, OpMemberDecorate, OpDecorateId).
    Decoration,
    /// A LoopControl mask and its literal parameters (OpLoopMerge).
    LoopControl,
    /// An ExecutionMode and its parameters (OpExecutionMode, OpExecutionModeId).
    ExecutionMode,
    /// A literal string, then referring ids of the given kind (OpEntryPoint).
    StringThenRefs(Kind),
}

impl Lean {
    /// The first operand is a Result Type.
    pub(crate) const HAS_TYPE: u8 = 1;
    /// The opcode has a Result id.
    pub(crate) const HAS_RESULT: u8 = 2;
    /// The opcode declares a type.
    pub(crate) const TYPE_DECL: u8 = 4;
    /// The opcode is one of the index's annotations (`Index::annotations`).
    pub(crate) const ANNOTATION: u8 = 8;
    /// An instruction the reader checked is located by [`Lean::locate`] (the layout is
    /// `Fixed` with a tail other than a decoration). (This bit and the next are set by the
    /// derivation and read by the tests; the index reads `max_words`, which says the same.)
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const LOCATES: u8 = 16;
    /// ... but only when it has no words past the fixed ones (`Tail::Absent`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const LOCATES_IF_FIXED: u8 = 32;
    /// Every word past the fixed ones is a referring id of kind `tail`.
    pub(crate) const TAIL_REFS: u8 = 64;

    /// The record of an opcode the grammar lacks.
    pub(crate) const UNKNOWN: Lean = Lean {
        op: None,
        slot: NO_SLOT,
        section: None,
        flags: 0,
        end: 0,
        max_words: 0,
        count: 0,
        tail: Kind::Literal,
        refs: [(0, Kind::Literal); LEAN_REFS],
        special: Special::No,
    };
}

/// Opcodes below this (the core instructions, SPIR-V §3.3; extension opcodes start at
/// 4,160) have their [`Lean`] record in a table indexed by the opcode itself.
pub(crate) const DENSE_OPCODES: usize = 512;

/// The parameters a decoration takes (SPIR-V §3.2.19), as the decoders read them.
#[derive(Clone, Copy)]
pub(crate) enum DecorationParams {
    /// One literal number.
    Literal,
    /// One enumerant of this kind.
    Enum(OperandKind),
    /// One Scope `<id>`.
    Scope,
    /// One `<id>`.
    Id,
    /// A name string, then a Linkage Type.
    Linkage,
    /// One string.
    String,
    /// Vendor decorations and those without parameters: any trailing words stay unchecked.
    Rest,
}

/// The parameters of decoration `d`.
pub(crate) fn decoration_params(d: spirv::Decoration) -> DecorationParams {
    use spirv::Decoration as D;
    match d {
        D::SpecId
        | D::ArrayStride
        | D::MatrixStride
        | D::Stream
        | D::Location
        | D::Component
        | D::Index
        | D::Binding
        | D::DescriptorSet
        | D::Offset
        | D::XfbBuffer
        | D::XfbStride
        | D::InputAttachmentIndex
        | D::Alignment
        | D::MaxByteOffset
        | D::SecondaryViewportRelativeNV => DecorationParams::Literal,
        D::BuiltIn => DecorationParams::Enum(OperandKind::BuiltIn),
        D::FuncParamAttr => DecorationParams::Enum(OperandKind::FunctionParameterAttribute),
        D::FPRoundingMode => DecorationParams::Enum(OperandKind::FPRoundingMode),
        D::FPFastMathMode => DecorationParams::Enum(OperandKind::FPFastMathMode),
        D::UniformId => DecorationParams::Scope,
        D::AlignmentId | D::MaxByteOffsetId | D::CounterBuffer => DecorationParams::Id,
        D::LinkageAttributes => DecorationParams::Linkage,
        D::UserSemantic | D::UserTypeGOOGLE => DecorationParams::String,
        _ => DecorationParams::Rest,
    }
}

/// The module-level sections of SPIR-V §2.4, in order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Section {
    Capability,
    Extension,
    ExtInstImport,
    MemoryModel,
    EntryPoint,
    ExecutionMode,
    DebugSource,
    DebugName,
    DebugModuleProcessed,
    Annotation,
    Types,
    Functions,
}

/// (first minor version, last minor version, extensions enabling it earlier) of opcodes
/// whose availability depends on the version (digest §9.1): the version gates that
/// `checks::encoding` checks, and part of [`OpEntry::gated`].
pub(crate) fn opcode_versions(op: Op) -> Option<(u8, u8, &'static [&'static str])> {
    let op_num = op as u32;
    Some(match op {
        Op::ModuleProcessed
        | Op::SizeOf
        | Op::TypePipeStorage
        | Op::ConstantPipeStorage
        | Op::CreatePipeFromPipeStorage
        | Op::GetKernelLocalSizeForSubgroupCount
        | Op::GetKernelMaxNumSubgroups
        | Op::TypeNamedBarrier
        | Op::NamedBarrierInitialize
        | Op::MemoryNamedBarrier => (1, 6, &[]),
        Op::ExecutionModeId | Op::DecorateId => (2, 6, &[]),
        _ if (333..=366).contains(&op_num) => (3, 6, &[]),
        Op::CopyLogical | Op::PtrEqual | Op::PtrNotEqual | Op::PtrDiff => (4, 6, &[]),
        Op::DecorateString | Op::MemberDecorateString => (
            4,
            6,
            &[
                "SPV_GOOGLE_decorate_string",
                "SPV_GOOGLE_hlsl_functionality1",
            ],
        ),
        Op::TerminateInvocation => (6, 6, &["SPV_KHR_terminate_invocation"]),
        Op::DemoteToHelperInvocation => (6, 6, &["SPV_EXT_demote_to_helper_invocation"]),
        Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat => {
            (6, 6, &["SPV_KHR_integer_dot_product"])
        }
        Op::AtomicCompareExchangeWeak => (0, 3, &[]),
        Op::LessOrGreater => (0, 5, &[]),
        _ => return None,
    })
}
