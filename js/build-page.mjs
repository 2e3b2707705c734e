#!/usr/bin/env node
// The run viewer's page built from a checkout, every step of it: the npm package (its pinned
// modules by `npm ci`; its glue and WebAssembly by build.mjs, whose cargo find-cargo.mjs
// finds) and the page (js/viewer/: `npm ci`, then its build.mjs) into js/viewer/dist/viewer.html,
// and with `--out FILE` into FILE too, put in place at once. The one way the page is built:
// `pip install` of a checkout (setup.py, for `serve`) and nox (noxfile.py) both run it.
//
//   node js/build-page.mjs [--out FILE]

import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf("--out");
const out = at >= 0 ? resolve(process.argv[at + 1] ?? "") : null;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const steps = [
  [HERE, npm, ["ci", "--no-audit", "--no-fund"]],
  [HERE, process.execPath, ["build.mjs"]],
  [join(HERE, "viewer"), npm, ["ci", "--no-audit", "--no-fund"]],
  [join(HERE, "viewer"), process.execPath, ["build.mjs", ...(out === null ? [] : ["--also", out])]],
];
for (const [folder, command, args] of steps) {
  const shown = `${command === process.execPath ? "node" : "npm"} ${args.join(" ")}`;
  console.log(`viewer page: ${shown} (in ${folder})`);
  const done = spawnSync(command, args, { cwd: folder, stdio: "inherit" });
  if (done.status !== 0) {
    console.error(`the viewer page's build failed at \`${shown}\` in ${folder} (its own words above)`);
    process.exit(1);
  }
}
