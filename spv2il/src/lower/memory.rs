//! Memory: pointers, loads, stores, atomics and barriers.
//!
//! A pointer is lowered to a [`Place`]:
//! * Function variables of scalar or vector type are one temporary register each;
//! * built-in inputs (GlobalInvocationId, ...) are IL system registers (amd-il.md §9
//!   "Built-ins"), and NumWorkgroups is element 0 of the driver constant buffer;
//! * everything else is bytes of a memory space — a raw UAV (storage buffers), a constant
//!   buffer (uniform buffers, push constants) or LDS (Workgroup variables) — at a byte offset
//!   made of a constant part and an optional dynamic part held in a register. Offsets inside
//!   buffers come from the module's explicit layout (SPIR-V §2.18.1); Workgroup memory, which
//!   has none, uses the packed layout of [`resources::natural_size`].
//!
//! A load of a register-backed variable (a temporary or an indexed temporary array) reads the
//! variable in place when every use of the loaded value follows in the same block before
//! anything can write the variable (load forwarding); a load from a constant buffer at a
//! constant offset reads the buffer in place; and a store of a value whose fresh temporary the
//! last IL instruction wrote makes that instruction write the variable (store forwarding).
//! Otherwise loads and stores copy.
//!
//! All UAV and LDS addresses are byte addresses (amd-il.md §0.8); constant buffers are read in
//! 16-byte elements (amd-il.md §9 "Storage classes").

use std::cell::Cell;

use il_model::{CompSel, Control, Dst, DstComp, Inst, Nested, Opcode, Reg, RegType, Src};
use spv_reader::{Id, Inst as SpvInst, Module, Type, spirv};

use super::Lowerer;
use super::resources;
use super::types::{self, Scalar, Shape};
use super::values::{
    MemberRange, MemberValues, Value, XYZW, dst_first, last_repeated, rotated_left,
};
use crate::error::{Error, Unsupported};

/// A memory space with byte addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Raw UAV `n`.
    Uav(u32),
    /// Constant buffer `n` (read-only).
    Cb(u32),
    /// LDS 0 (Workgroup memory).
    Lds,
}

impl Space {
    /// Whether offsets follow the module's explicit layout decorations.
    fn explicit_layout(self) -> bool {
        self != Space::Lds
    }
}

/// What a pointer id designates. Plain words (`Copy`): every use of a pointer copies its
/// place out of the table ([`Lowerer::place`]), and an access chain stores a new one, so a
/// place owns nothing that would need cloning or dropping; the members of a composite variable
/// live in [`Lowerer::composite_places`] and a one-register value is a [`RegValue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A register-backed variable, or elements `first..first+shape.count` of one.
    Register {
        /// The temporary holding the variable.
        reg: u32,
        /// The pointee's shape.
        shape: Shape,
        /// The first element of the variable this pointer designates.
        first: u8,
    },
    /// Elements of an indexed temporary array `x#[]` (a Function or Private array variable),
    /// or elements `first..` of the vector at one index of it.
    Indexed {
        /// The array number `N` of `xN`.
        array: u32,
        /// Constant part of the element index.
        element: u32,
        /// Dynamic part of the element index (a one-element value), if any.
        dynamic: Option<RegValue>,
        /// The shape of one element (or of the designated part of it).
        shape: Shape,
        /// The first component designated within the element.
        first: u8,
        /// Whether the place is the whole array (no element chosen yet).
        whole_array: bool,
    },
    /// A struct or matrix variable held member by member (columns for a matrix); members are
    /// chosen by constant indices. The member places are a range of
    /// [`Lowerer::composite_places`], shared by every access chain into the variable.
    Composite(Members),
    /// An image (storage images are typed UAVs, sampled images resources), or a sampler.
    Image(ImageRef),
    /// A read-only built-in input, already a value.
    Builtin(RegValue),
    /// Bytes of a memory space.
    Memory {
        /// The space.
        space: Space,
        /// Byte offset from the start of the space.
        offset: ByteOffset,
        /// The pointee type.
        pointee: Id,
    },
}

/// The member places of a composite variable: `len` places from `start` in
/// [`Lowerer::composite_places`]. Two variables never share a range, but two variables whose
/// members hold no storage at all (structs of empty structs) are alike: their places compare
/// equal by content ([`same_place`]), never by range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Members {
    /// The index of the first member place.
    start: u32,
    /// The number of members.
    len: u32,
}

/// A scalar or vector value held in components of one register: a [`Value`] without members,
/// as plain words, for the values a [`Place`] holds (a dynamic index, a built-in input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegValue {
    /// [`Value::reg`].
    reg: Reg,
    /// [`Value::comps`].
    comps: [CompSel; 4],
    /// [`Value::count`].
    count: u8,
    /// [`Value::wide`].
    wide: bool,
}

impl RegValue {
    /// The register part of `value`: all of it for a scalar or vector in one register (which
    /// has no members; the callers pass single elements and built-in registers).
    fn of(value: &Value) -> RegValue {
        RegValue {
            reg: value.reg,
            comps: value.comps,
            count: value.count,
            wide: value.wide,
        }
    }

    /// The value itself.
    fn value(self) -> Value {
        Value {
            reg: self.reg,
            comps: self.comps,
            count: self.count,
            members: MemberRange::default(),
            wide: self.wide,
        }
    }

    /// [`Value::element`] of the value.
    fn element(self, i: usize) -> Src {
        self.value().element(i)
    }
}

/// The IL object an image handle names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageRef {
    /// Typed UAV `n` (a storage image).
    Uav(u32),
    /// Resource `n` with sampler `n` (a sampled image).
    Texture(u32),
    /// A sampler; sample instructions use the sampler numbered like their resource.
    Sampler,
}

/// A byte offset: a constant plus, optionally, a dynamic part in a register component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteOffset {
    /// The constant part.
    pub constant: u32,
    /// The dynamic part (a one-element value), if any.
    pub dynamic: Option<RegValue>,
    /// The MatrixStride of the matrix this offset points at, carried from the struct member
    /// that declares it (SPIR-V §2.18.1).
    pub matrix_stride: Option<u32>,
    /// Whether the dynamic part is a multiple of 16 (needed to read constant buffers, whose
    /// elements are 16 bytes, with a register-relative index).
    pub dynamic_aligned_16: bool,
}

impl ByteOffset {
    const ZERO: ByteOffset = ByteOffset {
        constant: 0,
        dynamic: None,
        matrix_stride: None,
        dynamic_aligned_16: true,
    };
}

/// The IL register holding a compute built-in, and how many elements it has.
fn builtin_register(builtin: spirv::BuiltIn) -> Option<(RegType, u8)> {
    use spirv::BuiltIn as B;
    Some(match builtin {
        B::GlobalInvocationId => (RegType::AbsoluteThreadId, 3),
        B::LocalInvocationId => (RegType::ThreadIdInGroup, 3),
        B::WorkgroupId => (RegType::ThreadGroupId, 3),
        B::LocalInvocationIndex => (RegType::ThreadIdInGroupFlat, 1),
        _ => return None,
    })
}

/// An index operand: an id from an access chain, or a member number known to the lowering.
#[derive(Clone, Copy)]
enum Index {
    /// The value of this id (a constant or a run-time value).
    Id(Id),
    /// This number.
    Constant(u32),
}

/// The built-in decoration of variable `id`, if any.
pub fn builtin_of(module: &Module, id: Id) -> Option<spirv::BuiltIn> {
    module
        .decoration(id, spirv::Decoration::BuiltIn)
        .and_then(|d| d.operands.first().copied())
        .and_then(spirv::BuiltIn::from_u32)
}

/// The positional mask text writing the first `count` components.
fn mask_text(count: u8) -> &'static str {
    match count {
        1 => "x___",
        2 => "xy__",
        3 => "xyz_",
        _ => "xyzw",
    }
}

/// Attaches the location of `inst` to an unlocated [`Unsupported`].
#[cold]
#[inline(never)]
pub(super) fn located(module: &Module, inst: SpvInst<'_>, unsupported: Unsupported) -> Error {
    if unsupported.location.is_some() {
        return unsupported.into();
    }
    Unsupported::at(module, inst.index(), unsupported.feature).into()
}

/// The most elements one indexed temporary array may have. The guide sets no number; this keeps
/// a huge private array from becoming a huge declaration.
pub const MAX_INDEXED_TEMP_ELEMENTS: u32 = 4096;

/// How deeply composite private variables may nest (their types are finite, SPIR-V §2.4;
/// the bound guards recursion on hostile modules).
const MAX_PRIVATE_NESTING: u32 = 64;

/// `xN[element]` or `xN[r.c + element]`; the index operand of the second form goes to `nested`.
fn indexed_reg(nested: &mut Nested, array: u32, element: u32, dynamic: Option<RegValue>) -> Reg {
    let reg = Reg::new(RegType::ITemp, array);
    match dynamic {
        None => reg.at(element),
        Some(index) => reg.rel(
            nested.push(index.element(0)),
            (element != 0).then_some(element),
        ),
    }
}

/// How many instructions after a load [`Lowerer::forwards_load`] searches for its uses.
const MAX_FORWARD_SCAN: u32 = 64;

/// Opcodes besides the elementwise ones whose 32-bit lowering (`Lowerer::lower_op`) only
/// reads its operands, while it is lowered, into IL instructions writing fresh temporaries
/// (`alu`, `float_divide`, `unsigned_divide`, `lower_shift`, `dot`), so that a loaded value
/// they use is read at once.
const READ_AT_ONCE: [u32; 10] = [
    spirv::Op::FDiv as u32,
    spirv::Op::UDiv as u32,
    spirv::Op::UMod as u32,
    spirv::Op::FMod as u32,
    spirv::Op::FNegate as u32,
    spirv::Op::ShiftLeftLogical as u32,
    spirv::Op::ShiftRightArithmetic as u32,
    spirv::Op::ShiftRightLogical as u32,
    spirv::Op::Dot as u32,
    spirv::Op::VectorTimesScalar as u32,
];

/// How many values [`Lowerer::forwards_load`] follows: the loaded one and those re-labelled
/// from it; one more keeps the copy.
const MAX_FORWARD_ALIASES: usize = 4;

/// The result of `words` (an instruction with opcode `op`) when its lowering reads its value
/// operands while it is lowered, either into IL writing fresh temporaries or into the
/// result's value (a re-labelling of the operands' components, [`super::values`]), and its
/// result is a value, never a place: a value read from a variable's register may reach that
/// result, whose uses [`Lowerer::forwards_load`] then looks at too (following a result whose
/// lowering copied is merely cautious). Each of these opcodes has a Result Type and a Result
/// id (SPIR-V §3.3). None of them names a pointer operand except the extended instructions
/// (GLSL.std.450 Modf and Frexp write through one), which the search checks like any other
/// instruction.
fn followed_result(op: u32, words: &[u32]) -> Option<u32> {
    use spirv::Op;
    const COMPOSITE_EXTRACT: u32 = Op::CompositeExtract as u32;
    const VECTOR_SHUFFLE: u32 = Op::VectorShuffle as u32;
    const COPY_OBJECT: u32 = Op::CopyObject as u32;
    const COPY_LOGICAL: u32 = Op::CopyLogical as u32;
    const BITCAST: u32 = Op::Bitcast as u32;
    const COMPOSITE_CONSTRUCT: u32 = Op::CompositeConstruct as u32;
    const COMPOSITE_INSERT: u32 = Op::CompositeInsert as u32;
    const VECTOR_EXTRACT_DYNAMIC: u32 = Op::VectorExtractDynamic as u32;
    const VECTOR_INSERT_DYNAMIC: u32 = Op::VectorInsertDynamic as u32;
    const SELECT: u32 = Op::Select as u32;
    const EXT_INST: u32 = Op::ExtInst as u32;
    const TRANSPOSE: u32 = Op::Transpose as u32;
    const MATRIX_TIMES_SCALAR: u32 = Op::MatrixTimesScalar as u32;
    const VECTOR_TIMES_MATRIX: u32 = Op::VectorTimesMatrix as u32;
    const MATRIX_TIMES_VECTOR: u32 = Op::MatrixTimesVector as u32;
    const MATRIX_TIMES_MATRIX: u32 = Op::MatrixTimesMatrix as u32;
    const OUTER_PRODUCT: u32 = Op::OuterProduct as u32;
    const S_DIV: u32 = Op::SDiv as u32;
    const S_REM: u32 = Op::SRem as u32;
    const S_MOD: u32 = Op::SMod as u32;
    const ANY: u32 = Op::Any as u32;
    const ALL: u32 = Op::All as u32;
    const IS_NAN: u32 = Op::IsNan as u32;
    const IS_INF: u32 = Op::IsInf as u32;
    const BIT_FIELD_INSERT: u32 = Op::BitFieldInsert as u32;
    const BIT_FIELD_S_EXTRACT: u32 = Op::BitFieldSExtract as u32;
    const BIT_FIELD_U_EXTRACT: u32 = Op::BitFieldUExtract as u32;
    const BIT_REVERSE: u32 = Op::BitReverse as u32;
    const BIT_COUNT: u32 = Op::BitCount as u32;
    const QUANTIZE_TO_F16: u32 = Op::QuantizeToF16 as u32;
    match op {
        COMPOSITE_EXTRACT
        | VECTOR_SHUFFLE
        | COPY_OBJECT
        | COPY_LOGICAL
        | BITCAST
        | COMPOSITE_CONSTRUCT
        | COMPOSITE_INSERT
        | VECTOR_EXTRACT_DYNAMIC
        | VECTOR_INSERT_DYNAMIC
        | SELECT
        | EXT_INST
        | TRANSPOSE
        | MATRIX_TIMES_SCALAR
        | VECTOR_TIMES_MATRIX
        | MATRIX_TIMES_VECTOR
        | MATRIX_TIMES_MATRIX
        | OUTER_PRODUCT
        | S_DIV
        | S_REM
        | S_MOD
        | ANY
        | ALL
        | IS_NAN
        | IS_INF
        | BIT_FIELD_INSERT
        | BIT_FIELD_S_EXTRACT
        | BIT_FIELD_U_EXTRACT
        | BIT_REVERSE
        | BIT_COUNT
        | QUANTIZE_TO_F16 => words.get(2).copied(),
        _ => None,
    }
}

/// How many access chains into a variable made after a load [`Lowerer::forwards_load`]
/// follows; one more keeps the copy.
const MAX_FORWARD_CHAINS: usize = 4;

/// Elements `first..first + count` of variable register `reg`, read in place (what the copy
/// [`Lowerer::load_components`] makes holds in positions `0..count`).
fn register_value(reg: u32, first: u8, count: u8) -> Value {
    Value {
        reg: Reg::new(RegType::Temp, reg),
        comps: rotated_left(XYZW, usize::from(first.min(3))),
        count,
        members: MemberRange::default(),
        wide: false,
    }
}

/// Whether a use of a loaded value reads it at once ([`Lowerer::consumes_at_once`]), and if
/// so whether the instruction may also name a pointer into the variable, which
/// [`Lowerer::forwards_load`] then checks when it is the last use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtOnce {
    /// The use keeps a reference to the value's register (or is not known to read it at once).
    No,
    /// Read at once, by an instruction that names no pointer into a variable (or, for
    /// `OpStore`, may write the variable after reading the value).
    Values,
    /// Read at once, by an instruction that may name a pointer into the variable.
    MayNamePointers,
}

/// The storage of a register-backed variable that a load may read in place
/// ([`Lowerer::forwards_load`]): a temporary, or an indexed temporary array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Storage {
    /// Temporary `r#`.
    Register(u32),
    /// Indexed temporary array `x#`.
    Array(u32),
}

/// Whether `place` is, or contains, storage `storage`; `composites` holds the member places of
/// composite variables ([`Lowerer::composite_places`]). Composite places nest as deeply as
/// the variable's type, which [`MAX_PRIVATE_NESTING`] bounds; deeper ones answer yes.
fn place_holds(composites: &[Place], place: &Place, storage: Storage, depth: u32) -> bool {
    match place {
        Place::Register { reg, .. } => storage == Storage::Register(*reg),
        Place::Indexed { array, .. } => storage == Storage::Array(*array),
        Place::Composite(members) => {
            depth > MAX_PRIVATE_NESTING
                || members_of(composites, *members)
                    .iter()
                    .any(|member| place_holds(composites, member, storage, depth + 1))
        }
        _ => false,
    }
}

/// The member places of a composite variable, from `composites`
/// ([`Lowerer::composite_places`]); none for a range that is not in it (a range is only made
/// by [`Lowerer::new_private_place`], which pushes its places first).
fn members_of(composites: &[Place], members: Members) -> &[Place] {
    let start = members.start as usize;
    composites
        .get(start..start.saturating_add(members.len as usize))
        .unwrap_or(&[])
}

/// Whether places `a` and `b` designate the same storage, composite members compared by
/// content (what `==` on places would say if members were held in the place itself). Composite
/// places nest as deeply as the variable's type, which [`MAX_PRIVATE_NESTING`] bounds; deeper
/// ones compare unequal, which only costs a second subroutine instance.
pub(super) fn same_place(composites: &[Place], a: &Place, b: &Place, depth: u32) -> bool {
    match (a, b) {
        (Place::Composite(x), Place::Composite(y)) => {
            if x == y {
                return true;
            }
            let (x, y) = (members_of(composites, *x), members_of(composites, *y));
            depth <= MAX_PRIVATE_NESTING
                && x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(a, b)| same_place(composites, a, b, depth + 1))
        }
        _ => a == b,
    }
}

/// The error for a composite variable whose members do not match its type's.
#[cold]
#[inline(never)]
fn mismatched_parts(module: &Module, inst: SpvInst<'_>) -> Error {
    Unsupported::at(
        module,
        inst.index(),
        "an aggregate whose parts do not match its type",
    )
    .into()
}

/// A temporary holding one element, as a value.
fn temp_value(reg: u32, count: u8) -> Value {
    Value::in_reg(Reg::new(RegType::Temp, reg), count)
}

/// Whether `ty` is a matrix or an array (of arrays ...) of matrices, whose MatrixStride the
/// struct member declaring it carries. Array nesting is finite (SPIR-V §2.4); the bound guards
/// hostile modules.
fn holds_matrices(module: &Module, ty: Id) -> bool {
    let mut ty = ty;
    for _ in 0..MAX_PRIVATE_NESTING {
        match module.ty(ty) {
            Some(Type::Matrix { .. }) => return true,
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => ty = *element,
            _ => return false,
        }
    }
    false
}

/// `offset` moved `bytes` further.
fn offset_by(offset: &ByteOffset, bytes: u32) -> ByteOffset {
    ByteOffset {
        constant: offset.constant.wrapping_add(bytes),
        ..*offset
    }
}

/// Where element `e` of a 64-bit variable held from temporary `reg` on lives: two elements per
/// register, low dword first (a 3- or 4-vector continues in the next register).
fn register_slot(reg: u32, e: usize) -> (Reg, usize) {
    let next = u32::try_from(e / 2).unwrap_or(0);
    (
        Reg::new(RegType::Temp, reg.saturating_add(next)),
        2 * (e % 2),
    )
}

/// The 64-bit elements `first..first + count` of a variable, as one-element values, given
/// where each element's low dword lives.
fn wide_slots(slot: impl Fn(usize) -> (Reg, usize), first: u8, count: u8) -> Vec<Value> {
    (usize::from(first)..usize::from(first) + usize::from(count))
        .map(|e| {
            let (reg, position) = slot(e);
            let low = XYZW[position.min(2)];
            let high = XYZW[position.min(2) + 1];
            Value {
                reg,
                comps: [low, high, low, high],
                count: 2,
                members: MemberRange::default(),
                wide: true,
            }
        })
        .collect()
}

/// The dword moves storing the 64-bit `value` into elements `first..` of a variable.
fn wide_store_moves(
    members: &MemberValues,
    slot: impl Fn(usize) -> (Reg, usize),
    first: u8,
    value: &Value,
) -> Vec<(Reg, usize, Reg, CompSel)> {
    let mut moves = Vec::new();
    for j in 0..members.width(value) {
        let (reg, position) = slot(usize::from(first) + j);
        let element = members.extract(value, j);
        for half in 0..2 {
            moves.push((reg, position + half, element.reg, element.comps[half]));
        }
    }
    moves
}

impl<'m> Lowerer<'m> {
    /// The place a pointer id designates: a lowered access chain or local variable, or a global
    /// variable seen for the first time.
    #[inline]
    pub(super) fn place(&mut self, id: Id, at: SpvInst<'_>) -> Result<Place, Error> {
        if let Some(place) = self.places.get(id) {
            return Ok(*place);
        }
        self.first_global_place(id, at)
    }

    /// [`Lowerer::place`] of a global variable not asked about before: worked out and
    /// remembered. Kept out of line, so that the lookup every pointer use makes stays small.
    #[inline(never)]
    fn first_global_place(&mut self, id: Id, at: SpvInst<'_>) -> Result<Place, Error> {
        let place = self.global_place(id, at)?;
        self.places.set(id, place);
        Ok(place)
    }

    fn global_place(&mut self, id: Id, at: SpvInst<'_>) -> Result<Place, Error> {
        let module = self.module;
        let unsupported = |what: String| Error::from(Unsupported::at(module, at.index(), what));
        let ty = module
            .result_type(id)
            .ok_or_else(|| unsupported(format!("pointer {id}")))?;
        let (class, pointee) =
            types::pointer_parts(module, ty).ok_or_else(|| unsupported(format!("pointer {id}")))?;
        let memory = |space| Place::Memory {
            space,
            offset: ByteOffset::ZERO,
            pointee,
        };
        if let Some(uav) = self.resources.uav_of(id) {
            if self.resources.is_typed_uav(uav) {
                return Ok(Place::Image(ImageRef::Uav(uav)));
            }
            return Ok(memory(Space::Uav(uav)));
        }
        if let Some(texture) = self.resources.texture_of(id) {
            return Ok(Place::Image(ImageRef::Texture(texture)));
        }
        if class == spirv::StorageClass::UniformConstant
            && matches!(module.ty(pointee), Some(Type::Sampler))
        {
            return Ok(Place::Image(ImageRef::Sampler));
        }
        if let Some(cb) = self.resources.cb_of(id) {
            return Ok(memory(Space::Cb(cb)));
        }
        if let Some(offset) = self.resources.lds_offset_of(id) {
            return Ok(Place::Memory {
                space: Space::Lds,
                offset: ByteOffset {
                    constant: offset,
                    ..ByteOffset::ZERO
                },
                pointee,
            });
        }
        if class == spirv::StorageClass::Input {
            let builtin = builtin_of(module, id);
            if let Some((reg_type, count)) = builtin.and_then(builtin_register) {
                let value = Value::in_reg(Reg::new(reg_type, 0), count);
                return Ok(Place::Builtin(RegValue::of(&value)));
            }
            if builtin == Some(spirv::BuiltIn::NumWorkgroups)
                && let Some(cb) = self.resources.driver_cb()
            {
                let reg = Reg::new(RegType::ConstBuff, cb).at(0);
                return Ok(Place::Builtin(RegValue::of(&Value::in_reg(reg, 3))));
            }
            let name = builtin.map_or_else(
                || "an input variable".to_string(),
                |b| format!("the {b:?} built-in"),
            );
            return Err(unsupported(name));
        }
        Err(unsupported(format!(
            "variables in the {class:?} storage class"
        )))
    }

    /// `OpVariable` inside a function: a register, initialised when the variable has an
    /// initializer.
    pub(super) fn lower_local_variable(&mut self, inst: SpvInst<'_>) -> Result<(), Error> {
        let module = self.module;
        // OpVariable: Result Type, Result id, Storage Class, then the optional Initializer
        // (SPIR-V §3.3.8), read from their word positions.
        let (ty, result, operands) = super::typed_parts(inst);
        let (Some(result), Some(ty)) = (result, ty) else {
            return Err(
                Unsupported::at(module, inst.index(), "a variable without a result").into(),
            );
        };
        let (_, pointee) = types::pointer_parts(module, ty).ok_or_else(|| {
            Unsupported::at(module, inst.index(), "a variable of non-pointer type")
        })?;
        let place = self.new_private_place(inst, pointee, operands.get(1).map(|w| Id(*w)))?;
        self.set_place(result, place);
        Ok(())
    }

    /// Gives every module-scope Private variable its storage and initial value, before the
    /// entry point's code: Private variables live for the whole invocation (SPIR-V §3.2.6).
    pub(super) fn declare_private_globals(&mut self) -> Result<(), Error> {
        let module = self.module;
        for variable in module.global_variables() {
            let Some((spirv::StorageClass::Private, pointee)) =
                types::pointer_parts(module, variable.ty)
            else {
                continue;
            };
            let Some(inst) = module.inst(variable.inst) else {
                continue;
            };
            let place = self.new_private_place(inst, pointee, variable.initializer)?;
            self.set_place(variable.id, place);
        }
        Ok(())
    }

    /// Storage for a Function or Private variable of type `pointee`: a register for a scalar or
    /// vector, an indexed temporary array (`dcl_indexed_temp_array`, AMD IL guide §7.5) for an
    /// array of them; initialised from `initializer` when there is one.
    pub(super) fn new_private_place(
        &mut self,
        inst: SpvInst<'_>,
        pointee: Id,
        initializer: Option<Id>,
    ) -> Result<Place, Error> {
        let module = self.module;
        if let Some(Type::Array { element, length }) = module.ty(pointee) {
            let (element, length) = (*element, *length);
            let shape = self
                .shape_of(element)
                .map_err(|u| located(module, inst, u))?;
            if shape.dwords() > 4 {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "private arrays of 64-bit vectors of three or four elements",
                )
                .into());
            }
            let length = types::constant_u32(module, length)
                .filter(|n| *n > 0 && *n <= MAX_INDEXED_TEMP_ELEMENTS)
                .ok_or_else(|| {
                    Unsupported::at(
                        module,
                        inst.index(),
                        "an array of this length in a private variable",
                    )
                })?;
            let array = self.new_indexed_temp(length);
            if let Some(initializer) = initializer {
                let parts = match module.constant(initializer) {
                    Some(spv_reader::Constant::Composite { parts, .. }) => parts.clone(),
                    Some(spv_reader::Constant::Null { .. }) => Vec::new(),
                    _ => {
                        return Err(Unsupported::at(
                            module,
                            inst.index(),
                            "this array initializer",
                        )
                        .into());
                    }
                };
                for index in 0..length {
                    let value = match parts.get(index as usize) {
                        Some(part) => self.value(*part, inst)?,
                        None => self.regs.scalar(0),
                    };
                    let mut dst = Dst::new(Reg::new(RegType::ITemp, array).at(index));
                    dst.mask = dst_first(0, shape.dwords()).mask;
                    self.emit_mov(dst, value.src());
                }
            }
            return Ok(Place::Indexed {
                array,
                element: 0,
                dynamic: None,
                shape,
                first: 0,
                whole_array: true,
            });
        }
        let members: Option<Vec<Id>> = match module.ty(pointee) {
            Some(Type::Struct { members }) => Some(members.clone()),
            Some(Type::Matrix { column, count }) => Some(vec![*column; *count as usize]),
            _ => None,
        };
        if let Some(member_types) = members {
            if self.call_depth > MAX_PRIVATE_NESTING
                || member_types.len() > types::MAX_AGGREGATE_LEAVES
            {
                return Err(Unsupported::at(module, inst.index(), "this variable's type").into());
            }
            let initial: Option<Vec<Id>> = initializer.and_then(|id| match module.constant(id) {
                Some(spv_reader::Constant::Composite { parts, .. }) => Some(parts.clone()),
                _ => None,
            });
            if initializer.is_some() && initial.is_none() {
                return Err(Unsupported::at(module, inst.index(), "this initializer").into());
            }
            let mut places = Vec::with_capacity(member_types.len());
            for (n, member) in member_types.into_iter().enumerate() {
                let init = initial.as_ref().and_then(|parts| parts.get(n).copied());
                places.push(self.new_private_place(inst, member, init)?);
            }
            // The members go into the shared list after those of their own members.
            let start = u32::try_from(self.composite_places.len()).unwrap_or(u32::MAX);
            let len = u32::try_from(places.len()).unwrap_or(u32::MAX);
            self.composite_places.extend(places);
            return Ok(Place::Composite(Members { start, len }));
        }
        let shape = self
            .shape_of(pointee)
            .map_err(|u| located(module, inst, u))?;
        let reg = self.regs.temp();
        if shape.dwords() > 4 {
            // A 64-bit vector of three or four elements: elements 2 and 3 in the next register
            // (temporaries are numbered consecutively).
            self.regs.temp();
        }
        if let Some(initializer) = initializer {
            let value = self.value(initializer, inst)?;
            for (k, part) in (0u32..).zip(self.members.parts(&value).iter()) {
                self.emit_mov(dst_first(reg.saturating_add(k), part.count), part.src());
            }
        }
        Ok(Place::Register {
            reg,
            shape,
            first: 0,
        })
    }

    pub(super) fn set_place(&mut self, id: Id, place: Place) {
        self.places.set(id, place);
    }

    /// `OpAccessChain` / `OpInBoundsAccessChain`: walks the indices through the pointee type.
    pub(super) fn lower_access_chain(&mut self, inst: SpvInst<'_>) -> Result<(), Error> {
        let module = self.module;
        let (_, result, operands) = super::typed_parts(inst);
        let (Some(result), Some((base, indices))) = (result, operands.split_first()) else {
            return Err(
                Unsupported::at(module, inst.index(), "an access chain without a base").into(),
            );
        };
        let mut place = self.place(Id(*base), inst)?;
        let mut indices = indices;
        while let (Place::Composite(members), Some((index, rest))) = (place, indices.split_first())
        {
            let member = self.constant_index(inst, Id(*index))?;
            let members = members_of(&self.composite_places, members);
            let Some(&member) = members.get(member as usize) else {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "a member index past the variable",
                )
                .into());
            };
            place = member;
            indices = rest;
        }
        if indices.is_empty() {
            self.set_place(result, place);
            return Ok(());
        }
        // Buffers, the commonest base, are walked here; the other kinds of variable out of line.
        let place = match place {
            Place::Memory {
                space,
                mut offset,
                pointee,
            } => {
                let pointee = self.memory_chain(inst, space, &mut offset, pointee, indices)?;
                Place::Memory {
                    space,
                    offset,
                    pointee,
                }
            }
            other => self.chain_into(inst, other, indices)?,
        };
        self.set_place(result, place);
        Ok(())
    }

    /// The place `indices` (the rest of an access chain's indices, at least one) select
    /// within `place`, which is not in a buffer: `lower_access_chain` walks buffers itself.
    // Out of line: chains into private variables and built-ins are few beside those into
    // buffers, and their code, inlined, would spread the block loop's.
    #[inline(never)]
    fn chain_into(
        &mut self,
        inst: SpvInst<'_>,
        place: Place,
        indices: &[u32],
    ) -> Result<Place, Error> {
        let module = self.module;
        Ok(match place {
            Place::Image(_) => {
                return Err(Unsupported::at(module, inst.index(), "arrays of images").into());
            }
            Place::Composite(_) => {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "this access into a composite variable",
                )
                .into());
            }
            Place::Memory { .. } => {
                return Err(super::internal(format_args!(
                    "a chain into a buffer reached the walk of other places"
                )));
            }
            Place::Indexed {
                array,
                mut element,
                mut dynamic,
                shape,
                mut first,
                whole_array,
            } => {
                let mut rest = indices;
                // On the whole array, the first index selects the element.
                if whole_array && let Some((index, tail)) = rest.split_first() {
                    match types::constant_u32(module, Id(*index)) {
                        Some(constant) => element = constant,
                        None => {
                            let index = self.value(Id(*index), inst)?;
                            let mut index = self.members.extract(&index, 0);
                            if index.reg.index.is_some() {
                                // A register-relative index is one level of indexing (AMD IL
                                // guide §2.2.6): a value read in place from a constant buffer
                                // or an indexed temporary array, itself indexed, is copied
                                // into a temporary first.
                                let copy = self.regs.temp();
                                self.emit_mov(dst_first(copy, 1), index.element(0));
                                index = temp_value(copy, 1);
                            }
                            dynamic = Some(RegValue::of(&index));
                        }
                    }
                    rest = tail;
                }
                let shape = match rest {
                    [] => shape,
                    [component] if shape.count > 1 => {
                        let component = self.component_index(inst, Id(*component), shape.count)?;
                        first = first.saturating_add(component);
                        Shape { count: 1, ..shape }
                    }
                    _ => {
                        return Err(Unsupported::at(
                            module,
                            inst.index(),
                            "this access into a private array",
                        )
                        .into());
                    }
                };
                if whole_array && rest.len() == indices.len() {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "a pointer to a whole private array",
                    )
                    .into());
                }
                Place::Indexed {
                    array,
                    element,
                    dynamic,
                    shape,
                    first,
                    whole_array: false,
                }
            }
            Place::Builtin(value) => match indices {
                [index] => {
                    let element = self.constant_index(inst, Id(*index))?;
                    Place::Builtin(RegValue::of(
                        &self.members.extract(&value.value(), element as usize),
                    ))
                }
                _ => {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "this access into a built-in",
                    )
                    .into());
                }
            },
            Place::Register { reg, shape, first } => match indices {
                [index] if shape.count > 1 => {
                    let element = self.component_index(inst, Id(*index), shape.count)?;
                    let first = first.saturating_add(element);
                    Place::Register {
                        reg,
                        shape: Shape { count: 1, ..shape },
                        first,
                    }
                }
                _ => {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "dynamic or nested access into a function variable",
                    )
                    .into());
                }
            },
        })
    }

    /// A constant index operand (structure member numbers and other indices that must be known).
    fn constant_index(&self, inst: SpvInst<'_>, id: Id) -> Result<u32, Error> {
        types::constant_u32(self.module, id).ok_or_else(|| {
            Unsupported::at(
                self.module,
                inst.index(),
                format!("a non-constant index {id} here"),
            )
            .into()
        })
    }

    /// A constant index choosing one of the `count` elements of a vector held in registers. An
    /// index out of bounds is valid SPIR-V, undefined behaviour only if executed (SPIR-V §3.3.8
    /// OpAccessChain: indices are signed, and out of bounds into a vector "causes undefined
    /// behavior"), but no register component stands for it: it is refused, not lowered to a
    /// write mask that selects nothing.
    fn component_index(&self, inst: SpvInst<'_>, id: Id, count: u8) -> Result<u8, Error> {
        let index = self.constant_index(inst, id)?;
        u8::try_from(index)
            .ok()
            .filter(|&component| component < count)
            .ok_or_else(|| {
                Unsupported::at(
                    self.module,
                    inst.index(),
                    format!(
                        "the constant index {} into a {count}-element vector (out of bounds: \
                         undefined behaviour if executed)",
                        index as i32
                    ),
                )
                .into()
            })
    }

    /// Applies `indices` to a memory pointer, returning the new offset and pointee type.
    fn memory_chain(
        &mut self,
        inst: SpvInst<'_>,
        space: Space,
        offset: &mut ByteOffset,
        mut pointee: Id,
        indices: &[u32],
    ) -> Result<Id, Error> {
        for index in indices {
            pointee = self.memory_step(inst, space, offset, pointee, Index::Id(Id(*index)))?;
        }
        Ok(pointee)
    }

    /// Applies one index to a memory pointer: moves `offset` (in place, since it is passed
    /// along a whole access chain) and returns the new pointee type.
    fn memory_step(
        &mut self,
        inst: SpvInst<'_>,
        space: Space,
        offset: &mut ByteOffset,
        pointee: Id,
        index: Index,
    ) -> Result<Id, Error> {
        let module = self.module;
        let missing = |what: &str| Error::from(Unsupported::at(module, inst.index(), what));
        let constant = match index {
            Index::Constant(n) => Some(n),
            Index::Id(id) => types::constant_u32(module, id),
        };
        // A constant index is looked up once: `add_scaled` takes it as a number.
        let index = constant.map_or(index, Index::Constant);
        let matrix_stride = offset.matrix_stride.take();
        match module.ty(pointee) {
            Some(Type::Struct { members }) => {
                let member =
                    constant.ok_or_else(|| missing("a non-constant struct member index"))?;
                let member_type = *members
                    .get(member as usize)
                    .ok_or_else(|| missing("a member index past the struct"))?;
                let member_offset = if space.explicit_layout() {
                    self.member_offset(pointee, member)
                } else {
                    resources::natural_member_offset(module, pointee, member, &mut |id| {
                        self.constants.word(id, 0).ok()
                    })
                }
                .ok_or_else(|| missing("a struct member without an Offset"))?;
                offset.constant = offset.constant.wrapping_add(member_offset);
                if holds_matrices(module, member_type) {
                    // A matrix member's column stride and majorness are decorations of the
                    // member, also when it is an array of matrices (SPIR-V §2.18.1); only
                    // column-major matrices are supported.
                    let member_decoration = |kind| {
                        module
                            .member_decorations(pointee, member)
                            .find(|d| d.decoration() == Some(kind))
                    };
                    if member_decoration(spirv::Decoration::RowMajor).is_some() {
                        return Err(missing("row-major matrices"));
                    }
                    offset.matrix_stride = member_decoration(spirv::Decoration::MatrixStride)
                        .and_then(|d| d.operands.first().copied());
                }
                Ok(member_type)
            }
            Some(Type::Array { element, .. }) | Some(Type::RuntimeArray { element }) => {
                let element = *element;
                let stride = if space.explicit_layout() {
                    self.array_stride(pointee)
                } else {
                    resources::natural_size(module, element, &mut |id| {
                        self.constants.word(id, 0).ok()
                    })
                }
                .ok_or_else(|| missing("an array without an ArrayStride"))?;
                if matches!(module.ty(element), Some(Type::Matrix { .. })) {
                    offset.matrix_stride = matrix_stride;
                }
                self.add_scaled(inst, offset, index, stride)?;
                Ok(element)
            }
            Some(Type::Matrix { column, .. }) => {
                let column = *column;
                let stride = if space.explicit_layout() {
                    matrix_stride.ok_or_else(|| missing("a matrix without a MatrixStride"))?
                } else {
                    resources::natural_size(module, column, &mut |id| {
                        self.constants.word(id, 0).ok()
                    })
                    .ok_or_else(|| missing("this matrix"))?
                };
                self.add_scaled(inst, offset, index, stride)?;
                Ok(column)
            }
            Some(Type::Vector { component, .. }) => {
                let component = *component;
                // Vector components are consecutive: 4 bytes, or 8 for 64-bit ones.
                let size = if self.is_wide_type(component) { 8 } else { 4 };
                self.add_scaled(inst, offset, index, size)?;
                Ok(component)
            }
            _ => Err(missing("this access chain into memory")),
        }
    }

    /// `offset += index * stride`, folding constants and emitting `ishl`/`imul` and `iadd` for
    /// dynamic indices.
    fn add_scaled(
        &mut self,
        inst: SpvInst<'_>,
        offset: &mut ByteOffset,
        index: Index,
        stride: u32,
    ) -> Result<(), Error> {
        let constant = match index {
            Index::Constant(n) => Ok(n),
            Index::Id(id) => types::constant_u32(self.module, id).ok_or(id),
        };
        let id = match constant {
            Ok(constant) => {
                offset.constant = offset.constant.wrapping_add(constant.wrapping_mul(stride));
                return Ok(());
            }
            Err(id) => id,
        };
        let index = self.value_element(id, inst, 0)?;
        let scaled = self.regs.temp();
        if stride.is_power_of_two() {
            let shift = self.regs.scalar_src(stride.trailing_zeros());
            self.emit(
                Inst::new(Opcode::IShl)
                    .dst(dst_first(scaled, 1))
                    .src(index)
                    .src(shift),
            );
        } else {
            let factor = self.regs.scalar_src(stride);
            self.emit(
                Inst::new(Opcode::IMul)
                    .dst(dst_first(scaled, 1))
                    .src(index)
                    .src(factor),
            );
        }
        offset.dynamic_aligned_16 &= stride.is_multiple_of(16);
        let scaled = temp_value(scaled, 1);
        offset.dynamic = Some(RegValue::of(&match offset.dynamic.take() {
            None => scaled,
            Some(previous) => {
                let sum = self.regs.temp();
                self.emit(
                    Inst::new(Opcode::IAdd)
                        .dst(dst_first(sum, 1))
                        .src(previous.element(0))
                        .src(scaled.element(0)),
                );
                temp_value(sum, 1)
            }
        }));
        Ok(())
    }

    /// The byte address of an access as a scalar source.
    fn address(&mut self, offset: &ByteOffset) -> Src {
        match offset.dynamic {
            None => self.regs.scalar_src(offset.constant),
            Some(dynamic) if offset.constant == 0 => dynamic.element(0),
            Some(dynamic) => {
                let constant = self.regs.scalar_src(offset.constant);
                let sum = self.regs.temp();
                self.emit(
                    Inst::new(Opcode::IAdd)
                        .dst(dst_first(sum, 1))
                        .src(dynamic.element(0))
                        .src(constant),
                );
                // `.element(0)` of the one-element sum.
                let mut src = Src::temp(sum);
                src.swizzle = [CompSel::X; 4];
                src
            }
        }
    }

    /// `address + 4 * element`, for the per-dword LDS accesses.
    fn address_plus(&mut self, offset: &ByteOffset, element: u8) -> Src {
        let shifted = ByteOffset {
            constant: offset.constant.wrapping_add(4 * u32::from(element)),
            ..*offset
        };
        self.address(&shifted)
    }

    /// `OpLoad`.
    pub(super) fn lower_load(&mut self, inst: SpvInst<'_>) -> Result<(), Error> {
        let module = self.module;
        let (ty, result, operands) = super::typed_parts(inst);
        let (Some(result), Some(ty), Some(pointer)) = (result, ty, operands.first()) else {
            return Err(Unsupported::at(module, inst.index(), "a load without a result").into());
        };
        let place = self.place(Id(*pointer), inst)?;
        if let Place::Image(image) = place {
            // Loading an image or sampler variable yields the handle itself.
            self.set_place(result, Place::Image(image));
            return Ok(());
        }
        if let Some(storage) = self.forwardable_storage(place, ty)
            && self.forwards_load(inst, result, storage)
        {
            let value = self.in_place_value(inst, place, ty)?;
            self.set_value(result, value);
            return Ok(());
        }
        let value = self.load_place(inst, place, ty, 0)?;
        self.define_fresh(result, value);
        Ok(())
    }

    /// The storage a load of type `ty` from `place` may read in place, if load forwarding
    /// applies to it at all: a scalar or vector of 32-bit elements in a variable register or
    /// in one element of an indexed temporary array, or a whole indexed temporary array of
    /// them ([`Lowerer::in_place_value`] reads them).
    fn forwardable_storage(&self, place: Place, ty: Id) -> Option<Storage> {
        let narrow = |ty: Id| {
            // A remembered shape is a scalar's or vector's (see `may_have_parts`): the common
            // case, answered without looking at the type.
            if let Some(shape) = self.shapes.get(ty.0 as usize).and_then(Cell::get) {
                return !shape.is_wide();
            }
            !matches!(
                self.module.ty(ty),
                Some(Type::Struct { .. } | Type::Array { .. } | Type::Matrix { .. })
            ) && self.shape_of(ty).is_ok_and(|shape| !shape.is_wide())
        };
        match place {
            Place::Register { reg, .. } if narrow(ty) => Some(Storage::Register(reg)),
            Place::Indexed {
                array,
                whole_array: false,
                ..
            } if narrow(ty) => Some(Storage::Array(array)),
            Place::Indexed {
                array,
                shape,
                whole_array: true,
                ..
            } if !shape.is_wide() => match self.module.ty(ty) {
                Some(Type::Array { element, .. }) if narrow(*element) => {
                    Some(Storage::Array(array))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The value a forwarded load of type `ty` reads from `place` (one that
    /// [`Lowerer::forwardable_storage`] accepted): the variable's own components, where the
    /// copy [`Lowerer::load_place`] makes would hold them in positions `0..count`; a whole
    /// array member by member. The temporaries of the copies are still handed out, unused:
    /// the temporaries of the rest of the program keep their numbers, and the register budget
    /// (and its error, amd-il.md §8.5) counts what it counted before forwarding.
    fn in_place_value(&mut self, inst: SpvInst<'_>, place: Place, ty: Id) -> Result<Value, Error> {
        let module = self.module;
        match place {
            Place::Register { reg, first, .. } => {
                let shape = self.shape_of(ty).map_err(|u| located(module, inst, u))?;
                self.regs.temp();
                Ok(register_value(reg, first, shape.count))
            }
            Place::Indexed {
                array,
                element,
                dynamic,
                first,
                whole_array: false,
                ..
            } => {
                let shape = self.shape_of(ty).map_err(|u| located(module, inst, u))?;
                self.regs.temp();
                let reg = indexed_reg(&mut self.nested, array, element, dynamic);
                Ok(Value {
                    reg,
                    comps: rotated_left(XYZW, usize::from(first.min(3))),
                    count: shape.count,
                    members: MemberRange::default(),
                    wide: false,
                })
            }
            _ => {
                let Some(parts) = self.parts(inst, &place, ty)? else {
                    return Err(Unsupported::at(module, inst.index(), "this array load").into());
                };
                let mut members = Vec::with_capacity(parts.len());
                for at in parts.clone() {
                    let Some((part_place, part_type)) = self.part(at) else {
                        break;
                    };
                    // Parts of a whole array are single elements: no deeper recursion.
                    if matches!(
                        part_place,
                        Place::Indexed {
                            whole_array: true,
                            ..
                        }
                    ) {
                        return Err(Unsupported::at(module, inst.index(), "this array load").into());
                    }
                    members.push(self.in_place_value(inst, part_place, part_type)?);
                }
                self.part_stack.truncate(parts.start);
                Ok(self.members.aggregate(&members))
            }
        }
    }

    /// Load forwarding: whether the value `result` that `load` reads from variable storage
    /// `storage` (a register, or an indexed temporary array) may be read from the storage
    /// itself instead of from a copy. It may when every use of `result` is an instruction of
    /// the same block after `load` that reads it at once, and nothing before the last of them
    /// can write the variable:
    ///
    /// * the uses are counted against [`Lowerer::uses`] (which counts every word naming
    ///   `result` in the reachable functions, its definition included), so a use in another
    ///   block, in an `OpPhi` (whose copy is made on an edge), or in the block's terminator
    ///   (a branch condition, switch selector or returned value, lowered after the body) is
    ///   one not found, and the copy is kept;
    /// * each use must read the value at once ([`Lowerer::consumes_at_once`]: an elementwise
    ///   operation on 32-bit values, one IL instruction reading its operands where they are,
    ///   [`super::ops::is_elementwise`]; one of [`READ_AT_ONCE`]; an `OpStore` or
    ///   `OpImageWrite` of the value; an index of an access chain into memory), or be an
    ///   instruction whose result may re-label the value's components ([`followed_result`]: a
    ///   composite or vector operation, a bitcast, an extended instruction, ...), whose uses
    ///   are then held to the same rules (at most [`MAX_FORWARD_ALIASES`] values are
    ///   followed). Anything else (a call argument, an index into a private array, which the
    ///   access chain's place keeps, ...) keeps the copy;
    /// * a block body is lowered in order, its instructions one after another with nothing in
    ///   between (`lower_block`), so "between" in SPIR-V is between in the IL;
    /// * any `OpFunctionCall` in between may write the variable (through a pointer argument, or
    ///   a Private variable directly), and so may any other instruction naming a pointer into
    ///   it (`OpStore`, `OpCopyMemory`, atomics, GLSL.std.450 Modf/Frexp, SPIR-V §3.3.8, or a
    ///   copy of such a pointer): the pointer is the variable's own place, one of its parts,
    ///   an element of it, or an access chain into one made in between. Loads, access chains
    ///   and elementwise operations write nothing. A store into the variable may be the last
    ///   use itself: its IL copy reads before it writes.
    ///
    /// The search stops after [`MAX_FORWARD_SCAN`] instructions (the copy is then kept).
    fn forwards_load(&mut self, load: SpvInst<'_>, result: Id, storage: Storage) -> bool {
        use spirv::Op;
        let module = self.module;
        // The values that read the variable in place: the loaded one, and those re-labelled
        // from it (see `followed_result`), with how many of their uses are still to be found.
        // The definition is one of the words naming a value.
        let mut aliases = [(0u32, 0u32); MAX_FORWARD_ALIASES];
        let Some(unfound) = self.unfound_uses(result.0) else {
            return false;
        };
        if unfound == 0 {
            return true;
        }
        aliases[0] = (result.0, unfound);
        let mut alias_count = 1;
        let mut remaining = unfound;
        // The words from the end of the load to the end of the block body, walked without a
        // view of each instruction (SPIR-V §2.3: the word count is the high half of an
        // instruction's first word; the reader checked each is at least 1 and fits).
        let offset = load.location().byte_offset;
        // `byte_offset` saturates; a saturated one cannot be trusted.
        if offset == u32::MAX {
            return false;
        }
        let first = offset as usize / 4 + load.words().len();
        let Some(mut rest) = module.words().get(first..self.block_body_end) else {
            return false;
        };
        // Access chains into the variable made after the load (at most a few are followed).
        let mut chains = [0u32; MAX_FORWARD_CHAINS];
        let mut chain_count = 0;
        for _ in 0..MAX_FORWARD_SCAN {
            let Some(&head) = rest.first() else {
                return false;
            };
            let count = (head >> 16) as usize;
            let (Some(words), Some(next)) = (rest.get(..count), rest.get(count..)) else {
                return false;
            };
            if count == 0 {
                return false;
            }
            rest = next;
            let op = head & 0xFFFF;
            let operands = words.get(1..).unwrap_or(&[]);
            if op == Op::FunctionCall as u32 {
                return false;
            }
            // Each word is compared with the aliases one by one: an instruction has a few
            // operand words and there is usually one alias, so a plain loop beats counting
            // each alias's mentions with a vectorized count (set-up and remainder loops for a
            // handful of words). A mention past an alias's uses still to be found is one not
            // counted (a literal equal to the id, or a use the count missed): no forwarding.
            let mut mentioned = false;
            for &word in operands {
                for (alias, left) in aliases.iter_mut().take(alias_count) {
                    if word == *alias {
                        if *left == 0 {
                            return false;
                        }
                        *left -= 1;
                        remaining -= 1;
                        mentioned = true;
                    }
                }
            }
            if mentioned {
                let names = |w: Option<&u32>| {
                    w.is_some_and(|w| aliases[..alias_count].iter().any(|(a, _)| a == w))
                };
                let names_pointers = if let Some(relabelled) = followed_result(op, words) {
                    // Its result reads the register too: its uses are looked for as well.
                    let Some(unfound) = self.unfound_uses(relabelled) else {
                        return false;
                    };
                    if unfound > 0 {
                        let Some(slot) = aliases.get_mut(alias_count) else {
                            return false;
                        };
                        *slot = (relabelled, unfound);
                        alias_count += 1;
                        remaining += unfound;
                    }
                    true
                } else {
                    match self.consumes_at_once(op, words, names) {
                        AtOnce::No => return false,
                        AtOnce::Values => false,
                        AtOnce::MayNamePointers => true,
                    }
                };
                if remaining == 0 {
                    // The last use. A store of the value may write the variable itself, since
                    // its IL copy reads before it writes; any other use must not write it (an
                    // extended instruction's pointer operand, GLSL.std.450 Modf and Frexp).
                    return !names_pointers
                        || !operands.iter().any(|&w| {
                            chains[..chain_count].contains(&w) || self.points_into(w, storage)
                        });
                }
            }
            if op == Op::Load as u32 || op == Op::Line as u32 || op == Op::NoLine as u32 {
                continue;
            }
            if op == Op::AccessChain as u32 || op == Op::InBoundsAccessChain as u32 {
                // OpAccessChain: Result Type, Result id, Base, Indexes (SPIR-V §3.3.8).
                if let (Some(&chain), Some(&base)) = (words.get(2), words.get(3))
                    && (chains[..chain_count].contains(&base) || self.points_into(base, storage))
                {
                    let Some(slot) = chains.get_mut(chain_count) else {
                        return false;
                    };
                    *slot = chain;
                    chain_count += 1;
                }
                continue;
            }
            if super::ops::is_elementwise(op) {
                // Their operands are numeric or boolean values, never pointers (SPIR-V
                // §3.3.13–3.3.15, which validation enforces): they write no variable.
                continue;
            }
            let writes = operands
                .iter()
                .any(|&w| chains[..chain_count].contains(&w) || self.points_into(w, storage));
            if writes {
                return false;
            }
        }
        false
    }

    /// How many uses of the value `id` there are ([`Lowerer::uses`] less its definition).
    fn unfound_uses(&self, id: u32) -> Option<u32> {
        self.uses.get(id as usize).and_then(|n| n.checked_sub(1))
    }

    /// Whether the instruction with opcode `op` and `words`, which names a value (`is_value`
    /// tells its words), reads it at once into IL of its own and keeps no reference to its
    /// register: an elementwise operation or one of [`READ_AT_ONCE`] on 32-bit values, an
    /// `OpStore` of the value (not through it), an `OpImageWrite` of it (coordinate or texel,
    /// read by the `uav_store` it emits), or an access chain into buffer, constant-buffer or
    /// Workgroup memory taking it as an index (scaled at once into a fresh temporary,
    /// `Lowerer::add_scaled`; the chain's place keeps only that temporary).
    fn consumes_at_once(
        &mut self,
        op: u32,
        words: &[u32],
        is_value: impl Fn(Option<&u32>) -> bool,
    ) -> AtOnce {
        use spirv::Op;
        let verdict = |at_once: bool, kind: AtOnce| if at_once { kind } else { AtOnce::No };
        if op == Op::Store as u32 {
            // OpStore: Pointer, Object (SPIR-V §3.3.8). As the last use it may write the
            // variable itself, since its IL copy reads before it writes.
            return verdict(
                !is_value(words.get(1)) && is_value(words.get(2)),
                AtOnce::Values,
            );
        }
        if op == Op::ImageWrite as u32 {
            // OpImageWrite: Image, Coordinate, Texel (SPIR-V §3.3.10), and image operands:
            // values, never pointers (an image is a value; its place, if it has one, is an
            // image and holds no variable).
            return verdict(!is_value(words.get(1)), AtOnce::Values);
        }
        if op == Op::AccessChain as u32 || op == Op::InBoundsAccessChain as u32 {
            // OpAccessChain: Result Type, Result id, Base, Indexes (SPIR-V §3.3.8).
            return verdict(
                words
                    .get(3)
                    .is_some_and(|&base| !is_value(Some(&base)) && self.is_memory_pointer(base)),
                AtOnce::MayNamePointers,
            );
        }
        if !super::ops::is_elementwise(op) && !READ_AT_ONCE.contains(&op) {
            return AtOnce::No;
        }
        // Every one of these opcodes has a Result Type and a Result id (SPIR-V §3.3); their
        // operands are numeric or boolean values, never pointers (SPIR-V §3.3.13–3.3.15,
        // which validation enforces), and neither is their result.
        let result_type = words.get(1).map(|&w| Id(w));
        let operands = words.get(3..).unwrap_or(&[]);
        verdict(
            !self.touches_wide_parts(result_type, operands),
            AtOnce::Values,
        )
    }

    /// Whether `id` is a pointer into buffer, constant-buffer or Workgroup memory: a lowered
    /// pointer whose place is [`Place::Memory`], or a global variable not used yet whose place
    /// will be ([`Lowerer::global_place`] gives those resources a memory place).
    fn is_memory_pointer(&self, id: u32) -> bool {
        let id = Id(id);
        match self.places.get(id) {
            Some(place) => matches!(place, Place::Memory { .. }),
            None => {
                self.resources
                    .uav_of(id)
                    .is_some_and(|uav| !self.resources.is_typed_uav(uav))
                    || self.resources.cb_of(id).is_some()
                    || self.resources.lds_offset_of(id).is_some()
            }
        }
    }

    /// Whether `id` is a lowered pointer whose place is storage `storage` or contains it.
    fn points_into(&self, id: u32, storage: Storage) -> bool {
        self.places
            .get(Id(id))
            .is_some_and(|place| place_holds(&self.composite_places, place, storage, 0))
    }

    /// Loads the whole of `place`, whose type is `ty`: aggregates member by member (struct
    /// members at their Offset, array elements at their ArrayStride, matrix columns at their
    /// MatrixStride in buffers, SPIR-V §2.18.1), scalars and vectors at once.
    fn load_place(
        &mut self,
        inst: SpvInst<'_>,
        place: Place,
        ty: Id,
        depth: u32,
    ) -> Result<Value, Error> {
        let module = self.module;
        if depth > MAX_PRIVATE_NESTING {
            return Err(Unsupported::at(module, inst.index(), "a value nested this deeply").into());
        }
        if self.may_have_parts(ty)
            && let Some(parts) = self.parts(inst, &place, ty)?
        {
            let mut members = Vec::with_capacity(parts.len());
            for at in parts.clone() {
                let Some((part_place, part_type)) = self.part(at) else {
                    break;
                };
                members.push(self.load_place(inst, part_place, part_type, depth + 1)?);
            }
            self.part_stack.truncate(parts.start);
            return Ok(self.members.aggregate(&members));
        }
        let shape = self.shape_of(ty).map_err(|u| located(module, inst, u))?;
        Ok(match place {
            Place::Image(_) => {
                return Err(
                    Unsupported::at(module, inst.index(), "images inside aggregates").into(),
                );
            }
            Place::Builtin(value) => value.value(),
            Place::Register { reg, first, .. } if shape.is_wide() => {
                let slots = wide_slots(|e| register_slot(reg, e), first, shape.count);
                self.copy_wide(&slots)
            }
            Place::Register { reg, first, .. } => {
                self.load_components(Reg::new(RegType::Temp, reg), first, shape.count)
            }
            Place::Indexed {
                array,
                element,
                dynamic,
                first,
                ..
            } if shape.is_wide() => {
                let reg = indexed_reg(&mut self.nested, array, element, dynamic);
                let slots = wide_slots(|e| (reg, 2 * e), first, shape.count);
                self.copy_wide(&slots)
            }
            Place::Indexed {
                array,
                element,
                dynamic,
                first,
                ..
            } => {
                let reg = indexed_reg(&mut self.nested, array, element, dynamic);
                self.load_components(reg, first, shape.count)
            }
            Place::Composite(_) => {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "this load from a composite variable",
                )
                .into());
            }
            Place::Memory { space, offset, .. } => {
                if shape.scalar == Scalar::Bool && space != Space::Lds {
                    return Err(Unsupported::at(module, inst.index(), "booleans in buffers").into());
                }
                if shape.is_wide() {
                    self.load_wide_memory(inst, space, &offset, shape)?
                } else if let Space::Cb(cb) = space
                    && offset.dynamic.is_none()
                {
                    self.constant_buffer_value(inst, cb, offset.constant, shape.count)?
                } else {
                    self.load_memory(inst, space, &offset, shape.count)?
                }
            }
        })
    }

    /// Copies `count` elements starting at component `first` of `reg` into a fresh temporary.
    fn load_components(&mut self, reg: Reg, first: u8, count: u8) -> Value {
        let copy = self.regs.temp();
        // The source reads components `first..first + count` of `reg` into positions
        // `0..count`, and repeats the last one after them, as `Value::src` of the
        // components would (built directly: no value is needed to make one source).
        let mut source = Src::new(reg);
        source.swizzle = last_repeated(rotated_left(XYZW, usize::from(first.min(3))), count);
        self.emit_mov(dst_first(copy, count), source);
        temp_value(copy, count)
    }

    /// Writes the elements of `value` into components `first..` of `reg`.
    fn store_components(&mut self, reg: Reg, first: u8, value: &Value) {
        let mut dst = Dst::new(reg);
        let written = usize::from(first)..usize::from(first) + usize::from(value.count);
        dst.mask = std::array::from_fn(|position| {
            if written.contains(&position) {
                DstComp::Write
            } else {
                DstComp::NoWrite
            }
        });
        let mut src = value.src();
        // A right rotation by k is a left rotation by 4 - k.
        src.swizzle = rotated_left(src.swizzle, (4 - usize::from(first.min(3))) % 4);
        self.emit_mov(dst, src);
    }

    /// Whether [`Lowerer::parts`] may find parts of a place of type `ty`: not when `ty` has a
    /// remembered shape ([`Lowerer::shape_of`]), which only scalar and vector types have. Most
    /// loads and stores are of those, and this answers without looking at the type.
    fn may_have_parts(&self, ty: Id) -> bool {
        self.shapes
            .get(ty.0 as usize)
            .and_then(std::cell::Cell::get)
            .is_none()
    }

    /// The member places and types of an aggregate place, or `None` for a scalar or vector:
    /// pushed onto [`Lowerer::part_stack`], whose range they fill is returned. The caller
    /// reads them by position ([`Lowerer::part`]) and truncates the stack back to the range's
    /// start when done; parts of parts, found meanwhile, go on top and are gone by then. One
    /// list serves every aggregate load and store, so that none allocates a list of its own.
    fn parts(
        &mut self,
        inst: SpvInst<'_>,
        place: &Place,
        ty: Id,
    ) -> Result<Option<std::ops::Range<usize>>, Error> {
        let module = self.module;
        // The member types, borrowed from the module or one type repeated: the parts are
        // built in one list, with no list of types or places beside it.
        let (listed, repeated, count): (&[Id], Id, usize) = match module.ty(ty) {
            Some(Type::Struct { members }) => (members, ty, members.len()),
            Some(Type::Matrix { column, count }) => (&[], *column, *count as usize),
            Some(Type::Array { element, length }) => {
                let length = types::constant_u32(module, *length)
                    .filter(|n| *n as usize <= types::MAX_AGGREGATE_LEAVES)
                    .ok_or_else(|| {
                        Unsupported::at(module, inst.index(), "an array value of this length")
                    })?;
                (&[], *element, length as usize)
            }
            _ => return Ok(None),
        };
        let member_type = |index: usize| listed.get(index).copied().unwrap_or(repeated);
        let start = self.part_stack.len();
        self.part_stack.reserve(count);
        match place {
            Place::Composite(members) => {
                let members = members_of(&self.composite_places, *members);
                if members.len() != count {
                    return Err(mismatched_parts(module, inst));
                }
                for (index, member) in members.iter().enumerate() {
                    self.part_stack.push((*member, member_type(index)));
                }
            }
            Place::Indexed {
                array,
                shape,
                whole_array: true,
                ..
            } => {
                for element in 0..count as u32 {
                    let part = Place::Indexed {
                        array: *array,
                        element,
                        dynamic: None,
                        shape: *shape,
                        first: 0,
                        whole_array: false,
                    };
                    self.part_stack.push((part, member_type(element as usize)));
                }
            }
            Place::Memory {
                space,
                offset,
                pointee,
            } => {
                for index in 0..count as u32 {
                    let mut offset = *offset;
                    let pointee = self.memory_step(
                        inst,
                        *space,
                        &mut offset,
                        *pointee,
                        Index::Constant(index),
                    )?;
                    let part = Place::Memory {
                        space: *space,
                        offset,
                        pointee,
                    };
                    self.part_stack.push((part, member_type(index as usize)));
                }
            }
            _ => {
                return Err(
                    Unsupported::at(module, inst.index(), "an aggregate in this storage").into(),
                );
            }
        }
        Ok(Some(start..self.part_stack.len()))
    }

    /// Part `at` of [`Lowerer::part_stack`] (see [`Lowerer::parts`]).
    fn part(&self, at: usize) -> Option<(Place, Id)> {
        self.part_stack.get(at).copied()
    }

    /// The `count` dwords at constant byte offset `offset` of constant buffer `cb`, read in
    /// place (`cb0[4].yz`) rather than copied into a temporary: a constant buffer is
    /// read-only for the whole dispatch (amd-il.md §5 CONST_BUFF), so reading it at each use
    /// yields what a copy made at the load would hold, and every instruction may take a
    /// constant-buffer source, several of them and literals alike (AMD IL guide §4.1: "more
    /// than one different constant in a single instruction" is legal). The one place a
    /// source may not be an indexed register, the index of a register-relative operand (one
    /// level of indexing, guide §2.2.6), copies it first (`Lowerer::lower_access_chain`).
    fn constant_buffer_value(
        &mut self,
        inst: SpvInst<'_>,
        cb: u32,
        offset: u32,
        count: u8,
    ) -> Result<Value, Error> {
        // The copy's temporary is still handed out, unused (see `Lowerer::in_place_value`).
        self.regs.temp();
        let first_comp = self.constant_buffer_component(inst, offset, count)?;
        let reg = Reg::new(RegType::ConstBuff, cb).at(offset >> 4);
        Ok(Value {
            reg,
            comps: rotated_left(XYZW, first_comp as usize),
            count,
            members: MemberRange::default(),
            wide: false,
        })
    }

    /// The component (0–3) at which `count` dwords at byte offset `offset` of a constant
    /// buffer start within their 16-byte element; refused when they would straddle two
    /// elements, which one IL source cannot read (amd-il.md §9 "Storage classes").
    fn constant_buffer_component(
        &self,
        inst: SpvInst<'_>,
        offset: u32,
        count: u8,
    ) -> Result<u32, Error> {
        let first_comp = (offset >> 2) & 3;
        if first_comp + u32::from(count) > 4 {
            return Err(Unsupported::at(
                self.module,
                inst.index(),
                "a constant-buffer value that straddles two 16-byte elements",
            )
            .into());
        }
        Ok(first_comp)
    }

    /// Loads `count` consecutive dwords from memory into a fresh temporary.
    fn load_memory(
        &mut self,
        inst: SpvInst<'_>,
        space: Space,
        offset: &ByteOffset,
        count: u8,
    ) -> Result<Value, Error> {
        let loaded = self.regs.temp();
        match space {
            Space::Uav(uav) => {
                let address = self.address(offset);
                self.emit(
                    Inst::new(Opcode::UavRawLoad)
                        .ctrl(Control::id(uav as u16))
                        .dst(dst_first(loaded, count))
                        .src(address),
                );
                Ok(temp_value(loaded, count))
            }
            Space::Lds => {
                // lds_load reads one dword into dst.x (amd-il.md §6.4); gather the elements.
                for element in 0..count {
                    let address = self.address_plus(offset, element);
                    let dword = self.regs.temp();
                    self.emit(
                        Inst::new(Opcode::LdsLoad)
                            .ctrl(Control::id(0))
                            .dst(dst_first(dword, 1))
                            .src(address),
                    );
                    let mut dst = Dst::temp(loaded);
                    dst.mask = [DstComp::NoWrite; 4];
                    dst.mask[usize::from(element.min(3))] = DstComp::Write;
                    self.emit_mov(dst, Src::temp(dword).swz("x"));
                }
                Ok(temp_value(loaded, count))
            }
            Space::Cb(cb) => {
                let first_comp = self.constant_buffer_component(inst, offset.constant, count)?;
                let element = offset.constant >> 4;
                let reg = match &offset.dynamic {
                    None => Reg::new(RegType::ConstBuff, cb).at(element),
                    Some(dynamic) if offset.dynamic_aligned_16 => {
                        let index = self.regs.temp();
                        let four = self.regs.scalar(4);
                        self.emit(
                            Inst::new(Opcode::UShr)
                                .dst(dst_first(index, 1))
                                .src(dynamic.element(0))
                                .src(four.element(0)),
                        );
                        let offset = (element != 0).then_some(element);
                        let index = self.nested.push(temp_value(index, 1).element(0));
                        Reg::new(RegType::ConstBuff, cb).rel(index, offset)
                    }
                    Some(_) => {
                        return Err(Unsupported::at(
                            self.module,
                            inst.index(),
                            "dynamic indexing of a constant buffer with a stride that is not a multiple of 16",
                        )
                        .into());
                    }
                };
                let mut value = Value::in_reg(reg, count);
                for (position, comp) in value.comps.iter_mut().enumerate() {
                    *comp = match (first_comp as usize + position).min(3) {
                        0 => CompSel::X,
                        1 => CompSel::Y,
                        2 => CompSel::Z,
                        _ => CompSel::W,
                    };
                }
                // Copy out of the constant buffer so later uses need no index register.
                self.emit_mov(dst_first(loaded, count), value.src());
                Ok(temp_value(loaded, count))
            }
        }
    }

    /// Loads a 64-bit scalar or vector: its dwords four at a time, 16 bytes apart, as one or
    /// two registers.
    fn load_wide_memory(
        &mut self,
        inst: SpvInst<'_>,
        space: Space,
        offset: &ByteOffset,
        shape: Shape,
    ) -> Result<Value, Error> {
        let dwords = shape.dwords();
        let low = self.load_memory(inst, space, offset, dwords.min(4))?;
        let low = Value { wide: true, ..low };
        if dwords <= 4 {
            return Ok(low);
        }
        let high = self.load_memory(inst, space, &offset_by(offset, 16), dwords - 4)?;
        Ok(self.members.wide_split(low, Value { wide: true, ..high }))
    }

    /// `OpStore`.
    pub(super) fn lower_store(&mut self, inst: SpvInst<'_>) -> Result<(), Error> {
        let module = self.module;
        // OpStore has neither Result Type nor Result id: its operands follow the opcode word.
        let [_, pointer, object, ..] = inst.words() else {
            return Err(Unsupported::at(module, inst.index(), "a store without operands").into());
        };
        let object = Id(*object);
        self.resolve_value(object, inst)?;
        let place = self.place(Id(*pointer), inst)?;
        let ty = self
            .info
            .value_type(object)
            .ok_or_else(|| Unsupported::at(module, inst.index(), "a store of an untyped value"))?;
        // A value is plain words (its members live in the lowerer's list), so it is copied
        // out of the table for the store.
        let Some(value) = self.values.get(object).copied() else {
            return Err(
                Unsupported::at(module, inst.index(), "a store of an unlowered value").into(),
            );
        };
        if self.forwards_store(object, &place, &value) {
            return Ok(());
        }
        self.store_place(inst, place, ty, &value, 0)
    }

    /// Store forwarding: when `store` writes `value` (the result `object`) into the whole of a
    /// variable register from its first element, and the last IL instruction emitted wrote
    /// `object`'s fresh temporary whole, that instruction is made to write the variable
    /// instead and no copy is emitted ([`Lowerer::retarget_fresh`], which says why that is
    /// sound). Returns whether it was. Only IL comes between in the program: SPIR-V
    /// instructions between the definition and the store that emit none (access chains,
    /// forwarded loads, re-labellings) cannot read the variable before the store, since a
    /// load of it whose uses follow the store keeps its copy (`Lowerer::forwards_load`),
    /// and that copy is IL.
    fn forwards_store(&mut self, object: Id, place: &Place, value: &Value) -> bool {
        let Place::Register { reg, first: 0, .. } = place else {
            return false;
        };
        self.retarget_fresh(object, value.count, *reg)
    }

    /// Stores `value` (of type `ty`) into the whole of `place`, aggregates member by member.
    pub(super) fn store_place(
        &mut self,
        inst: SpvInst<'_>,
        place: Place,
        ty: Id,
        value: &Value,
        depth: u32,
    ) -> Result<(), Error> {
        let module = self.module;
        if depth > MAX_PRIVATE_NESTING {
            return Err(Unsupported::at(module, inst.index(), "a value nested this deeply").into());
        }
        if self.may_have_parts(ty)
            && let Some(parts) = self.parts(inst, &place, ty)?
        {
            let count = self.members.of(value).len();
            if parts.len() != count {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "a store whose value does not match its pointer",
                )
                .into());
            }
            // Members are read by position: each store needs the lowerer mutably, so the list
            // of members is not borrowed across it.
            for (at, i) in parts.clone().zip(0..count) {
                if let (Some((part_place, part_type)), Some(member)) =
                    (self.part(at), self.members.get(value, i))
                {
                    self.store_place(inst, part_place, part_type, &member, depth + 1)?;
                }
            }
            self.part_stack.truncate(parts.start);
            return Ok(());
        }
        match place {
            Place::Image(_) => {
                return Err(
                    Unsupported::at(module, inst.index(), "a store to an image variable").into(),
                );
            }
            Place::Composite(_) => {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "this store to a composite variable",
                )
                .into());
            }
            Place::Register { reg, first, .. } if value.wide => {
                let moves =
                    wide_store_moves(&self.members, |e| register_slot(reg, e), first, value);
                self.move_dwords(&moves);
            }
            Place::Register { reg, first, .. } => {
                self.store_components(Reg::new(RegType::Temp, reg), first, value);
            }
            Place::Indexed {
                array,
                element,
                dynamic,
                first,
                ..
            } if value.wide => {
                let reg = indexed_reg(&mut self.nested, array, element, dynamic);
                let moves = wide_store_moves(&self.members, |e| (reg, 2 * e), first, value);
                self.move_dwords(&moves);
            }
            Place::Indexed {
                array,
                element,
                dynamic,
                first,
                ..
            } => {
                let reg = indexed_reg(&mut self.nested, array, element, dynamic);
                self.store_components(reg, first, value);
            }
            Place::Memory {
                space: Space::Uav(uav),
                offset,
                ..
            } => {
                // A 64-bit vector of three or four elements is two stores, 16 bytes apart.
                for (k, part) in (0u32..).zip(self.members.parts(value).iter()) {
                    let address = self.address(&offset_by(&offset, 16 * k));
                    self.emit(
                        Inst::new(Opcode::UavRawStore)
                            .ctrl(Control::id(uav as u16))
                            .dst(Dst::mem().mask(mask_text(part.count)))
                            .src(address)
                            .src(part.src()),
                    );
                }
            }
            Place::Memory {
                space: Space::Lds,
                offset,
                ..
            } => {
                for (k, part) in (0u32..).zip(self.members.parts(value).iter()) {
                    let part_offset = offset_by(&offset, 16 * k);
                    for element in 0..part.count {
                        let address = self.address_plus(&part_offset, element);
                        self.emit(
                            Inst::new(Opcode::LdsStore)
                                .ctrl(Control::id(0))
                                .src(address)
                                .src(part.element(usize::from(element))),
                        );
                    }
                }
            }
            Place::Memory {
                space: Space::Cb(_),
                ..
            }
            | Place::Builtin(_) => {
                return Err(
                    Unsupported::at(module, inst.index(), "a store to read-only memory").into(),
                );
            }
        }
        Ok(())
    }

    /// `OpAtomic*` on a storage buffer or Workgroup memory (SPIR-V §3.3.18; amd-il.md §9
    /// "Synchronisation and atomics"). The returned old value becomes the result.
    // Out of line: rarer than the instructions `lower_inst` lowers itself, and inlined
    // into the block loop it would widen the loop's frame and spread its code.
    #[inline(never)]
    pub(super) fn lower_atomic(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<(), Error> {
        use spirv::Op;
        let module = self.module;
        let operands = inst.operands();
        let Some(pointer) = operands.first() else {
            return Err(
                Unsupported::at(module, inst.index(), "an atomic without a pointer").into(),
            );
        };
        let Place::Memory {
            space,
            offset,
            pointee,
        } = self.place(Id(*pointer), inst)?
        else {
            return Err(Unsupported::at(module, inst.index(), "atomics on this storage").into());
        };
        if self.is_wide_type(pointee) {
            // IL's UAV and LDS atomics read and write one dword (amd-il.md §7.4, guide §7.15,
            // §7.16); there is no 64-bit form.
            return Err(Unsupported::at(
                module,
                inst.index(),
                format!("Op{op:?} on 64-bit values (IL atomics are 32-bit)"),
            )
            .into());
        }
        let address = self.address(&offset);
        // Operand layout (SPIR-V §3.3.18): pointer, scope, semantics[, unequal semantics], values.
        let value_at = |n: usize| operands.get(n).map(|w| Id(*w));
        match op {
            Op::AtomicLoad => {
                let value = self.load_memory(inst, space, &offset, 1)?;
                if let Some(result) = inst.result_id() {
                    self.define_fresh(result, value);
                }
                return Ok(());
            }
            Op::AtomicStore => {
                let Some(value) = value_at(3) else {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "an atomic store without a value",
                    )
                    .into());
                };
                let value = self.value(value, inst)?;
                let old = self.regs.temp();
                let exchange = match space {
                    Space::Uav(_) => Opcode::UavReadXchg,
                    _ => Opcode::LdsReadXchg,
                };
                let ctrl = self.space_control(inst, space)?;
                self.emit(
                    Inst::new(exchange)
                        .ctrl(ctrl)
                        .dst(dst_first(old, 1))
                        .src(address)
                        .src(value.element(0)),
                );
                return Ok(());
            }
            _ => {}
        }
        // The value operand of the plain read-modify-write atomics (SPIR-V §3.3.18).
        const VALUE: AtomicOperand = AtomicOperand::Value(3);
        let (uav_op, lds_op, operand) = match op {
            Op::AtomicExchange => (Opcode::UavReadXchg, Opcode::LdsReadXchg, VALUE),
            Op::AtomicIAdd => (Opcode::UavReadAdd, Opcode::LdsReadAdd, VALUE),
            Op::AtomicISub => (Opcode::UavReadSub, Opcode::LdsReadSub, VALUE),
            Op::AtomicIIncrement => (Opcode::UavReadAdd, Opcode::LdsReadAdd, AtomicOperand::One),
            Op::AtomicIDecrement => (Opcode::UavReadSub, Opcode::LdsReadSub, AtomicOperand::One),
            Op::AtomicSMin => (Opcode::UavReadMin, Opcode::LdsReadMin, VALUE),
            Op::AtomicSMax => (Opcode::UavReadMax, Opcode::LdsReadMax, VALUE),
            Op::AtomicUMin => (Opcode::UavReadUmin, Opcode::LdsReadUmin, VALUE),
            Op::AtomicUMax => (Opcode::UavReadUmax, Opcode::LdsReadUmax, VALUE),
            Op::AtomicAnd => (Opcode::UavReadAnd, Opcode::LdsReadAnd, VALUE),
            Op::AtomicOr => (Opcode::UavReadOr, Opcode::LdsReadOr, VALUE),
            Op::AtomicXor => (Opcode::UavReadXor, Opcode::LdsReadXor, VALUE),
            Op::AtomicCompareExchange => (
                Opcode::UavReadCmpXchg,
                Opcode::LdsReadCmpXchg,
                AtomicOperand::ValueComparator,
            ),
            _ => return Err(Unsupported::at(module, inst.index(), format!("Op{op:?}")).into()),
        };
        let il_op = match space {
            Space::Uav(_) => uav_op,
            Space::Lds => lds_op,
            Space::Cb(_) => {
                return Err(
                    Unsupported::at(module, inst.index(), "atomics on read-only memory").into(),
                );
            }
        };
        let ctrl = self.space_control(inst, space)?;
        let result = self.regs.temp();
        let mut il = Inst::new(il_op)
            .ctrl(ctrl)
            .dst(dst_first(result, 1))
            .src(address);
        match operand {
            AtomicOperand::One => il = il.src(self.regs.scalar_src(1)),
            AtomicOperand::Value(n) => {
                let id = value_at(n).ok_or_else(|| {
                    Unsupported::at(module, inst.index(), "a missing atomic operand")
                })?;
                il = il.src(self.value_element(id, inst, 0)?);
            }
            AtomicOperand::ValueComparator => {
                // OpAtomicCompareExchange: pointer, scope, equal, unequal, Value, Comparator.
                let (Some(value), Some(comparator)) = (value_at(4), value_at(5)) else {
                    return Err(
                        Unsupported::at(module, inst.index(), "a missing atomic operand").into(),
                    );
                };
                let value = self.value_element(value, inst, 0)?;
                let comparator = self.value_element(comparator, inst, 0)?;
                // UAV: src1 = new value, src2 = comparand; LDS: src1 = comparand, src2 = new
                // value (amd-il.md §0.7).
                il = match space {
                    Space::Uav(_) => il.src(value).src(comparator),
                    _ => il.src(comparator).src(value),
                };
            }
        }
        self.emit(il);
        if let Some(id) = inst.result_id() {
            self.define_fresh(id, temp_value(result, 1));
        }
        Ok(())
    }

    /// The control field naming the resource of an access in `space`.
    fn space_control(&self, inst: SpvInst<'_>, space: Space) -> Result<Control, Error> {
        match space {
            Space::Uav(uav) => Ok(Control::id(uav as u16)),
            Space::Lds => Ok(Control::id(0)),
            Space::Cb(_) => {
                Err(Unsupported::at(self.module, inst.index(), "writing read-only memory").into())
            }
        }
    }

    /// `OpArrayLength`: (buffer bytes − member offset) / stride, with the buffer's byte size from
    /// the driver constant buffer (element `1 + uav`, `.x`), since IL has no query for a raw
    /// UAV's size.
    // Out of line: rarer than the instructions `lower_inst` lowers itself, and inlined
    // into the block loop it would widen the loop's frame and spread its code.
    #[inline(never)]
    pub(super) fn lower_array_length(&mut self, inst: SpvInst<'_>) -> Result<(), Error> {
        let module = self.module;
        let unsupported = |what: &str| Error::from(Unsupported::at(module, inst.index(), what));
        let (Some(result), [structure, member, ..]) = (inst.result_id(), inst.operands()) else {
            return Err(unsupported("an OpArrayLength without operands"));
        };
        let Place::Memory {
            space: Space::Uav(uav),
            offset,
            pointee,
        } = self.place(Id(*structure), inst)?
        else {
            return Err(unsupported("OpArrayLength on this storage"));
        };
        if offset.dynamic.is_some() {
            return Err(unsupported("OpArrayLength through a dynamic pointer"));
        }
        let Some(Type::Struct { members }) = module.ty(pointee) else {
            return Err(unsupported("OpArrayLength on a non-struct"));
        };
        let array_type = *members
            .get(*member as usize)
            .ok_or_else(|| unsupported("a member index past the struct"))?;
        let member_offset = self
            .member_offset(pointee, *member)
            .ok_or_else(|| unsupported("a struct member without an Offset"))?
            .wrapping_add(offset.constant);
        let stride = self
            .array_stride(array_type)
            .filter(|s| *s > 0)
            .ok_or_else(|| unsupported("a runtime array without an ArrayStride"))?;
        let driver = self.resources.driver_cb_for_sizes(self.module)?;
        let size = Value::in_reg(
            Reg::new(RegType::ConstBuff, driver).at(resources::DRIVER_CB_FIRST_UAV_SIZE + uav),
            1,
        );
        let bytes = self.regs.temp();
        let minus_offset = self.regs.scalar(member_offset.wrapping_neg());
        self.emit(
            Inst::new(Opcode::IAdd)
                .dst(dst_first(bytes, 1))
                .src(size.element(0))
                .src(minus_offset.element(0)),
        );
        let length = self.regs.temp();
        let (op, divisor) = if stride.is_power_of_two() {
            (Opcode::UShr, self.regs.scalar(stride.trailing_zeros()))
        } else {
            (Opcode::UDiv, self.regs.scalar(stride))
        };
        self.emit(
            Inst::new(op)
                .dst(dst_first(length, 1))
                .src(temp_value(bytes, 1).element(0))
                .src(divisor.element(0)),
        );
        self.define_fresh(result, temp_value(length, 1));
        Ok(())
    }

    /// `OpControlBarrier` and `OpMemoryBarrier` become `fence` with the options their memory
    /// semantics ask for (amd-il.md §6.6): `_threads` for a work-group execution barrier, `_lds`
    /// for Workgroup memory, `_memory` for buffer and image memory.
    // Out of line: rarer than the instructions `lower_inst` lowers itself, and inlined
    // into the block loop it would widen the loop's frame and spread its code.
    #[inline(never)]
    pub(super) fn lower_barrier(&mut self, op: spirv::Op, inst: SpvInst<'_>) -> Result<(), Error> {
        let module = self.module;
        let operands = inst.operands();
        let (execution, semantics_id) = match op {
            spirv::Op::ControlBarrier => (operands.first().copied(), operands.get(2).copied()),
            _ => (None, operands.get(1).copied()),
        };
        let semantics = semantics_id
            .and_then(|id| types::constant_u32(module, Id(id)))
            .ok_or_else(|| {
                Unsupported::at(
                    module,
                    inst.index(),
                    "memory semantics that are not a constant",
                )
            })?;
        let mut ctrl = Control::NONE;
        if let Some(scope) = execution {
            let scope = types::constant_u32(module, Id(scope)).ok_or_else(|| {
                Unsupported::at(module, inst.index(), "a scope that is not a constant")
            })?;
            if scope == spirv::Scope::Workgroup as u32 {
                ctrl = ctrl | Control::FENCE_THREADS;
            } else if scope != spirv::Scope::Subgroup as u32
                && scope != spirv::Scope::Invocation as u32
            {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "an execution barrier wider than a work-group",
                )
                .into());
            }
        }
        let bits = spirv::MemorySemantics::from_bits_truncate(semantics);
        if bits.contains(spirv::MemorySemantics::WORKGROUP_MEMORY) {
            ctrl = ctrl | Control::FENCE_LDS;
        }
        if bits.intersects(
            spirv::MemorySemantics::UNIFORM_MEMORY
                | spirv::MemorySemantics::CROSS_WORKGROUP_MEMORY
                | spirv::MemorySemantics::IMAGE_MEMORY,
        ) {
            ctrl = ctrl | Control::FENCE_MEMORY;
        }
        if ctrl != Control::NONE {
            self.emit(Inst::new(Opcode::Fence).ctrl(ctrl));
        }
        Ok(())
    }
}

/// The value operand of an atomic.
enum AtomicOperand {
    /// The id at this operand position.
    Value(usize),
    /// The constant 1 (increment, decrement).
    One,
    /// Compare-exchange's Value and Comparator.
    ValueComparator,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A register place of one float in temporary `reg`.
    fn float_in(reg: u32) -> Place {
        Place::Register {
            reg,
            shape: Shape {
                scalar: Scalar::Float,
                count: 1,
            },
            first: 0,
        }
    }

    /// Composite places compare by their members, as they did when each place held its
    /// members itself: two variables' places differ by their registers, and two ranges holding
    /// alike places (members without storage of their own) are the same place.
    #[test]
    fn composite_places_compare_by_content() {
        let empty = |start| Place::Composite(Members { start, len: 0 });
        // 0..2: a struct of two floats; 2..4: another; 4, 5: a struct of one empty struct,
        // twice, each with its empty member at a different start.
        let composites = [
            float_in(1),
            float_in(2),
            float_in(3),
            float_in(4),
            empty(0),
            empty(7),
        ];
        let first = Place::Composite(Members { start: 0, len: 2 });
        let second = Place::Composite(Members { start: 2, len: 2 });
        let nested_a = Place::Composite(Members { start: 4, len: 1 });
        let nested_b = Place::Composite(Members { start: 5, len: 1 });
        assert!(same_place(&composites, &first, &first, 0));
        assert!(!same_place(&composites, &first, &second, 0));
        assert!(same_place(&composites, &nested_a, &nested_b, 0));
        assert!(!same_place(&composites, &first, &float_in(1), 0));
        assert!(place_holds(&composites, &second, Storage::Register(4), 0));
        assert!(!place_holds(&composites, &second, Storage::Register(1), 0));
        assert!(!place_holds(&composites, &second, Storage::Array(4), 0));
    }
}
