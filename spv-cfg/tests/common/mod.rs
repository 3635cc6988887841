//! Shared test support: the `.spv` file finder (`files.rs`), a tiny PRNG, random CFG generators (arbitrary graphs and structured
//! programs with merge instructions), and two interpreters — one walking the CFG, one walking
//! a region tree — that must produce the same trace for the same branch decisions.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code, unused_imports)]

mod files;
pub use files::spv_files;

use spv_cfg::{BlockData, BlockIdx, Cfg, Cond, Merge, Region, Seq, Structured, Terminator};

/// xorshift64*: deterministic, seedable, no dependency.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A CFG with arbitrary edges (irreducible ones included). With `merges`, blocks also get
/// random (mostly meaningless) merge instructions, to check that the merge-driven
/// structurizer falls back instead of producing wrong trees.
pub fn random_cfg(rng: &mut Rng, max_blocks: u64, merges: bool) -> Cfg {
    let n = 1 + rng.below(max_blocks);
    let mut blocks = Vec::new();
    for i in 0..n {
        let target = |rng: &mut Rng| {
            if rng.chance(65) && i + 1 < n {
                BlockIdx((i + 1 + rng.below(n - i - 1)) as u32)
            } else {
                BlockIdx(rng.below(n) as u32)
            }
        };
        let r = rng.below(100);
        let terminator = if r < 12 {
            Terminator::Return
        } else if r < 14 {
            Terminator::Kill
        } else if r < 16 {
            Terminator::Unreachable
        } else if r < 45 {
            Terminator::Branch(target(rng))
        } else if r < 88 {
            Terminator::BranchConditional {
                true_target: target(rng),
                false_target: target(rng),
            }
        } else {
            let k = 1 + rng.below(4);
            let mut cases = Vec::new();
            for j in 0..k {
                cases.push((j * 3 + rng.below(3), target(rng)));
            }
            Terminator::Switch {
                selector_bits: 32,
                default: target(rng),
                cases,
            }
        };
        let mut d = BlockData::new(terminator);
        d.has_phis = rng.chance(40);
        if merges {
            let t = |rng: &mut Rng| BlockIdx(rng.below(n) as u32);
            match rng.below(6) {
                0 | 1 => d.merge = Merge::Selection { merge: t(rng) },
                2 => {
                    d.merge = Merge::Loop {
                        merge: t(rng),
                        continue_target: t(rng),
                    }
                }
                _ => {}
            }
        }
        blocks.push(d);
    }
    Cfg::new(blocks).expect("generated CFGs are in range")
}

/// Builder for random *structured* programs: the CFG shapes of SPIR-V §2.11 as compilers emit
/// them (if/else, while/do-while/single-block loops with conditional back edges and continue
/// constructs, switches with fall-through, break/continue from any depth, early returns).
pub struct Program {
    blocks: Vec<BlockData>,
    rng: Rng,
    budget: u32,
}

#[derive(Clone, Copy)]
enum Construct {
    Loop { merge: u32, cont: u32 },
    Switch { merge: u32 },
}

impl Program {
    pub fn generate(seed: u64, size: u32) -> Cfg {
        let mut p = Program {
            blocks: Vec::new(),
            rng: Rng::new(seed),
            budget: size,
        };
        let entry = p.new_block();
        if let Some(end) = p.seq(entry, 0, &[]) {
            p.set(end, Terminator::Return);
        }
        Cfg::new(p.blocks).expect("generated programs are in range")
    }

    fn new_block(&mut self) -> u32 {
        let mut d = BlockData::new(Terminator::Unreachable);
        d.has_phis = self.rng.chance(30);
        self.blocks.push(d);
        (self.blocks.len() - 1) as u32
    }

    fn set(&mut self, b: u32, t: Terminator) {
        self.blocks[b as usize].terminator = t;
    }

    fn merge(&mut self, b: u32, m: Merge) {
        self.blocks[b as usize].merge = m;
    }

    fn br(&mut self, from: u32, to: u32) {
        self.set(from, Terminator::Branch(BlockIdx(to)));
    }

    fn cond(&mut self, from: u32, t: u32, f: u32) {
        self.set(
            from,
            Terminator::BranchConditional {
                true_target: BlockIdx(t),
                false_target: BlockIdx(f),
            },
        );
    }

    /// A statement sequence starting in `cur`; returns the open block at its end, or `None`
    /// when control left (break, continue, return).
    fn seq(&mut self, mut cur: u32, depth: u32, ctx: &[Construct]) -> Option<u32> {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            cur = self.stmt(cur, depth, ctx)?;
        }
        Some(cur)
    }

    fn stmt(&mut self, cur: u32, depth: u32, ctx: &[Construct]) -> Option<u32> {
        let innermost_loop = ctx.iter().rev().find_map(|c| match c {
            Construct::Loop { merge, cont } => Some((*merge, *cont)),
            _ => None,
        });
        let innermost_break = ctx.last().map(|c| match c {
            Construct::Loop { merge, .. } | Construct::Switch { merge } => *merge,
        });
        let nested = depth < 5 && self.budget > 0;
        let r = self.rng.below(100);
        if nested && r < 22 {
            self.budget -= 1;
            return Some(self.if_stmt(cur, depth, ctx));
        }
        if nested && r < 40 {
            self.budget -= 1;
            return Some(self.loop_stmt(cur, depth, ctx));
        }
        if nested && r < 50 {
            self.budget -= 1;
            return Some(self.switch_stmt(cur, depth, ctx));
        }
        if r < 56 {
            if let Some(m) = innermost_break {
                self.br(cur, m);
                return None;
            }
        } else if r < 60 {
            // A loop break from inside a switch (SPIR-V allows it; C cannot say it).
            if let Some((m, _)) = innermost_loop {
                self.br(cur, m);
                return None;
            }
        } else if r < 65 {
            if let Some((_, c)) = innermost_loop {
                self.br(cur, c);
                return None;
            }
        } else if r < 70 {
            // `if (c) break;` / `if (c) continue;` without a merge instruction (V-SCF-3).
            if let Some((m, c)) = innermost_loop {
                let next = self.new_block();
                let target = if self.rng.chance(50) { m } else { c };
                if self.rng.chance(50) {
                    self.cond(cur, target, next);
                } else {
                    self.cond(cur, next, target);
                }
                return Some(next);
            }
        } else if r < 73 {
            self.set(cur, Terminator::Return);
            return None;
        } else if r < 74 {
            self.set(cur, Terminator::Kill);
            return None;
        }
        let next = self.new_block();
        self.br(cur, next);
        Some(next)
    }

    fn if_stmt(&mut self, cur: u32, depth: u32, ctx: &[Construct]) -> u32 {
        let m = self.new_block();
        let t = self.new_block();
        self.merge(cur, Merge::Selection { merge: BlockIdx(m) });
        let has_else = self.rng.chance(60);
        let e = if has_else { self.new_block() } else { m };
        self.cond(cur, t, e);
        if let Some(end) = self.seq(t, depth + 1, ctx) {
            self.br(end, m);
        }
        if has_else && let Some(end) = self.seq(e, depth + 1, ctx) {
            self.br(end, m);
        }
        m
    }

    fn loop_stmt(&mut self, cur: u32, depth: u32, ctx: &[Construct]) -> u32 {
        let h = self.new_block();
        self.br(cur, h);
        let m = self.new_block();
        if self.rng.chance(15) {
            // Single-block loop: the header is its own continue target.
            self.merge(
                h,
                Merge::Loop {
                    merge: BlockIdx(m),
                    continue_target: BlockIdx(h),
                },
            );
            self.cond(h, h, m);
            return m;
        }
        let c = self.new_block();
        let body = self.new_block();
        self.merge(
            h,
            Merge::Loop {
                merge: BlockIdx(m),
                continue_target: BlockIdx(c),
            },
        );
        if self.rng.chance(50) {
            // while (cond) { body }
            self.cond(h, body, m);
        } else {
            // do { body } while (cond) / infinite loops.
            self.br(h, body);
        }
        let mut inner = ctx.to_vec();
        inner.push(Construct::Loop { merge: m, cont: c });
        if let Some(end) = self.seq(body, depth + 1, &inner) {
            self.br(end, c);
        }
        // The continue construct: maybe a small selection, then the back edge, conditional
        // or not.
        let mut latch = c;
        if self.rng.chance(30) {
            let cm = self.new_block();
            let x = self.new_block();
            self.merge(
                c,
                Merge::Selection {
                    merge: BlockIdx(cm),
                },
            );
            self.cond(c, x, cm);
            self.br(x, cm);
            latch = cm;
        }
        if self.rng.chance(60) {
            self.cond(latch, h, m);
        } else {
            self.br(latch, h);
        }
        m
    }

    fn switch_stmt(&mut self, cur: u32, depth: u32, ctx: &[Construct]) -> u32 {
        let m = self.new_block();
        self.merge(cur, Merge::Selection { merge: BlockIdx(m) });
        let k = 1 + self.rng.below(4) as usize;
        let case_blocks: Vec<u32> = (0..k).map(|_| self.new_block()).collect();
        let mut cases = Vec::new();
        let mut lit = 0u64;
        for (i, &b) in case_blocks.iter().enumerate() {
            let lits = 1 + self.rng.below(2);
            for _ in 0..lits {
                lit += 1 + self.rng.below(3);
                cases.push((lit, BlockIdx(b)));
            }
            if i == 0 && self.rng.chance(20) {
                // A literal going straight to the merge (an empty case).
                lit += 1;
                cases.push((lit, BlockIdx(m)));
            }
        }
        let default = match self.rng.below(3) {
            0 => m,
            1 => case_blocks[self.rng.below(k as u64) as usize],
            _ => {
                let d = self.new_block();
                let mut inner = ctx.to_vec();
                inner.push(Construct::Switch { merge: m });
                if let Some(end) = self.seq(d, depth + 1, &inner) {
                    self.br(end, m);
                }
                d
            }
        };
        self.set(
            cur,
            Terminator::Switch {
                selector_bits: 32,
                default: BlockIdx(default),
                cases,
            },
        );
        let mut inner = ctx.to_vec();
        inner.push(Construct::Switch { merge: m });
        for (i, &b) in case_blocks.iter().enumerate() {
            if let Some(end) = self.seq(b, depth + 1, &inner) {
                // Fall through to the next case, or break.
                let next = case_blocks.get(i + 1).copied();
                match next {
                    Some(nb) if self.rng.chance(35) => self.br(end, nb),
                    _ => self.br(end, m),
                }
            }
        }
        m
    }
}

/// One observable step of an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Block(u32),
    Edge(u32, u32),
}

/// How an execution ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Return(u32),
    Kill(u32),
    Unreachable,
    /// The block budget of the walk ran out.
    Limit,
}

/// Branch decisions: a pure function of (seed, block, how often the block ran before).
#[derive(Clone, Copy)]
pub struct Oracle(pub u64);

impl Oracle {
    fn raw(self, block: u32, visit: u32) -> u64 {
        let mut r = Rng::new(self.0 ^ (u64::from(block) << 32) ^ u64::from(visit) ^ 0x5555);
        r.next();
        r.next()
    }

    /// The selector value for a switch block: one of the literals or a value none matches.
    fn selector(self, cases: &[(u64, BlockIdx)], raw: u64) -> u64 {
        let pick = (raw >> 1) % (cases.len() as u64 + 1);
        match cases.get(pick as usize) {
            Some(c) => c.0,
            None => {
                let mut v = 1_000_000;
                while cases.iter().any(|c| c.0 == v) {
                    v += 1;
                }
                v
            }
        }
    }
}

/// Runs the CFG for at most `max_blocks` block executions.
pub fn walk_cfg(cfg: &Cfg, oracle: Oracle, max_blocks: usize) -> (Vec<Event>, End) {
    let mut events = Vec::new();
    let mut visits = vec![0u32; cfg.len()];
    let mut b = cfg.entry();
    let mut count = 0;
    loop {
        if count == max_blocks {
            return (events, End::Limit);
        }
        count += 1;
        events.push(Event::Block(b.0));
        let raw = oracle.raw(b.0, visits[b.index()]);
        visits[b.index()] += 1;
        let next = match &cfg.block(b).terminator {
            Terminator::Return | Terminator::ReturnValue => return (events, End::Return(b.0)),
            Terminator::Kill | Terminator::TerminateInvocation | Terminator::OtherExit { .. } => {
                return (events, End::Kill(b.0));
            }
            Terminator::Unreachable => return (events, End::Unreachable),
            Terminator::Branch(t) => *t,
            Terminator::BranchConditional {
                true_target,
                false_target,
            } => {
                if raw & 1 == 1 {
                    *true_target
                } else {
                    *false_target
                }
            }
            Terminator::Switch { default, cases, .. } => {
                let v = oracle.selector(cases, raw);
                cases.iter().find(|c| c.0 == v).map_or(*default, |c| c.1)
            }
        };
        if cfg.block(next).has_phis {
            events.push(Event::Edge(b.0, next.0));
        }
        b = next;
    }
}

enum Flow {
    Normal,
    Break,
    Continue,
    End(End),
}

struct TreeWalk<'a> {
    cfg: &'a Cfg,
    tree: &'a Structured,
    oracle: Oracle,
    visits: Vec<u32>,
    last: Vec<Option<u64>>,
    vars: Vec<Option<u32>>,
    events: Vec<Event>,
    blocks: usize,
    max_blocks: usize,
    steps: usize,
    max_steps: usize,
}

/// Runs a region tree with the same decisions as [`walk_cfg`]; errors on malformed trees
/// (a `Break` outside loops and switches, a condition read before its block ran, a variable
/// read before it was set, a tree that spins without running blocks, ...).
pub fn walk_tree(
    cfg: &Cfg,
    s: &Structured,
    oracle: Oracle,
    max_blocks: usize,
) -> Result<(Vec<Event>, End), String> {
    let mut w = TreeWalk {
        cfg,
        tree: s,
        oracle,
        visits: vec![0; cfg.len()],
        last: vec![None; cfg.len()],
        vars: vec![None; s.num_vars as usize],
        events: Vec::new(),
        blocks: 0,
        max_blocks,
        steps: 0,
        max_steps: 200 * max_blocks + 10_000,
    };
    match w.seq(s.body, 0, 0)? {
        Flow::End(e) => Ok((w.events, e)),
        Flow::Normal => Err("fell off the end of the function".into()),
        Flow::Break | Flow::Continue => Err("break/continue escaped the function".into()),
    }
}

impl TreeWalk<'_> {
    fn seq(&mut self, seq: Seq, loops: u32, breakables: u32) -> Result<Flow, String> {
        let tree = self.tree;
        for r in tree.regions(seq) {
            self.steps += 1;
            if self.steps > self.max_steps {
                return Err("the tree spins without running blocks".into());
            }
            match self.node(r, loops, breakables)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn decision(&self, b: BlockIdx) -> Result<u64, String> {
        self.last
            .get(b.index())
            .copied()
            .flatten()
            .ok_or_else(|| format!("decision of {b} read before it ran"))
    }

    fn node(&mut self, r: &Region, loops: u32, breakables: u32) -> Result<Flow, String> {
        match r {
            Region::Block(b) => {
                if self.blocks == self.max_blocks {
                    return Ok(Flow::End(End::Limit));
                }
                self.blocks += 1;
                self.events.push(Event::Block(b.0));
                let v = self.visits[b.index()];
                self.visits[b.index()] += 1;
                self.last[b.index()] = Some(self.oracle.raw(b.0, v));
            }
            Region::Edge { from, to } => {
                if !self.cfg.block(*to).has_phis {
                    return Err(format!("edge into {to}, which has no phis"));
                }
                self.events.push(Event::Edge(from.0, to.0));
            }
            Region::SetVar { var, value } => {
                let slot = self
                    .vars
                    .get_mut(var.0 as usize)
                    .ok_or_else(|| format!("variable {var:?} beyond num_vars"))?;
                *slot = Some(*value);
            }
            Region::If { cond, then_, else_ } => {
                let c = match cond {
                    Cond::Branch { block, value } => {
                        if !matches!(
                            self.cfg.block(*block).terminator,
                            Terminator::BranchConditional { .. }
                        ) {
                            return Err(format!("{block} has no conditional branch"));
                        }
                        ((self.decision(*block)? & 1) == 1) == *value
                    }
                    Cond::VarEq { var, value } | Cond::VarNe { var, value } => {
                        let v = self
                            .vars
                            .get(var.0 as usize)
                            .copied()
                            .flatten()
                            .ok_or_else(|| format!("variable {var:?} read before set"))?;
                        (v == *value) == matches!(cond, Cond::VarEq { .. })
                    }
                };
                return self.seq(if c { *then_ } else { *else_ }, loops, breakables);
            }
            Region::Loop { body } => loop {
                self.steps += 1;
                if self.steps > self.max_steps {
                    return Err("the tree spins without running blocks".into());
                }
                match self.seq(*body, loops + 1, breakables + 1)? {
                    Flow::Normal | Flow::Continue => {}
                    Flow::Break => return Ok(Flow::Normal),
                    end => return Ok(end),
                }
            },
            Region::Switch { selector, arms } => {
                let arms = self.tree.arms(*arms);
                let Terminator::Switch { cases, .. } = &self.cfg.block(*selector).terminator else {
                    return Err(format!("{selector} has no switch"));
                };
                let v = self.oracle.selector(cases, self.decision(*selector)?);
                let start = arms
                    .iter()
                    .position(|a| a.literals.contains(&v))
                    .or_else(|| arms.iter().position(|a| a.default));
                let Some(start) = start else {
                    return Ok(Flow::Normal);
                };
                for arm in &arms[start..] {
                    match self.seq(arm.body, loops, breakables + 1)? {
                        Flow::Normal => {}
                        Flow::Break => return Ok(Flow::Normal),
                        other => return Ok(other),
                    }
                }
            }
            Region::Break => {
                if breakables == 0 {
                    return Err("break outside loops and switches".into());
                }
                return Ok(Flow::Break);
            }
            Region::Continue => {
                if loops == 0 {
                    return Err("continue outside loops".into());
                }
                return Ok(Flow::Continue);
            }
            Region::Return { block } => {
                if !matches!(
                    self.cfg.block(*block).terminator,
                    Terminator::Return | Terminator::ReturnValue
                ) {
                    return Err(format!("return from {block}, which does not return"));
                }
                return Ok(Flow::End(End::Return(block.0)));
            }
            Region::Kill { block } => {
                if !matches!(
                    self.cfg.block(*block).terminator,
                    Terminator::Kill
                        | Terminator::TerminateInvocation
                        | Terminator::OtherExit { .. }
                ) {
                    return Err(format!("kill from {block}, which does not kill"));
                }
                return Ok(Flow::End(End::Kill(block.0)));
            }
            Region::Unreachable => return Ok(Flow::End(End::Unreachable)),
        }
        Ok(Flow::Normal)
    }
}

/// Checks the tree against the CFG for `runs` random decision sequences; also checks that
/// every reachable block appears exactly once in the tree.
pub fn check_equivalent(
    cfg: &Cfg,
    s: &Structured,
    seed: u64,
    runs: u64,
    max_blocks: usize,
) -> Result<(), String> {
    let reachable = cfg.reachable();
    let mut count = vec![0u32; cfg.len()];
    let mut stack: Vec<Seq> = vec![s.body];
    while let Some(seq) = stack.pop() {
        for r in s.regions(seq) {
            match r {
                Region::Block(b) => count[b.index()] += 1,
                Region::If { then_, else_, .. } => {
                    stack.push(*then_);
                    stack.push(*else_);
                }
                Region::Loop { body } => stack.push(*body),
                Region::Switch { arms, .. } => stack.extend(s.arms(*arms).iter().map(|a| a.body)),
                _ => {}
            }
        }
    }
    for b in cfg.blocks() {
        let want = u32::from(reachable[b.index()]);
        if count[b.index()] != want {
            return Err(format!(
                "block {b} appears {} times, expected {want}",
                count[b.index()]
            ));
        }
    }
    for run in 0..runs {
        let oracle = Oracle(seed.wrapping_mul(1_000_003).wrapping_add(run));
        let expect = walk_cfg(cfg, oracle, max_blocks);
        let got = walk_tree(cfg, s, oracle, max_blocks).map_err(|e| format!("run {run}: {e}"))?;
        if got != expect {
            return Err(format!(
                "run {run}: traces differ\n cfg:  {:?}\n tree: {:?}",
                expect, got
            ));
        }
    }
    Ok(())
}
