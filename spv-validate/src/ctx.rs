//! [`Ctx`], the state every check shares: the module, the environment, the declared
//! capabilities (with their implications), every instruction's decoded operands, which
//! function and block defines each id, and the diagnostics found so far.
//!
//! It also holds the small type queries the rules keep asking ("is this an integer
//! vector?", "how many components?"), so that every check answers them the same way.

use spv_reader::spirv::{self, Op};
use spv_reader::{Id, Inst, InstIndex, Module, Type};

use crate::caps::CapabilitySet;
use crate::diag::{Diagnostic, disassemble};
use crate::env::TargetEnv;
use crate::operands::{Operand, decode};

/// Marks an absent index in the dense `u32` tables.
pub(crate) const NONE: u32 = u32::MAX;

/// The shared validation state.
pub(crate) struct Ctx<'m> {
    /// The module being validated.
    pub(crate) m: &'m Module,
    /// The environment, resolved (never [`TargetEnv::ModuleVersion`]).
    pub(crate) env: TargetEnv,
    /// The module's SPIR-V minor version (1.x).
    pub(crate) version: u8,
    /// Declared capabilities and everything they implicitly declare.
    pub(crate) caps: CapabilitySet,
    /// Whether `Shader` is declared (directly or implied): structured rules apply.
    pub(crate) shader: bool,
    /// Whether `Kernel` is declared.
    pub(crate) kernel: bool,
    /// Raw addressing model and memory model of `OpMemoryModel` (0, 0 when missing).
    pub(crate) addressing: u32,
    /// Raw memory model.
    pub(crate) memory_model: u32,
    /// Every instruction's operands, back to back; instruction `i` owns
    /// `operands[op_start[i]..op_start[i + 1]]`.
    operands: Vec<Operand>,
    op_start: Vec<u32>,
    /// Whether instruction `i` decoded cleanly (its operands can be trusted).
    pub(crate) decoded: Vec<bool>,
    /// For each id defined inside a function: the function's index in `m.functions()`.
    pub(crate) id_func: Vec<u32>,
    /// For each id defined inside a block: the block's index in its function.
    pub(crate) id_block: Vec<u32>,
    /// For each instruction inside a function: the function's index, else [`NONE`].
    pub(crate) inst_func: Vec<u32>,
    /// The opcode of every instruction, decoded once (`None` for opcodes the grammar lacks).
    ops: Vec<Option<Op>>,
    /// The opcode of the instruction defining each id (indexed by id).
    def_ops: Vec<Option<Op>>,
    /// Function result id → index in `m.functions()`.
    functions: std::collections::HashMap<u32, usize>,
    /// The diagnostics found so far.
    pub(crate) diags: Vec<Diagnostic>,
}

impl<'m> Ctx<'m> {
    /// Builds the shared state: decodes every instruction (failures become diagnostics
    /// later, in the operand check) and indexes where ids are defined.
    pub(crate) fn new(m: &'m Module, env: TargetEnv) -> Self {
        let version = m.header().version.1;
        let caps = CapabilitySet::new(m.capabilities());
        let shader = caps.has(spirv::Capability::Shader);
        let kernel = caps.has(spirv::Capability::Kernel);
        let (addressing, memory_model) = m.memory_model().unwrap_or((0, 0));
        let n = m.instruction_count();
        let mut operands = Vec::with_capacity(n * 4);
        let mut op_start = Vec::with_capacity(n + 1);
        let mut decoded = Vec::with_capacity(n);
        let mut scratch = Vec::new();
        let mut ops = Vec::with_capacity(n);
        let mut def_ops: Vec<Option<Op>> = Vec::new();
        for inst in m.instructions() {
            let op = inst.opcode();
            ops.push(op);
            if let Some(r) = inst.result_id() {
                let i = r.0 as usize;
                if i >= def_ops.len() {
                    def_ops.resize(i + 1, None);
                }
                if let Some(slot) = def_ops.get_mut(i) {
                    *slot = op;
                }
            }
            op_start.push(operands.len() as u32);
            let ok = decode(inst, &mut scratch).is_ok();
            if ok {
                operands.extend_from_slice(&scratch);
            }
            decoded.push(ok);
        }
        op_start.push(operands.len() as u32);

        let bound = m.header().bound as usize;
        let mut id_func = Vec::new();
        let mut id_block = Vec::new();
        let mut inst_func = vec![NONE; n];
        for (fi, f) in m.functions().iter().enumerate() {
            let end = (f.end.0 as usize).min(n.saturating_sub(1));
            if let Some(slots) = inst_func.get_mut(f.def.0 as usize..=end) {
                slots.fill(fi as u32);
            }
            let mut set = |id: Id, block: u32| {
                let i = id.0 as usize;
                if i < bound {
                    if i >= id_func.len() {
                        id_func.resize(i + 1, NONE);
                        id_block.resize(i + 1, NONE);
                    }
                    // Resized just above to hold index `i`.
                    if let (Some(func), Some(blk)) = (id_func.get_mut(i), id_block.get_mut(i)) {
                        *func = fi as u32;
                        *blk = block;
                    }
                }
            };
            set(f.id, NONE);
            for &p in &f.params {
                set(p, NONE);
            }
            for (bi, b) in f.blocks.iter().enumerate() {
                for inst in m.instructions_in(b.label_inst.0..b.terminator.0 + 1) {
                    if let Some(r) = inst.result_id() {
                        set(r, bi as u32);
                    }
                }
            }
        }
        // The function's own id is module-wide (it may be called from anywhere).
        for f in m.functions() {
            if let Some(slot) = id_func.get_mut(f.id.0 as usize) {
                *slot = NONE;
            }
        }

        Ctx {
            m,
            env,
            version,
            caps,
            shader,
            kernel,
            addressing,
            memory_model,
            operands,
            op_start,
            decoded,
            id_func,
            id_block,
            inst_func,
            ops,
            def_ops,
            functions: m
                .functions()
                .iter()
                .enumerate()
                .map(|(i, f)| (f.id.0, i))
                .collect(),
            diags: Vec::new(),
        }
    }

    /// The decoded operands of instruction `i` (empty when it did not decode).
    pub(crate) fn operands(&self, i: InstIndex) -> &[Operand] {
        let s = self.op_start.get(i.0 as usize).copied().unwrap_or(0) as usize;
        let e = self.op_start.get(i.0 as usize + 1).copied().unwrap_or(0) as usize;
        self.operands.get(s..e).unwrap_or(&[])
    }

    /// The `<id>` operands of instruction `inst` that refer to other definitions (every id
    /// but the Result), with their kinds and word positions.
    pub(crate) fn id_refs<'a>(
        &'a self,
        inst: Inst<'a>,
    ) -> impl Iterator<Item = (Operand, Id)> + 'a {
        let words = inst.words();
        self.operands(inst.index())
            .iter()
            .filter(|o| o.kind.is_ref())
            .filter_map(move |o| words.get(usize::from(o.word)).map(|&w| (*o, Id(w))))
    }

    /// Records a diagnostic about instruction `at` (or the whole module when `None`).
    pub(crate) fn report(
        &mut self,
        rule: &'static str,
        at: Option<InstIndex>,
        ids: Vec<Id>,
        message: impl Into<String>,
    ) {
        let inst = at.and_then(|i| self.m.inst(i));
        self.diags.push(Diagnostic {
            rule,
            location: inst.map(|i| i.location()),
            message: message.into(),
            ids,
            disassembly: inst.map(disassemble),
        });
    }

    /// Shorthand for [`Ctx::report`] about one instruction.
    pub(crate) fn err(
        &mut self,
        rule: &'static str,
        at: InstIndex,
        ids: &[Id],
        message: impl Into<String>,
    ) {
        self.report(rule, Some(at), ids.to_vec(), message);
    }

    /// The function whose `OpFunction` result is `id`, with its index.
    pub(crate) fn function(&self, id: Id) -> Option<(usize, &'m spv_reader::Function)> {
        let i = *self.functions.get(&id.0)?;
        self.m.functions().get(i).map(|f| (i, f))
    }

    /// Whether a capability is declared (directly or implicitly).
    pub(crate) fn has_cap(&self, cap: spirv::Capability) -> bool {
        self.caps.has(cap)
    }

    /// Whether `OpExtension name` is declared.
    pub(crate) fn has_ext(&self, name: &str) -> bool {
        self.m.extensions().any(|e| e == name)
    }

    /// Whether the module version is at least 1.`minor`.
    pub(crate) fn at_least(&self, minor: u8) -> bool {
        self.version >= minor
    }

    // ---- type queries -------------------------------------------------------------------

    /// The type declared by `id`.
    pub(crate) fn ty(&self, id: Id) -> Option<&'m Type> {
        self.m.ty(id)
    }

    /// The Result Type of the instruction defining value `id`.
    pub(crate) fn type_of(&self, id: Id) -> Option<Id> {
        self.m.result_type(id)
    }

    /// The opcode of the instruction defining `id`.
    pub(crate) fn def_op(&self, id: Id) -> Option<Op> {
        self.def_ops.get(id.0 as usize).copied().flatten()
    }

    /// The constant decorated `BuiltIn WorkgroupSize`, if any (SPIR-V §3.2.20).
    pub(crate) fn workgroup_size_constant(&self) -> Option<Id> {
        let builtin = spv_reader::spirv::Decoration::BuiltIn as u32;
        let size = spv_reader::spirv::BuiltIn::WorkgroupSize as u32;
        self.m
            .instructions()
            .filter(|inst| self.op_of(*inst) == Some(Op::Decorate))
            .filter_map(|inst| match inst.words() {
                [_, target, d, b] if *d == builtin && *b == size => Some(Id(*target)),
                _ => None,
            })
            .find(|&id| self.m.constant(id).is_some())
    }

    /// The opcode of instruction `inst` (cached; `None` when the grammar lacks it).
    pub(crate) fn op_of(&self, inst: Inst<'_>) -> Option<Op> {
        self.ops.get(inst.index().0 as usize).copied().flatten()
    }

    /// For a scalar or vector type: (scalar type id, component count).
    pub(crate) fn scalar_and_count(&self, ty: Id) -> Option<(Id, u32)> {
        match self.ty(ty)? {
            Type::Vector { component, count } => Some((*component, *count)),
            Type::Bool | Type::Int { .. } | Type::Float { .. } => Some((ty, 1)),
            _ => None,
        }
    }

    /// Whether `ty` is a float scalar or vector.
    pub(crate) fn is_float(&self, ty: Id) -> bool {
        self.scalar_and_count(ty)
            .is_some_and(|(s, _)| matches!(self.ty(s), Some(Type::Float { .. })))
    }

    /// Whether `ty` is a scalar (bool, int or float).
    pub(crate) fn is_scalar(&self, ty: Id) -> bool {
        matches!(
            self.ty(ty),
            Some(Type::Bool | Type::Int { .. } | Type::Float { .. })
        )
    }

    /// Whether `ty` is an integer scalar.
    pub(crate) fn is_int_scalar(&self, ty: Id) -> bool {
        matches!(self.ty(ty), Some(Type::Int { .. }))
    }

    /// Whether `ty` is a bool scalar.
    pub(crate) fn is_bool_scalar(&self, ty: Id) -> bool {
        matches!(self.ty(ty), Some(Type::Bool))
    }

    /// The bit width of a numeric scalar or of a vector's components.
    pub(crate) fn width(&self, ty: Id) -> Option<u32> {
        let (s, _) = self.scalar_and_count(ty)?;
        match self.ty(s)? {
            Type::Int { width, .. } | Type::Float { width } => Some(*width),
            _ => None,
        }
    }

    /// (storage class, pointee) of a pointer type.
    pub(crate) fn pointer(&self, ty: Id) -> Option<(u32, Id)> {
        match self.ty(ty)? {
            Type::Pointer {
                storage_class,
                pointee,
            } => Some((*storage_class, *pointee)),
            _ => None,
        }
    }

    /// Whether `ty` is a pointer type (typed or untyped).
    pub(crate) fn is_pointer(&self, ty: Id) -> bool {
        matches!(
            self.ty(ty),
            Some(Type::Pointer { .. } | Type::UntypedPointer { .. })
        )
    }

    /// The value of an integer constant (a specialization constant gives its default),
    /// masked to the constant's width.
    pub(crate) fn const_scalar(&self, id: Id) -> Option<u64> {
        match self.m.constant(id)? {
            spv_reader::Constant::Scalar { bits, ty, .. } if self.is_int_scalar(*ty) => {
                let width = self.width(*ty).unwrap_or(64);
                Some(if width >= 64 {
                    *bits
                } else {
                    bits & ((1u64 << width) - 1)
                })
            }
            _ => None,
        }
    }

    /// Whether `ty` is or contains (through arrays, structs, matrices and vectors) a type
    /// satisfying `pred`. Each type is visited once, so types that share members (a struct of
    /// two copies of a struct of two copies ...) cost their size, not their unfolded size; at
    /// most [`crate::limits::MAX_TYPE_DEPTH`] levels are followed.
    pub(crate) fn contains(&self, ty: Id, pred: &dyn Fn(&Type) -> bool) -> bool {
        let mut visited: std::collections::HashSet<u32> = std::collections::HashSet::new();
        let mut stack: Vec<(Id, usize)> = vec![(ty, 0)];
        while let Some((ty, depth)) = stack.pop() {
            if depth > crate::limits::MAX_TYPE_DEPTH || !visited.insert(ty.0) {
                continue;
            }
            let Some(t) = self.ty(ty) else { continue };
            if pred(t) {
                return true;
            }
            match t {
                Type::Array { element, .. } | Type::RuntimeArray { element } => {
                    stack.push((*element, depth + 1));
                }
                Type::Struct { members } => {
                    stack.extend(members.iter().map(|&m| (m, depth + 1)));
                }
                Type::Matrix { column, .. } => stack.push((*column, depth + 1)),
                Type::Vector { component, .. } => stack.push((*component, depth + 1)),
                _ => {}
            }
        }
        false
    }

    /// The block index holding the definition of value `id` inside function `func`, if the
    /// id is defined in a block of that function.
    pub(crate) fn def_block(&self, id: Id) -> Option<(u32, u32)> {
        let f = *self.id_func.get(id.0 as usize)?;
        let b = *self.id_block.get(id.0 as usize)?;
        (f != NONE && b != NONE).then_some((f, b))
    }
}
