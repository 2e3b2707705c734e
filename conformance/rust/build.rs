//! Brings the reference module into the build: `OVERBRAINER_METRICS_RS` names it
//! (default: `../shared/reference/metrics.rs` beside the project). It is copied into
//! `OUT_DIR` with the plugin file its `include_str!` names, its inner doc comments
//! made plain comments (`include!` takes items, not a module's inner attributes),
//! and its `#[cfg(test)]` module kept as is.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let project = crate_dir.join("../..");
    let module = env::var_os("OVERBRAINER_METRICS_RS")
        .map(PathBuf::from)
        .unwrap_or_else(|| project.join("../shared/reference/metrics.rs"));
    let plugin = project.join("python/overbrainer_contract/plugin/overbrainer_metrics.py");
    println!("cargo:rerun-if-env-changed=OVERBRAINER_METRICS_RS");
    println!("cargo:rerun-if-changed={}", module.display());
    println!("cargo:rerun-if-changed={}", plugin.display());

    let source = fs::read_to_string(&module)
        .unwrap_or_else(|e| panic!("cannot read the reference module {}: {e}", module.display()));
    let items: String = source
        .lines()
        .map(|line| match line.trim_start().strip_prefix("//!") {
            Some(rest) => format!("//{rest}\n"),
            None => format!("{line}\n"),
        })
        .collect();
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets it"));
    fs::write(out.join("metrics.rs"), items).expect("OUT_DIR is writable");
    fs::copy(&plugin, out.join("overbrainer_metrics.py"))
        .unwrap_or_else(|e| panic!("cannot copy the plugin {}: {e}", plugin.display()));
    println!(
        "cargo:rustc-env=OVERBRAINER_METRICS_SOURCE={}",
        module.display()
    );
}
