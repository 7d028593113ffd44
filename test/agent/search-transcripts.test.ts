import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { createSearchTranscriptsTool, searchTranscripts } from "../../src/agent/search-transcripts.ts";
import { createToolContext } from "../../src/agent/tools/spec.ts";
import { makeTempDir } from "../helpers/temp.ts";

function line(sessionId: string, role: "user" | "assistant", content: string, n: number): string {
  return JSON.stringify({
    type: "message",
    sessionId,
    message: { id: `m${n}`, role, content, timestamp: `2026-02-0${(n % 9) + 1}T10:00:00Z` },
  });
}

function transcript(
  projectDir: string,
  id: string,
  messages: ["user" | "assistant", string][],
  mtimeMs: number,
) {
  const file = path.join(projectDir, `${id}.jsonl`);
  fs.writeFileSync(file, `${messages.map(([role, text], i) => line(id, role, text, i)).join("\n")}\n`);
  fs.utimesSync(file, mtimeMs / 1000, mtimeMs / 1000);
}

describe("SearchTranscripts", () => {
  it("returns matching lines with context, newest session first, not whole files", async () => {
    const projectDir = makeTempDir();
    transcript(projectDir, "old", [["user", "we deploy on fridays\nsecond line\nthird line"]], 1_000_000);
    transcript(
      projectDir,
      "new",
      [
        ["user", "unrelated chatter"],
        ["assistant", "noted: deploys moved to Mondays\nbecause of the freeze"],
      ],
      2_000_000,
    );
    const result = await searchTranscripts(projectDir, { query: "deploy" });
    assert.equal(result.isError, undefined);
    const text = result.content;
    assert.ok(text.indexOf("new #2 assistant") < text.indexOf("old #1 user"), text);
    assert.match(text, /> noted: deploys moved to Mondays/);
    assert.match(text, / {2}because of the freeze/);
    assert.doesNotMatch(text, /unrelated chatter/);
    assert.doesNotMatch(text, /third line/, "one line of context by default");
  });

  it("bounds the answer and says how to narrow it", async () => {
    const projectDir = makeTempDir();
    const many = Array.from(
      { length: 200 },
      (_, i) => ["user", `match ${i} ${"x".repeat(1000)}`] as ["user", string],
    );
    transcript(projectDir, "big", many, 1_000_000);
    const result = await searchTranscripts(projectDir, { query: "match" });
    assert.ok(result.content.length < 9000);
    assert.match(result.content, /narrow the query/);
    assert.ok(result.content.split("\n").every((l) => l.length < 260));
  });

  it("can leave out sessions and search one session only", async () => {
    const projectDir = makeTempDir();
    transcript(projectDir, "a", [["user", "alpha deploy"]], 1_000_000);
    transcript(projectDir, "b", [["user", "beta deploy"]], 2_000_000);
    const tool = createSearchTranscriptsTool({ projectDir, excludeSessionIds: ["b"] });
    const context = createToolContext({ cwd: projectDir });
    const excluded = await tool.handler({ query: "deploy" }, context);
    assert.match(excluded.content, /alpha/);
    assert.doesNotMatch(excluded.content, /beta/);
    const one = await searchTranscripts(projectDir, { query: "deploy", session: "b" });
    assert.doesNotMatch(one.content, /alpha/);
    const bad = await searchTranscripts(projectDir, { query: "(", regex: true });
    assert.equal(bad.isError, true);
  });
});
