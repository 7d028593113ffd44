// Runs every test file under test/ with node:test through tsx. Node 20's runner has no globs,
// so the file list is built here; the summary line is printed last so CI can read it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const onlyIndex = args.indexOf("--only");
const only = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;
const filters = args.filter((a, i) => !a.startsWith("--") && (onlyIndex < 0 || i !== onlyIndex + 1));

const root = path.resolve(import.meta.dirname, "..");
const files = fs
  .readdirSync(path.join(root, "test"), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".test.ts"))
  .filter((f) => !only || f.split(path.sep).includes(only))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
  .map((f) => path.join("test", f));

if (files.length === 0) {
  console.error("run-tests: no test files matched");
  process.exit(1);
}

// Compile everything once so that the many child processes the tests start (the CLI, writers
// killed mid-write, the MCP server) run plain JavaScript instead of paying tsx's start-up each
// time (test/helpers/node-entry.ts). This also typechecks the tests.
const build = path.join(root, ".tmp", "test-build");
fs.rmSync(build, { recursive: true, force: true });
const compile = spawnSync(
  process.execPath,
  [
    path.join(root, "node_modules/typescript/bin/tsc"),
    "-p",
    "tsconfig.json",
    "--outDir",
    build,
    "--noEmit",
    "false",
    "--declaration",
    "false",
    "--sourceMap",
    "false",
  ],
  { cwd: root, stdio: "inherit" },
);
if (compile.status !== 0) {
  console.log("0 passed, 1 failed, 0 skipped");
  console.error("run-tests: the TypeScript build failed (see above)");
  process.exit(1);
}

const summaryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "memdir-tests-")), "summary.txt");
const result = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    `--test-concurrency=${process.env.MEMDIR_TEST_CONCURRENCY ?? "2"}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${path.join(root, "scripts/summary-reporter.mjs")}`,
    `--test-reporter-destination=${summaryFile}`,
    ...files,
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, NO_COLOR: "1", MEMDIR_TEST_BUILD: build } },
);
const summary = fs.existsSync(summaryFile) ? fs.readFileSync(summaryFile, "utf8").trimEnd() : "";
if (summary) console.log(summary);
else console.log("0 passed, 1 failed, 0 skipped");
process.exit(result.status ?? 1);
