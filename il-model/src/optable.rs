//! The shape of one opcode-table row ([`OpInfo`]) and the vocabularies its columns use: control-field
//! layouts ([`ControlLayout`], amd-il.md §1.12), trailing tokens ([`Extra`], §1.11), flow-control roles,
//! shader kinds, GPU families (Appendix C/D, digest §8) and shader-model partition (§8.2).
//!
//! The rows themselves are in `opcode_table.rs`. The writer, the reader and the verifier derive
//! everything opcode-specific from these rows; none of them matches on individual opcodes except for
//! the few packets whose layout is not operand-shaped (comment, macros, function tables).

use crate::enums::{
    CmpValue, DataSize, ElementFormat, FirstBitType, ImportUsage, InterpMode, LdsSharingMode,
    Matrix, NoiseType, PixTexUsage, RelOp, Topology, UavReadType, ZeroOp,
};
use crate::opcode_table::Opcode;

/// One row of the opcode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// The opcode.
    pub op: Opcode,
    /// The Appendix-B enumerant spelling (`IL_OP_MOVA` is not in Appendix B; see amd-il.md §2.1).
    pub enumerant: &'static str,
    /// The index in Appendix B v2.4, or `None` for `IL_OP_MOVA`.
    pub appendix_b: Option<u16>,
    /// The MOVA-corrected binary code (bits 15:0 of the IL_Opcode token).
    pub code: u16,
    /// The canonical text mnemonic (what the writer prints).
    pub mnemonic: &'static str,
    /// Other spellings AMD's tools used; accepted by the text parser.
    pub aliases: &'static [&'static str],
    /// Number of destination operands (0 or 1).
    pub dst: u8,
    /// Number of source operands (the base form; `_ext` forms add more, see [`ControlLayout::extra_srcs`]).
    pub src: u8,
    /// Meaning of the control field (opcode token bits 29:16, for some layouts also 31:30).
    pub control: ControlLayout,
    /// Trailing tokens after the operands.
    pub extra: Extra,
    /// Role in block structure.
    pub flow: Flow,
    /// Shader kinds that may use the instruction.
    pub shaders: ShaderSet,
    /// GPU families that support the instruction.
    pub families: FamilySet,
    /// Shader-model partition (Appendix C.2).
    pub model: ShaderModel,
    /// Needs a double-precision-capable part (Appendix D marks these `FP64`).
    pub fp64: bool,
}

/// What an instruction does to the block structure (used for indentation and balance checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// No block effect.
    None,
    /// Opens an `if` block (`if_logicalz/nz`, `ifc`, `ifnz`).
    If,
    /// `else`.
    Else,
    /// `endif`.
    EndIf,
    /// Opens a loop (`whileloop`, `loop`).
    Loop,
    /// `endloop`.
    EndLoop,
    /// `switch`.
    Switch,
    /// `case`.
    Case,
    /// `default`.
    Default,
    /// `endswitch`.
    EndSwitch,
    /// `func` (subroutine start).
    Func,
    /// `endfunc`.
    EndFunc,
    /// `ret` (return and lexical end of a subroutine).
    Ret,
    /// `endmain`.
    EndMain,
    /// `end`.
    End,
    /// A call (`call`, `callnz`, `call_logicalz/nz`).
    Call,
    /// A break form.
    Break,
    /// A continue form.
    Continue,
    /// Opens a hull-shader phase.
    Phase,
    /// `endphase`.
    EndPhase,
    /// `mdef` (macro start).
    MacroDef,
    /// `mend`.
    MacroEnd,
}

/// A set of shader kinds (bit `k` = `ShaderKind` value `k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderSet(pub u8);

impl ShaderSet {
    /// Every shader kind.
    pub const ALL: ShaderSet = ShaderSet(0x3F);
    /// Vertex shaders only.
    pub const VS: ShaderSet = ShaderSet(1);
    /// Pixel shaders only.
    pub const PS: ShaderSet = ShaderSet(2);
    /// Geometry shaders only.
    pub const GS: ShaderSet = ShaderSet(4);
    /// Compute shaders only.
    pub const CS: ShaderSet = ShaderSet(8);
    /// Hull shaders only.
    pub const HS: ShaderSet = ShaderSet(16);
    /// Hull and domain shaders.
    pub const HS_DS: ShaderSet = ShaderSet(16 | 32);
    /// Pixel and compute shaders.
    pub const PS_CS: ShaderSet = ShaderSet(2 | 8);

    /// Whether `kind` is in the set.
    pub const fn contains(self, kind: crate::ShaderKind) -> bool {
        self.0 & (1 << kind.value()) != 0
    }
}

/// The GPU families a program can be verified for (amd-il.md §8.1 order).
///
/// The guide distinguishes more parts than these five generations; its gates map here
/// conservatively (a feature counts only if every part of the family has it): "R670 and later" →
/// [`Family::R700`], "R670 only" and "R520 only" → no family, "NI" → [`Family::Cayman`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// R600 generation (HD2000/HD3000).
    R600 = 0,
    /// R700 generation (HD4000).
    R700 = 1,
    /// Evergreen (HD5000).
    Evergreen = 2,
    /// Cayman / Northern Islands (HD6900).
    Cayman = 3,
    /// Southern Islands (HD7000).
    Si = 4,
}

impl Family {
    /// Every family, oldest first.
    pub const ALL: [Family; 5] = [
        Family::R600,
        Family::R700,
        Family::Evergreen,
        Family::Cayman,
        Family::Si,
    ];

    /// The lower-case name (`r600`, `r700`, `evergreen`, `cayman`, `si`).
    pub fn name(self) -> &'static str {
        match self {
            Family::R600 => "r600",
            Family::R700 => "r700",
            Family::Evergreen => "evergreen",
            Family::Cayman => "cayman",
            Family::Si => "si",
        }
    }

    /// Whether every part of the family executes the double-precision instructions (Appendix D
    /// marks them "[FP64]"; guide §7.2.5 names the parts: "R670, R770, Cypress, etc."). Under
    /// the conservative mapping above a family counts only when all its parts have them: R600
    /// (only RV670), R700 (only RV770/RV790) and Evergreen (only Cypress/Hemlock, HD 58xx/59xx;
    /// Juniper, Redwood and Cedar have no FP64 unit) do not; every Cayman part does, and so does
    /// every Southern Islands part [EXT: the guide predates most of SI, whose parts all run
    /// double instructions, at different rates]. (The verifier is more lenient: it accepts
    /// double instructions from R700 on, for the parts of those families that have them.)
    pub fn has_fp64(self) -> bool {
        self >= Family::Cayman
    }

    /// The family called `name` (as printed by [`Family::name`], any case).
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }
}

/// A set of [`Family`] values (bit `i` = family `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FamilySet(pub u8);

impl FamilySet {
    /// Every family.
    pub const ALL: FamilySet = FamilySet(0b11111);
    /// No family of the five (e.g. R520-only or R670-only features).
    pub const NONE: FamilySet = FamilySet(0);
    /// R700 and later.
    pub const R700_UP: FamilySet = FamilySet(0b11110);
    /// R700 only.
    pub const R700_ONLY: FamilySet = FamilySet(0b00010);
    /// Evergreen and later.
    pub const EG_UP: FamilySet = FamilySet(0b11100);
    /// Evergreen and Cayman only.
    pub const EG_CAYMAN: FamilySet = FamilySet(0b01100);
    /// Cayman and later.
    pub const CAYMAN_UP: FamilySet = FamilySet(0b11000);
    /// Southern Islands only.
    pub const SI_UP: FamilySet = FamilySet(0b10000);

    /// Whether `family` is in the set.
    pub const fn contains(self, family: Family) -> bool {
        self.0 & (1 << family as u8) != 0
    }
}

/// Appendix C.2 partition: SM40-only and SM30-only items must not be mixed in one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderModel {
    /// Usable in either model.
    Any,
    /// DX10+ (SM40) only.
    Sm40,
    /// DX9 (SM30) only.
    Sm30,
}

/// Trailing tokens of a packet after its operands (amd-il.md §1.11). In the model they are
/// `Inst::extra`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extra {
    /// None.
    None,
    /// One subroutine label (`call 3`, `func 3`); text: decimal.
    Label,
    /// One 32-bit case value; text: signed decimal.
    CaseValue,
    /// Exactly `n` raw words; text: `, 0x%08X` each for literals (n = 4), decimal otherwise.
    Words(u8),
    /// One IEEE float (`dcl_max_tessfactor`); text: a float literal.
    Float,
    /// 1–3 words whose count is the control field (`dcl_num_thread_per_group 64, 1, 1`).
    CountedWords,
    /// `comment`: a length word then NUL-terminated text padded to whole words.
    Comment,
    /// A count then that many labels (`dcl_function_table_id(t) = {0, 3}`); the model keeps the
    /// labels, the count word is derived.
    LabelList,
    /// `dcl_interface_ptr`: array size, length, count, table ids; the model keeps array size,
    /// length and the ids, the count word is derived.
    InterfacePtr,
    /// The macro signature word: for `mdef` the model keeps it (`_out(m)_in(n)[_outline]`); for
    /// `mcall` it is derived from the operand lists.
    MacroSignature,
    /// The resource-format word of `dcl_resource` (fmtx/y/z/w).
    ResourceFormat,
    /// Two words of the undocumented `dcl_typeless_uav`, written `_stride(s)_length(l)` (AMD's
    /// OpenCL compiler's spelling); GRVK reads the first as the stride.
    StrideLength,
    /// `dcl_cb` with the immediate flag: a count then that many words.
    ImmediateConstants,
}

/// How one control bit field is written in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A bare flag: `_name` when the bit is set.
    Flag,
    /// `_name(n)` in decimal; omitted when zero unless `always`.
    Number {
        /// Print even when the value is 0 (resource ids).
        always: bool,
    },
    /// `_name(word)` from a list of `(word, value)`; omitted when zero unless `always`.
    Enum {
        /// Spellings (canonical first for each value).
        names: &'static [(&'static str, u32)],
        /// Print even when the value is 0.
        always: bool,
    },
    /// A bare word naming the value (`ffb_lo`, `_cached`); a value whose word is empty prints nothing.
    Choice(&'static [(&'static str, u32)]),
    /// A number written as a trailing operand after the instruction's other operands
    /// (`dcl_stream 1`, `hs_fork_phase 2`).
    Operand,
    /// A bare word after the mnemonic naming the value (`dcl_ts_domain ts_domain_tri`,
    /// `dcl_global_flags refactoringAllowed`); a value without a word prints nothing.
    Word(&'static [(&'static str, u32)]),
    /// Derived by the writer (e.g. the count of [`Extra::CountedWords`]); never printed.
    Hidden,
}

/// One bit field of the 16-bit control (bit 0 = opcode token bit 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtrlField {
    /// Text name (`id`, `relop`, `ieee`, …).
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// Lowest bit within the control.
    pub lo: u8,
    /// Width in bits.
    pub width: u8,
    /// Text form.
    pub kind: FieldKind,
}

impl CtrlField {
    const fn new(name: &'static str, lo: u8, width: u8, kind: FieldKind) -> CtrlField {
        CtrlField {
            name,
            aliases: &[],
            lo,
            width,
            kind,
        }
    }

    /// The field's bit mask within the control.
    pub const fn mask(&self) -> u16 {
        (((1u32 << self.width) - 1) << self.lo) as u16
    }

    /// This field's value inside `control`.
    pub const fn get(&self, control: u16) -> u32 {
        ((control & self.mask()) >> self.lo) as u32
    }
}

const fn flag(name: &'static str, bit: u8) -> CtrlField {
    CtrlField::new(name, bit, 1, FieldKind::Flag)
}

const fn num(name: &'static str, lo: u8, width: u8) -> CtrlField {
    CtrlField::new(name, lo, width, FieldKind::Number { always: true })
}

const fn id_field(width: u8) -> CtrlField {
    CtrlField {
        name: "id",
        aliases: &["resource"],
        lo: 0,
        width,
        kind: FieldKind::Number { always: true },
    }
}

const fn enm(
    name: &'static str,
    lo: u8,
    width: u8,
    names: &'static [(&'static str, u32)],
    always: bool,
) -> CtrlField {
    CtrlField::new(name, lo, width, FieldKind::Enum { names, always })
}

const ZEROOP: CtrlField = enm("zeroop", 0, 2, ZeroOp::NAMES, false);
const RELOP: CtrlField = enm("relop", 0, 3, RelOp::NAMES, true);
const EXT: CtrlField = flag("ext", 12);
const RESOURCE: CtrlField = num("resource", 0, 8);

const DCL_INPUT_FIELDS: [CtrlField; 6] = [
    enm("usage", 0, 5, ImportUsage::NAMES, false),
    enm("interp", 5, 3, InterpMode::NAMES, false),
    flag("center", 8),
    flag("bias", 9),
    flag("invert", 10),
    flag("centered", 11),
];
const FENCE_FIELDS: [CtrlField; 7] = [
    flag("threads", 0),
    flag("lds", 1),
    flag("memory", 2),
    flag("sr", 3),
    flag("mem_write_only", 4),
    flag("mem_read_only", 5),
    flag("gds", 6),
];
const COMPONENT4: [(&str, u32); 4] = [("-", 0), ("0", 1), ("1", 2), ("*", 3)];
const DEFAULT3: [(&str, u32); 3] = [("*", 0), ("0", 1), ("1", 2)];
const TEXLD_FIELDS: [CtrlField; 3] = [
    num("stage", 0, 8),
    flag("centroid", 8),
    enm(
        "shadowmode",
        10,
        2,
        crate::enums::TexShadowMode::NAMES,
        false,
    ),
];
const TEXLDB_FIELDS: [CtrlField; 4] = [
    num("stage", 0, 8),
    flag("centroid", 8),
    flag("absolute", 9),
    enm(
        "shadowmode",
        10,
        2,
        crate::enums::TexShadowMode::NAMES,
        false,
    ),
];

/// Layout of the control field of an opcode (amd-il.md §1.12). Each layout is a list of
/// [`CtrlField`]s; bits that no field covers must be zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ControlLayout {
    /// Control must be 0.
    None,
    /// Bit 16 `_ieee`.
    Ieee,
    /// `_relop(op)`.
    RelOp,
    /// `cmp`: `_relop(op)_cmpval(v)`.
    Cmp,
    /// `_zeroop(z)`.
    ZeroOp,
    /// `nrm`: `_nrm4`, `_zeroop(z)`.
    Nrm,
    /// `reflect`: `_normalize`.
    Normalize,
    /// `dsx`/`dsy`: `_fine`.
    Fine,
    /// `loop`: `_repeat`.
    Repeat,
    /// `mmul`/`det`/`transpose`: `_matrix(m)`.
    Matrix,
    /// `noise`: `_type(t)`.
    Noise,
    /// `fence`: `_threads _lds _memory _sr _mem_write_only _mem_read_only _gds`.
    Fence,
    /// `ffb`: `_lo`/`_hi`/`_shi`.
    FirstBit,
    /// `dcl_input`: usage, interpolation, window-coordinate flags.
    DclInput,
    /// `dcl_output`: usage.
    DclOutput,
    /// `dcl_input_primitive`: `IL_TOPOLOGY`.
    InputPrimitive,
    /// A plain number written as a trailing operand.
    Value,
    /// `dcl_ts_domain`.
    TsDomain,
    /// `dcl_ts_partition`.
    TsPartition,
    /// `dcl_ts_output_primitive`.
    TsOutputPrimitive,
    /// `dcl_lds_sharing_mode`: `_wavefrontRel`/`_wavefrontAbs`.
    LdsSharingMode,
    /// The number of [`Extra::CountedWords`] (derived).
    CountOfExtra,
    /// `dcl_global_flags`.
    GlobalFlags,
    /// `_id(n)` in bits 29:16.
    ResourceId,
    /// `uav_raw_load`: `_id(n)` 25:16, `_cached`/`_uncached` 27:26.
    UavRawLoad,
    /// Arena UAV: `_id(n)` 25:16, `_size(s)` 27:26, caching 29:28.
    Arena,
    /// `dcl_uav`: `_id(n)` 19:16, `_type(t)` 27:24, `_fmtx(f)` 23:20.
    DclUav,
    /// LDS ops: `_id(n)` in 19:16.
    LdsId,
    /// `srv_*_load`: `_ext` 28, `_id(n)` 23:16.
    Srv,
    /// Sample family: `_ext`, `_resource(n)`, `_sampler(m)`.
    Sample,
    /// `load`, `load_fptr`: `_ext`, `_resource(n)`.
    Load,
    /// `resinfo`, `sampleinfo`, `samplepos`: `_ext`, `_resource(n)`, `_uint`.
    ResInfo,
    /// `bufinfo`: `_ext`, `_resource(n)`.
    BufInfo,
    /// `dcl_resource`: `_id(n)`, `_type(t)`, `_unnorm` (bit 31).
    DclResource,
    /// `kill`: `_stage(n)`, `_sample`.
    Kill,
    /// `_stage(n)` in 23:16.
    Stage,
    /// `texld`/`texldd`/`texldms`.
    Texld,
    /// `texldb` (adds `_absolute`).
    Texldb,
    /// `dclpt`.
    Dclpt,
    /// `dclpi`.
    Dclpi,
    /// `dclpin`.
    Dclpin,
    /// `dclvout`.
    Dclvout,
    /// `dclv`.
    Dclv,
    /// `dcldef`.
    Dcldef,
    /// `dclpp`.
    Dclpp,
    /// `memexport`.
    Memexport,
    /// `memimport`.
    Memimport,
    /// `dcl_interface_ptr`.
    InterfacePtr,
    /// `mdef`/`mcall`: macro id.
    Macro,
    /// `IL_OP_PREFIX`: precise x/y/z/w.
    Prefix,
    /// R7xx `lds_read_vec`.
    LdsReadVec,
    /// R7xx `lds_write_vec`.
    LdsWriteVec,
    /// `dcl_cb`: bit 31 = immediate constant buffer.
    DclCb,
}

/// A `'static` slice of fields built by `const fn`s (a `const` item makes it promotable).
macro_rules! fl {
    ($fields:expr) => {{
        const FIELDS: &[CtrlField] = &$fields;
        FIELDS
    }};
}

impl ControlLayout {
    /// The fields of this layout, in the order the writer prints them.
    pub const fn fields(self) -> &'static [CtrlField] {
        match self {
            ControlLayout::None => fl!([]),
            ControlLayout::Ieee => fl!([flag("ieee", 0)]),
            ControlLayout::RelOp => fl!([RELOP]),
            ControlLayout::Cmp => fl!([RELOP, enm("cmpval", 5, 3, CmpValue::NAMES, true)]),
            ControlLayout::ZeroOp => fl!([ZEROOP]),
            ControlLayout::Nrm => fl!([flag("nrm4", 2), ZEROOP]),
            ControlLayout::Normalize => fl!([flag("normalize", 0)]),
            ControlLayout::Fine => fl!([flag("fine", 7)]),
            ControlLayout::Repeat => fl!([flag("repeat", 0)]),
            ControlLayout::Matrix => fl!([enm("matrix", 0, 3, Matrix::NAMES, false)]),
            ControlLayout::Noise => fl!([enm("type", 0, 2, NoiseType::NAMES, true)]),
            ControlLayout::Fence => &FENCE_FIELDS,
            ControlLayout::FirstBit => fl!([CtrlField::new(
                "",
                0,
                2,
                FieldKind::Choice(FirstBitType::NAMES)
            )]),
            ControlLayout::DclInput => &DCL_INPUT_FIELDS,
            ControlLayout::DclOutput => fl!([enm("usage", 0, 5, ImportUsage::NAMES, false)]),
            ControlLayout::InputPrimitive => fl!([enm("type", 0, 6, Topology::NAMES, true)]),
            ControlLayout::Value => fl!([CtrlField::new("", 0, 14, FieldKind::Operand)]),
            ControlLayout::TsDomain => fl!([CtrlField::new(
                "",
                0,
                2,
                FieldKind::Word(&[
                    ("ts_domain_isoline", 0),
                    ("ts_domain_tri", 1),
                    ("ts_domain_quad", 2)
                ])
            )]),
            ControlLayout::TsPartition => fl!([CtrlField::new(
                "",
                0,
                2,
                FieldKind::Word(&[
                    ("ts_partition_integer", 0),
                    ("ts_partition_pow2", 1),
                    ("ts_partition_fractional_odd", 2),
                    ("ts_partition_fractional_even", 3)
                ])
            )]),
            ControlLayout::TsOutputPrimitive => fl!([CtrlField::new(
                "",
                0,
                2,
                FieldKind::Word(&[
                    ("ts_output_primitive_point", 0),
                    ("ts_output_primitive_line", 1),
                    ("ts_output_primitive_triangle_cw", 2),
                    ("ts_output_primitive_triangle_ccw", 3)
                ])
            )]),
            ControlLayout::LdsSharingMode => {
                fl!([CtrlField::new(
                    "",
                    0,
                    1,
                    FieldKind::Choice(LdsSharingMode::NAMES)
                )])
            }
            ControlLayout::CountOfExtra => fl!([CtrlField::new("", 0, 14, FieldKind::Hidden)]),
            ControlLayout::GlobalFlags => fl!([
                CtrlField::new(
                    "refactoringAllowed",
                    0,
                    1,
                    FieldKind::Word(&[("refactoringAllowed", 1)])
                ),
                CtrlField::new(
                    "forceEarlyDepthStencil",
                    1,
                    1,
                    FieldKind::Word(&[("forceEarlyDepthStencil", 1)])
                ),
                CtrlField::new(
                    "enableRawStructuredBuffers",
                    2,
                    1,
                    FieldKind::Word(&[("enableRawStructuredBuffers", 1)])
                ),
                CtrlField::new(
                    "enableDoublePrecisionFloatOps",
                    3,
                    1,
                    FieldKind::Word(&[("enableDoublePrecisionFloatOps", 1)]),
                ),
            ]),
            ControlLayout::ResourceId => fl!([id_field(14)]),
            ControlLayout::UavRawLoad => {
                fl!([
                    id_field(10),
                    CtrlField::new("", 10, 2, FieldKind::Choice(UavReadType::NAMES))
                ])
            }
            ControlLayout::Arena => fl!([
                id_field(10),
                enm("size", 10, 2, DataSize::NAMES, true),
                CtrlField::new("", 12, 2, FieldKind::Choice(UavReadType::NAMES)),
            ]),
            ControlLayout::DclUav => fl!([
                id_field(4),
                enm("type", 8, 4, PixTexUsage::NAMES, true),
                enm("fmtx", 4, 4, ElementFormat::NAMES, true),
            ]),
            ControlLayout::LdsId => fl!([id_field(4)]),
            ControlLayout::Srv => fl!([EXT, id_field(8)]),
            ControlLayout::Sample => fl!([EXT, RESOURCE, num("sampler", 8, 4)]),
            ControlLayout::Load | ControlLayout::BufInfo => fl!([EXT, RESOURCE]),
            ControlLayout::ResInfo => fl!([EXT, RESOURCE, flag("uint", 8)]),
            ControlLayout::DclResource => fl!([
                id_field(8),
                enm("type", 8, 4, PixTexUsage::NAMES, true),
                flag("unnorm", 15),
            ]),
            ControlLayout::Kill => fl!([num("stage", 0, 8), flag("sample", 8)]),
            ControlLayout::Stage => fl!([num("stage", 0, 8)]),
            ControlLayout::Texld => &TEXLD_FIELDS,
            ControlLayout::Texldb => &TEXLDB_FIELDS,
            ControlLayout::Dclpt => fl!([
                num("stage", 0, 8),
                enm("type", 8, 3, PixTexUsage::NAMES, true),
                enm("coordmode", 11, 2, crate::enums::TexCoordMode::NAMES, false),
                flag("cleartype", 13),
            ]),
            ControlLayout::Dclpi => fl!([
                enm("x", 0, 2, &COMPONENT4, true),
                enm("y", 2, 2, &COMPONENT4, true),
                enm("z", 4, 2, &COMPONENT4, true),
                enm("w", 6, 2, &COMPONENT4, true),
                flag("center", 8),
                flag("bias", 9),
                flag("invert", 10),
                flag("centered", 11),
            ]),
            ControlLayout::Dclpin | ControlLayout::Dclvout => {
                fl!([
                    enm("usage", 0, 5, ImportUsage::NAMES, false),
                    num("usageIndex", 5, 8)
                ])
            }
            ControlLayout::Dclv => fl!([num("elem", 0, 6)]),
            ControlLayout::Dcldef => fl!([
                enm("x", 0, 2, &DEFAULT3, true),
                enm("y", 2, 2, &DEFAULT3, true),
                enm("z", 4, 2, &DEFAULT3, true),
                enm("w", 6, 2, &DEFAULT3, true),
            ]),
            ControlLayout::Dclpp => fl!([num("param", 0, 8)]),
            ControlLayout::Memexport => fl!([num("exportStream", 0, 6), num("elemOffset", 7, 6)]),
            ControlLayout::Memimport => fl!([num("elem", 0, 6)]),
            ControlLayout::InterfacePtr => fl!([id_field(13), num("dynamic", 13, 1)]),
            // The macro id is written `mdef(k)` / `mcall(k)` (guide §7.19); the writers handle it.
            ControlLayout::Macro => fl!([CtrlField::new("", 0, 14, FieldKind::Hidden)]),
            ControlLayout::Prefix => fl!([flag("x", 0), flag("y", 1), flag("z", 2), flag("w", 3),]),
            ControlLayout::LdsReadVec => fl!([
                flag("neighborExch", 0),
                enm("sharingMode", 1, 1, &[("rel", 0), ("abs", 1)], false),
            ]),
            ControlLayout::LdsWriteVec => fl!([
                num("lOffset", 0, 6),
                enm("sharingMode", 6, 1, &[("rel", 0), ("abs", 1)], false),
            ]),
            ControlLayout::DclCb => fl!([flag("immediate", 15)]),
        }
    }

    /// Fields of the primary modifier token for the layouts that define one (amd-il.md §1.10 for
    /// the sample family, §1.12 for `dclpin`/`dclvout`/`dclv`). Field bit positions are within the
    /// modifier token.
    pub fn primary_fields(self) -> &'static [CtrlField] {
        match self {
            ControlLayout::Sample
            | ControlLayout::Load
            | ControlLayout::ResInfo
            | ControlLayout::BufInfo => fl!([
                enm(
                    "compselect",
                    0,
                    2,
                    &[("x", 0), ("y", 1), ("z", 2), ("w", 3)],
                    false
                ),
                enm("coordtype", 2, 2, crate::enums::TexCoordMode::NAMES, false),
                flag("uav", 4),
            ]),
            ControlLayout::Dclpin => fl!([
                enm("x", 0, 2, &COMPONENT4, true),
                enm("y", 2, 2, &COMPONENT4, true),
                enm("z", 4, 2, &COMPONENT4, true),
                enm("w", 6, 2, &COMPONENT4, true),
                flag("centroid", 8),
                flag("constant", 9),
                flag("no_perspective", 10),
            ]),
            ControlLayout::Dclvout | ControlLayout::Dclv => fl!([
                enm("x", 0, 2, &COMPONENT4, true),
                enm("y", 2, 2, &COMPONENT4, true),
                enm("z", 4, 2, &COMPONENT4, true),
                enm("w", 6, 2, &COMPONENT4, true),
            ]),
            _ => &[],
        }
    }

    /// Bits of the 16-bit control that some field covers.
    pub const fn defined_bits(self) -> u16 {
        // A loop rather than an iterator, so that the verifier's opcode facts can be computed
        // at compile time.
        let fields = self.fields();
        let mut bits = 0;
        let mut i = 0;
        while i < fields.len() {
            bits |= fields[i].mask();
            i += 1;
        }
        bits
    }

    /// Whether the layout itself uses bits 31:30 of the opcode token (so they are not the
    /// primary/secondary modifier flags; amd-il.md §1.4).
    pub const fn owns_modifier_bits(self) -> bool {
        self.defined_bits() & 0xC000 != 0
    }

    /// Source operands added when the `_ext` (indexed resource) bit is set (amd-il.md §1.10).
    pub const fn extra_srcs(self, control: u16) -> u8 {
        let ext = control & (1 << 12) != 0;
        match self {
            ControlLayout::Sample
            | ControlLayout::Load
            | ControlLayout::ResInfo
            | ControlLayout::BufInfo
                if ext =>
            {
                2
            }
            ControlLayout::Srv if ext => 1,
            _ => 0,
        }
    }
}
