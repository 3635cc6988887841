//! How SPIR-V types map onto IL registers and onto buffer bytes.
//!
//! IL has one kind of storage for values: 4×32-bit registers (amd-il.md §7.1, §9 "Types"). A
//! 32-bit scalar or boolean takes one component, a vector of up to four 32-bit components takes
//! one register. Booleans are 0 / 0xFFFFFFFF, as every IL compare writes them (amd-il.md §0.2).
//! A 64-bit scalar (double or 64-bit integer) takes two components, low dword first (x = low,
//! y = high, or z / w: amd-il.md §0.10, guide §7.2.5); a 2-vector of them fills a register and a
//! 3- or 4-vector takes two ([`Shape::dwords`]).
//! Buffer layouts come from the module's explicit Offset / ArrayStride / MatrixStride
//! decorations (SPIR-V §2.18.1), never from a layout rule of our own.
//!
//! Structs, arrays and matrices held in registers are aggregates ([`Layout::Aggregate`]): one
//! layout per member, a matrix being an array of its column vectors (SPIR-V §2.2.2).

use spv_reader::{Id, Module, Type, spirv};

use crate::error::Unsupported;

/// The kind of one 32-bit component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// A boolean: 0 or 0xFFFFFFFF.
    Bool,
    /// A 32-bit integer; signedness only matters where an instruction does not say.
    Int {
        /// Signedness as declared.
        signed: bool,
    },
    /// A 32-bit float.
    Float,
    /// A 64-bit integer, two components (low dword, high dword).
    Int64 {
        /// Signedness as declared.
        signed: bool,
    },
    /// A 64-bit float (double), two components (low dword, high dword).
    Double,
}

impl Scalar {
    /// Whether the scalar is 64 bits wide (two components).
    pub fn is_wide(self) -> bool {
        matches!(self, Scalar::Int64 { .. } | Scalar::Double)
    }
}

/// The register shape of a value type: a scalar or a vector of 32- or 64-bit elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The component kind.
    pub scalar: Scalar,
    /// Number of elements, 1–4.
    pub count: u8,
}

impl Shape {
    /// Whether the elements are 64 bits wide.
    pub fn is_wide(self) -> bool {
        self.scalar.is_wide()
    }

    /// Number of 32-bit components the value occupies: the element count, or twice it for
    /// 64-bit elements (up to 8, i.e. two registers).
    pub fn dwords(self) -> u8 {
        if self.is_wide() {
            self.count * 2
        } else {
            self.count
        }
    }
}

/// The register shape of `ty`, or why it has none we support.
pub fn shape_of(module: &Module, ty: Id) -> Result<Shape, Unsupported> {
    match module.ty(ty) {
        Some(Type::Vector { component, count }) => {
            let scalar = scalar_of(module, *component)?;
            match u8::try_from(*count) {
                Ok(count @ 1..=4) => Ok(Shape { scalar, count }),
                _ => Err(Unsupported::new(format!("vectors of {count} components"))),
            }
        }
        _ => Ok(Shape {
            scalar: scalar_of(module, ty)?,
            count: 1,
        }),
    }
}

/// The most scalar and vector leaves an aggregate value may have. An aggregate is held in one
/// register per leaf, so this bounds the registers one SSA value can take (a `float[4096]`
/// value would already be more temporaries than IL allows, amd-il.md §8.5).
pub const MAX_AGGREGATE_LEAVES: usize = 4096;

/// How a value type is held: a scalar or vector in one register, or an aggregate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A scalar or vector.
    Vector(Shape),
    /// A struct, array or matrix: the layout of each member in order.
    Aggregate(Vec<Layout>),
}

/// The register layout of `ty`: vectors as [`shape_of`], structs, arrays and matrices as
/// aggregates of at most [`MAX_AGGREGATE_LEAVES`] leaves.
pub fn layout_of(module: &Module, ty: Id) -> Result<Layout, Unsupported> {
    let mut leaves = 0usize;
    layout_counting(module, ty, &mut leaves, 0)
}

/// Nesting of aggregate types is bounded by the leaf limit, but a chain of one-member structs
/// has one leaf however deep it is; this bounds the recursion on its own.
const MAX_AGGREGATE_DEPTH: usize = 64;

fn layout_counting(
    module: &Module,
    ty: Id,
    leaves: &mut usize,
    depth: usize,
) -> Result<Layout, Unsupported> {
    if depth > MAX_AGGREGATE_DEPTH {
        return Err(Unsupported::new(format!(
            "aggregates nested more than {MAX_AGGREGATE_DEPTH} deep"
        )));
    }
    let too_big = || {
        Unsupported::new(format!(
            "aggregate values of more than {MAX_AGGREGATE_LEAVES} scalars or vectors"
        ))
    };
    let repeat = |element: Id, count: u32, leaves: &mut usize| {
        let count = usize::try_from(count).map_err(|_| too_big())?;
        if count == 0 || count > MAX_AGGREGATE_LEAVES {
            return Err(too_big());
        }
        let member = layout_counting(module, element, leaves, depth + 1)?;
        // Each further copy has as many leaves as the first; count them without recursing.
        let per_member = leaf_count(&member);
        *leaves = per_member
            .checked_mul(count - 1)
            .and_then(|more| leaves.checked_add(more))
            .filter(|total| *total <= MAX_AGGREGATE_LEAVES)
            .ok_or_else(too_big)?;
        Ok(Layout::Aggregate(vec![member; count]))
    };
    match module.ty(ty) {
        Some(Type::Struct { members }) => {
            if members.is_empty() {
                return Err(Unsupported::new("values of an empty struct type"));
            }
            let mut layouts = Vec::with_capacity(members.len().min(MAX_AGGREGATE_LEAVES));
            for member in members {
                layouts.push(layout_counting(module, *member, leaves, depth + 1)?);
            }
            Ok(Layout::Aggregate(layouts))
        }
        Some(Type::Array { element, length }) => {
            let count = constant_u32(module, *length).ok_or_else(|| {
                Unsupported::new("arrays whose length is a specialization constant")
            })?;
            repeat(*element, count, leaves)
        }
        Some(Type::Matrix { column, count }) => repeat(*column, *count, leaves),
        Some(Type::RuntimeArray { .. }) => Err(Unsupported::new("runtime-array values")),
        _ => {
            *leaves += 1;
            if *leaves > MAX_AGGREGATE_LEAVES {
                return Err(too_big());
            }
            Ok(Layout::Vector(shape_of(module, ty)?))
        }
    }
}

/// The number of scalar and vector leaves of a layout.
fn leaf_count(layout: &Layout) -> usize {
    match layout {
        Layout::Vector(_) => 1,
        Layout::Aggregate(members) => members.iter().map(leaf_count).sum(),
    }
}

fn scalar_of(module: &Module, ty: Id) -> Result<Scalar, Unsupported> {
    match module.ty(ty) {
        Some(Type::Bool) => Ok(Scalar::Bool),
        Some(Type::Int { width: 32, signed }) => Ok(Scalar::Int { signed: *signed }),
        Some(Type::Float { width: 32 }) => Ok(Scalar::Float),
        Some(Type::Int { width: 64, signed }) => Ok(Scalar::Int64 { signed: *signed }),
        Some(Type::Float { width: 64 }) => Ok(Scalar::Double),
        Some(Type::Int { width, .. }) => Err(Unsupported::new(format!("{width}-bit integers"))),
        Some(Type::Float { width }) => Err(Unsupported::new(format!("{width}-bit floats"))),
        Some(other) => Err(Unsupported::new(format!(
            "values of type {}",
            type_name(other)
        ))),
        None => Err(Unsupported::new(format!("values of type {ty}"))),
    }
}

/// A short name of a type for messages.
pub fn type_name(ty: &Type) -> &'static str {
    match ty {
        Type::Void => "void",
        Type::Bool => "bool",
        Type::Int { .. } => "integer",
        Type::Float { .. } => "float",
        Type::Vector { .. } => "vector",
        Type::Matrix { .. } => "matrix",
        Type::Array { .. } => "array",
        Type::RuntimeArray { .. } => "runtime array",
        Type::Struct { .. } => "struct",
        Type::Pointer { .. } | Type::UntypedPointer { .. } | Type::ForwardPointer { .. } => {
            "pointer"
        }
        Type::Function { .. } => "function",
        Type::Image { .. } => "image",
        Type::Sampler => "sampler",
        Type::SampledImage { .. } => "sampled image",
        Type::Other { .. } => "opaque",
    }
}

/// The storage class and pointee of a pointer type.
pub fn pointer_parts(module: &Module, ty: Id) -> Option<(spirv::StorageClass, Id)> {
    match module.ty(ty) {
        Some(Type::Pointer {
            storage_class,
            pointee,
        }) => Some((spirv::StorageClass::from_u32(*storage_class)?, *pointee)),
        _ => None,
    }
}

/// The value of a 32-bit integer constant (used for array lengths and constant indices).
pub fn constant_u32(module: &Module, id: Id) -> Option<u32> {
    match module.constant(id) {
        Some(spv_reader::Constant::Scalar {
            bits, spec: false, ..
        }) => u32::try_from(*bits).ok(),
        _ => None,
    }
}

/// The single literal operand of decoration `kind` on `id`, if present.
pub fn decoration_literal(module: &Module, id: Id, kind: spirv::Decoration) -> Option<u32> {
    module
        .decoration(id, kind)
        .and_then(|d| d.operands.first().copied())
}

/// The `Offset` decoration of member `member` of struct `ty`.
pub fn member_offset(module: &Module, ty: Id, member: u32) -> Option<u32> {
    module
        .member_decorations(ty, member)
        .find(|d| d.decoration() == Some(spirv::Decoration::Offset))
        .and_then(|d| d.operands.first().copied())
}

/// The byte stride between consecutive elements of an array or runtime array type.
pub fn array_stride(module: &Module, ty: Id) -> Option<u32> {
    decoration_literal(module, ty, spirv::Decoration::ArrayStride)
}
