//! Measures verdict agreement between spv-validate and spirv-val on mutants of the corpus.
//!
//! ```text
//! cargo run --release -p spv-validate --example agreement -- SPIRV_VAL [PER_MODULE] [OUT_DIR]
//! ```
//!
//! For every module of `../shared/corpus` that spirv-val accepts in its manifest environment
//! (`val_env`, `val2025_env` = 1), it builds `PER_MODULE` mutants with
//! [`spv_validate::mutate::mutants`] (seeded by the module's position), runs spirv-val on
//! each (one process per file) and compares verdicts. It prints the agreement rate and the
//! disagreement classes (mutation, direction, our first rule, spirv-val's first message with
//! digits masked); with `OUT_DIR` it keeps each disagreeing mutant there for inspection.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use spv_validate::{Options, TargetEnv, mutate, validate};

/// (case index, spirv-val verdict, its message, our verdict, our first rule).
type Outcome = (usize, bool, String, bool, String);

struct Case {
    name: String,
    mutation: String,
    env: String,
    words: Vec<u32>,
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// spirv-val's verdict and first message line (digits masked).
fn spirv_val(tool: &str, env: &str, path: &Path) -> (bool, String) {
    let out = Command::new(tool)
        .arg("--target-env")
        .arg(env)
        .arg(path)
        .output()
        .expect("spirv-val runs");
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    let first = text
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("")
        .to_owned();
    let first = first
        .split_once(": ")
        .map_or(first.as_str(), |(_, r)| r)
        .to_owned();
    let first = first
        .split_once(": ")
        .map_or(first.as_str(), |(a, r)| {
            if a.starts_with("line") {
                r
            } else {
                first.as_str()
            }
        })
        .to_owned();
    let masked: String = first
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .take(110)
        .collect();
    (out.status.success(), masked)
}

/// Our verdict and first rule.
fn ours(words: &[u32], env: &str) -> (bool, String) {
    let env: TargetEnv = env.parse().expect("known env");
    match spv_reader::read_words(words) {
        Err(e) => (false, format!("read: {:?}", e.kind())),
        Ok(m) => match validate(&m, &Options::new(env)) {
            Ok(_) => (true, String::new()),
            Err(d) => (
                false,
                d.0.first().map_or(String::new(), |d| d.rule.to_owned()),
            ),
        },
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tool = args
        .get(1)
        .cloned()
        .expect("usage: agreement SPIRV_VAL [PER_MODULE] [OUT_DIR]");
    let per_module: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let out_dir = args.get(3).map(PathBuf::from);
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let manifest = std::fs::read_to_string(corpus.join("manifest.tsv")).expect("corpus manifest");
    let header: Vec<&str> = manifest.lines().next().unwrap_or("").split('\t').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect("column");
    let (pc, ec, vc) = (col("path"), col("val_env"), col("val2025_env"));
    let mut cases = Vec::new();
    for (k, line) in manifest.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        if f[vc] != "1" {
            continue;
        }
        let bytes = std::fs::read(corpus.join(f[pc])).expect("module");
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for (j, (mutation, w)) in mutate::mutants(&words, k as u64 * 7919 + 1, per_module)
            .into_iter()
            .enumerate()
        {
            cases.push(Case {
                name: format!("{}.m{j}", f[pc].replace('/', "__")),
                mutation,
                env: f[ec].to_owned(),
                words: w,
            });
        }
    }
    let tmp = std::env::temp_dir().join(format!("spv-validate-agreement-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let results: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (cases, results, tmp, tool) = (&cases, &results, &tmp, &tool);
            scope.spawn(move || {
                let mut local = Vec::new();
                for (i, c) in cases.iter().enumerate().skip(t).step_by(threads) {
                    let path = tmp.join(format!("{i}.spv"));
                    std::fs::write(&path, to_bytes(&c.words)).expect("write mutant");
                    let (theirs, msg) = spirv_val(tool, &c.env, &path);
                    let _ = std::fs::remove_file(&path);
                    let (mine, rule) = ours(&c.words, &c.env);
                    local.push((i, theirs, msg, mine, rule));
                }
                results.lock().expect("lock").extend(local);
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    let results = results.into_inner().expect("lock");
    let total = results.len();
    let mut agree = 0usize;
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_mutation: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, theirs, msg, mine, rule) in &results {
        let c = &cases[*i];
        let e = per_mutation.entry(c.mutation.as_str()).or_default();
        e.1 += 1;
        if theirs == mine {
            agree += 1;
            e.0 += 1;
            continue;
        }
        let class = if *theirs {
            format!("{} | we reject ({rule}), spirv-val accepts", c.mutation)
        } else {
            format!("{} | we accept, spirv-val: {msg}", c.mutation)
        };
        *classes.entry(class).or_default() += 1;
        if let Some(dir) = &out_dir {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(
                dir.join(format!("{}.{}.spv", c.name, c.env)),
                to_bytes(&c.words),
            );
        }
    }
    println!(
        "{agree} of {total} mutants agree ({:.2}%)",
        100.0 * agree as f64 / total.max(1) as f64
    );
    for (m, (a, n)) in &per_mutation {
        println!("  {m:28} {a:6} / {n:6}");
    }
    let mut classes: Vec<(String, usize)> = classes.into_iter().collect();
    classes.sort_by_key(|c| std::cmp::Reverse(c.1));
    for (class, n) in classes {
        println!("{n:6}  {class}");
    }
}
