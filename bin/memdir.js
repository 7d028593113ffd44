#!/usr/bin/env node
// The CLI entry: runs the compiled sources (built by `npm run build`, which `npm ci` runs via `prepare`).
import "../dist/cli/compile-cache.js";
import { main, mustExitAfter } from "../dist/cli/main.js";

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // A hook has answered: exit even if its host never closes stdin.
    if (mustExitAfter(process.argv)) process.stdout.write("", () => process.exit(code));
  },
  (error) => {
    process.stderr.write(`memdir: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
