//! A disassembler in `spirv-dis --raw-id` syntax (SPIRV-Tools 2025.5): `%12 = OpTypeInt 32 1`.
//!
//! Diagnostics use [`disassemble_inst`] to show an instruction the way users see it in
//! `spirv-dis` output; [`disassemble`] prints a whole module, header comments included, and
//! [`normalize_for_comparison`] is what the conformance check applies to both this output
//! and `spirv-dis`'s before comparing them.
//!
//! Operands are decoded by the same grammar walk as the reader (`operands`), so the
//! printed operand kinds are exactly the ones the reader checked.

use std::fmt::Write as _;

use crate::enumerants::enum_name;
use crate::grammar::op_info;
use crate::module::{Inst, Module};
use crate::operands::{self, Context, Number, Operand, Problem, Visit};
use crate::rspirv::grammar::OperandKind as K;
use crate::spirv::Op;
use crate::{Id, Type};

/// Column at which `spirv-dis` starts opcodes: results are right-aligned before ` = `.
const OPCODE_COLUMN: usize = 15;

/// The whole module as `spirv-dis --raw-id` prints it: the five header comment lines, then
/// one line per instruction, opcodes aligned at column 15.
pub fn disassemble(module: &Module) -> String {
    let mut out = String::with_capacity(module.words().len() * 12);
    let h = module.header();
    let _ = writeln!(out, "; SPIR-V");
    let _ = writeln!(out, "; Version: {}.{}", h.version.0, h.version.1);
    let tool = h.generator >> 16;
    let _ = match generator_name(tool) {
        Some(name) => writeln!(out, "; Generator: {name}; {}", h.generator & 0xFFFF),
        None => writeln!(
            out,
            "; Generator: Unknown({tool}); {}",
            h.generator & 0xFFFF
        ),
    };
    let _ = writeln!(out, "; Bound: {}", h.bound);
    let _ = writeln!(out, "; Schema: 0");
    for inst in module.instructions() {
        write_inst(&mut out, module, inst, true);
        out.push('\n');
    }
    out
}

/// One instruction in `spirv-dis --raw-id` syntax, without indentation:
/// `%12 = OpTypeInt 32 1`.
pub fn disassemble_inst(module: &Module, inst: Inst<'_>) -> String {
    let mut out = String::new();
    write_inst(&mut out, module, inst, false);
    out
}

/// Collapses every run of whitespace to one space and rewrites every numeric token that
/// denotes a floating-point value (decimal with `.` or exponent, or C99 hex float) in one
/// canonical spelling, so that two disassemblies compare equal when they differ only in
/// layout or in how they spell the same float.
pub fn normalize_for_comparison(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for token in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        match float_token_value(token) {
            Some(v) => {
                let _ = write!(out, "{v:?}");
            }
            None => out.push_str(token),
        }
    }
    out
}

/// The value of a token spelled as a float literal, `None` for anything else (ids,
/// integers, names, strings).
fn float_token_value(token: &str) -> Option<f64> {
    let body = token.strip_prefix('-').unwrap_or(token);
    let negative = body.len() != token.len();
    let value = if let Some(hex) = body.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        let looks_float = body.starts_with(|c: char| c.is_ascii_digit())
            && (body.contains('.') || body.contains('e'))
            && body
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'));
        if !looks_float {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    Some(if negative { -value } else { value })
}

/// Parses the part after `0x` of a C99 hex float (`1.8p+3`); `None` unless it has a `p`.
fn parse_hex_float(hex: &str) -> Option<f64> {
    let (mantissa, exponent) = hex.split_once('p')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut value = u64::from_str_radix(if int.is_empty() { "0" } else { int }, 16).ok()? as f64;
    let mut scale = 1.0 / 16.0;
    for digit in frac.chars() {
        value += f64::from(digit.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    Some(value * 2f64.powi(exponent))
}

fn write_inst(out: &mut String, module: &Module, inst: Inst<'_>, indent: bool) {
    let words = inst.words();
    let opcode = inst.raw_opcode();
    let info = op_info(opcode);
    let line_start = out.len();
    if let Some(result) = inst.result_id() {
        let text = format!("{result}");
        if indent {
            let pad = (OPCODE_COLUMN - 3).saturating_sub(text.len());
            out.extend(std::iter::repeat_n(' ', pad));
        }
        out.push_str(&text);
        out.push_str(" = ");
    } else if indent {
        out.extend(std::iter::repeat_n(' ', OPCODE_COLUMN));
    }
    let _ = crate::error::write_opcode_name(out, opcode);
    let Some(grammar) = info.grammar() else {
        // Unknown opcode: its words, raw.
        for w in words.get(1..).unwrap_or(&[]) {
            let _ = write!(out, " {w}");
        }
        return;
    };
    let ctx = context(module, inst);
    let operands_start = out.len();
    let mut printer = Printer { out };
    let mut scratch = Vec::new();
    if operands::walk(words, grammar, ctx, &mut scratch, &mut printer).is_err() {
        // The reader walked the same words without error, so this cannot happen for a
        // module it returned; print the raw words rather than fail.
        out.truncate(operands_start.max(line_start));
        for w in words.get(1..).unwrap_or(&[]) {
            let _ = write!(out, " {w}");
        }
    }
}

/// The operand-walk context of `inst` in `module` (literal widths, extended sets).
fn context(module: &Module, inst: Inst<'_>) -> Context {
    let mut ctx = Context::default();
    let words = inst.words();
    let number = |ty: Id| match module.ty(ty)? {
        Type::Int { width, signed } => Some(Number::Int {
            width: *width,
            signed: *signed,
        }),
        Type::Float { width } => Some(Number::Float { width: *width }),
        _ => None,
    };
    match inst.opcode() {
        Some(Op::Constant | Op::SpecConstant) => {
            ctx.number = words.get(1).and_then(|&t| number(Id(t)));
        }
        Some(Op::Switch) => {
            let selector = words.get(1).copied().unwrap_or(0);
            ctx.number = module.result_type(Id(selector)).and_then(number);
        }
        Some(Op::ExtInst | Op::ExtInstWithForwardRefsKHR) => {
            let set = words.get(3).copied().unwrap_or(0);
            // spirv-dis 2025.5 has no grammar for these non-semantic sets and prints their
            // instruction numbers and id operands raw; so does this disassembler.
            const UNNAMED: [&str; 3] = [
                "NonSemantic.DebugPrintf",
                "NonSemantic.DebugBreak",
                "NonSemantic.VkspReflection",
            ];
            ctx.ext_table = module
                .ext_inst_set(Id(set))
                .filter(|name| !UNNAMED.contains(name))
                .and_then(operands::ext_table);
        }
        _ => {}
    }
    ctx
}

/// Formats operands as `spirv-dis` does, each preceded by a space.
struct Printer<'o> {
    out: &'o mut String,
}

impl Visit<'_> for Printer<'_> {
    fn operand(&mut self, operand: Operand<'_>) -> Result<(), Problem> {
        let out = &mut *self.out;
        match operand {
            // The result id is printed before the opcode.
            Operand::Result(_) => return Ok(()),
            Operand::ResultType(id) | Operand::Id(id) => {
                let _ = write!(out, " %{id}");
            }
            Operand::Literal(w) | Operand::Raw(w) => {
                let _ = write!(out, " {w}");
            }
            Operand::Float(w) => {
                out.push(' ');
                write_float32(out, w);
            }
            Operand::Number(number, words) => {
                out.push(' ');
                write_number(out, number, words);
            }
            Operand::Enum(kind, value) => match enum_name(kind, value) {
                Some(name) => {
                    let _ = write!(out, " {name}");
                }
                None => {
                    let _ = write!(out, " {value}");
                }
            },
            Operand::Mask(kind, value) => {
                out.push(' ');
                write_mask(out, kind, value);
            }
            Operand::ExtInstNumber(number, name) => {
                let _ = match name {
                    Some(name) => write!(out, " {name}"),
                    None => write!(out, " {number}"),
                };
            }
            Operand::SpecOpcode(opcode) => {
                match u16::try_from(opcode)
                    .ok()
                    .and_then(|o| op_info(o).grammar())
                {
                    Some(g) => {
                        let _ = write!(out, " {}", g.opname);
                    }
                    None => {
                        let _ = write!(out, " {opcode}");
                    }
                }
            }
        }
        Ok(())
    }

    fn string(&mut self, text: &str) -> Result<(), Problem> {
        self.out.push_str(" \"");
        for c in text.chars() {
            if c == '"' || c == '\\' {
                self.out.push('\\');
            }
            self.out.push(c);
        }
        self.out.push('"');
        Ok(())
    }

    fn tolerate(&mut self, _message: String) {}
}

/// A context-dependent literal: integers in decimal (sign-extended when signed), floats
/// as `spirv-dis` prints them.
fn write_number(out: &mut String, number: Number, words: &[u32]) {
    let low = words.first().copied().unwrap_or(0);
    let high = words.get(1).copied().unwrap_or(0);
    let bits = u64::from(low) | (u64::from(high) << 32);
    match number {
        Number::Int {
            width,
            signed: true,
        } => {
            // Sign-extend from `width` bits (the reader checked the spare bits).
            let shift = 64 - width.min(64);
            let value = ((bits << shift) as i64) >> shift;
            let _ = write!(out, "{value}");
        }
        Number::Int { .. } => {
            let _ = write!(out, "{bits}");
        }
        Number::Float { width: 16 } => write_hex_float(out, u64::from(low), 10, 5),
        Number::Float { width: 32 } => write_float32(out, low),
        Number::Float { width: 64 } => {
            let value = f64::from_bits(bits);
            if value.is_normal() || value == 0.0 {
                write_g(out, value, 17);
            } else {
                write_hex_float(out, bits, 52, 11);
            }
        }
        Number::Float { .. } => {
            let _ = write!(out, "{bits}");
        }
    }
}

/// A 32-bit float: `%.9g` for normal numbers and zeros, hex float otherwise (SPIRV-Tools
/// prints denormals, infinities and NaNs as hex floats).
fn write_float32(out: &mut String, bits: u32) {
    let value = f32::from_bits(bits);
    if value.is_normal() || value == 0.0 {
        write_g(out, f64::from(value), 9);
    } else {
        write_hex_float(out, u64::from(bits), 23, 8);
    }
}

/// C's `%.{precision}g`.
fn write_g(out: &mut String, value: f64, precision: usize) {
    if value == 0.0 {
        out.push_str(if value.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let sci = format!("{:.*e}", precision - 1, value);
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let mantissa = trim_fraction(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "{mantissa}e{sign}{:02}", exponent.unsigned_abs());
    } else {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        let fixed = format!("{value:.decimals$}");
        out.push_str(trim_fraction(&fixed));
    }
}

/// Drops trailing zeros of a fraction, and the point if nothing follows it.
fn trim_fraction(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// SPIRV-Tools' hex-float spelling (`-0x1.998p-4`): denormals normalized, trailing zero
/// nibbles dropped, exponent with explicit sign.
fn write_hex_float(out: &mut String, bits: u64, fraction_bits: u32, exponent_bits: u32) {
    let overflow = (4 - fraction_bits % 4) % 4;
    let width = fraction_bits + overflow;
    let represent_mask = (1u64 << width) - 1;
    let negative = (bits >> (fraction_bits + exponent_bits)) & 1 == 1;
    let biased = (bits >> fraction_bits) & ((1 << exponent_bits) - 1);
    let mut fraction = (bits & ((1 << fraction_bits) - 1)) << overflow;
    let bias = (1i64 << (exponent_bits - 1)) - 1;
    let is_zero = biased == 0 && fraction == 0;
    let mut exponent = if is_zero { 0 } else { biased as i64 - bias };
    if biased == 0 && !is_zero {
        let top = 1u64 << (width - 1);
        while fraction & top == 0 {
            fraction <<= 1;
            exponent -= 1;
        }
        fraction = (fraction << 1) & represent_mask;
    }
    let mut nibbles = width / 4;
    while nibbles > 0 && fraction & 0xF == 0 {
        fraction >>= 4;
        nibbles -= 1;
    }
    if negative {
        out.push('-');
    }
    out.push_str(if is_zero { "0x0" } else { "0x1" });
    if nibbles > 0 {
        let _ = write!(out, ".{fraction:0width$x}", width = nibbles as usize);
    }
    let _ = write!(out, "p{}{exponent}", if exponent >= 0 { "+" } else { "" });
}

/// A mask: its bit names joined by `|`, or `None` for 0.
fn write_mask(out: &mut String, kind: K, value: u32) {
    if value == 0 {
        out.push_str("None");
        return;
    }
    let names = mask_bit_names(kind);
    let mut first = true;
    let mut bits = value;
    while bits != 0 {
        let bit = bits & bits.wrapping_neg();
        bits &= !bit;
        if !first {
            out.push('|');
        }
        first = false;
        match names.iter().find(|&&(b, _)| b == bit) {
            Some((_, name)) => out.push_str(name),
            None => {
                let _ = write!(out, "{bit:#x}");
            }
        }
    }
}

/// Grammar names of mask bits (SPIR-V §3, the "-Mask" operand kinds).
fn mask_bit_names(kind: K) -> &'static [(u32, &'static str)] {
    match kind {
        K::ImageOperands => &[
            (0x1, "Bias"),
            (0x2, "Lod"),
            (0x4, "Grad"),
            (0x8, "ConstOffset"),
            (0x10, "Offset"),
            (0x20, "ConstOffsets"),
            (0x40, "Sample"),
            (0x80, "MinLod"),
            (0x100, "MakeTexelAvailable"),
            (0x200, "MakeTexelVisible"),
            (0x400, "NonPrivateTexel"),
            (0x800, "VolatileTexel"),
            (0x1000, "SignExtend"),
            (0x2000, "ZeroExtend"),
            (0x4000, "Nontemporal"),
            (0x10000, "Offsets"),
        ],
        K::FPFastMathMode => &[
            (0x1, "NotNaN"),
            (0x2, "NotInf"),
            (0x4, "NSZ"),
            (0x8, "AllowRecip"),
            (0x10, "Fast"),
            (0x10000, "AllowContract"),
            (0x20000, "AllowReassoc"),
            (0x40000, "AllowTransform"),
        ],
        K::SelectionControl => &[(0x1, "Flatten"), (0x2, "DontFlatten")],
        K::LoopControl => &[
            (0x1, "Unroll"),
            (0x2, "DontUnroll"),
            (0x4, "DependencyInfinite"),
            (0x8, "DependencyLength"),
            (0x10, "MinIterations"),
            (0x20, "MaxIterations"),
            (0x40, "IterationMultiple"),
            (0x80, "PeelCount"),
            (0x100, "PartialCount"),
        ],
        K::FunctionControl => &[
            (0x1, "Inline"),
            (0x2, "DontInline"),
            (0x4, "Pure"),
            (0x8, "Const"),
            (0x10000, "OptNoneEXT"),
        ],
        K::MemorySemantics => &[
            (0x2, "Acquire"),
            (0x4, "Release"),
            (0x8, "AcquireRelease"),
            (0x10, "SequentiallyConsistent"),
            (0x40, "UniformMemory"),
            (0x80, "SubgroupMemory"),
            (0x100, "WorkgroupMemory"),
            (0x200, "CrossWorkgroupMemory"),
            (0x400, "AtomicCounterMemory"),
            (0x800, "ImageMemory"),
            (0x1000, "OutputMemory"),
            (0x2000, "MakeAvailable"),
            (0x4000, "MakeVisible"),
            (0x8000, "Volatile"),
        ],
        K::MemoryAccess => &[
            (0x1, "Volatile"),
            (0x2, "Aligned"),
            (0x4, "Nontemporal"),
            (0x8, "MakePointerAvailable"),
            (0x10, "MakePointerVisible"),
            (0x20, "NonPrivatePointer"),
            (0x10000, "AliasScopeINTELMask"),
            (0x20000, "NoAliasINTELMask"),
        ],
        K::KernelProfilingInfo => &[(0x1, "CmdExecTime")],
        K::FragmentShadingRate => &[
            (0x1, "Vertical2Pixels"),
            (0x2, "Vertical4Pixels"),
            (0x4, "Horizontal2Pixels"),
            (0x8, "Horizontal4Pixels"),
        ],
        K::RawAccessChainOperands => &[
            (0x1, "RobustnessPerComponentNV"),
            (0x2, "RobustnessPerElementNV"),
        ],
        K::CooperativeMatrixOperands => &[
            (0x1, "MatrixASignedComponentsKHR"),
            (0x2, "MatrixBSignedComponentsKHR"),
            (0x4, "MatrixCSignedComponentsKHR"),
            (0x8, "MatrixResultSignedComponentsKHR"),
            (0x10, "SaturatingAccumulationKHR"),
        ],
        _ => &[],
    }
}

/// Tool names of the SPIR-V generator registry (high 16 bits of header word 2), as
/// `spirv-dis` 2025.5 prints them (vendor and tool).
fn generator_name(tool: u32) -> Option<&'static str> {
    const NAMES: [&str; 50] = [
        "Khronos",
        "LunarG",
        "Valve",
        "Codeplay",
        "NVIDIA",
        "ARM",
        "Khronos LLVM/SPIR-V Translator",
        "Khronos SPIR-V Tools Assembler",
        "Khronos Glslang Reference Front End",
        "Qualcomm",
        "AMD",
        "Intel",
        "Imagination",
        "Google Shaderc over Glslang",
        "Google spiregg",
        "Google rspirv",
        "X-LEGEND Mesa-IR/SPIR-V Translator",
        "Khronos SPIR-V Tools Linker",
        "Wine VKD3D Shader Compiler",
        "Tellusim Clay Shader Compiler",
        "W3C WebGPU Group WHLSL Shader Translator",
        "Google Clspv",
        "LLVM MLIR SPIR-V Serializer",
        "Google Tint Compiler",
        "Google ANGLE Shader Compiler",
        "Netease Games Messiah Shader Compiler",
        "Xenia Xenia Emulator Microcode Translator",
        "Embark Studios Rust GPU Compiler Backend",
        "gfx-rs community Naga",
        "Mikkosoft Productions MSP Shader Compiler",
        "SpvGenTwo community SpvGenTwo SPIR-V IR Tools",
        "Google Skia SkSL",
        "TornadoVM Beehive SPIRV Toolkit",
        "DragonJoker ShaderWriter",
        "Rayan Hatout SPIRVSmith",
        "Saarland University Shady",
        "Taichi Graphics Taichi",
        "heroseh Hero C Compiler",
        "Meta SparkSL",
        "SirLynix Nazara ShaderLang Compiler",
        "Khronos Slang Compiler",
        "Zig Software Foundation Zig Compiler",
        "Rendong Liang spq",
        "LLVM LLVM SPIR-V Backend",
        "Robert Konrad Kongruent",
        "Kitsunebi Games Nuvk SPIR-V Emitter and DLSL compiler",
        "Nintendo",
        "ARM",
        "Goopax",
        "Icyllis Milica Arc3D Shader Compiler",
    ];
    NAMES.get(tool as usize).copied()
}
