import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { explainRecall } from "../../src/recall/explain.ts";
import { recall, selectMemories } from "../../src/recall/recall.ts";
import { createLexicalSelector } from "../../src/recall/select-lexical.ts";
import type { Selection, Selector } from "../../src/recall/selector.ts";
import type { ReadFileState } from "../../src/types.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { fixedSelector, keywordSelector, type SelectorCall } from "./fake-selectors.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-08-10T12:00:00Z");
const clock = () => NOW;

/** A memory dir with files whose mtimes are `ageDays` before NOW (index order = newest first). */
function memoryDir(files: Record<string, string>, ageDays = 2): string {
  const dir = makeTempDir();
  writeTree(dir, { "MEMORY.md": "# Index\n", ...files });
  let offset = 0;
  for (const file of Object.keys(files)) {
    const time = new Date(NOW - ageDays * DAY - offset++ * 60_000);
    fs.utimesSync(path.join(dir, file), time, time);
  }
  return dir;
}

describe("recall", () => {
  it("turns picks into hidden system-reminder messages with header, caveat and body", async () => {
    const dir = memoryDir({
      "feedback-testing.md": memory("login tests must use a real database", "Never mock the database."),
      "project-other.md": memory("billing deadline", "Ship billing by Friday.", "project"),
    });
    const result = await recall({
      memoryDir: dir,
      query: "fix login tests",
      selector: keywordSelector(),
      now: clock,
    });
    assert.deepEqual(
      result.selected.map((s) => s.file),
      ["feedback-testing.md"],
    );
    assert.equal(result.selected[0].path, path.join(dir, "feedback-testing.md"));
    assert.equal(result.messages.length, 1);
    const [message] = result.messages;
    assert.equal(message.role, "user");
    assert.equal(message.isMeta, true);
    const content = message.content as string;
    assert.ok(
      content.startsWith(
        `<system-reminder>Memory (saved 2 days ago): ${path.join(dir, "feedback-testing.md")}:\n`,
      ),
    );
    assert.match(content, /point-in-time note/);
    assert.match(content, /\n\n---\ndescription: login tests must use a real database\n/);
    assert.ok(content.endsWith("Never mock the database.\n</system-reminder>"));
  });

  it("drops files already read or surfaced before selection, so the k slots go to fresh memories", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 7; i++) files[`feedback-login-${i}.md`] = memory(`login rule ${i}`, `Rule ${i}.`);
    const dir = memoryDir(files);
    const readFileState: ReadFileState = new Map([
      [path.join(dir, "feedback-login-1.md"), { readAt: NOW, source: "read" }],
      [path.join(dir, "feedback-login-2.md"), { readAt: NOW, source: "memory" }],
    ]);
    const calls: SelectorCall[] = [];
    const result = await recall({
      memoryDir: dir,
      query: "login",
      selector: keywordSelector(calls),
      k: 5,
      readFileState,
      alreadySurfaced: [path.join(dir, "feedback-login-3.md")],
      now: clock,
    });
    assert.deepEqual(calls[0].files.sort(), [
      "feedback-login-4.md",
      "feedback-login-5.md",
      "feedback-login-6.md",
      "feedback-login-7.md",
    ]);
    assert.equal(result.selected.length, 4, "all four fresh memories, none of the three already seen");
    const skipped = new Map(result.skipped.map((s) => [s.file, s.reason]));
    assert.match(skipped.get("feedback-login-1.md") ?? "", /already read/);
    assert.match(skipped.get("feedback-login-2.md") ?? "", /already surfaced/);
    assert.match(skipped.get("feedback-login-3.md") ?? "", /already surfaced/);
    const statuses = new Map(explainRecall(result).map((c) => [c.file, c.status]));
    assert.equal(statuses.get("feedback-login-1.md"), "already-read");
  });

  it("keeps at most k picks and drops names the selector made up", async () => {
    const files: Record<string, string> = {};
    for (const name of ["a", "b", "c", "d"]) files[`${name}.md`] = memory(`note ${name}`, name);
    const dir = memoryDir(files);
    const result = await recall({
      memoryDir: dir,
      query: "anything at all",
      selector: fixedSelector(["ghost.md", "a.md", "a.md", "b.md", "c.md", "d.md"]),
      k: 2,
      now: clock,
    });
    assert.deepEqual(
      result.selected.map((s) => s.file),
      ["a.md", "b.md"],
    );
    const statuses = Object.fromEntries(explainRecall(result).map((c) => [c.file, c.status]));
    assert.deepEqual(statuses, {
      "a.md": "picked",
      "b.md": "picked",
      "c.md": "beyond-k",
      "d.md": "beyond-k",
    });
    assert.ok(!explainRecall(result).some((c) => c.file === "ghost.md"));
  });

  it("caps each body at 4096 bytes with a note naming the limit and the full path", async () => {
    const dir = memoryDir({
      "reference-big.md": memory("big dashboard reference", "x".repeat(10_000), "reference"),
    });
    const result = await recall({
      memoryDir: dir,
      query: "dashboard",
      selector: keywordSelector(),
      now: clock,
    });
    const content = result.messages[0].content as string;
    assert.ok(Buffer.byteLength(content) < 4096 + 600);
    assert.match(content, /4096-byte limit/);
    assert.ok(content.includes(path.join(dir, "reference-big.md")));
  });

  it("stops at the 60 KB session budget and says so", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 3; i++)
      files[`reference-budget-${i}.md`] = memory(`budget reference ${i}`, "y".repeat(3000), "reference");
    const dir = memoryDir(files);
    const result = await recall({
      memoryDir: dir,
      query: "budget",
      selector: keywordSelector(),
      surfacedBytes: 60 * 1024 - 7000, // room for two ~3.4 KB messages, not three
      now: clock,
    });
    assert.equal(result.messages.length, 2);
    const overBudget = explainRecall(result).filter((c) => c.status === "budget");
    assert.equal(overBudget.length, 1);
    assert.match(overBudget[0].reason, /session budget/);
    assert.ok(result.skipped.some((s) => s.file === overBudget[0].file && /budget/.test(s.reason)));
  });

  it("explains every candidate: picked, beyond k and below the floor", async () => {
    const dir = memoryDir({
      "feedback-login-db.md": memory("login tests need a real database", "db"),
      "feedback-login-ui.md": memory("login page copy", "ui"),
      "project-billing.md": memory("billing deadline", "billing", "project"),
    });
    const result = await recall({
      memoryDir: dir,
      query: "login database",
      selector: keywordSelector(),
      k: 1,
      explain: true,
      now: clock,
    });
    const byFile = Object.fromEntries(explainRecall(result).map((c) => [c.file, c]));
    assert.equal(byFile["feedback-login-db.md"].status, "picked");
    assert.equal(byFile["feedback-login-db.md"].score, 2);
    assert.equal(byFile["feedback-login-ui.md"].status, "beyond-k");
    assert.equal(byFile["feedback-login-ui.md"].score, 1);
    assert.equal(byFile["project-billing.md"].status, "below-floor");
    assert.equal(explainRecall(result)[0].file, "feedback-login-db.md", "picked candidates come first");
  });

  it("a custom selector named like a built-in one explains itself like any other", async () => {
    const dir = memoryDir({
      "feedback-login-db.md": memory("login tests need a real database", "db"),
      "feedback-login-ui.md": memory("login page copy", "ui"),
      "project-billing.md": memory("billing deadline", "billing", "project"),
    });
    const recallWith = (name: string) =>
      recall({ memoryDir: dir, query: "login", selector: keywordSelector([], name), k: 1, now: clock });
    const plain = await recallWith("custom");
    for (const name of ["model", "hybrid", "lexical"]) {
      const named = await recallWith(name);
      assert.equal(named.selector, name, "the name is reported");
      assert.deepEqual(named.skipped, plain.skipped);
      assert.deepEqual(explainRecall(named), explainRecall(plain), `named "${name}"`);
    }
    const billing = explainRecall(plain).find((c) => c.file === "project-billing.md");
    assert.equal(billing?.reason, "no match above the selector's relevance floor");
  });

  it("explains what the selection says: a model's manifest caps, a failure selects nothing", async () => {
    const dir = memoryDir({
      "feedback-login-db.md": memory("login tests need a real database", "db"),
      "feedback-login-ui.md": memory("login page copy", "ui"),
      "project-billing.md": memory("billing deadline", "billing", "project"),
    });
    const saying = (said: Omit<Selection, "picks">, files: string[] = []): Selector => ({
      name: "custom",
      select: async () => ({ ...said, picks: files.map((file) => ({ file, score: 1, reason: "chosen" })) }),
    });
    const shown = await recall({
      memoryDir: dir,
      query: "login",
      selector: saying({ shownToModel: ["feedback-login-db.md", "feedback-login-ui.md"] }, [
        "feedback-login-db.md",
      ]),
      now: clock,
    });
    assert.deepEqual(Object.fromEntries(explainRecall(shown).map((c) => [c.file, [c.status, c.reason]])), {
      "feedback-login-db.md": ["picked", "chosen"],
      "feedback-login-ui.md": ["below-floor", "not chosen by the model"],
      "project-billing.md": ["cap", "not among the 200 headers shown to the model"],
    });
    const failed = await recall({
      memoryDir: dir,
      query: "login",
      selector: saying({ failure: { kind: "timeout", message: "no answer in 15 s" } }),
      now: clock,
    });
    assert.equal(failed.modelFailure, "timeout: no answer in 15 s");
    assert.ok(
      explainRecall(failed).every((c) => c.reason === "no selection: the model gave no usable answer"),
    );
  });

  it("the result is plain data: explaining it twice gives the same list and changes nothing", async () => {
    const dir = memoryDir({
      "feedback-login-db.md": memory("login tests need a real database", "db"),
      "project-billing.md": memory("billing deadline", "billing", "project"),
    });
    const result = await recall({ memoryDir: dir, query: "login", selector: keywordSelector(), now: clock });
    assert.ok(Object.values(Object.getOwnPropertyDescriptors(result)).every((d) => "value" in d));
    const before = structuredClone(result);
    assert.deepEqual(explainRecall(result), explainRecall(result));
    assert.deepEqual(result, before);
  });

  it("returns nothing for an empty or missing memory dir", async () => {
    const missing = path.join(makeTempDir(), "nope");
    const result = await recall({
      memoryDir: missing,
      query: "login tests",
      selector: keywordSelector(),
    });
    assert.deepEqual(result.messages, []);
    assert.deepEqual(explainRecall(result), []);
  });

  it("selectMemories (the eval path) ranks over all headers, not only the 200 newest", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 230; i++)
      files[`note-${String(i).padStart(3, "0")}.md`] = memory(`filler ${i}`, "filler");
    const dir = memoryDir(files, 1);
    const oldest = path.join(dir, "note-old-zebra.md");
    fs.writeFileSync(oldest, memory("zebra crossing rule", "zebra"));
    fs.utimesSync(oldest, new Date(NOW - 400 * DAY), new Date(NOW - 400 * DAY));
    const { picks, headers } = await selectMemories({
      memoryDir: dir,
      query: "zebra",
      selector: keywordSelector(),
      k: 5,
    });
    assert.equal(headers.length, 231);
    assert.deepEqual(
      picks.map((p) => p.file),
      ["note-old-zebra.md"],
    );
  });

  it("the worked example: the Chinese request recalls the real-database rule, not the auth migration", async () => {
    const dir = makeTempDir();
    fs.cpSync(path.resolve(import.meta.dirname, "../fixtures/worked-example"), dir, { recursive: true });
    fs.utimesSync(
      path.join(dir, "feedback-real-database.md"),
      new Date(NOW - 2 * DAY),
      new Date(NOW - 2 * DAY),
    );
    const migration = new Date(NOW - 2 * DAY - 3 * 3_600_000);
    fs.utimesSync(path.join(dir, "project-auth-migration.md"), migration, migration);
    const result = await recall({
      memoryDir: dir,
      query: "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。",
      selector: createLexicalSelector(),
      explain: true,
      now: clock,
    });
    assert.deepEqual(
      result.selected.map((s) => s.file),
      ["feedback-real-database.md"],
    );
    const content = result.messages[0].content as string;
    assert.ok(
      content.startsWith(
        `<system-reminder>Memory (saved 2 days ago): ${path.join(dir, "feedback-real-database.md")}:`,
      ),
    );
    assert.match(content, /登录模块的集成测试必须连接真实数据库。/);
    const migrationCandidate = explainRecall(result).find((c) => c.file === "project-auth-migration.md");
    assert.notEqual(migrationCandidate?.status, "picked");
  });
});
