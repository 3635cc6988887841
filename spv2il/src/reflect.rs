//! What a runtime needs to know to run a translated program: which IL resource id each
//! (set, binding) became, the constant buffers the driver must fill, the work-group size, and
//! the specialization-constant values the translation used.
//!
//! IL ids are assigned deterministically: resources of one IL kind are numbered in ascending
//! (set, binding) order, so the same module always gets the same ids.

use serde_json::{Value, json};

/// The IL kind of a bound resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ResourceKind {
    /// A storage buffer as a raw (byte-addressed) UAV: `dcl_raw_uav_id(n)`.
    RawUav,
    /// A storage image as a typed UAV: `dcl_uav_id(n)`.
    TypedUav,
    /// A sampled image as a resource `dcl_resource_id(n)`; its sampler is sampler `n`.
    Texture,
    /// A uniform buffer as a constant buffer: `dcl_cb cbN[size]`.
    ConstantBuffer,
    /// The push-constant block as a constant buffer.
    PushConstants,
    /// Values IL has no register for, filled by the runtime: element 0 = NumWorkgroups (x, y, z);
    /// element `1 + n` = UAV `n`'s byte size in `.x` (raw), or for a typed UAV its size in the
    /// order OpImageQuerySize returns it (width, then height or layers, then depth or layers).
    DriverConstants,
}

impl ResourceKind {
    /// The spelling used in the reflection JSON.
    pub fn name(self) -> &'static str {
        match self {
            ResourceKind::RawUav => "raw_uav",
            ResourceKind::TypedUav => "typed_uav",
            ResourceKind::Texture => "texture",
            ResourceKind::ConstantBuffer => "constant_buffer",
            ResourceKind::PushConstants => "push_constants",
            ResourceKind::DriverConstants => "driver_constants",
        }
    }
}

/// One SPIR-V resource variable and the IL resource it became.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceBinding {
    /// `DescriptorSet` decoration (`None` for push and driver constants).
    pub set: Option<u32>,
    /// `Binding` decoration (`None` for push and driver constants).
    pub binding: Option<u32>,
    /// The IL kind.
    pub kind: ResourceKind,
    /// The IL id (`_id(n)` of a UAV, `n` of `cbN`).
    pub il_id: u32,
    /// The variable's name (OpName), when the module has one.
    pub name: Option<String>,
    /// Size in bytes of a constant buffer (16-byte elements); `None` for UAVs.
    pub size: Option<u32>,
}

/// Everything [`crate::translate`] reports besides the program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reflection {
    /// The translated entry point's name.
    pub entry_point: String,
    /// Work-group size (LocalSize / LocalSizeId / the WorkgroupSize built-in).
    pub workgroup_size: [u32; 3],
    /// Every resource the program uses: UAVs in (set, binding) order, then constant buffers.
    pub resources: Vec<ResourceBinding>,
    /// Bytes of LDS (Workgroup memory) the program declares.
    pub lds_bytes: u32,
    /// Specialization constants the translation used, as (SpecId, value word), by SpecId.
    pub spec_constants: Vec<(u32, u32)>,
}

impl Reflection {
    /// The reflection as pretty-printed JSON (stable key order).
    pub fn to_json(&self) -> String {
        let resources: Vec<Value> = self
            .resources
            .iter()
            .map(|r| {
                json!({
                    "set": r.set,
                    "binding": r.binding,
                    "kind": r.kind.name(),
                    "il_id": r.il_id,
                    "name": r.name,
                    "size": r.size,
                })
            })
            .collect();
        let value = json!({
            "entry_point": self.entry_point,
            "workgroup_size": self.workgroup_size,
            "resources": resources,
            "lds_bytes": self.lds_bytes,
            "spec_constants": self.spec_constants.iter().map(|(id, value)| json!({"spec_id": id, "value": value})).collect::<Vec<_>>(),
        });
        // Serialising a Value built from plain data cannot fail; fall back to the compact form
        // rather than panicking should that ever change.
        serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string())
    }
}
