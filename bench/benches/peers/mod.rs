//! The peer baselines shared by the benches: rspirv's decoder with a consumer that keeps
//! nothing, and naga's parse + validate + WGSL output (and its first two steps alone).

/// naga's parse, validation and WGSL output; `None` when any step refuses the module.
pub fn naga_to_wgsl(bytes: &[u8], options: &naga::front::spv::Options) -> Option<String> {
    let (module, info) = naga_validated(bytes, options)?;
    naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty()).ok()
}

/// naga's parse and validation, the first two steps of [`naga_to_wgsl`]; `None` when either
/// refuses the module.
pub fn naga_validated(
    bytes: &[u8],
    options: &naga::front::spv::Options,
) -> Option<(naga::Module, naga::valid::ModuleInfo)> {
    let module = naga::front::spv::parse_u8_slice(bytes, options).ok()?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .ok()?;
    Some((module, info))
}

/// An rspirv consumer that keeps nothing: the cost of decoding alone.
pub struct IgnoreAll;

impl rspirv::binary::Consumer for IgnoreAll {
    fn initialize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn finalize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_header(&mut self, _: rspirv::dr::ModuleHeader) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_instruction(&mut self, _: rspirv::dr::Instruction) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
}

/// Whether rspirv's decoder accepts `bytes`.
pub fn rspirv_parses(bytes: &[u8]) -> bool {
    rspirv::binary::parse_bytes(bytes, &mut IgnoreAll).is_ok()
}
