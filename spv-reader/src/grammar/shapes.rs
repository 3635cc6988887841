//! The per-opcode facts of the reader's opcode table ([`OpInfo`] and the shapes it holds).
//! The build script computes the table from rspirv's grammar (`derive.rs`, included by
//! `build.rs`), so this file is compiled both there and in the crate: it holds the types and
//! their run-time methods only, nothing that reads the table.

use crate::rspirv::grammar::{INSTRUCTION_TABLE, Instruction, OperandKind};
use crate::spirv::Op;

/// What the reader needs to know about one opcode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct OpInfo {
    /// The opcode, `None` for opcodes this crate's grammar does not define.
    pub(crate) op: Option<Op>,
    /// The position of the grammar entry in rspirv's `INSTRUCTION_TABLE` ([`NO_GRAMMAR`]
    /// without one): an index rather than a reference, so that the table is plain data,
    /// with nothing for the loader to relocate at start-up.
    pub(crate) grammar_at: u16,
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
    pub(crate) const fn path(&self) -> Path {
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
    /// No enumerant.
    pub(crate) const NONE: PlainEnumerant = PlainEnumerant {
        at: 0,
        is_mask: false,
        known: 0,
        kind: OperandKind::LiteralInteger,
    };

    /// Whether `value` is known (for a mask: only known bits without parameters).
    #[inline]
    pub(crate) fn accepts(&self, value: u32) -> bool {
        let value = u64::from(value);
        if self.is_mask {
            value & !self.known == 0
        } else if value < 64 {
            self.known & (1 << value) != 0
        } else {
            crate::enumerants::enum_is_known(self.kind, value as u32)
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
    op: None,
    grammar_at: NO_GRAMMAR,
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

/// [`OpInfo::grammar_at`] of an opcode without a grammar entry.
pub(crate) const NO_GRAMMAR: u16 = u16::MAX;

impl OpInfo {
    /// The grammar entry, `None` for opcodes this crate's grammar does not define.
    #[inline]
    pub(crate) fn grammar(&self) -> Option<&'static Instruction<'static>> {
        // A slice iterator's `nth` is one bounds test and an address.
        INSTRUCTION_TABLE.iter().nth(usize::from(self.grammar_at))
    }
}

/// How many operands an extended instruction takes after its instruction number, when its set's
/// grammar gives it ids alone: the shortest paths check the count, as the grammar walk does
/// the operands consume exactly the instruction's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IdOperands {
    /// The operands the grammar requires.
    pub(crate) min: u16,
    /// The most it allows (`u16::MAX` for a repeated last operand).
    pub(crate) max: u16,
}

impl IdOperands {
    /// Whether `count` operands fit.
    pub(crate) fn allows(self, count: usize) -> bool {
        (usize::from(self.min)..=usize::from(self.max)).contains(&count)
    }
}

/// The sets of `rspirv::grammar::ext_inst_table`, by import name.
pub(crate) const SETS: [&str; 15] = [
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
