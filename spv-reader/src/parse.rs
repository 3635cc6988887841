//! The reading pass: header checks, one walk over the instructions that records locations,
//! fills the per-id tables and builds functions and blocks.
//!
//! Rules are those of spirv.md §1.6 (R-1 … R-12). The walk is fail-fast: the first problem
//! becomes a located [`ReadError`].

use crate::error::{ErrorKind, ReadError};
use crate::grammar::{FastShape, Forward, OpInfo, Placement, Section, Tail, op_info};
use crate::limits::{
    MAX_ID_BOUND, MAX_INSTRUCTIONS, MAX_NESTING_DEPTH, MAX_STRING_LENGTH, MAX_WORDS,
};
use crate::module::{DecorationRecord, Header, IdSlot, Module, NONE, Span};
use crate::operands::{self, Context, Number, Operand, Problem, Visit, decode_string};
use crate::rspirv::grammar::OperandKind as K;
use crate::spirv::Op;
use crate::types::{
    Block, Constant, EntryPoint, ExecutionMode, Function, GlobalVariable, Type, Warning,
};
use crate::{Id, InstIndex, Location};

/// The SPIR-V magic number (SPIR-V §3.1).
pub(crate) const MAGIC: u32 = 0x0723_0203;

/// Number of header words (SPIR-V §2.3).
pub(crate) const HEADER_WORDS: usize = 5;

/// Reads a module from words already in native order (R-1's endianness fix-up done).
pub(crate) fn read_native(words: Vec<u32>) -> Result<Module, ReadError> {
    let header = check_header(&words)?;
    let mut reader = Reader::new(header, words);
    reader.walk()?;
    reader.finish()
}

/// R-1 … R-3: magic, version, bound and schema words.
fn check_header(words: &[u32]) -> Result<Header, ReadError> {
    let &[magic, version, generator, bound, schema, ..] = words else {
        return Err(ReadError::header(format!(
            "a module has at least {HEADER_WORDS} header words, this one has {}",
            words.len()
        )));
    };
    if magic != MAGIC {
        return Err(ReadError::header(format!(
            "magic number {magic:#010x} is not {MAGIC:#010x}"
        )));
    }
    if words.len() > MAX_WORDS {
        return Err(ReadError::header(format!(
            "{} words exceed the limit of {MAX_WORDS} (limits::MAX_WORDS)",
            words.len()
        )));
    }
    let [high, major, minor, low] = version.to_be_bytes();
    if high != 0 || low != 0 || major != 1 || minor > 6 {
        return Err(ReadError::header(format!(
            "version word {version:#010x} is not a SPIR-V version 1.0 to 1.6 (0x00010m00)"
        )));
    }
    if schema != 0 {
        return Err(ReadError::header(format!(
            "schema word is {schema:#x}, it must be 0"
        )));
    }
    if bound == 0 {
        return Err(ReadError::header("id bound is 0, it must be at least 1"));
    }
    if bound > MAX_ID_BOUND + 1 {
        return Err(ReadError::header(format!(
            "id bound {bound} exceeds the limit of {} (limits::MAX_ID_BOUND, SPIR-V §2.17)",
            MAX_ID_BOUND + 1
        )));
    }
    Ok(Header {
        version: (major, minor),
        generator,
        bound,
    })
}

/// An OpExtInstImport, as OpExtInst's fast path needs it.
struct ExtSet {
    /// The import's result id.
    id: u32,
    /// Per instruction number of the set's grammar: whether its operands are ids alone
    /// (`None` entries: numbers the grammar lacks). `None` for sets without a grammar here,
    /// whose operands are all ids (SPIR-V 1.6 §2.2.1 "NonSemantic").
    ids_only: Option<Vec<Option<bool>>>,
    /// Whether its instructions may reference later ids.
    forward: Forward,
}

/// A function being read: its record and the block currently open, if any.
struct OpenFunction {
    function: Function,
    block: Option<Block>,
}

/// State of the walk.
struct Reader {
    module: Module,
    open: Option<OpenFunction>,
    /// `OpGroupDecorate`/`OpGroupMemberDecorate` applications: (group, target, member).
    group_uses: Vec<(u32, u32, u32)>,
    /// Scratch for string decoding.
    bytes: Vec<u8>,
    /// The imported extended-instruction sets, for OpExtInst's fast path.
    ext_sets: Vec<ExtSet>,
    /// The string of the current instruction, stored by the operand walk (for the opcodes
    /// whose string the module keeps).
    captured: Option<Span>,
    /// Per id, the first instruction that referenced it before its definition where SPIR-V
    /// §2.4 allows it ([`NONE`] if none); each must be defined by the end.
    pending: Vec<u32>,
    /// The logical-layout section reached so far (R-9, SPIR-V §2.4).
    section: Section,
    /// Whether a function with blocks has been read (declarations must come first).
    seen_definition: bool,
    /// Merge blocks announced in the open function and not reached yet, for the nesting
    /// limit (SPIR-V §2.17).
    open_merges: Vec<u32>,
}

/// Checks the id operands of one instruction: in `1..bound` and defined earlier
/// unless a forward reference is allowed there.
struct CheckIds<'r> {
    bound: u32,
    ids: &'r [IdSlot],
    forward: Forward,
    /// Id operands seen so far (result type and result not counted).
    id_operands: u32,
    at: Site,
    pending: &'r mut Vec<u32>,
    warnings: &'r mut Vec<Warning>,
    /// Where to store the instruction's string, for opcodes whose string the module keeps.
    keep_string: Option<&'r mut Vec<u8>>,
    captured: &'r mut Option<Span>,
}

/// The forward-reference policy of OpExtInst of set `name`: debug-information sets
/// describe types and scopes that refer to each other (non-semantic sets may reference
/// later ids, SPIR-V 1.6 §2.4); other sets follow the general rule.
fn ext_set_forward(name: &str) -> Forward {
    if name.starts_with("NonSemantic.") || name.contains("DebugInfo") {
        Forward::Any
    } else {
        Forward::Never
    }
}

/// Whether every parameter of decoration `value` is a one-word literal, an id, a string or
/// a value enumerant (all decorations but FPFastMathMode, whose parameter is a mask, and
/// unknown ones), so that [`Reader::fast_decoration`] can check it.
fn decoration_is_plain(value: u32) -> bool {
    operands::enum_is_known(K::Decoration, value)
        && operands::decoration_parameters(value).iter().all(|&k| {
            matches!(
                k,
                K::LiteralInteger | K::IdRef | K::IdScope | K::LiteralString
            ) || operands::is_plain_enumerant(k)
        })
}

/// `id` is in `1..bound`.
fn in_bound(bound: u32, id: u32) -> Result<(), Problem> {
    if id == 0 || id >= bound {
        return Err(Problem::new(
            ErrorKind::Id,
            format!("id {id} is not in 1..{bound} (the header bound)"),
        ));
    }
    Ok(())
}

/// Whether `id` has been defined, or declared by OpTypeForwardPointer.
#[inline]
fn declared(ids: &[IdSlot], id: u32) -> bool {
    ids.get(id as usize)
        .is_some_and(|s| s.def != NONE || s.ty != NONE)
}

/// for a Result Type: in bound and declared before its use.
fn check_result_type(bound: u32, ids: &[IdSlot], id: u32) -> Result<(), Problem> {
    in_bound(bound, id)?;
    if !declared(ids, id) {
        return Err(Problem::new(
            ErrorKind::ForwardReference,
            format!("result type %{id} is not defined before its use"),
        ));
    }
    Ok(())
}

/// for the `position`-th id operand (result type and result not counted): in bound,
/// and defined earlier unless `forward` allows a forward reference there; `pending[id]`
/// then keeps the first instruction referencing `id` for the end-of-module check.
#[inline]
fn check_id_operand(
    bound: u32,
    ids: &[IdSlot],
    forward: Forward,
    position: u32,
    id: u32,
    at: Site,
    pending: &mut Vec<u32>,
) -> Result<(), Problem> {
    if id != 0 && id < bound && declared(ids, id) {
        return Ok(());
    }
    forward_reference(bound, forward, position, id, at, pending)
}

/// The uncommon case of [`check_id_operand`]: out of bound, or not declared yet.
#[cold]
fn forward_reference(
    bound: u32,
    forward: Forward,
    position: u32,
    id: u32,
    at: Site,
    pending: &mut Vec<u32>,
) -> Result<(), Problem> {
    in_bound(bound, id)?;
    let allowed = match forward {
        Forward::Never | Forward::ExtInst => false,
        Forward::Any => true,
        Forward::AfterFirst => position > 0,
        Forward::FirstOnly => position == 0,
    };
    if !allowed {
        return Err(Problem::new(
            ErrorKind::ForwardReference,
            format!("%{id} is used before its definition"),
        ));
    }
    // Remember the first forward reference to `id`; `id` < bound ≤ MAX_ID_BOUND + 1.
    let i = id as usize;
    if i >= pending.len() {
        pending.resize(i + 1, NONE);
    }
    if let Some(first) = pending.get_mut(i)
        && *first == NONE
    {
        *first = at.location.index;
    }
    Ok(())
}

impl Visit<'_> for CheckIds<'_> {
    fn operand(&mut self, operand: Operand<'_>) -> Result<(), Problem> {
        match operand {
            Operand::ResultType(id) => check_result_type(self.bound, self.ids, id),
            Operand::Result(id) => in_bound(self.bound, id),
            Operand::Id(id) => {
                let position = self.id_operands;
                self.id_operands += 1;
                check_id_operand(
                    self.bound,
                    self.ids,
                    self.forward,
                    position,
                    id,
                    self.at,
                    self.pending,
                )
            }
            _ => Ok(()),
        }
    }

    fn string(&mut self, text: &str) -> Result<(), Problem> {
        if let Some(strings) = self.keep_string.as_deref_mut() {
            let start = strings.len() as u32;
            strings.extend_from_slice(text.as_bytes());
            *self.captured = Some(Span {
                start,
                end: strings.len() as u32,
            });
        }
        Ok(())
    }

    fn tolerate(&mut self, message: String) {
        self.warnings.push(Warning {
            location: self.at.location,
            opcode: self.at.opcode,
            message,
        });
    }
}

impl Reader {
    fn new(header: Header, words: Vec<u32>) -> Self {
        // Every defined id takes an instruction of at least two words, so the id table never
        // needs more than half the words; most modules define ids up to the bound.
        let ids = (header.bound as usize).min(words.len() / 2 + 1);
        let starts = Vec::with_capacity(words.len() / 4);
        let n = words.len();
        Reader {
            module: Module {
                header,
                words,
                starts,
                ids: vec![IdSlot::EMPTY; ids],
                // Capacities from what real modules hold per word (corpus averages, rounded
                // up), so that the tables are not reallocated while they fill.
                strings: Vec::with_capacity(n),
                names: Vec::with_capacity(n / 32),
                member_names: Vec::with_capacity(n / 64),
                decorations: Vec::with_capacity(n / 32),
                types: Vec::with_capacity(n / 32),
                constants: Vec::with_capacity(n / 32),
                capabilities: Vec::new(),
                extensions: Vec::new(),
                ext_inst_imports: Vec::new(),
                memory_model: None,
                entry_points: Vec::new(),
                execution_modes: Vec::new(),
                global_variables: Vec::new(),
                functions: Vec::new(),
                warnings: Vec::new(),
            },
            open: None,
            group_uses: Vec::new(),
            bytes: Vec::new(),
            captured: None,
            ext_sets: Vec::new(),
            pending: vec![NONE; ids],
            section: Section::Capabilities,
            seen_definition: false,
            open_merges: Vec::new(),
        }
    }

    fn walk(&mut self) -> Result<(), ReadError> {
        // The words are moved out for the walk so that the tables can be filled while
        // instruction slices are borrowed; they are put back before the module is returned.
        let words = std::mem::take(&mut self.module.words);
        let mut start = HEADER_WORDS;
        while let Some(&first) = words.get(start) {
            let index = self.module.starts.len();
            let location = Location {
                index: index as u32,
                byte_offset: (start * 4) as u32,
            };
            let opcode = (first & 0xFFFF) as u16;
            let count = (first >> 16) as usize;
            // a word count of 0 would never advance; one past the end cannot be sliced.
            if count == 0 {
                return Err(ReadError::at(
                    ErrorKind::WordCount,
                    location,
                    Some(opcode),
                    "word count is 0",
                ));
            }
            let Some(inst) = words.get(start..start + count) else {
                return Err(ReadError::at(
                    ErrorKind::WordCount,
                    location,
                    Some(opcode),
                    format!(
                        "word count {count} runs past the end of the module ({} words left)",
                        words.len() - start
                    ),
                ));
            };
            if index == MAX_INSTRUCTIONS {
                return Err(ReadError::at(
                    ErrorKind::Limit,
                    location,
                    Some(opcode),
                    format!("more than {MAX_INSTRUCTIONS} instructions (limits::MAX_INSTRUCTIONS)"),
                ));
            }
            // `start` < words.len() ≤ MAX_WORDS < 2^32 (checked in `check_header`).
            self.module.starts.push(start as u32);
            let at = Site { location, opcode };
            self.instruction(&words, inst, start, at)?;
            start += count;
        }
        self.module.words = words;
        Ok(())
    }

    /// One instruction: id checks, then what its opcode adds to the tables.
    fn instruction(
        &mut self,
        module_words: &[u32],
        words: &[u32],
        start: usize,
        at: Site,
    ) -> Result<(), ReadError> {
        let opcode = at.opcode;
        let count = words.len();
        let info = op_info(opcode);
        let Some(grammar) = info.grammar else {
            // SPIR-V §1.4 "Instruction skipping": the word count lets the reader step over an
            // opcode it does not know; it is kept raw and reported.
            self.warn(
                at,
                format!("unknown opcode {opcode}, skipped ({count} words)"),
            );
            return Ok(());
        };
        let op = grammar.opcode;
        self.layout(at, op, info.placement)?;
        let checked = match info.fast {
            Some(shape) => self.fast_operands(at, op, info, shape, words)?,
            None => false,
        };
        if !checked {
            let ctx = self.context(module_words, at, op, words)?;
            let forward = match info.forward {
                Forward::ExtInst => self.ext_inst_forward(words),
                forward => forward,
            };
            let mut check = CheckIds {
                bound: self.module.header.bound,
                ids: &self.module.ids,
                forward,
                id_operands: 0,
                at,
                pending: &mut self.pending,
                warnings: &mut self.module.warnings,
                keep_string: matches!(
                    op,
                    Op::Extension | Op::ExtInstImport | Op::EntryPoint | Op::Name | Op::MemberName
                )
                .then_some(&mut self.module.strings),
                captured: &mut self.captured,
            };
            operands::walk(words, grammar, ctx, &mut self.bytes, &mut check)
                .map_err(|p| at.err(p.kind, p.message))?;
        }

        let result_type = info.has_type.then(|| words.get(1).copied().unwrap_or(0));
        let result = info.has_result.then(|| {
            words
                .get(if info.has_type { 2 } else { 1 })
                .copied()
                .unwrap_or(0)
        });
        if let Some(id) = result {
            self.define(at, id)?;
        }
        if !info.records {
            // A plain instruction: all it needs is to be inside a block.
            if let Some(open) = &self.open
                && open.block.is_none()
            {
                return Err(at.err(
                    ErrorKind::Structure,
                    "an instruction inside a function but outside a block",
                ));
            }
            return Ok(());
        }
        self.record(at, op, words, start, result_type, result)
    }

    /// R-5 … for an instruction of plain layout ([`FastShape`]), checked
    /// without the grammar walk. Returns `false`, before changing anything, when the
    /// instruction carries operands only the walk decodes (or too few words, which the
    /// walk reports).
    fn fast_operands(
        &mut self,
        at: Site,
        op: Op,
        info: OpInfo,
        shape: FastShape,
        words: &[u32],
    ) -> Result<bool, ReadError> {
        let head = 1 + usize::from(info.has_type) + usize::from(info.has_result);
        let Some(operands) = words.get(head..) else {
            return Ok(false);
        };
        let fixed = usize::from(shape.fixed);
        let Some(extra) = operands.len().checked_sub(fixed) else {
            return Ok(false);
        };
        let plain = match shape.tail {
            Tail::None | Tail::Other => extra == 0,
            Tail::Ids | Tail::Literals => true,
            Tail::OptionalId => extra <= 1,
            Tail::String | Tail::Number => extra >= 1,
            Tail::Decoration => operands.get(fixed).is_some_and(|&d| decoration_is_plain(d)),
            Tail::OptionalMask(kind) => match operands.get(fixed) {
                None => true,
                Some(&mask) => operands::plain_mask_parameters(kind, mask) == Some(extra - 1),
            },
        };
        // A mask among the fixed operands must have known bits without parameters.
        let plain_enumerant = match shape.enumerant {
            Some((i, kind)) if operands::is_mask(kind) => operands
                .get(usize::from(i))
                .is_some_and(|&m| operands::plain_mask_parameters(kind, m) == Some(0)),
            _ => true,
        };
        if !plain || !plain_enumerant {
            return Ok(false);
        }
        let mut forward = info.forward;
        if shape.ext_inst {
            // OpExtInst: the set's grammar must give ids alone for this instruction.
            let set = operands.first().copied().unwrap_or(0);
            let number = operands.get(1).copied().unwrap_or(0);
            let Some(import) = self.ext_sets.iter().find(|s| s.id == set) else {
                return Ok(false);
            };
            if import
                .ids_only
                .as_ref()
                .is_some_and(|table| table.get(number as usize).copied().flatten() != Some(true))
            {
                return Ok(false);
            }
            forward = import.forward;
        }
        let info = OpInfo { forward, ..info };
        let bound = self.module.header.bound;
        if info.has_type {
            let ty = words.get(1).copied().unwrap_or(0);
            check_result_type(bound, &self.module.ids, ty)
                .map_err(|p| at.err(p.kind, p.message))?;
        }
        // Ids among the fixed operands, in order (the mask bits), then an id tail.
        let mut position = 0;
        let mut mask = u32::from(shape.id_mask);
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let word = operands.get(i).copied().unwrap_or(0);
            check_id_operand(
                bound,
                &self.module.ids,
                info.forward,
                position,
                word,
                at,
                &mut self.pending,
            )
            .map_err(|p| at.err(p.kind, p.message))?;
            position += 1;
        }
        if matches!(shape.tail, Tail::Ids | Tail::OptionalId) {
            for &word in operands.get(fixed..).unwrap_or(&[]) {
                check_id_operand(
                    bound,
                    &self.module.ids,
                    info.forward,
                    position,
                    word,
                    at,
                    &mut self.pending,
                )
                .map_err(|p| at.err(p.kind, p.message))?;
                position += 1;
            }
        }
        if let Some((i, kind)) = shape.enumerant
            && !operands::is_mask(kind)
        {
            // (A mask here was checked above: known bits without parameters.)
            let value = operands.get(usize::from(i)).copied().unwrap_or(0);
            if !operands::enum_is_known(kind, value) {
                self.warn(at, format!("unknown {kind:?} {value}"));
            }
        }
        let rest = operands.get(fixed..).unwrap_or(&[]);
        match shape.tail {
            Tail::String => {
                let keep = matches!(
                    op,
                    Op::Extension | Op::ExtInstImport | Op::Name | Op::MemberName
                );
                let consumed = self.fast_string(at, rest, keep)?;
                if consumed != rest.len() {
                    return Err(at.err(
                        ErrorKind::Operands,
                        format!("{} words left over after the string", rest.len() - consumed),
                    ));
                }
            }
            Tail::Decoration => self.fast_decoration(at, rest, position)?,
            Tail::OptionalMask(kind) => {
                let mask = rest.first().copied().unwrap_or(0);
                self.fast_mask_parameters(at, kind, mask, rest.get(1..).unwrap_or(&[]), position)?;
            }
            Tail::Number => {
                let ty = words.get(1).copied().unwrap_or(0);
                self.fast_number(at, ty, rest)?;
            }
            _ => {}
        }
        Ok(true)
    }

    /// R-6 for the string at the start of `words`; stores it when `keep`. Returns the words
    /// it occupies.
    fn fast_string(&mut self, at: Site, words: &[u32], keep: bool) -> Result<usize, ReadError> {
        if let Some(consumed) = self.ascii_string(words, keep) {
            return Ok(consumed);
        }
        let (consumed, checked) = decode_string(words, &mut self.bytes);
        checked.map_err(|m| at.err(ErrorKind::String, m))?;
        let text = std::str::from_utf8(&self.bytes)
            .map_err(|e| at.err(ErrorKind::String, format!("the string is not UTF-8: {e}")))?;
        if keep {
            let start = self.module.strings.len() as u32;
            self.module.strings.extend_from_slice(text.as_bytes());
            self.captured = Some(Span {
                start,
                end: self.module.strings.len() as u32,
            });
        }
        Ok(consumed)
    }

    /// The common case of [`Reader::fast_string`]: an ASCII string (hence UTF-8) whose nul
    /// word has zero padding and that fits the length limit, stored when `keep`. `None`
    /// when the string needs the general path (non-ASCII, malformed, too long).
    fn ascii_string(&mut self, words: &[u32], keep: bool) -> Option<usize> {
        // Bit 7 of each byte: set in any byte ≥ 0x80 (not ASCII).
        const HIGH: u32 = 0x8080_8080;
        const LOW: u32 = 0x0101_0101;
        for (i, &word) in words.iter().enumerate() {
            if word & HIGH != 0 {
                return None;
            }
            // With bit 7 clear everywhere, a byte of `word - LOW` has bit 7 set only below a
            // zero byte or at one (the classic "has a zero byte" test).
            if word.wrapping_sub(LOW) & HIGH == 0 {
                continue;
            }
            let bytes = word.to_le_bytes();
            let nul = bytes.iter().position(|&b| b == 0).unwrap_or(4);
            if bytes
                .get(nul..)
                .is_some_and(|pad| pad.iter().any(|&b| b != 0))
            {
                return None;
            }
            let length = i * 4 + nul;
            if length > MAX_STRING_LENGTH {
                return None;
            }
            if keep {
                let start = self.module.strings.len();
                for &w in words.get(..=i).unwrap_or(&[]) {
                    self.module.strings.extend_from_slice(&w.to_le_bytes());
                }
                self.module.strings.truncate(start + length);
                self.captured = Some(Span {
                    start: start as u32,
                    end: (start + length) as u32,
                });
            }
            return Some(i + 1);
        }
        None
    }

    /// for the parameters of a mask that `plain_mask_parameters` accepted: ids are
    /// checked in bit order, literals skipped.
    fn fast_mask_parameters(
        &mut self,
        at: Site,
        kind: K,
        mask: u32,
        params: &[u32],
        ids_before: u32,
    ) -> Result<(), ReadError> {
        let mut words = params.iter();
        let mut position = ids_before;
        let mut bits = mask;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            bits &= !bit;
            for &param in operands::mask_bit_parameters(kind, bit).unwrap_or(&[]) {
                let word = words.next().copied().unwrap_or(0);
                if matches!(param, K::IdRef | K::IdScope) {
                    check_id_operand(
                        self.module.header.bound,
                        &self.module.ids,
                        Forward::Never,
                        position,
                        word,
                        at,
                        &mut self.pending,
                    )
                    .map_err(|p| at.err(p.kind, p.message))?;
                    position += 1;
                }
            }
        }
        Ok(())
    }

    /// for a decoration and its parameters (`words` starts at the decoration);
    /// `decoration_is_plain` said every parameter is a literal, id, string or enumerant.
    fn fast_decoration(
        &mut self,
        at: Site,
        words: &[u32],
        ids_before: u32,
    ) -> Result<(), ReadError> {
        let value = words.first().copied().unwrap_or(0);
        let mut pos = 1;
        let mut position = ids_before;
        for &kind in operands::decoration_parameters(value) {
            let Some(&word) = words.get(pos) else {
                return Err(at.err(
                    ErrorKind::Operands,
                    format!("parameter {kind:?} of Decoration {value} is missing"),
                ));
            };
            match kind {
                K::LiteralInteger => pos += 1,
                K::IdRef | K::IdScope => {
                    check_id_operand(
                        self.module.header.bound,
                        &self.module.ids,
                        Forward::Any,
                        position,
                        word,
                        at,
                        &mut self.pending,
                    )
                    .map_err(|p| at.err(p.kind, p.message))?;
                    position += 1;
                    pos += 1;
                }
                K::LiteralString => {
                    let rest = words.get(pos..).unwrap_or(&[]);
                    pos += self.fast_string(at, rest, false)?;
                }
                _ => {
                    if !operands::enum_is_known(kind, word) {
                        self.warn(at, format!("unknown {kind:?} {word}"));
                    }
                    pos += 1;
                }
            }
        }
        if pos < words.len() {
            return Err(at.err(
                ErrorKind::Operands,
                format!(
                    "{} words left over after the parameters of Decoration {value}",
                    words.len() - pos
                ),
            ));
        }
        Ok(())
    }

    /// R-12 for the literal of OpConstant/OpSpecConstant: its words agree with the width of
    /// the result type `ty` (SPIR-V §2.2.1).
    fn fast_number(&self, at: Site, ty: u32, words: &[u32]) -> Result<(), ReadError> {
        let Some(number) = self.number_type(ty) else {
            return Err(at.err(
                ErrorKind::Operands,
                format!("the result type %{ty} is not an integer or floating-point type"),
            ));
        };
        let problem = operands::check_number(number, words);
        problem.map_err(|p| at.err(p.kind, p.message))
    }

    /// the instruction belongs where it is in the logical layout (SPIR-V §2.4).
    fn layout(&mut self, at: Site, op: Op, placement: Placement) -> Result<(), ReadError> {
        let in_function = self.open.is_some();
        match placement {
            Placement::Body if in_function => Ok(()),
            Placement::Body => {
                Err(at.err(ErrorKind::Layout, "an instruction outside any function"))
            }
            Placement::Function => {
                self.section = Section::Functions;
                Ok(())
            }
            Placement::Anywhere if in_function => Ok(()),
            Placement::Anywhere => self.module_scope_anywhere(at, op),
            Placement::Module(_) if in_function => Err(at.err(
                ErrorKind::Layout,
                "a module-level instruction inside a function",
            )),
            Placement::Module(section) if section < self.section => Err(at.err(
                ErrorKind::Layout,
                format!(
                    "out of the logical layout order (SPIR-V §2.4): {section:?} after {:?}",
                    self.section
                ),
            )),
            Placement::Module(section) => {
                self.section = section;
                Ok(())
            }
        }
    }

    /// OpLine, OpNoLine, OpNop, OpExtInst, OpUndef and global variables at module scope:
    /// from the types section on; between functions only the non-semantic ones.
    fn module_scope_anywhere(&mut self, at: Site, op: Op) -> Result<(), ReadError> {
        if self.section == Section::Functions {
            if matches!(op, Op::Undef | Op::Variable | Op::UntypedVariableKHR) {
                return Err(at.err(
                    ErrorKind::Layout,
                    "a global declaration after the functions",
                ));
            }
            return Ok(());
        }
        if self.section > Section::Globals {
            return Err(at.err(ErrorKind::Layout, "out of the logical layout order"));
        }
        self.section = Section::Globals;
        Ok(())
    }

    /// The context the operand walk needs: literal widths and extended-instruction tables.
    fn context(
        &self,
        module_words: &[u32],
        at: Site,
        op: Op,
        words: &[u32],
    ) -> Result<Context, ReadError> {
        let mut ctx = Context::default();
        match op {
            Op::Constant | Op::SpecConstant => {
                let ty = words.get(1).copied().unwrap_or(0);
                ctx.number = self.number_type(ty);
                if ctx.number.is_none() && self.module.ty(Id(ty)).is_some() {
                    return Err(at.err(
                        ErrorKind::Operands,
                        format!("the result type %{ty} is not an integer or floating-point type"),
                    ));
                }
            }
            Op::Switch => {
                let selector = words.get(1).copied().unwrap_or(0);
                let ty = self.result_type_of(module_words, selector);
                ctx.number = ty.and_then(|t| self.number_type(t));
                if !matches!(ctx.number, Some(Number::Int { .. })) && words.len() > 3 {
                    return Err(at.err(
                        ErrorKind::Operands,
                        format!("the selector %{selector} is not of an integer type"),
                    ));
                }
            }
            Op::ExtInst | Op::ExtInstWithForwardRefsKHR => {
                let set = words.get(3).copied().unwrap_or(0);
                ctx.ext_table = self
                    .module
                    .ext_inst_set(Id(set))
                    .and_then(operands::ext_table);
            }
            _ => {}
        }
        Ok(ctx)
    }

    /// The Result Type of the instruction defining `id`, read from `module_words` (the
    /// module's own words are moved out during the walk).
    fn result_type_of(&self, module_words: &[u32], id: u32) -> Option<u32> {
        let def = self.module.ids.get(id as usize)?.def;
        let start = *self.module.starts.get(def as usize)? as usize;
        let first = *module_words.get(start)?;
        if op_info((first & 0xFFFF) as u16).has_type {
            module_words.get(start + 1).copied()
        } else {
            None
        }
    }

    /// The numeric shape of type `ty`, if it is an integer or float type.
    fn number_type(&self, ty: u32) -> Option<Number> {
        match self.module.ty(Id(ty))? {
            Type::Int { width, signed } => Some(Number::Int {
                width: *width,
                signed: *signed,
            }),
            Type::Float { width } => Some(Number::Float { width: *width }),
            _ => None,
        }
    }

    /// The forward-reference policy of an OpExtInst, from its set.
    fn ext_inst_forward(&self, words: &[u32]) -> Forward {
        let set = words.get(3).copied().unwrap_or(0);
        self.module
            .ext_inst_set(Id(set))
            .map_or(Forward::Never, ext_set_forward)
    }

    /// Adds what the instruction declares to the module's tables.
    fn record(
        &mut self,
        at: Site,
        op: Op,
        words: &[u32],
        start: usize,
        result_type: Option<u32>,
        result: Option<u32>,
    ) -> Result<(), ReadError> {
        let index = at.location.index;
        let count = words.len();
        let word = |i: usize| words.get(i).copied();
        let need = |i: usize| word(i).ok_or_else(|| at.missing_operand(i));
        match op {
            Op::Capability => {
                let cap = need(1)?;
                self.module.capabilities.push(cap);
            }
            Op::Extension => {
                let span = self.string(at, words, 1)?.0;
                self.module.extensions.push(span);
            }
            Op::ExtInstImport => {
                let id = result.unwrap_or(0);
                let span = self.string(at, words, 2)?.0;
                self.module.ext_inst_imports.push((Id(id), span));
                let name = self
                    .module
                    .strings
                    .get(span.start as usize..span.end as usize);
                let name = std::str::from_utf8(name.unwrap_or(&[])).unwrap_or("");
                let ids_only = operands::ext_table(name).map(|table| {
                    let mut numbers = Vec::new();
                    for inst in table.iter() {
                        let number = u32::from(inst.opcode) as usize;
                        if number >= numbers.len() {
                            numbers.resize(number + 1, None);
                        }
                        let all_ids = inst.operands.iter().all(|o| o.kind == K::IdRef);
                        if let Some(slot) = numbers.get_mut(number) {
                            *slot = Some(all_ids);
                        }
                    }
                    numbers
                });
                let forward = ext_set_forward(name);
                self.ext_sets.push(ExtSet {
                    id,
                    ids_only,
                    forward,
                });
            }
            Op::MemoryModel => {
                if self.module.memory_model.is_some() {
                    return Err(at.err(ErrorKind::Layout, "a second OpMemoryModel"));
                }
                self.module.memory_model = Some((need(1)?, need(2)?));
            }
            Op::EntryPoint => {
                let execution_model = need(1)?;
                let function = need(2)?;
                self.check_id(at, function)?;
                let (span, after) = self.string(at, words, 3)?;
                let bytes = self
                    .module
                    .strings
                    .get(span.start as usize..span.end as usize);
                let name = String::from_utf8_lossy(bytes.unwrap_or(&[])).into_owned();
                let interface = self.ids_in(at, words, after)?;
                self.module.entry_points.push(EntryPoint {
                    inst: InstIndex(index),
                    execution_model,
                    function: Id(function),
                    name,
                    interface,
                });
            }
            Op::ExecutionMode | Op::ExecutionModeId => {
                let target = need(1)?;
                self.check_id(at, target)?;
                let mode = need(2)?;
                let operands = words.get(3..).unwrap_or(&[]).to_vec();
                if op == Op::ExecutionModeId {
                    for &id in &operands {
                        self.check_id(at, id)?;
                    }
                }
                self.module.execution_modes.push(ExecutionMode {
                    inst: InstIndex(index),
                    target: Id(target),
                    mode,
                    operands,
                    is_id: op == Op::ExecutionModeId,
                });
            }
            Op::Name => {
                let target = need(1)?;
                self.check_id(at, target)?;
                let span = self.string(at, words, 2)?.0;
                let next = self.module.names.len() as u32;
                let slot = self.slot_mut(target);
                if slot.name == NONE {
                    slot.name = next;
                    self.module.names.push(span);
                }
            }
            Op::MemberName => {
                let target = need(1)?;
                self.check_id(at, target)?;
                let member = need(2)?;
                let span = self.string(at, words, 3)?.0;
                self.module.member_names.push((target, member, span));
            }
            Op::Decorate | Op::DecorateId | Op::DecorateString => {
                let target = need(1)?;
                self.check_id(at, target)?;
                let kind = need(2)?;
                self.decorate(index, target, NONE, kind, start + 3, start + count);
            }
            Op::MemberDecorate | Op::MemberDecorateString => {
                let target = need(1)?;
                self.check_id(at, target)?;
                let member = need(2)?;
                let kind = need(3)?;
                self.decorate(index, target, member, kind, start + 4, start + count);
            }
            Op::GroupDecorate => {
                let group = need(1)?;
                for target in self.ids_in(at, words, 2)? {
                    self.group_uses.push((group, target.0, NONE));
                }
            }
            Op::GroupMemberDecorate => {
                let group = need(1)?;
                let pairs = words.get(2..).unwrap_or(&[]);
                if pairs.len() % 2 != 0 {
                    return Err(at.err(
                        ErrorKind::Operands,
                        "an odd number of (target, member) words",
                    ));
                }
                for pair in pairs.chunks_exact(2) {
                    if let &[target, member] = pair {
                        self.check_id(at, target)?;
                        self.group_uses.push((group, target, member));
                    }
                }
            }
            Op::Variable | Op::UntypedVariableKHR if self.open.is_none() => {
                let id = result.unwrap_or(0);
                let storage_class = need(3)?;
                let (data_type, initializer) = if op == Op::Variable {
                    (None, word(4))
                } else {
                    (word(4), word(5))
                };
                self.module.global_variables.push(GlobalVariable {
                    inst: InstIndex(index),
                    id: Id(id),
                    ty: Id(result_type.unwrap_or(0)),
                    storage_class,
                    initializer: initializer.map(Id),
                    data_type: data_type.map(Id),
                });
            }
            Op::Function => self.open_function(at, words, result_type, result)?,
            Op::FunctionParameter => {
                let open = self.open_function_mut(at)?;
                if open.block.is_some() || !open.function.blocks.is_empty() {
                    return Err(at.err(ErrorKind::Structure, "OpFunctionParameter after a block"));
                }
                open.function.params.push(Id(result.unwrap_or(0)));
            }
            Op::Label => {
                self.check_parameter_count(at)?;
                let label = result.unwrap_or(0);
                self.open_merges.retain(|&m| m != label);
                let open = self.open_function_mut(at)?;
                if open.block.is_some() {
                    return Err(at.err(
                        ErrorKind::Structure,
                        "OpLabel inside a block (missing terminator)",
                    ));
                }
                open.block = Some(Block {
                    label: Id(result.unwrap_or(0)),
                    label_inst: InstIndex(index),
                    first: InstIndex(index + 1),
                    merge: None,
                    terminator: InstIndex(index),
                });
            }
            Op::FunctionEnd => {
                self.check_parameter_count(at)?;
                self.open_merges.clear();
                let open = self.open.take().ok_or_else(|| {
                    at.err(ErrorKind::Structure, "OpFunctionEnd outside a function")
                })?;
                if open.block.is_some() {
                    return Err(at.err(
                        ErrorKind::Structure,
                        "OpFunctionEnd inside a block (missing terminator)",
                    ));
                }
                let mut function = open.function;
                function.end = InstIndex(index);
                if function.blocks.is_empty() {
                    if self.seen_definition {
                        return Err(at.err(
                            ErrorKind::Layout,
                            "a function declaration after a function definition (SPIR-V §2.4)",
                        ));
                    }
                } else {
                    self.seen_definition = true;
                }
                self.module.functions.push(function);
            }
            Op::SelectionMerge | Op::LoopMerge => {
                let block = self.open_block_mut(at)?;
                if block.merge.is_some() {
                    return Err(at.err(
                        ErrorKind::Structure,
                        "a second merge instruction in a block",
                    ));
                }
                block.merge = Some(InstIndex(index));
                self.open_merges.push(need(1)?);
                if self.open_merges.len() > MAX_NESTING_DEPTH {
                    return Err(at.err(
                        ErrorKind::Limit,
                        format!(
                            "control flow nested deeper than {MAX_NESTING_DEPTH} \
                             (limits::MAX_NESTING_DEPTH, SPIR-V §2.17)"
                        ),
                    ));
                }
            }
            Op::Line | Op::NoLine | Op::Nop => {}
            _ if rspirv::grammar::reflect::is_block_terminator(op) => {
                let open = self.open_function_mut(at)?;
                let mut block = open.block.take().ok_or_else(|| {
                    at.err(ErrorKind::Structure, "a block terminator outside a block")
                })?;
                block.terminator = InstIndex(index);
                if let Some(merge) = block.merge
                    && merge.0 + 1 != index
                {
                    return Err(at.err(
                        ErrorKind::Structure,
                        "the merge instruction is not the second-to-last of its block",
                    ));
                }
                open.function.blocks.push(block);
            }
            _ => {
                if let Some(ty) = type_of(op, words) {
                    let ty = ty.map_err(|i| at.missing_operand(i))?;
                    self.declare_type(at, op, words, result, ty)?;
                } else if let Some(constant) = self.constant_of(at, op, words, result_type)? {
                    let id = result.unwrap_or(0);
                    let slot = self.module.constants.len() as u32;
                    self.module.constants.push(constant);
                    self.slot_mut(id).constant = slot;
                }
                if let Some(open) = &self.open
                    && open.block.is_none()
                {
                    return Err(at.err(
                        ErrorKind::Structure,
                        "an instruction inside a function but outside a block",
                    ));
                }
            }
        }
        Ok(())
    }

    fn open_function(
        &mut self,
        at: Site,
        words: &[u32],
        result_type: Option<u32>,
        result: Option<u32>,
    ) -> Result<(), ReadError> {
        if self.open.is_some() {
            return Err(at.err(
                ErrorKind::Structure,
                "OpFunction inside a function (missing OpFunctionEnd)",
            ));
        }
        let control = words.get(3).copied().ok_or_else(|| at.missing_operand(3))?;
        let function_type = words.get(4).copied().ok_or_else(|| at.missing_operand(4))?;
        self.check_id(at, function_type)?;
        self.open = Some(OpenFunction {
            function: Function {
                id: Id(result.unwrap_or(0)),
                result_type: Id(result_type.unwrap_or(0)),
                function_type: Id(function_type),
                control,
                params: Vec::new(),
                blocks: Vec::new(),
                def: InstIndex(at.location.index),
                end: InstIndex(at.location.index),
            },
            block: None,
        });
        Ok(())
    }

    /// before the first block (or the end of a declaration), the function has one
    /// OpFunctionParameter per parameter of its OpTypeFunction.
    fn check_parameter_count(&self, at: Site) -> Result<(), ReadError> {
        let Some(open) = &self.open else {
            return Ok(());
        };
        if !open.function.blocks.is_empty() || open.block.is_some() {
            return Ok(());
        }
        let ty = open.function.function_type;
        match self.module.ty(ty) {
            Some(Type::Function { params, .. }) if params.len() == open.function.params.len() => {
                Ok(())
            }
            Some(Type::Function { params, .. }) => Err(at.err(
                ErrorKind::Structure,
                format!(
                    "the function has {} OpFunctionParameter, its type {ty} has {} parameters",
                    open.function.params.len(),
                    params.len()
                ),
            )),
            _ => Err(at.err(
                ErrorKind::Structure,
                format!("the function type {ty} is not an OpTypeFunction"),
            )),
        }
    }

    fn open_function_mut(&mut self, at: Site) -> Result<&mut OpenFunction, ReadError> {
        self.open
            .as_mut()
            .ok_or_else(|| at.err(ErrorKind::Structure, "outside a function"))
    }

    fn open_block_mut(&mut self, at: Site) -> Result<&mut Block, ReadError> {
        self.open_function_mut(at)?
            .block
            .as_mut()
            .ok_or_else(|| at.err(ErrorKind::Structure, "outside a block"))
    }

    /// Records a type declaration for `result` (or, for OpTypeForwardPointer, its operand).
    fn declare_type(
        &mut self,
        at: Site,
        op: Op,
        words: &[u32],
        result: Option<u32>,
        ty: Type,
    ) -> Result<(), ReadError> {
        let id = if op == Op::TypeForwardPointer {
            let id = words.get(1).copied().ok_or_else(|| at.missing_operand(1))?;
            self.check_id(at, id)?;
            id
        } else {
            result.unwrap_or(0)
        };
        let index = self.module.types.len() as u32;
        self.module.types.push(ty);
        self.slot_mut(id).ty = index;
        Ok(())
    }

    /// The constant an instruction defines, if it is a constant instruction.
    fn constant_of(
        &self,
        at: Site,
        op: Op,
        words: &[u32],
        result_type: Option<u32>,
    ) -> Result<Option<Constant>, ReadError> {
        let ty = Id(result_type.unwrap_or(0));
        let rest = words.get(3..).unwrap_or(&[]);
        let spec = matches!(
            op,
            Op::SpecConstantTrue
                | Op::SpecConstantFalse
                | Op::SpecConstant
                | Op::SpecConstantComposite
                | Op::SpecConstantCompositeReplicateEXT
        );
        Ok(Some(match op {
            Op::ConstantTrue | Op::SpecConstantTrue => Constant::Bool {
                ty,
                value: true,
                spec,
            },
            Op::ConstantFalse | Op::SpecConstantFalse => Constant::Bool {
                ty,
                value: false,
                spec,
            },
            Op::Constant | Op::SpecConstant => {
                let bits = match rest {
                    [] => return Err(at.missing_operand(3)),
                    [low] => u64::from(*low),
                    [low, high, ..] => u64::from(*low) | (u64::from(*high) << 32),
                };
                Constant::Scalar { ty, bits, spec }
            }
            Op::ConstantComposite
            | Op::SpecConstantComposite
            | Op::ConstantCompositeReplicateEXT
            | Op::SpecConstantCompositeReplicateEXT => Constant::Composite {
                ty,
                parts: rest.iter().map(|&w| Id(w)).collect(),
                spec,
            },
            Op::ConstantNull => Constant::Null { ty },
            Op::SpecConstantOp => {
                let (&opcode, operands) =
                    rest.split_first().ok_or_else(|| at.missing_operand(3))?;
                let opcode = u16::try_from(opcode).map_err(|_| {
                    at.err(
                        ErrorKind::Enumerant,
                        format!("OpSpecConstantOp opcode {opcode} is not 16 bits"),
                    )
                })?;
                Constant::SpecOp {
                    ty,
                    opcode,
                    operands: operands.to_vec(),
                }
            }
            Op::ConstantSampler => match rest {
                &[addressing, normalized, filter] => Constant::Sampler {
                    ty,
                    addressing,
                    normalized: normalized != 0,
                    filter,
                },
                _ => return Err(at.err(ErrorKind::Operands, "OpConstantSampler takes 3 operands")),
            },
            Op::Undef => Constant::Undef { ty },
            _ => return Ok(None),
        }))
    }

    fn decorate(&mut self, inst: u32, target: u32, member: u32, kind: u32, from: usize, to: usize) {
        self.module.decorations.push(DecorationRecord {
            target,
            member,
            inst,
            kind,
            operands_start: from as u32,
            operands_end: to as u32,
        });
    }

    /// Every word of the instruction `words` from index `from` on, as ids checked against the
    /// bound.
    fn ids_in(&self, at: Site, words: &[u32], from: usize) -> Result<Vec<Id>, ReadError> {
        let words = words.get(from..).unwrap_or(&[]);
        let mut ids = Vec::with_capacity(words.len());
        for &w in words {
            self.check_id(at, w)?;
            ids.push(Id(w));
        }
        Ok(ids)
    }

    /// The literal string starting at word `from` of the instruction `words`, in
    /// `Module::strings`: its span and the index of the word after it. The operand walk
    /// already decoded and stored it for the opcodes that keep their string.
    fn string(&mut self, at: Site, words: &[u32], from: usize) -> Result<(Span, usize), ReadError> {
        if let Some(span) = self.captured.take() {
            // A string of L bytes occupies L / 4 + 1 words (SPIR-V §2.2.1).
            return Ok((span, from + (span.end - span.start) as usize / 4 + 1));
        }
        let words = words.get(from..).unwrap_or(&[]);
        let (consumed, result) = decode_string(words, &mut self.bytes);
        result.map_err(|problem| at.err(ErrorKind::String, problem))?;
        let text = std::str::from_utf8(&self.bytes)
            .map_err(|e| at.err(ErrorKind::String, format!("the string is not UTF-8: {e}")))?;
        let begin = self.module.strings.len() as u32;
        self.module.strings.extend_from_slice(text.as_bytes());
        let span = Span {
            start: begin,
            end: self.module.strings.len() as u32,
        };
        Ok((span, from + consumed))
    }

    /// `id` is in `1..bound`.
    fn check_id(&self, at: Site, id: u32) -> Result<(), ReadError> {
        if id == 0 || id >= self.module.header.bound {
            return Err(at.err(
                ErrorKind::Id,
                format!(
                    "id {id} is not in 1..{} (the header bound)",
                    self.module.header.bound
                ),
            ));
        }
        Ok(())
    }

    /// records `id` as defined by the current instruction, exactly once.
    #[inline]
    fn define(&mut self, at: Site, id: u32) -> Result<(), ReadError> {
        if id != 0
            && id < self.module.header.bound
            && let Some(slot) = self.module.ids.get_mut(id as usize)
            && slot.def == NONE
        {
            slot.def = at.location.index;
            return Ok(());
        }
        self.define_slow(at, id)
    }

    /// [`Reader::define`] for ids beyond the table, out of bound or defined twice.
    #[cold]
    fn define_slow(&mut self, at: Site, id: u32) -> Result<(), ReadError> {
        self.check_id(at, id)?;
        let slot = self.slot_mut(id);
        if slot.def != NONE {
            let previous = slot.def;
            return Err(at.err(
                ErrorKind::Id,
                format!("%{id} is already defined by instruction #{previous}"),
            ));
        }
        slot.def = at.location.index;
        Ok(())
    }

    /// The slot of `id`, growing the table; `id` was checked against the bound, which is at
    /// most `MAX_ID_BOUND`.
    fn slot_mut(&mut self, id: u32) -> &mut IdSlot {
        let i = id as usize;
        if i >= self.module.ids.len() {
            self.module.ids.resize(i + 1, IdSlot::EMPTY);
        }
        // Cannot panic: the table was resized just above to hold index `i`.
        #[allow(clippy::indexing_slicing)]
        &mut self.module.ids[i]
    }

    fn warn(&mut self, at: Site, message: String) {
        self.module.warnings.push(Warning {
            location: at.location,
            opcode: at.opcode,
            message,
        });
    }

    /// End of module: open functions, group decorations, sorted side tables.
    fn finish(mut self) -> Result<Module, ReadError> {
        if let Some(open) = &self.open {
            let def = open.function.def.0;
            let start = self.module.starts.get(def as usize).copied().unwrap_or(0);
            return Err(ReadError::at(
                ErrorKind::Structure,
                Location {
                    index: def,
                    byte_offset: start * 4,
                },
                Some(Op::Function as u16),
                "the function has no OpFunctionEnd",
            ));
        }
        if self.module.memory_model.is_none() {
            return Err(ReadError::header(
                "the module has no OpMemoryModel (SPIR-V §2.4)",
            ));
        }
        // The earliest instruction referencing an id that was never defined.
        let undefined = self
            .pending
            .iter()
            .enumerate()
            .filter(|&(_, &first)| first != NONE);
        let undefined = undefined
            .filter(|&(id, _)| self.module.ids.get(id).is_none_or(|s| s.def == NONE))
            .min_by_key(|&(_, &first)| first);
        if let Some((id, &first)) = undefined {
            let start = self.module.starts.get(first as usize).copied().unwrap_or(0);
            let opcode = self
                .module
                .words
                .get(start as usize)
                .map(|w| (w & 0xFFFF) as u16);
            return Err(ReadError::at(
                ErrorKind::ForwardReference,
                Location {
                    index: first,
                    byte_offset: start * 4,
                },
                opcode,
                format!("%{id} is referenced but never defined"),
            ));
        }
        self.expand_groups();
        let m = &mut self.module;
        // The instruction index keeps module order among decorations of one target; the
        // span start keeps the first OpMemberName of a member first.
        m.decorations
            .sort_unstable_by_key(|d| (d.target, d.member, d.inst));
        m.member_names
            .sort_unstable_by_key(|&(t, mem, span)| (t, mem, span.start));
        m.member_names.dedup_by_key(|&mut (t, mem, _)| (t, mem));
        Ok(self.module)
    }

    /// Applies every `OpGroupDecorate`/`OpGroupMemberDecorate` (SPIR-V §3.3.5): each target
    /// receives a copy of the group's decorations, pointing at the group's instructions.
    fn expand_groups(&mut self) {
        if self.group_uses.is_empty() {
            return;
        }
        let mut added = Vec::new();
        for &(group, target, member) in &self.group_uses {
            for d in self
                .module
                .decorations
                .iter()
                .filter(|d| d.target == group && d.member == NONE)
            {
                added.push(DecorationRecord {
                    target,
                    member,
                    ..*d
                });
            }
        }
        self.module.decorations.extend(added);
    }
}

/// The type a type-declaring opcode declares: `None` if `op` declares no type,
/// `Some(Err(i))` if word `i` is missing.
fn type_of(op: Op, words: &[u32]) -> Option<Result<Type, usize>> {
    let w = |i: usize| words.get(i).copied().ok_or(i);
    let id = |i: usize| w(i).map(Id);
    let rest = |i: usize| {
        words
            .get(i..)
            .unwrap_or(&[])
            .iter()
            .map(|&x| Id(x))
            .collect::<Vec<_>>()
    };
    let ty = (|| {
        Ok(match op {
            Op::TypeVoid => Type::Void,
            Op::TypeBool => Type::Bool,
            Op::TypeInt => Type::Int {
                width: w(2)?,
                signed: w(3)? != 0,
            },
            Op::TypeFloat => Type::Float { width: w(2)? },
            Op::TypeVector => Type::Vector {
                component: id(2)?,
                count: w(3)?,
            },
            Op::TypeMatrix => Type::Matrix {
                column: id(2)?,
                count: w(3)?,
            },
            Op::TypeArray => Type::Array {
                element: id(2)?,
                length: id(3)?,
            },
            Op::TypeRuntimeArray => Type::RuntimeArray { element: id(2)? },
            Op::TypeStruct => Type::Struct { members: rest(2) },
            Op::TypePointer => Type::Pointer {
                storage_class: w(2)?,
                pointee: id(3)?,
            },
            Op::TypeUntypedPointerKHR => Type::UntypedPointer {
                storage_class: w(2)?,
            },
            Op::TypeForwardPointer => Type::ForwardPointer {
                storage_class: w(2)?,
            },
            Op::TypeFunction => Type::Function {
                ret: id(2)?,
                params: rest(3),
            },
            Op::TypeImage => Type::Image {
                sampled_type: id(2)?,
                dim: w(3)?,
                depth: w(4)?,
                arrayed: w(5)?,
                multisampled: w(6)?,
                sampled: w(7)?,
                format: w(8)?,
                access: words.get(9).copied(),
            },
            Op::TypeSampler => Type::Sampler,
            Op::TypeSampledImage => Type::SampledImage { image: id(2)? },
            _ => Type::Other { opcode: op as u16 },
        })
    })();
    op_info(op as u16).declares_type.then_some(ty)
}

/// The instruction being read: where it is and its opcode, for errors.
#[derive(Clone, Copy)]
struct Site {
    location: Location,
    opcode: u16,
}

impl Site {
    fn err(self, kind: ErrorKind, message: impl Into<String>) -> ReadError {
        ReadError::at(kind, self.location, Some(self.opcode), message)
    }

    fn missing_operand(self, word: usize) -> ReadError {
        self.err(
            ErrorKind::Operands,
            format!("operand word {word} is missing"),
        )
    }
}
