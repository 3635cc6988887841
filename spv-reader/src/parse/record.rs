//! What each instruction adds to the module's tables: capabilities, names, decorations,
//! entry points and modes, types, constants, global variables, and the function and block
//! structure.

use super::ids::ext_set_forward;
use super::{OpenFunction, Reader, Site};
use crate::error::{ErrorKind, ReadError};
use crate::grammar::op_info;
use crate::limits::MAX_NESTING_DEPTH;
use crate::module::{CONSTANT, DecorationRecord, ExtImport, NONE, Span};
use crate::operands::decode_string;
use crate::spare::id_list;
use crate::spirv::Op;
use crate::types::{Block, Constant, EntryPoint, ExecutionMode, Function, GlobalVariable, Type};
use crate::{Id, InstIndex};

impl Reader {
    /// Adds what the instruction declares to the module's tables.
    pub(super) fn record(
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
                self.module.tables.push_capability(cap);
            }
            Op::Extension => {
                let span = self.string(at, words, 1)?.0;
                self.module.extensions.push(span);
            }
            Op::ExtInstImport => {
                let span = self.string(at, words, 2)?.0;
                self.import_set(result.unwrap_or(0), span);
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
                let interface = self.ids_in(at, words, after)?;
                self.entry_point(index, execution_model, function, span, interface);
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
                if self.unnamed(target) {
                    self.keep_name(target, span);
                }
            }
            Op::MemberName => {
                let target = need(1)?;
                self.check_id(at, target)?;
                let member = need(2)?;
                let span = self.string(at, words, 3)?.0;
                self.module.tables.push_member_name(target, member, span);
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
                self.open_merges.reach(label);
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
            _ => self.record_declaration(at, op, words, result_type, result)?,
        }
        Ok(())
    }

    /// Records the extended-instruction set imported as `id`, named by `span`.
    pub(super) fn import_set(&mut self, id: u32, span: Span) {
        let name = self
            .module
            .strings
            .get(span.start as usize..span.end as usize);
        let name = std::str::from_utf8(name.unwrap_or(&[])).unwrap_or("");
        let ids_only = crate::grammar::ext_ids_only(name);
        let forward = ext_set_forward(name);
        self.module.ext_inst_imports.push(ExtImport {
            id,
            span,
            ids_only,
            forward,
            known_name: crate::grammar::known_set_name(name),
        });
    }

    /// Records the entry point declared by instruction `index`, named by `span`.
    pub(super) fn entry_point(
        &mut self,
        index: u32,
        execution_model: u32,
        function: u32,
        span: Span,
        interface: Vec<Id>,
    ) {
        let bytes = self
            .module
            .strings
            .get(span.start as usize..span.end as usize);
        // The reader kept only strings it checked to be UTF-8.
        let text = std::str::from_utf8(bytes.unwrap_or(&[])).unwrap_or("");
        // A name the previous module on this thread left, when there is one (see `spare`).
        let mut name = self.module.name_strings.pop().unwrap_or_default();
        name.push_str(text);
        self.module.entry_points.push(EntryPoint {
            inst: InstIndex(index),
            execution_model,
            function: Id(function),
            name,
            interface,
        });
    }

    /// Types, constants, `OpUndef` and the other instructions that [`Reader::record`] does
    /// not name: a type or constant table entry, and R-11's block check.
    #[inline(never)]
    pub(super) fn record_declaration(
        &mut self,
        at: Site,
        op: Op,
        words: &[u32],
        result_type: Option<u32>,
        result: Option<u32>,
    ) -> Result<(), ReadError> {
        if op_info(op as u16).declares_type {
            if let Some(ty) = type_of(op, words, &mut self.module.id_lists) {
                let ty = ty.map_err(|i| at.missing_operand(i))?;
                self.declare_type(at, op, words, result, ty)?;
            }
        } else if let Some(constant) = self.constant_of(at, op, words, result_type)? {
            let id = result.unwrap_or(0);
            let index = self.module.constants.len() as u32;
            self.module.constants.push(constant);
            self.set_value(id, CONSTANT | index);
        }
        if let Some(open) = &self.open
            && open.block.is_none()
        {
            return Err(at.err(
                ErrorKind::Structure,
                "an instruction inside a function but outside a block",
            ));
        }
        Ok(())
    }

    pub(super) fn open_function(
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
                blocks: self.block_list(at),
                def: InstIndex(at.location.index),
                end: InstIndex(at.location.index),
            },
            block: None,
        });
        Ok(())
    }

    /// An empty block list for the function starting at `at`, with room for
    /// [`Reader::block_capacity`] blocks (a kept list when there is one, see `crate::spare`).
    fn block_list(&mut self, at: Site) -> Vec<Block> {
        let capacity = self.block_capacity(at);
        let mut blocks = self.module.block_lists.pop().unwrap_or_default();
        blocks.reserve(capacity);
        blocks
    }

    /// A guess at how many blocks the function starting at `at` has, so that its block list
    /// is allocated once: in the corpus, 99% of modules have fewer than one OpLabel per 24
    /// words (from the function to the end of the module, a function's words are at most
    /// that). Capped so that the first of many functions does not take much more than it
    /// needs.
    fn block_capacity(&self, at: Site) -> usize {
        let start = at.location.byte_offset as usize / 4;
        (self.word_count.saturating_sub(start) / 24).clamp(1, MAX_BLOCK_CAPACITY)
    }

    /// before the first block (or the end of a declaration), the function has one
    /// OpFunctionParameter per parameter of its OpTypeFunction.
    pub(super) fn check_parameter_count(&self, at: Site) -> Result<(), ReadError> {
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

    pub(super) fn open_function_mut(&mut self, at: Site) -> Result<&mut OpenFunction, ReadError> {
        self.open
            .as_mut()
            .ok_or_else(|| at.err(ErrorKind::Structure, "outside a function"))
    }

    pub(super) fn open_block_mut(&mut self, at: Site) -> Result<&mut Block, ReadError> {
        self.open_function_mut(at)?
            .block
            .as_mut()
            .ok_or_else(|| at.err(ErrorKind::Structure, "outside a block"))
    }

    /// Records a type declaration for `result` (or, for OpTypeForwardPointer, its operand).
    pub(super) fn declare_type(
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
        self.set_value(id, index);
        Ok(())
    }

    /// The constant an instruction defines, if it is a constant instruction. Inlined, so that
    /// the shortest path builds the constant where it stores it.
    #[inline(always)]
    pub(super) fn constant_of(
        &mut self,
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
                parts: id_list(&mut self.module.id_lists, rest),
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

    pub(super) fn decorate(
        &mut self,
        inst: u32,
        target: u32,
        member: u32,
        kind: u32,
        from: usize,
        to: usize,
    ) {
        self.module.tables.push_decoration(DecorationRecord {
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
    pub(super) fn ids_in(
        &self,
        at: Site,
        words: &[u32],
        from: usize,
    ) -> Result<Vec<Id>, ReadError> {
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
    pub(super) fn string(
        &mut self,
        at: Site,
        words: &[u32],
        from: usize,
    ) -> Result<(Span, usize), ReadError> {
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
}

/// The most blocks [`Reader::block_capacity`] reserves room for (a sizing choice, not a limit).
const MAX_BLOCK_CAPACITY: usize = 256;

/// The type a type-declaring opcode declares: `None` if `op` declares no type,
/// `Some(Err(i))` if word `i` is missing.
pub(super) fn type_of(
    op: Op,
    words: &[u32],
    lists: &mut Vec<Vec<Id>>,
) -> Option<Result<Type, usize>> {
    op_info(op as u16)
        .declares_type
        .then(|| decode_type(op, words, lists))
}

/// The type the type declaration `op` declares, or `Err(i)` if word `i` is missing. Its id
/// list, if it has one, comes from `lists` when that is not empty (see `crate::spare`).
/// Inlined, so that the shortest path builds the type where it stores it.
#[inline(always)]
pub(super) fn decode_type(op: Op, words: &[u32], lists: &mut Vec<Vec<Id>>) -> Result<Type, usize> {
    let w = |i: usize| words.get(i).copied().ok_or(i);
    let id = |i: usize| w(i).map(Id);
    let mut rest = |i: usize| id_list(lists, words.get(i..).unwrap_or(&[]));
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
}
