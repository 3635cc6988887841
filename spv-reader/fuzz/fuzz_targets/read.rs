//! Fuzz target `read`: any bytes must give `Ok` or `Err` from `spv_reader::read`, never a
//! panic, hang or huge allocation. When a module reads, its views and its disassembly are
//! exercised too, since diagnostics call them on whatever the reader accepted.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(module) = spv_reader::read(data) {
        for inst in module.instructions() {
            let _ = (inst.result_type(), inst.result_id(), inst.operands());
        }
        for f in module.functions() {
            for b in &f.blocks {
                let _ = module.instructions_in(b.body()).count();
            }
        }
        let _ = spv_reader::disassemble(&module);
    }
});
