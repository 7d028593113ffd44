import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { explainRecall } from "../../src/recall/explain.ts";
import { LexicalIndexCache } from "../../src/recall/lexical/index/lexical-index.ts";
import { recall, selectMemories } from "../../src/recall/recall.ts";
import { createLexicalSelector } from "../../src/recall/select-lexical.ts";
import { makeTempDir } from "../helpers/temp.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");
const NOW = Date.parse("2026-09-01T00:00:00.000Z");
const QUERY = "do integration tests hit a real database or mocks?";

function copyOf(fixture: string): string {
  const dir = path.join(makeTempDir(), "memory");
  fs.cpSync(path.join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

const lexical = () => createLexicalSelector({ cache: new LexicalIndexCache() });

describe("recall and [[name]] links", () => {
  it("brings a linked memory along after the picks and says so in --explain", async () => {
    const memoryDir = copyOf("claude-code");
    const result = await recall({
      memoryDir,
      query: QUERY,
      selector: lexical(),
      k: 1,
      now: () => NOW,
      explain: true,
    });
    assert.deepEqual(
      result.selected.map(({ file, linkedFrom }) => [file, linkedFrom]),
      [
        ["feedback_testing.md", undefined],
        ["user_role.md", "feedback_testing.md"],
      ],
    );
    assert.equal(result.messages.length, 2);
    assert.match(result.messages[1].content as string, /user_role\.md/);
    // Dated by `modified` (2026-07-30), though the copy's mtime is today.
    assert.match(result.messages[0].content as string, /^<system-reminder>Memory \(saved 32 days ago\)/);
    const linked = explainRecall(result).filter((candidate) => candidate.status === "linked");
    assert.deepEqual(
      linked.map((candidate) => candidate.file),
      ["user_role.md"],
    );
    assert.match(linked[0].reason, /feedback_testing\.md links to it as \[\[user-role\]\]/);
    assert.ok(!result.skipped.some((skip) => skip.file === "user_role.md"));
  });

  it("brings nothing the budget has no room for, nor a memory already read", async () => {
    const memoryDir = copyOf("claude-code");
    const alone = await recall({ memoryDir, query: QUERY, selector: lexical(), k: 1, now: () => NOW });
    const pickBytes = Buffer.byteLength(alone.messages[0].content as string, "utf8");
    const tight = await recall({
      memoryDir,
      query: QUERY,
      selector: lexical(),
      k: 1,
      now: () => NOW,
      budgetBytes: pickBytes + 10,
      explain: true,
    });
    assert.deepEqual(
      tight.selected.map((pick) => pick.file),
      ["feedback_testing.md"],
    );
    assert.ok(!explainRecall(tight).some((candidate) => candidate.status === "linked"));
    const read = await recall({
      memoryDir,
      query: QUERY,
      selector: lexical(),
      k: 1,
      now: () => NOW,
      readFileState: new Map([
        [path.join(memoryDir, "user_role.md"), { readAt: NOW, source: "read" as const }],
      ]),
    });
    assert.deepEqual(
      read.selected.map((pick) => pick.file),
      ["feedback_testing.md"],
    );
  });

  it("leaves recall on memories without links exactly the selector's picks", async () => {
    const memoryDir = copyOf("eval-small");
    let picked = 0;
    for (const query of ["login tests real database", "deploy friday", "who is the user"]) {
      const selection = await selectMemories({ memoryDir, query, selector: lexical(), k: 5 });
      const result = await recall({ memoryDir, query, selector: lexical(), k: 5 });
      assert.deepEqual(
        result.selected.map((pick) => pick.file),
        selection.picks.map((pick) => pick.file),
      );
      assert.ok(result.selected.every((pick) => pick.linkedFrom === undefined));
      picked += result.selected.length;
    }
    assert.ok(picked > 0);
  });
});
