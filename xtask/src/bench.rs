//! `cargo xtask bench`: the benchmarks side by side with the peers, and how cost grows.
//!
//! Four steps, each printed as it runs:
//! 1. the criterion benches of the `bench` crate (`cargo bench --manifest-path bench/Cargo.toml`,
//!    its own workspace so naga never enters `cargo test --workspace`), with the target folder,
//!    criterion's output and the benches' side reports pinned under `bench/target`;
//! 2. one table of the stages over the real modules — MB/s and modules/s from criterion's
//!    `new/estimates.json` (median time per iteration) and the module counts from
//!    `bench/target/spv2il-bench/stages.json` — with ratios against each baseline and the goals,
//!    followed by the goals measured as paired rounds (`bench/benches/paired.rs`, its table in
//!    `bench/target/spv2il-bench/paired.md`), which a drifting machine speed cannot tilt;
//! 3. whole processes over the corpus: the release `spv2il` against spirv-val, spirv-dis and
//!    spirv-cross, one process per module, the tools interleaved module by module so that a
//!    change of machine load hits all of them alike;
//! 4. the scaling table: per-stage times of the synthetic modules (criterion) and the time and
//!    peak memory of one `spv2il` process on each (`/usr/bin/time -v`), with growth exponents.
//!
//! The printed tables are also written to `bench/target/spv2il-bench/summary.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::corpus::corpus_root;
use crate::tools::{cargo_path, project_root, run_with_env, spirv_tool};

const USAGE: &str = "\
usage: cargo xtask bench [--sample N] [--no-criterion] [--no-process] [--callgrind]
                         [-- CRITERION-ARGS]
  --sample N       criterion runs over every N-th module of each set (quicker, rougher)
  --no-criterion   do not run cargo bench; tabulate the results of the last run
  --no-process     skip the whole-process timings and the peak-memory measurement
  --callgrind      also count the instructions of each stage on the scaling modules with
                   valgrind, and simulate caches and branch prediction on the translate goal's
                   modules (exact and repeatable where wall time is noisy; a few minutes)";

/// One process per module is stopped after this long (a hung peer must not hang the task).
const PROCESS_TIMEOUT: Duration = Duration::from_secs(10);

/// The stages of the table, in pipeline order, and what each one times.
const STAGES: [(&str, &str); 7] = [
    ("read", "spv_reader::read"),
    ("validate", "spv_validate::validate"),
    ("cfg", "Cfg::from_function + structurize, every function"),
    ("lower", "spv2il::translate (reads and validates again)"),
    ("write_text", "Translation::text"),
    ("write_tokens", "Translation::tokens"),
    ("translate", "bytes to IL text, end to end"),
];

/// The baselines, measured in the same run.
const BASELINES: [(&str, &str); 4] = [
    ("rspirv_parse", "rspirv binary::parse_bytes, no-op consumer"),
    ("rspirv_load", "rspirv dr::load_bytes"),
    ("naga_parse", "naga 30 SPIR-V front end"),
    ("naga_wgsl", "naga 30 parse + validate + WGSL"),
];

/// The synthetic shapes and scales (`bench/src/synth.rs`, file names `SHAPE_SCALEx.spv`).
const SCALING_SHAPES: [&str; 4] = [
    "many_functions",
    "huge_function",
    "deep_nesting",
    "long_switch",
];
const SCALING_SCALES: [u32; 4] = [1, 4, 16, 64];

/// Runs the task.
pub fn run(args: &[String]) -> Result<(), String> {
    // Asked for before `--` only: after it, `--help` is criterion's.
    let own_args = args.split(|a| a == "--").next().unwrap_or_default();
    if own_args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(());
    }
    let options = Options::parse(args)?;
    let root = project_root();
    let bench_dir = root.join("bench");
    let target = bench_dir.join("target");
    let report_dir = target.join("spv2il-bench");
    let criterion_dir = target.join("criterion");
    let started = SystemTime::now();
    if options.criterion {
        let mut cargo_args = vec![
            "bench".to_string(),
            "--manifest-path".to_string(),
            bench_dir.join("Cargo.toml").display().to_string(),
        ];
        if !options.criterion_args.is_empty() {
            cargo_args.push("--".to_string());
            cargo_args.extend(options.criterion_args.iter().cloned());
        }
        let target_text = target.display().to_string();
        let report_text = report_dir.display().to_string();
        let criterion_text = criterion_dir.display().to_string();
        let mut env = vec![
            ("CARGO_TARGET_DIR", target_text.as_str()),
            ("SPV2IL_BENCH_REPORT_DIR", report_text.as_str()),
            ("CRITERION_HOME", criterion_text.as_str()),
        ];
        if let Some(sample) = &options.sample {
            env.push(("SPV2IL_BENCH_SAMPLE", sample.as_str()));
        }
        run_with_env(&root, &cargo_path(), &cargo_args, &env)?;
    }
    // With --no-criterion the last run's results count, whenever they were made.
    let fresh_since = options.criterion.then_some(started);
    let results = Results {
        criterion_dir,
        fresh_since,
    };
    let mut summary = String::new();
    summary += &machine_line();
    summary += &stage_table(&results, &report_dir.join("stages.json"))?;
    summary += &paired_table(&report_dir.join("paired.md"));
    print!("{summary}");
    let synth_dir = target.join("synth");
    if options.process || options.callgrind {
        generate_synthetic(&bench_dir, &target, &synth_dir)?;
    }
    let spv2il = if options.process {
        let spv2il = build_spv2il()?;
        let process = process_table(&spv2il)?;
        print!("{process}");
        summary += &process;
        Some(spv2il)
    } else {
        None
    };
    let scaling = scaling_table(
        &results,
        &report_dir.join("scaling.json"),
        spv2il.as_deref().map(|s| (s, synth_dir.as_path())),
    )?;
    print!("{scaling}");
    summary += &scaling;
    if options.callgrind {
        let stage_bin = target.join("release/stage");
        let counts = callgrind_table(&stage_bin, &synth_dir)?;
        print!("{counts}");
        summary += &counts;
        let cycles = simulated_goal_table(&stage_bin, &report_dir)?;
        print!("{cycles}");
        summary += &cycles;
    }
    std::fs::create_dir_all(&report_dir)
        .map_err(|e| format!("cannot create {}: {e}", report_dir.display()))?;
    let summary_path = report_dir.join("summary.md");
    std::fs::write(&summary_path, &summary)
        .map_err(|e| format!("cannot write {}: {e}", summary_path.display()))?;
    eprintln!("xtask bench: tables written to {}", summary_path.display());
    Ok(())
}

/// The task's own arguments.
struct Options {
    sample: Option<String>,
    criterion: bool,
    process: bool,
    callgrind: bool,
    criterion_args: Vec<String>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            sample: None,
            criterion: true,
            process: true,
            callgrind: false,
            criterion_args: Vec::new(),
        };
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--sample" => {
                    let n = rest.next().ok_or(USAGE)?;
                    n.parse::<usize>()
                        .map_err(|_| format!("--sample wants a number, not `{n}`\n{USAGE}"))?;
                    options.sample = Some(n.clone());
                }
                "--no-criterion" => options.criterion = false,
                "--no-process" => options.process = false,
                "--callgrind" => options.callgrind = true,
                "--" => {
                    options.criterion_args = rest.cloned().collect();
                    break;
                }
                other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
            }
        }
        Ok(options)
    }
}

/// The machine, for the record: cores, CPU model, rustc.
fn machine_line() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "rustc ?".to_string());
    format!("\nMachine: {cores} cores, {cpu}, {rustc}\n")
}

/// Criterion's results folder, and the time before which results are stale.
struct Results {
    criterion_dir: PathBuf,
    fresh_since: Option<SystemTime>,
}

impl Results {
    /// The median time of one iteration of benchmark `id` (`group/function[/value]`), in
    /// seconds; `None` when criterion has no result from this run.
    fn seconds(&self, id: &str) -> Option<f64> {
        let path = self.criterion_dir.join(id).join("new/estimates.json");
        if let Some(since) = self.fresh_since {
            let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
            if modified < since {
                return None;
            }
        }
        let value = read_json(&path).ok()?;
        let nanos = value.pointer("/median/point_estimate")?.as_f64()?;
        (nanos > 0.0).then_some(nanos / 1e9)
    }
}

/// What a bench's report says about benchmark `id`: (modules, bytes, modules in the set).
fn counts(report: &Value, id: &str) -> Option<(u64, u64, u64)> {
    let entry = report.get("benchmarks")?.get(id)?;
    Some((
        entry.get("modules")?.as_u64()?,
        entry.get("bytes")?.as_u64()?,
        entry.get("of")?.as_u64()?,
    ))
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// MB/s (10^6 bytes) of `bytes` in `seconds`.
fn mbps(bytes: u64, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e6
}

/// The paired-round goal table the `paired` bench wrote, under a heading; empty when there is
/// none (an older bench run).
fn paired_table(path: &Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(table) => {
            format!("\n### Goals as paired rounds (peer time / our time per round)\n\n{table}")
        }
        Err(_) => String::new(),
    }
}

/// The table of stages and baselines over the real modules, then the goals.
fn stage_table(results: &Results, report_path: &Path) -> Result<String, String> {
    let report = read_json(report_path)?;
    let sets: Vec<&str> = ["corpus", "shaders"]
        .into_iter()
        .filter(|set| report.pointer(&format!("/notes/{set}")).is_some())
        .collect();
    let mut out = String::new();
    let sample = report
        .pointer("/notes/sample_every")
        .and_then(Value::as_u64)
        .unwrap_or(1);
    let _ = writeln!(
        out,
        "\n## Stages over real modules (criterion, median of one pass over the accepted modules)\n"
    );
    if sample > 1 {
        let _ = writeln!(out, "Sampled: every {sample}th module of each set.\n");
    }
    if !sets.contains(&"corpus") {
        let _ = writeln!(
            out,
            "../shared/corpus is absent: only the workspace's shaders.\n"
        );
    }
    let _ = writeln!(
        out,
        "| stage | set | modules | MB/s | modules/s | × rspirv_parse | × rspirv_load | × naga_parse | × naga_wgsl |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for set in &sets {
        let throughput = |name: &str| -> Option<(u64, u64, f64)> {
            let id = format!("{name}/{set}");
            let (modules, bytes, _) = counts(&report, &id)?;
            let seconds = results.seconds(&id)?;
            Some((modules, bytes, seconds))
        };
        let baseline_rates: Vec<Option<f64>> = BASELINES
            .iter()
            .map(|(name, _)| throughput(name).map(|(_, bytes, s)| mbps(bytes, s)))
            .collect();
        for (name, _) in STAGES.iter().chain(BASELINES.iter()) {
            let id = format!("{name}/{set}");
            let of = counts(&report, &id).map_or(0, |c| c.2);
            let Some((modules, bytes, seconds)) = throughput(name) else {
                let modules = counts(&report, &id).map_or(0, |c| c.0);
                let _ = writeln!(
                    out,
                    "| {name} | {set} | {modules}/{of} | – | – | – | – | – | – |"
                );
                continue;
            };
            let rate = mbps(bytes, seconds);
            let ratios: Vec<String> = baseline_rates
                .iter()
                .map(|b| b.map_or("–".to_string(), |b| format!("{:.2}", rate / b)))
                .collect();
            let _ = writeln!(
                out,
                "| {name} | {set} | {modules}/{of} | {rate:.1} | {:.0} | {} |",
                modules as f64 / seconds,
                ratios.join(" | ")
            );
        }
    }
    let _ = writeln!(out, "\nStages and baselines:");
    for (name, what) in STAGES.iter().chain(BASELINES.iter()) {
        let _ = writeln!(out, "- {name}: {what}");
    }
    let _ = writeln!(
        out,
        "\nEach row covers only the modules that stage accepts (`modules` = accepted/total); a\n\
         ratio compares MB/s with the baseline's MB/s over the modules *it* accepts.\n"
    );
    for set in &sets {
        if let Some(note) = report.pointer(&format!("/notes/{set}")) {
            let _ = writeln!(
                out,
                "Translation of {set}: refusals {} ; most frequent unsupported features {} ; panics {}",
                note.get("translate_errors").unwrap_or(&Value::Null),
                note.get("unsupported_top").unwrap_or(&Value::Null),
                note.get("panics").unwrap_or(&Value::Null),
            );
        }
    }
    let _ = writeln!(
        out,
        "\n## Goals (each pair over the modules both sides accept)\n"
    );
    let _ = writeln!(
        out,
        "| goal | set | modules | spv2il MB/s | peer MB/s | speed-up | met |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---|");
    for set in &sets {
        // (group, our function, peer, goal, how the row is named)
        for (group, function, peer, target, label) in [
            ("goal_reader", "spv2il", "rspirv", 5.0, "goal_reader"),
            (
                "goal_reader",
                "spv2il_kept",
                "rspirv",
                5.0,
                "goal_reader, modules kept (no buffer reuse)",
            ),
            (
                "goal_translate",
                "spv2il",
                "naga",
                2.0,
                "goal_translate (IL text)",
            ),
            (
                "goal_translate",
                "spv2il_both",
                "naga",
                2.0,
                "goal_translate, IL text and tokens",
            ),
        ] {
            let ours = format!("{group}_{set}/{function}");
            let theirs = format!("{group}_{set}/{peer}");
            let (Some((modules, bytes, _)), Some(t_ours), Some(t_theirs)) = (
                counts(&report, &ours),
                results.seconds(&ours),
                results.seconds(&theirs),
            ) else {
                let _ = writeln!(out, "| {label} vs {peer} | {set} | – | – | – | – | – |");
                continue;
            };
            let speedup = t_theirs / t_ours;
            let _ = writeln!(
                out,
                "| {label} vs {peer} (≥ {target}×) | {set} | {modules} | {:.1} | {:.1} | {speedup:.2}× | {} |",
                mbps(bytes, t_ours),
                mbps(bytes, t_theirs),
                if speedup >= target { "yes" } else { "no" }
            );
        }
    }
    Ok(out)
}

/// Builds the release `spv2il` binary of the workspace and returns its path (read from
/// cargo's JSON messages, so any `CARGO_TARGET_DIR` is honoured).
fn build_spv2il() -> Result<PathBuf, String> {
    let args = [
        "build",
        "--release",
        "-p",
        "spv2il",
        "--bin",
        "spv2il",
        "--message-format=json-render-diagnostics",
    ];
    eprintln!("$ cargo {}", args.join(" "));
    let output = Command::new(cargo_path())
        .args(args)
        .current_dir(project_root())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("building spv2il failed ({})", output.status));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message.pointer("/target/name").and_then(Value::as_str) == Some("spv2il"))
        .find_map(|message| message.get("executable")?.as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo built no spv2il executable".to_string())
}

/// One command run once per module: a name and its arguments around the file name.
struct Tool {
    name: String,
    program: PathBuf,
    before: Vec<String>,
    after: Vec<String>,
    total: Duration,
    succeeded: usize,
    timed_out: usize,
}

impl Tool {
    fn new(name: &str, program: PathBuf, before: &[&str], after: &[&str]) -> Tool {
        Tool {
            name: name.to_string(),
            program,
            before: before.iter().map(|s| s.to_string()).collect(),
            after: after.iter().map(|s| s.to_string()).collect(),
            total: Duration::ZERO,
            succeeded: 0,
            timed_out: 0,
        }
    }

    /// Runs the tool on `file` and adds its wall time.
    fn run_on(&mut self, file: &Path) -> Result<(), String> {
        let start = Instant::now();
        let mut child = Command::new(&self.program)
            .args(&self.before)
            .arg(file)
            .args(&self.after)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.program.display()))?;
        // Polling every 50 µs costs each tool the same ~25 µs on average; a blocking wait
        // could not be bounded by PROCESS_TIMEOUT.
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break Some(status);
            }
            if start.elapsed() > PROCESS_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_micros(50));
        };
        self.total += start.elapsed();
        match status {
            Some(status) if status.success() => self.succeeded += 1,
            Some(_) => {}
            None => self.timed_out += 1,
        }
        Ok(())
    }
}

/// Whole processes, one per module, over the corpus (or the workspace's shaders without it).
fn process_table(spv2il: &Path) -> Result<String, String> {
    let root = project_root();
    let (set, files) = match corpus_root() {
        Some(corpus) => ("../shared/corpus", spv_files(&corpus)),
        None => ("the workspace's test shaders", shader_files(&root)),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Whole processes, one per module, over {set} ({} modules)\n",
        files.len()
    );
    let mut tools = vec![
        Tool::new("process start (true)", PathBuf::from("true"), &[], &[]),
        Tool::new("spv2il validate", spv2il.to_path_buf(), &["validate"], &[]),
        Tool::new("spv2il dis", spv2il.to_path_buf(), &["dis"], &[]),
        Tool::new(
            "spv2il (translate to text)",
            spv2il.to_path_buf(),
            &[],
            &["-o", "/dev/null"],
        ),
    ];
    let mut missing = Vec::new();
    match spirv_tool("spirv-val") {
        Ok(path) => tools.push(Tool::new("spirv-val", path, &[], &[])),
        Err(e) => missing.push(e),
    }
    match spirv_tool("spirv-dis") {
        Ok(path) => tools.push(Tool::new("spirv-dis", path, &[], &["-o", "/dev/null"])),
        Err(e) => missing.push(e),
    }
    match Command::new("spirv-cross").arg("--help").output() {
        Ok(_) => tools.push(Tool::new(
            "spirv-cross (to GLSL)",
            PathBuf::from("spirv-cross"),
            &[],
            &["--output", "/dev/null"],
        )),
        Err(_) => missing.push(
            "spirv-cross is ABSENT (install it with `apt-get install spirv-cross`): its rows are \
             left out"
                .to_string(),
        ),
    }
    for message in &missing {
        eprintln!("xtask bench: {message}");
        let _ = writeln!(out, "Note: {message}\n");
    }
    eprintln!(
        "xtask bench: timing {} tools on {} modules, one process each",
        tools.len(),
        files.len()
    );
    for file in &files {
        for tool in &mut tools {
            tool.run_on(file)?;
        }
    }
    let per_module = |tool: &Tool| tool.total.as_secs_f64() * 1e3 / files.len().max(1) as f64;
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t.name.starts_with(name))
            .map(per_module)
    };
    let _ = writeln!(out, "| command | ms per module | exit 0 | timed out |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for tool in &tools {
        let _ = writeln!(
            out,
            "| {} | {:.2} | {}/{} | {} |",
            tool.name,
            per_module(tool),
            tool.succeeded,
            files.len(),
            tool.timed_out
        );
    }
    let _ = writeln!(
        out,
        "\n| comparison | ratio (peer time / spv2il time) |\n|---|---:|"
    );
    for (ours, theirs) in [
        ("spv2il validate", "spirv-val"),
        ("spv2il dis", "spirv-dis"),
        ("spv2il (translate", "spirv-cross"),
    ] {
        if let (Some(a), Some(b)) = (find(ours), find(theirs)) {
            let ours = ours.trim_end_matches(" (translate");
            let _ = writeln!(out, "| {theirs} / {ours} | {:.2} |", b / a);
        }
    }
    let _ = writeln!(
        out,
        "\nEvery command ran on every module (exit 0 counts what it accepted); `spv2il` \
         translates only GLCompute modules and exits 1 on the others after reading and \
         validating them. Timings include process start (the `true` row)."
    );
    Ok(out)
}

/// Writes the synthetic modules with the bench crate's `synth` binary.
fn generate_synthetic(bench_dir: &Path, target: &Path, out_dir: &Path) -> Result<(), String> {
    let args = vec![
        "run".to_string(),
        "--quiet".to_string(),
        "--release".to_string(),
        "--manifest-path".to_string(),
        bench_dir.join("Cargo.toml").display().to_string(),
        "--bin".to_string(),
        "synth".to_string(),
        "--".to_string(),
        out_dir.display().to_string(),
    ];
    let target_text = target.display().to_string();
    let env = [("CARGO_TARGET_DIR", target_text.as_str())];
    // The `stage` binary (one stage on one module) is what --callgrind measures.
    let build: Vec<String> = [
        "build",
        "--quiet",
        "--release",
        "--manifest-path",
        &bench_dir.join("Cargo.toml").display().to_string(),
        "--bin",
        "stage",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run_with_env(&project_root(), &cargo_path(), &build, &env)?;
    run_with_env(&project_root(), &cargo_path(), &args, &env)
}

/// Instructions executed by `stage STAGE FILE REPEAT` under callgrind (its "I refs" total).
fn instructions(stage_bin: &Path, stage: &str, file: &Path, repeat: u32) -> Result<u64, String> {
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(stage_bin)
        .arg(stage)
        .arg(file)
        .arg(repeat.to_string())
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start valgrind (apt-get install valgrind): {e}"))?;
    let text = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "{stage} on {} failed under valgrind",
            file.display()
        ));
    }
    text.lines()
        .find_map(|l| l.split("I   refs:").nth(1))
        .and_then(|n| n.trim().replace(',', "").parse().ok())
        .ok_or_else(|| format!("no instruction count from valgrind for {}", file.display()))
}

/// Instruction counts per stage on the scaling modules, net of starting the process and
/// reading the module once (the same binary run with REPEAT 0), with growth exponents.
fn callgrind_table(stage_bin: &Path, synth_dir: &Path) -> Result<String, String> {
    const STAGES: [&str; 4] = ["read", "validate", "cfg", "translate"];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Scaling in instructions (callgrind; millions, net of process start and one read)\n"
    );
    let _ = writeln!(
        out,
        "| shape | scale | bytes | read | validate | cfg | translate |\n|---|---:|---:|---:|---:|---:|---:|"
    );
    let mut exponents = Vec::new();
    for shape in SCALING_SHAPES {
        let mut net: BTreeMap<(&str, u32), f64> = BTreeMap::new();
        let mut sizes: BTreeMap<u32, f64> = BTreeMap::new();
        for scale in SCALING_SCALES {
            let file = synth_dir.join(format!("{shape}_{scale}x.spv"));
            let bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
            sizes.insert(scale, bytes as f64);
            eprintln!("xtask bench: callgrind on {}", file.display());
            let base = instructions(stage_bin, "read", &file, 0)?;
            let mut cells = Vec::new();
            for stage in STAGES {
                match instructions(stage_bin, stage, &file, 1) {
                    Ok(total) => {
                        let count = total.saturating_sub(base) as f64;
                        net.insert((stage, scale), count);
                        cells.push(format!("{:.2}", count / 1e6));
                    }
                    // A stage that refuses the module (reported in the table above).
                    Err(_) => cells.push("–".to_string()),
                }
            }
            let _ = writeln!(
                out,
                "| {shape} | {scale}× | {bytes} | {} |",
                cells.join(" | ")
            );
        }
        let mut row = Vec::new();
        for stage in STAGES {
            let k = match (
                net.get(&(stage, 16)),
                net.get(&(stage, 64)),
                sizes.get(&16),
                sizes.get(&64),
            ) {
                (Some(a), Some(b), Some(x), Some(y)) if *a > 0.0 => {
                    Some((b / a).ln() / (y / x).ln())
                }
                _ => None,
            };
            row.push(k.map_or("–".to_string(), |k| {
                if k > 1.15 {
                    format!("**{k:.2}**")
                } else {
                    format!("{k:.2}")
                }
            }));
        }
        exponents.push(format!("| {shape} | {} |", row.join(" | ")));
    }
    let _ = writeln!(
        out,
        "\nGrowth exponent from 16× to 64× in instructions (exact; above 1.15 is flagged):\n\n\
         | shape | read | validate | cfg | translate |\n|---|---:|---:|---:|---:|"
    );
    for row in exponents {
        let _ = writeln!(out, "{row}");
    }
    Ok(out)
}

/// Passes of the long run of [`steady_pass`]; the short run makes one.
const LONG_RUN_PASSES: u32 = 6;

/// What cachegrind counts over one steady pass of a stage: instructions, first-level
/// instruction and data cache misses, last-level misses and mispredicted branches.
#[derive(Clone, Copy, Default)]
struct Simulated {
    instructions: f64,
    l1_instruction_misses: f64,
    l1_data_misses: f64,
    last_level_misses: f64,
    mispredicts: f64,
}

impl Simulated {
    /// Estimated cycles: each instruction one cycle, each first-level miss 10 more (a hit in
    /// the second level), each last-level miss 100, each mispredicted branch 15 (a refilled
    /// pipeline). The weights are round figures for a current x86 core, not a measurement of
    /// this one; the estimate is for comparing two programs on the same inputs.
    fn cycles(&self) -> f64 {
        self.instructions
            + 10.0 * (self.l1_instruction_misses + self.l1_data_misses)
            + 100.0 * self.last_level_misses
            + 15.0 * self.mispredicts
    }
}

/// Cachegrind's totals for `stage STAGE --list LIST REPEAT`, with cache and branch simulation.
fn cachegrind(
    stage_bin: &Path,
    stage: &str,
    list: &Path,
    repeat: u32,
    out_file: &Path,
) -> Result<Simulated, String> {
    let status = Command::new("valgrind")
        .args(["--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes"])
        .arg(format!("--cachegrind-out-file={}", out_file.display()))
        .arg(stage_bin)
        .arg(stage)
        .arg("--list")
        .arg(list)
        .arg(repeat.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot start valgrind (apt-get install valgrind): {e}"))?;
    if !status.success() {
        return Err(format!(
            "{stage} over {} failed under cachegrind",
            list.display()
        ));
    }
    let text = std::fs::read_to_string(out_file)
        .map_err(|e| format!("cannot read {}: {e}", out_file.display()))?;
    // The file names its events once ("events: Ir I1mr ...") and totals them on "summary:".
    let line = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(|rest| rest.split_whitespace().collect::<Vec<_>>())
    };
    let (Some(names), Some(values)) = (line("events:"), line("summary:")) else {
        return Err(format!("no totals in {}", out_file.display()));
    };
    let count = |name: &str| -> f64 {
        names
            .iter()
            .position(|n| *n == name)
            .and_then(|i| values.get(i))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Ok(Simulated {
        instructions: count("Ir"),
        l1_instruction_misses: count("I1mr"),
        l1_data_misses: count("D1mr") + count("D1mw"),
        last_level_misses: count("ILmr") + count("DLmr") + count("DLmw"),
        mispredicts: count("Bcm") + count("Bim"),
    })
}

/// One steady pass of `stage` over the modules of `list`: a run of [`LONG_RUN_PASSES`] passes
/// minus a run of one, divided by the passes between them, so that process start, one-time
/// tables and the read before the loop drop out.
fn steady_pass(
    stage_bin: &Path,
    stage: &str,
    list: &Path,
    out_file: &Path,
) -> Result<Simulated, String> {
    let short = cachegrind(stage_bin, stage, list, 1, out_file)?;
    let long = cachegrind(stage_bin, stage, list, LONG_RUN_PASSES, out_file)?;
    let passes = f64::from(LONG_RUN_PASSES - 1);
    let per_pass = |long: f64, short: f64| (long - short).max(0.0) / passes;
    Ok(Simulated {
        instructions: per_pass(long.instructions, short.instructions),
        l1_instruction_misses: per_pass(long.l1_instruction_misses, short.l1_instruction_misses),
        l1_data_misses: per_pass(long.l1_data_misses, short.l1_data_misses),
        last_level_misses: per_pass(long.last_level_misses, short.last_level_misses),
        mispredicts: per_pass(long.mispredicts, short.mispredicts),
    })
}

/// The translate goal under cachegrind: one steady pass of ours (`stage translate`, bytes to
/// IL text) and of naga's parse + validate + WGSL (`stage naga`) over the module lists the
/// stage bench wrote, with the ratio of instructions and of estimated cycles. Wall-clock
/// rounds on a shared machine swing; these figures do not, and the cycle estimate follows the
/// paired rounds' ratio more closely than instructions alone do.
fn simulated_goal_table(stage_bin: &Path, report_dir: &Path) -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Translate goal in simulated cycles (cachegrind; per steady pass, {LONG_RUN_PASSES} passes minus 1)\n"
    );
    let _ = writeln!(
        out,
        "| set | side | instructions | I1 misses | D1 misses | LL misses | mispredicts | est. cycles |\n\
         |---|---|---:|---:|---:|---:|---:|---:|"
    );
    let out_file = report_dir.join("cachegrind.out");
    let mut ratios = Vec::new();
    for set in ["corpus", "shaders"] {
        let list = report_dir.join(format!("goal_translate_{set}.list"));
        if !list.exists() {
            continue;
        }
        eprintln!("xtask bench: cachegrind on the translate goal, {set}");
        let ours = steady_pass(stage_bin, "translate", &list, &out_file)?;
        let naga = steady_pass(stage_bin, "naga", &list, &out_file)?;
        for (side, s) in [("spv2il", ours), ("naga", naga)] {
            let _ = writeln!(
                out,
                "| {set} | {side} | {:.2} M | {:.0} K | {:.0} K | {:.1} K | {:.0} K | {:.2} M |",
                s.instructions / 1e6,
                s.l1_instruction_misses / 1e3,
                s.l1_data_misses / 1e3,
                s.last_level_misses / 1e3,
                s.mispredicts / 1e3,
                s.cycles() / 1e6
            );
        }
        if ours.instructions > 0.0 && ours.cycles() > 0.0 {
            ratios.push(format!(
                "{set}: {:.2}× in instructions, {:.2}× in estimated cycles",
                naga.instructions / ours.instructions,
                naga.cycles() / ours.cycles()
            ));
        }
    }
    let _ = std::fs::remove_file(&out_file);
    if ratios.is_empty() {
        return Ok(String::new());
    }
    let _ = writeln!(
        out,
        "\nnaga / spv2il (goal ≥ 2×): {}.\nEstimated cycles = instructions + 10 × first-level misses + \
         100 × last-level misses + 15 × mispredicts.",
        ratios.join("; ")
    );
    Ok(out)
}

/// Peak resident memory (KiB) and wall time of one `spv2il FILE` process, from GNU time.
fn peak_memory(spv2il: &Path, file: &Path) -> Option<(u64, f64, bool)> {
    let output = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(spv2il)
        .arg(file)
        .args(["-o", "/dev/null"])
        .stdout(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name).map(str::trim).map(String::from))
    };
    let kib = field("Maximum resident set size (kbytes):")?.parse().ok()?;
    // "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:00.79"
    let elapsed = field("Elapsed (wall clock) time (h:mm:ss or m:ss):")?;
    let seconds = elapsed.split(':').try_fold(0.0, |acc, part| {
        part.parse::<f64>().ok().map(|v| acc * 60.0 + v)
    })?;
    Some((kib, seconds, output.status.success()))
}

/// The scaling table: per shape and scale, the time of each stage, the process's peak memory,
/// and the growth exponent from 16× to 64× (1.0 is linear).
fn scaling_table(
    results: &Results,
    report_path: &Path,
    process: Option<(&Path, &Path)>,
) -> Result<String, String> {
    const SCALE_STAGES: [&str; 4] = ["read", "validate", "cfg", "translate"];
    let report = read_json(report_path)?;
    let has_time = Path::new("/usr/bin/time").is_file();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Scaling (synthetic modules; µs per module, criterion median)\n"
    );
    if process.is_some() && !has_time {
        let _ = writeln!(
            out,
            "Note: /usr/bin/time is absent: no peak-memory column.\n"
        );
    }
    let _ = writeln!(
        out,
        "| shape | scale | size | bytes | blocks | read µs | validate µs | cfg µs | translate µs | ns/byte (translate) | process ms (10 ms steps) | peak RSS KiB |"
    );
    let _ = writeln!(
        out,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut exponents: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    let mut refusals = Vec::new();
    for shape in SCALING_SHAPES {
        let mut times: BTreeMap<(&str, u32), f64> = BTreeMap::new();
        let mut sizes: BTreeMap<u32, f64> = BTreeMap::new();
        for scale in SCALING_SCALES {
            let key = format!("{shape}/{scale}");
            // Not `pointer`: the key holds a `/`.
            let Some(note) = report.get("notes").and_then(|n| n.get(&key)) else {
                continue;
            };
            let number = |field: &str| note.get(field).and_then(Value::as_u64).unwrap_or(0);
            let bytes = number("bytes");
            sizes.insert(scale, bytes as f64);
            for field in ["cfg", "translate"] {
                if let Some(error) = note.get(field).and_then(Value::as_str) {
                    refusals.push(format!("{key} {field}: {error}"));
                }
            }
            let mut cells = Vec::new();
            for stage in SCALE_STAGES {
                match results.seconds(&format!("scale_{stage}/{key}")) {
                    Some(seconds) => {
                        times.insert((stage, scale), seconds);
                        cells.push(format!("{:.1}", seconds * 1e6));
                    }
                    None => cells.push("–".to_string()),
                }
            }
            let per_byte = times
                .get(&("translate", scale))
                .map_or("–".to_string(), |s| {
                    format!("{:.0}", s * 1e9 / bytes as f64)
                });
            let (process_ms, rss) = match process {
                Some((spv2il, dir)) if has_time => {
                    match peak_memory(spv2il, &dir.join(format!("{shape}_{scale}x.spv"))) {
                        Some((kib, seconds, ok)) => (
                            format!("{:.0}{}", seconds * 1e3, if ok { "" } else { " (failed)" }),
                            kib.to_string(),
                        ),
                        None => ("–".to_string(), "–".to_string()),
                    }
                }
                _ => ("–".to_string(), "–".to_string()),
            };
            let _ = writeln!(
                out,
                "| {shape} | {scale}× | {} {} | {bytes} | {} | {} | {per_byte} | {process_ms} | {rss} |",
                number("size"),
                note.get("unit").and_then(Value::as_str).unwrap_or(""),
                number("blocks"),
                cells.join(" | "),
            );
        }
        for stage in SCALE_STAGES {
            if let (Some(t16), Some(t64), Some(b16), Some(b64)) = (
                times.get(&(stage, 16)),
                times.get(&(stage, 64)),
                sizes.get(&16),
                sizes.get(&64),
            ) {
                exponents.insert((shape, stage), (t64 / t16).ln() / (b64 / b16).ln());
            }
        }
    }
    let _ = writeln!(
        out,
        "\nGrowth exponent k in time ∝ bytes^k from 16× to 64× (1.0 linear; above 1.25 is flagged).\n\
         Wall time on a shared machine is noisy: `--callgrind` gives exact exponents.\n"
    );
    let _ = writeln!(out, "| shape | read | validate | cfg | translate |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    let mut flagged = Vec::new();
    for shape in SCALING_SHAPES {
        let cells: Vec<String> = SCALE_STAGES
            .iter()
            .map(|stage| match exponents.get(&(shape, *stage)) {
                Some(k) if *k > 1.25 => {
                    flagged.push(format!("{stage} on {shape} (k = {k:.2})"));
                    format!("**{k:.2}**")
                }
                Some(k) => format!("{k:.2}"),
                None => "–".to_string(),
            })
            .collect();
        let _ = writeln!(out, "| {shape} | {} |", cells.join(" | "));
    }
    if flagged.is_empty() {
        let _ = writeln!(out, "\nNo stage grows faster than linearly (k ≤ 1.25).");
    } else {
        let _ = writeln!(out, "\nFaster than linear: {}.", flagged.join("; "));
    }
    for refusal in refusals {
        let _ = writeln!(out, "Refused: {refusal}");
    }
    Ok(out)
}

/// Every `*.spv` below `dir`, sorted.
fn spv_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "spv") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The workspace's committed test shaders (`*/tests/shaders/**/*.spv`).
fn shader_files(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut members: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    members.sort();
    members
        .iter()
        .flat_map(|m| spv_files(&m.join("tests/shaders")))
        .collect()
}
