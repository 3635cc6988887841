//! Control flow: a function's region tree (spv-cfg) becomes IL's structured flow control.
//!
//! The tree already has IL's shape (spv-cfg `region` module docs): `If` becomes
//! `if_logicalnz`/`if_logicalz` … `else` … `endif`, `Loop` becomes `whileloop` … `endloop`,
//! `Switch` becomes `switch`/`case`/`default`/`endswitch` with C fall-through, and `Break` /
//! `Continue` are single-level (AMD IL guide §7.4; amd-il.md §6.1, §7.6). Multi-level exits
//! arrive as synthetic variables, which live in one temporary register each.
//!
//! `OpPhi` results get their register before any block is lowered; each `Edge` region then
//! performs the phi copies of that edge as one parallel copy (SPIR-V §3.3.17 OpPhi: all phis of
//! a block read their operands before any of them is written). When the last IL instruction
//! computed one of the edge's incoming values into a fresh temporary that nothing else reads,
//! that instruction writes the phi's register instead of being copied (phi forwarding).
//!
//! A called function is lowered again at every call site (inlined, or once per subroutine
//! instance), so what depends on its instructions alone (the region tree, its phis, where each
//! block body ends) is worked out once, in a [`FunctionPlan`], and shared by all its sites.

use std::cell::OnceCell;
use std::rc::Rc;

use il_model::{Inst, Opcode, Reg, RegType};
use spv_cfg::{Arms, BlockIdx, Cfg, Cond, Region, Seq, Strategy, Structured, Var};
use spv_reader::{Function, Id, Inst as SpvInst, InstIndex, spirv};

use super::memory::located;
use super::types;
use super::values::{MemberValues, Value, XYZW, dst_first};
use super::{Lowerer, has_opcode};
use crate::error::{Error, Unsupported};

/// What the lowering needs of a function besides its instructions, worked out once per
/// function: a called function is inlined (or instantiated) at every call site, and none of
/// this depends on the site.
pub(super) struct FunctionPlan {
    /// The region tree (spv-cfg, merge-based strategy).
    structured: Structured,
    /// Whether the tree's only `Return` ends its top-level body: then a call inlines the
    /// function instead of making it a subroutine (see [`Lowerer::lower_call`]). Worked out
    /// at the first call, once for all call sites (an entry point is never called).
    returns_only_at_end: OnceCell<bool>,
    /// The `OpPhi` instructions of the function, block by block in block order.
    phis: Vec<InstIndex>,
    /// Per block, in the order of `Function::blocks` (spv-cfg's `BlockIdx` numbering).
    blocks: Vec<BlockPlan>,
}

/// The parts of one block's body ([`FunctionPlan::blocks`]).
struct BlockPlan {
    /// The block's phis: `FunctionPlan::phis[phis]`.
    phis: std::ops::Range<usize>,
    /// The first body instruction after the leading phis (and the `OpLine`/`OpNoLine` among
    /// them, which have no effect): where [`Lowerer::lower_block`] starts.
    after_phis: u32,
    /// The end (exclusive) of the body as a word offset into the module, for load forwarding
    /// ([`Lowerer::block_body_end`]); 0 when the reader's offset cannot be trusted (0 stops
    /// the search).
    body_end_word: usize,
}

impl FunctionPlan {
    /// Reads the phis and body bounds of `function`'s blocks (`cfg` is its CFG, which says
    /// which blocks have phis).
    fn new(
        module: &spv_reader::Module,
        function: &Function,
        cfg: &Cfg,
        structured: Structured,
    ) -> Self {
        let mut phis = Vec::new();
        let mut blocks = Vec::with_capacity(function.blocks.len());
        for (index, block) in function.blocks.iter().enumerate() {
            let body = block.body();
            let first_phi = phis.len();
            let mut after_phis = body.start;
            // A block without phis is lowered from its first instruction (the `OpLine` /
            // `OpNoLine` it may start with have no effect); the CFG numbers blocks like
            // `function.blocks`.
            let has_phis = u32::try_from(index)
                .ok()
                .and_then(|i| cfg.get(BlockIdx(i)))
                .is_none_or(|data| data.has_phis);
            // Validation put the phis before every other instruction of the block except
            // OpLine / OpNoLine (SPIR-V §2.4, V-LAY-8), so only that prefix is read, and only
            // in a block with phis.
            if has_phis {
                for inst in module.instructions_in(body.clone()) {
                    if has_opcode(inst, spirv::Op::Phi) {
                        phis.push(inst.index());
                    } else if !has_opcode(inst, spirv::Op::Line)
                        && !has_opcode(inst, spirv::Op::NoLine)
                    {
                        break;
                    }
                    after_phis = inst.index().0 + 1;
                }
            }
            let body_end_word = module
                .inst(InstIndex(body.end))
                .map(|inst| inst.location().byte_offset)
                // `byte_offset` saturates; a saturated one cannot be trusted.
                .filter(|&offset| offset != u32::MAX)
                .map_or(0, |offset| offset as usize / 4);
            blocks.push(BlockPlan {
                phis: first_phi..phis.len(),
                after_phis,
                body_end_word,
            });
        }
        FunctionPlan {
            returns_only_at_end: OnceCell::new(),
            structured,
            phis,
            blocks,
        }
    }

    /// Drops the plan, handing its region tree back to spv-cfg for the next function's
    /// ([`Structured::recycle`]).
    pub(super) fn recycle(self) {
        self.structured.recycle();
    }

    /// The phis of block `block`.
    fn block_phis(&self, block: BlockIdx) -> &[InstIndex] {
        self.blocks
            .get(block.index())
            .and_then(|b| self.phis.get(b.phis.clone()))
            .unwrap_or(&[])
    }
}

/// Per-function state of the control-flow lowering.
pub(super) struct FlowContext<'f> {
    function: &'f Function,
    /// The function's plan.
    plan: &'f FunctionPlan,
    /// For a called (inlined) function: where its return value goes, and `None` for the entry
    /// point, whose returns are `ret_dyn`.
    call: Option<CallSite>,
    /// The register of each synthetic variable of the region tree.
    var_regs: Vec<u32>,
}

impl<'m> Lowerer<'m> {
    /// Lowers the body of `function`: structures its CFG, gives phis their registers, then
    /// emits the region tree.
    pub(super) fn lower_function_body(&mut self, function: &Function) -> Result<(), Error> {
        let plan = self.plan(function)?;
        self.plan_call_tree(function.id);
        self.lower_structured(function, &plan, None)
    }

    /// Plans every function the entry point `entry` calls, directly or not (the validator's
    /// call tree), before any body is lowered: planning one function after another keeps
    /// spv-cfg's code in the instruction cache, where planning each callee at its first call
    /// would bring it back between the lowering of instructions. A plan that fails is left
    /// for that first call, which reports the error where it always has (a body may fail
    /// earlier, and its error must come first).
    fn plan_call_tree(&mut self, entry: Id) {
        let info = self.info;
        let Some(point) = info.entry_points.iter().find(|p| p.function == entry) else {
            return;
        };
        for &id in point.call_tree.iter().skip(1) {
            if let Some(callee) = self.module.function(id) {
                // An error is reported again by the call that needs the plan.
                let _ = self.plan(callee);
            }
        }
    }

    /// `OpFunctionCall`. A callee that returns only at its end is inlined; one that returns early
    /// becomes an IL subroutine (`func N` … `ret_dyn` … `endfunc`, called with `call N`), since
    /// `ret_dyn` leaves a subroutine from anywhere (AMD IL guide §7.4). Value parameters take the
    /// argument values (in fixed registers for a subroutine) and pointer parameters the argument
    /// places, so pointers never need a run-time form: a subroutine is instantiated once per
    /// distinct set of pointer arguments.
    // Out of line: rarer than the instructions `lower_inst` lowers itself, and inlined
    // into the block loop it would widen the loop's frame and spread its code.
    #[inline(never)]
    pub(super) fn lower_call(&mut self, inst: SpvInst<'m>) -> Result<(), Error> {
        let module = self.module;
        // OpFunctionCall has a Result Type and a Result id (SPIR-V §3.3.9).
        let (result_type, result_id, operands) = super::typed_parts(inst);
        let Some((callee, args)) = operands.split_first() else {
            return Err(Unsupported::at(module, inst.index(), "a call without a callee").into());
        };
        let function = module.function(Id(*callee)).ok_or_else(|| {
            Unsupported::at(
                module,
                inst.index(),
                format!("a call to %{callee}, which is no function"),
            )
        })?;
        if self.call_depth >= MAX_CALL_DEPTH {
            return Err(Unsupported::at(
                module,
                inst.index(),
                format!("calls nested more than {MAX_CALL_DEPTH} deep"),
            )
            .into());
        }
        let mut pointer_args = Vec::new();
        let mut value_args = Vec::new();
        for (param, arg) in function.params.iter().zip(args) {
            let arg = Id(*arg);
            let is_pointer = module
                .result_type(arg)
                .is_some_and(|ty| types::pointer_parts(module, ty).is_some());
            if is_pointer {
                pointer_args.push((*param, self.place(arg, inst)?));
            } else {
                value_args.push((*param, self.value(arg, inst)?));
            }
        }
        let result = match (result_id, result_type) {
            (Some(id), Some(ty)) if !matches!(module.ty(ty), Some(spv_reader::Type::Void)) => {
                let shape = types::shape_of(module, ty).map_err(|u| located(module, inst, u))?;
                if shape.dwords() > 4 {
                    return Err(Unsupported::at(
                        module,
                        inst.index(),
                        "returning a 64-bit vector of three or four elements",
                    )
                    .into());
                }
                Some((id, shape))
            }
            _ => None,
        };
        let result_wide = result.is_some_and(|(_, shape)| shape.is_wide());
        let result = result.map(|(id, shape)| (id, shape.dwords()));
        let plan = self.plan(function)?;
        for (param, place) in &pointer_args {
            self.set_place(*param, *place);
        }
        self.call_depth += 1;
        let inline = *plan
            .returns_only_at_end
            .get_or_init(|| returns_only_at_end(&plan.structured));
        let outcome = if inline {
            let result_reg = result.map(|(_, count)| (self.regs.temp(), count));
            for (param, value) in value_args {
                self.set_value(param, value);
            }
            let site = CallSite {
                result: result_reg,
                subroutine: false,
            };
            self.lower_structured(function, &plan, Some(site))
                .map(|()| result_reg)
        } else {
            self.call_subroutine(
                function,
                &plan,
                &pointer_args,
                value_args,
                result.map(|(_, c)| c),
            )
        };
        self.call_depth -= 1;
        if let (Some((id, _)), Some((reg, count))) = (result, outcome?) {
            let value = Value::in_reg(Reg::new(RegType::Temp, reg), count);
            self.set_value(
                id,
                Value {
                    wide: result_wide,
                    ..value
                },
            );
        }
        Ok(())
    }

    /// Calls the subroutine instance of `function` for these pointer arguments, creating it on
    /// first use. Returns the register receiving the result, copied out after the call.
    fn call_subroutine(
        &mut self,
        function: &Function,
        plan: &FunctionPlan,
        pointer_args: &[(Id, super::memory::Place)],
        value_args: Vec<(Id, Value)>,
        result: Option<u8>,
    ) -> Result<Option<(u32, u8)>, Error> {
        let existing = self.subroutines.iter().position(|s| {
            s.function == function.id
                && s.pointer_args.len() == pointer_args.len()
                && s.pointer_args.iter().zip(pointer_args).all(|(a, b)| {
                    a.0 == b.0 && super::memory::same_place(&self.composite_places, &a.1, &b.1, 0)
                })
        });
        let index = match existing {
            Some(index) => index,
            None => {
                if value_args.iter().any(|(_, value)| value.is_split()) {
                    return Err(Unsupported::new(
                        "passing a 64-bit vector of three or four elements to a function that \
                         returns early",
                    )
                    .into());
                }
                let params: Vec<(Id, u32, u8)> = value_args
                    .iter()
                    .map(|(param, value)| (*param, self.regs.temp(), value.count.max(1)))
                    .collect();
                let result_reg = result.map(|count| (self.regs.temp(), count));
                for ((param, reg, count), (_, arg)) in params.iter().zip(&value_args) {
                    let value = Value::in_reg(Reg::new(RegType::Temp, *reg), *count);
                    self.set_value(
                        *param,
                        Value {
                            wide: arg.wide,
                            ..value
                        },
                    );
                }
                // Labels are taken before the body is lowered, since the body may create
                // subroutines of its own.
                self.last_subroutine_label += 1;
                let label = self.last_subroutine_label;
                let capacity =
                    super::code_capacity(function.end.0.saturating_sub(function.def.0) as usize);
                let caller_code = std::mem::replace(&mut self.code, Vec::with_capacity(capacity));
                let site = CallSite {
                    result: result_reg,
                    subroutine: true,
                };
                let lowered = self.lower_structured(function, plan, Some(site));
                let body = std::mem::replace(&mut self.code, caller_code);
                lowered?;
                self.subroutines.push(super::Subroutine {
                    function: function.id,
                    pointer_args: pointer_args.to_vec(),
                    label,
                    params,
                    result: result_reg,
                    body,
                });
                self.subroutines.len() - 1
            }
        };
        let Some(subroutine) = self.subroutines.get(index) else {
            return Err(super::internal(format_args!("a subroutine vanished")));
        };
        let (label, params, result_reg) = (
            subroutine.label,
            subroutine.params.clone(),
            subroutine.result,
        );
        for ((_, reg, count), (_, value)) in params.iter().zip(&value_args) {
            self.emit_mov(dst_first(*reg, *count), value.src());
        }
        self.emit(Inst::new(Opcode::Call).extra(&[label]));
        Ok(match result_reg {
            Some((reg, count)) => {
                let copy = self.regs.temp();
                let value = Value::in_reg(Reg::new(RegType::Temp, reg), count);
                self.emit_mov(dst_first(copy, count), value.src());
                Some((copy, count))
            }
            None => None,
        })
    }

    /// The plan (region tree, phis, block bounds) of `function`, made once per function: a
    /// function called from several places is inlined (or instantiated) at each, from the same
    /// plan.
    fn plan(&mut self, function: &Function) -> Result<Rc<FunctionPlan>, Error> {
        if let Some(plan) = self.plans.get(&function.id) {
            return Ok(Rc::clone(plan));
        }
        let (cfg, structured) = self.build_structure(function)?;
        let plan = Rc::new(FunctionPlan::new(self.module, function, &cfg, structured));
        self.plans.insert(function.id, Rc::clone(&plan));
        Ok(plan)
    }

    /// Builds the CFG and the region tree of `function` (spv-cfg, merge-based strategy). The
    /// CFG reuses the validator's facts about the function (its blocks' successors,
    /// predecessors and merges), which the module passed validation to have.
    fn build_structure(&self, function: &Function) -> Result<(Cfg, Structured), Error> {
        let module = self.module;
        let facts = self.info.function(function.id).ok_or_else(|| {
            super::internal(format_args!(
                "no validator facts for function {}",
                function.id
            ))
        })?;
        // For a valid function the only error left is the block-count limit; any other means
        // the facts and the function disagree, which is a bug of ours.
        let cfg = Cfg::from_validated(module, function, facts).map_err(|e| match e {
            spv_cfg::CfgError::TooManyBlocks { .. } => Error::from(Unsupported::at(
                module,
                function.def,
                format!("this control flow ({e})"),
            )),
            other => super::internal(format_args!(
                "the validator's CFG of function {} does not fit it: {other}",
                function.id
            )),
        })?;
        let structured = spv_cfg::structurize(&cfg, Strategy::Merges).map_err(|e| {
            Error::from(Unsupported::at(
                module,
                function.def,
                format!("this control flow ({e})"),
            ))
        })?;
        Ok((cfg, structured))
    }

    /// Lowers a structured body: phi registers, synthetic variables, then the regions.
    fn lower_structured(
        &mut self,
        function: &Function,
        plan: &FunctionPlan,
        call: Option<CallSite>,
    ) -> Result<(), Error> {
        self.assign_phi_registers(plan)?;
        let var_regs = (0..plan.structured.num_vars)
            .map(|_| self.regs.temp())
            .collect();
        let context = FlowContext {
            function,
            plan,
            call,
            var_regs,
        };
        self.lower_regions(&context, plan.structured.body)
    }

    /// Gives every `OpPhi` result of the planned function a register of its own.
    fn assign_phi_registers(&mut self, plan: &FunctionPlan) -> Result<(), Error> {
        let module = self.module;
        for inst in plan.phis.iter().filter_map(|&i| module.inst(i)) {
            // An OpPhi has a Result Type and a Result id: read from their words.
            let (Some(ty), Some(result), _) = super::typed_parts(inst) else {
                continue;
            };
            let layout = self.layout_of(ty).map_err(|u| located(module, inst, u))?;
            let value = self.fresh_value(&layout);
            self.set_value(result, value);
        }
        Ok(())
    }

    /// Emits a sequence of regions.
    fn lower_regions(&mut self, context: &FlowContext<'_>, seq: Seq) -> Result<(), Error> {
        for region in context.plan.structured.regions(seq) {
            // A block, the most common region, is lowered without entering `lower_region`,
            // whose frame holds every other kind's locals.
            match region {
                Region::Block(block) => self.lower_block(context, *block)?,
                other => self.lower_region(context, other)?,
            }
        }
        Ok(())
    }

    /// Emits one region; nesting depth is bounded by spv-cfg's limits on the tree it built.
    fn lower_region(&mut self, context: &FlowContext<'_>, region: &Region) -> Result<(), Error> {
        match region {
            Region::Block(block) => self.lower_block(context, *block),
            Region::Edge { from, to } => self.lower_edge(context, *from, *to),
            Region::If { cond, then_, else_ } => {
                let test = self.condition(context, *cond)?;
                let (op, src) = match test {
                    Test::NonZero(src) => (Opcode::IfLogicalnz, src),
                    Test::Zero(src) => (Opcode::IfLogicalz, src),
                };
                self.emit(Inst::new(op).src(src));
                self.lower_regions(context, *then_)?;
                if !else_.is_empty() {
                    self.emit(Inst::new(Opcode::Else));
                    self.lower_regions(context, *else_)?;
                }
                self.emit(Inst::new(Opcode::Endif));
                Ok(())
            }
            Region::Loop { body } => {
                self.emit(Inst::new(Opcode::While));
                self.lower_regions(context, *body)?;
                self.emit(Inst::new(Opcode::Endloop));
                Ok(())
            }
            Region::Switch { selector, arms } => self.lower_switch(context, *selector, *arms),
            Region::Break => {
                self.emit(Inst::new(Opcode::Break));
                Ok(())
            }
            Region::Continue => {
                self.emit(Inst::new(Opcode::Continue));
                Ok(())
            }
            Region::SetVar { var, value } => {
                let reg = var_register(context, *var)?;
                let literal = self.regs.scalar_src(*value);
                self.emit_mov(dst_first(reg, 1), literal);
                Ok(())
            }
            Region::Return { block } => {
                let terminator = self.terminator(context, *block)?;
                if let Some(site) = &context.call {
                    // Copy the value out; an inlined callee's one return ends its body, a
                    // subroutine's returns leave it (`ret_dyn`).
                    if let (Some((reg, count)), Some(value)) =
                        (site.result, super::untyped_operands(terminator).first())
                    {
                        let id = Id(*value);
                        let value = self.value(id, terminator)?;
                        // Return forwarding: the instruction that computed the value writes
                        // the result register itself (`Lowerer::retarget_fresh`).
                        if !self.retarget_fresh(id, count, reg) {
                            self.emit_mov(dst_first(reg, count), value.src());
                        }
                    }
                    if site.subroutine {
                        self.emit(Inst::new(Opcode::RetDyn));
                    }
                    return Ok(());
                }
                if has_opcode(terminator, spirv::Op::ReturnValue) {
                    return Err(Unsupported::at(
                        self.module,
                        terminator.index(),
                        "returning a value from the entry point",
                    )
                    .into());
                }
                self.emit(Inst::new(Opcode::RetDyn));
                Ok(())
            }
            Region::Kill { block } => {
                let terminator = self.terminator(context, *block)?;
                Err(Unsupported::at(
                    self.module,
                    terminator.index(),
                    "killing an invocation in a compute shader",
                )
                .into())
            }
            // Control never arrives here; nothing needs to be emitted (SPIR-V §3.3.17
            // OpUnreachable: behaviour is undefined if it is executed).
            Region::Unreachable => Ok(()),
        }
    }

    /// A `Switch` region: `switch`, each arm's `case`s (or `default`) and body, `endswitch`.
    // Out of line: switches are few beside the other regions, and their code, inlined, would
    // spread the region walk's.
    #[inline(never)]
    fn lower_switch(
        &mut self,
        context: &FlowContext<'_>,
        selector: BlockIdx,
        arms: Arms,
    ) -> Result<(), Error> {
        let terminator = self.terminator(context, selector)?;
        let Some(selector_id) = super::untyped_operands(terminator).first() else {
            return Err(Unsupported::at(
                self.module,
                terminator.index(),
                "a switch without a selector",
            )
            .into());
        };
        let value = self.value(Id(*selector_id), terminator)?;
        if value.wide {
            // IL case values are 32-bit (amd-il.md §6.1).
            return Err(Unsupported::at(
                self.module,
                terminator.index(),
                "OpSwitch on a 64-bit selector",
            )
            .into());
        }
        self.emit(Inst::new(Opcode::Switch).src(value.element(0)));
        for arm in context.plan.structured.arms(arms) {
            for literal in &arm.literals {
                // IL case values are 32-bit (amd-il.md §6.1); 64-bit selectors are refused
                // above, so the low word is the literal.
                self.emit(Inst::new(Opcode::Case).extra(&[*literal as u32]));
            }
            if arm.default {
                self.emit(Inst::new(Opcode::Default));
            }
            self.lower_regions(context, arm.body)?;
        }
        self.emit(Inst::new(Opcode::Endswitch));
        Ok(())
    }

    /// The reader's block for a region-tree block index (spv-cfg numbers blocks in module
    /// order, entry = 0).
    fn block(
        &self,
        context: &FlowContext<'_>,
        block: BlockIdx,
    ) -> Result<spv_reader::Block, Error> {
        context
            .function
            .blocks
            .get(block.index())
            .copied()
            .ok_or_else(|| {
                super::internal(format_args!(
                    "the region tree names block {block}, which the function lacks"
                ))
            })
    }

    fn terminator(&self, context: &FlowContext<'_>, block: BlockIdx) -> Result<SpvInst<'m>, Error> {
        let block = self.block(context, block)?;
        self.module.inst(block.terminator).ok_or_else(|| {
            super::internal(format_args!("terminator of {} is missing", block.label))
        })
    }

    /// The instructions of one block, phis excluded (their copies happen on the edges).
    fn lower_block(&mut self, context: &FlowContext<'_>, block: BlockIdx) -> Result<(), Error> {
        let body = self.block(context, block)?.body();
        let Some(plan) = context.plan.blocks.get(block.index()) else {
            return Err(super::internal(format_args!(
                "the region tree names block {block}, which the plan lacks"
            )));
        };
        let module = self.module;
        // An inlined call lowers the callee's blocks in the middle of this one; the end of the
        // enclosing block is put back afterwards.
        let enclosing = std::mem::replace(&mut self.block_body_end, plan.body_end_word);
        // The leading phis are skipped (see `BlockPlan::after_phis`); validation allows none
        // after them (SPIR-V §2.4, V-LAY-8).
        let lowered = module
            .instructions_in(plan.after_phis..body.end)
            .try_for_each(|inst| self.lower_inst(inst));
        self.block_body_end = enclosing;
        lowered
    }

    /// The phi copies of the edge `from → to`, as one parallel copy: when a source reads a
    /// register that another copy of the same edge writes, every source is first copied to a
    /// fresh temporary.
    fn lower_edge(
        &mut self,
        context: &FlowContext<'_>,
        from: BlockIdx,
        to: BlockIdx,
    ) -> Result<(), Error> {
        // The lists are kept between edges (see `EdgeScratch`), lent out for this one.
        let mut scratch = std::mem::take(&mut self.edge_scratch);
        let lowered = self.lower_edge_with(context, from, to, &mut scratch);
        self.edge_scratch = scratch;
        lowered
    }

    /// [`Lowerer::lower_edge`] with its working lists.
    fn lower_edge_with(
        &mut self,
        context: &FlowContext<'_>,
        from: BlockIdx,
        to: BlockIdx,
        scratch: &mut EdgeScratch,
    ) -> Result<(), Error> {
        let from_label = self.block(context, from)?.label;
        // The block must exist; its phis come from the plan.
        self.block(context, to)?;
        let module = self.module;
        let EdgeScratch {
            copies,
            destinations,
            sources,
        } = scratch;
        copies.clear();
        // The copy whose source is the value the last IL instruction wrote fresh, if any
        // (see below): its index in `copies`, and the value's id.
        let fresh = self.fresh.filter(|&(_, len)| len == self.code.len());
        let mut forwardable = None;
        for inst in context
            .plan
            .block_phis(to)
            .iter()
            .filter_map(|&i| module.inst(i))
        {
            // An OpPhi has a Result Type and a Result id: its words are read once.
            let (_, Some(result), operands) = super::typed_parts(inst) else {
                continue;
            };
            let incoming = operands
                .chunks_exact(2)
                .find(|pair| pair.get(1) == Some(&from_label.0))
                .and_then(|pair| pair.first().copied());
            let Some(incoming) = incoming else {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    format!("a phi without an operand for {from_label}"),
                )
                .into());
            };
            // Both values are read in place once they are in the table (a constant operand is
            // put there by its first use).
            self.resolve_value(result, inst)?;
            self.resolve_value(Id(incoming), inst)?;
            // Aggregates are copied leaf by leaf (one register per scalar or vector).
            destinations.clear();
            sources.clear();
            if let (Some(destination), Some(source)) =
                (self.values.get(result), self.values.get(Id(incoming)))
            {
                if destination.count > 0 && source.count > 0 {
                    // Two values in one register each (the common phi) are their own only
                    // leaves: the copy is made without listing them.
                    if let Some((id, _)) = fresh
                        && id.0 == incoming
                    {
                        forwardable = Some((copies.len(), id));
                    }
                    copies.push((*destination, *source));
                    continue;
                }
                leaves(&self.members, destination, destinations);
                leaves(&self.members, source, sources);
            } else {
                // Only an id past the module's bound is kept out of the table; the reader
                // allows none, but the copies are made the same way for one.
                let destination = self.value(result, inst)?;
                let source = self.value(Id(incoming), inst)?;
                leaves(&self.members, &destination, destinations);
                leaves(&self.members, &source, sources);
            }
            if destinations.len() != sources.len() {
                return Err(Unsupported::at(
                    module,
                    inst.index(),
                    "a phi whose operand does not match its type",
                )
                .into());
            }
            if let (Some((id, _)), [_]) = (fresh, &sources[..])
                && id.0 == incoming
            {
                forwardable = Some((copies.len(), id));
            }
            copies.extend(destinations.drain(..).zip(sources.drain(..)));
        }
        let overlapping = copies
            .iter()
            .any(|(_, source)| copies.iter().any(|(dst, _)| dst.reg == source.reg));
        if overlapping {
            let mut staged = Vec::with_capacity(copies.len());
            for (destination, source) in copies.drain(..) {
                let temp = self.regs.temp();
                self.emit_mov(dst_first(temp, source.count), source.src());
                staged.push((
                    destination,
                    Value::in_reg(Reg::new(RegType::Temp, temp), source.count),
                ));
            }
            *copies = staged;
        } else if let Some((at, id)) = forwardable
            && let Some(&(destination, _)) = copies.get(at)
            && destination.reg.ty == RegType::Temp
            && destination.reg.index.is_none()
            && destination.comps == XYZW
            && !destination.wide
            && self.retarget_fresh(id, destination.count, destination.reg.num)
        {
            // Phi forwarding: the instruction that computed the value writes the phi's
            // register itself ([`Lowerer::retarget_fresh`]). It now writes before the other
            // copies of the edge rather than among them, which none can tell: no source of
            // the edge reads a register a copy writes (`overlapping` is false).
            copies.remove(at);
        }
        for (destination, source) in copies.drain(..) {
            let dst = dst_first(destination.reg.num, destination.count);
            self.emit_mov(dst, source.src());
        }
        Ok(())
    }

    /// The IL test for a region-tree condition.
    fn condition(&mut self, context: &FlowContext<'_>, cond: Cond) -> Result<Test, Error> {
        match cond {
            Cond::Branch { block, value } => {
                let terminator = self.terminator(context, block)?;
                let Some(condition) = super::untyped_operands(terminator).first() else {
                    return Err(Unsupported::at(
                        self.module,
                        terminator.index(),
                        "a branch without a condition",
                    )
                    .into());
                };
                let condition = self.value_element(Id(*condition), terminator, 0)?;
                // Booleans are 0 / 0xFFFFFFFF; `if_logicalnz` tests any bit (amd-il.md §0.2).
                Ok(if value {
                    Test::NonZero(condition)
                } else {
                    Test::Zero(condition)
                })
            }
            Cond::VarEq { var, value } => Ok(Test::NonZero(self.var_equals(context, var, value)?)),
            Cond::VarNe { var, value } => Ok(Test::Zero(self.var_equals(context, var, value)?)),
        }
    }
}

impl Lowerer<'_> {
    /// `ieq` of a synthetic variable and a constant, as a scalar source (0 / 0xFFFFFFFF).
    fn var_equals(
        &mut self,
        context: &FlowContext<'_>,
        var: Var,
        value: u32,
    ) -> Result<il_model::Src, Error> {
        let reg = var_register(context, var)?;
        let literal = self.regs.scalar_src(value);
        let test = self.regs.temp();
        self.emit(
            Inst::new(Opcode::IEq)
                .dst(dst_first(test, 1))
                .src(Value::in_reg(Reg::new(RegType::Temp, reg), 1).element(0))
                .src(literal),
        );
        Ok(Value::in_reg(Reg::new(RegType::Temp, test), 1).element(0))
    }
}

impl Lowerer<'_> {
    /// Fresh temporaries shaped like `layout`.
    fn fresh_value(&mut self, layout: &types::Layout) -> Value {
        match layout {
            types::Layout::Vector(shape) if shape.is_wide() => {
                self.wide_temp(usize::from(shape.count))
            }
            types::Layout::Vector(shape) => {
                Value::in_reg(Reg::new(RegType::Temp, self.regs.temp()), shape.count)
            }
            types::Layout::Aggregate(members) => {
                let values: Vec<Value> = members.iter().map(|m| self.fresh_value(m)).collect();
                self.members.aggregate(&values)
            }
        }
    }
}

/// The working lists of [`Lowerer::lower_edge`], kept in the lowerer between edges so that an
/// edge's phi copies allocate nothing once the lists have grown: the copies of the edge, and
/// the leaves of one phi's destination and source.
#[derive(Default)]
pub(super) struct EdgeScratch {
    copies: Vec<(Value, Value)>,
    destinations: Vec<Value>,
    sources: Vec<Value>,
}

/// The single-register leaves of a value, in order: its scalars and vectors (both registers of a
/// split 64-bit vector). Aggregate nesting is bounded by [`types::layout_of`], which built every
/// aggregate value.
fn leaves(members: &MemberValues, value: &Value, out: &mut Vec<Value>) {
    if value.is_aggregate() {
        for member in members.of(value) {
            leaves(members, member, out);
        }
    } else {
        out.extend_from_slice(&members.parts(value));
    }
}

/// How deeply calls may nest when they are inlined. SPIR-V forbids recursion (SPIR-V §2.16.1),
/// but the limit keeps an invalid module from recursing without end.
pub const MAX_CALL_DEPTH: u32 = 32;

/// Where a called function returns its value.
struct CallSite {
    /// The register and element count of the call's result, for non-void callees.
    result: Option<(u32, u8)>,
    /// Whether the body is an IL subroutine (returns are `ret_dyn`) rather than inlined.
    subroutine: bool,
}

/// Whether the only `Return` of a region tree is the last region of its top-level body.
fn returns_only_at_end(tree: &Structured) -> bool {
    match tree.regions(tree.body).split_last() {
        Some((last, rest)) => {
            !rest.iter().any(|region| returns_within(tree, region))
                && (matches!(last, Region::Return { .. }) || !returns_within(tree, last))
        }
        None => true,
    }
}

/// Whether `region` is or holds a `Return`. The recursion follows the tree's nesting, which
/// spv-cfg bounds (`MAX_REGION_DEPTH`), as the region walk of the lowering does.
fn returns_within(tree: &Structured, region: &Region) -> bool {
    let any = |seq| tree.regions(seq).iter().any(|r| returns_within(tree, r));
    match region {
        Region::Return { .. } => true,
        Region::If { then_, else_, .. } => any(*then_) || any(*else_),
        Region::Loop { body } => any(*body),
        Region::Switch { arms, .. } => tree.arms(*arms).iter().any(|arm| any(arm.body)),
        _ => false,
    }
}

/// A branch test: the scalar source is non-zero, or zero.
enum Test {
    NonZero(il_model::Src),
    Zero(il_model::Src),
}

fn var_register(context: &FlowContext<'_>, var: Var) -> Result<u32, Error> {
    context
        .var_regs
        .get(var.0 as usize)
        .copied()
        .ok_or_else(|| {
            super::internal(format_args!(
                "the region tree uses undeclared variable {}",
                var.0
            ))
        })
}
