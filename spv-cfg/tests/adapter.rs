//! The SPIR-V adapter (`Cfg::from_function`) on modules built with rspirv's builder, including
//! invalid ones the reader still accepts, and the printers on its output.

use spv_cfg::{
    Analysis, BlockIdx, Cfg, CfgError, Merge, Strategy, Terminator, region_text, structurize,
    to_dot, to_text,
};
use spv_reader::rspirv::binary::Assemble;
use spv_reader::rspirv::dr::{Builder, Operand};
use spv_reader::spirv;

/// A compute shader with a loop around a 64-bit switch and a phi:
/// ```text
/// entry → header [loop merge, continue latch] → sw [selection merge swm]
/// sw: switch (i64) default swm, 1 → case1, 0x1_0000_0002 → swm; case1 → swm
/// swm → latch (phi) → header (conditional back edge) | merge → return
/// ```
fn loop_switch_module() -> (Vec<u32>, Vec<u32>) {
    loop_switch_module_skipping(0)
}

/// [`loop_switch_module`] with `skip` unused ids allocated before the labels.
fn loop_switch_module_skipping(skip: u32) -> (Vec<u32>, Vec<u32>) {
    let mut b = Builder::new();
    for _ in 0..skip {
        b.id();
    }
    b.capability(spirv::Capability::Shader);
    b.capability(spirv::Capability::Int64);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let boolean = b.type_bool();
    let i64t = b.type_int(64, 1);
    let fn_ty = b.type_function(void, vec![]);
    let t = b.constant_true(boolean);
    let sel = b.constant_bit64(i64t, 5);
    let labels: Vec<u32> = (0..7).map(|_| b.id()).collect();
    let [entry, header, sw, case1, swm, latch, merge] = labels[..] else {
        unreachable!()
    };
    let f = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(Some(entry)).unwrap();
    b.branch(header).unwrap();
    b.begin_block(Some(header)).unwrap();
    b.loop_merge(merge, latch, spirv::LoopControl::NONE, vec![])
        .unwrap();
    b.branch(sw).unwrap();
    b.begin_block(Some(sw)).unwrap();
    b.selection_merge(swm, spirv::SelectionControl::NONE)
        .unwrap();
    b.switch(
        sel,
        swm,
        vec![
            (Operand::LiteralBit64(1), case1),
            (Operand::LiteralBit64(0x1_0000_0002), swm),
        ],
    )
    .unwrap();
    b.begin_block(Some(case1)).unwrap();
    b.branch(swm).unwrap();
    b.begin_block(Some(swm)).unwrap();
    b.branch(latch).unwrap();
    b.begin_block(Some(latch)).unwrap();
    b.phi(boolean, None, vec![(t, swm)]).unwrap();
    b.branch_conditional(t, header, merge, vec![]).unwrap();
    b.begin_block(Some(merge)).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, f, "main", vec![]);
    (b.module().assemble(), labels)
}

#[test]
fn loop_around_a_64_bit_switch() {
    let (words, labels) = loop_switch_module();
    let module = spv_reader::read_words(&words).unwrap();
    let f = &module.functions()[0];
    let cfg = Cfg::from_function(&module, f).unwrap();
    assert_eq!(cfg.len(), 7);
    assert_eq!(cfg.block(BlockIdx(0)).label, labels[0]);
    assert_eq!(
        cfg.block(BlockIdx(1)).merge,
        Merge::Loop {
            merge: BlockIdx(6),
            continue_target: BlockIdx(5)
        }
    );
    // The second literal needs both words (64-bit selector, SPIR-V §2.2.1).
    assert_eq!(
        cfg.block(BlockIdx(2)).terminator,
        Terminator::Switch {
            selector_bits: 64,
            default: BlockIdx(4),
            cases: vec![(1, BlockIdx(3)), (0x1_0000_0002, BlockIdx(4))],
        }
    );
    assert!(cfg.block(BlockIdx(5)).has_phis);
    assert!(!cfg.block(BlockIdx(4)).has_phis);
    let s = structurize(&cfg, Strategy::Merges).unwrap();
    assert_eq!(s.strategy, Strategy::Merges);
    // Checked by hand: the switch merge is the default, so only case 1 keeps an arm; the
    // back edge is conditional; the edge into the phi block is explicit.
    let (h, sw, c1, swm, latch, m) = (
        labels[1], labels[2], labels[3], labels[4], labels[5], labels[6],
    );
    let want = format!(
        "block %{e}\nloop {{\n  block %{h}\n  block %{sw}\n  switch %{sw} {{\n  case 1:\n    \
         block %{c1}\n    break\n  }}\n  block %{swm}\n  edge %{swm} -> %{latch}\n  \
         block %{latch}\n  if !%{latch} {{\n    break\n  }}\n}}\nblock %{m}\nreturn (%{m})\n",
        e = labels[0]
    );
    assert_eq!(region_text(&cfg, &s), want);
    // The full dump names the loop of each block; the dot graph marks the back edge.
    let a = Analysis::new(&cfg).unwrap();
    let text = to_text(&cfg, &a, &s);
    assert!(
        text.contains(&format!("%{latch}: OpBranchConditional %{h} %{m}")),
        "{text}"
    );
    assert!(text.contains(&format!("loop=%{h}")), "{text}");
    let dot = to_dot(&cfg, &a);
    assert!(dot.starts_with("digraph cfg {"));
    assert!(dot.contains("subgraph cluster_loop0"));
    assert!(dot.contains("n5 -> n1 [color=red penwidth=2];"), "{dot}");
    assert!(dot.contains("n1 -> n6 [style=dashed color=blue];"), "{dot}");
    assert!(
        dot.contains("n1 -> n5 [style=dotted color=darkgreen];"),
        "{dot}"
    );
}

/// Label ids of 16 Ki and up are found through a sorted table instead of the table indexed by
/// id. Renumbering the labels cannot change the graph, so the CFG must come out the same
/// either way, and again after the large ids (the by-id table is reused between functions).
#[test]
fn large_label_ids_give_the_same_cfg() {
    let build = |skip| {
        let (words, labels) = loop_switch_module_skipping(skip);
        let module = spv_reader::read_words(&words).unwrap();
        let cfg = Cfg::from_function(&module, &module.functions()[0]).unwrap();
        (cfg, labels)
    };
    let shape = |cfg: &Cfg| -> Vec<_> {
        cfg.blocks()
            .map(|b| {
                let d = cfg.block(b);
                (
                    d.terminator.clone(),
                    d.merge,
                    d.has_phis,
                    cfg.succs(b).to_vec(),
                    cfg.preds(b),
                )
            })
            .collect()
    };
    let (small, small_labels) = build(0);
    let (large, large_labels) = build(20_000);
    assert!(small_labels.iter().all(|&l| l < 1 << 14));
    assert!(large_labels.iter().all(|&l| l >= 1 << 14));
    assert_eq!(shape(&small), shape(&large));
    let (again, _) = build(0);
    assert_eq!(shape(&small), shape(&again));
}

/// A branch to an id that is not a label of the function (here: a constant) is invalid
/// SPIR-V the reader does not check; the adapter reports it at the branch.
#[test]
fn branch_to_a_non_label_is_a_located_error() {
    let mut b = Builder::new();
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let boolean = b.type_bool();
    let fn_ty = b.type_function(void, vec![]);
    let t = b.constant_true(boolean);
    b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    b.branch(t).unwrap();
    b.end_function().unwrap();
    let words = b.module().assemble();
    let module = spv_reader::read_words(&words).unwrap();
    let err = Cfg::from_function(&module, &module.functions()[0]).unwrap_err();
    let CfgError::Spirv(e) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(e.opcode.as_deref(), Some("OpBranch"));
    assert!(e.location.is_some());
    assert!(
        err.to_string()
            .contains(&format!("branch target %{t} is not a label")),
        "{err}"
    );
}
