// Which Rust builds the package's WebAssembly module (build.mjs): the first of these whose rustc
// has the standard library for wasm32-unknown-unknown (its sysroot holds
// lib/rustlib/wasm32-unknown-unknown):
//
//   1. OVERBRAINER_WASM_CARGO, when set: that cargo and the rustc beside it (else the PATH's);
//      it is used or the build fails, never passed over;
//   2. the cargo on the PATH (rustup's ~/.cargo/bin, say) and the rustc beside it;
//   3. Debian's, /usr/bin/cargo and /usr/bin/rustc (the wasm32 std is libstd-rust-dev-wasm32).
//
// The crates come from the machine's cargo configuration (~/.cargo/config.toml), whatever Rust
// is chosen. Each rustc is asked from the folder the module is built in, so that a rustup
// override there is the toolchain asked.

import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

export const TARGET = "wasm32-unknown-unknown";

/** What to do when no Rust has the target, one way a line. */
export const REMEDY = [
  [`rustup target add ${TARGET}`, "rustup's Rust"],
  ["apt-get install rustc cargo libstd-rust-dev-wasm32", "Debian's Rust 1.63; core/debian-crates.sh installs it"],
  ["OVERBRAINER_WASM_CARGO=/path/to/cargo", "a cargo whose rustc has the target"],
]
  .map(([command, what]) => `  ${command.padEnd(52)} (${what})`)
  .join("\n");

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first `name` on `path` (a PATH string) that can be run, or null. */
export function onPath(name, path) {
  for (const folder of (path ?? "").split(delimiter)) {
    if (folder !== "" && executable(join(folder, name))) return join(folder, name);
  }
  return null;
}

/** A candidate judged: {cargo, rustc, version, sysroot, ok, why}. */
function judge(cargo, env, cwd) {
  if (!executable(cargo)) return { cargo, ok: false, why: "not there" };
  const beside = join(dirname(cargo), "rustc");
  const rustc = executable(beside) ? beside : onPath("rustc", env.PATH);
  if (rustc === null) return { cargo, ok: false, why: "no rustc beside it nor on the PATH" };
  const ask = (...args) => execFileSync(rustc, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  let version;
  let sysroot;
  try {
    version = ask("--version");
    sysroot = ask("--print", "sysroot");
  } catch (error) {
    const said = String(error.stderr ?? error.message).trim().split("\n")[0];
    return { cargo, rustc, ok: false, why: `${rustc} did not run: ${said}` };
  }
  const std = join(sysroot, "lib", "rustlib", TARGET);
  if (!existsSync(std)) return { cargo, rustc, version, sysroot, ok: false, why: `${version}: no ${std}` };
  return { cargo, rustc, version, sysroot, ok: true, why: `${version}, ${std}` };
}

/**
 * The cargo and rustc that build the module for wasm32-unknown-unknown, and why that one:
 * `{cargo, rustc, version, sysroot, source}` (`source`: "OVERBRAINER_WASM_CARGO", "PATH" or
 * "Debian"). Throws an `Error` naming each Rust tried and each way to get one with the target.
 *
 * `env` (default `process.env`) gives OVERBRAINER_WASM_CARGO and PATH; `debian` is the folder of
 * Debian's cargo and rustc (default /usr/bin); `cwd` is where rustc is asked.
 */
export function findCargo({ env = process.env, debian = "/usr/bin", cwd = process.cwd() } = {}) {
  const named = env.OVERBRAINER_WASM_CARGO;
  if (named !== undefined && named !== "") {
    const found = judge(named, env, cwd);
    if (found.ok) return { ...found, source: "OVERBRAINER_WASM_CARGO" };
    throw new Error(
      `OVERBRAINER_WASM_CARGO=${named} cannot build for ${TARGET}: ${found.why}\n` +
        `Give its Rust the target, or name another cargo (or unset it to look on the PATH):\n${REMEDY}`,
    );
  }
  const tried = [];
  const candidates = [];
  const pathCargo = onPath("cargo", env.PATH);
  if (pathCargo !== null) candidates.push(["PATH", `the cargo on the PATH (${pathCargo})`, pathCargo]);
  else tried.push("  the PATH: no cargo");
  const debianCargo = join(debian, "cargo");
  if (pathCargo !== debianCargo) candidates.push(["Debian", `Debian's ${debianCargo}`, debianCargo]);
  for (const [source, label, cargo] of candidates) {
    const found = source === "Debian" ? judgeDebian(debian, env, cwd) : judge(cargo, env, cwd);
    if (found.ok) return { ...found, source };
    tried.push(`  ${label}: ${found.why}`);
  }
  throw new Error(`no Rust here can build for ${TARGET}:\n${tried.join("\n")}\nTo get one:\n${REMEDY}`);
}

/** Debian's cargo with Debian's rustc beside it, never another rustc off the PATH. */
function judgeDebian(debian, env, cwd) {
  const cargo = join(debian, "cargo");
  if (!executable(cargo)) return { cargo, ok: false, why: "not installed" };
  if (!executable(join(debian, "rustc"))) return { cargo, ok: false, why: `no ${join(debian, "rustc")}` };
  return judge(cargo, env, cwd);
}
