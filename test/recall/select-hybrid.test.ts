import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { ModelClient, ModelRequest } from "../../src/model/client.ts";
import { explainRecall } from "../../src/recall/explain.ts";
import { recall } from "../../src/recall/recall.ts";
import { createHybridSelector } from "../../src/recall/select-hybrid.ts";
import { createModelSelector } from "../../src/recall/select-model.ts";
import type { Selection, Selector } from "../../src/recall/selector.ts";
import { messageText } from "../../src/types.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { keywordSelector } from "./fake-selectors.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-08-10T12:00:00Z");

/** A model client that answers from a script and records what it was asked. */
function scriptedClient(
  answer: (request: ModelRequest) => string | Error,
): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: "scripted",
    requests,
    async complete(request) {
      requests.push(request);
      const reply = answer(request);
      if (reply instanceof Error) throw reply;
      return {
        content: [{ type: "text", text: reply }],
        stopReason: "end_turn",
        usage: { inputTokens: 1, outputTokens: 1 },
      };
    },
  };
}

/** 250 recent filler memories plus one old memory about zebras (the 251st newest). */
function bigDir(): string {
  const dir = makeTempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 250; i++)
    files[`note-${i}.md`] = `---\ndescription: filler note ${i}\ntype: project\n---\nfiller\n`;
  files["feedback-zebra.md"] =
    "---\ndescription: zebra crossing rule for the checkout page\ntype: feedback\n---\nZebra.\n";
  writeTree(dir, files);
  for (let i = 0; i < 250; i++) {
    const time = new Date(NOW - DAY - i * 1000);
    fs.utimesSync(path.join(dir, `note-${i}.md`), time, time);
  }
  const old = new Date(NOW - 300 * DAY);
  fs.utimesSync(path.join(dir, "feedback-zebra.md"), old, old);
  return dir;
}

describe("hybrid selector", () => {
  it("shows the model the lexical top 200, so an old relevant memory is not invisible", async () => {
    const dir = bigDir();
    const client = scriptedClient(() => JSON.stringify({ selected_memories: ["feedback-zebra.md"] }));
    const selector = createHybridSelector({
      candidates: keywordSelector(),
      chooser: createModelSelector({ client }),
    });
    const result = await recall({
      memoryDir: dir,
      query: "zebra checkout",
      selector,
      now: () => NOW,
    });
    assert.deepEqual(
      result.selected.map((s) => s.file),
      ["feedback-zebra.md"],
    );
    const prompt = messageText(client.requests[0].messages[0]);
    const manifestLines = prompt.split("\n").filter((line) => line.startsWith("- "));
    assert.equal(manifestLines.length, 200, "the manifest holds 200 headers");
    assert.match(manifestLines[0], /feedback-zebra\.md/, "the lexical match comes first");
    assert.equal(result.fallback, undefined);
    const capped = explainRecall(result).filter((c) => c.status === "cap");
    assert.equal(capped.length, 51, "the 51 headers the model never saw are marked cap");
  });

  it("a plain model selector sees only the 200 newest and misses the old memory", async () => {
    const dir = bigDir();
    const client = scriptedClient((request) => {
      const seesZebra = messageText(request.messages[0]).includes("feedback-zebra.md");
      return JSON.stringify({ selected_memories: seesZebra ? ["feedback-zebra.md"] : [] });
    });
    const result = await recall({
      memoryDir: dir,
      query: "zebra checkout",
      selector: createModelSelector({ client }),
      now: () => NOW,
    });
    assert.deepEqual(result.selected, []);
    const zebra = explainRecall(result).find((c) => c.file === "feedback-zebra.md");
    assert.equal(zebra?.status, "cap");
  });

  it("falls back to the lexical picks when the model fails, and says so", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "feedback-login-db.md":
        "---\ndescription: login tests need a real database\ntype: feedback\n---\nNo mocks.\n",
      "project-billing.md": "---\ndescription: billing deadline\ntype: project\n---\nFriday.\n",
    });
    const client = scriptedClient(() => new Error("503 overloaded"));
    const selector = createHybridSelector({
      candidates: keywordSelector(),
      chooser: createModelSelector({ client }),
    });
    const result = await recall({
      memoryDir: dir,
      query: "login database",
      selector,
    });
    assert.deepEqual(
      result.selected.map((s) => s.file),
      ["feedback-login-db.md"],
    );
    assert.match(result.fallback ?? "", /model selector failed/);
    assert.match(result.fallback ?? "", /overloaded/);
    const picked = explainRecall(result).find((c) => c.file === "feedback-login-db.md");
    assert.match(picked?.reason ?? "", /lexical fallback/);
  });

  it("falls back when the model answers something unusable", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "feedback-login-db.md": "---\ndescription: login database rule\ntype: feedback\n---\nx\n",
    });
    const client = scriptedClient(() => "I think you should look at the login file");
    const selector = createHybridSelector({
      candidates: keywordSelector(),
      chooser: createModelSelector({ client }),
    });
    const headers = [
      {
        file: "feedback-login-db.md",
        path: path.join(dir, "feedback-login-db.md"),
        mtimeMs: NOW,
        size: 1,
        type: "feedback" as const,
        description: "login database rule",
      },
    ];
    const selection = await selector.select({ query: "login", headers, k: 5, memoryDir: dir });
    assert.deepEqual(
      selection.picks.map((p) => p.file),
      ["feedback-login-db.md"],
    );
    assert.match(selection.fallback ?? "", /model selector failed/);
    assert.equal(selection.failure, undefined, "a fallback is an answer, not a failure");
    assert.deepEqual(selection.shownToModel, ["feedback-login-db.md"]);
  });

  it("keeps the model's judgement: an empty answer is not a failure", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "feedback-login-db.md": "---\ndescription: login database rule\ntype: feedback\n---\nx\n",
    });
    const client = scriptedClient(() => JSON.stringify({ selected_memories: [] }));
    const selector = createHybridSelector({
      candidates: keywordSelector(),
      chooser: createModelSelector({ client }),
    });
    const result = await recall({ memoryDir: dir, query: "login", selector });
    assert.deepEqual(result.selected, []);
    assert.equal(result.fallback, undefined);
    const [candidate] = explainRecall(result);
    assert.equal(candidate.status, "below-floor");
    assert.match(candidate.reason, /not chosen by the model/);
  });

  it("composes any two selectors: the chooser sees the ranked manifest, its failure means fallback", async () => {
    const dir = makeTempDir();
    const at = (file: string, description: string, age: number) => ({
      file,
      path: path.join(dir, file),
      mtimeMs: NOW - age * DAY,
      size: 1,
      type: "feedback" as const,
      description,
    });
    const headers = [
      at("feedback-new.md", "billing", 1),
      at("feedback-login-db.md", "login database rule", 9),
    ];
    const seen: string[][] = [];
    const chooser = (said: Omit<Selection, "picks">, files: string[]): Selector => ({
      name: "chooser",
      async select(request) {
        seen.push(request.headers.map((h) => h.file));
        return { ...said, picks: files.map((file) => ({ file, score: 1, reason: "" })) };
      },
    });
    const request = { query: "login", headers, k: 5, memoryDir: dir };
    const chosen = await createHybridSelector({
      candidates: keywordSelector(),
      chooser: chooser({}, ["feedback-new.md"]),
    }).select(request);
    assert.deepEqual(seen[0], ["feedback-login-db.md", "feedback-new.md"], "ranked first, then the newest");
    assert.deepEqual(chosen.picks, [
      { file: "feedback-new.md", score: 1, reason: "chosen by the model (no lexical match)" },
    ]);
    assert.deepEqual(
      chosen.ranking?.map((p) => p.file),
      ["feedback-login-db.md"],
    );
    const failed = await createHybridSelector({
      candidates: keywordSelector(),
      chooser: chooser({ failure: { kind: "invalid", message: "no JSON" } }, []),
    }).select(request);
    assert.equal(failed.fallback, "model selector failed (invalid: no JSON); used the lexical picks");
    assert.deepEqual(
      failed.picks.map((p) => p.reason),
      ["lexical fallback: matched login"],
    );
  });

  it("an abort propagates instead of falling back", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "feedback-login-db.md": "---\ndescription: login database rule\ntype: feedback\n---\nx\n",
    });
    const controller = new AbortController();
    const client: ModelClient = {
      name: "hanging",
      complete: (request) =>
        new Promise((_resolve, reject) => {
          request.signal?.addEventListener("abort", () => reject(request.signal?.reason));
          controller.abort();
        }),
    };
    const selector = createHybridSelector({
      candidates: keywordSelector(),
      chooser: createModelSelector({ client }),
    });
    await assert.rejects(recall({ memoryDir: dir, query: "login", selector, signal: controller.signal }));
  });
});
