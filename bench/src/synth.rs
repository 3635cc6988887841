//! Synthetic compute modules of growing size, for measuring how cost grows with input.
//!
//! Four shapes stress different parts of the pipeline (SPIR-V §2.11 structured control flow):
//! - [`Shape::ManyFunctions`]: many small functions, each with one selection, called in a chain
//!   from the entry point (per-function work, call handling);
//! - [`Shape::HugeFunction`]: one entry function made of a long chain of if/else diamonds joined
//!   by `OpPhi` (dominators, region tree and lowering on thousands of blocks);
//! - [`Shape::DeepNesting`]: selections and loops nested inside each other, alternating (depth
//!   of the region tree, construct containment in the validator);
//! - [`Shape::LongSwitch`]: one `OpSwitch` with many cases, every fourth of which falls through
//!   into the next (switch lowering, a merge block with many predecessors).
//!
//! Every module is the same compute shader around the shape: it loads `data[gid.x]` from a
//! storage buffer, transforms the value through the shape and stores it back. Scale `s`
//! multiplies the shape's size parameter (functions, diamonds, nesting levels, cases) by `s`, so
//! the module grows about linearly with `s`. spirv-val 2025.5 accepts all of them (checked with
//! `cargo run --release --bin synth -- DIR` and `spirv-val --target-env vulkan1.1 DIR/*.spv`).

use rspirv::binary::Assemble;
use rspirv::dr::{self, Builder, Operand};
use rspirv::spirv::{self, Word};
use std::collections::BTreeMap;

/// The kinds of synthetic module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Many small functions called in a chain.
    ManyFunctions,
    /// One function of many if/else diamonds.
    HugeFunction,
    /// Selections and loops nested deeply.
    DeepNesting,
    /// One switch with many cases.
    LongSwitch,
}

/// Every shape, in report order.
pub const SHAPES: [Shape; 4] = [
    Shape::ManyFunctions,
    Shape::HugeFunction,
    Shape::DeepNesting,
    Shape::LongSwitch,
];

/// The scales every shape is built at.
pub const SCALES: [u32; 4] = [1, 4, 16, 64];

impl Shape {
    /// A short name for benchmark ids and file names.
    pub fn name(self) -> &'static str {
        match self {
            Shape::ManyFunctions => "many_functions",
            Shape::HugeFunction => "huge_function",
            Shape::DeepNesting => "deep_nesting",
            Shape::LongSwitch => "long_switch",
        }
    }

    /// The size parameter at scale 1: functions, diamonds, nesting levels or cases.
    ///
    /// Deep nesting starts at 1 level so that scale 64 (64 levels, half of them loops) stays
    /// inside spv-cfg's `MAX_REGION_DEPTH` (192 region-tree levels; 128 levels of this shape
    /// exceed it). Many functions and the huge function start small enough that scale 64 still
    /// translates: the lowering gives every value its own temporary and IL has 4096 of them
    /// (about 6 per function and 5 per diamond here, so 512 functions and 768 diamonds).
    pub fn base_size(self) -> u32 {
        match self {
            Shape::ManyFunctions => 8,
            Shape::HugeFunction => 12,
            Shape::DeepNesting => 1,
            Shape::LongSwitch => 16,
        }
    }

    /// What the size parameter counts, for reports.
    pub fn unit(self) -> &'static str {
        match self {
            Shape::ManyFunctions => "functions",
            Shape::HugeFunction => "diamonds",
            Shape::DeepNesting => "levels",
            Shape::LongSwitch => "cases",
        }
    }
}

/// The module of `shape` at `scale`, as little-endian bytes.
pub fn module_bytes(shape: Shape, scale: u32) -> Result<Vec<u8>, dr::Error> {
    let words = module_words(shape, scale)?;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// The module of `shape` at `scale`, as words.
pub fn module_words(shape: Shape, scale: u32) -> Result<Vec<u32>, dr::Error> {
    let size = shape.base_size().saturating_mul(scale);
    let mut module = Gen::new();
    let fn_void = module.b.type_function(module.void, []);
    let fn_uint = module.b.type_function(module.uint, [module.uint]);
    let callees = if shape == Shape::ManyFunctions {
        (0..size)
            .map(|i| module.callee(fn_uint, i))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    let main = module
        .b
        .begin_function(module.void, None, spirv::FunctionControl::NONE, fn_void)?;
    module.block(None)?;
    let gid = module.b.load(module.v3uint, None, module.gid, None, [])?;
    let index = module.b.composite_extract(module.uint, None, gid, [0])?;
    let zero = module.constant(0);
    let pointer = module
        .b
        .access_chain(module.ptr_sb_uint, None, module.data, [zero, index])?;
    let mut x = module.b.load(module.uint, None, pointer, None, [])?;
    match shape {
        Shape::ManyFunctions => {
            for callee in callees {
                x = module.b.function_call(module.uint, None, callee, [x])?;
            }
        }
        Shape::HugeFunction => {
            for i in 0..size {
                x = module.diamond(x, i)?;
            }
        }
        Shape::DeepNesting => x = module.nest(x, 0, size)?,
        Shape::LongSwitch => x = module.switch(x, size)?,
    }
    module.b.store(pointer, x, None, [])?;
    module.b.ret()?;
    module.b.end_function()?;
    module
        .b
        .entry_point(spirv::ExecutionModel::GLCompute, main, "main", [module.gid]);
    module
        .b
        .execution_mode(main, spirv::ExecutionMode::LocalSize, [64, 1, 1]);
    Ok(module.b.module().assemble())
}

/// The builder and the ids every shape uses.
struct Gen {
    b: Builder,
    void: Word,
    boolean: Word,
    uint: Word,
    v3uint: Word,
    ptr_sb_uint: Word,
    /// The storage buffer `data` (a struct holding a runtime array of uint).
    data: Word,
    /// The `GlobalInvocationId` input.
    gid: Word,
    constants: BTreeMap<u32, Word>,
    /// The label of the block being built (phis name their predecessors).
    current: Word,
}

impl Gen {
    /// The module header, types, the buffer and the built-in.
    fn new() -> Gen {
        let mut b = Builder::new();
        // SPIR-V 1.3: the StorageBuffer storage class is core (§3.7), and the entry point's
        // interface lists only Input/Output variables.
        b.set_version(1, 3);
        b.capability(spirv::Capability::Shader);
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let void = b.type_void();
        let boolean = b.type_bool();
        let uint = b.type_int(32, 0);
        let v3uint = b.type_vector(uint, 3);
        let runtime_array = b.type_runtime_array(uint);
        b.decorate(
            runtime_array,
            spirv::Decoration::ArrayStride,
            [Operand::LiteralBit32(4)],
        );
        let block = b.type_struct([runtime_array]);
        b.decorate(block, spirv::Decoration::Block, []);
        b.member_decorate(
            block,
            0,
            spirv::Decoration::Offset,
            [Operand::LiteralBit32(0)],
        );
        let ptr_block = b.type_pointer(None, spirv::StorageClass::StorageBuffer, block);
        let ptr_sb_uint = b.type_pointer(None, spirv::StorageClass::StorageBuffer, uint);
        let data = b.variable(ptr_block, None, spirv::StorageClass::StorageBuffer, None);
        b.decorate(
            data,
            spirv::Decoration::DescriptorSet,
            [Operand::LiteralBit32(0)],
        );
        b.decorate(data, spirv::Decoration::Binding, [Operand::LiteralBit32(0)]);
        let ptr_input_v3 = b.type_pointer(None, spirv::StorageClass::Input, v3uint);
        let gid = b.variable(ptr_input_v3, None, spirv::StorageClass::Input, None);
        b.decorate(
            gid,
            spirv::Decoration::BuiltIn,
            [Operand::BuiltIn(spirv::BuiltIn::GlobalInvocationId)],
        );
        Gen {
            b,
            void,
            boolean,
            uint,
            v3uint,
            ptr_sb_uint,
            data,
            gid,
            constants: BTreeMap::new(),
            current: 0,
        }
    }

    /// The uint constant `value`, declared once.
    fn constant(&mut self, value: u32) -> Word {
        if let Some(id) = self.constants.get(&value) {
            return *id;
        }
        let id = self.b.constant_bit32(self.uint, value);
        self.constants.insert(value, id);
        id
    }

    /// Starts a block (with a preallocated label, or a fresh one) and remembers it.
    fn block(&mut self, label: Option<Word>) -> Result<Word, dr::Error> {
        self.current = self.b.begin_block(label)?;
        Ok(self.current)
    }

    /// `x > k ? x * 3 + k : x ^ k` as a selection with a phi at its merge; returns the phi.
    fn diamond(&mut self, x: Word, i: u32) -> Result<Word, dr::Error> {
        let k = self.constant(i + 1);
        let three = self.constant(3);
        let (then_label, else_label, merge) = (self.b.id(), self.b.id(), self.b.id());
        let cond = self.b.u_greater_than(self.boolean, None, x, k)?;
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)?;
        self.b
            .branch_conditional(cond, then_label, else_label, [])?;
        self.block(Some(then_label))?;
        let product = self.b.i_mul(self.uint, None, x, three)?;
        let then_value = self.b.i_add(self.uint, None, product, k)?;
        self.b.branch(merge)?;
        self.block(Some(else_label))?;
        let else_value = self.b.bitwise_xor(self.uint, None, x, k)?;
        self.b.branch(merge)?;
        self.block(Some(merge))?;
        self.b.phi(
            self.uint,
            None,
            [(then_value, then_label), (else_value, else_label)],
        )
    }

    /// Function `i` of the many-functions shape: one diamond on its parameter.
    fn callee(&mut self, fn_uint: Word, i: u32) -> Result<Word, dr::Error> {
        let function =
            self.b
                .begin_function(self.uint, None, spirv::FunctionControl::NONE, fn_uint)?;
        let parameter = self.b.function_parameter(self.uint)?;
        self.block(None)?;
        let result = self.diamond(parameter, i)?;
        self.b.ret_value(result)?;
        self.b.end_function()?;
        Ok(function)
    }

    /// Levels `level..depth` of the nesting shape around `x`: even levels are selections
    /// (`if (x > k) x = inner(diamond(x + k))`), odd levels two-trip loops
    /// (`for i < 2: x = inner(diamond(x)) + k`), so every level also holds some straight work.
    /// Returns the value after the construct; the current block is its merge block.
    fn nest(&mut self, x: Word, level: u32, depth: u32) -> Result<Word, dr::Error> {
        if level == depth {
            let three = self.constant(3);
            return self.b.i_mul(self.uint, None, x, three);
        }
        let k = self.constant(level + 1);
        let merge = self.b.id();
        if level.is_multiple_of(2) {
            let then_label = self.b.id();
            let before = self.current;
            let cond = self.b.u_greater_than(self.boolean, None, x, k)?;
            self.b
                .selection_merge(merge, spirv::SelectionControl::NONE)?;
            self.b.branch_conditional(cond, then_label, merge, [])?;
            self.block(Some(then_label))?;
            let added = self.b.i_add(self.uint, None, x, k)?;
            let diamond = self.diamond(added, level)?;
            let inner = self.nest(diamond, level + 1, depth)?;
            let inner_end = self.current;
            self.b.branch(merge)?;
            self.block(Some(merge))?;
            return self
                .b
                .phi(self.uint, None, [(inner, inner_end), (x, before)]);
        }
        let (header, body, continue_target) = (self.b.id(), self.b.id(), self.b.id());
        let (counter_next, x_next) = (self.b.id(), self.b.id());
        let (zero, one, two) = (self.constant(0), self.constant(1), self.constant(2));
        let before = self.current;
        self.b.branch(header)?;
        self.block(Some(header))?;
        let counter = self.b.phi(
            self.uint,
            None,
            [(zero, before), (counter_next, continue_target)],
        )?;
        let x_loop = self
            .b
            .phi(self.uint, None, [(x, before), (x_next, continue_target)])?;
        let cond = self.b.u_less_than(self.boolean, None, counter, two)?;
        self.b
            .loop_merge(merge, continue_target, spirv::LoopControl::NONE, [])?;
        self.b.branch_conditional(cond, body, merge, [])?;
        self.block(Some(body))?;
        let diamond = self.diamond(x_loop, level)?;
        let inner = self.nest(diamond, level + 1, depth)?;
        self.b.branch(continue_target)?;
        self.block(Some(continue_target))?;
        self.b.i_add(self.uint, Some(counter_next), counter, one)?;
        self.b.i_add(self.uint, Some(x_next), inner, k)?;
        self.b.branch(header)?;
        self.block(Some(merge))?;
        Ok(x_loop)
    }

    /// `switch (x)` with `cases` cases (`x * k + k`, every fourth falling through into the next)
    /// and a default (`x ^ 1`); returns the phi at the merge.
    fn switch(&mut self, x: Word, cases: u32) -> Result<Word, dr::Error> {
        let merge = self.b.id();
        let default = self.b.id();
        let labels: Vec<Word> = (0..cases).map(|_| self.b.id()).collect();
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)?;
        let targets = labels
            .iter()
            .enumerate()
            .map(|(i, label)| (Operand::LiteralBit32(i as u32), *label));
        self.b.switch(x, default, targets.collect::<Vec<_>>())?;
        let mut incoming = Vec::new();
        for (i, label) in labels.iter().enumerate() {
            self.block(Some(*label))?;
            let k = self.constant(i as u32 + 1);
            let product = self.b.i_mul(self.uint, None, x, k)?;
            let value = self.b.i_add(self.uint, None, product, k)?;
            // A fall-through must go to the case that follows it (SPIR-V §2.11, case
            // construct ordering); the last case always branches to the merge.
            match labels.get(i + 1) {
                Some(next) if i % 4 == 3 => self.b.branch(*next)?,
                _ => {
                    incoming.push((value, *label));
                    self.b.branch(merge)?;
                }
            }
        }
        self.block(Some(default))?;
        let one = self.constant(1);
        let default_value = self.b.bitwise_xor(self.uint, None, x, one)?;
        incoming.push((default_value, default));
        self.b.branch(merge)?;
        self.block(Some(merge))?;
        self.b.phi(self.uint, None, incoming)
    }
}
