//! Operand types of the shader-call instructions of the ray-tracing and mesh-shading
//! extensions (V-SSA-5, SPV_KHR_ray_tracing, SPV_EXT_mesh_shader): OpExecuteCallableKHR's SBT
//! Index and OpEmitMeshTasksEXT's three group counts are 32-bit unsigned integer scalars.

use spv_reader::spirv::Op;
use spv_reader::{Id, InstIndex, Type};

use crate::ctx::Ctx;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let mut problems: Vec<(InstIndex, Id, String)> = Vec::new();
    let candidates = ctx
        .ix
        .with_ops(&[Op::ExecuteCallableKHR, Op::EmitMeshTasksEXT]);
    for inst in candidates.into_iter().copied() {
        let operands: &[(usize, &str)] = match ctx.reader_op(inst) {
            Some(Op::ExecuteCallableKHR) => &[(1, "SBT Index")],
            Some(Op::EmitMeshTasksEXT) => &[
                (1, "Group Count X"),
                (2, "Group Count Y"),
                (3, "Group Count Z"),
            ],
            _ => continue,
        };
        for &(word, name) in operands {
            let Some(&id) = inst.words().get(word) else {
                continue;
            };
            let unsigned32 = ctx.type_of(Id(id)).is_some_and(|t| {
                matches!(
                    ctx.ty(t),
                    Some(Type::Int {
                        width: 32,
                        signed: false
                    })
                )
            });
            if !unsigned32 {
                problems.push((
                    inst.index(),
                    Id(id),
                    format!(
                        "{}: {name} must be a 32-bit unsigned int scalar",
                        crate::diag::opcode_name(inst.raw_opcode())
                    ),
                ));
            }
        }
    }
    for (at, id, message) in problems {
        ctx.err("V-SSA-5", at, &[id], message);
    }
}
