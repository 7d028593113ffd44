import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { dedupeMemories } from "../../src/dream/dedupe.ts";
import { findDuplicateGroups, type MemoryDocument, mergeBodies } from "../../src/dream/dedupe-groups.ts";
import { listHistory, undoChange } from "../../src/dream/history.ts";
import { DEDUPE_MAX_CHARS, duplicateKind, wordSet } from "../../src/recall/duplicate-test.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const doc = (file: string, description: string, body: string, type = "feedback"): MemoryDocument => ({
  file,
  type: type as MemoryDocument["type"],
  description,
  body,
  mtimeMs: 0,
  indexed: true,
  text: `---\ndescription: ${description}\ntype: ${type}\n---\n${body}`,
});

describe("duplicate detection", () => {
  it("treats the same text with other case, spacing and punctuation as an exact duplicate", () => {
    const kind = duplicateKind(
      { description: "Login tests hit a real database.", body: "Never mock the DB!" },
      { description: "login tests hit a real database", body: "never   mock the db" },
    );
    assert.deepEqual(kind, { reason: "exact", similarity: 1 });
  });

  it("finds near duplicates by word overlap, and leaves different memories apart", () => {
    const near = duplicateKind(
      {
        description: "integration tests of the login module must not mock the database",
        body: "Use a real database.",
      },
      {
        description: "integration tests of the login module must not mock the database",
        body: "Use a real database, always.",
      },
    );
    assert.equal(near?.reason, "near");
    assert.equal(
      duplicateKind(
        { description: "deploys happen on fridays", body: "Release train leaves Friday 10:00." },
        { description: "the user prefers pnpm over npm", body: "Always use pnpm in this repo." },
      ),
      null,
    );
  });

  it("works on Chinese text", () => {
    const kind = duplicateKind(
      { description: "登录模块的集成测试不得 mock 数据库", body: "必须连接真实数据库。" },
      { description: "登录模块的集成测试不得mock数据库", body: "必须连接真实数据库" },
    );
    // The same words, spaced and punctuated differently: a near duplicate with every word shared.
    assert.deepEqual(kind, { reason: "near", similarity: 1 });
    assert.equal(
      duplicateKind(
        { description: "登录模块的集成测试不得 mock 数据库", body: "必须连接真实数据库。" },
        { description: "用户喜欢用 pnpm 而不是 npm", body: "这个仓库里总是用 pnpm。" },
      ),
      null,
      "two different Chinese memories are not duplicates",
    );
  });

  it("compares a long memory by the words of its first DEDUPE_MAX_CHARS characters", () => {
    const text = Array.from({ length: 80_000 }, (_, i) => `w${i}`).join(" ");
    const words = wordSet(text);
    const whole = text
      .slice(0, DEDUPE_MAX_CHARS + 1)
      .split(" ")
      .slice(0, -1);
    assert.equal(words.size, whole.length);
    assert.ok(words.has("w0") && words.has(whole.at(-1) ?? "?") && !words.has("w79999"));
  });

  it("never groups memories of different types", () => {
    const groups = findDuplicateGroups([
      doc("a.md", "same", "same body here", "user"),
      doc("b.md", "same", "same body here", "project"),
    ]);
    assert.deepEqual(groups, []);
  });

  it("removes only duplicates of the survivor itself, never the far end of a chain A≈B≈C", () => {
    // Twenty words, one swapped per step: each neighbour shares 19 of 21 words (0.90, a near
    // duplicate), the two ends 18 of 22 (0.82, two different memories).
    const words = Array.from({ length: 20 }, (_, i) => `word${i}`);
    const step = (n: number) => words.map((w, i) => (i < n ? `changed${i}` : w)).join(" ");
    const chain = [doc("a.md", step(0), "x"), doc("b.md", step(1), "x"), doc("c.md", step(2), "x")];
    assert.ok(duplicateKind(chain[0], chain[1]) && duplicateKind(chain[1], chain[2]));
    assert.equal(duplicateKind(chain[0], chain[2]), null);
    const groups = findDuplicateGroups(chain);
    assert.deepEqual(
      groups.map((g) => [g.keep, g.remove]),
      [["a.md", ["b.md"]]],
      "c.md is no duplicate of a.md and stays",
    );
    for (const group of groups)
      for (const file of group.remove) {
        const keep = chain.find((d) => d.file === group.keep);
        const copy = chain.find((d) => d.file === file);
        assert.ok(keep && copy && duplicateKind(keep, copy), `${file} matches ${group.keep} directly`);
      }
  });

  it("keeps the fuller memory and carries over lines only a copy had", () => {
    const groups = findDuplicateGroups([
      doc("a.md", "tests hit a real database", "Never mock the DB."),
      doc("b.md", "tests hit a real database", "Never mock the DB.\nWhy: a migration broke once."),
    ]);
    assert.equal(groups.length, 1);
    assert.equal(groups[0].keep, "b.md");
    assert.deepEqual(groups[0].remove, ["a.md"]);
    assert.equal(mergeBodies("one\n", ["One.", "two"]), "one\ntwo\n");
  });
});

describe("dedupeMemories", () => {
  it("merges duplicates with their index lines, and undo brings them back", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "MEMORY.md":
        "- [Real DB](feedback-real-db.md) — tests hit a real database\n" +
        "- [Real DB again](feedback-real-db-2.md) — tests hit a real database\n" +
        "- [Fridays](project-fridays.md) — deploys on fridays\n",
      "feedback-real-db.md": memory("tests hit a real database", "Never mock the database."),
      "feedback-real-db-2.md": memory("Tests hit a real database.", "never mock the database"),
      "project-fridays.md": memory("deploys on fridays", "We deploy on Fridays.", "project"),
    });
    const before = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8");
    const result = await dedupeMemories(dir);
    assert.equal(result.groups.length, 1);
    assert.equal(result.removed.length, 1);
    const remaining = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .sort();
    assert.equal(remaining.length, 3, "MEMORY.md, one database memory, the fridays memory");
    const index = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8");
    assert.equal(index.trim().split("\n").length, 2);
    assert.ok(!index.includes(result.removed[0]));
    const [entry] = await listHistory(dir);
    assert.equal(entry.kind, "dedupe");

    await undoChange(dir);
    assert.ok(fs.existsSync(path.join(dir, result.removed[0])));
    assert.equal(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"), before);
  });

  it("does nothing and records nothing when there are no duplicates", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "a.md": memory("alpha rule for tests", "Alpha."),
      "b.md": memory("beta rule for deploys", "Beta."),
    });
    const result = await dedupeMemories(dir);
    assert.equal(result.entry, null);
    assert.deepEqual(await listHistory(dir), []);
  });
});
