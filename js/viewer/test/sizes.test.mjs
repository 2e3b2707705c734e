// The size docs/viewer.md gives of the page ("one self-contained HTML file of about N MB"),
// held to js/viewer/dist/viewer.html as `node build.mjs` made it (within the slack of
// js/test/stated-size.mjs): a build that grows or shrinks the page past it fails here until
// the doc says the new size.
//
//   node --test test/sizes.test.mjs          (after `node build.mjs`)

import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { assertStated } from "../../test/stated-size.mjs";

const VIEWER = join(dirname(fileURLToPath(import.meta.url)), "..");

test("docs/viewer.md states the page's size as built", () => {
  assertStated(join(VIEWER, "..", "..", "docs", "viewer.md"), "one self-contained HTML file of", join(VIEWER, "dist", "viewer.html"));
});
