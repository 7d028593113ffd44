import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { addedMemoryCandidates } from "../../src/import/sources/added-memories.ts";
import { readClaudeMem } from "../../src/import/sources/claude-mem.ts";
import { noteCandidates } from "../../src/import/sources/markdown.ts";
import { mcpMemoryCandidates } from "../../src/import/sources/mcp-memory.ts";
import { mem0Candidates } from "../../src/import/sources/mem0.ts";
import { defaultQwenPlaces } from "../../src/import/sources/qwen.ts";
import type { ImportCandidate } from "../../src/import/sources/types.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { addedMemoriesFile, mcpMemoryJsonl, SOURCE_TIME, writeClaudeMemDb } from "./fixtures.ts";

const byKey = (candidates: ImportCandidate[]) => Object.fromEntries(candidates.map((c) => [c.key, c]));

describe("import readers", () => {
  it("claude-mem: observations and summaries are project memories of their project, an active directive is feedback, an empty row is skipped", async () => {
    const db = path.join(makeTempDir(), "claude-mem.db");
    await writeClaudeMemDb(db, {
      observations: [
        {
          project: "shop",
          type: "bugfix",
          title: "Checkout double charge fixed",
          subtitle: "idempotency key on the charge call",
          narrative: "Retries sent a second charge.",
          facts: ["The key is the order id"],
          concepts: ["problem-solution"],
          filesModified: ["src/checkout.ts"],
        },
        { project: "old-name", mergedInto: "shop", title: "Merged row", narrative: "From the old name." },
        { project: "shop", title: "", narrative: "" },
      ],
      summaries: [{ project: "shop", request: "speed up CI", learned: "Jest workers were capped at 1." }],
      directives: [{ content: "Answer in English" }, { content: "Old rule", status: "retired" }],
    });
    const read = await readClaudeMem(db);
    const candidates = byKey(read.candidates);
    const fix = candidates["claude-mem:observation:1"];
    assert.equal(fix.type, "project");
    assert.equal(fix.description, "Checkout double charge fixed: idempotency key on the charge call");
    assert.equal(fix.project, "shop");
    assert.equal(fix.modifiedMs, SOURCE_TIME);
    for (const part of [
      "Retries sent a second charge.",
      "- The key is the order id",
      "- src/checkout.ts",
      "Kind: bugfix",
    ])
      assert.ok(fix.body.includes(part), `${part} in ${fix.body}`);
    assert.equal(
      candidates["claude-mem:observation:2"].project,
      "shop",
      "a merged row belongs where it was merged",
    );
    assert.deepEqual(
      read.skipped.map((s) => s.source),
      ["claude-mem observation 3"],
    );
    const summary = candidates["claude-mem:summary:1"];
    assert.equal(summary.description, "Session: speed up CI");
    assert.ok(summary.body.includes("Learned: Jest workers were capped at 1."));
    const directive = candidates["claude-mem:directive:1"];
    assert.equal(directive.type, "feedback");
    assert.equal(directive.project, undefined, "a global directive belongs to the project imported into");
    assert.equal(candidates["claude-mem:directive:2"], undefined, "a retired directive is not imported");
  });

  it("mcp-memory: one memory per entity with its observations and relations, typed by entityType; a bad line is skipped", () => {
    const read = mcpMemoryCandidates(`${mcpMemoryJsonl()}\n{not json\n`, SOURCE_TIME);
    const candidates = byKey(read.candidates);
    const ada = candidates["mcp-memory:entity:Ada_Lovelace"];
    assert.equal(ada.type, "user");
    assert.ok(ada.body.includes("- Prefers pnpm over npm"));
    assert.ok(ada.body.includes("- Ada_Lovelace works on billing-service"));
    assert.equal(candidates["mcp-memory:entity:billing-service"].type, "project");
    assert.deepEqual(read.skipped, [{ source: "mcp-memory line 4", reason: "not JSON" }]);
  });

  it("gemini and qwen: only the bullets of their own Added Memories section, one user memory each", () => {
    const gemini = addedMemoryCandidates("gemini", addedMemoriesFile("Gemini"), SOURCE_TIME);
    assert.deepEqual(
      gemini.candidates.map((c) => [c.type, c.body]),
      [
        ["user", "The user's favourite editor is Helix"],
        ["user", "The staging database lives on db-staging.internal and is reset every night"],
      ],
    );
    // Qwen's reader does not take Gemini's section, and says the file has none of its own.
    const qwen = addedMemoryCandidates("qwen", addedMemoriesFile("Gemini"), SOURCE_TIME);
    assert.deepEqual(qwen.candidates, []);
    assert.match(qwen.skipped[0].reason, /Qwen Added Memories/);
  });

  it("qwen: looks in QWEN.md, the user's memories and this project's managed memory folders", () => {
    assert.deepEqual(defaultQwenPlaces({ home: "/h", projectRoot: "/code/my.app" }), [
      "/h/.qwen/QWEN.md",
      "/h/.qwen/memories",
      "/h/.qwen/projects/-code-my-app/memory",
      "/code/my.app/.qwen/memory",
    ]);
  });

  it("mem0: a plain list or {results}, typed user unless metadata names a type, an item without text skipped", () => {
    const list = mem0Candidates(
      JSON.stringify([
        { id: 1, memory: "Likes tea", updated_at: "2025-03-04T05:06:07Z" },
        { id: 2, memory: "" },
      ]),
    );
    assert.deepEqual(
      list.candidates.map((c) => [c.key, c.type, c.modifiedMs]),
      [["mem0:1", "user", SOURCE_TIME]],
    );
    assert.deepEqual(list.skipped, [{ source: "mem0 memory 2", reason: "no memory text" }]);
    const results = mem0Candidates(
      JSON.stringify({ results: [{ id: "a", memory: "Use 2 spaces", metadata: { type: "feedback" } }] }),
    );
    assert.equal(results.candidates[0].type, "feedback");
    assert.match(mem0Candidates("[oops").skipped[0].reason, /not JSON/);
  });

  it("markdown: a note's own type or reference, its title as description, and a one-file-per-type topic file split per bullet", () => {
    const note = noteCandidates(
      "markdown",
      "/v/Deploy.md",
      "Deploy.md",
      "---\ntitle: Deploy steps\ntype: note\ntags: [ops]\n---\nRun migrations first.\n",
      SOURCE_TIME,
    );
    assert.deepEqual(
      note.candidates.map((c) => [c.type, c.description, c.extra?.tags]),
      [["reference", "Deploy steps", ["ops"]]],
    );
    const topic = noteCandidates(
      "qwen",
      "/q/feedback.md",
      "feedback.md",
      "# Feedback Memory\n\n- Keep replies short\n  - Why: the user reads on a phone\n- Use TypeScript strict mode\n",
      SOURCE_TIME,
    );
    assert.deepEqual(
      topic.candidates.map((c) => [c.type, c.description, c.body]),
      [
        ["feedback", "Keep replies short", "Keep replies short\n- Why: the user reads on a phone"],
        ["feedback", "Use TypeScript strict mode", "Use TypeScript strict mode"],
      ],
    );
  });
});
