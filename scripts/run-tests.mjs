// Runs every test file under test/ with node:test through tsx. Node 20's runner has no globs,
// so the file list is built here; the summary line is printed last so CI can read it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

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

const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-tests-"));
const summaryFile = path.join(runDir, "summary.txt");
// Reliability tests append what they tried and observed here (test/helpers/reliability-counts.ts).
const countsFile = path.join(runDir, "reliability-counts.jsonl");
// The whole suite takes 2-5 minutes on 2 cores (and .ci/run runs it twice); past this something hangs, and saying so beats
// CI's own timeout, which prints nothing about where.
const suiteTimeoutMs = Number(process.env.MEMDIR_SUITE_TIMEOUT_MS ?? 30 * 60_000);
const result = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    // So that no test's verdict is lost on the way to this process (see the file).
    "--import",
    pathToFileURL(path.join(root, "scripts/flush-test-reports.mjs")).href,
    "--test",
    `--test-concurrency=${process.env.MEMDIR_TEST_CONCURRENCY ?? "2"}`,
    // A handle left open (a server whose close hook never ran because an earlier hook threw) kept
    // a test file's process alive and the whole CI run waited 90 minutes on it: end each file when
    // its tests are done, and fail a single test that hangs instead of waiting forever (15 min:
    // above the Claude Code install's own 10 min bound, test/helpers/claude-code.ts).
    "--test-force-exit",
    `--test-timeout=${process.env.MEMDIR_TEST_TIMEOUT_MS ?? "900000"}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${path.join(root, "scripts/summary-reporter.mjs")}`,
    // A real file: Node 24 fsyncs a reporter destination on close, which /dev/null refuses (EINVAL).
    `--test-reporter-destination=${summaryFile}.stream`,
    ...files,
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      NO_COLOR: "1",
      MEMDIR_TEST_BUILD: build,
      MEMDIR_RELIABILITY_COUNTS: countsFile,
      MEMDIR_TEST_SUMMARY: summaryFile,
    },
    timeout: suiteTimeoutMs,
    killSignal: "SIGTERM",
  },
);
if (result.error)
  console.error(
    `run-tests: the suite did not finish within ${suiteTimeoutMs / 60_000} minutes: ${result.error.message}`,
  );
if (files.some((f) => f.split(path.sep).includes("reliability"))) {
  for (const line of reliabilityLines(countsFile)) console.log(line);
}
const summary = fs.existsSync(summaryFile) ? fs.readFileSync(summaryFile, "utf8").trimEnd() : "";
if (!summary || result.error) console.log("0 passed, 1 failed, 0 skipped");
else if (result.status !== 0 && / 0 failed,/.test(summary))
  // The runner failed without a failed test (a file that crashed outside any test): never print
  // a clean summary then.
  console.log(summary.replace(/ 0 failed,/, " 1 failed,"));
else console.log(summary);
process.exit(result.error ? 1 : (result.status ?? 1));

/**
 * One line per reliability family, summed from the counts the tests recorded: what was tried and
 * how many escapes, losses and hangs were observed (docs/design.md#long-input; the reliability suite's summary).
 */
function reliabilityLines(file) {
  const families = [
    ["escapes", "escapes tried"],
    ["secrets", "secrets tried"],
    ["races", "races run"],
    ["faults", "faults injected"],
  ];
  const totals = new Map(families.map(([family]) => [family, { tried: 0, escapes: 0, losses: 0, hangs: 0 }]));
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const counts = JSON.parse(line);
    const total = totals.get(counts.family);
    if (!total) continue;
    for (const key of ["tried", "escapes", "losses", "hangs"]) total[key] += Number(counts[key]) || 0;
  }
  return families.map(([family, label]) => {
    const t = totals.get(family);
    return `reliability: ${label}: ${t.tried} — ${t.escapes} escapes, ${t.losses} losses, ${t.hangs} hangs`;
  });
}
