//! [`ModuleInfo`]: the facts a valid module guarantees, in the form later stages (spv-cfg,
//! the lowering) use them — value types per id, entry points with their interfaces,
//! execution modes and resolved workgroup size, and each function's blocks with successors.

use spv_reader::spirv::ExecutionMode;
use spv_reader::{Constant, Id};

use crate::cfg::FuncCfg;
use crate::checks::Facts;
use crate::ctx::{Ctx, NONE};
use crate::env::TargetEnv;

/// What a valid module guarantees.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ModuleInfo {
    /// SPIR-V (major, minor) of the module.
    pub version: (u8, u8),
    /// The environment it was validated for (resolved: never `ModuleVersion`).
    pub target_env: TargetEnv,
    /// Whether `Shader` is declared (directly or implied): structured control flow holds.
    pub shader: bool,
    /// Whether `Kernel` is declared.
    pub kernel: bool,
    /// Raw addressing model of `OpMemoryModel`.
    pub addressing_model: u32,
    /// Raw memory model of `OpMemoryModel`.
    pub memory_model: u32,
    /// Result type of each id (0 when the id has none), indexed by id.
    value_types: Vec<u32>,
    /// The entry points, in module order.
    pub entry_points: Vec<EntryPointInfo>,
    /// Function definitions and declarations, in module order.
    pub functions: Vec<FunctionInfo>,
}

impl ModuleInfo {
    /// The Result Type of the instruction defining `id` (a checked type id).
    pub fn value_type(&self, id: Id) -> Option<Id> {
        match self.value_types.get(id.0 as usize) {
            Some(&0) | None => None,
            Some(&t) => Some(Id(t)),
        }
    }

    /// The function whose `OpFunction` result is `id`.
    pub fn function(&self, id: Id) -> Option<&FunctionInfo> {
        self.functions.iter().find(|f| f.id == id)
    }
}

/// An entry point and what it needs from its environment.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EntryPointInfo {
    /// Its name.
    pub name: String,
    /// Raw execution model.
    pub execution_model: u32,
    /// The entry function.
    pub function: Id,
    /// The interface ids of `OpEntryPoint`.
    pub interface: Vec<Id>,
    /// Every `OpExecutionMode`/`OpExecutionModeId` for it: (raw mode, operand words).
    pub modes: Vec<(u32, Vec<u32>)>,
    /// The workgroup size when statically known: from a `WorkgroupSize` built-in constant
    /// (which takes precedence, SPIR-V §3.2.20), `LocalSize`, or `LocalSizeId` (the default
    /// values of specialization constants).
    pub local_size: Option<[u32; 3]>,
    /// For each dimension of `local_size`, the specialization constant that may change it.
    pub local_size_spec: [Option<Id>; 3],
    /// The functions its static call tree reaches, the entry function first.
    pub call_tree: Vec<Id>,
    /// The module-scope variables its call tree references, in module order.
    pub globals: Vec<Id>,
}

/// A function and its blocks.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FunctionInfo {
    /// Result id of `OpFunction`.
    pub id: Id,
    /// The blocks in module order (empty for a declaration); index 0 is the entry block.
    pub blocks: Vec<BlockInfo>,
    /// (label, block index), sorted by label.
    labels: Vec<(Id, u32)>,
    /// Every block's successor list, then every block's predecessor list, back to back: the
    /// ranges of [`BlockInfo`] point here, so that a function's edges are one allocation
    /// rather than two per block.
    edges: Vec<u32>,
}

impl FunctionInfo {
    /// The index of the block with label `label`.
    pub fn block_index(&self, label: Id) -> Option<u32> {
        self.labels
            .binary_search_by_key(&label, |&(l, _)| l)
            .ok()
            .and_then(|i| self.labels.get(i))
            .map(|&(_, b)| b)
    }

    /// How many branch edges the function has: the lengths of every block's
    /// [`successors`](FunctionInfo::successors) summed (and so of its predecessor lists).
    pub fn edge_count(&self) -> usize {
        self.edges.len() / 2
    }

    /// Successor block indices of block `block` (distinct, in terminator operand order; empty
    /// for an index past the last block).
    #[inline]
    pub fn successors(&self, block: u32) -> &[u32] {
        self.edge_list(block, |b| b.successors)
    }

    /// Predecessor block indices of block `block` (distinct; empty for an index past the last
    /// block).
    #[inline]
    pub fn predecessors(&self, block: u32) -> &[u32] {
        self.edge_list(block, |b| b.predecessors)
    }

    /// The part of `edges` that `range` picks out of block `block`'s info.
    #[inline]
    fn edge_list(&self, block: u32, range: impl Fn(&BlockInfo) -> (u32, u32)) -> &[u32] {
        self.blocks
            .get(block as usize)
            .map(range)
            .and_then(|(start, end)| self.edges.get(start as usize..end as usize))
            .unwrap_or(&[])
    }
}

/// One block of a function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BlockInfo {
    /// Its label.
    pub label: Id,
    /// Its successor list in the function's edges ([`FunctionInfo::successors`]).
    successors: (u32, u32),
    /// Its predecessor list in the function's edges ([`FunctionInfo::predecessors`]).
    predecessors: (u32, u32),
    /// The merge block of its merge instruction, if it is a header.
    pub merge: Option<u32>,
    /// The continue target, if it is a loop header.
    pub continue_target: Option<u32>,
    /// Whether the entry block reaches it along branch edges.
    pub reachable: bool,
    /// Its immediate dominator (over the augmented CFG), `None` for the entry block and for
    /// blocks whose only dominator is the pseudo entry.
    pub idom: Option<u32>,
}

/// Builds the facts of a module that passed every check.
pub(crate) fn build(ctx: &Ctx<'_>, facts: &mut Facts) -> ModuleInfo {
    let m = ctx.m;
    // Gathered by the ids pass (sized by the largest result id actually defined, as the
    // index is, not by the header's bound).
    let value_types = std::mem::take(&mut facts.value_types);
    let mut functions = Vec::with_capacity(m.functions().len());
    // The CFGs are in function order (declarations have none).
    let mut cfgs = facts.cfgs.iter().peekable();
    for (fi, f) in m.functions().iter().enumerate() {
        let cfg = cfgs.next_if(|c| c.func == fi as u32);
        let (blocks, edges) = match cfg {
            Some(c) => blocks_of(&f.blocks, c),
            // A declaration: no blocks, or (in a module that failed no rule) none with edges.
            None => (
                f.blocks.iter().map(|b| BlockInfo::bare(b.label)).collect(),
                Vec::new(),
            ),
        };
        let mut labels: Vec<(Id, u32)> = f
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.label, i as u32))
            .collect();
        // Labels are mostly numbered in block order, so the sort is mostly not needed.
        if !labels.is_sorted() {
            labels.sort_unstable();
        }
        functions.push(FunctionInfo {
            id: f.id,
            blocks,
            labels,
            edges,
        });
    }
    let entry_points = m
        .entry_points()
        .iter()
        .enumerate()
        .map(|(ei, ep)| {
            let modes: Vec<(u32, Vec<u32>)> = m
                .execution_modes()
                .iter()
                .filter(|em| em.target == ep.function)
                .map(|em| (em.mode, em.operands.clone()))
                .collect();
            let (local_size, local_size_spec) = local_size(ctx, ep.function);
            EntryPointInfo {
                name: ep.name.clone(),
                execution_model: ep.execution_model,
                function: ep.function,
                interface: ep.interface.clone(),
                modes,
                local_size,
                local_size_spec,
                call_tree: facts
                    .call_trees
                    .get_mut(ei)
                    .map(std::mem::take)
                    .unwrap_or_default(),
                globals: facts
                    .entry_globals
                    .get_mut(ei)
                    .map(std::mem::take)
                    .unwrap_or_default(),
            }
        })
        .collect();
    ModuleInfo {
        version: m.header().version,
        target_env: ctx.env,
        shader: ctx.shader,
        kernel: ctx.kernel,
        addressing_model: ctx.addressing,
        memory_model: ctx.memory_model,
        value_types,
        entry_points,
        functions,
    }
}

impl BlockInfo {
    /// The info of a block outside any CFG: no edges, unreachable, no merge or dominator.
    fn bare(label: Id) -> BlockInfo {
        BlockInfo {
            label,
            successors: (0, 0),
            predecessors: (0, 0),
            merge: None,
            continue_target: None,
            reachable: false,
            idom: None,
        }
    }
}

/// The [`BlockInfo`]s of a function's `blocks` from its CFG, with the edges their ranges
/// point into (each block's successors, then its predecessors).
fn blocks_of(blocks: &[spv_reader::Block], c: &FuncCfg) -> (Vec<BlockInfo>, Vec<u32>) {
    let n = blocks.len() as u32;
    // Each edge is listed twice: as a successor and as a predecessor.
    let mut edges = Vec::with_capacity(2 * c.graph.edge_count());
    // Appends `list` to the edges and returns its range there. Edge counts fit in u32: a
    // block has at most as many successors as its terminator has words, and the reader
    // bounds a module's words (`spv_reader::limits::MAX_WORDS`, 2^26). The lists are short
    // (one or two edges mostly), so an element loop beats a call to `memcpy`.
    let mut push_edges = |list: &[u32]| {
        let start = edges.len() as u32;
        for &e in list {
            edges.push(e);
        }
        (start, edges.len() as u32)
    };
    let mut out = Vec::with_capacity(blocks.len());
    for (bi, b) in blocks.iter().enumerate() {
        let bi32 = bi as u32;
        let merge = c.merges.get(bi).copied().flatten();
        out.push(BlockInfo {
            label: b.label,
            successors: push_edges(c.succs(bi32)),
            predecessors: push_edges(c.preds(bi32)),
            merge: merge.map(|mg| mg.merge).filter(|&x| x != NONE),
            continue_target: merge.and_then(|mg| mg.cont).filter(|&x| x != NONE),
            reachable: c.reachable.get(bi).copied().unwrap_or(false),
            idom: c.dom.idom.get(bi).copied().filter(|&d| d < n),
        });
    }
    (out, edges)
}

type Size = (Option<[u32; 3]>, [Option<Id>; 3]);

/// The workgroup size of the entry point `function` (SPIR-V §3.2.20 WorkgroupSize, §3.2.5
/// LocalSize/LocalSizeId).
fn local_size(ctx: &Ctx<'_>, function: Id) -> Size {
    let m = ctx.m;
    let scalar = |id: Id| -> (Option<u32>, Option<Id>) {
        match m.constant(id) {
            Some(Constant::Scalar { bits, spec, .. }) => (Some(*bits as u32), spec.then_some(id)),
            _ => (None, None),
        }
    };
    // A WorkgroupSize built-in constant applies to the whole module and wins over modes.
    if let Some(id) = ctx.workgroup_size_constant()
        && let Some(Constant::Composite { parts, .. }) = m.constant(id)
        && let [x, y, z] = parts.as_slice()
    {
        let (a, b, c) = (scalar(*x), scalar(*y), scalar(*z));
        if let (Some(a0), Some(b0), Some(c0)) = (a.0, b.0, c.0) {
            return (Some([a0, b0, c0]), [a.1, b.1, c.1]);
        }
    }
    for em in m.execution_modes().iter().filter(|e| e.target == function) {
        match (em.execution_mode(), em.operands.as_slice()) {
            (Some(ExecutionMode::LocalSize), &[x, y, z]) => return (Some([x, y, z]), [None; 3]),
            (Some(ExecutionMode::LocalSizeId), &[x, y, z]) => {
                let (a, b, c) = (scalar(Id(x)), scalar(Id(y)), scalar(Id(z)));
                if let (Some(a0), Some(b0), Some(c0)) = (a.0, b.0, c.0) {
                    return (Some([a0, b0, c0]), [a.1, b.1, c.1]);
                }
            }
            _ => {}
        }
    }
    (None, [None; 3])
}
