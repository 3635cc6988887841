//! The labeled intermediate form both structurizers produce, and its lowering to the region
//! tree's single-level `Break`/`Continue` (the "exit lowering").
//!
//! # The labeled form
//!
//! [`Lab`] is a WebAssembly-like structured form: `Scope(L){..}` is a block whose *end* is a
//! jump target, `Loop(L){..}` a loop whose *start* is one, and `Br(L)` jumps to the enclosing
//! construct labeled `L`. Labels are node numbers: `Br(L)` means "continue with the code of
//! node `L`", which is exactly what follows `Scope(L)` or starts `Loop(L)`. Every control path
//! of a structurizer's output ends in an explicit `Br`, a function exit, or the end of a
//! `Scope` reached by such a `Br`; a `Loop` body falls off its end only through `Br(L)`.
//!
//! # Exit lowering
//!
//! AMD IL has no labels (`amd-il.md` §7.6): `break` leaves the innermost loop or switch,
//! `continue` restarts the innermost loop. [`lower_exits`] maps each `Br(L)` to the cheapest
//! equivalent, given what falling off the current position does (its *tail*: the labels whose
//! target is reached by just falling off):
//!
//! * **free**: `L` is in the tail: nothing to emit;
//! * **continue**: `L` is the innermost loop (switches in between are fine);
//! * **break**: `L`'s target is right after the innermost loop or switch;
//! * **local**: no loop or switch lies between the jump and `Scope(L)`: set the exit variable
//!   to `L`, fall off, skip the rest of every enclosing sequence with `if (exit == 0)`, and
//!   reset the variable at the end of `Scope(L)`;
//! * **ladder**: otherwise set the exit variable, `break`, and after that loop/switch test the
//!   variable and continue the exit from there (recursively one of the five kinds).
//!
//! One shape is rewritten to avoid a flag: in `[If(c){Br L}{B}, rest..]`, when `Br L` would be
//! local, the rest moves into the other arm (`If(c){Br L}{B; rest..}`), where the jump is
//! usually free. This is valid because the `Br` arm never falls through.

use crate::cfg::BlockIdx;
use crate::error::CfgError;
use crate::limits::{Budget, MAX_REGION_DEPTH};
use crate::region::{Cond, Region, SwitchArm, Var};

/// A jump label: the node whose code runs after the jump.
pub(crate) type Label = u32;

/// The labeled structured form (see the module docs).
#[derive(Clone, Debug)]
pub(crate) enum Lab {
    Block(BlockIdx),
    Edge(BlockIdx, BlockIdx),
    Set(Var, u32),
    If(Cond, Vec<Lab>, Vec<Lab>),
    /// `Br(L)` inside jumps to just after this scope.
    Scope(Label, Vec<Lab>),
    /// `Br(L)` inside restarts the body.
    Loop(Label, Vec<Lab>),
    /// C switch: arms fall through to the next arm when their body falls off its end.
    Switch(BlockIdx, Vec<LabArm>),
    Br(Label),
    Return(BlockIdx),
    Kill(BlockIdx),
    Unreachable,
}

/// A switch arm of the labeled form.
#[derive(Clone, Debug)]
pub(crate) struct LabArm {
    pub(crate) literals: Vec<u64>,
    pub(crate) default: bool,
    pub(crate) body: Vec<Lab>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Scope,
    Loop,
    Switch,
}

struct Frame {
    kind: Kind,
    label: Label,
    /// The tail of the construct's own statement.
    tail: Vec<Label>,
    /// Labels that left this loop/switch through the exit variable and a `break`.
    escapes: Vec<Label>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Jump {
    Free,
    Continue,
    Break,
    Local,
    Ladder,
}

/// Labels an exit may still be pending for when a statement falls off its end.
type Pending = Vec<Label>;

struct Lowerer<'b> {
    frames: Vec<Frame>,
    exit: Var,
    exit_used: bool,
    depth: usize,
    budget: &'b mut Budget,
}

/// Lowers a labeled body to region-tree form, using `exit` as the exit variable. Returns the
/// body and whether the exit variable is used (then the body starts by zeroing it).
pub(crate) fn lower_exits(
    body: Vec<Lab>,
    exit: Var,
    budget: &mut Budget,
) -> Result<(Vec<Region>, bool), CfgError> {
    let mut l = Lowerer {
        frames: Vec::new(),
        exit,
        exit_used: false,
        depth: 0,
        budget,
    };
    let (mut out, pending) = l.seq(body, &[])?;
    if !pending.is_empty() {
        return Err(CfgError::Internal(
            "exit pending at the end of the function",
        ));
    }
    if l.exit_used {
        out.insert(
            0,
            Region::SetVar {
                var: exit,
                value: 0,
            },
        );
    }
    Ok((out, l.exit_used))
}

/// The label of a pure jump arm `[Edge | Set]* Br(L)`.
fn pure_jump(arm: &[Lab]) -> Option<Label> {
    let (last, init) = arm.split_last()?;
    let Lab::Br(l) = last else { return None };
    init.iter()
        .all(|x| matches!(x, Lab::Edge(..) | Lab::Set(..)))
        .then_some(*l)
}

fn union(mut a: Pending, b: Pending) -> Pending {
    for l in b {
        if !a.contains(&l) {
            a.push(l);
        }
    }
    a
}

/// An `If`, normalised: nothing when both arms are empty; arms swapped (condition negated) when
/// only `then_` is empty and the condition is a branch condition.
fn make_if(cond: Cond, then_: Vec<Region>, else_: Vec<Region>) -> Vec<Region> {
    match (then_.is_empty(), else_.is_empty(), cond) {
        (true, true, _) => Vec::new(),
        (true, false, Cond::Branch { block, value }) => vec![Region::If {
            cond: Cond::Branch {
                block,
                value: !value,
            },
            then_: else_,
            else_: then_,
        }],
        _ => vec![Region::If { cond, then_, else_ }],
    }
}

/// Whether control can never fall off the end of `body` (conservatively: it ends in a jump).
fn ends_in_jump(body: &[Region]) -> bool {
    matches!(
        body.last(),
        Some(
            Region::Break
                | Region::Continue
                | Region::Return { .. }
                | Region::Kill { .. }
                | Region::Unreachable
        )
    )
}

/// Drops switch arms that only `break`: entering them is the same as matching no arm, provided
/// no default arm remains and the arm before cannot fall into them.
fn prune_break_arms(arms: Vec<SwitchArm>) -> Vec<SwitchArm> {
    let only_break = |a: &SwitchArm| matches!(a.body.as_slice(), [Region::Break]);
    let mut kept: Vec<SwitchArm> = Vec::with_capacity(arms.len());
    // First the default: a default arm that only breaks is no default at all.
    let mut arms = arms;
    for i in 0..arms.len() {
        let prev_falls = i > 0 && !ends_in_jump(&arms[i - 1].body);
        if arms[i].default && only_break(&arms[i]) && !prev_falls {
            arms[i].default = false;
        }
    }
    let has_default = arms.iter().any(|a| a.default);
    for arm in arms {
        let prev_falls = kept.last().is_some_and(|p| !ends_in_jump(&p.body));
        if arm.literals.is_empty() && !arm.default {
            // No longer enterable directly: only the fall-through from the arm before
            // reaches it, so it becomes the tail of that arm (or disappears).
            if prev_falls && let Some(p) = kept.last_mut() {
                p.body.extend(arm.body);
            }
            continue;
        }
        if !has_default && only_break(&arm) && !prev_falls {
            continue;
        }
        kept.push(arm);
    }
    kept
}

impl Lowerer<'_> {
    fn enter(&mut self) -> Result<(), CfgError> {
        if self.depth >= MAX_REGION_DEPTH {
            return Err(CfgError::DepthLimit {
                limit: MAX_REGION_DEPTH,
            });
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The value the exit variable holds while a jump to `l` is pending (0 means none).
    fn value(l: Label) -> Result<u32, CfgError> {
        l.checked_add(1)
            .ok_or(CfgError::Internal("label does not fit the exit variable"))
    }

    fn set_exit(&mut self, l: Label) -> Result<Region, CfgError> {
        self.exit_used = true;
        Ok(Region::SetVar {
            var: self.exit,
            value: Self::value(l)?,
        })
    }

    fn classify(&self, l: Label, tail: &[Label]) -> Result<Jump, CfgError> {
        if tail.contains(&l) {
            return Ok(Jump::Free);
        }
        let j = self
            .frames
            .iter()
            .rposition(|f| f.kind != Kind::Switch && f.label == l)
            .ok_or(CfgError::Internal(
                "jump to a label that does not enclose it",
            ))?;
        let crossing = &self.frames[j + 1..];
        Ok(match self.frames[j].kind {
            Kind::Loop => {
                if crossing.iter().any(|f| f.kind == Kind::Loop) {
                    Jump::Ladder
                } else {
                    Jump::Continue
                }
            }
            _ => match crossing.iter().rev().find(|f| f.kind != Kind::Scope) {
                None => Jump::Local,
                Some(b) if b.tail.contains(&l) => Jump::Break,
                Some(_) => Jump::Ladder,
            },
        })
    }

    fn record_escape(&mut self, l: Label) -> Result<(), CfgError> {
        let f = self
            .frames
            .iter_mut()
            .rev()
            .find(|f| f.kind != Kind::Scope)
            .ok_or(CfgError::Internal("ladder without a loop or switch"))?;
        if !f.escapes.contains(&l) {
            f.escapes.push(l);
        }
        Ok(())
    }

    fn seq(&mut self, items: Vec<Lab>, tail: &[Label]) -> Result<(Vec<Region>, Pending), CfgError> {
        self.enter()?;
        let r = self.seq_inner(items, tail);
        self.leave();
        r
    }

    fn seq_inner(
        &mut self,
        items: Vec<Lab>,
        tail: &[Label],
    ) -> Result<(Vec<Region>, Pending), CfgError> {
        let mut out = Vec::new();
        let mut it = items.into_iter();
        while let Some(item) = it.next() {
            self.budget.charge(1)?;
            let last = it.len() == 0;
            let item = if last {
                item
            } else {
                match self.push_in(item, &mut it)? {
                    Ok(merged) => {
                        let (r, p) = self.stmt(merged, tail)?;
                        out.extend(r);
                        return Ok((out, p));
                    }
                    Err(item) => item,
                }
            };
            let (r, p) = self.stmt(item, if last { tail } else { &[] })?;
            out.extend(r);
            if last {
                return Ok((out, p));
            }
            if !p.is_empty() {
                let rest: Vec<Lab> = it.collect();
                let (rr, rp) = self.seq(rest, tail)?;
                if !rr.is_empty() {
                    out.push(Region::If {
                        cond: Cond::VarEq {
                            var: self.exit,
                            value: 0,
                        },
                        then_: rr,
                        else_: Vec::new(),
                    });
                }
                return Ok((out, union(p, rp)));
            }
        }
        Ok((out, Vec::new()))
    }

    /// The push-in rewrite of the module docs: `Ok(if)` with the rest of the sequence moved
    /// into the non-jumping arm, or `Err(item)` unchanged.
    fn push_in(
        &mut self,
        item: Lab,
        rest: &mut std::vec::IntoIter<Lab>,
    ) -> Result<Result<Lab, Lab>, CfgError> {
        let Lab::If(cond, a, b) = item else {
            return Ok(Err(item));
        };
        let local = |s: &Self, arm: &[Lab]| -> Result<bool, CfgError> {
            match pure_jump(arm) {
                Some(l) => Ok(s.classify(l, &[])? == Jump::Local),
                None => Ok(false),
            }
        };
        if local(self, &a)? {
            let mut b = b;
            b.extend(rest.by_ref());
            Ok(Ok(Lab::If(cond, a, b)))
        } else if local(self, &b)? {
            let mut a = a;
            a.extend(rest.by_ref());
            Ok(Ok(Lab::If(cond, a, b)))
        } else {
            Ok(Err(Lab::If(cond, a, b)))
        }
    }

    fn stmt(&mut self, item: Lab, tail: &[Label]) -> Result<(Vec<Region>, Pending), CfgError> {
        Ok(match item {
            Lab::Block(b) => (vec![Region::Block(b)], Vec::new()),
            Lab::Edge(from, to) => (vec![Region::Edge { from, to }], Vec::new()),
            Lab::Set(var, value) => (vec![Region::SetVar { var, value }], Vec::new()),
            Lab::Return(block) => (vec![Region::Return { block }], Vec::new()),
            Lab::Kill(block) => (vec![Region::Kill { block }], Vec::new()),
            Lab::Unreachable => (vec![Region::Unreachable], Vec::new()),
            Lab::Br(l) => match self.classify(l, tail)? {
                Jump::Free => (Vec::new(), Vec::new()),
                Jump::Continue => (vec![Region::Continue], Vec::new()),
                Jump::Break => (vec![Region::Break], Vec::new()),
                Jump::Local => (vec![self.set_exit(l)?], vec![l]),
                Jump::Ladder => {
                    self.record_escape(l)?;
                    (vec![self.set_exit(l)?, Region::Break], Vec::new())
                }
            },
            Lab::If(cond, a, b) => {
                let (ra, pa) = self.seq(a, tail)?;
                let (rb, pb) = self.seq(b, tail)?;
                (make_if(cond, ra, rb), union(pa, pb))
            }
            Lab::Scope(l, body) => {
                self.frames.push(Frame {
                    kind: Kind::Scope,
                    label: l,
                    tail: tail.to_vec(),
                    escapes: Vec::new(),
                });
                let mut body_tail = tail.to_vec();
                body_tail.push(l);
                let res = self.seq(body, &body_tail);
                self.frames.pop();
                let (mut r, mut p) = res?;
                if let Some(i) = p.iter().position(|&x| x == l) {
                    p.remove(i);
                    let reset = Region::SetVar {
                        var: self.exit,
                        value: 0,
                    };
                    if p.is_empty() {
                        // Only 0 or `l` can be pending here, so an unconditional reset is exact.
                        r.push(reset);
                    } else {
                        r.push(Region::If {
                            cond: Cond::VarEq {
                                var: self.exit,
                                value: Self::value(l)?,
                            },
                            then_: vec![reset],
                            else_: Vec::new(),
                        });
                    }
                }
                (r, p)
            }
            Lab::Loop(l, body) => {
                self.frames.push(Frame {
                    kind: Kind::Loop,
                    label: l,
                    tail: tail.to_vec(),
                    escapes: Vec::new(),
                });
                let res = self.seq(body, &[l]);
                let frame = self.frames.pop();
                let (r, p) = res?;
                if !p.is_empty() {
                    return Err(CfgError::Internal("exit pending at the end of a loop body"));
                }
                let mut out = vec![Region::Loop { body: r }];
                let escapes = frame.map(|f| f.escapes).unwrap_or_default();
                let p = self.ladder(escapes, tail, &mut out)?;
                (out, p)
            }
            Lab::Switch(selector, arms) => {
                self.frames.push(Frame {
                    kind: Kind::Switch,
                    label: Label::MAX,
                    tail: tail.to_vec(),
                    escapes: Vec::new(),
                });
                let count = arms.len();
                let mut out_arms = Vec::with_capacity(count);
                let mut failed = None;
                for (i, arm) in arms.into_iter().enumerate() {
                    let arm_tail: &[Label] = if i + 1 == count { tail } else { &[] };
                    match self.seq(arm.body, arm_tail) {
                        Ok((body, p)) if p.is_empty() => out_arms.push(SwitchArm {
                            literals: arm.literals,
                            default: arm.default,
                            body,
                        }),
                        Ok(_) => {
                            failed = Some(CfgError::Internal("exit pending at the end of an arm"));
                            break;
                        }
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    }
                }
                let frame = self.frames.pop();
                if let Some(e) = failed {
                    return Err(e);
                }
                let arms = prune_break_arms(out_arms);
                let mut out = if arms.is_empty() {
                    Vec::new()
                } else {
                    vec![Region::Switch { selector, arms }]
                };
                let escapes = frame.map(|f| f.escapes).unwrap_or_default();
                let p = self.ladder(escapes, tail, &mut out)?;
                (out, p)
            }
        })
    }

    /// After a loop or switch that exits were routed out of, continue each exit from here.
    fn ladder(
        &mut self,
        escapes: Vec<Label>,
        tail: &[Label],
        out: &mut Vec<Region>,
    ) -> Result<Pending, CfgError> {
        let mut pending = Vec::new();
        for l in escapes {
            self.budget.charge(1)?;
            let reset = Region::SetVar {
                var: self.exit,
                value: 0,
            };
            let arm = match self.classify(l, tail)? {
                Jump::Free => vec![reset],
                Jump::Continue => vec![reset, Region::Continue],
                Jump::Break => vec![reset, Region::Break],
                Jump::Local => {
                    pending.push(l);
                    Vec::new()
                }
                Jump::Ladder => {
                    self.record_escape(l)?;
                    vec![Region::Break]
                }
            };
            if !arm.is_empty() {
                out.push(Region::If {
                    cond: Cond::VarEq {
                        var: self.exit,
                        value: Self::value(l)?,
                    },
                    then_: arm,
                    else_: Vec::new(),
                });
            }
        }
        Ok(pending)
    }
}
