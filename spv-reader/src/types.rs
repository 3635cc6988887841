//! The typed tables the reader builds while it reads: [`Type`] for every type declaration,
//! [`Constant`] for every constant, specialization constant and `OpUndef`, and the
//! module-level records ([`EntryPoint`], [`ExecutionMode`], [`GlobalVariable`],
//! [`Function`], [`Block`], [`Decoration`], [`Warning`]).

use std::fmt;

use crate::spirv;
use crate::{Id, InstIndex, Location};

/// A type declaration (SPIR-V §3.3.6 / §2.16), decoded from its `OpType*` instruction.
///
/// Enumerant operands (storage classes, dimensions, ...) are kept raw, as `u32`, so that values
/// newer than this crate's grammar survive; the `spirv` enums decode them on demand.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Type {
    /// `OpTypeVoid`.
    Void,
    /// `OpTypeBool`.
    Bool,
    /// `OpTypeInt`.
    Int {
        /// Width in bits.
        width: u32,
        /// Signedness 1 (the literal is kept as "non-zero").
        signed: bool,
    },
    /// `OpTypeFloat` (an optional FP Encoding operand, SPIR-V 1.6 r3, stays on the defining
    /// instruction; absent means IEEE 754).
    Float {
        /// Width in bits.
        width: u32,
    },
    /// `OpTypeVector`.
    Vector {
        /// Component type.
        component: Id,
        /// Component count.
        count: u32,
    },
    /// `OpTypeMatrix`.
    Matrix {
        /// Column type (a vector type).
        column: Id,
        /// Column count.
        count: u32,
    },
    /// `OpTypeArray`; the length is the id of a constant.
    Array {
        /// Element type.
        element: Id,
        /// Id of the (possibly specialization) constant giving the length.
        length: Id,
    },
    /// `OpTypeRuntimeArray`.
    RuntimeArray {
        /// Element type.
        element: Id,
    },
    /// `OpTypeStruct`.
    Struct {
        /// Member types, in member order.
        members: Vec<Id>,
    },
    /// `OpTypePointer`.
    Pointer {
        /// Raw storage class (`spirv::StorageClass`).
        storage_class: u32,
        /// Pointee type (may be a forward reference declared by `OpTypeForwardPointer`).
        pointee: Id,
    },
    /// `OpTypeUntypedPointerKHR` (SPV_KHR_untyped_pointers).
    UntypedPointer {
        /// Raw storage class.
        storage_class: u32,
    },
    /// An id declared by `OpTypeForwardPointer` whose `OpTypePointer` has not been read (it
    /// replaces this entry when it is). Seen only in modules where the pointer never follows.
    ForwardPointer {
        /// Raw storage class announced by the forward declaration.
        storage_class: u32,
    },
    /// `OpTypeFunction`.
    Function {
        /// Return type.
        ret: Id,
        /// Parameter types.
        params: Vec<Id>,
    },
    /// `OpTypeImage`, every operand.
    Image {
        /// Sampled Type.
        sampled_type: Id,
        /// Raw `spirv::Dim`.
        dim: u32,
        /// Depth: 0 no depth, 1 depth, 2 unknown.
        depth: u32,
        /// Arrayed: 0 or 1.
        arrayed: u32,
        /// MS: 0 single-sampled, 1 multisampled.
        multisampled: u32,
        /// Sampled: 0 run-time, 1 with sampler, 2 without sampler (storage image).
        sampled: u32,
        /// Raw `spirv::ImageFormat`.
        format: u32,
        /// Optional raw `spirv::AccessQualifier`.
        access: Option<u32>,
    },
    /// `OpTypeSampler`.
    Sampler,
    /// `OpTypeSampledImage`.
    SampledImage {
        /// The image type.
        image: Id,
    },
    /// Any other type-declaring opcode (opaque, event, pipe, acceleration structure, ray
    /// query, cooperative matrix, ...); its operands are on the defining instruction.
    Other {
        /// Raw opcode of the declaration.
        opcode: u16,
    },
}

/// A constant, specialization constant or `OpUndef` (SPIR-V §3.3.7).
///
/// `OpUndef` is included (as [`Constant::Undef`]) wherever it appears, module scope or
/// function body, because lowering treats it like a constant without a value.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Constant {
    /// `OpConstantTrue`/`False` and `OpSpecConstantTrue`/`False` (`spec` set).
    Bool {
        /// Result type.
        ty: Id,
        /// The (default) value.
        value: bool,
        /// Whether it is a specialization constant.
        spec: bool,
    },
    /// `OpConstant`/`OpSpecConstant` of an integer or float type up to 64 bits: the literal
    /// words, low word first, as the raw bit pattern (sub-32-bit signed values sign-extended
    /// to 32 bits as in the module, SPIR-V §2.2.1).
    Scalar {
        /// Result type.
        ty: Id,
        /// Bit pattern.
        bits: u64,
        /// Whether it is a specialization constant.
        spec: bool,
    },
    /// `OpConstantComposite`/`OpSpecConstantComposite` (and the `CompositeReplicate` forms
    /// with their one part).
    Composite {
        /// Result type.
        ty: Id,
        /// Constituents.
        parts: Vec<Id>,
        /// Whether it is a specialization constant.
        spec: bool,
    },
    /// `OpConstantNull`.
    Null {
        /// Result type.
        ty: Id,
    },
    /// `OpSpecConstantOp`: the embedded opcode and its operand words (ids and literals as in
    /// the module, after the literal opcode).
    SpecOp {
        /// Result type.
        ty: Id,
        /// The embedded opcode.
        opcode: u16,
        /// Operand words of the embedded operation.
        operands: Vec<u32>,
    },
    /// `OpConstantSampler`.
    Sampler {
        /// Result type.
        ty: Id,
        /// Raw `spirv::SamplerAddressingMode`.
        addressing: u32,
        /// Normalized coordinates (the literal is non-zero).
        normalized: bool,
        /// Raw `spirv::SamplerFilterMode`.
        filter: u32,
    },
    /// `OpUndef`.
    Undef {
        /// Result type.
        ty: Id,
    },
}

impl Constant {
    /// The result type of the constant.
    pub fn ty(&self) -> Id {
        match self {
            Constant::Bool { ty, .. }
            | Constant::Scalar { ty, .. }
            | Constant::Composite { ty, .. }
            | Constant::Null { ty }
            | Constant::SpecOp { ty, .. }
            | Constant::Sampler { ty, .. }
            | Constant::Undef { ty } => *ty,
        }
    }

    /// Whether the value can change at pipeline creation (a specialization constant).
    pub fn is_spec(&self) -> bool {
        match self {
            Constant::Bool { spec, .. }
            | Constant::Scalar { spec, .. }
            | Constant::Composite { spec, .. } => *spec,
            Constant::SpecOp { .. } => true,
            Constant::Null { .. } | Constant::Sampler { .. } | Constant::Undef { .. } => false,
        }
    }
}

/// One decoration applied to an id or to a struct member, from `OpDecorate`,
/// `OpDecorateId`, `OpDecorateString`, `OpMemberDecorate`, `OpMemberDecorateString`, or
/// through a decoration group (`OpGroupDecorate`/`OpGroupMemberDecorate`, whose decorations
/// point at the group's own decorating instruction).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Decoration<'m> {
    /// The decorating instruction.
    pub inst: InstIndex,
    /// Raw decoration (`spirv::Decoration`).
    pub kind: u32,
    /// The words after the decoration enumerant (literals, ids or string words).
    pub operands: &'m [u32],
}

impl Decoration<'_> {
    /// The decoration as an enum, when this crate's grammar knows it.
    pub fn decoration(&self) -> Option<spirv::Decoration> {
        crate::enumerants::decoration_from_u32(self.kind)
    }
}

/// An `OpEntryPoint`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EntryPoint {
    /// The declaring instruction.
    pub inst: InstIndex,
    /// Raw execution model.
    pub execution_model: u32,
    /// The entry function.
    pub function: Id,
    /// The entry point's name.
    pub name: String,
    /// The interface ids.
    pub interface: Vec<Id>,
}

impl EntryPoint {
    /// The execution model as an enum, when this crate's grammar knows it.
    pub fn model(&self) -> Option<spirv::ExecutionModel> {
        spirv::ExecutionModel::from_u32(self.execution_model)
    }
}

/// An `OpExecutionMode` or `OpExecutionModeId`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ExecutionMode {
    /// The declaring instruction.
    pub inst: InstIndex,
    /// The entry point function the mode applies to.
    pub target: Id,
    /// Raw execution mode.
    pub mode: u32,
    /// The operand words after the mode (literals for `OpExecutionMode`, ids for
    /// `OpExecutionModeId`).
    pub operands: Vec<u32>,
    /// Whether it was `OpExecutionModeId` (operands are ids).
    pub is_id: bool,
}

impl ExecutionMode {
    /// The execution mode as an enum, when this crate's grammar knows it.
    pub fn execution_mode(&self) -> Option<spirv::ExecutionMode> {
        spirv::ExecutionMode::from_u32(self.mode)
    }
}

/// A module-scope `OpVariable` or `OpUntypedVariableKHR`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GlobalVariable {
    /// The declaring instruction.
    pub inst: InstIndex,
    /// The variable's result id.
    pub id: Id,
    /// Its result type (a pointer type).
    pub ty: Id,
    /// Raw storage class.
    pub storage_class: u32,
    /// The optional initializer.
    pub initializer: Option<Id>,
    /// For `OpUntypedVariableKHR`, the optional Data Type operand.
    pub data_type: Option<Id>,
}

/// A function: `OpFunction`, its parameters and blocks, up to `OpFunctionEnd`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Function {
    /// Result id of `OpFunction`.
    pub id: Id,
    /// Return type.
    pub result_type: Id,
    /// The `OpTypeFunction`.
    pub function_type: Id,
    /// Raw function-control mask.
    pub control: u32,
    /// Result ids of the `OpFunctionParameter`s, in order.
    pub params: Vec<Id>,
    /// Blocks in module order; empty for a declaration.
    pub blocks: Vec<Block>,
    /// The `OpFunction` instruction.
    pub def: InstIndex,
    /// The `OpFunctionEnd` instruction.
    pub end: InstIndex,
}

/// A basic block. Its instructions are `first .. merge.unwrap_or(terminator)` in module
/// order (OpPhi, OpLine, OpNoLine included); the merge instruction and the terminator follow.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Block {
    /// The block's label id.
    pub label: Id,
    /// The `OpLabel` instruction.
    pub label_inst: InstIndex,
    /// The first instruction after `OpLabel` (equal to `merge`/`terminator` for an empty
    /// body).
    pub first: InstIndex,
    /// `OpSelectionMerge` or `OpLoopMerge`, when the block has one.
    pub merge: Option<InstIndex>,
    /// The block's terminator.
    pub terminator: InstIndex,
}

impl Block {
    /// The instructions of the block body: from `first` up to (not including) the merge
    /// instruction or, without one, the terminator.
    pub fn body(&self) -> std::ops::Range<u32> {
        self.first.0..self.merge.unwrap_or(self.terminator).0
    }
}

/// Something the reader tolerated and kept raw: an unknown opcode or enumerant, an
/// extended-instruction set it cannot decode, ... .
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Warning {
    /// The instruction concerned.
    pub location: Location,
    /// Its raw opcode.
    pub opcode: u16,
    /// What was tolerated.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "instruction #{} (offset {:#x}, ",
            self.location.index, self.location.byte_offset
        )?;
        crate::error::write_opcode_name(f, self.opcode)?;
        write!(f, "): {}", self.message)
    }
}
