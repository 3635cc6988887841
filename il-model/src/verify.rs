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
//!
//! Speed: the verifier runs on every translation, so per-instruction work is table look-ups and
//! bit tests: opcode facts are derived from the opcode table at compile time ([`OpFacts`],
//! [`OP_FACTS`]), declared numbers are bit sets, and operand registers are walked in place (no
//! allocation per instruction). The common instruction's verdict is one `|` of conditions
//! ([`Verifier::quick`]): a register is judged by its type's bit in a per-program gate and its
//! number's bit in a per-type word of declared numbers, so that nothing branches on operand
//! types or opcode kinds, which vary at random from one instruction to the next.

use std::collections::BTreeSet;
use std::fmt;

use crate::enums::{CompSel, DstComp, ShaderKind, ShiftScale};
use crate::limits::{
    MAX_CB_ELEMENTS, MAX_CB_ID, MAX_GROUP_INVOCATIONS, declarable_group, group_invocations,
};
use crate::optable::{ControlLayout, Extra, Family, Flow, ShaderModel};
use crate::program::{Dst, Index, Inst, Nested, NestedId, Program, Reg, Src};
use crate::regs::RegType;
use crate::{OPCODE_COUNT, OPCODES, Opcode};

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

/// What [`Verifier::run`] carries from one instruction to the next.
#[derive(Default)]
struct Walk {
    /// Declared objects.
    declared: Declared,
    /// Open blocks.
    stack: Vec<Block>,
    /// Whether `endmain` has been seen.
    after_endmain: bool,
    /// The labels of the `func`s seen so far. The sets of this walk are B-trees: an empty one
    /// costs nothing to make or drop (a hash set seeds its hasher when made), and most programs
    /// have a few functions and declare a few numbers per kind.
    func_labels: BTreeSet<u32>,
    /// The labels of every `func` of the program, gathered at the first `call`.
    labels: Option<BTreeSet<u32>>,
    /// For the exclusion rules.
    seen: Seen,
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

/// What the rules need to know about one opcode on every instruction, derived once from its
/// table row and the lists above (so no list scans or mnemonic tests per instruction).
#[derive(Clone, Copy, Debug)]
struct OpFacts {
    /// A declaration or DX9 definition: operands name registers rather than access them.
    declaration: bool,
    /// The mnemonic starts with `dcl` (so `uav_`/`lds_`/`srv_`/`gds_` use rules do not apply).
    dcl: bool,
    /// No `_sat`/shift and only swizzle and negate on sources: [`INTEGER_OPS`] and every SM40-only
    /// instruction except the sample family.
    integer: bool,
    /// Returns one value: `*_read_*` (but `lds_read_vec`) and `append_buf*` (guide §7.16).
    scalar_result: bool,
    /// In [`PAIR_RESULT_OPS`].
    pair_result: bool,
    /// In [`SHIFT_OPS`].
    shift: bool,
    /// In [`MEM_DST_OPS`].
    mem_dst: bool,
    /// May write `mem`: [`MEM_DST_OPS`] and every `*store*` instruction.
    mem_allowed: bool,
    /// Uses a UAV (`uav_*`).
    uav_use: bool,
    /// Uses an LDS by id (`lds_*` with the [`ControlLayout::LdsId`] layout).
    lds_use: bool,
    /// Uses an SRV (`srv_*`).
    srv_use: bool,
    /// Uses a GDS (`gds_*`).
    gds_use: bool,
    /// Any of [`OpFacts::uav_use`], [`OpFacts::lds_use`], [`OpFacts::srv_use`] and
    /// [`OpFacts::gds_use`], so that [`Verifier::quick`] tests one flag for the instructions that
    /// use no resource by id.
    resource_use: bool,
    /// Either of [`OpFacts::scalar_result`] and [`OpFacts::pair_result`]: the destination's
    /// written components are restricted to [`OpFacts::allowed_writes`].
    writes_rule: bool,
    /// The written-component sets ([`written_components`] values) the destination may have:
    /// bit `w` for set `w` (all sixteen unless [`OpFacts::writes_rule`]).
    allowed_writes: u16,
    /// The register types a destination may have as far as `mem` goes: only `mem` for
    /// [`OpFacts::mem_dst`], every type where [`OpFacts::mem_allowed`], else all but `mem`.
    dst_types: u64,
    /// [`OpFacts::model`] as a bit of [`Verifier::watch_models`]: [`SM40_BIT`], [`SM30_BIT`] or 0.
    model_bit: u8,
    /// [`ControlLayout::defined_bits`] of the opcode's layout.
    defined_bits: u16,
    /// [`ControlLayout::owns_modifier_bits`] of the opcode's layout.
    owns_modifier_bits: bool,
    /// [`Verifier::quick`] may check the instruction: not a declaration, not a macro call, no
    /// count-of-extra control, no Appendix C.3 exclusion or `dclv`/`initv` bookkeeping, and
    /// trailing tokens checked by count alone.
    quick: bool,
    /// Destinations the opcode takes.
    want_dst: u8,
    /// Sources the opcode takes without `_ext`.
    want_src: u8,
    /// Sources added by the `_ext` bit (control bit 12; amd-il.md §1.10).
    ext_srcs: u8,
    /// Trailing tokens the opcode takes, or [`ANY_EXTRA`] where any count is allowed.
    want_extra: u8,
    /// The opcode's shader-model partition ([`crate::OpInfo::model`]).
    model: ShaderModel,
    /// The opcode opens, closes or otherwise takes part in block structure (its
    /// [`crate::OpInfo::flow`] is not [`Flow::None`]).
    structural: bool,
}

/// What may follow `endmain` (guide §4.1).
const AFTER_ENDMAIN: &str = "after `endmain` only `func` blocks and `end` may follow (guide §4.1)";

/// The facts of no opcode (the rows of [`OP_FACTS`] past the last code).
const NO_FACTS: OpFacts = OpFacts {
    declaration: false,
    dcl: false,
    integer: false,
    scalar_result: false,
    pair_result: false,
    shift: false,
    mem_dst: false,
    mem_allowed: false,
    uav_use: false,
    lds_use: false,
    srv_use: false,
    gds_use: false,
    resource_use: false,
    writes_rule: false,
    allowed_writes: 0,
    dst_types: 0,
    model_bit: 0,
    defined_bits: 0,
    owns_modifier_bits: false,
    quick: false,
    want_dst: 0,
    want_src: 0,
    ext_srcs: 0,
    want_extra: 0,
    model: ShaderModel::Any,
    structural: false,
};

/// [`OpFacts::want_extra`] of layouts that allow any number of trailing tokens.
const ANY_EXTRA: u8 = u8::MAX;

/// Instructions with Appendix C.3 exclusion or vertex-declaration bookkeeping
/// ([`Verifier::check_exclusions`], `dclv`/`initv`), which [`Verifier::quick`] leaves to the full
/// checks.
const BOOKKEEPING_OPS: &[Opcode] = &[
    Opcode::DclNumThreadPerGroup,
    Opcode::DclMaxThreadPerGroup,
    Opcode::DclStream,
    Opcode::EmitStream,
    Opcode::CutStream,
    Opcode::EmitThenCutStream,
    Opcode::Emit,
    Opcode::Cut,
    Opcode::EmitThenCut,
    Opcode::DclLdsSizePerThread,
    Opcode::DclLdsSharingMode,
    Opcode::LdsReadVec,
    Opcode::LdsWriteVec,
    Opcode::DclLds,
    Opcode::DclStructLds,
    Opcode::Dclv,
    Opcode::Initv,
];

impl OpFacts {
    /// The facts of one table row; `listed` says which of the opcode lists above hold it.
    /// A `const fn` (byte loops instead of `str` methods, `matches!` instead of `==`), so that
    /// [`OP_FACTS`] is computed by the compiler and no process pays for it.
    const fn derive(info: &crate::OpInfo, listed: Listed) -> OpFacts {
        let op = info.op;
        let m = info.mnemonic;
        // Declarations and DX9 definitions: their operands name registers rather than access
        // them.
        let declaration =
            starts_with(m, "dcl") || matches!(op, Opcode::Def | Opcode::Defb | Opcode::Initv);
        // The counts `check_shape` accepts, where they do not depend on the instruction.
        let want_extra = match info.extra {
            Extra::None => Some(0),
            Extra::Label | Extra::CaseValue | Extra::Float | Extra::ResourceFormat => Some(1),
            Extra::Words(k) => Some(k),
            Extra::StrideLength => Some(2),
            Extra::Comment | Extra::LabelList => Some(ANY_EXTRA),
            Extra::MacroSignature
            | Extra::InterfacePtr
            | Extra::CountedWords
            | Extra::ImmediateConstants => None,
        };
        let integer = listed & IN_INTEGER_OPS != 0
            || matches!(info.model, ShaderModel::Sm40) && !starts_with(m, "sample");
        let scalar_result =
            contains(m, "_read_") && !str_eq(m, "lds_read_vec") || starts_with(m, "append_buf");
        let pair_result = listed & IN_PAIR_RESULT_OPS != 0;
        let uav_use = starts_with(m, "uav_");
        let lds_use = starts_with(m, "lds_") && matches!(info.control, ControlLayout::LdsId);
        let srv_use = starts_with(m, "srv_");
        let gds_use = starts_with(m, "gds_");
        OpFacts {
            declaration,
            dcl: starts_with(m, "dcl"),
            integer,
            scalar_result,
            pair_result,
            shift: listed & IN_SHIFT_OPS != 0,
            mem_dst: listed & IN_MEM_DST_OPS != 0,
            mem_allowed: listed & IN_MEM_DST_OPS != 0 || contains(m, "store"),
            uav_use,
            lds_use,
            srv_use,
            gds_use,
            resource_use: uav_use | lds_use | srv_use | gds_use,
            writes_rule: scalar_result | pair_result,
            // One component: sets 1, 2, 4 and 8; a pair: sets 3 (`.xy`) and 12 (`.zw`).
            allowed_writes: if scalar_result { 0x0116 } else { 0xFFFF }
                & if pair_result { 0x1008 } else { 0xFFFF },
            dst_types: if listed & IN_MEM_DST_OPS != 0 {
                type_bit(RegType::GenericMem)
            } else if contains(m, "store") {
                u64::MAX
            } else {
                !type_bit(RegType::GenericMem)
            },
            model_bit: match info.model {
                ShaderModel::Sm40 => SM40_BIT,
                ShaderModel::Sm30 => SM30_BIT,
                ShaderModel::Any => 0,
            },
            defined_bits: info.control.defined_bits(),
            owns_modifier_bits: info.control.owns_modifier_bits(),
            quick: !declaration
                && !matches!(op, Opcode::Macrocall)
                && !matches!(info.control, ControlLayout::CountOfExtra)
                && listed & IN_BOOKKEEPING_OPS == 0
                && want_extra.is_some(),
            want_dst: info.dst,
            want_src: info.src,
            ext_srcs: info.control.extra_srcs(1 << 12),
            want_extra: match want_extra {
                Some(n) => n,
                None => 0,
            },
            model: info.model,
            structural: !matches!(info.flow, Flow::None),
        }
    }
}

/// Rows of [`OP_FACTS`]: a power of two above [`OPCODE_COUNT`], so that an opcode code masked
/// with `FACT_SLOTS - 1` (which changes nothing) indexes the table without a bounds check.
const FACT_SLOTS: usize = {
    assert!(OPCODE_COUNT <= 512);
    512
};

/// The facts of every opcode, indexed by code, computed at compile time from [`OPCODES`] and
/// the opcode lists above (one pass over each list marks its opcodes); the rows past
/// [`OPCODE_COUNT`] are [`NO_FACTS`].
static OP_FACTS: [OpFacts; FACT_SLOTS] = {
    let mut listed = [0 as Listed; OPCODE_COUNT];
    let lists: [(&[Opcode], Listed); 5] = [
        (INTEGER_OPS, IN_INTEGER_OPS),
        (PAIR_RESULT_OPS, IN_PAIR_RESULT_OPS),
        (SHIFT_OPS, IN_SHIFT_OPS),
        (MEM_DST_OPS, IN_MEM_DST_OPS),
        (BOOKKEEPING_OPS, IN_BOOKKEEPING_OPS),
    ];
    let mut l = 0;
    while l < lists.len() {
        let (list, bit) = lists[l];
        let mut k = 0;
        while k < list.len() {
            // Opcode discriminants are the codes, all below `OPCODE_COUNT` (a compile-time
            // index out of range would fail the build, not a run).
            listed[list[k] as usize] |= bit;
            k += 1;
        }
        l += 1;
    }
    let mut facts = [NO_FACTS; FACT_SLOTS];
    let mut i = 0;
    while i < OPCODE_COUNT {
        facts[i] = OpFacts::derive(&OPCODES[i], listed[i]);
        i += 1;
    }
    facts
};

/// Whether `text` starts with `prefix` (`str::starts_with` for [`OpFacts::derive`]).
const fn starts_with(text: &str, prefix: &str) -> bool {
    let (text, prefix) = (text.as_bytes(), prefix.as_bytes());
    if prefix.len() > text.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if text[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `text` contains `part` (`str::contains` for [`OpFacts::derive`]).
const fn contains(text: &str, part: &str) -> bool {
    let (bytes, wanted) = (text.as_bytes(), part.as_bytes());
    let mut start = 0;
    while start + wanted.len() <= bytes.len() {
        let mut i = 0;
        while i < wanted.len() && bytes[start + i] == wanted[i] {
            i += 1;
        }
        if i == wanted.len() {
            return true;
        }
        start += 1;
    }
    false
}

/// Whether `a` and `b` are equal (`==` for [`OpFacts::derive`]).
const fn str_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && starts_with(a, b)
}

/// Which of the opcode lists ([`INTEGER_OPS`] …) hold an opcode, one bit per list.
type Listed = u8;
/// The bit of [`INTEGER_OPS`] in [`Listed`].
const IN_INTEGER_OPS: Listed = 1;
/// The bit of [`PAIR_RESULT_OPS`].
const IN_PAIR_RESULT_OPS: Listed = 1 << 1;
/// The bit of [`SHIFT_OPS`].
const IN_SHIFT_OPS: Listed = 1 << 2;
/// The bit of [`MEM_DST_OPS`].
const IN_MEM_DST_OPS: Listed = 1 << 3;
/// The bit of [`BOOKKEEPING_OPS`].
const IN_BOOKKEEPING_OPS: Listed = 1 << 4;

/// The bit of register type `ty` in a set of types (the value is below 63, so the shift is in
/// range).
const fn type_bit(ty: RegType) -> u64 {
    1u64 << (ty as u8)
}

/// Register types that must be declared before use (guide §2.1, §7.5).
const DECLARED_TYPES: u64 = type_bit(RegType::Literal)
    | type_bit(RegType::ConstBuff)
    | type_bit(RegType::ITemp)
    | type_bit(RegType::SharedTemp);

/// Register types whose destinations may be indexed (guide §2.2.4).
const INDEXABLE_DST_TYPES: u64 = type_bit(RegType::ITemp)
    | type_bit(RegType::Output)
    | type_bit(RegType::Global)
    | type_bit(RegType::Persist);

/// The mutually exclusive depth outputs (guide Appendix C.3).
const DEPTH_TYPES: u64 =
    type_bit(RegType::Depth) | type_bit(RegType::DepthLe) | type_bit(RegType::DepthGe);

/// The register types of one instruction's operands, gathered in one pass so that the rules that
/// walk the operands one by one run only where they could report something or note a shader
/// model (most instructions have two or three plain operands).
#[derive(Clone, Copy, Debug, Default)]
struct OperandSummary {
    /// Types of the destination registers (indices not included).
    dst_types: u64,
    /// Types of the source registers (indices not included).
    src_types: u64,
    /// Some operand has registers of its own: a register-relative index or a second dimension.
    nested: bool,
    /// Some destination has an index.
    dst_indexed: bool,
}

impl OperandSummary {
    /// The summary of `inst`'s operands.
    fn of(inst: &Inst) -> OperandSummary {
        let mut summary = OperandSummary::default();
        for dst in &inst.dst {
            summary.dst_types |= type_bit(dst.reg.ty);
            summary.nested |= has_nested(&dst.reg);
            summary.dst_indexed |= dst.reg.index.is_some();
        }
        for src in &inst.src {
            summary.src_types |= type_bit(src.reg.ty);
            summary.nested |= has_nested(&src.reg);
        }
        summary
    }

    /// Types of all top-level operand registers.
    fn types(self) -> u64 {
        self.dst_types | self.src_types
    }

    /// Whether an operand of `inst` (indices included) is a register of type `ty`.
    fn uses(self, inst: &Inst, nested: &Nested, ty: RegType) -> bool {
        if self.nested {
            uses_reg(inst, nested, ty)
        } else {
            self.types() & type_bit(ty) != 0
        }
    }
}

/// Numbers below this are kept as bits (at most 8 KiB per set); larger ones, which real programs
/// do not declare, go to an ordered set.
const DENSE_NUMBERS: u32 = 1 << 16;

/// A set of declared register or resource numbers.
#[derive(Default)]
struct NumSet {
    /// Bit `n` for `n` below 64: most programs declare only such numbers (a few literals, UAVs,
    /// arrays), so most sets never allocate.
    low: u64,
    /// Bit `n % 64` of word `n / 64 - 1` for `n` from 64 to below [`DENSE_NUMBERS`].
    bits: Vec<u64>,
    /// Numbers from [`DENSE_NUMBERS`] up.
    sparse: BTreeSet<u32>,
}

impl NumSet {
    /// Adds `n`; returns whether it was not there yet.
    fn insert(&mut self, n: u32) -> bool {
        if n >= DENSE_NUMBERS {
            return self.sparse.insert(n);
        }
        let bit = 1u64 << (n % 64);
        let word = if n < 64 {
            &mut self.low
        } else {
            let at = (n / 64 - 1) as usize;
            if self.bits.len() <= at {
                self.bits.resize(at + 1, 0);
            }
            match self.bits.get_mut(at) {
                Some(word) => word,
                // The resize above makes the word exist.
                None => return false,
            }
        };
        let new = *word & bit == 0;
        *word |= bit;
        new
    }

    /// Whether `n` is in the set.
    fn contains(&self, n: u32) -> bool {
        let bit = 1u64 << (n % 64);
        if n < 64 {
            self.low & bit != 0
        } else if n < DENSE_NUMBERS {
            self.bits
                .get((n / 64 - 1) as usize)
                .is_some_and(|word| word & bit != 0)
        } else {
            self.sparse.contains(&n)
        }
    }
}

/// Declared objects, by kind and number.
struct Declared {
    /// Per register type (index: [`RegType`] value), bit `n` for each number `n` below 64 that
    /// [`Verifier::check_declared`] finds declared: every bit for the types that need no
    /// declaration, the low words of the sets below for the others. [`Verifier::quick`] tests an
    /// operand with one look-up and no branch on its type.
    low: [u64; 64],
    literals: NumSet,
    cbs: NumSet,
    itemps: NumSet,
    uavs: NumSet,
    srvs: NumSet,
    lds: NumSet,
    gds: NumSet,
    shared_temps: Option<u32>,
}

impl Default for Declared {
    fn default() -> Declared {
        let mut low = [u64::MAX; 64];
        for ty in [
            RegType::Literal,
            RegType::ConstBuff,
            RegType::ITemp,
            RegType::SharedTemp,
        ] {
            low[usize::from(ty as u8) & 63] = 0;
        }
        Declared {
            low,
            literals: NumSet::default(),
            cbs: NumSet::default(),
            itemps: NumSet::default(),
            uavs: NumSet::default(),
            srvs: NumSet::default(),
            lds: NumSet::default(),
            gds: NumSet::default(),
            shared_temps: None,
        }
    }
}

impl Declared {
    /// Declares register `n` of type `ty` (a literal, a constant buffer or an indexed temporary
    /// array); returns whether it was not declared yet.
    fn declare(&mut self, ty: RegType, n: u32) -> bool {
        let set = match ty {
            RegType::Literal => &mut self.literals,
            RegType::ConstBuff => &mut self.cbs,
            _ => &mut self.itemps,
        };
        let new = set.insert(n);
        if n < 64 {
            self.low[usize::from(ty as u8) & 63] |= 1 << n;
        }
        new
    }

    /// Declares `count` shared temporaries (`None`: the declaration has no operand).
    fn declare_shared_temps(&mut self, count: Option<u32>) {
        self.shared_temps = count;
        self.low[usize::from(RegType::SharedTemp as u8) & 63] = match count {
            Some(count) if count < 64 => (1 << count) - 1,
            Some(_) => u64::MAX,
            None => 0,
        };
    }
}

struct Verifier<'a> {
    program: &'a Program,
    family: Family,
    errors: Vec<VerifyError>,
    at: usize,
    saw_sm40: Option<usize>,
    saw_sm30: Option<usize>,
    /// [`OP_FACTS`].
    facts: &'static [OpFacts; FACT_SLOTS],
    /// Register types legal in this program.
    masks: RegMasks,
    /// The program's shader kind as a [`crate::ShaderSet`] bit.
    shader_bit: u8,
    /// The target family as a [`crate::FamilySet`] bit.
    family_bit: u8,
    /// Whether a `dclv` or `initv` has been seen (guide §4.1).
    vertex_declared: bool,
    /// The register types [`Verifier::quick`] accepts as sources with numbers below 64: readable
    /// ones, but neither of a shader-model partition not seen yet (whose first item the full
    /// checks note) nor VERTEX before [`Verifier::vertex_declared`]. See
    /// [`Verifier::refresh_gates`].
    src_gate: u64,
    /// [`Verifier::src_gate`] for numbers from 64 up: without the types that must be declared,
    /// which [`Declared::low`] does not cover there.
    src_gate_big: u64,
    /// [`Verifier::src_gate`] for destinations: writable types but the depth outputs (whose
    /// exclusions the full checks track).
    dst_gate: u64,
    /// [`Verifier::dst_gate`] for numbers from 64 up.
    dst_gate_big: u64,
    /// [`SM40_BIT`] and [`SM30_BIT`] for the partitions not seen yet: [`Verifier::quick`] leaves
    /// an opcode of such a partition to the full checks, which note it.
    watch_models: u8,
}

/// [`Verifier::watch_models`] bit of the SM40-only partition.
const SM40_BIT: u8 = 1;
/// [`Verifier::watch_models`] bit of the SM30-only partition.
const SM30_BIT: u8 = 2;

/// Register-type sets (bit = [`RegType::value`]) for one shader kind and family.
#[derive(Clone, Copy, Debug, Default)]
struct RegMasks {
    /// Types that may be read: readable, present in the shader kind and on the family (guide §5,
    /// Appendix D).
    readable: u64,
    /// Types that may be written.
    writable: u64,
    /// Types of the SM40-only partition (Appendix C.2).
    sm40: u64,
    /// Types of the SM30-only partition (Appendix C.2).
    sm30: u64,
    /// The opcodes (bit `code % 64` of word `code / 64`) the shader kind has on the family,
    /// double precision included ([`Verifier::check_device`]'s rules).
    opcodes: [u64; FACT_SLOTS / 64],
}

/// The sets of every shader kind and family, shader-major (see [`RegMasks::of`]): computed by
/// the compiler, so that no process pays for them.
static REG_MASKS: [RegMasks; SHADER_KINDS * Family::ALL.len()] = RegMasks::derive_all();

/// How many shader kinds there are (their values are `0..SHADER_KINDS`).
const SHADER_KINDS: usize = ShaderKind::ALL.len();

impl RegMasks {
    /// No type and no opcode.
    const EMPTY: RegMasks = RegMasks {
        readable: 0,
        writable: 0,
        sm40: 0,
        sm30: 0,
        opcodes: [0; FACT_SLOTS / 64],
    };

    /// The sets for `shader` and `family`, from [`REG_MASKS`].
    fn of(shader: ShaderKind, family: Family) -> RegMasks {
        let at = shader.value() as usize * Family::ALL.len() + family as usize;
        REG_MASKS
            .get(at)
            .copied()
            .unwrap_or_else(|| RegMasks::derive(shader, family))
    }

    /// Every entry of [`REG_MASKS`].
    const fn derive_all() -> [RegMasks; SHADER_KINDS * Family::ALL.len()] {
        let mut table = [RegMasks::EMPTY; SHADER_KINDS * Family::ALL.len()];
        let mut s = 0;
        while s < SHADER_KINDS {
            let mut f = 0;
            while f < Family::ALL.len() {
                table[s * Family::ALL.len() + f] =
                    RegMasks::derive(ShaderKind::ALL[s], Family::ALL[f]);
                f += 1;
            }
            s += 1;
        }
        table
    }

    /// The sets for `shader` and `family`, from the register and opcode tables. A `const fn`
    /// (`while` loops instead of iterators) for [`REG_MASKS`].
    const fn derive(shader: ShaderKind, family: Family) -> RegMasks {
        let mut masks = RegMasks::EMPTY;
        let mut r = 0;
        while r < crate::REG_TYPES.len() {
            let info = &crate::REG_TYPES[r];
            let bit = type_bit(info.ty);
            match info.model {
                ShaderModel::Sm40 => masks.sm40 |= bit,
                ShaderModel::Sm30 => masks.sm30 |= bit,
                ShaderModel::Any => {}
            }
            if info.shaders.contains(shader) && info.families.contains(family) {
                if info.readable {
                    masks.readable |= bit;
                }
                if info.writable {
                    masks.writable |= bit;
                }
            }
            r += 1;
        }
        let (shader_bit, family_bit) = (1u8 << shader.value(), 1u8 << family as u8);
        let mut o = 0;
        while o < OPCODES.len() {
            let info = &OPCODES[o];
            let code = info.op.code() as usize;
            let available = info.shaders.0 & shader_bit != 0
                && info.families.0 & family_bit != 0
                && !(info.fp64 && (family as u8) < (Family::R700 as u8));
            if available && code / 64 < masks.opcodes.len() {
                masks.opcodes[code / 64] |= 1 << (code % 64);
            }
            o += 1;
        }
        masks
    }
}

/// Checks `program` against the rules above for GPU family `family`.
pub fn verify(program: &Program, family: Family) -> Result<(), Vec<VerifyError>> {
    verify_with(program, family, Paths::QuickFirst)
}

/// Which checks [`verify_with`] runs per instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Paths {
    /// The quick paths ([`Verifier::quick`], [`Verifier::quick_literal`]) first, the full checks
    /// where they are unsure: what [`verify`] does.
    QuickFirst,
    /// The full checks only: what the quick paths must agree with (tests).
    #[cfg(test)]
    FullOnly,
}

/// [`verify`] taking the given paths.
fn verify_with(program: &Program, family: Family, paths: Paths) -> Result<(), Vec<VerifyError>> {
    let masks = RegMasks::of(program.shader, family);
    let mut v = Verifier {
        program,
        family,
        errors: Vec::new(),
        at: 0,
        saw_sm40: None,
        saw_sm30: None,
        facts: &OP_FACTS,
        masks,
        shader_bit: 1 << program.shader.value(),
        family_bit: 1 << family as u8,
        vertex_declared: false,
        src_gate: 0,
        src_gate_big: 0,
        dst_gate: 0,
        dst_gate_big: 0,
        watch_models: 0,
    };
    v.refresh_gates();
    v.run(paths);
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

    fn run(&mut self, paths: Paths) {
        let quick = paths == Paths::QuickFirst;
        let body = &self.program.body;
        match body.last() {
            Some(last) if last.op == Opcode::End => {}
            _ => self.errors.push(VerifyError {
                inst: None,
                message: "the program must end with `end` (guide §4.1)".into(),
            }),
        }
        let mut walk = Walk::default();
        self.check_macros();
        for (at, inst) in body.iter().enumerate() {
            self.at = at;
            let facts = &self.facts[usize::from(inst.op.code()) & (FACT_SLOTS - 1)];
            // Most instructions pass the quick checks; they are handled here (those with a block
            // role by `check_structure`, kept out of line), everything else by `check_one` (kept
            // out of line, so that this loop holds little state).
            if quick && facts.quick && self.quick(inst, facts, &walk.declared) {
                // Every rule but block structure holds; of the structure rules only the one on
                // what may follow `endmain` concerns an instruction without a block role.
                if facts.structural {
                    self.check_structure(inst, &mut walk);
                } else if walk.after_endmain && walk.stack.is_empty() {
                    self.err(AFTER_ENDMAIN);
                }
                continue;
            }
            self.check_one(inst, facts, quick, &mut walk);
        }
        let stack = walk.stack;
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

    /// The checks of one instruction that [`Verifier::run`] does not finish itself: the quick
    /// path of `dcl_literal`, then the full checks.
    #[inline(never)]
    fn check_one(&mut self, inst: &Inst, facts: &OpFacts, quick: bool, walk: &mut Walk) {
        if quick
            && inst.op == Opcode::DclLiteral
            && self.quick_literal(
                inst,
                facts,
                &mut walk.declared,
                walk.after_endmain && walk.stack.is_empty(),
            )
        {
            return;
        }
        let facts = *facts;
        self.check_shape(inst, facts);
        self.check_device(inst);
        self.check_structure(inst, walk);
        let operands = OperandSummary::of(inst);
        self.check_declarations(inst, facts, operands, &mut walk.declared);
        self.check_operand_rules(inst, facts, operands);
        self.check_exclusions(inst, operands, &mut walk.seen);
        if matches!(inst.op, Opcode::Dclv | Opcode::Initv) && !self.vertex_declared {
            self.vertex_declared = true;
            self.refresh_gates();
        }
        // Declaration operands name the registers they declare; they are not accesses.
        if !facts.declaration {
            let plain = !operands.nested
                && !operands.dst_indexed
                && operands.dst_types & !self.masks.writable == 0
                && operands.src_types & !self.masks.readable == 0;
            if plain {
                // Nothing `check_dst`/`check_reg` could report; only the model is noted.
                self.note_types(operands.types());
            } else {
                for dst in &inst.dst {
                    self.check_dst(dst);
                }
                for src in &inst.src {
                    self.check_reg(&src.reg, false);
                }
            }
        }
        if !self.vertex_declared
            && !facts.declaration
            && operands.uses(inst, &self.program.nested, RegType::Vertex)
        {
            self.err("VERTEX registers need a `dclv` or `initv` first (guide §4.1)");
        }
    }

    /// Checks an instruction of a [`OpFacts::quick`] opcode against every rule except block
    /// structure, for the common shape only: no modifier tokens, operands without
    /// register-relative indices or second dimensions, no indexed destination but an immediate
    /// index on an indexable type, registers of no shader-model partition not noted yet.
    /// Returns `true` when no rule is broken (the instruction has nothing to note); returns
    /// `false`, having changed nothing, when some rule might be, so that the full checks run and
    /// report it.
    ///
    /// The conditions that vary from one instruction to the next are gathered with `|` into one
    /// verdict rather than tested one by one: their branches would go either way at random.
    #[inline(always)]
    fn quick(&mut self, inst: &Inst, facts: &OpFacts, declared: &Declared) -> bool {
        let ctrl = inst.ctrl.0;
        // One look at each inline-or-heap list.
        let dsts = inst.dst.as_slice();
        let srcs = inst.src.as_slice();
        if !self.quick_shape_and_device(inst, facts) || facts.model_bit & self.watch_models != 0 {
            return false;
        }
        // check_declarations: resources used by id.
        if facts.resource_use {
            let id = u32::from(ctrl & 0x3FF);
            if facts.uav_use && !declared.uavs.contains(id & 0x3FF)
                || facts.lds_use && !declared.lds.contains(id & 0xF)
                || facts.srv_use && !declared.srvs.contains(id & 0xFF)
                || facts.gds_use && !declared.gds.contains(id)
            {
                return false;
            }
        }
        // Operands: check_operand_rules, check_declarations, check_exclusions (depth outputs),
        // register access and the vertex rule. The destination (at most one: `mcall` is not
        // quick) and the sources one by one, without a loop, so that each count test is a
        // branch of its own.
        let mut bad = false;
        if let Some(dst) = dsts.first() {
            bad |= self.dst_bad(dst, facts, declared);
        }
        if let Some(first) = srcs.first() {
            bad |= self.src_bad(first, facts, declared);
        }
        if let Some(amount) = srcs.get(1) {
            bad |= self.src_bad(amount, facts, declared);
            if facts.shift && amount.swizzle.iter().any(|c| *c != amount.swizzle[0]) {
                return false;
            }
        }
        if srcs.len() > 2 {
            for src in srcs.iter().skip(2) {
                bad |= self.src_bad(src, facts, declared);
            }
        }
        !bad
    }

    /// Whether [`Verifier::quick`] must leave destination `dst` to the full checks: an index
    /// other than an immediate one on an indexable type, a second dimension, a register type
    /// outside [`Verifier::dst_gate`] or the opcode's [`OpFacts::dst_types`], an undeclared
    /// register, an empty mask, a modifier an integer instruction does not take, or written
    /// components the opcode does not allow.
    #[inline(always)]
    fn dst_bad(&self, dst: &Dst, facts: &OpFacts, declared: &Declared) -> bool {
        let reg = &dst.reg;
        let ty = u32::from(reg.ty as u8);
        let gate = if reg.num < 64 {
            self.dst_gate
        } else {
            self.dst_gate_big
        } & facts.dst_types;
        let low = declared.low[usize::from(reg.ty as u8) & 63];
        let ok = (gate >> ty) & (low >> (reg.num % 64)) & 1 != 0;
        // An immediate index is legal on the indexable types (check_dst, guide §2.2.4);
        // `x#[n]` stores of the translator's private arrays are common, so they stay here.
        let index_ok = reg.index.is_none()
            | (matches!(reg.index, Some(Index::Imm(_))) & (INDEXABLE_DST_TYPES >> ty & 1 != 0));
        let mut bad = !ok
            | !index_ok
            | reg.dim2.is_some()
            | (dst.mask == [DstComp::NoWrite; 4])
            | (facts.integer & (dst.sat | (dst.shift != ShiftScale::None)));
        if facts.writes_rule {
            bad |= facts.allowed_writes >> written_components(dst.mask) & 1 == 0;
        }
        bad
    }

    /// Whether [`Verifier::quick`] must leave source `src` to the full checks: a
    /// register-relative index, a second dimension, a register type outside
    /// [`Verifier::src_gate`], an undeclared register, or a modifier an integer instruction does
    /// not take.
    #[inline(always)]
    fn src_bad(&self, src: &Src, facts: &OpFacts, declared: &Declared) -> bool {
        let reg = &src.reg;
        let ty = u32::from(reg.ty as u8);
        let gate = if reg.num < 64 {
            self.src_gate
        } else {
            self.src_gate_big
        };
        let low = declared.low[usize::from(reg.ty as u8) & 63];
        let ok = (gate >> ty) & (low >> (reg.num % 64)) & 1 != 0;
        let plain = matches!(reg.index, None | Some(Index::Imm(_))) & reg.dim2.is_none();
        // Everything but negation is a float modifier (divcomp included): one test.
        !ok | !plain | (facts.integer & !src.mods.without_neg().is_empty())
    }

    /// `check_shape` and `check_device` for an instruction without modifier tokens: whether
    /// neither has anything to report (their conditions, without the messages; the device rules
    /// as [`RegMasks::opcodes`]).
    #[inline(always)]
    fn quick_shape_and_device(&self, inst: &Inst, facts: &OpFacts) -> bool {
        let ctrl = inst.ctrl.0;
        let code = usize::from(inst.op.code());
        let available = self
            .masks
            .opcodes
            .get(code / 64)
            .is_some_and(|word| word >> (code % 64) & 1 != 0);
        let want_src = facts.want_src
            + if ctrl & (1 << 12) != 0 {
                facts.ext_srcs
            } else {
                0
            };
        let extra_bad =
            (facts.want_extra != ANY_EXTRA) & (inst.extra.len() != usize::from(facts.want_extra));
        let bad = (ctrl & !facts.defined_bits != 0)
            | inst.mods.is_some()
            | (inst.dst.len() != usize::from(facts.want_dst))
            | (inst.src.len() != usize::from(want_src))
            | extra_bad
            | !available;
        !bad
    }

    /// [`Verifier::quick`] for `dcl_literal`: declares the literal and returns `true` when no
    /// rule is broken (`top_after_endmain`: `endmain` has been seen and no block is open, so the
    /// structure rules object); returns `false`, the literals unchanged but for a number that
    /// was already declared, when the full checks must run and report.
    fn quick_literal(
        &mut self,
        inst: &Inst,
        facts: &OpFacts,
        declared: &mut Declared,
        top_after_endmain: bool,
    ) -> bool {
        let [src] = inst.src.as_slice() else {
            return false;
        };
        let plain = src.reg.ty == RegType::Literal
            && src.reg.index.is_none()
            && src.reg.dim2.is_none()
            && !src.has_modifier();
        // A number declared before makes `insert` return `false`; the full checks then find it
        // declared again and report it.
        if top_after_endmain
            || !plain
            || !self.quick_shape_and_device(inst, facts)
            || !declared.declare(RegType::Literal, src.reg.num)
        {
            return false;
        }
        self.note_model(facts.model);
        true
    }

    /// Operand counts, trailing tokens and control bits per the table (amd-il.md §1.10–§1.12).
    fn check_shape(&mut self, inst: &Inst, facts: OpFacts) {
        let info = inst.info();
        let layout = info.control;
        let ctrl = inst.ctrl.0;
        let undefined = ctrl & !facts.defined_bits;
        if undefined != 0 {
            self.err(format!(
                "control bits {undefined:#06x} are not defined for `{}` (amd-il.md §1.12)",
                info.mnemonic
            ));
        }
        if facts.owns_modifier_bits && (inst.pri_mod().is_some() || inst.sec_mod().is_some()) {
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
        if inst.resource_format().is_some() && !(ext_layout && ext) {
            self.err(
                "a resource-format token needs an `_ext` sample/load instruction (amd-il.md §1.10)",
            );
        }
        if inst.addr_offset().is_some()
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
        if info.shaders.0 & self.shader_bit == 0 {
            self.err(format!(
                "`{}` is not available in {:?} shaders",
                info.mnemonic, self.program.shader
            ));
        }
        if info.families.0 & self.family_bit == 0 {
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

    /// Notes the first instruction of each shader-model partition that has registers of the
    /// types in `types`.
    fn note_types(&mut self, types: u64) {
        if types & self.masks.sm40 != 0 {
            self.note_model(ShaderModel::Sm40);
        }
        if types & self.masks.sm30 != 0 {
            self.note_model(ShaderModel::Sm30);
        }
    }

    /// Notes the current instruction as the first of `model`'s partition, if none was before.
    fn note_model(&mut self, model: ShaderModel) {
        let seen = match model {
            ShaderModel::Sm40 => &mut self.saw_sm40,
            ShaderModel::Sm30 => &mut self.saw_sm30,
            ShaderModel::Any => return,
        };
        if seen.is_none() {
            *seen = Some(self.at);
            self.refresh_gates();
        }
    }

    /// Sets [`Verifier::quick`]'s register-type gates and watched partitions from the register
    /// masks, the partitions seen so far and [`Verifier::vertex_declared`].
    fn refresh_gates(&mut self) {
        let mut watched = 0;
        let mut models = 0;
        if self.saw_sm40.is_none() {
            watched |= self.masks.sm40;
            models |= SM40_BIT;
        }
        if self.saw_sm30.is_none() {
            watched |= self.masks.sm30;
            models |= SM30_BIT;
        }
        if !self.vertex_declared {
            watched |= type_bit(RegType::Vertex);
        }
        self.src_gate = self.masks.readable & !watched;
        self.src_gate_big = self.src_gate & !DECLARED_TYPES;
        self.dst_gate = self.masks.writable & !DEPTH_TYPES & !watched;
        self.dst_gate_big = self.dst_gate & !DECLARED_TYPES;
        self.watch_models = models;
    }

    /// Block balance and placement (guide §4.1, §7.4).
    fn check_structure(&mut self, inst: &Inst, walk: &mut Walk) {
        let Walk {
            stack,
            after_endmain,
            func_labels,
            labels,
            ..
        } = walk;
        let info = inst.info();
        if *after_endmain && stack.is_empty() && !matches!(info.flow, Flow::Func | Flow::End) {
            self.err(AFTER_ENDMAIN);
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
                let body = &self.program.body;
                let labels = labels.get_or_insert_with(|| {
                    body.iter()
                        .filter(|i| i.op == Opcode::Func)
                        .filter_map(|i| i.extra.first().copied())
                        .collect()
                });
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
    fn check_declarations(
        &mut self,
        inst: &Inst,
        facts: OpFacts,
        operands: OperandSummary,
        d: &mut Declared,
    ) {
        let id = u32::from(inst.ctrl.0 & 0x3FF);
        // Every declaration below has a `dcl` mnemonic, so other instructions skip the match.
        if facts.dcl {
            let first_num = inst.src.first().map(|s| s.reg.num);
            match inst.op {
                Opcode::DclLiteral => {
                    if let Some(n) = first_num
                        && !d.declare(RegType::Literal, n)
                    {
                        self.err(format!(
                            "literal l{n} declared twice (guide §7.5 DCL_LITERAL)"
                        ));
                    }
                    return;
                }
                Opcode::DclConstBuffer => {
                    if let Some(n) = first_num {
                        d.declare(RegType::ConstBuff, n);
                    }
                    return;
                }
                Opcode::DclIndexedTempArray => {
                    if let Some(n) = first_num {
                        d.declare(RegType::ITemp, n);
                    }
                    return;
                }
                Opcode::DclSharedTemp => {
                    d.declare_shared_temps(first_num);
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
        } else {
            if facts.uav_use && !d.uavs.contains(id & 0x3FF) {
                self.err(format!(
                    "UAV {} used before its declaration (guide §2.1)",
                    id & 0x3FF
                ));
            }
            if facts.lds_use && !d.lds.contains(id & 0xF) {
                self.err(format!(
                    "LDS {} used before its declaration (guide §2.1)",
                    id & 0xF
                ));
            }
            if facts.srv_use && !d.srvs.contains(id & 0xFF) {
                self.err(format!(
                    "SRV {} used before its declaration (guide §2.1)",
                    id & 0xFF
                ));
            }
            if facts.gds_use && !d.gds.contains(id) {
                self.err(format!("GDS {id} used before its declaration (guide §2.1)"));
            }
        }
        if !operands.nested && operands.types() & DECLARED_TYPES == 0 {
            return;
        }
        for reg in inst
            .dst
            .iter()
            .map(|d| &d.reg)
            .chain(inst.src.iter().map(|s| &s.reg))
        {
            if type_bit(reg.ty) & DECLARED_TYPES != 0 || has_nested(reg) {
                self.check_declared(reg, d);
            }
        }
    }

    /// Declaration before use of `reg` and of the registers in its indices (guide §2.1); see
    /// [`DECLARED_TYPES`].
    fn check_declared(&mut self, reg: &Reg, d: &Declared) {
        let missing = match reg.ty {
            RegType::Literal => !d.literals.contains(reg.num),
            RegType::ConstBuff if reg.dim2.is_none() => !d.cbs.contains(reg.num),
            RegType::ITemp => !d.itemps.contains(reg.num),
            RegType::SharedTemp => d.shared_temps.is_none_or(|count| reg.num >= count),
            _ => false,
        };
        if missing {
            self.err(format!(
                "{:?} {} used before its declaration (guide §2.1)",
                reg.ty, reg.num
            ));
        }
        // A copy of the `&'a Program`, so that the operands it lends outlive borrows of `self`.
        let program = self.program;
        let nested = &program.nested;
        if let Some(index) = reg.index_reg().and_then(|id| nested.get(id)) {
            self.check_declared(&index.reg, d);
        }
        if let Some(second) = reg.dim2.and_then(|id| nested.get(id)) {
            self.check_declared(&second.reg, d);
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
    fn check_operand_rules(&mut self, inst: &Inst, facts: OpFacts, operands: OperandSummary) {
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
        if facts.declaration {
            self.check_declaration_operand(inst);
            return;
        }
        let integer = facts.integer;
        for dst in &inst.dst {
            if dst.mask == [DstComp::NoWrite; 4] {
                self.err("the write mask selects no component (guide §2.2.5)");
            }
            if integer && (dst.sat || dst.shift != ShiftScale::None) {
                self.err(format!(
                    "`{}` takes no `_sat` or shift (guide §2.2.5)",
                    info.mnemonic
                ));
            }
            if facts.scalar_result && dst.mask.iter().filter(|c| **c == DstComp::Write).count() != 1
            {
                self.err(format!(
                    "`{}` returns one value: the mask must write one component (guide §7.16)",
                    info.mnemonic
                ));
            }
            if facts.pair_result {
                let m = dst.mask.map(|c| c == DstComp::Write);
                if m != [true, true, false, false] && m != [false, false, true, true] {
                    self.err(format!(
                        "`{}` writes a 64-bit pair: mask `.xy__` or `.__zw` (guide §7.2.5)",
                        info.mnemonic
                    ));
                }
            }
            let mem = dst.reg.ty == RegType::GenericMem;
            if facts.mem_dst && !mem {
                self.err(format!(
                    "`{}` stores through the `mem` destination (guide §7.16)",
                    info.mnemonic
                ));
            }
            if mem && !facts.mem_allowed {
                self.err("`mem` is only the mask of store instructions (guide §5)");
            }
        }
        for src in inst.src.iter().filter(|_| integer) {
            if !src.mods.without_neg().is_empty() {
                self.err(format!(
                    "`{}` allows only swizzle and negate on sources (guide §2.2.7 Table 2.10)",
                    info.mnemonic
                ));
            }
        }
        if facts.shift
            && let Some(amount) = inst.src.get(1)
            && amount.swizzle.iter().any(|c| *c != amount.swizzle[0])
        {
            self.err("the shift amount must be one replicated component (guide §7.7)");
        }
        // Only indices and second dimensions can be ambiguous.
        if operands.nested {
            for operand in inst
                .dst
                .iter()
                .map(|d| &d.reg)
                .chain(inst.src.iter().map(|s| &s.reg))
            {
                self.check_representable(operand);
            }
        }
    }

    /// The operand of `dcl_literal` / `dcl_cb` / `dcl_indexed_temp_array` / `dcl_shared_temp`,
    /// and the limits of amd-il.md §8.5 on constant buffers (`cb0`–`cb14`, at most 4096
    /// elements) and on a declared work-group (1 to 1024 invocations).
    fn check_declaration_operand(&mut self, inst: &Inst) {
        match inst.op {
            Opcode::DclConstBuffer if inst.ctrl.0 & 0x8000 == 0 => {
                if let Some(src) = inst.src.first()
                    && let Some(Index::Imm(size)) = src.reg.index
                    && (src.reg.num > MAX_CB_ID || size > MAX_CB_ELEMENTS)
                {
                    self.err(format!(
                        "cb{}[{size}] is outside cb0–cb{MAX_CB_ID} of at most \
                         {MAX_CB_ELEMENTS} elements (amd-il.md §8.5)",
                        src.reg.num
                    ));
                }
            }
            Opcode::DclNumThreadPerGroup if !declarable_group(&inst.extra) => {
                self.err(format!(
                    "a work-group of {} invocations (1 to {MAX_GROUP_INVOCATIONS}, amd-il.md \
                     §8.5)",
                    group_invocations(&inst.extra)
                ));
            }
            _ => {}
        }
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
        // A copy of the `&'a Program`, so that the operands it lends outlive borrows of `self`.
        let program = self.program;
        let nested = &program.nested;
        if let Some(index) = reg.index_reg().and_then(|id| nested.get(id))
            && index.reg.ty == RegType::Addr
        {
            self.err("an `a#` index is written `[a0.x]`, the DX9 address-register form; use it (amd-il.md §1.7)");
        }
        if let Some(second) = reg.dim2.and_then(|id| nested.get(id)) {
            let plain = second.reg.ty == reg.ty
                && second.reg.index.is_none()
                && second.reg.dim2.is_none()
                && !second.has_modifier();
            let relative = second.reg.ty == RegType::ConstBool
                && second.reg.num == 0
                && second.reg.index.is_some_and(Index::is_rel)
                && second.reg.dim2.is_none()
                && !second.has_modifier();
            if !plain && !relative {
                self.err("a second index must be a number or a register-relative expression (guide §2.2.8)");
            }
        }
    }

    /// Appendix C.3 mutual exclusions.
    fn check_exclusions(&mut self, inst: &Inst, operands: OperandSummary, seen: &mut Seen) {
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
                // The kinds seen so far are at most one after the previous check, so only an
                // instruction writing a depth register can make them two.
                if operands.dst_types & DEPTH_TYPES == 0 {
                    return;
                }
                let mut kinds = 0u8;
                for dst in &inst.dst {
                    kinds |= match dst.reg.ty {
                        RegType::Depth => 1,
                        RegType::DepthLe => 2,
                        RegType::DepthGe => 4,
                        _ => 0,
                    };
                }
                seen.depth_kinds |= kinds;
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
        let legal = if write {
            self.masks.writable
        } else {
            self.masks.readable
        };
        // The type's value is below 63, so the shift is in range.
        if legal & (1u64 << reg.ty.value()) == 0 {
            self.reg_errors(reg.ty, write);
        }
        self.note_model(reg.ty.info().model);
        if has_nested(reg) {
            self.check_nested_regs(reg);
        }
    }

    /// Why a register of type `ty` may not be accessed here (guide §5, Appendix D).
    fn reg_errors(&mut self, ty: RegType, write: bool) {
        let info = ty.info();
        if write && !info.writable {
            self.err(format!("{ty:?} registers cannot be written (guide §5)"));
        }
        if !write && !info.readable {
            self.err(format!("{ty:?} registers cannot be read (guide §5)"));
        }
        if !info.shaders.contains(self.program.shader) {
            self.err(format!(
                "{ty:?} registers do not exist in {:?} shaders (guide §5)",
                self.program.shader
            ));
        }
        if !info.families.contains(self.family) {
            self.err(format!(
                "{ty:?} registers are not supported on {} (guide Appendix D)",
                self.family.name()
            ));
        }
    }

    /// The index registers of `reg`: one replicated component, and readable (guide §2.2.6).
    fn check_nested_regs(&mut self, reg: &Reg) {
        // A copy of the `&'a Program`, so that the operands it lends outlive borrows of `self`.
        let program = self.program;
        let nested = &program.nested;
        let index = reg.index_reg().map(|id| nested.get(id).copied());
        let second = reg.dim2.map(|id| nested.get(id).copied());
        if matches!(index, Some(None)) || matches!(second, Some(None)) {
            self.err("a nested operand is missing from the program's nested-operand table");
        }
        if let Some(Some(index)) = index {
            let s = index.swizzle;
            if s.iter().any(|c| *c != s[0]) || matches!(s[0], CompSel::Zero | CompSel::One) {
                self.err("an index register must select one component, replicated (guide §2.2.6)");
            }
            self.check_reg(&index.reg, false);
        }
        if let Some(Some(second)) = second
            && let Some(index) = second
                .reg
                .index_reg()
                .and_then(|id| nested.get(id).copied())
        {
            self.check_reg(&index.reg, false);
        }
    }

    fn check_dst(&mut self, dst: &Dst) {
        self.check_reg(&dst.reg, true);
        if dst.reg.index.is_some() && type_bit(dst.reg.ty) & INDEXABLE_DST_TYPES == 0 {
            self.err(format!(
                "{:?} destinations cannot be indexed (guide §2.2.4)",
                dst.reg.ty
            ));
        }
    }
}

/// Whether any operand of `inst` (indices included) is a register of type `ty`.
fn uses_reg(inst: &Inst, nested: &Nested, ty: RegType) -> bool {
    inst.dst.iter().any(|d| reg_uses(&d.reg, nested, ty))
        || inst.src.iter().any(|s| reg_uses(&s.reg, nested, ty))
}

/// Whether `reg` or a register in its indices has type `ty`.
fn reg_uses(reg: &Reg, nested: &Nested, ty: RegType) -> bool {
    reg.ty == ty || has_nested(reg) && nested_uses(reg, nested, ty)
}

/// Whether a register in the indices of `reg` has type `ty`.
fn nested_uses(reg: &Reg, nested: &Nested, ty: RegType) -> bool {
    let uses = |id: NestedId| nested.get(id).is_some_and(|n| reg_uses(&n.reg, nested, ty));
    reg.index_reg().is_some_and(uses) || reg.dim2.is_some_and(uses)
}

/// The components `mask` writes with the result ([`DstComp::Write`]), as bits 0 (x) to 3 (w).
#[inline(always)]
fn written_components(mask: [DstComp; 4]) -> u32 {
    // The four modes (values 0..=3) as the bytes of one word; a byte is `Write` (1) where the
    // word xor-ed with 1 in every byte has a zero byte. For bytes below 0x80, adding 0x7F sets
    // the top bit exactly of the non-zero bytes (no carry crosses a byte), so the top bits left
    // clear mark the `Write` components; the multiply gathers bit 7 of byte k into bit 28 + k.
    let bytes = u32::from_le_bytes(mask.map(|c| c.value() as u8)) ^ 0x0101_0101;
    let nonzero = ((bytes & 0x7F7F_7F7F) + 0x7F7F_7F7F) | bytes;
    let zero = !nonzero & 0x8080_8080;
    (zero >> 7).wrapping_mul(0x1020_4080) >> 28
}

/// Whether `reg` has operands of its own: a register-relative index or a second dimension.
fn has_nested(reg: &Reg) -> bool {
    reg.index.is_some_and(Index::is_rel) || reg.dim2.is_some()
}

#[cfg(test)]
mod tests {
    use super::{DENSE_NUMBERS, NumSet, Paths, verify, verify_with};
    use crate::{
        Control, Dst, Family, Index, Inst, Nested, Opcode, PacketMods, Program, Reg, RegType,
        ShaderKind, ShiftScale, Src,
    };

    /// One instruction for each condition of the quick paths, alone or breaking its rule, each
    /// followed by an ordinary one; used by [`quick_paths_agree_with_the_full_checks`]. Nested
    /// operands go to `nested`, which each program of the cases takes a copy of.
    fn quick_path_cases(nested: &mut Nested) -> Vec<Vec<Inst>> {
        let iadd = || {
            Inst::new(Opcode::IAdd)
                .dst(Dst::temp(0).mask("x___"))
                .src(Src::temp(1).swz("x"))
                .src(Src::temp(2).swz("x"))
        };
        let dadd = |mask: &str| {
            Inst::new(Opcode::DAdd)
                .dst(Dst::temp(0).mask(mask))
                .src(Src::temp(1))
                .src(Src::temp(2))
        };
        let store = |dst: Dst| {
            Inst::new(Opcode::UavRawStore)
                .ctrl(Control::id(0))
                .dst(dst)
                .src(Src::temp(0).swz("x"))
                .src(Src::temp(1).swz("x"))
        };
        vec![
            vec![iadd()],
            vec![iadd().ctrl(Control(0x0200))],
            vec![Inst {
                mods: Some(Box::new(PacketMods {
                    pri_mod: Some(1),
                    ..PacketMods::default()
                })),
                ..iadd()
            }],
            vec![Inst {
                mods: Some(Box::new(PacketMods {
                    addr_offset: Some(0),
                    ..PacketMods::default()
                })),
                ..iadd()
            }],
            vec![iadd().src(Src::temp(3))],
            vec![iadd().extra(&[1])],
            vec![iadd().dst(Dst::temp(5))],
            vec![
                Inst::new(Opcode::IAdd)
                    .dst(Dst {
                        sat: true,
                        ..Dst::temp(0)
                    })
                    .src(Src::temp(1))
                    .src(Src::temp(2).abs()),
            ],
            vec![
                Inst::new(Opcode::IAdd)
                    .dst(Dst {
                        shift: ShiftScale::X2,
                        ..Dst::temp(0).mask("_y__")
                    })
                    .src(Src::temp(1))
                    .src(Src::temp(2)),
            ],
            vec![
                Inst::new(Opcode::IAdd)
                    .dst(Dst::temp(0).mask("____"))
                    .src(Src::temp(1))
                    .src(Src::temp(2)),
            ],
            vec![dadd("xy__")],
            vec![dadd("x___")],
            vec![
                Inst::new(Opcode::UShr)
                    .dst(Dst::temp(0))
                    .src(Src::temp(1))
                    .src(Src::temp(2).swz("xyzw")),
            ],
            vec![
                Inst::new(Opcode::UShr)
                    .dst(Dst::temp(0))
                    .src(Src::temp(1))
                    .src(Src::temp(2).swz("y")),
            ],
            vec![
                Inst::new(Opcode::DclRawUav).ctrl(Control::id(0)),
                store(Dst::mem().mask("x___")),
            ],
            vec![store(Dst::mem().mask("x___"))],
            vec![
                Inst::new(Opcode::DclRawUav).ctrl(Control::id(0)),
                store(Dst::temp(3)),
            ],
            vec![Inst::new(Opcode::Mov).dst(Dst::mem()).src(Src::temp(1))],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::literal(4).swz("x")),
            ],
            vec![
                Inst::literal(4, [0; 4]),
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::literal(4).swz("x")),
            ],
            vec![Inst::literal(4, [0; 4]), Inst::literal(4, [1; 4])],
            vec![
                Inst::new(Opcode::DclLiteral)
                    .src(Src::literal(2).negate())
                    .extra(&[0; 4]),
            ],
            vec![Inst::new(Opcode::Mov).dst(Dst::temp(0)).src(Src::cb(1, 3))],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::new(Reg::new(RegType::ITemp, 0).at(2))),
            ],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(Reg::new(RegType::Depth, 0)))
                    .src(Src::temp(1)),
            ],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::new(Reg::new(RegType::Vertex, 0))),
            ],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::special(RegType::AbsoluteThreadIdFlat)),
            ],
            vec![Inst::new(Opcode::Mov).dst(Dst::temp(0)).src(Src::new(Reg {
                index: Some(Index::AddrReg { rel_addr: 0 }),
                ..Reg::new(RegType::Temp, 0)
            }))],
            // Indexed destinations: declared and indexable, undeclared, not indexable.
            vec![
                Inst::new(Opcode::DclIndexedTempArray)
                    .src(Src::new(Reg::new(RegType::ITemp, 0).at(4))),
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(Reg::new(RegType::ITemp, 0).at(2)).mask("x___"))
                    .src(Src::temp(1).swz("x")),
            ],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(Reg::new(RegType::ITemp, 0).at(2)))
                    .src(Src::temp(1)),
            ],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(Reg::new(RegType::Temp, 0).at(2)))
                    .src(Src::temp(1)),
            ],
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(Reg::new(RegType::Output, 0).at(1)))
                    .src(Src::temp(1)),
            ],
            vec![
                Inst::new(Opcode::DclIndexedTempArray)
                    .src(Src::new(Reg::new(RegType::ITemp, 0).at(4))),
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(
                        Reg::new(RegType::ITemp, 0).rel(nested.push(Src::temp(2).swz("x")), None),
                    ))
                    .src(Src::temp(1)),
            ],
            // Third sources: an undeclared literal, a float modifier on an integer instruction.
            vec![
                Inst::new(Opcode::Mad)
                    .dst(Dst::temp(0))
                    .src(Src::temp(1))
                    .src(Src::temp(2))
                    .src(Src::literal(5)),
            ],
            vec![
                Inst::new(Opcode::IMad)
                    .dst(Dst::temp(0))
                    .src(Src::temp(1))
                    .src(Src::temp(2))
                    .src(Src::temp(3).abs()),
            ],
            // Numbers from 64 up: temporaries need no declaration, literals go to the sets.
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(100))
                    .src(Src::temp(70)),
            ],
            vec![
                Inst::literal(70, [0; 4]),
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::literal(70)),
            ],
            // An SM30-only register (mixed with SM40 after the prefix of the test).
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::new(Reg::new(RegType::PInput, 0))),
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::new(Reg::new(RegType::Input, 1))),
            ],
            // An SM30-only register, then an SM40-only instruction.
            vec![
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::new(Reg::new(RegType::PInput, 0))),
                Inst::new(Opcode::DiscardLogicalz).src(Src::temp(1).swz("x")),
            ],
            // A number from 64 up whose number modulo 64 is declared.
            vec![
                Inst::literal(6, [0; 4]),
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::literal(70)),
            ],
            vec![
                Inst::new(Opcode::DclIndexedTempArray)
                    .src(Src::new(Reg::new(RegType::ITemp, 6).at(4))),
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(Reg::new(RegType::ITemp, 70).at(2)).mask("x___"))
                    .src(Src::temp(1).swz("x")),
            ],
            // A source indexed by an undeclared literal.
            vec![
                Inst::new(Opcode::DclIndexedTempArray)
                    .src(Src::new(Reg::new(RegType::ITemp, 0).at(4))),
                Inst::new(Opcode::Mov).dst(Dst::temp(0)).src(Src::new(
                    Reg::new(RegType::ITemp, 0).rel(nested.push(Src::literal(9).swz("x")), None),
                )),
            ],
            // Declared constant buffers and shared temporaries: within and beyond the count.
            vec![
                Inst::new(Opcode::DclConstBuffer).src(Src::cb(1, 4)),
                Inst::new(Opcode::Mov).dst(Dst::temp(0)).src(Src::cb(1, 3)),
            ],
            vec![
                Inst::new(Opcode::DclSharedTemp).src(Src::new(Reg::new(RegType::SharedTemp, 4))),
                Inst::new(Opcode::Mov)
                    .dst(Dst::new(Reg::new(RegType::SharedTemp, 3)))
                    .src(Src::new(Reg::new(RegType::SharedTemp, 2))),
                Inst::new(Opcode::Mov)
                    .dst(Dst::temp(0))
                    .src(Src::new(Reg::new(RegType::SharedTemp, 4))),
            ],
            vec![Inst::new(Opcode::Endmain), iadd(), Inst::literal(1, [0; 4])],
            vec![
                Inst::new(Opcode::Endmain),
                Inst::new(Opcode::Func).extra(&[1]),
                iadd(),
            ],
        ]
    }

    /// `written_components` agrees with the plain definition (bit k set where component k is
    /// `Write`) on all 256 masks.
    #[test]
    fn written_components_of_every_mask() {
        use crate::DstComp;
        let modes = [
            DstComp::NoWrite,
            DstComp::Write,
            DstComp::Zero,
            DstComp::One,
        ];
        for n in 0..256usize {
            let mask = [0, 1, 2, 3].map(|k| modes[n >> (2 * k) & 3]);
            let plain = (0..4)
                .filter(|&k| mask[k] == DstComp::Write)
                .fold(0, |bits, k| bits | 1 << k);
            assert_eq!(super::written_components(mask), plain, "{mask:?}");
        }
    }

    /// The compile-time string helpers of `OpFacts::derive` agree with `str`'s own methods on
    /// every mnemonic and each pattern the facts use (plus the empty pattern and a mnemonic
    /// itself), so the table the compiler computes is the one the `str` forms would give.
    #[test]
    fn const_string_helpers_agree_with_str() {
        let patterns = [
            "",
            "dcl",
            "sample",
            "_read_",
            "lds_read_vec",
            "append_buf",
            "uav_",
            "lds_",
            "srv_",
            "gds_",
            "store",
            "iadd",
        ];
        for info in &crate::OPCODES {
            let m = info.mnemonic;
            for p in patterns.iter().copied().chain([m]) {
                assert_eq!(super::starts_with(m, p), m.starts_with(p), "{m} / {p}");
                assert_eq!(super::contains(m, p), m.contains(p), "{m} / {p}");
                assert_eq!(super::str_eq(m, p), m == p, "{m} / {p}");
            }
        }
    }

    /// The quick paths accept and reject exactly as the full checks do, with the same messages,
    /// for compute and pixel programs on every family (a compute-only register in a pixel
    /// program, double precision on R600, `mem` before Evergreen), each case alone and after a
    /// literal read, which notes the SM40 partition (until then the quick path leaves SM40
    /// items to the full checks).
    #[test]
    fn quick_paths_agree_with_the_full_checks() {
        let mut rejected = 0;
        let mut nested = Nested::new();
        let sm40_seen = [
            Inst::literal(63, [0; 4]),
            Inst::new(Opcode::Mov)
                .dst(Dst::temp(0).mask("x___"))
                .src(Src::literal(63).swz("x")),
        ];
        for (case, body) in quick_path_cases(&mut nested).into_iter().enumerate() {
            for (shader, prefix) in [ShaderKind::Compute, ShaderKind::Pixel]
                .into_iter()
                .flat_map(|shader| [(shader, &sm40_seen[..0]), (shader, &sm40_seen[..])])
            {
                let mut p = Program::new(shader);
                p.nested = nested.clone();
                for inst in prefix.iter().chain(&body).cloned() {
                    p.push(inst);
                }
                p.push(Inst::new(Opcode::RetDyn))
                    .push(Inst::new(Opcode::End));
                for family in Family::ALL {
                    let quick = verify_with(&p, family, Paths::QuickFirst);
                    let full = verify_with(&p, family, Paths::FullOnly);
                    let after = prefix.len();
                    assert_eq!(
                        quick, full,
                        "case {case} after {after}, {shader:?}, {family:?}"
                    );
                    rejected += usize::from(full.is_err());
                }
            }
        }
        // Most cases break a rule somewhere; a few are accepted everywhere they are legal.
        assert!(rejected > 100, "only {rejected} rejections");
    }

    #[test]
    fn number_sets_hold_bits_and_large_numbers_alike() {
        let mut set = NumSet::default();
        // The edges of the inline word and of the next words, the last number kept as bits, and
        // the first and last numbers of the sparse part.
        let numbers = [
            0,
            63,
            64,
            127,
            128,
            DENSE_NUMBERS - 1,
            DENSE_NUMBERS,
            u32::MAX,
        ];
        for n in numbers {
            assert!(!set.contains(n), "{n} before insertion");
            assert!(set.insert(n), "{n} is new");
            assert!(!set.insert(n), "{n} is already there");
            assert!(set.contains(n), "{n} after insertion");
        }
        for n in [
            1,
            62,
            65,
            126,
            129,
            DENSE_NUMBERS - 2,
            DENSE_NUMBERS + 1,
            u32::MAX - 1,
        ] {
            assert!(!set.contains(n), "{n} was never inserted");
        }
    }

    /// A compute program declaring literal `declared` (twice if `twice`) and reading `used`.
    fn literal_program(declared: u32, twice: bool, used: u32) -> Program {
        let mut p = Program::new(ShaderKind::Compute);
        p.push(Inst::literal(declared, [0; 4]));
        if twice {
            p.push(Inst::literal(declared, [1; 4]));
        }
        p.push(
            Inst::new(Opcode::Mov)
                .dst(Dst::temp(0).mask("x___"))
                .src(Src::literal(used).swz("x")),
        )
        .push(Inst::new(Opcode::End));
        p
    }

    // The expected messages are the verifier's wording for the declaration rules (see
    // `check_declarations`); the verifier with hash sets only gave the same for these programs.
    #[test]
    fn literal_numbers_beyond_the_bit_sets_are_declared_and_checked() {
        let big = DENSE_NUMBERS + 4464;
        assert_eq!(
            verify(&literal_program(big, false, big), Family::Evergreen),
            Ok(())
        );
        let undeclared = verify(&literal_program(big, false, big + 1), Family::Evergreen)
            .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>());
        assert_eq!(
            undeclared,
            Err(vec![format!(
                "instruction 1: Literal {} used before its declaration (guide §2.1)",
                big + 1
            )])
        );
        let twice = verify(&literal_program(big, true, big), Family::Evergreen)
            .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>());
        assert_eq!(
            twice,
            Err(vec![format!(
                "instruction 1: literal l{big} declared twice (guide §7.5 DCL_LITERAL)"
            )])
        );
    }
}
