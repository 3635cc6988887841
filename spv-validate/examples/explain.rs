//! Prints spv-validate's diagnostics for one module:
//! `cargo run -p spv-validate --example explain -- FILE [ENV]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).expect("readable file");
    let env = args
        .get(2)
        .map_or(Ok(spv_validate::TargetEnv::ModuleVersion), |e| e.parse())
        .expect("known environment");
    match spv_reader::read(&bytes) {
        Err(e) => println!("read error: {e}"),
        Ok(m) => match spv_validate::validate(&m, &spv_validate::Options::new(env)) {
            Ok(_) => println!("valid"),
            Err(d) => println!("{d}"),
        },
    }
}
