import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { parseIndex } from "../../src/memdir/format/index-file.ts";
import { startProcess } from "../helpers/cli.ts";
import { nodeArgsFor } from "../helpers/node-entry.ts";
import { recordReliability } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const saveMany = path.join(import.meta.dirname, "workers/save-many.ts");

interface WorkerResult {
  kept: string[];
  removed: string[];
}

async function runWorker(
  memoryDir: string,
  id: number,
  count: number,
  removeEvery = 0,
): Promise<WorkerResult> {
  const worker = startProcess(
    process.execPath,
    [...nodeArgsFor(saveMany), memoryDir, String(id), String(count), String(removeEvery)],
    { cwd: repo, env: { PATH: process.env.PATH ?? "" }, timeoutMs: 600_000 },
  );
  worker.child.stdin.end();
  const { code, stdout, stderr } = await worker.result;
  if (code !== 0) throw new Error(`worker ${id} exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as WorkerResult;
}

/** Runs `workers` processes at once and checks that every kept memory has its file and one index line. */
async function checkConcurrentSaves(workers: number, perWorker: number, removeEvery = 0) {
  const memoryDir = path.join(makeTempDir(), "memory");
  const results = await Promise.all(
    Array.from({ length: workers }, (_, id) => runWorker(memoryDir, id, perWorker, removeEvery)),
  );
  const kept = results.flatMap((r) => r.kept).sort();
  const removed = results.flatMap((r) => r.removed).sort();
  const onDisk = fs
    .readdirSync(memoryDir)
    .filter((f) => f.endsWith(".md") && f !== "MEMORY.md")
    .sort();
  const entries = parseIndex(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"));
  const indexed = entries.map((e) => e.file).sort();

  const lostFiles = kept.filter((f) => !onDisk.includes(f));
  const lostLines = kept.filter((f) => !indexed.includes(f));
  const zombies = removed.filter((f) => onDisk.includes(f) || indexed.includes(f));
  recordReliability("races", {
    tried: kept.length + removed.length,
    losses: lostFiles.length + lostLines.length + zombies.length,
  });
  assert.deepEqual(lostFiles, [], `memory files lost: ${lostFiles.join(", ")}`);
  assert.deepEqual(lostLines, [], `index lines lost: ${lostLines.join(", ")}`);
  assert.deepEqual(zombies, [], `removed memories still present: ${zombies.join(", ")}`);
  assert.equal(
    onDisk.length,
    kept.length,
    `unexpected extra files: ${onDisk.filter((f) => !kept.includes(f))}`,
  );
  assert.equal(entries.length, kept.length, "exactly one index line per memory");
  for (const file of onDisk) {
    const parsed = parseFrontmatter(fs.readFileSync(path.join(memoryDir, file), "utf8"));
    assert.deepEqual(parsed.issues, [], `${file} does not parse`);
  }
  const leftovers = fs.readdirSync(memoryDir).filter((f) => f.startsWith("."));
  assert.deepEqual(leftovers, [], "no lock or temp file left behind");
  return kept.length;
}

describe("concurrent writers (separate processes)", () => {
  it("8 processes adding 25 memories each leave 200 files and 200 index lines", async () => {
    assert.equal(await checkConcurrentSaves(8, 25), 200);
  });

  // 400 saves and 80 removes at once: the heavier run of the reliability suite.
  it("8 processes adding 50 each and removing every 5th keep exactly the 320 survivors", async () => {
    assert.equal(await checkConcurrentSaves(8, 50, 5), 320);
  });
});
