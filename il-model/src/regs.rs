//! `ILRegType`: the 6-bit register-type field of operand tokens (amd-il.md §2.2), with text names
//! and the facts the verifier needs (readability, shader kinds, shader model, families; §4, §5, §8).

use crate::enums::ShaderKind;
use crate::optable::{FamilySet, ShaderModel, ShaderSet};

/// Static facts about one register type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegInfo {
    /// The type.
    pub ty: RegType,
    /// Text name (for the dual-named output/input types, the input spelling).
    pub name: &'static str,
    /// The spelling used where the register is a vertex-shader output (`oT#` vs `vT#`), if different.
    pub output_name: Option<&'static str>,
    /// Other spellings accepted by the parser.
    pub aliases: &'static [&'static str],
    /// Whether text always carries a register number (`r0`) rather than only when it is non-zero (`mem`).
    pub numbered: bool,
    /// May be read (a source).
    pub readable: bool,
    /// May be written (a destination).
    pub writable: bool,
    /// Shader kinds that have the register.
    pub shaders: ShaderSet,
    /// Appendix C.2 partition.
    pub model: ShaderModel,
    /// Families that have the register (Appendix D "Registers", digest §8.4).
    pub families: FamilySet,
}

macro_rules! reg_types {
    ($( $(#[$m:meta])* $v:ident = $n:literal, $name:literal, $out:expr, [$($al:literal),*], $num:literal, $r:literal, $w:literal, $sh:ident, $sm:ident, $fam:ident; )+) => {
        /// A register type (`ILRegType`, amd-il.md §2.2). The discriminant is the 6-bit field value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum RegType { $( $(#[$m])* $v = $n ),+ }

        /// One row per register type, indexed by value.
        pub static REG_TYPES: [RegInfo; 63] = [
            $( RegInfo { ty: RegType::$v, name: $name, output_name: $out, aliases: &[$($al),*], numbered: $num,
                readable: $r, writable: $w, shaders: ShaderSet::$sh, model: ShaderModel::$sm, families: FamilySet::$fam }, )+
        ];
    };
}

reg_types! {
    /// `b#`: DX9 boolean constant.
    ConstBool = 0, "b", None, [], true, true, false, ALL, Sm30, ALL;
    /// `c#`: DX9 float constant.
    ConstFloat = 1, "c", None, [], true, true, false, ALL, Sm30, ALL;
    /// `i#`: DX9 integer constant (loop counters).
    ConstInt = 2, "i", None, [], true, true, false, ALL, Sm30, ALL;
    /// `a#`: DX9 address register.
    Addr = 3, "a", None, [], true, true, true, VS, Sm30, ALL;
    /// `r#`: temporary.
    Temp = 4, "r", None, [], true, true, true, ALL, Any, ALL;
    /// `v#` in DX9 vertex shaders (declared with `dclv`).
    Vertex = 5, "v", None, [], true, true, false, VS, Sm30, ALL;
    /// `vIndex`.
    Index = 6, "vIndex", None, [], false, true, false, VS, Any, ALL;
    /// `vObjIndex`.
    ObjectIndex = 7, "vObjIndex", None, [], false, true, false, ALL, Any, ALL;
    /// `vBaryCoord`.
    BarycentricCoord = 8, "vBaryCoord", None, [], false, true, false, VS, Any, ALL;
    /// `vPrimIndex`.
    PrimitiveIndex = 9, "vPrimIndex", None, [], false, true, false, VS, Any, ALL;
    /// `vQuadIndex`.
    QuadIndex = 10, "vQuadIndex", None, [], false, true, false, VS, Any, ALL;
    /// `oVtxOut#`.
    VOutput = 11, "oVtxOut", None, [], true, false, true, VS, Sm30, ALL;
    /// `vPixIn#`.
    PInput = 12, "vPixIn", None, [], true, true, false, PS, Sm30, ALL;
    /// `oSprite`.
    Sprite = 13, "oSprite", None, [], false, false, true, VS, Sm30, ALL;
    /// `oPos`.
    Pos = 14, "oPos", None, [], false, false, true, VS, Sm30, ALL;
    /// `vInterp#` / `oInterp#`.
    Interp = 15, "vInterp", Some("oInterp"), [], true, true, true, ALL, Sm30, ALL;
    /// `vFog` / `oFog`.
    Fog = 16, "vFog", Some("oFog"), [], false, true, true, ALL, Sm30, ALL;
    /// `vT#` / `oT#`.
    TexCoord = 17, "vT", Some("oT"), [], true, true, true, ALL, Sm30, ALL;
    /// `vPriColor#` / `oPriColor#`.
    PriColor = 18, "vPriColor", Some("oPriColor"), [], true, true, true, ALL, Sm30, ALL;
    /// `vSecColor#` / `oSecColor#`.
    SecColor = 19, "vSecColor", Some("oSecColor"), [], true, true, true, ALL, Sm30, ALL;
    /// `vSpriteCoord`.
    SpriteCoord = 20, "vSpriteCoord", None, ["vSprite"], false, true, false, PS, Sm30, ALL;
    /// `vFace`.
    Face = 21, "vFace", None, [], false, true, false, PS, Sm30, ALL;
    /// `vWinCoord`.
    WinCoord = 22, "vWinCoord", None, [], false, true, false, PS, Sm30, ALL;
    /// `vPrimCoord`.
    PrimCoord = 23, "vPrimCoord", None, [], false, true, false, PS, Any, ALL;
    /// `vPrimType`.
    PrimType = 24, "vPrimType", None, [], false, true, false, PS, Any, ALL;
    /// `oC#`.
    PColor = 25, "oC", None, [], true, false, true, PS, Sm30, ALL;
    /// `oDepth`.
    Depth = 26, "oDepth", None, [], false, false, true, PS, Any, ALL;
    /// `oSTENCIL`.
    Stencil = 27, "oSTENCIL", None, ["oStencil"], false, false, true, PS, Any, ALL;
    /// `oClip#`.
    Clip = 28, "oClip", None, [], true, false, true, VS, Sm30, ALL;
    /// `vPrim`.
    VPrim = 29, "vPrim", None, [], false, true, false, ALL, Any, ALL;
    /// `x#[n]`: indexed temporary array.
    ITemp = 30, "x", None, [], true, true, true, ALL, Sm40, ALL;
    /// `cb#[n]`: constant buffer.
    ConstBuff = 31, "cb", None, [], true, true, false, ALL, Sm40, ALL;
    /// `l#`: literal.
    Literal = 32, "l", None, [], true, true, false, ALL, Sm40, ALL;
    /// `v#`: DX10+ input.
    Input = 33, "v", None, [], true, true, false, ALL, Sm40, ALL;
    /// `o#`: DX10+ output.
    Output = 34, "o", None, [], true, false, true, ALL, Sm40, ALL;
    /// `icb[n]`: immediate constant buffer.
    ImmedConstBuff = 35, "icb", None, [], false, true, false, ALL, Sm40, ALL;
    /// `oMask`.
    OMask = 36, "oMask", None, [], false, false, true, PS, Sm40, ALL;
    /// `p[n]`: persistent storage (R670 only).
    Persist = 37, "p", None, [], false, true, true, ALL, Any, NONE;
    /// `g[n]`: global memory (R7xx era).
    Global = 38, "g", None, [], false, true, true, ALL, Any, R700_UP;
    /// `oPsFog#`.
    PsOutFog = 39, "oPsFog", None, [], true, false, true, PS, Any, ALL;
    /// `sr#`: shared register.
    SharedTemp = 40, "sr", None, [], true, true, true, CS, Sm40, R700_UP;
    /// `vTidInGrp`.
    ThreadIdInGroup = 41, "vTidInGrp", None, [], false, true, false, CS, Sm40, R700_UP;
    /// `vTidInGrpFlat`.
    ThreadIdInGroupFlat = 42, "vTidInGrpFlat", None, ["vTid"], false, true, false, CS, Sm40, R700_UP;
    /// `vAbsTid`.
    AbsoluteThreadId = 43, "vAbsTid", None, [], false, true, false, CS, Sm40, R700_UP;
    /// `vAbsTidFlat`.
    AbsoluteThreadIdFlat = 44, "vAbsTidFlat", None, ["vaTid"], false, true, false, CS, Sm40, R700_UP;
    /// `vThreadGrpId`.
    ThreadGroupId = 45, "vThreadGrpId", None, ["vThreadGrpID"], false, true, false, CS, Sm40, R700_UP;
    /// `vThreadGrpIdFlat`.
    ThreadGroupIdFlat = 46, "vThreadGrpIdFlat", None, ["vTGroupid"], false, true, false, CS, Sm40, R700_UP;
    /// `mem`: mask-only destination of stores.
    GenericMem = 47, "mem", None, [], false, false, true, ALL, Sm40, EG_UP;
    /// `vicp[v][a]`.
    InputCp = 48, "vicp", None, [], false, true, false, HS_DS, Sm40, EG_UP;
    /// `vpc[i]`.
    PatchConst = 49, "vpc", None, [], false, true, false, HS_DS, Sm40, EG_UP;
    /// `vDomain`.
    DomainLocation = 50, "vDomain", None, [], false, true, false, HS_DS, Sm40, EG_UP;
    /// `vocp[#][#]`.
    OutputCp = 51, "vocp", None, [], false, true, false, HS, Sm40, EG_UP;
    /// `vOutputControlPointID`.
    OcpId = 52, "vOutputControlPointID", None, [], false, true, false, HS, Sm40, EG_UP;
    /// `vInstanceID`.
    ShaderInstanceId = 53, "vInstanceID", None, [], false, true, false, ALL, Sm40, EG_UP;
    /// `this[n]`.
    This = 54, "this", None, [], false, true, false, ALL, Sm40, EG_UP;
    /// `oEdgeFlag`.
    EdgeFlag = 55, "oEdgeFlag", None, [], false, false, true, VS, Sm30, ALL;
    /// `oDepthLE`.
    DepthLe = 56, "oDepthLE", None, [], false, false, true, PS, Sm40, EG_UP;
    /// `oDepthGE`.
    DepthGe = 57, "oDepthGE", None, [], false, false, true, PS, Sm40, EG_UP;
    /// `vCoverageMask`.
    InputCoverageMask = 58, "vCoverageMask", None, [], false, true, false, PS, Sm40, EG_UP;
    /// `Tmr`: cycle counter.
    Timer = 59, "Tmr", None, [], false, true, false, ALL, Sm40, EG_UP;
    /// `vLineStipple`.
    LineStipple = 60, "vLineStipple", None, [], false, true, false, PS, Any, EG_UP;
    /// `in#`: macro input argument.
    InputArg = 61, "in", None, [], true, true, true, ALL, Any, ALL;
    /// `out#`: macro output argument.
    OutputArg = 62, "out", None, [], true, true, true, ALL, Any, ALL;
}

impl RegType {
    /// The 6-bit field value.
    #[inline]
    pub fn value(self) -> u8 {
        self as u8
    }

    /// The register type with field value `value` (`IL_REGTYPE_LAST` = 63 is not a register).
    pub fn from_value(value: u32) -> Option<RegType> {
        REG_TYPES
            .get(usize::try_from(value).ok()?)
            .map(|info| info.ty)
    }

    /// Static facts about this type.
    #[inline]
    pub fn info(self) -> &'static RegInfo {
        // The discriminants are 0..=62 in order, so the index is always in range.
        &REG_TYPES[self as usize]
    }

    /// Text name in a program of kind `shader` (`oT` in vertex shaders, `vT` elsewhere).
    pub fn name_in(self, shader: ShaderKind) -> &'static str {
        let info = self.info();
        match (info.output_name, shader) {
            (Some(out), ShaderKind::Vertex) => out,
            _ => info.name,
        }
    }

    /// The register type spelled `name` (canonical, output form or alias). `v` is ambiguous between
    /// DX10 [`RegType::Input`] and DX9 [`RegType::Vertex`]; this returns `Input` (the parser switches
    /// to `Vertex` after a `dclv`/`initv`).
    pub fn from_name(name: &str) -> Option<RegType> {
        if name == "v" {
            return Some(RegType::Input);
        }
        REG_TYPES
            .iter()
            .find(|i| i.name == name || i.output_name == Some(name) || i.aliases.contains(&name))
            .map(|i| i.ty)
    }
}
