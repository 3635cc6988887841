//! An interpreter for AMD IL compute programs (`il_cs`), following the AMD IL reference guide
//! v2.4 (digest: amd-il.md §0, §6, §7).
//!
//! [`run`] executes an [`il_model::Program`] for a [`Dispatch`]: a grid of work-groups whose size
//! comes from `dcl_num_thread_per_group`, raw/structured/typed UAVs, SRVs and constant buffers
//! bound by id, and a step limit that turns an endless loop into an error. Work-groups run one
//! after another; the invocations of a group run in lock-step at barrier granularity, so
//! `fence_threads*` behaves as a work-group barrier. LDS is per group and starts zeroed.
//!
//! Semantics follow the guide's instruction pages: booleans are 0 / 0xFFFFFFFF; `mul`/`mad`/`dp*`
//! without `_ieee` make 0·x = 0; fp32 denormals are flushed on input and output of float
//! instructions (§7.2.1), not by moves; scalar transcendentals read `.w` and broadcast; shifts
//! use five bits of a replicated amount; `div`/`rcp`/`rsq`/`log` follow `_zeroop`; `mod` returns
//! the dividend for a zero divisor; compare-exchange operand order differs between UAV and LDS.
//!
//! Where the guide leaves a result undefined il-sim makes one documented choice:
//! * `ftoi`/`ftou` outside their range saturate, NaN converts to 0; `utof` rounds to nearest even;
//! * `udiv`/`umod` by zero give 0xFFFFFFFF (the D3D11 rule);
//! * `ffb_hi`/`ffb_shi` count from the MSB (DX11 `firstbit_hi`);
//! * `sqrt`/`rsq`/`log`/`pow` of negative numbers give NaN; `inf_else_max` means infinity;
//! * `len`/`dist` use xyz (the pages' prose) rather than xyzw (their pseudo-code);
//! * out-of-range UAV/SRV/LDS dword loads return 0 and stores are dropped (guide §7.2.12); a
//!   partially out-of-range multi-dword access is decided per dword; constant-buffer reads past
//!   the declared size return 0;
//! * typed UAVs and resources are [`Image`]s the dispatch binds with their real texel format
//!   (IL declares only the element class); loads return missing channels as (0, 0, 1), stores
//!   convert with round-to-nearest-even, out-of-range texels read (0, 0, 0, 0) and are not
//!   written; resources have one mip level (`load` of another level reads 0, `sample_l`
//!   ignores the LOD);
//! * LDS starts zeroed in every group; `lds_load` writes its dword to every enabled component;
//! * a barrier is released once every invocation of the group has reached a barrier or
//!   finished: invocations that finished no longer take part (as terminated wavefronts leave
//!   the hardware's barrier count);
//! * unaligned dword addresses, indexed-temp indices out of range and calls deeper than 32 are
//!   errors ([`ErrorKind::Runtime`]) rather than guesses.
//!
//! No program makes [`run`] panic: malformed programs (unbalanced blocks, undeclared resources,
//! register numbers beyond [`MAX_TEMP_REGISTERS`], ...) give a [`SimError`] that names the
//! instruction.

mod alu;
mod error;
mod exec;
mod image;
mod prepare;

pub use error::{ErrorKind, SimError};
pub use exec::MAX_CALL_DEPTH;
pub use image::{AddressMode, ChannelType, Image, Sampler, TexelFormat};
pub use prepare::{
    MAX_CB_ELEMENTS, MAX_CB_ID, MAX_INDEXED_TEMP_ELEMENTS, MAX_LDS_BYTES, MAX_TEMP_REGISTERS,
};

use il_model::Program;

/// Most invocations in one work-group (the AMD runtime's hardware limit, [`il_model::limits`]).
pub const MAX_GROUP_SIZE: u64 = il_model::limits::MAX_GROUP_INVOCATIONS as u64;

/// The step limit [`Dispatch::new`] sets: enough for every test kernel, small enough to stop an
/// endless loop within seconds.
pub const DEFAULT_STEP_LIMIT: u64 = 200_000_000;

/// The order in which il-sim runs work-groups, and the invocations of a group between barriers.
/// IL leaves the order open (guide §7.2.12: "no ordering guarantee among work-items for
/// atomics"), so a result that changes with it depends on scheduling: atomics whose return
/// values or final state are order-sensitive, or unsynchronised races.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Groups by increasing flat id; invocations by increasing flat local id.
    #[default]
    Forward,
    /// Both in decreasing order.
    Reverse,
    /// Groups forward; within a group the invocations take turns one instruction at a time
    /// (round-robin, as the lanes of a SIMD unit advance together), so identical invocations
    /// interleave their memory accesses instead of running one after another.
    Interleaved,
}

/// What to run a program on: the grid, the bound memory and the step limit.
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// Number of work-groups in x, y, z.
    pub groups: [u32; 3],
    /// Work-group size; `None` takes it from `dcl_num_thread_per_group`. A program declaring
    /// `dcl_max_thread_per_group` needs it here.
    pub group_size: Option<[u32; 3]>,
    /// UAV memory by UAV id (`uavs[n]` backs `_id(n)`); the program reads and writes it.
    pub uavs: Vec<Vec<u8>>,
    /// SRV memory by SRV id (read-only).
    pub srvs: Vec<Vec<u8>>,
    /// Constant buffers by number (`cbs[n]` backs `cbN`), as vec4 elements of raw words.
    pub cbs: Vec<Vec<[u32; 4]>>,
    /// Images behind typed UAVs (`dcl_uav`) by UAV id; the program reads and writes them.
    pub images: Vec<Option<Image>>,
    /// Images behind resources (`dcl_resource`) by resource id (read-only).
    pub textures: Vec<Option<Image>>,
    /// Sampler state by sampler id; a sampler not given samples nearest, clamped to the edge.
    pub samplers: Vec<Sampler>,
    /// Most instructions the whole dispatch may execute before [`ErrorKind::StepLimit`].
    pub step_limit: u64,
    /// The scheduling order.
    pub order: Order,
}

impl Dispatch {
    /// A dispatch of `groups` work-groups with no memory bound and [`DEFAULT_STEP_LIMIT`].
    pub fn new(groups: [u32; 3]) -> Dispatch {
        Dispatch {
            groups,
            group_size: None,
            uavs: Vec::new(),
            srvs: Vec::new(),
            cbs: Vec::new(),
            images: Vec::new(),
            textures: Vec::new(),
            samplers: Vec::new(),
            step_limit: DEFAULT_STEP_LIMIT,
            order: Order::Forward,
        }
    }
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Work-groups run.
    pub groups: u64,
    /// Invocations run.
    pub invocations: u64,
    /// Instructions executed, over all invocations.
    pub steps: u64,
    /// Work-group barriers released.
    pub barriers: u64,
}

/// Runs `program` for `dispatch`, updating its UAV memory in place.
pub fn run(program: &Program, dispatch: &mut Dispatch) -> Result<Stats, SimError> {
    let prep = prepare::prepare(program)?;
    let group_size = match (prep.group_size, dispatch.group_size) {
        (Some(declared), Some(given)) if declared != given => {
            return Err(SimError::whole(
                ErrorKind::Malformed,
                format!(
                    "the dispatch's group size {given:?} differs from dcl_num_thread_per_group {declared:?}"
                ),
            ));
        }
        (Some(size), _) | (None, Some(size)) => size,
        (None, None) => {
            return Err(SimError::whole(
                ErrorKind::Malformed,
                "no work-group size: the program has no dcl_num_thread_per_group and the dispatch gives none",
            ));
        }
    };
    if !il_model::limits::declarable_group(&group_size) {
        return Err(SimError::whole(
            ErrorKind::Malformed,
            format!("work-group size {group_size:?} is outside 1..={MAX_GROUP_SIZE} invocations"),
        ));
    }
    exec::run(program, &prep, dispatch, group_size)
}
