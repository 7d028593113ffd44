import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../src/recall/lexical/index/lexical-index.ts";
import type { LexicalPick } from "../../src/recall/lexical/index/types.ts";
import { createLexicalSelector } from "../../src/recall/select-lexical.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const WORKED_EXAMPLE = path.resolve(import.meta.dirname, "../fixtures/worked-example");
const DAY = 86_400_000;
const NOW = Date.parse("2026-08-10T12:00:00Z");

function setAge(file: string, days: number): void {
  const time = new Date(NOW - days * DAY);
  fs.utimesSync(file, time, time);
}

/** Scans every header (no 200 cap) and runs a fresh lexical selector with its own cache. */
async function select(
  memoryDir: string,
  query: string,
  options: { k?: number; cache?: LexicalIndexCache } = {},
) {
  const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
  const selector = createLexicalSelector({ cache: options.cache ?? new LexicalIndexCache() });
  return (await selector.select({ query, headers, k: options.k ?? 5, memoryDir })).picks as LexicalPick[];
}

describe("lexical selector", () => {
  it("picks the real-database feedback and not the auth migration for the worked example's Chinese request", async () => {
    const dir = makeTempDir();
    fs.cpSync(WORKED_EXAMPLE, dir, { recursive: true });
    setAge(path.join(dir, "feedback-real-database.md"), 2);
    setAge(path.join(dir, "project-auth-migration.md"), 9);
    const picks = await select(dir, "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。");
    assert.deepEqual(
      picks.map((p) => p.file),
      ["feedback-real-database.md"],
    );
    assert.match(picks[0].reason, /测试/);
  });

  it("explains each pick with the matched words per field", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "feedback-real-database.md": memory(
        "integration tests must not mock the database",
        "Login integration tests hit a real Postgres.\nWhy: a mocked test passed while the migration failed.",
        "feedback",
      ),
      "user-editor.md": memory("the user edits with neovim", "Prefers neovim keybindings.", "user"),
    });
    const [pick] = await select(dir, "Why did the mocked database test pass?");
    assert.equal(pick.file, "feedback-real-database.md");
    assert.match(pick.reason, /description: .*database/);
    assert.match(pick.reason, /body: .*mocked/);
    assert.ok(pick.score > 0);
  });

  it("returns nothing when no memory shares a word with the query", async () => {
    const dir = makeTempDir();
    fs.cpSync(WORKED_EXAMPLE, dir, { recursive: true });
    writeTree(dir, {
      "user-editor.md": memory("the user edits with neovim", "Prefers neovim keybindings.", "user"),
    });
    assert.deepEqual(await select(dir, "What's the weather forecast for tomorrow in Lisbon?"), []);
    assert.deepEqual(await select(dir, "the and of it"), []);
  });

  it("ranks over all memories: an old memory beyond the 200 newest is found", async () => {
    const dir = makeTempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 260; i++) {
      files[`project-note-${i}.md`] = memory(
        `weekly status note number ${i}`,
        `Status ${i}: all green.`,
        "project",
      );
    }
    files["reference-oncall-pager.md"] = memory(
      "how to page the on-call engineer",
      "Use PagerDuty service checkout-api; escalation after 15 minutes.",
      "reference",
    );
    writeTree(dir, files);
    for (let i = 0; i < 260; i++) setAge(path.join(dir, `project-note-${i}.md`), i / 10);
    setAge(path.join(dir, "reference-oncall-pager.md"), 400);
    const headers = await scanHeaders(dir, { cache: new HeaderCache() });
    assert.equal(headers.at(-1)?.file, "reference-oncall-pager.md", "the pager note is the oldest of 261");
    const picks = await select(dir, "how do I page whoever is on call?");
    assert.equal(picks[0]?.file, "reference-oncall-pager.md");
  });

  it("sees a file that changed behind its back, and forgets a deleted one", async () => {
    const dir = makeTempDir();
    const cache = new LexicalIndexCache();
    writeTree(dir, {
      "project-deploy.md": memory("deploy process", "Deploys go through the blue pipeline.", "project"),
      "user-role.md": memory("the user's role", "Backend engineer.", "user"),
    });
    setAge(path.join(dir, "project-deploy.md"), 3);
    assert.deepEqual(
      (await select(dir, "which pipeline: blue or green?", { cache })).map((p) => p.file),
      ["project-deploy.md"],
    );

    fs.writeFileSync(
      path.join(dir, "project-deploy.md"),
      memory("deploy process", "Deploys now go through the canary rollout.", "project"),
    );
    setAge(path.join(dir, "project-deploy.md"), 1);
    assert.deepEqual(await select(dir, "which pipeline: blue or green?", { cache }), []);
    assert.deepEqual(
      (await select(dir, "how does the canary rollout work?", { cache })).map((p) => p.file),
      ["project-deploy.md"],
    );

    fs.rmSync(path.join(dir, "project-deploy.md"));
    assert.deepEqual(await select(dir, "how does the canary rollout work?", { cache }), []);
  });

  it("matches words that appear only in the body", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "feedback-style.md": memory(
        "code review preferences",
        "Prefer early returns.\nNever use nested ternaries.",
        "feedback",
      ),
      "project-launch.md": memory("launch plan", "Launch on Tuesday after QA signs off.", "project"),
    });
    const picks = await select(dir, "can I use a nested ternary here?");
    assert.equal(picks[0]?.file, "feedback-style.md");
  });

  it("tolerates a one-letter typo in a word no memory contains", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "project-festival.md": memory(
        "the summer festival booth",
        "We run the booth at the music festival.",
        "project",
      ),
      "user-role.md": memory("the user's role", "Backend engineer.", "user"),
    });
    const picks = await select(dir, "when is the fesetival?");
    assert.equal(picks[0]?.file, "project-festival.md");
  });

  it("returns at most k picks, best first", async () => {
    const dir = makeTempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) {
      files[`project-cache-${i}.md`] = memory(
        `cache note ${i}`,
        `Redis cache ${"eviction ".repeat(i + 1)}`,
        "project",
      );
    }
    writeTree(dir, files);
    const picks = await select(dir, "redis cache eviction", { k: 3 });
    assert.equal(picks.length, 3);
    for (let i = 1; i < picks.length; i++) assert.ok(picks[i - 1].score >= picks[i].score);
  });

  it("stops when its signal is aborted", async () => {
    const dir = makeTempDir();
    fs.cpSync(WORKED_EXAMPLE, dir, { recursive: true });
    const headers = await scanHeaders(dir, { cache: new HeaderCache() });
    const selector = createLexicalSelector({ cache: new LexicalIndexCache() });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      selector.select({ query: "数据库", headers, k: 5, memoryDir: dir }, controller.signal),
    );
  });
});
