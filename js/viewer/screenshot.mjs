#!/usr/bin/env node
// The docs picture of the viewer (docs/viewer.md): dist/viewer.html (node build.mjs) in headless Chromium,
// the example runs opened as a folder, the first screen saved as docs/images/viewer.png.
//
//   node screenshot.mjs [--out FILE]     (CHROMIUM names the browser; default /usr/bin/chromium)

import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf("--out");
const OUT = at >= 0 ? resolve(process.argv[at + 1]) : resolve(HERE, "..", "..", "docs", "images", "viewer.png");

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true });
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 1010 } });
  await page.goto(pathToFileURL(join(HERE, "dist", "viewer.html")).href);
  await page.waitForSelector("body[data-ready=true]");
  await page.setInputFiles("#folder", resolve(HERE, "..", "..", "examples"));
  await page.waitForFunction(() => document.body.dataset.state === "idle" && document.querySelectorAll(".run").length === 3);
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: OUT });
  console.log(OUT);
} finally {
  await browser.close();
}
