import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { parseIndex } from "../../src/memdir/format/index-file.ts";
import { runCli } from "../helpers/cli.ts";
import { nodeArgsFor } from "../helpers/node-entry.ts";
import { seededRandom, TEST_SEED_ENV, testSeed } from "../helpers/random.ts";
import { counted } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const writer = path.join(import.meta.dirname, "workers/crash-writer.ts");
// Two lanes (one per core) of 25 kills each: 50 kills, each a fresh process (start-up dominates).
const LANES = 2;
const TRIALS_PER_LANE = 25;

/**
 * Starts the writer, waits for its first save, lets it save for a moment drawn from `random` (at
 * most 40 ms), SIGKILLs it. The delays come from the run's seed, so a failing run's sequence of
 * delays can be replayed (the kill's exact point still depends on the scheduler).
 */
async function killMidWrite(memoryDir: string, lane: number, random: () => number): Promise<void> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgsFor(writer), memoryDir, String(lane)], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      if (d.includes("ready")) resolve();
    });
    exited.then((code) => reject(new Error(`writer exited ${code} before the kill: ${stderr}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, random() * 40));
  child.kill("SIGKILL");
  await exited;
  assert.equal(stderr, "", `the writer failed on its own: ${stderr}`);
}

/** Every memory file must be one whole version: frontmatter parses and the payload checksum holds. */
function checkFilesWhole(memoryDir: string, trial: string): void {
  const files = fs.readdirSync(memoryDir).filter((f) => f.endsWith(".md") && f !== "MEMORY.md");
  for (const file of files) {
    const text = fs.readFileSync(path.join(memoryDir, file), "utf8");
    const parsed = parseFrontmatter(text);
    assert.deepEqual(parsed.issues, [], `${trial}: ${file} lost its frontmatter (partial write?)`);
    const match = /^([\s\S]*)\nsha256: ([0-9a-f]{64})\n$/.exec(parsed.body);
    assert.ok(match, `${trial}: ${file} is cut short (${text.length} bytes, no checksum line at the end)`);
    const actual = createHash("sha256").update(match[1]).digest("hex");
    assert.equal(actual, match[2], `${trial}: ${file} mixes two versions (checksum mismatch)`);
  }
  const index = fs.existsSync(path.join(memoryDir, "MEMORY.md"))
    ? fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8")
    : "";
  const lines = index.split("\n").filter((line) => line.trim() !== "");
  assert.equal(parseIndex(index).length, lines.length, `${trial}: MEMORY.md has a broken line:\n${index}`);
}

describe("a writer killed with SIGKILL mid-save", () => {
  it("leaves every file whole (old or new version), a parseable index, and doctor --fix makes it consistent", async (t) => {
    const seed = testSeed();
    t.diagnostic(`kill delays from seed ${seed}; replay with ${TEST_SEED_ENV}=${seed}`);
    const base = makeTempDir();
    await Promise.all(
      Array.from({ length: LANES }, async (_, lane) => {
        const memoryDir = path.join(base, `lane-${lane}`, "memory");
        fs.mkdirSync(memoryDir, { recursive: true });
        // One stream per lane: a shared one would hand out its delays in whatever order the lanes ran.
        const random = seededRandom(seed + lane);
        for (let trial = 0; trial < TRIALS_PER_LANE; trial++) {
          await killMidWrite(memoryDir, lane, random);
          await counted(
            "faults",
            () => checkFilesWhole(memoryDir, `seed ${seed} lane ${lane} trial ${trial}`),
            "losses",
          );
        }
        const fix = await runCli(["doctor", "--fix", "--dir", memoryDir], { home: base, cwd: repo });
        assert.equal(fix.stderr, "", fix.stderr);
        const after = await runCli(["doctor", "--json", "--dir", memoryDir], { home: base, cwd: repo });
        assert.deepEqual(JSON.parse(after.stdout), { issues: [] }, `lane ${lane}: doctor --fix left issues`);
        assert.equal(after.code, 0);
        const indexed = new Set(
          parseIndex(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8")).map((e) => e.file),
        );
        const files = fs.readdirSync(memoryDir).filter((f) => f.endsWith(".md") && f !== "MEMORY.md");
        const unindexed = files.filter((f) => !indexed.has(f));
        assert.deepEqual(unindexed, [], `lane ${lane}: memories missing from the index after --fix`);
      }),
    );
  });
});
