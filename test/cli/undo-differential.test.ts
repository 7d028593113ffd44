import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { main } from "../../src/cli/main.ts";
import { listHistory } from "../../src/dream/history.ts";
import type { HistoryBackendName, HistoryEntry } from "../../src/dream/history-types.ts";
import { seededRandom, TEST_SEED_ENV, testSeed } from "../helpers/random.ts";
import { makeTempDir } from "../helpers/temp.ts";

/**
 * Differential test of `memdir undo` (docs/design.md#undo): random sequences of add, add over an
 * existing memory, forget, rm, offline dream and undo (plain and by id), run through the real CLI
 * in-process, against a model of the directory — a Map of memory file → text and the index's
 * lines. After every step the files must equal the model byte for byte and the index line for line,
 * and every change must be exactly one history entry. The model states the rules plainly: an undo
 * puts back each file's text from before the entry, refuses when a later change touched one of
 * them, and in the index takes out the lines the entry added and puts the lines it removed back
 * after the line that preceded them.
 */

interface ModelState {
  files: Map<string, string>;
  index: string[];
}

interface ModelEntry {
  id: string;
  kind: string;
  before: ModelState;
  after: ModelState;
  undone: boolean;
}

const clone = (state: ModelState): ModelState => ({ files: new Map(state.files), index: [...state.index] });
const pointsAt = (line: string, file: string) => line.includes(`](${file})`);
const indexText = (lines: readonly string[]) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);

function readDisk(dir: string): ModelState {
  const files = new Map<string, string>();
  for (const name of fs.readdirSync(dir).sort())
    if (name.endsWith(".md") && name !== "MEMORY.md")
      files.set(name, fs.readFileSync(path.join(dir, name), "utf8"));
  const text = fs.existsSync(path.join(dir, "MEMORY.md"))
    ? fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8")
    : "";
  return { files, index: text === "" ? [] : text.replace(/\n$/, "").split("\n") };
}

/** The model's undo of `entry` on `state`: the new state, or the file / line that makes it refuse. */
function modelUndo(state: ModelState, entry: ModelEntry): ModelState | { refused: string } {
  const touched = new Set([...entry.before.files.keys(), ...entry.after.files.keys()]);
  const next = clone(state);
  for (const file of touched) {
    const before = entry.before.files.get(file);
    const after = entry.after.files.get(file);
    if (before === after) continue;
    if (state.files.get(file) !== after) return { refused: file };
    if (before === undefined) next.files.delete(file);
    else next.files.set(file, before);
  }
  const added = entry.after.index.filter((line) => !entry.before.index.includes(line));
  const removed = entry.before.index.filter((line) => !entry.after.index.includes(line));
  for (const line of added) if (!next.index.includes(line)) return { refused: "MEMORY.md" };
  for (const line of removed) {
    // In place of the line that replaced it (same memory), else after the line it followed.
    const replacement = added.find((other) => pointsAt(other, fileOf(line)));
    if (replacement) {
      next.index[next.index.indexOf(replacement)] = line;
      continue;
    }
    const earlier = entry.before.index.slice(0, entry.before.index.indexOf(line)).reverse();
    const anchor = earlier.find((candidate) => next.index.includes(candidate));
    next.index.splice(anchor === undefined ? 0 : next.index.indexOf(anchor) + 1, 0, line);
  }
  next.index = next.index.filter((line) => !added.includes(line) || removed.includes(line));
  return next;
}

const fileOf = (line: string) => /\]\(([^)]+)\)/.exec(line)?.[1] ?? "";

const WORDS = [
  "deploy",
  "friday",
  "database",
  "mock",
  "review",
  "migration",
  "cache",
  "login",
  "token",
  "retry",
];

async function runSequence(
  backend: HistoryBackendName,
  seed: number,
  steps: number,
): Promise<{ undone: number; refused: number; merged: number }> {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const home = makeTempDir();
  const dir = path.join(home, "memory");
  fs.mkdirSync(dir);
  if (backend === "journal") fs.mkdirSync(path.join(dir, ".history"));
  const cli = async (...args: string[]) => {
    let stdout = "";
    let stderr = "";
    const code = await main(["node", "memdir", ...args, "--dir", dir, "--json"], {
      io: {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        stdin: async () => "",
      },
      env: { HOME: home, PATH: process.env.PATH, MEMDIR_HELPER: "0" },
    });
    return { code, stdout, stderr };
  };
  let model: ModelState = { files: new Map(), index: [] };
  const entries: ModelEntry[] = [];
  let known = new Set<string>();
  const log: string[] = [];
  const tally = { undone: 0, refused: 0, merged: 0 };
  const fail = (message: string) =>
    `${message}\n(${TEST_SEED_ENV}=${seed}, ${backend}) steps:\n${log.join("\n")}`;

  /** The entries this step recorded: exactly `count`, none a snapshot (every change was recorded). */
  const newEntries = async (count: number): Promise<HistoryEntry[]> => {
    const fresh = (await listHistory(dir)).filter((entry) => !known.has(entry.id));
    known = new Set([...known, ...fresh.map((entry) => entry.id)]);
    assert.equal(fresh.length, count, fail(`expected ${count} new entries, got ${fresh.map((e) => e.kind)}`));
    return fresh;
  };
  const record = async (kind: string, before: ModelState) => {
    const [entry] = await newEntries(1);
    assert.equal(entry.kind, kind, fail("the entry's kind"));
    entries.push({ id: entry.id, kind, before, after: clone(model), undone: false });
  };

  for (let step = 0; step < steps; step++) {
    const files = [...model.files.keys()];
    const roll = random();
    const before = clone(model);
    if (roll < 0.3 || files.length === 0) {
      // add: a new memory (now and then a copy of another's text, for dream to merge), or over one.
      const over = files.length > 0 && random() < 0.3 ? pick(files) : undefined;
      const words = [pick(WORDS), pick(WORDS), pick(WORDS)].join(" ");
      const copyOf = files.length > 0 && random() < 0.3 ? pick(files) : undefined;
      const description = copyOf
        ? (/^description: (.*)$/m.exec(model.files.get(copyOf) ?? "")?.[1] ?? words)
        : words;
      const body = copyOf ? `${description}.` : `${words} ${step}.`;
      const file = over ?? `m${step}.md`;
      log.push(`${step}: add ${file}${over ? " (over)" : ""}: ${description}`);
      const result = await cli(
        "add",
        "--type",
        "project",
        "--description",
        description,
        "--file",
        file,
        body,
      );
      assert.equal(result.code, 0, fail(result.stderr));
      model.files.set(file, fs.readFileSync(path.join(dir, file), "utf8"));
      const line = readDisk(dir).index.find((candidate) => pointsAt(candidate, file));
      assert.ok(line, fail(`no index line for ${file}`));
      const at = model.index.findIndex((candidate) => pointsAt(candidate, file));
      if (at >= 0) model.index[at] = line;
      else model.index.push(line);
      await record("add", before);
    } else if (roll < 0.45) {
      const target = pick(files);
      const query = /^description: (.*)$/m.exec(model.files.get(target) ?? "")?.[1] ?? target;
      log.push(`${step}: forget "${query}"`);
      const result = await cli("forget", query, "--yes");
      // Words that several memories hold alike (two adds with one description) remove none of
      // them: nothing changes and nothing is recorded; the memories it names are the model's.
      const alike = /memories match .* equally \(([^)]*)\); nothing forgotten/.exec(result.stderr);
      if (result.code === 1 && alike) {
        const named = alike[1].split(", ");
        assert.ok(named.length >= 2 && named.every((file) => model.files.has(file)), fail(result.stderr));
        await newEntries(0);
      } else {
        assert.equal(result.code, 0, fail(result.stderr));
        const { file } = JSON.parse(result.stdout) as { file: string };
        model.files.delete(file);
        model.index = model.index.filter((line) => !pointsAt(line, file));
        await record("forget", before);
      }
    } else if (roll < 0.6) {
      const file = random() < 0.15 ? "missing.md" : pick(files);
      log.push(`${step}: rm ${file}`);
      const result = await cli("rm", file);
      if (file === "missing.md") {
        assert.equal(result.code, 1, fail("rm of a missing memory fails"));
        await newEntries(0);
      } else {
        assert.equal(result.code, 0, fail(result.stderr));
        model.files.delete(file);
        model.index = model.index.filter((line) => !pointsAt(line, file));
        await record("rm", before);
      }
    } else if (roll < 0.7) {
      log.push(`${step}: dream`);
      const result = await cli("dream", "--force");
      assert.equal(result.code, 0, fail(result.stderr));
      const report = JSON.parse(result.stdout) as { historyId: string | null };
      // The merge itself is dream's own (test/dream/dedupe.test.ts); here it is one undoable entry.
      model = readDisk(dir);
      if (report.historyId === null) await newEntries(0);
      else {
        tally.merged++;
        await record("dedupe", before);
      }
    } else {
      const open = entries.filter((entry) => !entry.undone);
      const byId = open.length > 0 && random() < 0.4 ? pick(open) : undefined;
      const target = byId ?? open.at(-1);
      log.push(`${step}: undo ${byId ? `${byId.id} (${byId.kind})` : `(newest: ${target?.id ?? "none"})`}`);
      const result = await cli("undo", ...(byId ? [byId.id] : []));
      if (!target) {
        assert.equal(result.code, 1, fail("nothing to undo"));
        await newEntries(0);
      } else {
        const expected = modelUndo(model, target);
        if ("refused" in expected) {
          assert.equal(result.code, 1, fail(`undo should refuse over ${expected.refused}: ${result.stdout}`));
          assert.match(result.stderr, /was changed since by [0-9a-zA-Z-]+ \(/, fail("names the later entry"));
          tally.refused++;
          await newEntries(0);
        } else {
          assert.equal(result.code, 0, fail(result.stderr));
          const report = JSON.parse(result.stdout) as {
            undone: { id: string; command: string; files: string[] };
          };
          assert.equal(report.undone.id, target.id, fail("undid the entry the model expected"));
          model = expected;
          target.undone = true;
          tally.undone++;
          await newEntries(1);
        }
      }
    }
    const disk = readDisk(dir);
    assert.deepEqual([...disk.files.keys()], [...model.files.keys()].sort(), fail("the memory files"));
    for (const [file, text] of model.files)
      assert.equal(disk.files.get(file), text, fail(`the text of ${file}`));
    assert.equal(indexText(disk.index), indexText(model.index), fail("MEMORY.md"));
  }
  return tally;
}

for (const backend of ["git", "journal"] as HistoryBackendName[]) {
  describe(`undo against a model of the directory (${backend})`, () => {
    it("keeps the files and the index equal to the model through random add, forget, rm, dream and undo", async (t) => {
      const seed = testSeed();
      t.diagnostic(`${TEST_SEED_ENV}=${seed}`);
      const tally = await runSequence(backend, seed, backend === "git" ? 30 : 60);
      t.diagnostic(`undone ${tally.undone}, refused ${tally.refused}, dream merges ${tally.merged}`);
    });
  });
}
