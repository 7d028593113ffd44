// Runs every test file under test/ with node:test through tsx. Node 20's runner has no globs,
// so the file list is built here; the summary line is printed last so CI can read it.
// The files run in two tiers (scripts/test-tiers.mjs): the fast tier first, then the slow one, and
// the one closing line counts both. `--tier fast` runs the fast tier alone, without the build its
// tests never start (typecheck with `npm run typecheck`); `--tier slow` the rest.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { tierOf } from "./test-tiers.mjs";

const args = process.argv.slice(2);
const valueOf = (flag) => (args.indexOf(flag) >= 0 ? args[args.indexOf(flag) + 1] : undefined);
const only = valueOf("--only");
const tier = valueOf("--tier");
if (tier !== undefined && tier !== "fast" && tier !== "slow") {
  console.error(`run-tests: --tier takes fast or slow, not ${tier}`);
  process.exit(2);
}
const filters = args.filter((a, i) => !a.startsWith("--") && !["--only", "--tier"].includes(args[i - 1]));

const root = path.resolve(import.meta.dirname, "..");
const files = fs
  .readdirSync(path.join(root, "test"), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".test.ts"))
  .filter((f) => !only || f.split(path.sep).includes(only))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => !tier || tierOf(f) === tier)
  .sort();

if (files.length === 0) {
  console.error("run-tests: no test files matched");
  process.exit(1);
}
// The real agents' files start first: they are the slow tier's longest (10-45 s each), and a
// tier that starts one of them last ends waiting on it alone.
const agentsFirst = (a, b) =>
  Number(!a.startsWith(`integration${path.sep}`)) - Number(!b.startsWith(`integration${path.sep}`));
const tiers = ["fast", "slow"]
  .map((name) => ({
    name,
    files: files
      .filter((f) => tierOf(f) === name)
      .sort(agentsFirst)
      .map((f) => path.join("test", f)),
  }))
  .filter((t) => t.files.length > 0);

// Compile everything once so that the many child processes the tests start (the CLI, writers
// killed mid-write, the MCP server) run plain JavaScript instead of paying tsx's start-up each
// time (test/helpers/node-entry.ts). This also typechecks the tests.
const build = path.join(root, ".tmp", "test-build");
const needsBuild = tier !== "fast";
if (needsBuild) compileTests();

function compileTests() {
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
  // The package ships docs/ beside dist/, and messages name its pages by their installed path
  // (src/hosts/shared/json-config.ts): the build has them in the same place.
  fs.symlinkSync(path.join(root, "docs"), path.join(build, "docs"));
}

// The tests' temp folders (os.tmpdir() in every test process) go to RAM when the machine has one
// to spare: on this project's 2-core VMs creating and renaming files on disk is mostly system CPU
// (a sync test file: 13-16 s of it on disk, 8-9 s on tmpfs; the whole suite 6 m 59 s → 6 m 23 s,
// docs/benchmarks.md#the-test-suite). The disk folder stays known
// as MEMDIR_TEST_DISK_TMPDIR for agents that cannot see /dev/shm (Codex's sandbox mounts a
// fresh /dev). MEMDIR_TEST_TMPDIR names another folder, or "" keeps the system's.
const diskTmp = os.tmpdir();
const scratch = scratchTmp();
const runDir = fs.mkdtempSync(path.join(scratch ?? diskTmp, "memdir-tests-"));
// Reliability tests append what they tried and observed here (test/helpers/reliability-counts.ts).
const countsFile = path.join(runDir, "reliability-counts.jsonl");
// The whole suite takes 5-6 minutes on an idle 2-core box, more on a busy one (and .ci/run runs it twice); past this something hangs, and saying so beats
// CI's own timeout, which prints nothing about where. The bound is for both tiers together.
const suiteTimeoutMs = Number(process.env.MEMDIR_SUITE_TIMEOUT_MS ?? 30 * 60_000);
const suiteStart = Date.now();
const outcomes = [];
for (const { name, files: tierFiles } of tiers) {
  if (tiers.length > 1) console.log(`run-tests: the ${name} tier, ${tierFiles.length} files`);
  outcomes.push(runTier(name, tierFiles, Math.max(1, suiteTimeoutMs - (Date.now() - suiteStart))));
}
if (files.some((f) => f.split(path.sep).includes("reliability"))) {
  for (const line of reliabilityLines(countsFile)) console.log(line);
}
// One closing line for all tiers: the failed tests of each, then the summed counts.
const failures = outcomes.flatMap((o) => o.failures);
const total = { passed: 0, failed: 0, skipped: 0 };
for (const o of outcomes) for (const key of Object.keys(total)) total[key] += o.counts[key];
if (failures.length > 0) console.log(`failed tests:\n${failures.join("\n")}`);
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
const broken = outcomes.find((o) => o.error) ?? outcomes.find((o) => o.status !== 0);
// A process a test left behind may still be writing there: what it leaves, the next run removes.
if (scratch) {
  try {
    fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
  } catch {}
}
process.exit(broken ? (broken.error ? 1 : (broken.status ?? 1)) : 0);

/**
 * Runs one tier's files in one node:test run and reads its summary back: the counts, the failed
 * tests' lines, and the run's status. A run that timed out, printed no summary, or failed without
 * a failed test (a file that crashed outside any test) counts one failure more, so a broken run
 * never prints a clean line.
 */
function runTier(name, tierFiles, timeoutMs) {
  const summaryFile = path.join(runDir, `summary-${name}.txt`);
  // Two fast shards for two cores: the fast tier keeps both busy. Three slow files at once: a slow
  // file waits on the processes it starts (agents, git, the helper), and a third file fills those
  // waits; back to back on a 2-core box the slow tier took 306 s at three against 327 s at two, the same
  // 2,268 tests passing (docs/benchmarks.md#the-test-suite).
  const concurrency = Number(process.env.MEMDIR_TEST_CONCURRENCY ?? (name === "fast" ? "2" : "3"));
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      // So that no test's verdict is lost on the way to this process (see the file).
      "--import",
      pathToFileURL(path.join(root, "scripts/flush-test-reports.mjs")).href,
      "--test",
      `--test-concurrency=${concurrency}`,
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
      ...(name === "fast" ? shards(tierFiles, concurrency) : tierFiles),
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        NO_COLOR: "1",
        ...(scratch ? { TMPDIR: scratch, MEMDIR_TEST_DISK_TMPDIR: diskTmp } : {}),
        ...(needsBuild ? { MEMDIR_TEST_BUILD: build } : {}),
        MEMDIR_RELIABILITY_COUNTS: countsFile,
        MEMDIR_TEST_SUMMARY: summaryFile,
      },
      timeout: timeoutMs,
      killSignal: "SIGTERM",
    },
  );
  if (result.error)
    console.error(
      `run-tests: the suite did not finish within ${suiteTimeoutMs / 60_000} minutes: ${result.error.message}`,
    );
  const summary = fs.existsSync(summaryFile) ? fs.readFileSync(summaryFile, "utf8").trimEnd() : "";
  const last = /^(\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(summary.split("\n").at(-1) ?? "");
  const counts = last
    ? { passed: Number(last[1]), failed: Number(last[2]), skipped: Number(last[3]) }
    : { passed: 0, failed: 0, skipped: 0 };
  const failures = summary.split("\n").filter((line) => line.startsWith("  - "));
  if (!last || result.error || (result.status !== 0 && counts.failed === 0)) {
    counts.failed++;
    failures.push(`  - the ${name} tier's run ${result.error ? "timed out" : "failed outside any test"}`);
  }
  return { counts, failures, status: result.status, error: result.error };
}

/**
 * The fast tier's files in as many processes as run at once, each importing its share: a fast file
 * starts no process and touches no process-wide state (test/scripts/test-tiers.test.ts keeps both
 * so), and loading the sources through tsx once per process instead of once per file halved the
 * tier's time on 2 idle cores (1,170 tests: 112 s one process per file, 53 s in two). Files are
 * dealt in turn, so each process gets a mix of the folders; a fast file has no top-level await,
 * so nothing runs before every file of its shard has declared its tests.
 */
function shards(tierFiles, count) {
  const groups = Array.from({ length: Math.max(1, Math.min(count, tierFiles.length)) }, () => []);
  for (const [i, file] of tierFiles.entries()) groups[i % groups.length].push(file);
  return groups.map((group, i) => {
    const shard = path.join(runDir, `fast-${i + 1}.mjs`);
    // Static imports: the whole graph is evaluated before any test runs. With `await import()`
    // one at a time, --test-force-exit ended a shard as soon as the files imported so far had
    // finished, and half the tier went unrun and uncounted (Node 20).
    const imports = group.map(
      (file) => `import ${JSON.stringify(pathToFileURL(path.join(root, file)).href)};`,
    );
    fs.writeFileSync(shard, `${imports.join("\n")}\n`);
    return shard;
  });
}

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

/**
 * A fresh folder for this run's temp files on the RAM file system at /dev/shm, or null to use the
 * system's (no /dev/shm, not writable, under 2 GB free, or MEMDIR_TEST_TMPDIR=""). Folders an
 * earlier run left there (killed before it could remove its own) are removed once their process
 * is gone: each is named after the pid of the run that made it.
 */
function scratchTmp() {
  const chosen = process.env.MEMDIR_TEST_TMPDIR;
  if (chosen !== undefined)
    return chosen === "" ? null : fs.mkdtempSync(path.join(chosen, "memdir-tests-run-"));
  const ram = "/dev/shm";
  try {
    if (!fs.statSync(ram).isDirectory()) return null;
    fs.accessSync(ram, fs.constants.W_OK);
    const space = fs.statfsSync(ram);
    if (space.bavail * space.bsize < 2 * 1024 ** 3) return null;
  } catch {
    return null;
  }
  for (const name of fs.readdirSync(ram)) {
    const pid = /^memdir-tests-(\d+)-/.exec(name)?.[1];
    if (pid && !alive(Number(pid))) fs.rmSync(path.join(ram, name), { recursive: true, force: true });
  }
  return fs.mkdtempSync(path.join(ram, `memdir-tests-${process.pid}-`));
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}
