// The size js/README.md gives of the `.wasm` ("the `.wasm` (about N KB"), held to
// dist/overbrainer_core.wasm as `node build.mjs` made it (within test/stated-size.mjs's
// slack): a build that grows or shrinks the module past it fails here until the README says
// the new size.
//
//   node --test test/sizes.test.mjs          (after `node build.mjs`)

import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { assertStated } from "./stated-size.mjs";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..");

test("js/README.md states the .wasm's size as built", () => {
  assertStated(join(JS, "README.md"), "the `\\.wasm`", join(JS, "dist", "overbrainer_core.wasm"));
});
