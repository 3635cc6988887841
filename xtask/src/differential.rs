//! The differential stage of `cargo xtask conformance`: every compute shader of ours
//! (`<crate>/tests/shaders/**/*.spv` with a GLCompute entry point) and every GLCompute module of
//! `../shared/corpus` runs twice on the same seeded inputs — the SPIR-V on lavapipe through
//! Vulkan, the translated IL in il-sim — and every storage buffer is compared afterwards.
//!
//! * **Inputs.** The SPIR-V's own layout decorations (Offset, ArrayStride, MatrixStride) say
//!   which dwords of each buffer are floats, doubles or integers; floats get normal values of
//!   moderate magnitude (no NaN, Inf or denormals, whose handling SPIR-V leaves open), integers
//!   mostly small values so that data-driven indices and loop counts stay in range. Storage
//!   buffers are [`BUFFER_BYTES`] long, uniform buffers and push constants as long as their
//!   type. The dispatch covers about [`TARGET_INVOCATIONS`] invocations.
//! * **Binding.** The Vulkan side binds buffers by (set, binding) as the SPIR-V declares them;
//!   the IL side binds the same bytes by the IL ids of `spv2il::translate`'s reflection, and
//!   fills the driver constant buffer (NumWorkgroups) itself.
//! * **Isolation and time limits.** Vulkan runs in a child process (`cargo xtask
//!   differential-vulkan JOB`), killed after [`VULKAN_TIMEOUT`], so an endless loop or a driver
//!   crash costs one module, not the stage; il-sim stops at [`IL_STEP_LIMIT`] instructions.
//! * **Comparison.** Bit for bit, except where SPIR-V allows the results to differ, each
//!   tolerance named in [`Tolerance`], and only on words the layout says are floats: any NaN
//!   equals any NaN (SPIR-V does not define NaN payloads); a denormal may be flushed to zero and
//!   the sign of a zero may differ (Vulkan's default float controls preserve neither without
//!   DenormPreserve / SignedZeroInfNanPreserve); where the module divides floats, an infinity or
//!   NaN may stand for another (Vulkan bounds OpFDiv only for divisors of magnitude 2^-126 to
//!   2^126); and where the module uses operations the Vulkan spec gives an error bound rather
//!   than correct rounding (division, transcendental extended instructions, dot products,
//!   contractible multiply-adds, reads of normalised image formats), float words may differ by
//!   a relative [`INEXACT_RELATIVE`] or an absolute [`INEXACT_ABSOLUTE`]; texels of normalised
//!   formats may differ by one step (a conversion may round a tie either way). Doubles follow
//!   the same rules. One tolerance is for a fault of the reference, not a freedom of SPIR-V:
//!   where a module applies RoundEven to doubles, lavapipe's odd neighbour of a tie is taken
//!   for ours even (seen on one host; [`round_even_tie`]), our side being checked by hand-worked
//!   values in `spv2il/tests/wide_exec.rs`.
//! * **Images.** Storage images, sampled images, combined image samplers and samplers are bound
//!   on both sides: about 1024 texels in the SPIR-V's format (`Unknown` becomes four 32-bit
//!   channels of the sampled type), one mip level, nearest clamp-to-edge samplers (il-sim's
//!   default); storage images are compared texel by texel.
//! * **Scheduling.** When a module differs, il-sim runs it again in reverse order and with the
//!   invocations of each group interleaved instruction by instruction; words whose IL result
//!   changes depend on the order of atomics or on races, which SPIR-V leaves open, and are left
//!   out of the comparison.
//! * **Timeouts.** A module that runs out of time on random data (a loop count read from a
//!   buffer, a loop over a runtime array's length) is run once more with every integer below 64
//!   and storage buffers of [`SMALL_BUFFER_BYTES`].
//!
//! Our shaders must all be identical or tolerated; a difference in one fails the task. Corpus
//! modules are reported, not failed on: their mismatches are the translator's to-do list.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use spv_reader::spirv::{Decoration, ExecutionModel, Op, StorageClass};
use spv_reader::{Id, Module, Type};
use spv2il::ResourceKind;

use crate::tools::project_root;

/// Bytes of every storage buffer.
pub const BUFFER_BYTES: usize = 64 * 1024;

/// Bytes of every storage buffer when a module that timed out is tried again.
pub const SMALL_BUFFER_BYTES: usize = 4 * 1024;

/// About how many invocations each dispatch runs.
pub const TARGET_INVOCATIONS: u32 = 1024;

/// il-sim's instruction budget for one dispatch (an endless loop on random data ends here).
pub const IL_STEP_LIMIT: u64 = 100_000_000;

/// How long the Vulkan child may take for one module, start-up included.
pub const VULKAN_TIMEOUT: Duration = Duration::from_secs(20);

/// Largest push-constant block the stage binds (the Vulkan minimum of maxPushConstantsSize).
pub const MAX_PUSH_CONSTANT_BYTES: usize = 128;

/// Largest uniform buffer the stage binds (the Vulkan minimum of maxUniformBufferRange).
pub const MAX_UNIFORM_BYTES: usize = 16 * 1024;

/// Relative error allowed on float words of modules with inexact operations (about 2^-12:
/// far beyond the few ULP the Vulkan precision table grants per operation, far below what a
/// wrong translation produces).
pub const INEXACT_RELATIVE: f64 = 1.0 / 4096.0;

/// Absolute error allowed there (the Vulkan bound for sin/cos is 2^-11).
pub const INEXACT_ABSOLUTE: f64 = 1.0 / 2048.0;

/// The seed of every input; each module mixes in a hash of its path.
const SEED: u64 = 0x5EED_0F5B_2011_0008;

/// Where Debian's mesa-vulkan-drivers installs lavapipe's ICD manifest, the default driver.
const LAVAPIPE_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/// The ICD manifests the Vulkan child loads: `VK_ICD_FILENAMES` when the caller set it (another
/// driver, another install location), lavapipe otherwise.
fn icd_files() -> String {
    std::env::var("VK_ICD_FILENAMES")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| LAVAPIPE_ICD.to_string())
}

/// The xtask sub-command the child process runs.
pub const CHILD_TASK: &str = "differential-vulkan";

// ----- the stage ------------------------------------------------------------------------------

/// One module to run.
struct Case {
    /// Path relative to the workspace root (ours) or the corpus root.
    label: String,
    bytes: Vec<u8>,
    ours: bool,
}

/// What happened to one module.
enum Outcome {
    Identical,
    Tolerated(String),
    Differing(String),
    TimedOut(String),
    Skipped(String),
}

/// Runs the stage; see the module documentation.
pub fn run() -> Result<(), String> {
    run_filtered(&[])
}

/// `cargo xtask differential [FILTER] [--keep]`: the stage for the modules whose label contains
/// FILTER; `--keep` leaves each module's job folder (the IL text, inputs and both sides'
/// outputs) in the system temp folder and prints where.
pub fn run_filtered(args: &[String]) -> Result<(), String> {
    let keep = args.iter().any(|a| a == "--keep");
    let filter = args.iter().find(|a| !a.starts_with("--"));
    let icd = icd_files();
    if !icd.split(':').any(|f| Path::new(f).is_file()) {
        println!("differential: no Vulkan ICD ({icd}) on this machine; stage skipped");
        return Ok(());
    }
    let mut cases = collect_cases()?;
    if let Some(f) = filter {
        cases.retain(|c| c.label.contains(f.as_str()));
    }
    let scratch = std::env::temp_dir().join(format!("spv2il-differential-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("cannot create {scratch:?}: {e}"))?;
    let result = run_cases(&cases, &scratch);
    if keep {
        println!("differential: job folders kept in {}", scratch.display());
    } else {
        // Best effort: the folder holds only our job files.
        let _ = std::fs::remove_dir_all(&scratch);
    }
    result
}

fn run_cases(cases: &[Case], scratch: &Path) -> Result<(), String> {
    let mut vulkan_works = None;
    let mut counts = [0usize; 5];
    let mut failures = Vec::new();
    println!(
        "differential: lavapipe (SPIR-V) against il-sim (IL), {} modules",
        cases.len()
    );
    for case in cases {
        let start = Instant::now();
        let outcome = run_case(case, scratch, &mut vulkan_works);
        if let Some(Err(reason)) = &vulkan_works {
            println!("differential: Vulkan is unusable here ({reason}); stage skipped");
            return Ok(());
        }
        let (slot, text) = match outcome {
            Outcome::Identical => (0, "identical".to_string()),
            Outcome::Tolerated(why) => (1, format!("identical within tolerance ({why})")),
            Outcome::Differing(why) => (2, format!("DIFFERING: {why}")),
            Outcome::TimedOut(why) => (3, format!("timed out: {why}")),
            Outcome::Skipped(why) => (4, format!("skipped: {why}")),
        };
        counts[slot] += 1;
        println!(
            "  {:<60} {:>5.1}s  {text}",
            case.label,
            start.elapsed().as_secs_f64()
        );
        if case.ours && slot == 2 {
            failures.push(format!("{}: {text}", case.label));
        }
    }
    let run = counts[0] + counts[1] + counts[2] + counts[3];
    println!(
        "differential: run {run}, identical {}, tolerated {}, differing {}, timed out {}, skipped {}",
        counts[0], counts[1], counts[2], counts[3], counts[4]
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "differential: our shaders must match lavapipe:\n{}",
            failures.join("\n")
        ))
    }
}

/// Our test shaders, then the corpus's compute modules, each in a stable order.
fn collect_cases() -> Result<Vec<Case>, String> {
    let root = project_root();
    let mut ours = Vec::new();
    let crates = std::fs::read_dir(&root).map_err(|e| format!("cannot list {root:?}: {e}"))?;
    for entry in crates.flatten() {
        let dir = entry.path().join("tests").join("shaders");
        if dir.is_dir() {
            collect_spv(&dir, &mut ours);
        }
    }
    ours.sort();
    let mut cases = Vec::new();
    for path in ours {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if is_compute(&bytes) {
            let label = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            cases.push(Case {
                label,
                bytes,
                ours: true,
            });
        }
    }
    match corpus_compute_modules()? {
        None => println!("differential: ../shared/corpus is absent; corpus modules skipped"),
        Some(list) => cases.extend(list),
    }
    Ok(cases)
}

fn collect_spv(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_spv(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}

fn is_compute(bytes: &[u8]) -> bool {
    spv_reader::read(bytes).is_ok_and(|m| {
        m.entry_points()
            .iter()
            .any(|e| e.model() == Some(ExecutionModel::GLCompute))
    })
}

/// The corpus modules whose manifest row lists GLCompute among its execution models.
fn corpus_compute_modules() -> Result<Option<Vec<Case>>, String> {
    let root = project_root().join("../shared/corpus");
    let manifest = root.join("manifest.tsv");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        return Ok(None);
    };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("manifest.tsv has no `{name}` column"))
    };
    let (path_col, models_col) = (column("path")?, column("execution_models")?);
    let mut cases = Vec::new();
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let (Some(path), Some(models)) = (fields.get(path_col), fields.get(models_col)) else {
            continue;
        };
        if !models.split([',', ' ', ';']).any(|m| m == "GLCompute") {
            continue;
        }
        let file = root.join(path);
        let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        cases.push(Case {
            label: format!("corpus/{path}"),
            bytes,
            ours: false,
        });
    }
    Ok(Some(cases))
}

/// Translates, builds inputs, runs both sides and compares.
fn run_case(case: &Case, scratch: &Path, vulkan_works: &mut Option<Result<(), String>>) -> Outcome {
    let module = match spv_reader::read(&case.bytes) {
        Ok(m) => m,
        Err(e) => return Outcome::Skipped(format!("unreadable: {e}")),
    };
    // A module Evergreen refuses (double precision exists only on some Evergreen parts) runs
    // as translated for Cayman, whose every part has it.
    let translation = match spv2il::translate(&case.bytes, &spv2il::Options::default())
        .or_else(|_| spv2il::translate(&case.bytes, &spv2il::Options::new(spv2il::Family::Cayman)))
    {
        Ok(t) => t,
        Err(e) => return Outcome::Skipped(first_line(&format!("translation: {e}"))),
    };
    let interface = match interface(&module, &translation.reflection.entry_point) {
        Ok(i) => i,
        Err(why) => return Outcome::Skipped(why),
    };
    let job_dir = scratch.join(case.label.replace(['/', '.'], "_"));
    let mut run = |small| {
        run_with_inputs(
            case,
            &translation,
            &interface,
            &job_dir,
            vulkan_works,
            small,
        )
    };
    match run(false) {
        // Loop counts taken from the data can be huge; try once more with small integers only.
        Outcome::TimedOut(first) => match run(true) {
            Outcome::TimedOut(_) => Outcome::TimedOut(first),
            Outcome::Identical => Outcome::Identical,
            Outcome::Tolerated(why) => Outcome::Tolerated(format!("{why}; small inputs")),
            Outcome::Differing(why) => Outcome::Differing(format!("{why}; small inputs")),
            other => other,
        },
        outcome => outcome,
    }
}

/// One run of both sides on seeded inputs; with `small`, every integer word is below 64 and
/// storage buffers are [`SMALL_BUFFER_BYTES`] long.
fn run_with_inputs(
    case: &Case,
    translation: &spv2il::Translation,
    interface: &Interface,
    job_dir: &Path,
    vulkan_works: &mut Option<Result<(), String>>,
    small: bool,
) -> Outcome {
    let groups = dispatch_size(translation.reflection.workgroup_size);
    let mut rng = Rng::new(SEED ^ fnv1a(case.label.as_bytes()));
    // Buffers first, then images (the order of every per-resource list below).
    let mut inputs: Vec<Vec<u8>> = interface
        .buffers
        .iter()
        .map(|b| {
            // The retry also shrinks storage buffers: loops over a runtime array's length
            // (OpArrayLength) shrink with them.
            let kinds = match (small, b.kind) {
                (true, BufferKind::Storage) => {
                    &b.kinds[..b.kinds.len().min(SMALL_BUFFER_BYTES / 4)]
                }
                _ => &b.kinds[..],
            };
            fill(kinds, &mut rng, small || b.kind == BufferKind::Uniform)
        })
        .collect();
    inputs.extend(interface.images.iter().map(|i| fill_image(i, &mut rng)));
    let push = interface
        .push
        .as_ref()
        .map(|p| fill(&p.kinds, &mut rng, true));

    // The IL side.
    let run_il = |order| {
        run_il(
            translation,
            interface,
            &inputs,
            push.as_deref(),
            groups,
            order,
        )
    };
    let il = match run_il(il_sim::Order::Forward) {
        Ok(result) => result,
        Err(IlFailure::StepLimit(why)) => return Outcome::TimedOut(format!("il-sim: {why}")),
        Err(IlFailure::Mapping(why)) => return Outcome::Skipped(why),
        Err(IlFailure::Error(why)) => return Outcome::Differing(format!("il-sim fails: {why}")),
    };

    // The Vulkan side.
    let vk = match run_vulkan_child(
        case,
        job_dir,
        interface,
        &inputs,
        push.as_deref(),
        &translation.reflection.entry_point,
        groups,
    ) {
        Ok(outputs) => {
            vulkan_works.get_or_insert(Ok(()));
            outputs
        }
        Err(VulkanFailure::Timeout) => {
            return Outcome::TimedOut(format!("lavapipe: no result within {VULKAN_TIMEOUT:?}"));
        }
        Err(VulkanFailure::Setup(why)) => {
            if vulkan_works.is_none() {
                *vulkan_works = Some(Err(why.clone()));
            }
            return Outcome::Skipped(format!("lavapipe: {why}"));
        }
        Err(VulkanFailure::Module(why)) => return Outcome::Skipped(format!("lavapipe: {why}")),
    };

    // Kept for `--keep`: the IL and il-sim's outputs beside the job's inputs and lavapipe's.
    let _ = std::fs::write(job_dir.join("program.il"), translation.text());
    for (i, bytes) in il.iter().enumerate() {
        let _ = std::fs::write(job_dir.join(format!("buffer{i}.il-sim")), bytes);
    }
    let outcome = compare(interface, &inputs, &il, &vk, None);
    if !matches!(outcome, Outcome::Differing(_)) {
        return outcome;
    }
    // Words whose IL result changes with the schedule depend on the order of atomics or on
    // races; SPIR-V leaves that order open, so those words are not compared.
    let mut unstable: Vec<Vec<bool>> = il.iter().map(|b| vec![false; b.len() / 4]).collect();
    for order in [il_sim::Order::Reverse, il_sim::Order::Interleaved] {
        let Ok(other) = run_il(order) else {
            continue;
        };
        for ((flags, a), b) in unstable.iter_mut().zip(&il).zip(&other) {
            for ((flag, x), y) in flags.iter_mut().zip(a.chunks(4)).zip(b.chunks(4)) {
                *flag |= x != y;
            }
        }
    }
    let count = unstable.iter().flatten().filter(|&&u| u).count();
    if count == 0 {
        return outcome.annotated(interface.tolerance.order_sensitive);
    }
    match compare(interface, &inputs, &il, &vk, Some(&unstable)) {
        Outcome::Identical | Outcome::Tolerated(_) => Outcome::Tolerated(format!(
            "{count} words depend on the order of atomics and are not compared"
        )),
        Outcome::Differing(why) => Outcome::Differing(format!(
            "{why} ({count} order-dependent words not compared)"
        )),
        other => other,
    }
    .annotated(interface.tolerance.order_sensitive)
}

impl Outcome {
    /// A difference with the reason the module's results may depend on scheduling beside it.
    fn annotated(self, order_sensitive: Option<&str>) -> Outcome {
        match (self, order_sensitive) {
            (Outcome::Differing(why), Some(reason)) => {
                Outcome::Differing(format!("{why}; note: {reason}"))
            }
            (other, _) => other,
        }
    }
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or_default();
    if line.len() > 160 {
        format!("{}…", &line[..line.floor_char_boundary(160)])
    } else {
        line.to_string()
    }
}

/// Groups so that about [`TARGET_INVOCATIONS`] invocations run, spread over the dimensions the
/// work-group uses.
fn dispatch_size(wg: [u32; 3]) -> [u32; 3] {
    let used = wg.iter().filter(|&&d| d > 1).count().max(1) as u32;
    let per_dim = match used {
        1 => TARGET_INVOCATIONS,
        2 => 32,
        _ => 10,
    };
    let mut groups = [1u32; 3];
    for (i, &d) in wg.iter().enumerate() {
        if d > 1 || (used == 1 && i == 0) {
            groups[i] = (per_dim / d.max(1)).max(1);
        }
    }
    groups
}

// ----- the SPIR-V side's view of the buffers ---------------------------------------------------

/// What a dword of a buffer holds, from the module's layout decorations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WordKind {
    /// An integer, or padding, or anything not float.
    Int,
    /// A 32-bit float.
    Float,
    /// The low dword of a 64-bit float.
    DoubleLow,
    /// The high dword of a 64-bit float.
    DoubleHigh,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BufferKind {
    Storage,
    Uniform,
}

/// One descriptor-bound buffer of the module.
struct Buffer {
    set: u32,
    binding: u32,
    kind: BufferKind,
    kinds: Vec<WordKind>,
}

/// The push-constant block.
struct Push {
    kinds: Vec<WordKind>,
}

/// What the Vulkan side binds, and how tolerant the comparison may be.
struct Interface {
    buffers: Vec<Buffer>,
    images: Vec<ImageBinding>,
    push: Option<Push>,
    tolerance: Tolerance,
}

/// The descriptor kind of an image or sampler binding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ImageKind {
    /// A storage image (`Sampled` 2): read and written, compared afterwards.
    Storage,
    /// A sampled image without a sampler (`Sampled` 1).
    Sampled,
    /// A combined image and sampler (OpTypeSampledImage).
    Combined,
    /// A sampler alone.
    Sampler,
}

/// One image or sampler binding of the module.
struct ImageBinding {
    set: u32,
    binding: u32,
    kind: ImageKind,
    /// Spatial dimensions (1–3) and whether the image is an array.
    dims: u32,
    arrayed: bool,
    /// Width, height, depth or layers (as il-sim's [`il_sim::Image::size`]).
    size: [u32; 3],
    /// The Vulkan format (raw `VkFormat`) and il-sim's texel format; `None` for samplers.
    format: Option<(i32, il_sim::TexelFormat)>,
}

/// The Vulkan format and il-sim texel format for a SPIR-V image format, or for `Unknown` the
/// four-channel 32-bit format of the sampled type.
fn image_format(
    module: &Module,
    format: u32,
    sampled_type: Id,
) -> Result<(i32, il_sim::TexelFormat), String> {
    use il_sim::ChannelType as C;
    use spv_reader::spirv::ImageFormat as F;
    // Raw VkFormat values (Vulkan spec, VkFormat).
    const R8_UNORM: i32 = 9;
    const R8G8_UNORM: i32 = 16;
    const R8G8B8A8_UNORM: i32 = 37;
    const R8G8B8A8_SNORM: i32 = 38;
    const R8G8B8A8_UINT: i32 = 41;
    const R8G8B8A8_SINT: i32 = 42;
    const R32_UINT: i32 = 98;
    const R32_SINT: i32 = 99;
    const R32_SFLOAT: i32 = 100;
    const R32G32_UINT: i32 = 101;
    const R32G32_SINT: i32 = 102;
    const R32G32_SFLOAT: i32 = 103;
    const R32G32B32A32_UINT: i32 = 107;
    const R32G32B32A32_SINT: i32 = 108;
    const R32G32B32A32_SFLOAT: i32 = 109;
    let f = |vk: i32, channels: u8, ty: C| Ok((vk, il_sim::TexelFormat { channels, ty }));
    match F::from_u32(format) {
        Some(F::Rgba8) => f(R8G8B8A8_UNORM, 4, C::Unorm8),
        Some(F::Rgba8Snorm) => f(R8G8B8A8_SNORM, 4, C::Snorm8),
        Some(F::Rgba8ui) => f(R8G8B8A8_UINT, 4, C::Uint8),
        Some(F::Rgba8i) => f(R8G8B8A8_SINT, 4, C::Sint8),
        Some(F::R8) => f(R8_UNORM, 1, C::Unorm8),
        Some(F::Rg8) => f(R8G8_UNORM, 2, C::Unorm8),
        Some(F::R32f) => f(R32_SFLOAT, 1, C::Float32),
        Some(F::Rg32f) => f(R32G32_SFLOAT, 2, C::Float32),
        Some(F::Rgba32f) => f(R32G32B32A32_SFLOAT, 4, C::Float32),
        Some(F::R32ui) => f(R32_UINT, 1, C::Uint32),
        Some(F::Rg32ui) => f(R32G32_UINT, 2, C::Uint32),
        Some(F::Rgba32ui) => f(R32G32B32A32_UINT, 4, C::Uint32),
        Some(F::R32i) => f(R32_SINT, 1, C::Sint32),
        Some(F::Rg32i) => f(R32G32_SINT, 2, C::Sint32),
        Some(F::Rgba32i) => f(R32G32B32A32_SINT, 4, C::Sint32),
        Some(F::Unknown) => match module.ty(sampled_type) {
            Some(Type::Float { .. }) => f(R32G32B32A32_SFLOAT, 4, C::Float32),
            Some(Type::Int { signed: true, .. }) => f(R32G32B32A32_SINT, 4, C::Sint32),
            Some(Type::Int { signed: false, .. }) => f(R32G32B32A32_UINT, 4, C::Uint32),
            _ => Err("an image of an unknown sampled type".into()),
        },
        other => Err(format!("image format {other:?}")),
    }
}

/// The image binding of a UniformConstant variable's type, or why the stage cannot bind it.
fn image_binding(module: &Module, set: u32, binding: u32, ty: Id) -> Result<ImageBinding, String> {
    let (kind, image) = match module.ty(ty) {
        Some(Type::Sampler) => {
            return Ok(ImageBinding {
                set,
                binding,
                kind: ImageKind::Sampler,
                dims: 0,
                arrayed: false,
                size: [0; 3],
                format: None,
            });
        }
        Some(Type::SampledImage { image }) => (ImageKind::Combined, *image),
        Some(Type::Image { sampled: 2, .. }) => (ImageKind::Storage, ty),
        Some(Type::Image { .. }) => (ImageKind::Sampled, ty),
        _ => return Err("a descriptor of a kind other than buffers, images and samplers".into()),
    };
    let Some(Type::Image {
        sampled_type,
        dim,
        arrayed,
        multisampled,
        format,
        ..
    }) = module.ty(image)
    else {
        return Err("a sampled image of something other than an image".into());
    };
    use spv_reader::spirv::Dim;
    let dims = match Dim::from_u32(*dim) {
        Some(Dim::Dim1D) => 1,
        Some(Dim::Dim2D) => 2,
        Some(Dim::Dim3D) => 3,
        other => return Err(format!("an image of dimension {other:?}")),
    };
    if *multisampled != 0 {
        return Err("a multisampled image".into());
    }
    let arrayed = *arrayed != 0;
    // About 1024 texels: 1-D 1024, 2-D 32×32, 3-D 16×16×4; arrays of 4 layers.
    let size = match (dims, arrayed) {
        (1, false) => [1024, 1, 1],
        (1, true) => [256, 1, 4],
        (2, false) => [32, 32, 1],
        (2, true) => [16, 16, 4],
        _ => [16, 16, 4],
    };
    let format = image_format(module, *format, *sampled_type)?;
    Ok(ImageBinding {
        set,
        binding,
        kind,
        dims,
        arrayed,
        size,
        format: Some(format),
    })
}

/// Which differences SPIR-V allows for a module (see the module documentation).
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    /// The module has operations without correct rounding (division, transcendentals, dot
    /// products) or contractible multiply-adds.
    inexact: Option<&'static str>,
    /// The module divides floats: the Vulkan bound on OpFDiv holds only for divisors of
    /// magnitude in [2^-126, 2^126], so a zero divisor may give any infinity or NaN (IL's
    /// `div_zeroop(infinity)` takes the sign from the dividend alone and makes 0/0 +Inf).
    division: bool,
    /// The module applies GLSL.std.450 RoundEven to doubles, where lavapipe is a faulty
    /// reference on some hosts (see [`round_even_tie`]).
    double_round_even: bool,
    /// Why the module's results may depend on the order of atomics (an atomic's returned value
    /// is used, or exchanges overwrite each other), if they may. Not a tolerance: differences
    /// are still reported, with this reason beside them.
    order_sensitive: Option<&'static str>,
}

/// Whether results may depend on which invocation's atomic comes first.
fn order_sensitivity(module: &Module) -> Option<&'static str> {
    let atomic = |op: Op| {
        matches!(
            op,
            Op::AtomicIAdd
                | Op::AtomicISub
                | Op::AtomicSMin
                | Op::AtomicUMin
                | Op::AtomicSMax
                | Op::AtomicUMax
                | Op::AtomicAnd
                | Op::AtomicOr
                | Op::AtomicXor
                | Op::AtomicIIncrement
                | Op::AtomicIDecrement
                | Op::AtomicExchange
                | Op::AtomicCompareExchange
        )
    };
    let mut results = Vec::new();
    for inst in module.instructions() {
        match inst.opcode() {
            Some(Op::AtomicExchange | Op::AtomicCompareExchange) => {
                return Some("atomic exchanges overwrite each other in execution order");
            }
            Some(op) if atomic(op) => results.extend(inst.result_id()),
            _ => {}
        }
    }
    let used = module.instructions().any(|inst| {
        inst.opcode()
            .is_some_and(|op| !atomic(op) && op != Op::Name && op != Op::Decorate)
            && inst.operands().iter().any(|w| results.contains(&Id(*w)))
    });
    used.then_some("the values atomics return depend on execution order")
}

fn interface(module: &Module, entry: &str) -> Result<Interface, String> {
    let mut buffers = Vec::new();
    let mut images = Vec::new();
    let mut push = None;
    for var in module.global_variables() {
        let sc = StorageClass::from_u32(var.storage_class);
        let pointee = match module.ty(var.ty) {
            Some(Type::Pointer { pointee, .. }) => *pointee,
            _ => continue,
        };
        let decorated = |d: Decoration| {
            module
                .decoration(var.id, d)
                .and_then(|d| d.operands.first().copied())
        };
        match sc {
            Some(StorageClass::StorageBuffer | StorageClass::Uniform) => {
                let (Some(set), Some(binding)) = (
                    decorated(Decoration::DescriptorSet),
                    decorated(Decoration::Binding),
                ) else {
                    continue;
                };
                if !matches!(module.ty(pointee), Some(Type::Struct { .. })) {
                    return Err("a descriptor array of buffers".into());
                }
                // Uniform + BufferBlock is the old spelling of a storage buffer.
                let buffer_block = module
                    .decoration(pointee, Decoration::BufferBlock)
                    .is_some();
                let kind = if sc == Some(StorageClass::StorageBuffer) || buffer_block {
                    BufferKind::Storage
                } else {
                    BufferKind::Uniform
                };
                let words = match kind {
                    BufferKind::Storage => BUFFER_BYTES / 4,
                    BufferKind::Uniform => {
                        let size = type_size(module, pointee, 0)
                            .ok_or("a uniform block without an explicit layout")?;
                        if size > MAX_UNIFORM_BYTES as u64 {
                            return Err(format!(
                                "a uniform block of {size} bytes (more than the {MAX_UNIFORM_BYTES} every device binds)"
                            ));
                        }
                        size.div_ceil(16) as usize * 4
                    }
                };
                let mut kinds = vec![WordKind::Int; words.max(4)];
                mark(module, pointee, 0, None, &mut kinds, 0);
                buffers.push(Buffer {
                    set,
                    binding,
                    kind,
                    kinds,
                });
            }
            Some(StorageClass::PushConstant) => {
                let size = type_size(module, pointee, 0)
                    .ok_or("a push-constant block without an explicit layout")?;
                if size > MAX_PUSH_CONSTANT_BYTES as u64 {
                    return Err(format!(
                        "a push-constant block of {size} bytes (more than the {MAX_PUSH_CONSTANT_BYTES} every device takes)"
                    ));
                }
                // Push-constant ranges are multiples of 4 bytes; il-sim reads whole vec4s.
                let words = size.div_ceil(16) as usize * 4;
                let mut kinds = vec![WordKind::Int; words.max(4)];
                mark(module, pointee, 0, None, &mut kinds, 0);
                push = Some(Push { kinds });
            }
            Some(StorageClass::UniformConstant) => {
                let (Some(set), Some(binding)) = (
                    decorated(Decoration::DescriptorSet),
                    decorated(Decoration::Binding),
                ) else {
                    continue;
                };
                images.push(image_binding(module, set, binding, pointee)?);
            }
            Some(StorageClass::Image) => {
                return Err("a variable in the Image storage class".into());
            }
            _ => {}
        }
    }
    buffers.sort_by_key(|b| (b.set, b.binding));
    images.sort_by_key(|b| (b.set, b.binding));
    let mut taken: Vec<(u32, u32)> = buffers
        .iter()
        .map(|b| (b.set, b.binding))
        .chain(images.iter().map(|i| (i.set, i.binding)))
        .collect();
    taken.sort_unstable();
    if taken.windows(2).any(|w| w[0] == w[1]) {
        return Err("two resources share one (set, binding)".into());
    }
    if !module.entry_points().iter().any(|e| e.name == entry) {
        return Err(format!("entry point `{entry}` not found"));
    }
    let normalised_images = images.iter().any(|i| {
        i.format.is_some_and(|(_, f)| {
            matches!(
                f.ty,
                il_sim::ChannelType::Unorm8 | il_sim::ChannelType::Snorm8
            )
        })
    });
    Ok(Interface {
        buffers,
        images,
        push,
        tolerance: Tolerance {
            inexact: inexact_reason(module).or_else(|| {
                normalised_images.then_some(
                    "normalised image formats (implementations convert through a reciprocal)",
                )
            }),
            division: module
                .instructions()
                .any(|i| matches!(i.opcode(), Some(Op::FDiv | Op::FRem | Op::FMod))),
            order_sensitive: order_sensitivity(module),
            double_round_even: applies_double_round_even(module),
        },
    })
}

/// The ids of the module's GLSL.std.450 imports.
fn glsl_sets(module: &Module) -> Vec<Id> {
    module
        .ext_inst_imports()
        .filter(|(_, name)| name.starts_with("GLSL.std.450"))
        .map(|(id, _)| id)
        .collect()
}

/// Whether the module applies GLSL.std.450 RoundEven (instruction 2) to a 64-bit float.
fn applies_double_round_even(module: &Module) -> bool {
    let glsl = glsl_sets(module);
    module.instructions().any(|inst| {
        let ops = inst.operands();
        inst.opcode() == Some(Op::ExtInst)
            && ops.first().is_some_and(|&set| glsl.contains(&Id(set)))
            && ops.get(1) == Some(&2)
            && inst.result_type().is_some_and(|ty| {
                let scalar = match module.ty(ty) {
                    Some(spv_reader::Type::Vector { component, .. }) => *component,
                    _ => ty,
                };
                matches!(
                    module.ty(scalar),
                    Some(spv_reader::Type::Float { width: 64 })
                )
            })
    })
}

/// Whether `ours` and `lavapipe`'s double results differ only as lavapipe's double RoundEven
/// of a tie does on some hosts: both integers one apart, ours even. RoundEven is exact (GLSL.std.450
/// §2: a fractional part of 0.5 rounds to the nearest even integer), but lavapipe 22.3 was
/// seen on an AMD EPYC host without AVX-512 returning the odd neighbour (RoundEven(1.5) = 1,
/// RoundEven(97.5) = 97) where other hosts return the even one. Our side of such ties is
/// checked against hand-worked values in `spv2il/tests/wide_exec.rs`.
fn round_even_tie(ours: f64, lavapipe: f64) -> bool {
    ours.fract() == 0.0
        && lavapipe.fract() == 0.0
        && (ours - lavapipe).abs() == 1.0
        && (ours / 2.0).fract() == 0.0
}

/// Most nesting the layout walk follows (types cannot nest deeper in practice).
const MAX_TYPE_DEPTH: u32 = 16;

fn decoration_value(module: &Module, id: Id, d: Decoration) -> Option<u32> {
    module
        .decoration(id, d)
        .and_then(|d| d.operands.first().copied())
}

fn member_decoration(module: &Module, id: Id, member: u32, d: Decoration) -> Option<&[u32]> {
    module
        .member_decorations(id, member)
        .find(|m| m.decoration() == Some(d))
        .map(|m| m.operands)
}

fn array_length(module: &Module, length: Id) -> Option<u64> {
    match module.constant(length) {
        Some(spv_reader::Constant::Scalar { bits, .. }) => Some(*bits),
        _ => None,
    }
}

/// The byte size of a type under its explicit layout, `None` when it is runtime-sized or not
/// laid out.
fn type_size(module: &Module, ty: Id, depth: u32) -> Option<u64> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    match module.ty(ty)? {
        Type::Int { width, .. } | Type::Float { width } => Some(u64::from(*width / 8)),
        Type::Bool => Some(4),
        Type::Vector { component, count } => {
            Some(type_size(module, *component, depth + 1)? * u64::from(*count))
        }
        Type::Matrix { column, count } => {
            Some(type_size(module, *column, depth + 1)? * u64::from(*count))
        }
        Type::Array { element, length } => {
            let stride = decoration_value(module, ty, Decoration::ArrayStride)
                .map(u64::from)
                .or_else(|| type_size(module, *element, depth + 1))?;
            Some(stride * array_length(module, *length)?)
        }
        Type::Struct { members } => {
            let mut size = 0;
            for (i, &m) in members.iter().enumerate() {
                let offset = member_decoration(module, ty, i as u32, Decoration::Offset)?;
                let member_size = match module.ty(m) {
                    Some(Type::Matrix { count, .. }) => {
                        let stride =
                            member_decoration(module, ty, i as u32, Decoration::MatrixStride)
                                .and_then(|o| o.first().copied())
                                .unwrap_or(16);
                        u64::from(stride) * u64::from(*count)
                    }
                    _ => type_size(module, m, depth + 1)?,
                };
                size = size.max(u64::from(*offset.first()?) + member_size);
            }
            Some(size)
        }
        _ => None,
    }
}

/// Marks the float words of a value of type `ty` at byte `base` (matrix layout from the
/// enclosing struct member: (MatrixStride, RowMajor)).
fn mark(
    module: &Module,
    ty: Id,
    base: u64,
    matrix: Option<(u32, bool)>,
    kinds: &mut [WordKind],
    depth: u32,
) {
    if depth > MAX_TYPE_DEPTH || base >= kinds.len() as u64 * 4 {
        return;
    }
    let set = |kinds: &mut [WordKind], byte: u64, kind: WordKind| {
        if let Some(k) = usize::try_from(byte / 4)
            .ok()
            .and_then(|i| kinds.get_mut(i))
        {
            *k = kind;
        }
    };
    let limit = kinds.len() as u64 * 4;
    match module.ty(ty) {
        Some(Type::Float { width: 32 }) => set(kinds, base, WordKind::Float),
        Some(Type::Float { width: 64 }) => {
            set(kinds, base, WordKind::DoubleLow);
            set(kinds, base + 4, WordKind::DoubleHigh);
        }
        Some(Type::Vector { component, count }) => {
            let size = type_size(module, *component, depth + 1).unwrap_or(4);
            for i in 0..u64::from(*count) {
                mark(module, *component, base + i * size, None, kinds, depth + 1);
            }
        }
        Some(Type::Matrix { column, count }) => {
            let (stride, row_major) = matrix.unwrap_or((16, false));
            let Some(Type::Vector {
                component,
                count: rows,
            }) = module.ty(*column)
            else {
                return;
            };
            let size = type_size(module, *component, depth + 1).unwrap_or(4);
            for c in 0..u64::from(*count) {
                for r in 0..u64::from(*rows) {
                    let at = if row_major {
                        r * u64::from(stride) + c * size
                    } else {
                        c * u64::from(stride) + r * size
                    };
                    mark(module, *component, base + at, None, kinds, depth + 1);
                }
            }
        }
        Some(Type::Array { element, length }) => {
            let Some(stride) = decoration_value(module, ty, Decoration::ArrayStride) else {
                return;
            };
            let n = array_length(module, *length).unwrap_or(0);
            for i in 0..n {
                let at = base + i * u64::from(stride);
                if at >= limit {
                    break;
                }
                mark(module, *element, at, matrix, kinds, depth + 1);
            }
        }
        Some(Type::RuntimeArray { element }) => {
            let Some(stride) = decoration_value(module, ty, Decoration::ArrayStride) else {
                return;
            };
            if stride == 0 {
                return;
            }
            let mut at = base;
            while at < limit {
                mark(module, *element, at, matrix, kinds, depth + 1);
                at += u64::from(stride);
            }
        }
        Some(Type::Struct { members }) => {
            for (i, &m) in members.iter().enumerate() {
                let Some(offset) = member_decoration(module, ty, i as u32, Decoration::Offset)
                    .and_then(|o| o.first().copied())
                else {
                    continue;
                };
                let stride = member_decoration(module, ty, i as u32, Decoration::MatrixStride)
                    .and_then(|o| o.first().copied());
                let row_major =
                    member_decoration(module, ty, i as u32, Decoration::RowMajor).is_some();
                mark(
                    module,
                    m,
                    base + u64::from(offset),
                    stride.map(|s| (s, row_major)),
                    kinds,
                    depth + 1,
                );
            }
        }
        _ => {}
    }
}

/// Why float results may legitimately differ, if they may (Vulkan spec, "Precision and
/// Operation of SPIR-V Instructions": only add, subtract, multiply, conversions and a few
/// extended instructions are correctly rounded; OpFMul + OpFAdd may be contracted into a fused
/// multiply-add unless decorated NoContraction).
fn inexact_reason(module: &Module) -> Option<&'static str> {
    // GLSL.std.450 instructions with exact results: Round … Fract (1–10), Modf (35, 36), the
    // min/max/clamp family (37–45), Step (48), Frexp and Ldexp (51–53), half and double packing
    // (58, 59, 62, 65), FindILsb/SMsb/UMsb (73–75), NMin/NMax/NClamp (79–81).
    const EXACT_GLSL: &[u32] = &[
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 48, 51, 52, 53,
        58, 59, 62, 65, 73, 74, 75, 79, 80, 81,
    ];
    let glsl = glsl_sets(module);
    let mut has_mul = false;
    let mut has_add = false;
    for inst in module.instructions() {
        match inst.opcode() {
            Some(Op::FDiv | Op::FRem | Op::FMod) => return Some("float division"),
            Some(
                Op::Dot | Op::MatrixTimesVector | Op::VectorTimesMatrix | Op::MatrixTimesMatrix,
            ) => {
                return Some("dot products");
            }
            Some(Op::FMul | Op::VectorTimesScalar) => has_mul = true,
            Some(Op::FAdd | Op::FSub) => has_add = true,
            Some(Op::ExtInst) => {
                // Operands after the result: the set, the instruction number, its arguments.
                let ops = inst.operands();
                if let (Some(&set), Some(&number)) = (ops.first(), ops.get(1))
                    && glsl.contains(&Id(set))
                    && !EXACT_GLSL.contains(&number)
                {
                    return Some("extended instructions with error bounds");
                }
                if ops.first().is_some_and(|&s| !glsl.contains(&Id(s))) {
                    return Some("non-GLSL extended instructions");
                }
            }
            _ => {}
        }
    }
    (has_mul && has_add).then_some("contractible multiply-add")
}

// ----- inputs -----------------------------------------------------------------------------------

/// xorshift64*: deterministic inputs without a dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A normal float with exponent in [-8, 8] or a simple value, never NaN, Inf or denormal.
fn nice_float(rng: &mut Rng) -> f32 {
    match rng.below(10) {
        0 => [0.0, -0.0, 1.0, -1.0, 0.5, 2.0][rng.below(6) as usize],
        _ => {
            let sign = (rng.below(2) as u32) << 31;
            let exponent = (127 - 8 + rng.below(17) as u32) << 23;
            let mantissa = (rng.next() as u32) & 0x7F_FFFF;
            f32::from_bits(sign | exponent | mantissa)
        }
    }
}

/// An integer that is usually small (an in-range index or loop count), sometimes not. In
/// uniform buffers and push constants (`parameters`), which hold counts and sizes that drive
/// loops over whole buffers, always small: a random count of 2^31 makes every invocation loop
/// for minutes.
fn nice_int(rng: &mut Rng, parameters: bool) -> u32 {
    if parameters {
        return rng.below(64) as u32;
    }
    match rng.below(10) {
        0..=6 => rng.below(64) as u32,
        7 => rng.below(65536) as u32,
        8 => (rng.below(64) as u32).wrapping_neg(),
        _ => rng.next() as u32,
    }
}

fn fill(kinds: &[WordKind], rng: &mut Rng, parameters: bool) -> Vec<u8> {
    let mut words = vec![0u32; kinds.len()];
    for i in 0..kinds.len() {
        words[i] = match kinds[i] {
            WordKind::Int => nice_int(rng, parameters),
            WordKind::Float => nice_float(rng).to_bits(),
            WordKind::DoubleLow => {
                let d = f64::from(nice_float(rng)) * (1.0 + rng.below(1000) as f64 / 1e7);
                let bits = d.to_bits();
                if let Some(high) = words.get_mut(i + 1) {
                    *high = (bits >> 32) as u32;
                }
                bits as u32
            }
            // Written together with its low dword; a lone high dword gets a small exponent.
            WordKind::DoubleHigh if i > 0 && kinds[i - 1] == WordKind::DoubleLow => words[i],
            WordKind::DoubleHigh => 0x3FF0_0000 | (rng.next() as u32 & 0xF_FFFF),
        };
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Texels for an image: random bytes for 8-bit normalised formats, nice floats and small
/// integers otherwise; nothing for samplers.
fn fill_image(image: &ImageBinding, rng: &mut Rng) -> Vec<u8> {
    use il_sim::ChannelType as C;
    let Some((_, format)) = image.format else {
        return Vec::new();
    };
    let texels = image.size.iter().map(|&d| d as usize).product::<usize>();
    let channels = texels * usize::from(format.channels);
    let mut out = Vec::with_capacity(channels * format.ty.bytes());
    for _ in 0..channels {
        match format.ty {
            C::Float32 => out.extend(nice_float(rng).to_bits().to_le_bytes()),
            C::Uint32 | C::Sint32 => out.extend(nice_int(rng, false).to_le_bytes()),
            C::Uint8 | C::Sint8 => out.push(rng.below(64) as u8),
            _ => out.push(rng.next() as u8),
        }
    }
    out
}

// ----- the IL side ------------------------------------------------------------------------------

enum IlFailure {
    /// The reflection and the module disagree, so no fair comparison is possible.
    Mapping(String),
    StepLimit(String),
    Error(String),
}

/// Runs the translation in il-sim; returns each buffer's bytes afterwards, indexed like
/// `interface.buffers` (a buffer the IL does not use keeps its input).
fn run_il(
    translation: &spv2il::Translation,
    interface: &Interface,
    inputs: &[Vec<u8>],
    push: Option<&[u8]>,
    groups: [u32; 3],
    order: il_sim::Order,
) -> Result<Vec<Vec<u8>>, IlFailure> {
    let mut dispatch = il_sim::Dispatch::new(groups);
    dispatch.step_limit = IL_STEP_LIMIT;
    dispatch.order = order;
    let mut uav_of_buffer: Vec<Option<usize>> = vec![None; interface.buffers.len()];
    let mut image_of_uav: Vec<Option<usize>> = vec![None; interface.images.len()];
    let mut driver = None;
    for r in &translation.reflection.resources {
        let id = r.il_id as usize;
        let bytes: Vec<u8> = match r.kind {
            ResourceKind::RawUav | ResourceKind::ConstantBuffer => {
                let found = interface
                    .buffers
                    .iter()
                    .position(|b| Some(b.set) == r.set && Some(b.binding) == r.binding)
                    .ok_or_else(|| {
                        IlFailure::Mapping(format!(
                            "reflection names (set {:?}, binding {:?}), which the module does not declare",
                            r.set, r.binding
                        ))
                    })?;
                let bytes = inputs.get(found).cloned().unwrap_or_default();
                if r.kind == ResourceKind::RawUav {
                    if dispatch.uavs.len() <= id {
                        dispatch.uavs.resize(id + 1, Vec::new());
                    }
                    dispatch.uavs[id] = bytes;
                    uav_of_buffer[found] = Some(id);
                    continue;
                }
                bytes
            }
            ResourceKind::PushConstants => push.map(<[u8]>::to_vec).ok_or_else(|| {
                IlFailure::Mapping("reflection has push constants the module lacks".into())
            })?,
            ResourceKind::DriverConstants => {
                // Filled once every UAV is bound (it holds their sizes).
                driver = Some(id);
                continue;
            }
            ResourceKind::TypedUav | ResourceKind::Texture => {
                let found = interface
                    .images
                    .iter()
                    .position(|i| Some(i.set) == r.set && Some(i.binding) == r.binding)
                    .ok_or_else(|| {
                        IlFailure::Mapping(format!(
                            "reflection names image (set {:?}, binding {:?}), which the module does not declare",
                            r.set, r.binding
                        ))
                    })?;
                let binding = &interface.images[found];
                let Some((_, format)) = binding.format else {
                    return Err(IlFailure::Mapping(
                        "reflection binds a sampler as an image".into(),
                    ));
                };
                let image = il_sim::Image {
                    format,
                    size: binding.size,
                    data: inputs
                        .get(interface.buffers.len() + found)
                        .cloned()
                        .unwrap_or_default(),
                };
                let list = if r.kind == ResourceKind::TypedUav {
                    image_of_uav[found] = Some(id);
                    &mut dispatch.images
                } else {
                    &mut dispatch.textures
                };
                if list.len() <= id {
                    list.resize(id + 1, None);
                }
                list[id] = Some(image);
                // The translation samples resource n with sampler n; the Vulkan side binds
                // nearest, clamp-to-edge samplers, which is il-sim's default sampler.
                continue;
            }
        };
        if dispatch.cbs.len() <= id {
            dispatch.cbs.resize(id + 1, Vec::new());
        }
        dispatch.cbs[id] = bytes
            .chunks(16)
            .map(|c| {
                let mut v = [0u32; 4];
                for (i, w) in c.chunks(4).enumerate() {
                    let mut b = [0u8; 4];
                    b[..w.len()].copy_from_slice(w);
                    v[i] = u32::from_le_bytes(b);
                }
                v
            })
            .collect();
    }
    if let Some(id) = driver {
        // spv2il's driver constants: element 0 = NumWorkgroups (x, y, z); element 1 + n = the
        // byte size of raw UAV n in .x (OpArrayLength), or the size of typed UAV n as
        // OpImageQuerySize returns it: width, then height, then depth or layer count.
        let mut elements = vec![[groups[0], groups[1], groups[2], 0]];
        let uavs = dispatch.uavs.len().max(dispatch.images.len());
        for n in 0..uavs {
            let typed = dispatch
                .images
                .get(n)
                .and_then(Option::as_ref)
                .map(|image| {
                    let binding = image_of_uav
                        .iter()
                        .position(|u| *u == Some(n))
                        .and_then(|i| interface.images.get(i));
                    let [w, h, z] = image.size;
                    match binding.map(|b| (b.dims, b.arrayed)) {
                        Some((1, true)) => [w, z, 0, 0],
                        Some((1, false)) => [w, 0, 0, 0],
                        Some((2, false)) => [w, h, 0, 0],
                        _ => [w, h, z, 0],
                    }
                });
            let raw = || [dispatch.uavs.get(n).map_or(0, |u| u.len() as u32), 0, 0, 0];
            elements.push(typed.unwrap_or_else(raw));
        }
        if dispatch.cbs.len() <= id {
            dispatch.cbs.resize(id + 1, Vec::new());
        }
        dispatch.cbs[id] = elements;
    }
    match il_sim::run(&translation.program, &mut dispatch) {
        Ok(_) => {}
        Err(e) if e.kind == il_sim::ErrorKind::StepLimit => {
            return Err(IlFailure::StepLimit(e.to_string()));
        }
        Err(e) => return Err(IlFailure::Error(e.to_string())),
    }
    let mut outputs: Vec<Vec<u8>> = (0..interface.buffers.len())
        .map(|i| match uav_of_buffer[i] {
            Some(id) => std::mem::take(&mut dispatch.uavs[id]),
            None => inputs.get(i).cloned().unwrap_or_default(),
        })
        .collect();
    for (i, uav) in image_of_uav.iter().enumerate() {
        let written = uav
            .and_then(|id| dispatch.images.get_mut(id))
            .and_then(Option::take)
            .map(|image| image.data);
        let input = || {
            inputs
                .get(interface.buffers.len() + i)
                .cloned()
                .unwrap_or_default()
        };
        outputs.push(written.unwrap_or_else(input));
    }
    Ok(outputs)
}

// ----- comparison ---------------------------------------------------------------------------------

/// How two words relate.
#[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum Verdict {
    Same,
    Tolerated,
    Different,
}

fn f32_close(a: f32, b: f32, tolerance: &Tolerance) -> Verdict {
    let inexact = tolerance.inexact.is_some();
    if a.to_bits() == b.to_bits() {
        return Verdict::Same;
    }
    if a.is_nan() && b.is_nan() {
        return Verdict::Tolerated;
    }
    // Denormals may be flushed (SPIR-V float controls: without DenormPreserve the
    // implementation chooses), which also makes ±0 and tiny values meet.
    let flushed = |x: f32| if x.is_subnormal() { 0.0 } else { x };
    if flushed(a) == flushed(b) {
        return Verdict::Tolerated;
    }
    if tolerance.division && !a.is_finite() && !b.is_finite() {
        return Verdict::Tolerated;
    }
    if inexact && a.is_finite() && b.is_finite() {
        let (a, b) = (f64::from(a), f64::from(b));
        let diff = (a - b).abs();
        if diff <= INEXACT_ABSOLUTE || diff <= INEXACT_RELATIVE * a.abs().max(b.abs()) {
            return Verdict::Tolerated;
        }
    }
    Verdict::Different
}

/// Compares the storage buffers word by word; words flagged in `skip` (per buffer) are not
/// compared.
fn compare(
    interface: &Interface,
    inputs: &[Vec<u8>],
    il: &[Vec<u8>],
    vk: &[Vec<u8>],
    skip: Option<&[Vec<bool>]>,
) -> Outcome {
    let inexact = interface.tolerance.inexact;
    let mut worst = Verdict::Same;
    let mut first_difference = None;
    let mut tolerated = 0usize;
    let mut worst_relative = 0.0f64;
    for (i, buffer) in interface.buffers.iter().enumerate() {
        if buffer.kind != BufferKind::Storage {
            continue;
        }
        let (Some(a), Some(b)) = (il.get(i), vk.get(i)) else {
            return Outcome::Differing(format!(
                "set {} binding {}: missing output",
                buffer.set, buffer.binding
            ));
        };
        let word = |bytes: &[u8], w: usize| {
            bytes
                .get(w * 4..w * 4 + 4)
                .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        };
        for (w, kind) in buffer.kinds.iter().enumerate() {
            if skip.and_then(|s| s.get(i)).and_then(|s| s.get(w)) == Some(&true) {
                continue;
            }
            let (x, y) = (word(a, w), word(b, w));
            let verdict = match (x, y, kind) {
                // Past the end of both (a shrunken retry buffer): nothing to compare.
                (None, None, _) => continue,
                (Some(x), Some(y), _) if x == y => Verdict::Same,
                (Some(x), Some(y), WordKind::Float) => {
                    f32_close(f32::from_bits(x), f32::from_bits(y), &interface.tolerance)
                }
                (Some(_), Some(_), WordKind::DoubleLow | WordKind::DoubleHigh) => {
                    let lo = w - usize::from(*kind == WordKind::DoubleHigh);
                    let d = |bytes: &[u8]| {
                        let l = word(bytes, lo)? as u64;
                        let h = word(bytes, lo + 1)? as u64;
                        Some(f64::from_bits(h << 32 | l))
                    };
                    // As for floats: any NaN equals any NaN, and a denormal may be flushed
                    // and the sign of a zero may differ (`f32_close`).
                    let flushed = |x: f64| if x.is_subnormal() { 0.0 } else { x };
                    match (d(a), d(b)) {
                        (Some(p), Some(q)) if p.is_nan() && q.is_nan() => Verdict::Tolerated,
                        (Some(p), Some(q)) if flushed(p) == flushed(q) => Verdict::Tolerated,
                        (Some(p), Some(q))
                            if interface.tolerance.double_round_even && round_even_tie(p, q) =>
                        {
                            Verdict::Tolerated
                        }
                        (Some(p), Some(q))
                            if inexact.is_some()
                                && (p - q).abs() <= INEXACT_RELATIVE * p.abs().max(q.abs()) =>
                        {
                            Verdict::Tolerated
                        }
                        _ => Verdict::Different,
                    }
                }
                _ => Verdict::Different,
            };
            if verdict == Verdict::Tolerated {
                tolerated += 1;
                if let (Some(x), Some(y), WordKind::Float) = (x, y, kind) {
                    let (p, q) = (f64::from(f32::from_bits(x)), f64::from(f32::from_bits(y)));
                    let relative = (p - q).abs() / p.abs().max(q.abs());
                    if relative.is_finite() {
                        worst_relative = worst_relative.max(relative);
                    }
                }
            }
            if verdict == Verdict::Different && first_difference.is_none() {
                let input = word(inputs.get(i).map_or(&[][..], |v| v), w);
                first_difference = Some(format!(
                    "set {} binding {} byte {:#x} ({kind:?}): il-sim {:#010x}, lavapipe {:#010x}, input {:#010x}",
                    buffer.set,
                    buffer.binding,
                    w * 4,
                    x.unwrap_or(0),
                    y.unwrap_or(0),
                    input.unwrap_or(0)
                ));
            }
            worst = worst.max(verdict);
        }
    }
    // Storage images, channel by channel in their formats.
    for (n, image) in interface.images.iter().enumerate() {
        let Some((_, format)) = image.format else {
            continue;
        };
        if image.kind != ImageKind::Storage {
            continue;
        }
        let slot = interface.buffers.len() + n;
        let (Some(a), Some(b)) = (il.get(slot), vk.get(slot)) else {
            return Outcome::Differing(format!(
                "image set {} binding {}: missing output",
                image.set, image.binding
            ));
        };
        let size = format.ty.bytes();
        for (c, (x, y)) in a.chunks(size).zip(b.chunks(size)).enumerate() {
            let word = c * size / 4;
            if skip.and_then(|s| s.get(slot)).and_then(|s| s.get(word)) == Some(&true) {
                continue;
            }
            let value = |bytes: &[u8]| {
                bytes
                    .iter()
                    .rev()
                    .fold(0u32, |v, &b| (v << 8) | u32::from(b))
            };
            let (p, q) = (value(x), value(y));
            let verdict = if p == q {
                Verdict::Same
            } else {
                match format.ty {
                    il_sim::ChannelType::Float32 => {
                        f32_close(f32::from_bits(p), f32::from_bits(q), &interface.tolerance)
                    }
                    // Conversions to normalised formats may round either way (Vulkan allows
                    // the nearest representable value on either side of a tie).
                    il_sim::ChannelType::Unorm8 | il_sim::ChannelType::Snorm8
                        if (i32::from(p as u8 as i8) - i32::from(q as u8 as i8)).abs() <= 1
                            || p.abs_diff(q) <= 1 =>
                    {
                        Verdict::Tolerated
                    }
                    _ => Verdict::Different,
                }
            };
            if verdict == Verdict::Tolerated {
                tolerated += 1;
                if format.ty == il_sim::ChannelType::Float32 {
                    let (x, y) = (f64::from(f32::from_bits(p)), f64::from(f32::from_bits(q)));
                    let relative = (x - y).abs() / x.abs().max(y.abs());
                    if relative.is_finite() {
                        worst_relative = worst_relative.max(relative);
                    }
                }
            }
            if verdict == Verdict::Different && first_difference.is_none() {
                let input = inputs
                    .get(slot)
                    .and_then(|v| v.get(c * size..c * size + size))
                    .map_or(0, value);
                first_difference = Some(format!(
                    "image set {} binding {} byte {:#x} ({:?}): il-sim {p:#x}, lavapipe {q:#x}, input {input:#x}",
                    image.set,
                    image.binding,
                    c * size,
                    format.ty
                ));
            }
            worst = worst.max(verdict);
        }
    }
    match worst {
        Verdict::Same => Outcome::Identical,
        Verdict::Tolerated => Outcome::Tolerated(format!(
            "{tolerated} float words or texels, largest relative difference {worst_relative:.1e}; {}",
            inexact.unwrap_or("NaN payloads, zero signs, flushed denormals")
        )),
        Verdict::Different => Outcome::Differing(first_difference.unwrap_or_default()),
    }
}

// ----- the Vulkan side: parent ---------------------------------------------------------------------

enum VulkanFailure {
    /// Vulkan itself is unusable (no device, loader missing): the stage is skipped.
    Setup(String),
    /// This module cannot run (pipeline creation failed, ...).
    Module(String),
    Timeout,
}

/// Writes the job, runs the child, reads the outputs (indexed like `interface.buffers`).
fn run_vulkan_child(
    case: &Case,
    dir: &Path,
    interface: &Interface,
    inputs: &[Vec<u8>],
    push: Option<&[u8]>,
    entry: &str,
    groups: [u32; 3],
) -> Result<Vec<Vec<u8>>, VulkanFailure> {
    let io = |e: std::io::Error| VulkanFailure::Setup(format!("job files: {e}"));
    std::fs::create_dir_all(dir).map_err(io)?;
    std::fs::write(dir.join("module.spv"), &case.bytes).map_err(io)?;
    let mut bindings = Vec::new();
    for (i, (b, data)) in interface.buffers.iter().zip(inputs).enumerate() {
        let file = format!("buffer{i}.bin");
        std::fs::write(dir.join(&file), data).map_err(io)?;
        bindings.push(json!({
            "set": b.set,
            "binding": b.binding,
            "type": if b.kind == BufferKind::Storage { "storage" } else { "uniform" },
            "file": file,
        }));
    }
    let mut images = Vec::new();
    for (i, image) in interface.images.iter().enumerate() {
        let file = format!("image{i}.bin");
        let data = inputs
            .get(interface.buffers.len() + i)
            .map_or(&[][..], Vec::as_slice);
        std::fs::write(dir.join(&file), data).map_err(io)?;
        images.push(json!({
            "set": image.set,
            "binding": image.binding,
            "kind": match image.kind {
                ImageKind::Storage => "storage",
                ImageKind::Sampled => "sampled",
                ImageKind::Combined => "combined",
                ImageKind::Sampler => "sampler",
            },
            "dims": image.dims,
            "arrayed": image.arrayed,
            "size": image.size,
            "format": image.format.map_or(0, |(vk, _)| vk),
            "file": file,
        }));
    }
    if let Some(p) = push {
        std::fs::write(dir.join("push.bin"), p).map_err(io)?;
    }
    let job = json!({
        "entry": entry,
        "groups": groups,
        "bindings": bindings,
        "images": images,
        "push_constants": push.map(|_| "push.bin"),
    });
    std::fs::write(dir.join("job.json"), job.to_string()).map_err(io)?;

    let exe =
        std::env::current_exe().map_err(|e| VulkanFailure::Setup(format!("current_exe: {e}")))?;
    let runtime = dir.join("xdg-runtime");
    std::fs::create_dir_all(&runtime).map_err(io)?;
    let mut child = Command::new(exe)
        .arg(CHILD_TASK)
        .arg(dir)
        .env("VK_ICD_FILENAMES", icd_files())
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| VulkanFailure::Setup(format!("cannot start the Vulkan child: {e}")))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > VULKAN_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(VulkanFailure::Timeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(VulkanFailure::Setup(format!("waiting for the child: {e}"))),
        }
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        let _ = pipe.read_to_string(&mut stderr);
    }
    if !status.success() {
        let message = first_line(stderr.lines().last().unwrap_or("no message"));
        // Exit code 2 = Vulkan could not start at all; 1 = this module failed.
        return Err(if status.code() == Some(2) {
            VulkanFailure::Setup(message)
        } else {
            VulkanFailure::Module(format!("{message} ({status})"))
        });
    }
    let mut outputs = Vec::new();
    let names = (0..interface.buffers.len())
        .map(|i| format!("buffer{i}.out"))
        .chain((0..interface.images.len()).map(|i| format!("image{i}.out")));
    for name in names {
        let bytes = std::fs::read(dir.join(&name))
            .map_err(|e| VulkanFailure::Module(format!("no output {name}: {e}")))?;
        outputs.push(bytes);
    }
    Ok(outputs)
}

// ----- the Vulkan side: child ----------------------------------------------------------------------

/// The child process: `cargo xtask differential-vulkan JOB_DIR` runs `JOB_DIR/job.json` on the
/// Vulkan device the environment selects and writes `bufferN.out` for every binding. Exits with
/// status 2 when Vulkan cannot start, 1 when this module fails.
pub fn vulkan_child(args: &[String]) -> Result<(), String> {
    let Some(dir) = args.first().map(PathBuf::from) else {
        return Err(format!("usage: cargo xtask {CHILD_TASK} JOB_DIR"));
    };
    let job: Value = std::fs::read_to_string(dir.join("job.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("job.json: {e}"))?;
    let spirv = std::fs::read(dir.join("module.spv")).map_err(|e| format!("module.spv: {e}"))?;
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let entry = job["entry"].as_str().unwrap_or("main").to_string();
    let mut groups = [1u32; 3];
    for (g, v) in groups
        .iter_mut()
        .zip(job["groups"].as_array().into_iter().flatten())
    {
        *g = v.as_u64().and_then(|v| u32::try_from(v).ok()).unwrap_or(1);
    }
    let mut bindings = Vec::new();
    for b in job["bindings"].as_array().into_iter().flatten() {
        let file = b["file"].as_str().unwrap_or_default();
        let data = std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
        bindings.push(vk::Binding {
            set: b["set"].as_u64().unwrap_or(0) as u32,
            binding: b["binding"].as_u64().unwrap_or(0) as u32,
            storage: b["type"] == "storage",
            data,
        });
    }
    let mut images = Vec::new();
    for b in job["images"].as_array().into_iter().flatten() {
        let file = b["file"].as_str().unwrap_or_default();
        let data = std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
        let number = |key: &str| {
            b[key]
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .unwrap_or(0)
        };
        let mut size = [1u32; 3];
        for (s, v) in size
            .iter_mut()
            .zip(b["size"].as_array().into_iter().flatten())
        {
            *s = v.as_u64().and_then(|v| u32::try_from(v).ok()).unwrap_or(1);
        }
        images.push(vk::ImageJob {
            set: number("set"),
            binding: number("binding"),
            kind: match b["kind"].as_str() {
                Some("storage") => vk::ImageJobKind::Storage,
                Some("sampled") => vk::ImageJobKind::Sampled,
                Some("combined") => vk::ImageJobKind::Combined,
                _ => vk::ImageJobKind::Sampler,
            },
            dims: number("dims"),
            arrayed: b["arrayed"].as_bool().unwrap_or(false),
            size,
            format: b["format"]
                .as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .unwrap_or(0),
            data,
        });
    }
    let push = match job["push_constants"].as_str() {
        Some(file) => Some(std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?),
        None => None,
    };
    let device = match vk::Gpu::new() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let (buffers, images) =
        device.run(&words, &entry, &bindings, &images, push.as_deref(), groups)?;
    for (i, bytes) in buffers.iter().enumerate() {
        std::fs::write(dir.join(format!("buffer{i}.out")), bytes).map_err(|e| e.to_string())?;
    }
    for (i, bytes) in images.iter().enumerate() {
        std::fs::write(dir.join(format!("image{i}.out")), bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The only unsafe code of the workspace: Vulkan calls through `ash`. Every call passes
/// create-info structures built from live locals, handles created by the same device, and
/// mapped memory sizes taken from the allocation, which is what the Vulkan valid-usage rules
/// the calls' safety contracts refer to ask for.
#[allow(unsafe_code)]
mod vk {
    use std::ffi::CString;

    use ash::vk;

    /// One buffer to bind.
    pub struct Binding {
        /// Descriptor set.
        pub set: u32,
        /// Binding in the set.
        pub binding: u32,
        /// A storage buffer (else a uniform buffer).
        pub storage: bool,
        /// Contents before the dispatch.
        pub data: Vec<u8>,
    }

    /// Every buffer's bytes, then every image's texels (empty for samplers), after a run.
    pub type Outputs = (Vec<Vec<u8>>, Vec<Vec<u8>>);

    /// The descriptor kind of an image job.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum ImageJobKind {
        /// `STORAGE_IMAGE`.
        Storage,
        /// `SAMPLED_IMAGE`.
        Sampled,
        /// `COMBINED_IMAGE_SAMPLER`.
        Combined,
        /// `SAMPLER` (no image).
        Sampler,
    }

    /// One image (or sampler) to bind.
    pub struct ImageJob {
        /// Descriptor set.
        pub set: u32,
        /// Binding in the set.
        pub binding: u32,
        /// Descriptor kind.
        pub kind: ImageJobKind,
        /// Spatial dimensions, 1–3.
        pub dims: u32,
        /// An array image.
        pub arrayed: bool,
        /// Width, height, depth or layers.
        pub size: [u32; 3],
        /// Raw `VkFormat`.
        pub format: i32,
        /// Texels before the dispatch, tightly packed.
        pub data: Vec<u8>,
    }

    /// An instance and a logical device with a compute queue, every supported feature
    /// (robustBufferAccess included) enabled.
    pub struct Gpu {
        _entry: ash::Entry,
        instance: ash::Instance,
        physical: vk::PhysicalDevice,
        device: ash::Device,
        queue: vk::Queue,
        family: u32,
    }

    /// Fence wait limit inside the child (the parent's timeout is the real bound).
    const FENCE_TIMEOUT_NS: u64 = 18_000_000_000;

    impl Gpu {
        pub fn new() -> Result<Gpu, String> {
            // SAFETY: loading the system Vulkan loader; no other thread uses it yet.
            let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("Vulkan loader: {e}"))?;
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let info = vk::InstanceCreateInfo::default().application_info(&app);
            // SAFETY: `info` and `app` outlive the call.
            let instance = unsafe { entry.create_instance(&info, None) }
                .map_err(|e| format!("vkCreateInstance: {e}"))?;
            // SAFETY: `instance` is live.
            let physicals = unsafe { instance.enumerate_physical_devices() }
                .map_err(|e| format!("vkEnumeratePhysicalDevices: {e}"))?;
            let Some(&physical) = physicals.first() else {
                return Err("no Vulkan device".into());
            };
            // SAFETY: `physical` came from `instance`.
            let families =
                unsafe { instance.get_physical_device_queue_family_properties(physical) };
            let family = families
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .ok_or("no compute queue")? as u32;
            let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut features = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut f11)
                .push_next(&mut f12)
                .push_next(&mut f13);
            // SAFETY: the chained structures are live locals.
            unsafe { instance.get_physical_device_features2(physical, &mut features) };
            let priorities = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&priorities)];
            let info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .push_next(&mut features);
            // SAFETY: every structure in `info`'s chain is a live local.
            let device = unsafe { instance.create_device(physical, &info, None) }
                .map_err(|e| format!("vkCreateDevice: {e}"))?;
            // SAFETY: queue 0 of `family` was requested above.
            let queue = unsafe { device.get_device_queue(family, 0) };
            Ok(Gpu {
                _entry: entry,
                instance,
                physical,
                device,
                queue,
                family,
            })
        }

        fn memory_type(&self, bits: u32) -> Option<u32> {
            // SAFETY: `physical` came from `instance`.
            let props = unsafe {
                self.instance
                    .get_physical_device_memory_properties(self.physical)
            };
            let wanted =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            (0..props.memory_type_count).find(|&i| {
                bits & (1 << i) != 0
                    && props.memory_types[i as usize]
                        .property_flags
                        .contains(wanted)
            })
        }

        /// A host-visible, coherent buffer of `size` bytes, mapped; the mapping lives until the
        /// process exits.
        fn host_buffer(
            &self,
            size: u64,
            usage: vk::BufferUsageFlags,
        ) -> Result<(vk::Buffer, &'static mut [u8]), String> {
            let d = &self.device;
            let info = vk::BufferCreateInfo::default()
                .size(size)
                .usage(usage)
                .sharing_mode(vk::SharingMode::EXCLUSIVE);
            // SAFETY: plain create-info.
            let buffer = unsafe { d.create_buffer(&info, None) }
                .map_err(|e| format!("vkCreateBuffer: {e}"))?;
            // SAFETY: `buffer` was created by `d`.
            let req = unsafe { d.get_buffer_memory_requirements(buffer) };
            let memory_type = self
                .memory_type(req.memory_type_bits)
                .ok_or("no host-visible memory")?;
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(memory_type);
            // SAFETY: the memory type index comes from this device's properties.
            let memory = unsafe { d.allocate_memory(&alloc, None) }
                .map_err(|e| format!("vkAllocateMemory: {e}"))?;
            // SAFETY: fresh buffer and memory of at least `req.size` bytes.
            unsafe { d.bind_buffer_memory(buffer, memory, 0) }
                .map_err(|e| format!("vkBindBufferMemory: {e}"))?;
            // SAFETY: the memory is host-visible and not mapped elsewhere.
            let ptr = unsafe { d.map_memory(memory, 0, req.size, vk::MemoryMapFlags::empty()) }
                .map_err(|e| format!("vkMapMemory: {e}"))?;
            // SAFETY: the mapping spans `req.size` ≥ `size` bytes, stays mapped until the process
            // exits, and no other reference to it exists.
            let mapped = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), size as usize) };
            mapped.fill(0);
            Ok((buffer, mapped))
        }

        /// An image with its memory and view, per the job's dimensions and format.
        fn image(
            &self,
            job: &ImageJob,
        ) -> Result<(vk::Image, vk::ImageView, vk::Extent3D, u32), String> {
            let d = &self.device;
            let [w, h, z] = job.size;
            let (image_type, view_type, extent, layers) = match (job.dims, job.arrayed) {
                (1, false) => (
                    vk::ImageType::TYPE_1D,
                    vk::ImageViewType::TYPE_1D,
                    [w, 1, 1],
                    1,
                ),
                (1, true) => (
                    vk::ImageType::TYPE_1D,
                    vk::ImageViewType::TYPE_1D_ARRAY,
                    [w, 1, 1],
                    z,
                ),
                (2, false) => (
                    vk::ImageType::TYPE_2D,
                    vk::ImageViewType::TYPE_2D,
                    [w, h, 1],
                    1,
                ),
                (2, true) => (
                    vk::ImageType::TYPE_2D,
                    vk::ImageViewType::TYPE_2D_ARRAY,
                    [w, h, 1],
                    z,
                ),
                _ => (
                    vk::ImageType::TYPE_3D,
                    vk::ImageViewType::TYPE_3D,
                    [w, h, z],
                    1,
                ),
            };
            let extent = vk::Extent3D {
                width: extent[0],
                height: extent[1],
                depth: extent[2],
            };
            let format = vk::Format::from_raw(job.format);
            let usage = vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST
                | if job.kind == ImageJobKind::Storage {
                    vk::ImageUsageFlags::STORAGE
                } else {
                    vk::ImageUsageFlags::SAMPLED
                };
            let info = vk::ImageCreateInfo::default()
                .image_type(image_type)
                .format(format)
                .extent(extent)
                .mip_levels(1)
                .array_layers(layers)
                .samples(vk::SampleCountFlags::TYPE_1)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(usage)
                .sharing_mode(vk::SharingMode::EXCLUSIVE)
                .initial_layout(vk::ImageLayout::UNDEFINED);
            // SAFETY: plain create-info.
            let image = unsafe { d.create_image(&info, None) }
                .map_err(|e| format!("vkCreateImage ({format:?}): {e}"))?;
            // SAFETY: `image` was created by `d`.
            let req = unsafe { d.get_image_memory_requirements(image) };
            // SAFETY: `physical` came from `instance`.
            let props = unsafe {
                self.instance
                    .get_physical_device_memory_properties(self.physical)
            };
            let memory_type = (0..props.memory_type_count)
                .find(|&i| req.memory_type_bits & (1 << i) != 0)
                .ok_or("no memory type for an image")?;
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(memory_type);
            // SAFETY: the memory type index comes from this device's properties.
            let memory = unsafe { d.allocate_memory(&alloc, None) }
                .map_err(|e| format!("vkAllocateMemory: {e}"))?;
            // SAFETY: fresh image and memory of at least `req.size` bytes.
            unsafe { d.bind_image_memory(image, memory, 0) }
                .map_err(|e| format!("vkBindImageMemory: {e}"))?;
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(view_type)
                .format(format)
                .subresource_range(color_range(layers));
            // SAFETY: the image was created by `d` with this format and layer count.
            let view = unsafe { d.create_image_view(&view_info, None) }
                .map_err(|e| format!("vkCreateImageView: {e}"))?;
            Ok((image, view, extent, layers))
        }

        /// Runs the module once and returns every buffer's and image's bytes afterwards.
        pub fn run(
            &self,
            words: &[u32],
            entry: &str,
            bindings: &[Binding],
            images: &[ImageJob],
            push: Option<&[u8]>,
            groups: [u32; 3],
        ) -> Result<Outputs, String> {
            let d = &self.device;
            let module_info = vk::ShaderModuleCreateInfo::default().code(words);
            // SAFETY: `words` outlives the call.
            let module = unsafe { d.create_shader_module(&module_info, None) }
                .map_err(|e| format!("vkCreateShaderModule: {e}"))?;

            let max_set = bindings
                .iter()
                .map(|b| b.set)
                .chain(images.iter().map(|i| i.set))
                .max();
            let mut set_layouts = Vec::new();
            for set in 0..max_set.map_or(0, |m| m + 1) {
                let layout_bindings: Vec<vk::DescriptorSetLayoutBinding> = bindings
                    .iter()
                    .filter(|b| b.set == set)
                    .map(|b| (b.binding, descriptor_type(b)))
                    .chain(
                        images
                            .iter()
                            .filter(|i| i.set == set)
                            .map(|i| (i.binding, image_descriptor_type(i))),
                    )
                    .map(|(binding, ty)| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(binding)
                            .descriptor_type(ty)
                            .descriptor_count(1)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    })
                    .collect();
                let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
                // SAFETY: `layout_bindings` outlives the call.
                let layout = unsafe { d.create_descriptor_set_layout(&info, None) }
                    .map_err(|e| format!("vkCreateDescriptorSetLayout: {e}"))?;
                set_layouts.push(layout);
            }
            let ranges: Vec<vk::PushConstantRange> = push
                .map(|p| {
                    vk::PushConstantRange::default()
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                        .offset(0)
                        .size(p.len() as u32)
                })
                .into_iter()
                .collect();
            let layout_info = vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&set_layouts)
                .push_constant_ranges(&ranges);
            // SAFETY: the set layouts were created by `d`.
            let pipeline_layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
                .map_err(|e| format!("vkCreatePipelineLayout: {e}"))?;
            let name = CString::new(entry).map_err(|e| e.to_string())?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&name);
            let pipeline_info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(pipeline_layout)];
            // SAFETY: module and layout were created by `d`; `name` outlives the call.
            let pipeline = unsafe {
                d.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None)
            }
            .map_err(|(_, e)| format!("vkCreateComputePipelines: {e}"))?
            .first()
            .copied()
            .ok_or("no pipeline")?;

            // Buffers in host-visible, coherent memory, filled with the inputs.
            let mut buffers = Vec::new();
            for b in bindings {
                let usage = if b.storage {
                    vk::BufferUsageFlags::STORAGE_BUFFER
                } else {
                    vk::BufferUsageFlags::UNIFORM_BUFFER
                };
                let (buffer, mapped) = self.host_buffer(b.data.len().max(16) as u64, usage)?;
                mapped[..b.data.len()].copy_from_slice(&b.data);
                buffers.push((buffer, mapped));
            }

            // Images, each with a staging buffer for the upload and the read-back; one sampler
            // (nearest, clamp to edge: il-sim's default) for every sampler binding.
            let sampler_info = vk::SamplerCreateInfo::default()
                .mag_filter(vk::Filter::NEAREST)
                .min_filter(vk::Filter::NEAREST)
                .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .max_lod(0.0);
            // SAFETY: plain create-info.
            let sampler = unsafe { d.create_sampler(&sampler_info, None) }
                .map_err(|e| format!("vkCreateSampler: {e}"))?;
            let mut made = Vec::new();
            for job in images {
                if job.kind == ImageJobKind::Sampler {
                    made.push(None);
                    continue;
                }
                let (image, view, extent, layers) = self.image(job)?;
                let (staging, mapped) = self.host_buffer(
                    job.data.len().max(16) as u64,
                    vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                )?;
                mapped[..job.data.len()].copy_from_slice(&job.data);
                made.push(Some((image, view, extent, layers, staging, mapped)));
            }

            // Descriptors.
            let mut pool_sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
            let types = bindings
                .iter()
                .map(descriptor_type)
                .chain(images.iter().map(image_descriptor_type));
            for ty in types {
                match pool_sizes.iter_mut().find(|p| p.ty == ty) {
                    Some(p) => p.descriptor_count += 1,
                    None => pool_sizes.push(vk::DescriptorPoolSize {
                        ty,
                        descriptor_count: 1,
                    }),
                }
            }
            let mut sets = Vec::new();
            if !set_layouts.is_empty() {
                let pool_info = vk::DescriptorPoolCreateInfo::default()
                    .max_sets(set_layouts.len() as u32)
                    .pool_sizes(&pool_sizes);
                // SAFETY: plain create-info.
                let pool = unsafe { d.create_descriptor_pool(&pool_info, None) }
                    .map_err(|e| format!("vkCreateDescriptorPool: {e}"))?;
                let alloc = vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&set_layouts);
                // SAFETY: pool and layouts were created by `d`.
                sets = unsafe { d.allocate_descriptor_sets(&alloc) }
                    .map_err(|e| format!("vkAllocateDescriptorSets: {e}"))?;
                let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
                    .iter()
                    .map(|(buffer, _)| {
                        [vk::DescriptorBufferInfo::default()
                            .buffer(*buffer)
                            .offset(0)
                            .range(vk::WHOLE_SIZE)]
                    })
                    .collect();
                let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = made
                    .iter()
                    .map(|m| {
                        let info = vk::DescriptorImageInfo::default()
                            .sampler(sampler)
                            .image_layout(vk::ImageLayout::GENERAL);
                        [match m {
                            Some((_, view, ..)) => info.image_view(*view),
                            None => info,
                        }]
                    })
                    .collect();
                let mut writes: Vec<vk::WriteDescriptorSet> = bindings
                    .iter()
                    .zip(&buffer_infos)
                    .map(|(b, info)| {
                        vk::WriteDescriptorSet::default()
                            .dst_set(sets[b.set as usize])
                            .dst_binding(b.binding)
                            .descriptor_type(descriptor_type(b))
                            .buffer_info(info)
                    })
                    .collect();
                writes.extend(images.iter().zip(&image_infos).map(|(i, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[i.set as usize])
                        .dst_binding(i.binding)
                        .descriptor_type(image_descriptor_type(i))
                        .image_info(info)
                }));
                // SAFETY: every write names a set, binding and resource of this device.
                unsafe { d.update_descriptor_sets(&writes, &[]) };
            }

            // Record: upload the images, dispatch, read the images back.
            let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(self.family);
            // SAFETY: plain create-info.
            let command_pool = unsafe { d.create_command_pool(&pool_info, None) }
                .map_err(|e| format!("vkCreateCommandPool: {e}"))?;
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(command_pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            // SAFETY: the pool was created by `d`.
            let cb = unsafe { d.allocate_command_buffers(&alloc) }
                .map_err(|e| format!("vkAllocateCommandBuffers: {e}"))?[0];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            let transition = |image: vk::Image,
                              layers: u32,
                              from: (vk::ImageLayout, vk::AccessFlags),
                              to: (vk::ImageLayout, vk::AccessFlags)| {
                vk::ImageMemoryBarrier::default()
                    .old_layout(from.0)
                    .src_access_mask(from.1)
                    .new_layout(to.0)
                    .dst_access_mask(to.1)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(image)
                    .subresource_range(color_range(layers))
            };
            let copy = |extent: vk::Extent3D, layers: u32| {
                [vk::BufferImageCopy::default()
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .mip_level(0)
                            .base_array_layer(0)
                            .layer_count(layers),
                    )
                    .image_extent(extent)]
            };
            let shader_rw = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
            let host_barrier = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            // SAFETY: recording into a fresh command buffer with objects of this device; every
            // image is transitioned before it is used in a new way.
            unsafe {
                d.begin_command_buffer(cb, &begin)
                    .map_err(|e| format!("vkBeginCommandBuffer: {e}"))?;
                for (image, _, extent, layers, staging, _) in made.iter().flatten() {
                    let to_transfer = [transition(
                        *image,
                        *layers,
                        (vk::ImageLayout::UNDEFINED, vk::AccessFlags::empty()),
                        (
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            vk::AccessFlags::TRANSFER_WRITE,
                        ),
                    )];
                    d.cmd_pipeline_barrier(
                        cb,
                        vk::PipelineStageFlags::TOP_OF_PIPE,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[],
                        &to_transfer,
                    );
                    d.cmd_copy_buffer_to_image(
                        cb,
                        *staging,
                        *image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &copy(*extent, *layers),
                    );
                    let to_general = [transition(
                        *image,
                        *layers,
                        (
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            vk::AccessFlags::TRANSFER_WRITE,
                        ),
                        (vk::ImageLayout::GENERAL, shader_rw),
                    )];
                    d.cmd_pipeline_barrier(
                        cb,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[],
                        &to_general,
                    );
                }
                d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
                if !sets.is_empty() {
                    d.cmd_bind_descriptor_sets(
                        cb,
                        vk::PipelineBindPoint::COMPUTE,
                        pipeline_layout,
                        0,
                        &sets,
                        &[],
                    );
                }
                if let Some(p) = push {
                    d.cmd_push_constants(cb, pipeline_layout, vk::ShaderStageFlags::COMPUTE, 0, p);
                }
                d.cmd_dispatch(cb, groups[0], groups[1], groups[2]);
                for (image, _, extent, layers, staging, _) in made.iter().flatten() {
                    let to_source = [transition(
                        *image,
                        *layers,
                        (vk::ImageLayout::GENERAL, shader_rw),
                        (
                            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                            vk::AccessFlags::TRANSFER_READ,
                        ),
                    )];
                    d.cmd_pipeline_barrier(
                        cb,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[],
                        &to_source,
                    );
                    d.cmd_copy_image_to_buffer(
                        cb,
                        *image,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        *staging,
                        &copy(*extent, *layers),
                    );
                }
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &host_barrier,
                    &[],
                    &[],
                );
                d.end_command_buffer(cb)
                    .map_err(|e| format!("vkEndCommandBuffer: {e}"))?;
            }
            // SAFETY: plain create-info.
            let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
                .map_err(|e| format!("vkCreateFence: {e}"))?;
            let command_buffers = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&command_buffers)];
            // SAFETY: the command buffer is fully recorded; queue and fence belong to `d`.
            unsafe { d.queue_submit(self.queue, &submit, fence) }
                .map_err(|e| format!("vkQueueSubmit: {e}"))?;
            // SAFETY: `fence` belongs to `d`.
            unsafe { d.wait_for_fences(&[fence], true, FENCE_TIMEOUT_NS) }
                .map_err(|e| format!("vkWaitForFences: {e}"))?;
            let buffer_out = buffers
                .iter()
                .zip(bindings)
                .map(|((_, mapped), b)| mapped[..b.data.len()].to_vec())
                .collect();
            let image_out = made
                .iter()
                .zip(images)
                .map(|(m, job)| match m {
                    Some((.., mapped)) => mapped[..job.data.len()].to_vec(),
                    None => Vec::new(),
                })
                .collect();
            Ok((buffer_out, image_out))
        }
    }

    /// The whole colour aspect of a one-level image with `layers` layers.
    fn color_range(layers: u32) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .base_mip_level(0)
            .level_count(1)
            .base_array_layer(0)
            .layer_count(layers)
    }

    fn image_descriptor_type(i: &ImageJob) -> vk::DescriptorType {
        match i.kind {
            ImageJobKind::Storage => vk::DescriptorType::STORAGE_IMAGE,
            ImageJobKind::Sampled => vk::DescriptorType::SAMPLED_IMAGE,
            ImageJobKind::Combined => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            ImageJobKind::Sampler => vk::DescriptorType::SAMPLER,
        }
    }

    fn descriptor_type(b: &Binding) -> vk::DescriptorType {
        if b.storage {
            vk::DescriptorType::STORAGE_BUFFER
        } else {
            vk::DescriptorType::UNIFORM_BUFFER
        }
    }
}

#[cfg(test)]
mod tests {
    //! The pure parts of the stage: layouts, inputs, tolerances, dispatch sizes.
    use super::*;

    fn module(path: &str) -> Module {
        let bytes = std::fs::read(project_root().join(path)).unwrap();
        spv_reader::read(&bytes).unwrap()
    }

    #[test]
    fn layouts_mark_float_words_from_the_decorations() {
        // saxpy.comp: X { float x[]; } Y { float y[]; } Params { float a; uint n; } (std140 UBO,
        // 8 bytes, rounded up to 16).
        let m = module("spv-validate/tests/shaders/saxpy.vk12.spv");
        let i = interface(&m, "main").unwrap();
        assert_eq!(i.buffers.len(), 3);
        let (x, y, params) = (&i.buffers[0], &i.buffers[1], &i.buffers[2]);
        assert_eq!((x.set, x.binding, x.kind), (0, 0, BufferKind::Storage));
        assert_eq!(x.kinds.len(), BUFFER_BYTES / 4);
        assert!(
            x.kinds
                .iter()
                .chain(&y.kinds)
                .all(|&k| k == WordKind::Float)
        );
        assert_eq!(params.kind, BufferKind::Uniform);
        assert_eq!(
            params.kinds,
            vec![WordKind::Float, WordKind::Int, WordKind::Int, WordKind::Int]
        );
        // a * x + y: a contractible multiply-add.
        assert_eq!(i.tolerance.inexact, Some("contractible multiply-add"));
    }

    #[test]
    fn std140_arrays_and_integers_stay_integers() {
        // uniform_buffer.comp: { uint scale; uint bias; uvec4 table[16]; } = 16 + 256 bytes.
        let m = module("spv2il/tests/shaders/memory/uniform_buffer.spv");
        let i = interface(&m, "main").unwrap();
        let params = &i.buffers[0];
        assert_eq!(params.kinds.len(), (16 + 16 * 16) / 4);
        assert!(params.kinds.iter().all(|&k| k == WordKind::Int));
        assert_eq!(i.tolerance.inexact, None);
    }

    #[test]
    fn image_bindings_take_the_declared_formats() {
        // storage_image.comp: rgba8 image2D at binding 0, rgba32f image2D at binding 1.
        let m = module("spv2il/tests/shaders/images/storage_image.spv");
        let i = interface(&m, "main").unwrap();
        assert!(i.buffers.is_empty());
        let formats: Vec<_> = i
            .images
            .iter()
            .map(|b| (b.binding, b.kind, b.size, b.format))
            .collect();
        let unorm = il_sim::TexelFormat {
            channels: 4,
            ty: il_sim::ChannelType::Unorm8,
        };
        let float = il_sim::TexelFormat {
            channels: 4,
            ty: il_sim::ChannelType::Float32,
        };
        assert_eq!(
            formats,
            vec![
                (0, ImageKind::Storage, [32, 32, 1], Some((37, unorm))),
                (1, ImageKind::Storage, [32, 32, 1], Some((109, float))),
            ]
        );
        assert!(
            i.tolerance
                .inexact
                .is_some_and(|r| r.starts_with("normalised"))
        );
        let data = fill_image(&i.images[0], &mut Rng::new(1));
        assert_eq!(data.len(), 32 * 32 * 4);
        // The order-sensitivity scan: atomics_buffer.comp uses an exchange's result.
        let atomics = module("spv2il/tests/shaders/memory/atomics_buffer.spv");
        assert!(order_sensitivity(&atomics).is_some());
        assert!(order_sensitivity(&m).is_none());
    }

    #[test]
    fn inputs_are_deterministic_and_never_special_floats() {
        let kinds = [
            WordKind::Float,
            WordKind::Int,
            WordKind::DoubleLow,
            WordKind::DoubleHigh,
        ];
        let kinds: Vec<WordKind> = kinds.iter().cycle().take(4000).copied().collect();
        let a = fill(&kinds, &mut Rng::new(7), false);
        assert_eq!(a, fill(&kinds, &mut Rng::new(7), false));
        assert_ne!(a, fill(&kinds, &mut Rng::new(8), false));
        let parameters = fill(&kinds, &mut Rng::new(7), true);
        for (w, k) in parameters.chunks(4).zip(&kinds) {
            if *k == WordKind::Int {
                assert!(u32::from_le_bytes([w[0], w[1], w[2], w[3]]) < 64);
            }
        }
        for (w, k) in a.chunks(4).zip(&kinds) {
            let bits = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            if *k == WordKind::Float {
                let f = f32::from_bits(bits);
                assert!(f.is_finite() && !f.is_subnormal(), "{f}");
            }
        }
        for d in a.chunks(16) {
            let lo = u32::from_le_bytes([d[8], d[9], d[10], d[11]]);
            let hi = u32::from_le_bytes([d[12], d[13], d[14], d[15]]);
            let v = f64::from_bits(u64::from(hi) << 32 | u64::from(lo));
            assert!(v.is_finite() && v.abs() < 1024.0, "{v}");
        }
    }

    #[test]
    fn float_tolerances() {
        let exact = Tolerance {
            inexact: None,
            division: false,
            order_sensitive: None,
            double_round_even: false,
        };
        let inexact = Tolerance {
            inexact: Some("test"),
            division: false,
            order_sensitive: None,
            double_round_even: false,
        };
        let division = Tolerance {
            inexact: Some("float division"),
            division: true,
            order_sensitive: None,
            double_round_even: false,
        };
        let one_ulp_up = f32::from_bits(1.0f32.to_bits() + 1);
        let v = |a: f32, b: f32, t: &Tolerance| f32_close(a, b, t);
        assert!(v(1.0, 1.0, &exact) == Verdict::Same);
        assert!(v(1.0, one_ulp_up, &exact) == Verdict::Different);
        assert!(v(1.0, one_ulp_up, &inexact) == Verdict::Tolerated);
        assert!(v(1.0, 1.01, &inexact) == Verdict::Different);
        assert!(v(f32::NAN, -f32::NAN, &exact) == Verdict::Tolerated);
        assert!(v(f32::NAN, 1.0, &inexact) == Verdict::Different);
        assert!(v(f32::from_bits(1), 0.0, &exact) == Verdict::Tolerated);
        assert!(v(-0.0, 0.0, &exact) == Verdict::Tolerated);
        assert!(v(f32::INFINITY, f32::MAX, &inexact) == Verdict::Different);
        assert!(v(f32::INFINITY, f32::NEG_INFINITY, &inexact) == Verdict::Different);
        assert!(v(f32::INFINITY, f32::NEG_INFINITY, &division) == Verdict::Tolerated);
        assert!(v(f32::INFINITY, f32::NAN, &division) == Verdict::Tolerated);
        assert!(v(f32::INFINITY, 1.0, &division) == Verdict::Different);
    }

    #[test]
    fn only_lavapipes_odd_round_even_ties_are_taken_for_its_defect() {
        assert!(round_even_tie(98.0, 97.0));
        assert!(round_even_tie(-2.0, -1.0));
        assert!(round_even_tie(0.0, 1.0));
        // Ours odd, or not one apart, or not integers: a real difference.
        assert!(!round_even_tie(97.0, 98.0));
        assert!(!round_even_tie(98.0, 96.0));
        assert!(!round_even_tie(98.0, 97.5));
        assert!(!round_even_tie(f64::INFINITY, f64::INFINITY - 1.0));
    }

    #[test]
    fn comparison_reports_the_first_difference_and_honours_skips() {
        let interface = Interface {
            buffers: vec![Buffer {
                set: 0,
                binding: 3,
                kind: BufferKind::Storage,
                kinds: vec![WordKind::Int; 4],
            }],
            images: Vec::new(),
            push: None,
            tolerance: Tolerance {
                inexact: None,
                division: false,
                order_sensitive: None,
                double_round_even: false,
            },
        };
        let bytes = |w: [u32; 4]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let input = vec![bytes([0; 4])];
        let same = compare(
            &interface,
            &input,
            &[bytes([1, 2, 3, 4])],
            &[bytes([1, 2, 3, 4])],
            None,
        );
        assert!(matches!(same, Outcome::Identical));
        let differing = compare(
            &interface,
            &input,
            &[bytes([1, 2, 3, 4])],
            &[bytes([1, 2, 9, 4])],
            None,
        );
        match differing {
            Outcome::Differing(why) => assert!(why.contains("binding 3 byte 0x8"), "{why}"),
            _ => panic!("expected a difference"),
        }
        let skip = vec![vec![false, false, true, false]];
        let skipped = compare(
            &interface,
            &input,
            &[bytes([1, 2, 3, 4])],
            &[bytes([1, 2, 9, 4])],
            Some(&skip),
        );
        assert!(matches!(skipped, Outcome::Identical));
    }

    #[test]
    fn dispatch_sizes_cover_about_the_target() {
        assert_eq!(dispatch_size([64, 1, 1]), [16, 1, 1]);
        assert_eq!(dispatch_size([1, 1, 1]), [1024, 1, 1]);
        assert_eq!(dispatch_size([8, 8, 1]), [4, 4, 1]);
        assert_eq!(dispatch_size([4, 4, 4]), [2, 2, 2]);
        assert_eq!(dispatch_size([1024, 1, 1]), [1, 1, 1]);
    }
}
