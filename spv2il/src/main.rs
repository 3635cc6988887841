//! The `spv2il` command-line tool: arguments, input and output, exit codes.
//!
//! All the work happens in the `spv2il` library and the crates below it; this file only turns
//! arguments into calls and results into bytes and messages. Exit status: 0 on success, 1 when
//! the input cannot be read, validated or translated, 2 on a usage error (clap's own code).

#![allow(clippy::print_stderr, reason = "a command-line tool reports on stderr")]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use spv2il::{Family, Options};

/// Translate SPIR-V compute shaders into AMD IL (OpenCL kernels: `validate` and `cfg` only).
///
/// With no subcommand, translates IN (a SPIR-V module; `-` for standard input) and writes the
/// IL program as text or as binary tokens.
#[derive(Parser)]
#[command(name = "spv2il", version, args_conflicts_with_subcommands = true)]
#[command(after_help = "Exit status: 0 success, 1 translation error, 2 usage error.")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    translate: TranslateArgs,
}

#[derive(Args)]
struct TranslateArgs {
    /// The SPIR-V module to translate (`-` reads standard input).
    #[arg(value_name = "IN.spv")]
    input: Option<PathBuf>,
    /// Where to write the IL (`-` or absent: standard output).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// IL form to write: `text` (what calclCompile takes) or `binary` (little-endian tokens).
    #[arg(long, value_enum, default_value_t = Emit::Text)]
    emit: Emit,
    /// The entry point to translate, when the module has several.
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// The GPU family whose IL the program must be valid for.
    #[arg(long, value_enum, default_value_t = TargetFamily::Evergreen)]
    target: TargetFamily,
    /// Override a specialization constant: SpecId=VALUE (decimal, 0x hex, or a float).
    #[arg(long = "spec", value_name = "ID=VALUE", value_parser = parse_spec)]
    specs: Vec<(u32, String)>,
    /// Also write the reflection (resource bindings and their IL ids, work-group size) as JSON.
    #[arg(long, value_name = "FILE.json")]
    reflect: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Disassemble a SPIR-V module in spirv-dis syntax (`--raw-id` form).
    Dis {
        /// The SPIR-V module (`-` reads standard input).
        file: PathBuf,
    },
    /// Validate SPIR-V modules; prints every diagnostic and exits 1 if any module is invalid.
    Validate {
        /// The SPIR-V modules.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The client environment, spelled as spirv-val spells it (vulkan1.0…vulkan1.4,
        /// opencl1.2, opencl2.0…opencl2.2, spv1.0…spv1.6, universal1.0…1.6). Default: core
        /// SPIR-V at each module's own version.
        #[arg(long, value_name = "ENV")]
        target_env: Option<String>,
    },
    /// Print each function's control-flow graph and structured region tree (or Graphviz dot).
    Cfg {
        /// The SPIR-V module (`-` reads standard input).
        file: PathBuf,
        /// Only the function with this OpName (or `%id`).
        #[arg(long, value_name = "NAME")]
        function: Option<String>,
        /// Write Graphviz dot instead of text.
        #[arg(long)]
        dot: bool,
        /// Ignore merge instructions and use the general structurizer.
        #[arg(long)]
        ignore_merges: bool,
    },
    /// Convert IL binary tokens (little-endian words) to IL text.
    IlDis {
        /// The token file (`-` reads standard input).
        file: PathBuf,
        /// Where to write the text (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Convert IL text to IL binary tokens (little-endian words).
    IlAs {
        /// The IL text file (`-` reads standard input).
        file: PathBuf,
        /// Where to write the tokens (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// IL text.
    Text,
    /// IL binary tokens, little-endian 32-bit words.
    Binary,
}

#[derive(Clone, Copy, ValueEnum)]
enum TargetFamily {
    /// Evergreen (HD 5000).
    Evergreen,
    /// Cayman (HD 6900).
    Cayman,
    /// Southern Islands (HD 7000).
    Si,
}

impl From<TargetFamily> for Family {
    fn from(family: TargetFamily) -> Family {
        match family {
            TargetFamily::Evergreen => Family::Evergreen,
            TargetFamily::Cayman => Family::Cayman,
            TargetFamily::Si => Family::Si,
        }
    }
}

fn parse_spec(text: &str) -> Result<(u32, String), String> {
    let (id, value) = text.split_once('=').ok_or("expected ID=VALUE")?;
    let id = id
        .trim()
        .parse::<u32>()
        .map_err(|_| format!("`{id}` is not a SpecId"))?;
    Ok((id, value.trim().to_string()))
}

/// A failure to report: one line, then exit status 1.
struct Failure(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Dis { file }) => disassemble(&file),
        Some(Command::Validate { files, target_env }) => validate(&files, target_env.as_deref()),
        Some(Command::Cfg {
            file,
            function,
            dot,
            ignore_merges,
        }) => print_cfg(&file, function.as_deref(), dot, ignore_merges),
        Some(Command::IlDis { file, output }) => il_dis(&file, output.as_deref()),
        Some(Command::IlAs { file, output }) => il_as(&file, output.as_deref()),
        None => translate(cli.translate),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            report(format_args!("spv2il: {message}"));
            ExitCode::from(1)
        }
    }
}

/// Writes one message line to standard error. A failed write is ignored rather than a panic
/// (as `eprintln!` would): with standard error closed or its disk full there is nowhere left
/// to report to, and the exit code still tells the failure.
fn report(message: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}

fn translate(args: TranslateArgs) -> Result<(), Failure> {
    let Some(input) = args.input else {
        report(format_args!("spv2il: no input file (try `spv2il --help`)"));
        std::process::exit(2);
    };
    let bytes = read_input(&input)?;
    let mut options = Options::new(args.target.into());
    options.entry = args.entry;
    for (id, value) in args.specs {
        options.spec_overrides.push((id, value));
    }
    let translation = spv2il::translate(&bytes, &options)
        .map_err(|e| Failure(format!("{}: {e}", input.display())))?;
    let out = match args.emit {
        Emit::Text => translation.text().into_bytes(),
        Emit::Binary => translation.token_bytes(),
    };
    if let Some(path) = &args.reflect {
        let json = translation.reflection.to_json() + "\n";
        std::fs::write(path, json)
            .map_err(|e| Failure(format!("{}: cannot write: {e}", path.display())))?;
    }
    write_output(args.output.as_deref(), &out)
}

fn disassemble(file: &Path) -> Result<(), Failure> {
    let module = read_module(file)?;
    write_output(None, spv_reader::disassemble(&module).as_bytes())
}

fn read_module(file: &Path) -> Result<spv_reader::Module, Failure> {
    let bytes = read_input(file)?;
    spv_reader::read(&bytes).map_err(|e| {
        Failure(format!(
            "{}: not a readable SPIR-V module: {e}",
            file.display()
        ))
    })
}

fn validate(files: &[PathBuf], target_env: Option<&str>) -> Result<(), Failure> {
    let mut options = spv_validate::Options::default();
    if let Some(env) = target_env {
        options.target_env = env.parse().map_err(|e| {
            report(format_args!("spv2il: --target-env {env}: {e}"));
            std::process::exit(2)
        })?;
    }
    let mut invalid = 0;
    for file in files {
        let module = match read_module(file) {
            Ok(module) => module,
            Err(Failure(message)) => {
                report(format_args!("spv2il: {message}"));
                invalid += 1;
                continue;
            }
        };
        if let Err(diagnostics) = spv_validate::validate(&module, &options) {
            report(format_args!("{}:\n{diagnostics}", file.display()));
            invalid += 1;
        }
    }
    if invalid == 0 {
        Ok(())
    } else {
        Err(Failure(format!(
            "{invalid} of {} modules are invalid",
            files.len()
        )))
    }
}

fn print_cfg(
    file: &Path,
    only: Option<&str>,
    dot: bool,
    ignore_merges: bool,
) -> Result<(), Failure> {
    let module = read_module(file)?;
    let strategy = if ignore_merges {
        spv_cfg::Strategy::General
    } else {
        spv_cfg::Strategy::Merges
    };
    let mut out = String::new();
    let mut printed = 0;
    for function in module.functions().iter().filter(|f| !f.blocks.is_empty()) {
        let name = module.name(function.id).unwrap_or_default();
        if only.is_some_and(|wanted| wanted != name && wanted != function.id.to_string()) {
            continue;
        }
        let located = |e: spv_cfg::CfgError| {
            Failure(format!("{}: function {}: {e}", file.display(), function.id))
        };
        let cfg = spv_cfg::Cfg::from_function(&module, function).map_err(located)?;
        let analysis = spv_cfg::Analysis::new(&cfg).map_err(located)?;
        printed += 1;
        if dot {
            out.push_str(&spv_cfg::to_dot(&cfg, &analysis));
        } else {
            let structured = spv_cfg::structurize(&cfg, strategy).map_err(located)?;
            out.push_str(&format!("function {} {name}\n", function.id));
            out.push_str(&spv_cfg::to_text(&cfg, &analysis, &structured));
        }
    }
    if printed == 0 {
        return Err(Failure(format!("{}: no function matches", file.display())));
    }
    write_output(None, out.as_bytes())
}

fn il_dis(file: &Path, output: Option<&Path>) -> Result<(), Failure> {
    let bytes = read_input(file)?;
    let tokens = il_reader::bytes_to_tokens(&bytes).ok_or_else(|| {
        Failure(format!(
            "{}: not IL tokens: the length is not a multiple of 4",
            file.display()
        ))
    })?;
    let program = il_reader::decode_tokens(&tokens)
        .map_err(|e| Failure(format!("{}: {e}", file.display())))?;
    write_output(output, il_writer::to_text(&program).as_bytes())
}

fn il_as(file: &Path, output: Option<&Path>) -> Result<(), Failure> {
    let bytes = read_input(file)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure(format!("{}: IL text must be UTF-8", file.display())))?;
    let program =
        il_reader::parse_text(&text).map_err(|e| Failure(format!("{}: {e}", file.display())))?;
    write_output(
        output,
        &il_writer::tokens_to_bytes(&il_writer::to_tokens(&program)),
    )
}

/// Reads a whole file, or standard input for `-`.
fn read_input(path: &Path) -> Result<Vec<u8>, Failure> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Failure(format!("standard input: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(path).map_err(|e| Failure(format!("{}: cannot read: {e}", path.display())))
}

/// Writes to a file, or to standard output when `path` is `-` or absent.
fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    match path {
        Some(path) if path != Path::new("-") => std::fs::write(path, bytes)
            .map_err(|e| Failure(format!("{}: cannot write: {e}", path.display()))),
        _ => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(bytes)
                .and_then(|()| stdout.flush())
                .map_err(|e| Failure(format!("standard output: {e}")))
        }
    }
}
