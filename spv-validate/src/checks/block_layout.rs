//! Explicit layout of Block/BufferBlock structures (V-LAYOUT-1…10, SPIR-V §2.2.2, §2.18.1;
//! the Vulkan alignment profile of digest §2.12).
//!
//! Every Block/BufferBlock struct used by a Uniform, StorageBuffer, PushConstant or
//! PhysicalStorageBuffer variable must be explicitly laid out (Offset on every member,
//! ArrayStride on arrays, MatrixStride and a majorness on matrices), in every environment.
//! Under Vulkan the offsets and strides must also satisfy the standard (Vulkan 1.0) or
//! relaxed (Vulkan 1.1 and later) block layout: std140-like extended alignment for Uniform
//! blocks, std430-like base alignment for the others, no overlaps, no improperly straddling
//! vectors. The arithmetic follows spirv-val's so that verdicts agree.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use spv_reader::spirv::{Decoration as D, StorageClass as S};
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::{Ctx, IdSet};
use crate::limits::MAX_TYPE_DEPTH;

/// Majorness and matrix stride of one struct member (spirv-val's "layout constraints").
#[derive(Clone, Copy, Default)]
struct Constraint {
    row_major: bool,
    matrix_stride: u32,
}

/// Most steps the recursive layout walks take per module: types that share members (a struct
/// of two copies of a struct of two copies ...) would otherwise unfold exponentially. Past it
/// the walks stop and judge nothing more (spirv-val's own walks do not finish on such types).
const MAX_LAYOUT_STEPS: u64 = 1 << 22;

/// The steps left of [`MAX_LAYOUT_STEPS`].
struct Budget(Cell<u64>);

impl Budget {
    /// Takes one step; `false` once the budget is spent.
    fn spend(&self) -> bool {
        let left = self.0.get();
        self.0.set(left.saturating_sub(1));
        left > 0
    }
}

struct Layout<'a, 'm> {
    ctx: &'a Ctx<'m>,
    budget: &'a Budget,
    /// Base alignments and sizes already computed, by (type, row-major, matrix stride): the
    /// walks are pure, and types that share members would otherwise unfold exponentially.
    alignments: RefCell<HashMap<(u32, bool, u32), u64>>,
    sizes: RefCell<HashMap<(u32, bool, u32), u64>>,
    /// Structs already found well laid out at a base offset.
    laid_out: RefCell<HashSet<(u32, u64)>>,
    /// Uniform-buffer (extended, rounded-up) alignment rules.
    block_rules: bool,
    relaxed: bool,
    pointer_size: u32,
    constraints: HashMap<(u32, u32), Constraint>,
}

fn member_decoration(ctx: &Ctx<'_>, st: Id, member: u32, d: D) -> Option<u32> {
    ctx.m
        .member_decorations(st, member)
        .find(|x| x.kind == d as u32)
        .map(|x| x.operands.first().copied().unwrap_or(0))
}

fn has_member_decoration(ctx: &Ctx<'_>, st: Id, member: u32, d: D) -> bool {
    ctx.m
        .member_decorations(st, member)
        .any(|x| x.kind == d as u32)
}

fn decoration_value(ctx: &Ctx<'_>, id: Id, d: D) -> Option<u32> {
    ctx.m
        .decoration(id, d)
        .map(|x| x.operands.first().copied().unwrap_or(0))
}

/// The member types of struct `st`, read in place (empty when `st` is no struct).
fn members<'m>(ctx: &Ctx<'m>, st: Id) -> &'m [Id] {
    match ctx.ty(st) {
        Some(Type::Struct { members }) => members,
        _ => &[],
    }
}

fn align(x: u64, a: u64) -> u64 {
    if a == 0 { x } else { x.div_ceil(a) * a }
}

impl Layout<'_, '_> {
    fn constraint(&self, st: Id, member: u32) -> Constraint {
        self.constraints
            .get(&(st.0, member))
            .copied()
            .unwrap_or_default()
    }

    fn base_alignment(&self, ty: Id, inherited: Constraint, depth: usize) -> u64 {
        let key = (ty.0, inherited.row_major, inherited.matrix_stride);
        if let Some(&known) = self.alignments.borrow().get(&key) {
            return known;
        }
        let alignment = self.base_alignment_of(ty, inherited, depth);
        self.alignments.borrow_mut().insert(key, alignment);
        alignment
    }

    fn base_alignment_of(&self, ty: Id, inherited: Constraint, depth: usize) -> u64 {
        if depth > MAX_TYPE_DEPTH || !self.budget.spend() {
            return 1;
        }
        let round = |a: u64| if self.block_rules { align(a, 16) } else { a };
        match self.ctx.ty(ty) {
            Some(Type::Int { width, .. } | Type::Float { width }) => u64::from(*width / 8),
            Some(Type::Vector { component, count }) => {
                let c = self.base_alignment(*component, inherited, depth + 1);
                c * u64::from(if *count == 3 { 4 } else { *count })
            }
            Some(Type::Matrix { column, count }) => {
                let a = if !inherited.row_major {
                    self.base_alignment(*column, inherited, depth + 1)
                } else {
                    let component = self.ctx.scalar_and_count(*column).map_or(*column, |x| x.0);
                    let c = self.base_alignment(component, inherited, depth + 1);
                    c * u64::from(if *count == 3 { 4 } else { *count })
                };
                round(a)
            }
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                round(self.base_alignment(*element, inherited, depth + 1))
            }
            Some(Type::Struct { members }) => {
                let mut a = 1;
                for (k, &m) in members.iter().enumerate() {
                    let c = self.constraint(ty, k as u32);
                    a = a.max(self.base_alignment(m, c, depth + 1));
                }
                round(a)
            }
            Some(Type::Pointer { .. } | Type::UntypedPointer { .. }) => {
                u64::from(self.pointer_size)
            }
            _ => 1,
        }
    }

    fn scalar_alignment(&self, ty: Id, depth: usize) -> u64 {
        if depth > MAX_TYPE_DEPTH || !self.budget.spend() {
            return 1;
        }
        match self.ctx.ty(ty) {
            Some(Type::Int { width, .. } | Type::Float { width }) => u64::from(*width / 8),
            Some(
                Type::Vector { component: e, .. }
                | Type::Matrix { column: e, .. }
                | Type::Array { element: e, .. }
                | Type::RuntimeArray { element: e },
            ) => self.scalar_alignment(*e, depth + 1),
            Some(Type::Struct { members }) => members
                .iter()
                .map(|&m| self.scalar_alignment(m, depth + 1))
                .max()
                .unwrap_or(1),
            Some(Type::Pointer { .. } | Type::UntypedPointer { .. }) => {
                u64::from(self.pointer_size)
            }
            _ => 1,
        }
    }

    fn size(&self, ty: Id, inherited: Constraint, depth: usize) -> u64 {
        let key = (ty.0, inherited.row_major, inherited.matrix_stride);
        if let Some(&known) = self.sizes.borrow().get(&key) {
            return known;
        }
        let size = self.size_of(ty, inherited, depth);
        self.sizes.borrow_mut().insert(key, size);
        size
    }

    fn size_of(&self, ty: Id, inherited: Constraint, depth: usize) -> u64 {
        if depth > MAX_TYPE_DEPTH || !self.budget.spend() {
            return 0;
        }
        let ctx = self.ctx;
        match ctx.ty(ty) {
            Some(Type::Int { width, .. } | Type::Float { width }) => u64::from(*width / 8),
            Some(Type::Vector { component, count }) => {
                self.size(*component, inherited, depth + 1) * u64::from(*count)
            }
            Some(Type::Array { element, length }) => {
                if ctx.m.constant(*length).is_some_and(|c| c.is_spec()) {
                    return 0;
                }
                let n = ctx.const_scalar(*length).unwrap_or(0) & 0xFFFF_FFFF;
                let stride = u64::from(decoration_value(ctx, ty, D::ArrayStride).unwrap_or(0));
                let elem = self.size(*element, inherited, depth + 1);
                n.saturating_sub(1) * stride + elem
            }
            Some(Type::Matrix { column, count }) => {
                let stride = u64::from(inherited.matrix_stride);
                if !inherited.row_major {
                    u64::from(*count) * stride
                } else {
                    let (scalar, rows) = ctx.scalar_and_count(*column).unwrap_or((*column, 1));
                    let s = self.size(scalar, inherited, depth + 1);
                    u64::from(rows.saturating_sub(1)) * stride + u64::from(*count) * s
                }
            }
            Some(Type::Struct { members }) => {
                let Some((last, &m)) = members.iter().enumerate().next_back() else {
                    return 0;
                };
                let offset =
                    u64::from(member_decoration(ctx, ty, last as u32, D::Offset).unwrap_or(0));
                // spirv-val looks the last member's constraint up by its type id.
                let c = self.constraint(m, last as u32);
                offset + self.size(m, c, depth + 1)
            }
            Some(Type::Pointer { .. } | Type::UntypedPointer { .. }) => {
                u64::from(self.pointer_size)
            }
            _ => 0,
        }
    }

    /// Checks the struct `st` placed at `base` bytes; the error names the member.
    fn check(&self, st: Id, base: u64, depth: usize) -> Result<(), (u32, String)> {
        if self.laid_out.borrow().contains(&(st.0, base)) {
            return Ok(());
        }
        self.check_members(st, base, depth)?;
        self.laid_out.borrow_mut().insert((st.0, base));
        Ok(())
    }

    fn check_members(&self, st: Id, base: u64, depth: usize) -> Result<(), (u32, String)> {
        if depth > MAX_TYPE_DEPTH || !self.budget.spend() {
            return Ok(());
        }
        let ctx = self.ctx;
        let ms = members(ctx, st);
        let mut order: Vec<(u32, u64)> = (0..ms.len() as u32)
            .map(|k| {
                let off =
                    member_decoration(ctx, st, k, D::Offset).map_or(u64::from(u32::MAX), u64::from);
                (k, base + off)
            })
            .collect();
        order.sort_by_key(|&(_, off)| off);
        let mut next_valid = 0u64;
        for &(k, offset) in &order {
            let Some(&id) = ms.get(k as usize) else {
                continue;
            };
            let c = self.constraint(st, k);
            let alignment = self.base_alignment(id, c, 0);
            let size = self.size(id, c, 0);
            let ty = ctx.ty(id);
            if offset - base == u64::from(u32::MAX) {
                return Err((k, "is missing an Offset decoration".to_owned()));
            }
            if let (true, Some(Type::Vector { component, .. })) = (self.relaxed, ty) {
                let sa = self.scalar_alignment(*component, 0);
                if offset % sa.max(1) != 0 {
                    return Err((
                        k,
                        format!("at offset {offset} is not aligned to scalar element size {sa}"),
                    ));
                }
            } else if offset % alignment.max(1) != 0 {
                return Err((
                    k,
                    format!("at offset {offset} is not aligned to {alignment}"),
                ));
            }
            if offset < next_valid {
                return Err((
                    k,
                    format!(
                        "at offset {offset} overlaps previous member ending at offset {}",
                        next_valid - 1
                    ),
                ));
            }
            if self.relaxed && matches!(ty, Some(Type::Vector { .. })) {
                let (f, l) = (offset, offset + size.max(1) - 1);
                let straddles = if size <= 16 {
                    f >> 4 != l >> 4
                } else {
                    f % 16 != 0
                };
                if straddles {
                    return Err((
                        k,
                        format!("is an improperly straddling vector at offset {offset}"),
                    ));
                }
            }
            if matches!(ty, Some(Type::Struct { .. })) {
                self.check(id, offset, depth + 1)?;
            }
            if matches!(ty, Some(Type::Matrix { .. }))
                && u64::from(c.matrix_stride) % alignment.max(1) != 0
            {
                return Err((
                    k,
                    format!(
                        "is a matrix with stride {} not satisfying alignment to {alignment}",
                        c.matrix_stride
                    ),
                ));
            }
            // Arrays, recursively.
            let mut array = id;
            let mut array_alignment = alignment;
            for _ in 0..MAX_TYPE_DEPTH {
                let (element, length) = match ctx.ty(array) {
                    Some(Type::Array { element, length }) => (*element, Some(*length)),
                    Some(Type::RuntimeArray { element }) => (*element, None),
                    _ => break,
                };
                let mut stride = 0u64;
                if let Some(s) = decoration_value(ctx, array, D::ArrayStride) {
                    stride = u64::from(s);
                    if stride == 0 {
                        return Err((k, "contains an array with stride 0".to_owned()));
                    }
                    if !stride.is_multiple_of(array_alignment.max(1)) {
                        return Err((
                            k,
                            format!(
                                "contains an array with stride {stride} not satisfying alignment to {alignment}"
                            ),
                        ));
                    }
                }
                let n = length
                    .filter(|&l| ctx.m.constant(l).is_some_and(|c| !c.is_spec()))
                    .and_then(|l| ctx.const_scalar(l))
                    .unwrap_or(0)
                    .max(1);
                match ctx.ty(element) {
                    Some(Type::Struct { .. }) => {
                        let mut seen = [false; 16];
                        for e in 0..n {
                            let next = e * stride + offset;
                            let slot = (next % 16) as usize;
                            if seen.get(slot).copied().unwrap_or(true) {
                                break;
                            }
                            self.check(element, next, depth + 1)?;
                            if let Some(s) = seen.get_mut(slot) {
                                *s = true;
                            }
                        }
                    }
                    Some(Type::Matrix { .. })
                        if u64::from(c.matrix_stride) % alignment.max(1) != 0 =>
                    {
                        return Err((
                            k,
                            format!(
                                "is a matrix with stride {} not satisfying alignment to {alignment}",
                                c.matrix_stride
                            ),
                        ));
                    }
                    _ => {}
                }
                array = element;
                array_alignment = self.base_alignment(array, c, 0);
                let element_size = self.size(array, c, 0);
                if element_size > stride {
                    return Err((
                        k,
                        format!(
                            "contains an array with stride {stride}, but with an element size of {element_size}"
                        ),
                    ));
                }
            }
            next_valid = offset + size;
            if matches!(ty, Some(Type::Array { .. } | Type::Struct { .. })) {
                next_valid = align(next_valid, alignment);
            }
        }
        Ok(())
    }
}

/// Collects the constraints of `st`'s members and, recursively, of nested structs.
fn compute_constraints(
    ctx: &Ctx<'_>,
    st: Id,
    out: &mut HashMap<(u32, u32), Constraint>,
    depth: usize,
    budget: &Budget,
) {
    // A struct already collected (its member 0 is in `out`) is not walked again.
    if depth > MAX_TYPE_DEPTH || out.contains_key(&(st.0, 0)) || !budget.spend() {
        return;
    }
    for (k, &m) in members(ctx, st).iter().enumerate() {
        let k = k as u32;
        let c = Constraint {
            row_major: has_member_decoration(ctx, st, k, D::RowMajor),
            matrix_stride: member_decoration(ctx, st, k, D::MatrixStride).unwrap_or(0),
        };
        out.insert((st.0, k), c);
        let mut inner = m;
        for _ in 0..MAX_TYPE_DEPTH {
            match ctx.ty(inner) {
                Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                    inner = *element
                }
                _ => break,
            }
        }
        if matches!(ctx.ty(inner), Some(Type::Struct { .. })) {
            compute_constraints(ctx, inner, out, depth + 1, budget);
        }
    }
}

/// spirv-val's `isMissingOffsetInStruct`.
fn missing_offset(
    ctx: &Ctx<'_>,
    id: Id,
    depth: usize,
    budget: &Budget,
    visited: &mut IdSet,
) -> bool {
    // A type seen before answered "no" (a "yes" ends the walk), so it is not walked again.
    if depth > MAX_TYPE_DEPTH || !visited.insert(id) || !budget.spend() {
        return false;
    }
    // The members' own Offsets are looked at before any member is walked (an Offset of
    // u32::MAX answers at once), then the members are walked in order, as spirv-val does;
    // the walk reads the type's member list in place.
    match ctx.ty(id) {
        Some(Type::Struct { members }) => {
            let mut all_have = true;
            for k in 0..members.len() {
                match member_decoration(ctx, id, k as u32, D::Offset) {
                    Some(u32::MAX) => return true,
                    Some(_) => {}
                    None => all_have = false,
                }
            }
            members
                .iter()
                .any(|&m| missing_offset(ctx, m, depth + 1, budget, visited))
                || !all_have
        }
        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
            missing_offset(ctx, *element, depth + 1, budget, visited)
        }
        _ => false,
    }
}

/// spirv-val's `checkForRequiredDecoration`: every member of kind `want` (arrays:
/// `array`; matrices: `!array`, arrays of matrices included) carries one of `decorations`.
fn has_required(
    ctx: &Ctx<'_>,
    st: Id,
    array: bool,
    decorations: &[D],
    depth: usize,
    budget: &Budget,
    visited: &mut IdSet,
) -> bool {
    // A struct seen before answered "yes" (a "no" ends the walk), so it is not walked again.
    if depth > MAX_TYPE_DEPTH || !visited.insert(st) || !budget.spend() {
        return true;
    }
    let ms = members(ctx, st);
    for (k, &m) in ms.iter().enumerate() {
        let mut id = m;
        if !array {
            for _ in 0..MAX_TYPE_DEPTH {
                match ctx.ty(id) {
                    Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                        id = *element
                    }
                    _ => break,
                }
            }
        }
        let kind_matches = match ctx.ty(id) {
            Some(Type::Array { .. }) => array,
            Some(Type::Matrix { .. }) => !array,
            _ => false,
        };
        if !kind_matches {
            continue;
        }
        let found = decorations.iter().any(|&d| {
            ctx.m.decoration(id, d).is_some() || has_member_decoration(ctx, st, k as u32, d)
        });
        if !found {
            return false;
        }
    }
    ms.iter()
        .filter(|&&m| matches!(ctx.ty(m), Some(Type::Struct { .. })))
        .all(|&m| has_required(ctx, m, array, decorations, depth + 1, budget, visited))
}

/// Runs the rules; `visited` is working memory for the walks (a dense set per walk rather
/// than a hash set: the walks visit few types, and each starts from an empty set).
pub(crate) fn check(ctx: &mut Ctx<'_>, visited: &mut IdSet) {
    let mut problems: Vec<(&'static str, InstIndex, Id, String)> = Vec::new();
    let mut checked: Vec<(u32, u32, bool)> = Vec::new();
    let budget = Budget(Cell::new(MAX_LAYOUT_STEPS));
    // Buffers reached through PhysicalStorageBuffer pointers have no variable: the values of
    // such pointer types stand in for one (spirv-val 2025.5 checks the layout of the Block a
    // PhysicalStorageBuffer value points to, and only when such a value exists).
    // Only values of a declared PhysicalStorageBuffer pointer type qualify.
    let psb = S::PhysicalStorageBuffer as u32;
    let any_physical = ctx.ix.type_decls().any(|t| {
        t.result_id()
            .and_then(|ty| ctx.pointer(ty))
            .is_some_and(|(class, _)| class == psb)
    });
    let candidates = if any_physical {
        ctx.ix.insts()
    } else {
        ctx.ix.insts_in(0..0)
    };
    let physical = candidates.copied().filter_map(|inst| {
        let ty = inst.result_type()?;
        let (class, _) = ctx.pointer(ty)?;
        (class == S::PhysicalStorageBuffer as u32).then_some((class, ty, inst.index()))
    });
    let objects: Vec<(u32, Id, InstIndex)> = ctx
        .m
        .global_variables()
        .iter()
        .map(|g| (g.storage_class, g.ty, g.inst))
        .chain(physical)
        .collect();
    for (storage_class, pointer_type, declared_at) in objects {
        let sc = S::from_u32(storage_class);
        let uniform = sc == Some(S::Uniform);
        let buffer_class = matches!(
            sc,
            Some(S::PushConstant | S::StorageBuffer | S::PhysicalStorageBuffer)
        );
        if !uniform && !buffer_class {
            continue;
        }
        let Some((_, mut id)) = ctx.pointer(pointer_type) else {
            continue;
        };
        if let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) = ctx.ty(id) {
            id = *element;
        }
        if !matches!(ctx.ty(id), Some(Type::Struct { .. })) {
            continue;
        }
        let block = ctx.m.decoration(id, D::Block).is_some();
        let buffer_block = ctx.m.decoration(id, D::BufferBlock).is_some();
        let block_rules = uniform && block;
        let buffer_rules = (uniform && buffer_block) || (buffer_class && block);
        if !block_rules && !buffer_rules {
            continue;
        }
        let key = (id.0, storage_class, block_rules);
        if checked.contains(&key) {
            continue;
        }
        checked.push(key);
        let deco = if block { "Block" } else { "BufferBlock" };
        let at = ctx.m.def(id).map_or(declared_at, |d| d.index());
        visited.reset(ctx.ix.id_count());
        if missing_offset(ctx, id, 0, &budget, visited) {
            problems.push(("V-LAYOUT-1", at, id, format!("structure {id} decorated as {deco} must be explicitly laid out with Offset decorations")));
            continue;
        }
        visited.clear();
        if !has_required(ctx, id, true, &[D::ArrayStride], 0, &budget, visited) {
            problems.push(("V-LAYOUT-2", at, id, format!("structure {id} decorated as {deco} must be explicitly laid out with ArrayStride decorations")));
            continue;
        }
        visited.clear();
        if !has_required(ctx, id, false, &[D::MatrixStride], 0, &budget, visited) {
            problems.push(("V-LAYOUT-3", at, id, format!("structure {id} decorated as {deco} must be explicitly laid out with MatrixStride decorations")));
            continue;
        }
        visited.clear();
        if !has_required(
            ctx,
            id,
            false,
            &[D::RowMajor, D::ColMajor],
            0,
            &budget,
            visited,
        ) {
            problems.push(("V-LAYOUT-3", at, id, format!("structure {id} decorated as {deco} must be explicitly laid out with RowMajor or ColMajor decorations")));
            continue;
        }
        if !ctx.env.is_vulkan() {
            continue;
        }
        let mut constraints = HashMap::new();
        compute_constraints(ctx, id, &mut constraints, 0, &budget);
        let relaxed = ctx.env.vulkan_version().is_some_and(|v| v >= (1, 1));
        let layout = Layout {
            ctx,
            budget: &budget,
            alignments: RefCell::new(HashMap::new()),
            sizes: RefCell::new(HashMap::new()),
            laid_out: RefCell::new(HashSet::new()),
            block_rules,
            relaxed,
            pointer_size: if ctx.addressing == 1 { 4 } else { 8 },
            constraints,
        };
        if let Err((member, why)) = layout.check(id, 0, 0) {
            let sc_name = sc.map_or_else(|| storage_class.to_string(), |s| format!("{s:?}"));
            problems.push((
                "V-LAYOUT-4",
                at,
                id,
                format!(
                    "structure {id} decorated as {deco} for variable in {sc_name} storage class must follow {} {} layout rules: member {member} {why}",
                    if relaxed { "relaxed" } else { "standard" },
                    if block_rules { "uniform buffer" } else { "storage buffer" }
                ),
            ));
        }
    }
    for (rule, at, id, message) in problems {
        ctx.err(rule, at, &[id], message);
    }
}
