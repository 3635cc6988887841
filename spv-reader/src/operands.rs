//! Operand decoding through rspirv's grammar tables (`rspirv::grammar`): the walk that
//! gives every instruction's words a meaning and checks that they are consumed exactly
//! (spirv.md §1.6 R-5), with well-formed strings, known enumerants (R-7, tolerated as
//! warnings) and literal widths that agree with their types.
//!
//! The walk knows the context-dependent layouts of spirv.md §1.4: literal widths of
//! OpConstant/OpSpecConstant and OpSwitch (given by the caller as a [`Number`]), masks with
//! parameters (image operands, memory access, loop control, ...), enumerants with parameters
//! (decorations and execution modes), the embedded opcode of OpSpecConstantOp and the
//! instruction number of OpExtInst (given an extended instruction table).

use crate::enumerants::{
    decoration_parameters, enum_is_known, execution_mode_parameters, has_parameters, is_mask,
    mask_bit_parameters,
};
use crate::error::ErrorKind;
use crate::limits::{MAX_LITERAL_WIDTH, MAX_STRING_LENGTH};
use crate::rspirv::grammar::{
    self, ExtInstOp, Instruction, InstructionTable, LogicalOperand, OperandKind as K,
    OperandQuantifier as Q,
};

/// The shape of a context-dependent numeric literal: the type of the constant or of the
/// OpSwitch selector.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Number {
    /// An integer type.
    Int { width: u32, signed: bool },
    /// A floating-point type.
    Float { width: u32 },
}

impl Number {
    fn width(self) -> u32 {
        match self {
            Number::Int { width, .. } | Number::Float { width } => width,
        }
    }

    /// Words a literal of this type occupies (SPIR-V §2.2.1: one per 32 bits, at least one).
    pub(crate) fn words(self) -> usize {
        self.width().div_ceil(32).max(1) as usize
    }
}

/// What an instruction's operands need beyond its own words.
#[derive(Clone, Copy, Default)]
pub(crate) struct Context {
    /// The type of the context-dependent literals (OpConstant, OpSpecConstant, OpSwitch).
    pub(crate) number: Option<Number>,
    /// For OpExtInst: the table of the imported set, when this crate's grammar has it.
    pub(crate) ext_table: Option<&'static InstructionTable<ExtInstOp>>,
}

/// One decoded operand, with the index of its first word in the instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Operand<'w> {
    /// The Result Type id.
    ResultType(u32),
    /// The Result id.
    Result(u32),
    /// Any other id operand (IdRef, IdScope, IdMemorySemantics).
    Id(u32),
    /// A 32-bit literal integer.
    Literal(u32),
    /// A 32-bit literal float (grammar kind LiteralFloat).
    Float(u32),
    /// A context-dependent number: its type and its words, low word first.
    Number(Number, &'w [u32]),
    /// A value enumerant of the given kind (possibly unknown).
    Enum(K, u32),
    /// A mask of the given kind (possibly with unknown bits).
    Mask(K, u32),
    /// OpExtInst's instruction number and, when known, its grammar name.
    ExtInstNumber(u32, Option<&'static str>),
    /// OpSpecConstantOp's embedded opcode.
    SpecOpcode(u32),
    /// A word whose meaning the grammar does not give (parameters of unknown enumerants).
    Raw(u32),
}

/// Receives the operands of one instruction in order.
pub(crate) trait Visit<'w> {
    /// One operand.
    fn operand(&mut self, operand: Operand<'w>) -> Result<(), Problem>;
    /// A literal string operand, checked well formed (nul, padding, UTF-8, length).
    fn string(&mut self, text: &str) -> Result<(), Problem>;
    /// Something tolerated (unknown enumerant, unknown extended instruction, ...).
    fn tolerate(&mut self, message: String);
}

/// A problem found by the walk, not yet located; boxed so that `Result<_, Problem>` is
/// one pointer wide.
#[derive(Debug)]
pub(crate) struct Problem(Box<(ErrorKind, String)>);

impl Problem {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Problem(Box::new((kind, message.into())))
    }

    /// The kind and message, to locate them in a [`crate::ReadError`].
    pub(crate) fn into_parts(self) -> (ErrorKind, String) {
        *self.0
    }
}

/// Walks the operands of the instruction `words` (word 0 included) with grammar `inst`.
/// Checks that the operands consume exactly the instruction's words.
pub(crate) fn walk<'w>(
    words: &'w [u32],
    inst: &'static Instruction<'static>,
    ctx: Context,
    scratch: &mut Vec<u8>,
    v: &mut impl Visit<'w>,
) -> Result<(), Problem> {
    let mut cursor = Cursor {
        words,
        pos: 1,
        scratch,
    };
    cursor.logical(inst.operands, ctx, v, false)?;
    if cursor.pos < words.len() {
        return Err(Problem::new(
            ErrorKind::Operands,
            format!(
                "{} words left over after the last operand (word count {})",
                words.len() - cursor.pos,
                words.len()
            ),
        ));
    }
    Ok(())
}

struct Cursor<'w, 's> {
    words: &'w [u32],
    pos: usize,
    scratch: &'s mut Vec<u8>,
}

/// Whether the rest of the instruction was taken over by a nested grammar (OpExtInst,
/// OpSpecConstantOp) or by raw words.
#[derive(PartialEq, Eq)]
enum Rest {
    Open,
    Consumed,
}

impl<'w> Cursor<'w, '_> {
    fn done(&self) -> bool {
        self.pos >= self.words.len()
    }

    fn next(&mut self, what: &'static str) -> Result<u32, Problem> {
        let word = self.words.get(self.pos).copied().ok_or_else(|| {
            Problem::new(ErrorKind::Operands, format!("operand {what} is missing"))
        })?;
        self.pos += 1;
        Ok(word)
    }

    /// Walks a list of logical operands. `nested` skips result type and result (the
    /// operands of an instruction embedded in OpSpecConstantOp).
    fn logical(
        &mut self,
        operands: &'static [LogicalOperand],
        ctx: Context,
        v: &mut impl Visit<'w>,
        nested: bool,
    ) -> Result<Rest, Problem> {
        for operand in operands {
            if nested && matches!(operand.kind, K::IdResultType | K::IdResult) {
                continue;
            }
            let rest = match operand.quantifier {
                Q::One => {
                    if self.done() {
                        return Err(Problem::new(
                            ErrorKind::Operands,
                            format!("operand {:?} is missing", operand.kind),
                        ));
                    }
                    self.one(operand.kind, ctx, v)?
                }
                Q::ZeroOrOne if !self.done() => self.one(operand.kind, ctx, v)?,
                Q::ZeroOrOne => Rest::Open,
                Q::ZeroOrMore => {
                    while !self.done() {
                        if self.one(operand.kind, ctx, v)? == Rest::Consumed {
                            break;
                        }
                    }
                    Rest::Open
                }
            };
            if rest == Rest::Consumed {
                return Ok(Rest::Consumed);
            }
        }
        Ok(Rest::Open)
    }

    /// Walks one operand of `kind` (with its parameters, for enumerants and masks).
    fn one(&mut self, kind: K, ctx: Context, v: &mut impl Visit<'w>) -> Result<Rest, Problem> {
        match kind {
            K::IdResultType => v.operand(Operand::ResultType(self.next("Result Type")?))?,
            K::IdResult => v.operand(Operand::Result(self.next("Result")?))?,
            K::IdRef | K::IdScope | K::IdMemorySemantics => {
                v.operand(Operand::Id(self.next("id")?))?;
            }
            K::LiteralInteger => v.operand(Operand::Literal(self.next("literal")?))?,
            K::LiteralFloat => v.operand(Operand::Float(self.next("literal float")?))?,
            K::LiteralString => self.string(v)?,
            K::LiteralContextDependentNumber => self.number(ctx, v)?,
            K::PairLiteralIntegerIdRef => {
                // OpSwitch's (literal, label) pairs: the literal has the selector's width.
                if ctx.number.is_some() {
                    self.number(ctx, v)?;
                } else {
                    v.operand(Operand::Literal(self.next("literal")?))?;
                }
                v.operand(Operand::Id(self.next("label of the pair")?))?;
            }
            K::PairIdRefLiteralInteger => {
                v.operand(Operand::Id(self.next("id of the pair")?))?;
                v.operand(Operand::Literal(self.next("literal of the pair")?))?;
            }
            K::PairIdRefIdRef => {
                v.operand(Operand::Id(self.next("first id of the pair")?))?;
                v.operand(Operand::Id(self.next("second id of the pair")?))?;
            }
            K::LiteralExtInstInteger => return self.ext_inst(ctx, v),
            K::LiteralSpecConstantOpInteger => return self.spec_op(v),
            K::Debuginfo(_)
            | K::NonsemanticClspvreflection(_)
            | K::NonsemanticShaderDebuginfo100(_)
            | K::OpenclDebuginfo100(_) => {
                // Extended-set enumerants and flags: one literal word each.
                v.operand(Operand::Raw(self.next("extended operand")?))?;
            }
            _ if is_mask(kind) => return self.mask(kind, v),
            _ => return self.enumerant(kind, v),
        }
        Ok(Rest::Open)
    }

    /// a nul-terminated string, zero padding, UTF-8, at most `MAX_STRING_LENGTH` bytes.
    fn string(&mut self, v: &mut impl Visit<'w>) -> Result<(), Problem> {
        let rest = self.words.get(self.pos..).unwrap_or(&[]);
        let (consumed, checked) = decode_string(rest, self.scratch);
        checked.map_err(|m| Problem::new(ErrorKind::String, m))?;
        self.pos += consumed;
        let text = std::str::from_utf8(self.scratch).map_err(|e| {
            Problem::new(ErrorKind::String, format!("the string is not UTF-8: {e}"))
        })?;
        v.string(text)
    }

    /// a literal whose width comes from a type.
    fn number(&mut self, ctx: Context, v: &mut impl Visit<'w>) -> Result<(), Problem> {
        let Some(number) = ctx.number else {
            return Err(Problem::new(
                ErrorKind::Operands,
                "the type of the literal is not an integer or floating-point type",
            ));
        };
        let count = number.words();
        let end = (self.pos + count).min(self.words.len());
        let words = self.words.get(self.pos..end).unwrap_or(&[]);
        check_number(number, words)?;
        self.pos = end;
        v.operand(Operand::Number(number, words))
    }

    /// OpExtInst: the instruction number, then the operands the set's grammar gives, or ids
    /// for sets and numbers this crate does not know (non-semantic sets take ids only,
    /// SPIR-V 1.6 §2.2.1 "NonSemantic").
    fn ext_inst(&mut self, ctx: Context, v: &mut impl Visit<'w>) -> Result<Rest, Problem> {
        let number = self.next("extended instruction number")?;
        let Some(table) = ctx.ext_table else {
            v.operand(Operand::ExtInstNumber(number, None))?;
            return Ok(Rest::Open);
        };
        let Some(inst) = table.lookup_opcode(number) else {
            v.tolerate(format!(
                "extended instruction {number} is not in its set's grammar"
            ));
            v.operand(Operand::ExtInstNumber(number, None))?;
            return Ok(Rest::Open);
        };
        v.operand(Operand::ExtInstNumber(number, Some(inst.opname)))?;
        self.logical(inst.operands, Context::default(), v, false)?;
        Ok(Rest::Consumed)
    }

    /// OpSpecConstantOp: the embedded opcode, then that opcode's operands without result
    /// type and result (SPIR-V §3.3.7).
    fn spec_op(&mut self, v: &mut impl Visit<'w>) -> Result<Rest, Problem> {
        let opcode = self.next("embedded opcode")?;
        v.operand(Operand::SpecOpcode(opcode))?;
        match u16::try_from(opcode)
            .ok()
            .and_then(|op| crate::grammar::op_info(op).grammar())
        {
            Some(inst) => {
                self.logical(inst.operands, Context::default(), v, true)?;
            }
            None => {
                v.tolerate(format!("OpSpecConstantOp embeds unknown opcode {opcode}"));
                self.raw_rest(v)?;
            }
        }
        Ok(Rest::Consumed)
    }

    /// A value enumerant and, for decorations and execution modes, its parameters.
    fn enumerant(&mut self, kind: K, v: &mut impl Visit<'w>) -> Result<Rest, Problem> {
        let value = self.next("enumerant")?;
        v.operand(Operand::Enum(kind, value))?;
        if !enum_is_known(kind, value) {
            v.tolerate(format!("unknown {kind:?} {value}"));
            if has_parameters(kind) {
                // Its parameters are unknown: keep every remaining word raw.
                self.raw_rest(v)?;
                return Ok(Rest::Consumed);
            }
            return Ok(Rest::Open);
        }
        let params = match kind {
            K::Decoration => decoration_parameters(value),
            K::ExecutionMode => execution_mode_parameters(value),
            _ => &[],
        };
        for &param in params {
            if self.done() {
                return Err(Problem::new(
                    ErrorKind::Operands,
                    format!("parameter {param:?} of {kind:?} {value} is missing"),
                ));
            }
            self.one(param, Context::default(), v)?;
        }
        Ok(Rest::Open)
    }

    /// A mask and the parameters of its set bits, in increasing bit order (SPIR-V §2.2.1).
    fn mask(&mut self, kind: K, v: &mut impl Visit<'w>) -> Result<Rest, Problem> {
        let value = self.next("mask")?;
        v.operand(Operand::Mask(kind, value))?;
        let mut bits = value;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            bits &= !bit;
            let Some(params) = mask_bit_parameters(kind, bit) else {
                v.tolerate(format!("unknown {kind:?} bit {bit:#x}"));
                self.raw_rest(v)?;
                return Ok(Rest::Consumed);
            };
            for &param in params {
                if self.done() {
                    return Err(Problem::new(
                        ErrorKind::Operands,
                        format!("parameter {param:?} of {kind:?} bit {bit:#x} is missing"),
                    ));
                }
                self.one(param, Context::default(), v)?;
            }
        }
        Ok(Rest::Open)
    }

    fn raw_rest(&mut self, v: &mut impl Visit<'w>) -> Result<(), Problem> {
        while let Some(&w) = self.words.get(self.pos) {
            self.pos += 1;
            v.operand(Operand::Raw(w))?;
        }
        Ok(())
    }
}

/// R-12 (SPIR-V §2.2.1): `words` are exactly the words of a literal of type `number`, whose
/// width the reader decodes, with the unused high bits as the type requires.
pub(crate) fn check_number(number: Number, words: &[u32]) -> Result<(), Problem> {
    if number.width() > MAX_LITERAL_WIDTH || number.width() == 0 {
        return Err(Problem::new(
            ErrorKind::Limit,
            format!(
                "literal of width {} (the reader decodes widths 1 to {MAX_LITERAL_WIDTH}, \
                 limits::MAX_LITERAL_WIDTH)",
                number.width()
            ),
        ));
    }
    if words.len() != number.words() {
        return Err(Problem::new(
            ErrorKind::Operands,
            format!(
                "a {}-bit literal takes {} words, not {}",
                number.width(),
                number.words(),
                words.len()
            ),
        ));
    }
    check_high_bits(number, words)
}

/// R-12 (SPIR-V §2.2.1): the unused high bits of a literal narrower than its words are 0 for
/// floats and unsigned integers and a sign extension for signed integers.
fn check_high_bits(number: Number, words: &[u32]) -> Result<(), Problem> {
    let width = number.width();
    let spare = (32 - width % 32) % 32;
    if spare == 0 {
        return Ok(());
    }
    let Some(&top) = words.last() else {
        return Ok(());
    };
    let used = 32 - spare;
    let high = top >> used;
    let ok = match number {
        Number::Int { signed: true, .. } => {
            let sign = (top >> (used - 1)) & 1;
            high == if sign == 1 { u32::MAX >> used } else { 0 }
        }
        _ => high == 0,
    };
    if ok {
        Ok(())
    } else {
        Err(Problem::new(
            ErrorKind::Operands,
            format!(
                "the high bits of a {width}-bit literal ({top:#x}) must be {}",
                if matches!(number, Number::Int { signed: true, .. }) {
                    "the sign extension"
                } else {
                    "zero"
                }
            ),
        ))
    }
}

/// Decodes a nul-terminated literal string (SPIR-V §2.2.1) from the start of `words` into
/// `out`, returning the number of words it occupies and whether it is well formed (nul
/// inside the words, zero padding, not longer than `MAX_STRING_LENGTH`). UTF-8 is checked
/// by the caller.
pub(crate) fn decode_string(words: &[u32], out: &mut Vec<u8>) -> (usize, Result<(), String>) {
    out.clear();
    for (i, &word) in words.iter().enumerate() {
        let bytes = word.to_le_bytes();
        if let Some(nul) = bytes.iter().position(|&b| b == 0) {
            out.extend_from_slice(bytes.get(..nul).unwrap_or(&[]));
            if bytes
                .get(nul..)
                .is_some_and(|pad| pad.iter().any(|&b| b != 0))
            {
                return (
                    i + 1,
                    Err("the bytes after the string's nul are not 0".to_owned()),
                );
            }
            if out.len() > MAX_STRING_LENGTH {
                return (
                    i + 1,
                    Err(format!(
                        "the string is {} bytes long, over the limit of {MAX_STRING_LENGTH} \
                         (limits::MAX_STRING_LENGTH)",
                        out.len()
                    )),
                );
            }
            return (i + 1, Ok(()));
        }
        if out.len() >= MAX_STRING_LENGTH + 4 {
            return (
                i + 1,
                Err(format!("the string exceeds {MAX_STRING_LENGTH} bytes")),
            );
        }
        out.extend_from_slice(&bytes);
    }
    (
        words.len(),
        Err("the string has no terminating nul inside the instruction".to_owned()),
    )
}

/// The common case of a literal string (SPIR-V §2.2.1): ASCII (hence UTF-8), nul-terminated
/// inside `words`, zero padding after the nul, within `MAX_STRING_LENGTH`. Returns the number
/// of words it occupies, or `None` when the string needs [`decode_string`]'s general path.
#[inline]
pub(crate) fn ascii_string_words(words: &[u32]) -> Option<usize> {
    for (i, &word) in words.iter().enumerate() {
        let nul = nul_bits(word);
        if (word & HIGH_BITS) | nul == 0 {
            continue;
        }
        // Not ASCII, or the last word: its first nul, then zero padding (the word shifted
        // down to its nul is 0; the shift runs only for an ASCII word with a nul, `at` < 4).
        let at = nul.trailing_zeros() / 8;
        if word & HIGH_BITS != 0 || word >> (8 * at) != 0 {
            return None;
        }
        return (i * 4 + at as usize <= MAX_STRING_LENGTH).then_some(i + 1);
    }
    None
}

/// Bit 7 of each byte: set in any byte ≥ 0x80 (not ASCII).
const HIGH_BITS: u32 = 0x8080_8080;

/// Bit 7 set in the first zero byte of `word` (little-endian byte order), possibly in later
/// bytes, and nowhere else: the classic "has a zero byte" test, whose lowest set bit is
/// exact. 0 when `word` has no zero byte.
#[inline]
pub(crate) fn nul_bits(word: u32) -> u32 {
    word.wrapping_sub(0x0101_0101) & !word & HIGH_BITS
}

/// The grammar of extended instruction set `name`, when this crate has it.
pub(crate) fn ext_table(name: &str) -> Option<&'static InstructionTable<ExtInstOp>> {
    // The reflection set is imported with its version: `NonSemantic.ClspvReflection.6`.
    if name.starts_with("NonSemantic.ClspvReflection.") {
        return grammar::ext_inst_table("NonSemantic.ClspvReflection");
    }
    grammar::ext_inst_table(name)
}
