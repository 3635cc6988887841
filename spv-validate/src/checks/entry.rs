//! Entry points, execution modes and the static call graph (V-EP, V-FN-6, SPIR-V §2.16.1,
//! §3.2.5, §3.3.5): entry-point functions, duplicate names, the modes each execution model
//! permits and requires, workgroup sizes, and (from SPIR-V 1.4) complete interface lists.
//!
//! The call trees and referenced globals computed here are also facts for `ModuleInfo`.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use spv_reader::spirv::{ExecutionMode as M, ExecutionModel as X, Op};
use spv_reader::{Constant, Id, Type};

use crate::checks::Facts;
use crate::ctx::{Ctx, IdSet, NONE, OpSet, Ref};
use crate::scratch::Scratch;

/// Per function (index in `Module::functions`): called function ids and referenced
/// module-scope variables, both in first-use order, stored back to back.
#[derive(Default)]
pub(crate) struct CallGraph {
    calls: Vec<Id>,
    call_start: Vec<u32>,
    globals: Vec<Id>,
    global_start: Vec<u32>,
    /// Where [`check`] gathers one entry point's globals before copying them out.
    gathered: Vec<Id>,
    /// Where [`check_modes`] lists one entry point's execution modes (their positions in
    /// `Module::execution_modes`).
    modes: Vec<u32>,
}

impl CallGraph {
    /// The functions function `fi` calls.
    fn calls(&self, fi: usize) -> &[Id] {
        run(&self.call_start, &self.calls, fi)
    }

    /// The module-scope variables function `fi` references.
    fn globals(&self, fi: usize) -> &[Id] {
        run(&self.global_start, &self.globals, fi)
    }
}

/// Run `k` of lists stored back to back with their start positions.
fn run<'a>(start: &[u32], values: &'a [Id], k: usize) -> &'a [Id] {
    match (start.get(k), start.get(k + 1)) {
        (Some(&s), Some(&e)) => values.get(s as usize..e as usize).unwrap_or(&[]),
        _ => &[],
    }
}

/// Fills `is_global`: whether each id (dense, below [`crate::ctx::Index::id_count`]) is a
/// module-scope variable.
fn global_table(ctx: &Ctx<'_>, is_global: &mut Vec<bool>) {
    is_global.clear();
    is_global.resize(ctx.ix.id_count(), false);
    for g in ctx.m.global_variables() {
        if let Some(x) = is_global.get_mut(g.id.0 as usize) {
            *x = true;
        }
    }
}

/// Fills `graph` with the calls and global references of every function; `sets` are
/// scratch space. `is_global` is the table of [`global_table`]: while a function is walked,
/// the entries of the globals it has referenced so far are cleared (so that each later
/// reference costs one table look-up, and no set of seen globals is needed), then set
/// again, so that the table is whole on return.
pub(crate) fn call_graph(
    ctx: &Ctx<'_>,
    is_global: &mut [bool],
    sets: &mut [IdSet; 3],
    graph: &mut CallGraph,
) {
    let m = ctx.m;
    let ix = ctx.ix;
    let [seen_calls, _, _] = sets;
    seen_calls.reset(ix.id_count());
    graph.calls.clear();
    graph.call_start.clear();
    graph.globals.clear();
    graph.global_start.clear();
    // The calls, in module order: each function takes those inside its instructions
    // (functions come in module order and do not overlap).
    let mut calls = ix.with_op(Op::FunctionCall).peekable();
    for f in m.functions() {
        graph.call_start.push(graph.calls.len() as u32);
        let first_global = graph.globals.len();
        graph.global_start.push(first_global as u32);
        seen_calls.clear();
        while let Some(call) = calls.next_if(|call| call.index().0 < f.end.0) {
            if call.index().0 >= f.def.0
                && let Some(&callee) = call.words().get(3)
                && seen_calls.insert(Id(callee))
            {
                graph.calls.push(Id(callee));
            }
        }
        // Every id the function's instructions refer to, in one slice, read in runs: most
        // runs refer to no global not yet seen, which one OR of their table entries tells
        // without a branch per reference; the runs that do are walked one by one.
        let refs = ix.refs_in(f.def.0..f.end.0);
        let mut runs = refs.chunks_exact(GLOBAL_RUN);
        for run in &mut runs {
            if run.iter().fold(false, |any, r| any | flag(is_global, r.id)) {
                note_globals(run, is_global, &mut graph.globals);
            }
        }
        note_globals(runs.remainder(), is_global, &mut graph.globals);
        for g in graph.globals.get(first_global..).unwrap_or(&[]) {
            if let Some(x) = is_global.get_mut(g.0 as usize) {
                *x = true;
            }
        }
    }
    graph.call_start.push(graph.calls.len() as u32);
    graph.global_start.push(graph.globals.len() as u32);
}

/// How many references [`call_graph`] tests at once for a global not yet seen.
const GLOBAL_RUN: usize = 8;

/// `table`'s entry for `id` (`false` past its end).
#[inline]
fn flag(table: &[bool], id: Id) -> bool {
    table.get(id.0 as usize).copied().unwrap_or(false)
}

/// Appends to `found` the ids of `refs` whose entries in `is_global` are set, in order,
/// clearing each entry as its id is appended (so that each id is appended once).
fn note_globals(refs: &[Ref], is_global: &mut [bool], found: &mut Vec<Id>) {
    for r in refs {
        if let Some(unseen) = is_global.get_mut(r.id.0 as usize)
            && *unseen
        {
            *unseen = false;
            found.push(r.id);
        }
    }
}

/// The functions reachable from `root` through calls (root first; bounded by the number of
/// functions since each is visited once). `seen` is scratch space.
pub(crate) fn call_tree(ctx: &Ctx<'_>, graph: &CallGraph, root: Id, seen: &mut IdSet) -> Vec<Id> {
    let mut order = vec![root];
    seen.clear();
    seen.insert(root);
    let mut k = 0;
    while let Some(&f) = order.get(k) {
        k += 1;
        if let Some((fi, _)) = ctx.function(f) {
            for &c in graph.calls(fi) {
                if ctx.function(c).is_some() && seen.insert(c) {
                    order.push(c);
                }
            }
        }
    }
    order
}

/// Up to how many entry points, or execution modes of one entry point, a repeat is looked
/// for among the earlier ones instead of in a set (which allocates).
const FEW: usize = 16;

/// Which execution models a mode is valid for (`None` = no restriction known).
fn mode_models(mode: M) -> Option<&'static [X]> {
    const FRAG: &[X] = &[X::Fragment];
    const COMPUTE: &[X] = &[
        X::GLCompute,
        X::Kernel,
        X::TaskNV,
        X::MeshNV,
        X::TaskEXT,
        X::MeshEXT,
    ];
    const GEOM_TESS: &[X] = &[
        X::Geometry,
        X::TessellationControl,
        X::TessellationEvaluation,
    ];
    const TESS: &[X] = &[X::TessellationControl, X::TessellationEvaluation];
    Some(match mode {
        M::OriginUpperLeft
        | M::OriginLowerLeft
        | M::PixelCenterInteger
        | M::EarlyFragmentTests
        | M::DepthReplacing
        | M::DepthGreater
        | M::DepthLess
        | M::DepthUnchanged => FRAG,
        M::LocalSize | M::LocalSizeId => COMPUTE,
        M::LocalSizeHint | M::LocalSizeHintId | M::VecTypeHint | M::ContractionOff => &[X::Kernel],
        M::Invocations
        | M::InputPoints
        | M::InputLines
        | M::InputLinesAdjacency
        | M::InputTrianglesAdjacency
        | M::OutputLineStrip
        | M::OutputTriangleStrip => &[X::Geometry],
        M::Triangles => GEOM_TESS,
        M::SpacingEqual
        | M::SpacingFractionalEven
        | M::SpacingFractionalOdd
        | M::VertexOrderCw
        | M::VertexOrderCcw
        | M::PointMode
        | M::Quads
        | M::Isolines => TESS,
        _ => return None,
    })
}

/// Modes that may be given several times for one entry point (once per Target Width, or
/// with different operands).
fn mode_repeats(mode: u32) -> bool {
    [
        M::DenormPreserve,
        M::DenormFlushToZero,
        M::SignedZeroInfNanPreserve,
        M::RoundingModeRTE,
        M::RoundingModeRTZ,
        M::FPFastMathDefault,
    ]
    .iter()
    .any(|&m| m as u32 == mode)
}

/// Runs the pass; uses the flags and id sets of `scratch`.
pub(crate) fn check(ctx: &mut Ctx<'_>, facts: &mut Facts, scratch: &mut Scratch) {
    let m = ctx.m;
    let is_global = &mut scratch.flags;
    global_table(ctx, is_global);
    let graph = &mut scratch.calls;
    call_graph(ctx, is_global, &mut scratch.ids, graph);
    // The globals of one entry point's call tree are gathered here, then copied out at
    // their exact length.
    let mut gathered = std::mem::take(&mut graph.gathered);
    let mut modes = std::mem::take(&mut graph.modes);
    let is_global = &*is_global;
    let graph = &*graph;
    let [called, seen, listed] = &mut scratch.ids;
    for set in [&mut *called, &mut *seen, &mut *listed] {
        set.reset(ctx.ix.id_count());
    }
    for &c in &graph.calls {
        called.insert(c);
    }
    let limited = limited_instructions(ctx);
    // A few entry points (the usual case) are compared with the ones before them that name
    // a function (those that do not are left out of the name rule, as in the set); more go
    // through a set, so that many stay linear.
    let few = m.entry_points().len() <= FEW;
    let mut names: BTreeSet<(u32, &str)> = BTreeSet::new();
    facts.call_trees.reserve_exact(m.entry_points().len());
    facts.entry_globals.reserve_exact(m.entry_points().len());
    for (k, ep) in m.entry_points().iter().enumerate() {
        let i = ep.inst;
        let Some((_, f)) = ctx.function(ep.function) else {
            ctx.err(
                "V-EP-5",
                i,
                &[ep.function],
                format!("OpEntryPoint Entry Point {} is not a function", ep.function),
            );
            facts.call_trees.push(Vec::new());
            facts.entry_globals.push(Vec::new());
            continue;
        };
        if called.contains(ep.function) {
            ctx.err(
                "V-EP-2",
                i,
                &[ep.function],
                format!(
                    "function {} is targeted by both an OpEntryPoint and an OpFunctionCall",
                    ep.function
                ),
            );
        }
        let repeated = if few {
            m.entry_points().get(..k).unwrap_or(&[]).iter().any(|e| {
                e.execution_model == ep.execution_model
                    && e.name == ep.name
                    && ctx.function(e.function).is_some()
            })
        } else {
            !names.insert((ep.execution_model, ep.name.as_str()))
        };
        if repeated {
            ctx.err(
                "V-EP-3",
                i,
                &[ep.function],
                format!(
                    "2 entry points have the same execution model and name \"{}\"",
                    ep.name
                ),
            );
        }
        if let Some(Type::Function { ret, params }) = ctx.ty(f.function_type) {
            if !matches!(ctx.ty(*ret), Some(Type::Void)) {
                ctx.err(
                    "V-FN-6",
                    i,
                    &[ep.function],
                    format!(
                        "OpEntryPoint Entry Point {}'s function return type is not void",
                        ep.function
                    ),
                );
            }
            if !params.is_empty() && ctx.env.is_vulkan() {
                ctx.err(
                    "V-FN-6",
                    i,
                    &[ep.function],
                    format!(
                        "OpEntryPoint Entry Point {}'s function parameter count is not zero",
                        ep.function
                    ),
                );
            }
        }
        let tree = call_tree(ctx, graph, ep.function, seen);
        gathered.clear();
        seen.clear();
        for &fid in &tree {
            if let Some((fi, _)) = ctx.function(fid) {
                for &v in graph.globals(fi) {
                    if seen.insert(v) {
                        gathered.push(v);
                    }
                }
            }
        }
        gathered.sort_by_key(|v| ctx.ix.def(*v).map_or(0, |d| d.index().0));
        let globals = gathered.clone();
        check_interface(ctx, ep, &globals, is_global, listed);
        check_modes(ctx, ep, &mut modes);
        check_model_limits(ctx, ep, &tree, &limited);
        facts.call_trees.push(tree);
        facts.entry_globals.push(globals);
    }
    scratch.calls.gathered = gathered;
    scratch.calls.modes = modes;
    check_workgroup_size_constant(ctx);
    // V-EP-5: every OpExecutionMode targets an entry point.
    for em in m.execution_modes() {
        if !m.entry_points().iter().any(|ep| ep.function == em.target) {
            ctx.err(
                "V-EP-5",
                em.inst,
                &[em.target],
                format!(
                    "OpExecutionMode Entry Point {} is not the Entry Point operand of an \
                     OpEntryPoint",
                    em.target
                ),
            );
        }
    }
}

/// V-EP-9 for the `WorkgroupSize` built-in: a statically specified workgroup size must not
/// have a zero product (SPIR-V §2.16.1). The size is static when the decorated constant is an
/// `OpConstantComposite` of plain integer constants ([`static_sizes`]); with a specialization
/// constant among them it is known only after specialization, and spirv-val does not judge it
/// either.
fn check_workgroup_size_constant(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let Some(id) = ctx.workgroup_size_constant() else {
        return;
    };
    let Some(Constant::Composite {
        parts, spec: false, ..
    }) = m.constant(id)
    else {
        return;
    };
    let Some(sizes) = static_sizes(ctx, parts.iter().copied()) else {
        return;
    };
    if sizes.contains(&0)
        && let Some(at) = ctx.ix.def(id).map(|inst| inst.index())
    {
        let sizes: Vec<String> = sizes.iter().map(u64::to_string).collect();
        ctx.err(
            "V-EP-9",
            at,
            &[id],
            format!(
                "WorkgroupSize decorations must not have a static product of zero ({})",
                sizes.join(" × ")
            ),
        );
    }
}

/// The values of `ids` when every one is a plain integer constant (`OpConstant`, not a
/// specialization constant): a workgroup size known before specialization.
fn static_sizes(ctx: &Ctx<'_>, ids: impl Iterator<Item = Id>) -> Option<Vec<u64>> {
    ids.map(|id| match ctx.m.constant(id) {
        Some(Constant::Scalar {
            bits, spec: false, ..
        }) => Some(*bits),
        _ => None,
    })
    .collect()
}

/// The execution modes of one entry point (V-EP-5…9, V-EP-11); `positions` is scratch
/// space.
fn check_modes(ctx: &mut Ctx<'_>, ep: &spv_reader::EntryPoint, positions: &mut Vec<u32>) {
    let m = ctx.m;
    let model = ep.model();
    let all = m.execution_modes();
    positions.clear();
    positions.extend(
        all.iter()
            .enumerate()
            .filter(|(_, em)| em.target == ep.function)
            .map(|(k, _)| k as u32),
    );
    let modes = positions.iter().filter_map(|&k| all.get(k as usize));
    let few = positions.len() <= FEW;
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    for (k, em) in modes.clone().enumerate() {
        let repeated = if few {
            modes.clone().take(k).any(|e| e.mode == em.mode)
        } else {
            !seen.insert(em.mode)
        };
        if !mode_repeats(em.mode) && repeated {
            ctx.err(
                "V-EP-6",
                em.inst,
                &[ep.function],
                "an execution mode is declared twice for the same entry point",
            );
        }
        let Some(mode) = em.execution_mode() else {
            continue;
        };
        if let (Some(models), Some(model)) = (mode_models(mode), model)
            && !models.contains(&model)
        {
            ctx.err(
                "V-EP-5",
                em.inst,
                &[ep.function],
                format!(
                    "execution mode {mode:?} cannot be used with the {model:?} execution model"
                ),
            );
        }
        let id_form = matches!(
            mode,
            M::LocalSizeId | M::LocalSizeHintId | M::SubgroupsPerWorkgroupId
        );
        if em.is_id != id_form && !matches!(mode, M::FPFastMathDefault) {
            ctx.err(
                "V-EP-5",
                em.inst,
                &[ep.function],
                if em.is_id {
                    format!("OpExecutionModeId is only valid when the mode operands are ids ({mode:?} takes literals)")
                } else {
                    format!("OpExecutionMode is only valid when the mode operands are not ids ({mode:?} takes ids)")
                },
            );
        }
        match (mode, em.operands.as_slice()) {
            // A `WorkgroupSize` built-in constant, when there is one, is the workgroup size
            // (SPIR-V §3.2.20) and is checked instead ([`check_workgroup_size_constant`]);
            // spirv-val then accepts a zero LocalSize too.
            (M::LocalSize, &[x, y, z])
                if (x == 0 || y == 0 || z == 0) && ctx.workgroup_size_constant().is_none() =>
            {
                ctx.err(
                    "V-EP-9",
                    em.inst,
                    &[ep.function],
                    "Local Size execution mode must not have a product of zero",
                );
            }
            (M::LocalSizeId, ids) => {
                if static_sizes(ctx, ids.iter().map(|&id| Id(id))).is_some_and(|s| s.contains(&0))
                    && ctx.workgroup_size_constant().is_none()
                {
                    ctx.err(
                        "V-EP-9",
                        em.inst,
                        &[ep.function],
                        "LocalSizeId execution mode must not have a product of zero",
                    );
                }
                for &id in ids {
                    let ok = ctx.type_of(Id(id)).is_some_and(|t| ctx.is_int_scalar(t))
                        && ctx
                            .m
                            .constant(Id(id))
                            .is_some_and(|c| !matches!(c, Constant::Undef { .. }));
                    if !ok {
                        ctx.err(
                            "V-EP-5",
                            em.inst,
                            &[Id(id)],
                            "LocalSizeId operands must be integer scalar constant instructions",
                        );
                    }
                }
            }
            _ => {}
        }
    }
    let has = |mode: M| modes.clone().any(|em| em.mode == mode as u32);
    let count = |list: &[M]| list.iter().filter(|&&mm| has(mm)).count();
    if count(&[M::LocalSize, M::LocalSizeId]) > 1
        || count(&[M::LocalSizeHint, M::LocalSizeHintId]) > 1
    {
        ctx.err(
            "V-EP-8",
            ep.inst,
            &[ep.function],
            "at most one of LocalSize and LocalSizeId (and of their hints) may be declared",
        );
    }
    if !ctx.shader {
        return;
    }
    match model {
        Some(X::Fragment) => {
            match count(&[M::OriginUpperLeft, M::OriginLowerLeft]) {
                0 => ctx.err(
                    "V-EP-11",
                    ep.inst,
                    &[ep.function],
                    "Fragment execution model entry points require either an OriginUpperLeft or \
                     OriginLowerLeft execution mode",
                ),
                1 => {}
                _ => ctx.err(
                    "V-EP-11",
                    ep.inst,
                    &[ep.function],
                    "Fragment execution model entry points can only specify one of \
                     OriginUpperLeft and OriginLowerLeft execution modes",
                ),
            }
            if ctx.env.is_vulkan() && has(M::OriginLowerLeft) {
                ctx.err(
                    "V-EP-11",
                    ep.inst,
                    &[ep.function],
                    "in the Vulkan environment, the OriginLowerLeft execution mode must not be used",
                );
            }
            if count(&[M::DepthGreater, M::DepthLess, M::DepthUnchanged]) > 1 {
                ctx.err(
                    "V-EP-11",
                    ep.inst,
                    &[ep.function],
                    "Fragment execution model entry points can specify at most one of \
                     DepthGreater, DepthLess or DepthUnchanged execution modes",
                );
            }
        }
        Some(X::TessellationControl | X::TessellationEvaluation)
            if count(&[
                M::SpacingEqual,
                M::SpacingFractionalEven,
                M::SpacingFractionalOdd,
            ]) > 1
                || count(&[M::Triangles, M::Quads, M::Isolines]) > 1
                || count(&[M::VertexOrderCw, M::VertexOrderCcw]) > 1 =>
        {
            ctx.err(
                "V-EP-11",
                ep.inst,
                &[ep.function],
                "tessellation entry points can specify at most one spacing, one primitive \
                 and one vertex order execution mode",
            );
        }
        Some(X::Geometry) => {
            let inputs = count(&[
                M::InputPoints,
                M::InputLines,
                M::InputLinesAdjacency,
                M::Triangles,
                M::InputTrianglesAdjacency,
            ]);
            let outputs = count(&[M::OutputPoints, M::OutputLineStrip, M::OutputTriangleStrip]);
            if inputs != 1 || outputs != 1 {
                ctx.err(
                    "V-EP-11",
                    ep.inst,
                    &[ep.function],
                    "Geometry execution model entry points must specify exactly one input \
                     primitive and exactly one output primitive execution mode",
                );
            }
        }
        Some(X::GLCompute)
            if ctx.env.is_vulkan()
                && count(&[M::LocalSize, M::LocalSizeId]) == 0
                && ctx.workgroup_size_constant().is_none() =>
        {
            ctx.err(
                "V-EP-11",
                ep.inst,
                &[ep.function],
                "in the Vulkan environment, GLCompute execution model entry points require \
                 either the LocalSize or LocalSizeId execution mode or an object decorated \
                 with WorkgroupSize",
            );
        }
        _ => {}
    }
}

/// The execution models an instruction is limited to (V-EP-12), `None` when unrestricted.
fn limited_to(op: Op) -> Option<&'static [X]> {
    const FRAGMENT: &[X] = &[X::Fragment];
    Some(match op {
        Op::Kill | Op::TerminateInvocation | Op::DemoteToHelperInvocation => FRAGMENT,
        Op::DPdx
        | Op::DPdy
        | Op::Fwidth
        | Op::DPdxFine
        | Op::DPdyFine
        | Op::FwidthFine
        | Op::DPdxCoarse
        | Op::DPdyCoarse
        | Op::FwidthCoarse => &[
            X::Fragment,
            X::GLCompute,
            X::MeshEXT,
            X::TaskEXT,
            X::MeshNV,
            X::TaskNV,
        ],
        Op::EmitVertex | Op::EndPrimitive | Op::EmitStreamVertex | Op::EndStreamPrimitive => {
            &[X::Geometry]
        }
        _ => return None,
    })
}

/// The instructions that only some execution models allow, in module order: (index of
/// their function in `Module::functions`, opcode, the models). Usually none.
fn limited_instructions(ctx: &Ctx<'_>) -> Vec<(usize, u16, &'static [X])> {
    // Only the opcodes the module uses are tested; their instructions come in module
    // order, which is function order (functions do not overlap), and those outside
    // functions are left out.
    let mut out = Vec::new();
    static LIMITED: LazyLock<OpSet> = LazyLock::new(|| OpSet::new(|op| limited_to(op).is_some()));
    for inst in ctx.ix.with_ops_in(&LIMITED) {
        if inst.func() != NONE
            && let Some(models) = inst.opcode().and_then(limited_to)
        {
            out.push((inst.func() as usize, inst.raw_opcode(), models));
        }
    }
    out
}

/// V-EP-12: instructions restricted to some execution models are reachable only from
/// entry points of those models.
fn check_model_limits(
    ctx: &mut Ctx<'_>,
    ep: &spv_reader::EntryPoint,
    tree: &[Id],
    limited: &[(usize, u16, &'static [X])],
) {
    let Some(model) = ep.model() else { return };
    for &fid in tree {
        let Some((fi, _)) = ctx.function(fid) else {
            continue;
        };
        let from = limited.partition_point(|&(f, _, _)| f < fi);
        let bad = limited
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .take_while(|&&(f, _, _)| f == fi)
            .find(|(_, _, ms)| !ms.contains(&model));
        if let Some(&(_, opcode, _)) = bad {
            ctx.err(
                "V-EP-12",
                ep.inst,
                &[ep.function, fid],
                format!(
                    "OpEntryPoint Entry Point {}'s callgraph contains function {fid}, which cannot \
                     be used with the current execution model ({} is not allowed in {model:?})",
                    ep.function,
                    crate::diag::opcode_name(opcode)
                ),
            );
            return;
        }
    }
}

/// V-EP-4: the interface lists module-scope variables only; from SPIR-V 1.4 it lists every
/// global the call tree references, once; before 1.4 every referenced Input/Output global.
fn check_interface(
    ctx: &mut Ctx<'_>,
    ep: &spv_reader::EntryPoint,
    referenced: &[Id],
    is_global: &[bool],
    listed: &mut IdSet,
) {
    let m = ctx.m;
    let global = |v: Id| {
        is_global
            .get(v.0 as usize)
            .copied()
            .unwrap_or(false)
            .then(|| m.global_variables().iter().find(|g| g.id == v))
            .flatten()
    };
    let io = |g: &spv_reader::GlobalVariable| {
        matches!(
            spv_reader::spirv::StorageClass::from_u32(g.storage_class),
            Some(spv_reader::spirv::StorageClass::Input | spv_reader::spirv::StorageClass::Output)
        )
    };
    listed.clear();
    for &v in &ep.interface {
        if !is_global.get(v.0 as usize).copied().unwrap_or(false) {
            ctx.err(
                "V-EP-4",
                ep.inst,
                &[v],
                format!(
                    "interfaces passed to OpEntryPoint must be module-scope variables ({v} is not)"
                ),
            );
            continue;
        }
        if !listed.insert(v) && ctx.at_least(4) {
            ctx.err(
                "V-EP-4",
                ep.inst,
                &[v],
                format!("non-unique OpEntryPoint interface {v} is disallowed"),
            );
        }
        if !ctx.at_least(4)
            && let Some(g) = global(v)
            && !io(g)
        {
            ctx.err(
                "V-EP-4",
                ep.inst,
                &[v],
                "OpEntryPoint interfaces must be OpVariables with Storage Class of Input(1) or Output(3) before SPIR-V 1.4",
            );
        }
    }
    for &v in referenced {
        if listed.contains(v) {
            continue;
        }
        let Some(g) = global(v) else {
            continue;
        };
        if ctx.at_least(4) || io(g) {
            ctx.err(
                "V-EP-4",
                ep.inst,
                &[v],
                format!(
                    "the interface of entry point \"{}\" does not list {v}, which its static call tree references",
                    ep.name
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use spv_reader::rspirv::binary::Assemble;
    use spv_reader::rspirv::dr::Builder;
    use spv_reader::spirv;

    use crate::{Options, validate};

    /// How many diagnostics of `rule` validating a compute module gives, with `names` as
    /// its entry points' names (all GLCompute, on one function) and the LocalSize mode
    /// declared `modes` times for the first.
    fn count(rule: &str, names: &[String], modes: usize) -> usize {
        let mut b = Builder::new();
        b.capability(spirv::Capability::Shader);
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let void = b.type_void();
        let fn_ty = b.type_function(void, vec![]);
        let main = b
            .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        for name in names {
            b.entry_point(
                spirv::ExecutionModel::GLCompute,
                main,
                name.as_str(),
                vec![],
            );
        }
        for _ in 0..modes {
            b.execution_mode(main, spirv::ExecutionMode::LocalSize, vec![1, 1, 1]);
        }
        let module = spv_reader::read_words(&b.module().assemble()).unwrap();
        match validate(&module, &Options::default()) {
            Ok(_) => 0,
            Err(d) => d.0.iter().filter(|x| x.rule == rule).count(),
        }
    }

    /// `n` distinct entry-point names, the last made equal to the first when `repeat_last`.
    fn names(n: usize, repeat_last: bool) -> Vec<String> {
        let mut v: Vec<String> = (0..n).map(|k| format!("e{k}")).collect();
        if repeat_last && let Some(last) = v.last_mut() {
            *last = "e0".to_owned();
        }
        v
    }

    #[test]
    fn repeated_entry_names_are_found_by_scan_and_by_set() {
        for n in [2, super::FEW, super::FEW + 1, 3 * super::FEW] {
            assert_eq!(count("V-EP-3", &names(n, false), 1), 0, "{n}");
            assert_eq!(count("V-EP-3", &names(n, true), 1), 1, "{n}");
        }
    }

    #[test]
    fn repeated_modes_are_found_by_scan_and_by_set() {
        for n in [1, 2, super::FEW, super::FEW + 1, 3 * super::FEW] {
            assert_eq!(count("V-EP-6", &names(1, false), n), n - 1, "{n}");
        }
    }
}
