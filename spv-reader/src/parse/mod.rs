//! The reading pass: header checks, one walk over the instructions that records locations,
//! fills the per-id tables and builds functions and blocks.
//!
//! Rules are those of spirv.md §1.6 (R-1 … R-12). The walk is fail-fast: the first problem
//! becomes a located [`ReadError`].

mod fast;
mod ids;
mod quick;
mod record;

use crate::error::{ErrorKind, ReadError};
use crate::grammar::{self, Forward, OpInfo, Path, Placement, Section, op_info};
use crate::limits::{MAX_ID_BOUND, MAX_INSTRUCTIONS, MAX_WORDS};
use crate::module::{
    CONSTANT, DecorationRecord, FORWARD, Header, IdSlot, Module, NONE, Span, Tables,
};
use crate::operands::{self, Context, Number, Problem};
use crate::spare::Spare;
use crate::spirv::Op;
use crate::types::{Block, Function, Type, Warning};
use crate::{Id, Location};
use ids::{CheckIds, ext_set_forward};

/// The SPIR-V magic number (SPIR-V §3.1).
pub(crate) const MAGIC: u32 = 0x0723_0203;

/// Number of header words (SPIR-V §2.3).
pub(crate) const HEADER_WORDS: usize = 5;

/// Reads a module from words already in native order (R-1's endianness fix-up done).
/// `spare` holds the words, and buffers to fill (emptied) when a previous module left some.
pub(crate) fn read_native(spare: Spare) -> Result<Module, ReadError> {
    let header = check_header(&spare.words)?;
    let mut reader = Reader::new(header, spare);
    reader.walk()?;
    reader.finish()
}

/// R-1 … R-3: magic, version, bound and schema words.
#[inline(never)]
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

/// Empty slots copied into a new id table: `Vec::resize` writes its two-field value one slot
/// at a time, a copy of a block of slots goes as fast as memory does.
static EMPTY_SLOTS: [IdSlot; 256] = [IdSlot::EMPTY; 256];

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
    /// The string of the current instruction, stored by the operand walk (for the opcodes
    /// whose string the module keeps).
    captured: Option<Span>,
    /// How many ids were referenced before their definition where SPIR-V §2.4 allows it and
    /// are not defined yet (their slots carry a [`FORWARD`] mark); each must be defined by
    /// the end.
    forward_refs: u32,
    /// The logical-layout section reached so far (R-9, SPIR-V §2.4).
    section: Section,
    /// Whether a function with blocks has been read (declarations must come first).
    seen_definition: bool,
    /// Number of words of the module, for sizing a function's block list.
    word_count: usize,
    /// Merge blocks announced in the open function and not reached yet, for the nesting
    /// limit (SPIR-V §2.17).
    open_merges: OpenMerges,
}

/// The merge blocks announced and not reached yet, counted per id modulo 64 (a bucket), so
/// that a label that is none of them (most labels) is passed without searching the list, and
/// so is one whose bucket holds a single other id. Merges are mostly reached innermost first,
/// so the list is searched only when a bucket holds more than one id: reading stays linear in
/// the nesting depth.
struct OpenMerges {
    ids: Vec<u32>,
    /// How many ids of `ids` fall in each bucket (the list is at most `MAX_NESTING_DEPTH` + 1
    /// long, so a count fits).
    counts: [u16; 64],
    /// Per bucket holding exactly one id: that id.
    single: [u32; 64],
}

impl Default for OpenMerges {
    fn default() -> OpenMerges {
        OpenMerges {
            ids: Vec::new(),
            counts: [0; 64],
            single: [0; 64],
        }
    }
}

impl OpenMerges {
    fn len(&self) -> usize {
        self.ids.len()
    }

    fn push(&mut self, id: u32) {
        self.ids.push(id);
        let b = (id % 64) as usize;
        if let (Some(count), Some(single)) = (self.counts.get_mut(b), self.single.get_mut(b)) {
            *count = count.saturating_add(1);
            *single = id;
        }
    }

    /// Block `label` is reached: it is no longer announced (every announcement of it).
    #[inline]
    fn reach(&mut self, label: u32) {
        let b = (label % 64) as usize;
        let (Some(count), Some(single)) = (self.counts.get_mut(b), self.single.get_mut(b)) else {
            return;
        };
        match *count {
            0 => {}
            1 if *single != label => {}
            1 => {
                // The bucket's one id: the last announced when merges nest.
                if self.ids.last() == Some(&label) {
                    self.ids.pop();
                } else {
                    self.ids.retain(|&m| m != label);
                }
                *count = 0;
            }
            _ => {
                let before = self.ids.len();
                self.ids.retain(|&m| m != label);
                *count = count.saturating_sub((before - self.ids.len()) as u16);
                if *count == 1
                    && let Some(&other) = self.ids.iter().find(|&&m| (m % 64) as usize == b)
                {
                    *single = other;
                }
            }
        }
    }

    fn clear(&mut self) {
        self.ids.clear();
        self.counts = [0; 64];
    }
}

impl Reader {
    #[inline(never)]
    fn new(header: Header, spare: Spare) -> Self {
        let Spare {
            words,
            mut starts,
            mut ids,
            names,
            mut strings,
            tables,
            mut types,
            mut constants,
            extensions,
            ext_inst_imports,
            mut entry_points,
            execution_modes,
            mut global_variables,
            mut functions,
            id_lists,
            block_lists,
            name_strings,
        } = spare;
        let n = words.len();
        // Every defined id takes an instruction of at least two words, so the id table never
        // needs more than half the words; most modules define ids up to the bound.
        // (`ids` is empty here.)
        let id_count = (header.bound as usize).min(n / 2 + 1);
        ids.reserve(id_count);
        while ids.len() < id_count {
            let missing = id_count - ids.len();
            ids.extend_from_slice(EMPTY_SLOTS.get(..missing).unwrap_or(&EMPTY_SLOTS));
        }
        // The corpus has at most 0.28 instructions per word in 99% of its modules.
        starts.reserve(n * 2 / 7);
        // Capacities from what real modules hold per word (corpus averages, rounded up), so
        // that the tables are not reallocated while they fill.
        strings.reserve(n);
        types.reserve(n / 16);
        constants.reserve(n / 32);
        // Nearly every module has an entry point and a function: reserving here takes the
        // allocation off the growth path of the first push.
        entry_points.reserve(4);
        global_variables.reserve(16);
        functions.reserve(4);
        Reader {
            module: Module {
                header,
                words,
                starts,
                ids,
                names,
                type_and_constant: Vec::new(),
                strings,
                // Capabilities, member names and decorations.
                tables: Tables::in_buffer(tables, n / 3),
                types,
                constants,
                extensions,
                ext_inst_imports,
                memory_model: None,
                entry_points,
                execution_modes,
                global_variables,
                functions,
                warnings: Vec::new(),
                id_lists,
                block_lists,
                name_strings,
            },
            open: None,
            group_uses: Vec::new(),
            bytes: Vec::new(),
            captured: None,
            forward_refs: 0,
            section: Section::Capabilities,
            seen_definition: false,
            word_count: n,
            open_merges: OpenMerges::default(),
        }
    }

    fn walk(&mut self) -> Result<(), ReadError> {
        // The words are moved out for the walk so that the tables can be filled while
        // instruction slices are borrowed; they are put back before the module is returned.
        let words = std::mem::take(&mut self.module.words);
        let paths = grammar::paths();
        let mut start = HEADER_WORDS;
        while let Some(&first) = words.get(start) {
            let index = self.module.starts.len();
            let opcode = (first & 0xFFFF) as u16;
            let count = (first >> 16) as usize;
            // a word count of 0 would never advance; one past the end cannot be sliced.
            let inst = match words.get(start..start + count) {
                Some(inst) if count != 0 && index < MAX_INSTRUCTIONS => inst,
                _ => return Err(self.walk_error(&words, start, first)),
            };
            // `start` < words.len() ≤ MAX_WORDS < 2^32 (checked in `check_header`).
            self.module.starts.push(start as u32);
            let info = || op_info(opcode);
            let path = paths
                .get(usize::from(opcode))
                .copied()
                .unwrap_or(Path::None);
            // The shortest paths take most instructions; they change nothing unless every
            // check passes, and leave the rest to the general path.
            if !self.quick(path, info, inst, start, index as u32)? {
                let location = Location {
                    index: index as u32,
                    byte_offset: (start * 4) as u32,
                };
                let at = Site { location, opcode };
                self.instruction(&words, inst, start, at)?;
            }
            start += count;
        }
        self.module.words = words;
        Ok(())
    }

    /// The located error for an instruction whose word count is 0 or runs past the end, or
    /// one instruction over the limit.
    #[cold]
    fn walk_error(&self, words: &[u32], start: usize, first: u32) -> ReadError {
        let index = self.module.starts.len();
        let location = Location {
            index: index as u32,
            byte_offset: (start * 4) as u32,
        };
        let opcode = Some((first & 0xFFFF) as u16);
        let count = (first >> 16) as usize;
        if count == 0 {
            ReadError::at(ErrorKind::WordCount, location, opcode, "word count is 0")
        } else if start + count > words.len() {
            ReadError::at(
                ErrorKind::WordCount,
                location,
                opcode,
                format!(
                    "word count {count} runs past the end of the module ({} words left)",
                    words.len() - start
                ),
            )
        } else {
            ReadError::at(
                ErrorKind::Limit,
                location,
                opcode,
                format!("more than {MAX_INSTRUCTIONS} instructions (limits::MAX_INSTRUCTIONS)"),
            )
        }
    }

    /// Whether a block is open (inside a function, between OpLabel and its terminator).
    #[inline]
    fn in_block(&self) -> bool {
        self.open.as_ref().is_some_and(|open| open.block.is_some())
    }

    /// One instruction: id checks, then what its opcode adds to the tables. Kept out of the
    /// reading loop, which the shortest paths keep small.
    #[inline(never)]
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
        let Some(grammar) = info.grammar() else {
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
                ids: &mut self.module.ids,
                forward_refs: &mut self.forward_refs,
                forward,
                id_operands: 0,
                at,
                warnings: &mut self.module.warnings,
                keep_string: matches!(
                    op,
                    Op::Extension | Op::ExtInstImport | Op::EntryPoint | Op::Name | Op::MemberName
                )
                .then_some(&mut self.module.strings),
                captured: &mut self.captured,
            };
            operands::walk(words, grammar, ctx, &mut self.bytes, &mut check)
                .map_err(|p| at.problem(p))?;
        }

        if info.has_result {
            let result = words.get(if info.has_type { 2 } else { 1 });
            self.define(at, result.copied().unwrap_or(0))?;
        }
        self.after_operands(at, op, info, words, start)
    }

    /// What an instruction whose operands were checked and whose result was defined still
    /// needs: R-11 for a block instruction, or what its opcode adds to the tables.
    fn after_operands(
        &mut self,
        at: Site,
        op: Op,
        info: &OpInfo,
        words: &[u32],
        start: usize,
    ) -> Result<(), ReadError> {
        let result_type = info.has_type.then(|| words.get(1).copied().unwrap_or(0));
        let result = info.has_result.then(|| {
            words
                .get(if info.has_type { 2 } else { 1 })
                .copied()
                .unwrap_or(0)
        });
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

    /// the instruction belongs where it is in the logical layout (SPIR-V §2.4).
    fn layout(&mut self, at: Site, op: Op, placement: Placement) -> Result<(), ReadError> {
        if self.layout_allows(op, placement) {
            return Ok(());
        }
        let message = match placement {
            Placement::Body => "an instruction outside any function".to_owned(),
            Placement::Module(_) if self.open.is_some() => {
                "a module-level instruction inside a function".to_owned()
            }
            Placement::Module(section) => format!(
                "out of the logical layout order (SPIR-V §2.4): {section:?} after {:?}",
                self.section
            ),
            _ if self.section == Section::Functions => {
                "a global declaration after the functions".to_owned()
            }
            _ => "out of the logical layout order".to_owned(),
        };
        Err(at.err(ErrorKind::Layout, message))
    }

    /// Whether `op` may come now in the logical layout (R-9, SPIR-V §2.4); if so, the section
    /// it belongs to becomes the current one. OpLine, OpNoLine, OpNop, OpExtInst, OpUndef
    /// and global variables may appear at module scope from the types section on, and
    /// between functions only the non-semantic ones.
    fn layout_allows(&mut self, op: Op, placement: Placement) -> bool {
        let in_function = self.open.is_some();
        match placement {
            Placement::Body => in_function,
            Placement::Function => {
                self.section = Section::Functions;
                true
            }
            Placement::Anywhere if in_function => true,
            Placement::Anywhere if self.section == Section::Functions => {
                !matches!(op, Op::Undef | Op::Variable | Op::UntypedVariableKHR)
            }
            Placement::Anywhere if self.section > Section::Globals => false,
            Placement::Anywhere => {
                self.section = Section::Globals;
                true
            }
            Placement::Module(section) if in_function || section < self.section => false,
            Placement::Module(section) => {
                self.section = section;
                true
            }
        }
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
        let slot = self.module.ids.get(id as usize)?;
        let def = if slot.is_defined() { slot.def } else { NONE };
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
            && !slot.is_defined()
        {
            if slot.def != NONE {
                self.forward_refs -= 1;
            }
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
        if slot.is_defined() {
            let previous = slot.def;
            return Err(at.err(
                ErrorKind::Id,
                format!("%{id} is already defined by instruction #{previous}"),
            ));
        }
        let forward = slot.def != NONE;
        slot.def = at.location.index;
        if forward {
            self.forward_refs -= 1;
        }
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

    /// Records `value` ([`IdSlot::value`]: a type index, or [`CONSTANT`] with a constant
    /// index) for `id`, replacing a value of the same kind; `id` was checked against the
    /// bound.
    #[inline]
    pub(super) fn set_value(&mut self, id: u32, value: u32) {
        let slot = self.slot_mut(id);
        if slot.value == NONE || slot.is_type() == (value < CONSTANT) {
            slot.value = value;
        } else {
            self.set_second_value(id, value);
        }
    }

    /// [`Reader::set_value`] for an id whose slot holds a value of the other kind.
    #[cold]
    fn set_second_value(&mut self, id: u32, value: u32) {
        let same_kind = |v: u32| (v < CONSTANT) == (value < CONSTANT);
        let both = &mut self.module.type_and_constant;
        match both.iter_mut().find(|(i, v)| *i == id && same_kind(*v)) {
            Some(entry) => entry.1 = value,
            None => both.push((id, value)),
        }
    }

    /// Whether `id` has no name yet.
    pub(super) fn unnamed(&self, id: u32) -> bool {
        self.module
            .names
            .get(id as usize)
            .is_none_or(|&start| start == NONE)
    }

    /// Keeps the string of `span`, just stored, as the name of `target`: a nul byte after
    /// it marks its end (see `Module::names`). `target` was checked against the bound.
    fn keep_name(&mut self, target: u32, span: Span) {
        let strings = &mut self.module.strings;
        let start = if span.end as usize == strings.len() {
            span.start
        } else {
            // Not the last string stored: it is copied to the end (the reader always names
            // the string it just stored, so this does not happen).
            let start = strings.len() as u32;
            strings.extend_from_within(span.start as usize..span.end as usize);
            start
        };
        strings.push(0);
        let names = &mut self.module.names;
        let i = target as usize;
        if i >= names.len() {
            // At least as long as the id table, so that names of later ids seldom grow it.
            names.resize((i + 1).max(self.module.ids.len()), NONE);
        }
        if let Some(name) = names.get_mut(i) {
            *name = start;
        }
    }

    fn warn(&mut self, at: Site, message: String) {
        self.module.warnings.push(Warning {
            location: at.location,
            opcode: at.opcode,
            message,
        });
    }

    /// End of module: open functions, group decorations, sorted side tables.
    #[inline(never)]
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
        let undefined = (self.forward_refs != 0)
            .then(|| {
                let marked = self.module.ids.iter().map(|s| s.def).enumerate();
                marked
                    .filter(|&(_, def)| def != NONE && def & FORWARD != 0)
                    .map(|(id, def)| (id, def & !FORWARD))
                    .min_by_key(|&(_, first)| first)
            })
            .flatten();
        if let Some((id, first)) = undefined {
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
        // The instruction index keeps module order among decorations of one target.
        // Compilers often emit them in this order already; checking is cheaper than sorting.
        let decorations = m.tables.decorations_mut();
        let decoration_key = |&[target, member, inst, ..]: &[u32; 6]| (target, member, inst);
        if !decorations.is_sorted_by_key(decoration_key) {
            decorations.sort_unstable_by_key(decoration_key);
        }
        m.tables.sort_member_names();
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
                .tables
                .decoration_records()
                .filter(|d| d.target == group && d.member == NONE)
            {
                added.push(DecorationRecord {
                    target,
                    member,
                    ..d
                });
            }
        }
        for d in added {
            self.module.tables.push_decoration(d);
        }
    }
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

    fn problem(self, problem: Problem) -> ReadError {
        let (kind, message) = problem.into_parts();
        self.err(kind, message)
    }

    fn missing_operand(self, word: usize) -> ReadError {
        self.err(
            ErrorKind::Operands,
            format!("operand word {word} is missing"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::OpenMerges;

    /// `OpenMerges` keeps the same list as announcing with `push` and reaching with
    /// `retain` would, for nested and crossing announcements, repeats, and ids that share a
    /// bucket (equal modulo 64).
    #[test]
    fn open_merges_match_a_plain_list() {
        // A fixed pseudo-random walk over ids in few buckets, so that buckets hold several.
        let mut state = 0x2545_F491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let mut merges = OpenMerges::default();
        let mut model: Vec<u32> = Vec::new();
        for step in 0..20_000 {
            let id = [1, 65, 129, 2, 66, 3][(next() % 6) as usize] + 64 * (next() % 3);
            if next() % 3 == 0 {
                merges.push(id);
                model.push(id);
            } else if let Some(&last) = model.last().filter(|_| next() % 2 == 0) {
                merges.reach(last);
                model.retain(|&m| m != last);
            } else {
                merges.reach(id);
                model.retain(|&m| m != id);
            }
            assert_eq!(merges.ids, model, "step {step}");
            if step % 997 == 0 {
                merges.clear();
                model.clear();
            }
        }
    }
}
