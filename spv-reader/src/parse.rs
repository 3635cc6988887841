//! The reading pass: header checks, one walk over the instructions that records locations,
//! fills the per-id tables and builds functions and blocks.
//!
//! Rules are those of spirv.md §1.6 (R-1 … R-12). The walk is fail-fast: the first problem
//! becomes a located [`ReadError`].

use crate::error::{ErrorKind, ReadError};
use crate::grammar::op_info;
use crate::limits::{MAX_ID_BOUND, MAX_INSTRUCTIONS, MAX_NESTING_DEPTH, MAX_WORDS};
use crate::module::{DecorationRecord, Header, IdSlot, Module, NONE, Span};
use crate::operands::{self, Context, Number, Operand, Problem, Visit, decode_string};
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
    let starts = scan_instructions(&words)?;
    let mut reader = Reader::new(header, words, starts);
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

/// R-4 (word counts): the start of every instruction; a word count of 0 or one that runs
/// past the end is an error, so the walk after this can slice without checks failing.
fn scan_instructions(words: &[u32]) -> Result<Vec<u32>, ReadError> {
    let mut starts = Vec::with_capacity(words.len() / 4);
    let mut at = HEADER_WORDS;
    while let Some(&first) = words.get(at) {
        let location = Location {
            index: starts.len() as u32,
            byte_offset: (at * 4) as u32,
        };
        let opcode = Some((first & 0xFFFF) as u16);
        let count = (first >> 16) as usize;
        if count == 0 {
            return Err(ReadError::at(
                ErrorKind::WordCount,
                location,
                opcode,
                "word count is 0",
            ));
        }
        if at + count > words.len() {
            return Err(ReadError::at(
                ErrorKind::WordCount,
                location,
                opcode,
                format!(
                    "word count {count} runs past the end of the module ({} words left)",
                    words.len() - at
                ),
            ));
        }
        if starts.len() == MAX_INSTRUCTIONS {
            return Err(ReadError::at(
                ErrorKind::Limit,
                location,
                opcode,
                format!("more than {MAX_INSTRUCTIONS} instructions (limits::MAX_INSTRUCTIONS)"),
            ));
        }
        // `at` < words.len() ≤ MAX_WORDS < 2^32, checked in `check_header`.
        starts.push(at as u32);
        at += count;
    }
    Ok(starts)
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
    /// Ids referenced before their definition where SPIR-V §2.4 allows it; each must be
    /// defined by the end of the module.
    pending: Vec<(u32, Site)>,
    /// The logical-layout section reached so far (R-9, SPIR-V §2.4).
    section: Section,
    /// Whether a function with blocks has been read (declarations must come first).
    seen_definition: bool,
    /// Merge blocks announced in the open function and not reached yet, for the nesting
    /// limit (SPIR-V §2.17).
    open_merges: Vec<u32>,
}

/// The sections of the logical layout (SPIR-V §2.4, spirv.md §1.5), in order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Section {
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

/// Where forward references are allowed among an instruction's id operands (SPIR-V §2.4,
/// spirv.md §1.5 "Forward references").
#[derive(Clone, Copy, PartialEq, Eq)]
enum Forward {
    /// Every id operand must already be defined.
    Never,
    /// Any id operand may be defined later.
    Any,
    /// Only the first id operand must already be defined (the condition of
    /// OpBranchConditional, the selector of OpSwitch).
    AfterFirst,
    /// Only the first id operand may be defined later (the callee of OpFunctionCall).
    FirstOnly,
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
    pending: &'r mut Vec<(u32, Site)>,
    warnings: &'r mut Vec<Warning>,
}

impl CheckIds<'_> {
    fn in_bound(&self, id: u32) -> Result<(), Problem> {
        if id == 0 || id >= self.bound {
            return Err(Problem::new(
                ErrorKind::Id,
                format!("id {id} is not in 1..{} (the header bound)", self.bound),
            ));
        }
        Ok(())
    }

    /// Whether `id` has been defined, or declared by OpTypeForwardPointer.
    fn declared(&self, id: u32) -> bool {
        self.ids
            .get(id as usize)
            .is_some_and(|s| s.def != NONE || s.ty != NONE)
    }
}

impl Visit<'_> for CheckIds<'_> {
    fn operand(&mut self, operand: Operand<'_>) -> Result<(), Problem> {
        match operand {
            Operand::ResultType(id) => {
                self.in_bound(id)?;
                if !self.declared(id) {
                    return Err(Problem::new(
                        ErrorKind::ForwardReference,
                        format!("result type %{id} is not defined before its use"),
                    ));
                }
            }
            Operand::Result(id) => self.in_bound(id)?,
            Operand::Id(id) => {
                self.in_bound(id)?;
                let position = self.id_operands;
                self.id_operands += 1;
                if self.declared(id) {
                    return Ok(());
                }
                let allowed = match self.forward {
                    Forward::Never => false,
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
                self.pending.push((id, self.at));
            }
            _ => {}
        }
        Ok(())
    }

    fn string(&mut self, _text: &str) -> Result<(), Problem> {
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
    fn new(header: Header, words: Vec<u32>, starts: Vec<u32>) -> Self {
        Reader {
            module: Module {
                header,
                words,
                starts,
                ids: Vec::new(),
                strings: String::new(),
                names: Vec::new(),
                member_names: Vec::new(),
                decorations: Vec::new(),
                types: Vec::new(),
                constants: Vec::new(),
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
            pending: Vec::new(),
            section: Section::Capabilities,
            seen_definition: false,
            open_merges: Vec::new(),
        }
    }

    fn walk(&mut self) -> Result<(), ReadError> {
        // The words are moved out for the walk so that the tables can be filled while
        // instruction slices are borrowed; they are put back before the module is returned.
        let words = std::mem::take(&mut self.module.words);
        for index in 0..self.module.starts.len() {
            self.instruction(&words, index as u32)?;
        }
        self.module.words = words;
        Ok(())
    }

    /// One instruction: id checks, then what its opcode adds to the tables.
    fn instruction(&mut self, module_words: &[u32], index: u32) -> Result<(), ReadError> {
        let start = self
            .module
            .starts
            .get(index as usize)
            .map_or(0, |&s| s as usize);
        let first = module_words.get(start).copied().unwrap_or(0);
        let count = (first >> 16) as usize;
        let opcode = (first & 0xFFFF) as u16;
        let at = Site {
            location: Location {
                index,
                byte_offset: (start * 4) as u32,
            },
            opcode,
        };
        // `scan_instructions` checked that [start, start + count) lies inside `words`.
        let range = start..start + count;
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
        let words = module_words.get(range.clone()).unwrap_or(&[]);
        self.layout(at, op)?;
        let ctx = self.context(module_words, at, op, words)?;
        let bound = self.module.header.bound;
        let forward = self.forward_policy(op, words);
        let mut check = CheckIds {
            bound,
            ids: &self.module.ids,
            forward,
            id_operands: 0,
            at,
            pending: &mut self.pending,
            warnings: &mut self.module.warnings,
        };
        operands::walk(words, grammar, ctx, &mut self.bytes, &mut check)
            .map_err(|p| at.err(p.kind, p.message))?;

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
        self.record(at, op, words, range.start, result_type, result)
    }

    /// the instruction belongs where it is in the logical layout (SPIR-V §2.4).
    fn layout(&mut self, at: Site, op: Op) -> Result<(), ReadError> {
        let in_function = self.open.is_some();
        // Instructions allowed both at module scope (types section) and in functions.
        let anywhere = matches!(
            op,
            Op::Line
                | Op::NoLine
                | Op::Nop
                | Op::ExtInst
                | Op::ExtInstWithForwardRefsKHR
                | Op::Undef
                | Op::Variable
                | Op::UntypedVariableKHR
        );
        let Some(section) = module_section(op) else {
            // A function-body instruction (or OpFunction*, OpLabel, handled by R-11).
            if op == Op::Function {
                self.section = Section::Functions;
            } else if !in_function && !anywhere {
                return Err(at.err(ErrorKind::Layout, "an instruction outside any function"));
            }
            if anywhere && !in_function {
                return self.module_scope_anywhere(at, op);
            }
            return Ok(());
        };
        if in_function {
            return Err(at.err(
                ErrorKind::Layout,
                "a module-level instruction inside a function",
            ));
        }
        if section < self.section {
            return Err(at.err(
                ErrorKind::Layout,
                format!(
                    "out of the logical layout order (SPIR-V §2.4): {section:?} after {:?}",
                    self.section
                ),
            ));
        }
        self.section = section;
        Ok(())
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

    /// Where `op` may reference ids defined later (SPIR-V §2.4).
    fn forward_policy(&self, op: Op, words: &[u32]) -> Forward {
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
            Op::ExtInst => {
                // Debug-information sets describe types and scopes that refer to each other
                // (non-semantic sets may reference later ids, SPIR-V 1.6 §2.4).
                let set = words.get(3).copied().unwrap_or(0);
                match self.module.ext_inst_set(Id(set)) {
                    Some(name)
                        if name.starts_with("NonSemantic.") || name.contains("DebugInfo") =>
                    {
                        Forward::Any
                    }
                    _ => Forward::Never,
                }
            }
            _ => Forward::Never,
        }
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
                let name = self
                    .module
                    .strings
                    .get(span.start as usize..span.end as usize);
                let name = name.unwrap_or("").to_owned();
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

    /// Decodes the literal string starting at word `from` of the instruction `words`
    /// into `Module::strings`, returning its span and the index of the word after it.
    fn string(&mut self, at: Site, words: &[u32], from: usize) -> Result<(Span, usize), ReadError> {
        let words = words.get(from..).unwrap_or(&[]);
        let (consumed, result) = decode_string(words, &mut self.bytes);
        result.map_err(|problem| at.err(ErrorKind::String, problem))?;
        let text = std::str::from_utf8(&self.bytes)
            .map_err(|e| at.err(ErrorKind::String, format!("the string is not UTF-8: {e}")))?;
        let begin = self.module.strings.len() as u32;
        self.module.strings.push_str(text);
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
    fn define(&mut self, at: Site, id: u32) -> Result<(), ReadError> {
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
        for &(id, at) in &self.pending {
            let slot = self.module.ids.get(id as usize);
            if slot.is_none_or(|s| s.def == NONE) {
                return Err(at.err(
                    ErrorKind::ForwardReference,
                    format!("%{id} is referenced but never defined"),
                ));
            }
        }
        self.expand_groups();
        let m = &mut self.module;
        // Stable sorts keep module order among equal keys.
        m.decorations.sort_by_key(|d| (d.target, d.member));
        m.member_names.sort_by_key(|&(t, mem, _)| (t, mem));
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

/// The module-level section `op` belongs to, `None` for instructions of function bodies
/// and for those allowed in several places.
fn module_section(op: Op) -> Option<Section> {
    Some(match op {
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
        _ if op_info(op as u16).declares_constant => Section::Globals,
        _ if op_info(op as u16).declares_type => Section::Globals,
        _ => return None,
    })
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
