// The page writes numbers as the command line does: held to Python's own format() on many
// doubles (python3 formats them; the doubles travel as their shortest round-trip text).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { it } from "node:test";
import { formatDuration, formatG, percent, thousands } from "../src/format.js";

const PYTHON = process.env.PYTHON || "python3";

function doubles() {
  const out = [0, -0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 1e16, 1e-5, 0.0001, 99999.5, 9.9995, 0.9995,
    5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 2 ** 53, 2 ** 53 + 2, 1234.5, 0.00125];
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < 3000; i += 1) {
    const magnitude = Math.floor(next() * 40) - 20;
    const value = next() * 10 ** magnitude;
    out.push(i % 7 === 0 ? -value : value);
    out.push(Math.round(next() * 2000) / 16); // exact binary fractions: ties at every precision
  }
  return out;
}

it("formats as Python's .4g, .3g, .0% and round() do, ties to even", () => {
  const values = doubles();
  const script = [
    "import sys, json",
    "values = [float(v) for v in json.load(sys.stdin)]",
    "def clock(s):",
    "    w = round(s); h, r = divmod(w, 3600); m, s2 = divmod(r, 60); return f'{h}:{m:02}:{s2:02}'",
    "rows = [[f'{v:.4g}', f'{v:.3g}', f'{min(abs(v), 1.0):.0%}', clock(abs(v)) if abs(v) < 1e15 else None] for v in values]",
    "json.dump(rows, sys.stdout)",
  ].join("\n");
  const text = JSON.stringify(values.map((value) => (Object.is(value, -0) ? "-0.0" : String(value))));
  const want = JSON.parse(execFileSync(PYTHON, ["-c", script], { input: text }).toString());
  values.forEach((value, at) => {
    const [g4, g3, share, clock] = want[at];
    assert.equal(formatG(value, 4), g4, `${value}:.4g`);
    assert.equal(formatG(value, 3), g3, `${value}:.3g`);
    assert.equal(percent(Math.min(Math.abs(value), 1.0)), share, `${value}:.0%`);
    if (clock !== null) assert.equal(formatDuration(Math.abs(value)), clock, `format_duration(${value})`);
  });
});

it("groups digits as Python's {:,} does, bigints too", () => {
  assert.equal(thousands(0), "0");
  assert.equal(thousands(999), "999");
  assert.equal(thousands(1000), "1,000");
  assert.equal(thousands(1_000_000), "1,000,000");
  assert.equal(thousands(18446744073709551615n), "18,446,744,073,709,551,615");
});
