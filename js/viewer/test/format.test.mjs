// The page writes numbers as the command line does, by the core (the package's formatNumber,
// the WebAssembly module's): held to Python's own format() on many doubles (python3 formats
// them; the doubles travel as their shortest round-trip text).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { it } from "node:test";
import { formatNumber } from "../../dist/index.js";

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

it("formats as Python's .4g, .3g, .0% and .2f do, ties to even", () => {
  const values = doubles();
  const script = [
    "import sys, json",
    "values = [float(v) for v in json.load(sys.stdin)]",
    "rows = [[f'{v:.4g}', f'{v:.3g}', f'{min(abs(v), 1.0):.0%}', f'{v:.2f}' if abs(v) < 1e22 else None] for v in values]",
    "json.dump(rows, sys.stdout)",
  ].join("\n");
  const text = JSON.stringify(values.map((value) => (Object.is(value, -0) ? "-0.0" : String(value))));
  const want = JSON.parse(execFileSync(PYTHON, ["-c", script], { input: text }).toString());
  values.forEach((value, at) => {
    const [g4, g3, share, fixed] = want[at];
    assert.equal(formatNumber(value, ".4g"), g4, `${value}:.4g`);
    assert.equal(formatNumber(value, ".3g"), g3, `${value}:.3g`);
    assert.equal(formatNumber(Math.min(Math.abs(value), 1.0), ".0%"), share, `${value}:.0%`);
    if (fixed !== null) assert.equal(formatNumber(value, ".2f"), fixed, `${value}:.2f`);
  });
});

it("groups digits as Python's {:,} does, and refuses what it does not write", () => {
  assert.equal(formatNumber(0, ","), "0");
  assert.equal(formatNumber(999, ","), "999");
  assert.equal(formatNumber(1000, ","), "1,000");
  assert.equal(formatNumber(-1_000_000, ","), "-1,000,000");
  assert.equal(formatNumber(2 ** 53, ","), "9,007,199,254,740,992");
  assert.throws(() => formatNumber(1.5, ","), TypeError);
  assert.throws(() => formatNumber(1, "x"), TypeError);
});
