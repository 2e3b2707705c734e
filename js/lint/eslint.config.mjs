// ESLint's flat config for the repository's JavaScript and TypeScript: the npm package's
// sources (js/src/*.ts) and tests (js/test), its scripts (js/*.mjs), the viewer's page modules
// (js/viewer/src, run in a browser), its tests and scripts (js/viewer/test, js/viewer/*.mjs).
//
// It lives in js/lint/, a package of its own with its own lock, because typescript-eslint
// parses TypeScript through TypeScript's compiler API, which TypeScript 7 (the one js/ builds
// with) does not export: js/lint brings TypeScript 6.0 for the parser alone. Its patterns are
// relative to js/ whatever the working directory (pre-commit runs from the repository's root,
// `npm run lint` from js/):
//
//   js/lint/node_modules/.bin/eslint --config js/lint/eslint.config.mjs js/   (after `npm ci` in js/lint)

import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));

const node = { ...globals.node };
const browser = { ...globals.browser };

// Beyond the recommended sets: rules that catch a mistake rather than a style.
const correctness = {
  eqeqeq: ["error", "smart"],
  "no-self-compare": "error",
  "no-throw-literal": "error",
  "array-callback-return": "error",
  "no-template-curly-in-string": "error",
  "no-unmodified-loop-condition": "error",
  "no-unreachable-loop": "error",
  "no-constructor-return": "error",
  "no-var": "error",
  "prefer-const": "error",
};

export default defineConfig(
  {
    basePath: PACKAGE,
    ignores: ["dist/", "types/", "viewer/dist/", "viewer/test-output/", "**/node_modules/"],
  },
  {
    basePath: PACKAGE,
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    basePath: PACKAGE,
    files: ["src/*.ts", "test/*.ts", "viewer/src/*.d.ts"],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: node },
  },
  {
    basePath: PACKAGE,
    files: ["*.mjs", "lint/*.mjs", "test/*.mjs", "viewer/build.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: node },
  },
  {
    basePath: PACKAGE,
    files: ["viewer/src/*.js"],
    extends: [js.configs.recommended],
    languageOptions: { globals: browser },
  },
  {
    // the viewer's tests and its screenshot run under node and hand functions to the page
    // (Playwright's page.evaluate, waitForFunction), which run there: both sets of names are theirs
    basePath: PACKAGE,
    files: ["viewer/test/*.mjs", "viewer/screenshot.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...node, ...browser } },
  },
  {
    basePath: PACKAGE,
    files: ["**/*.{ts,js,mjs}"],
    rules: correctness,
  },
);
