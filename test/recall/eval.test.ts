import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../src/errors.ts";
import { readEvalQueries, runEval } from "../../src/recall/eval.ts";
import { LexicalIndexCache } from "../../src/recall/lexical/index/lexical-index.ts";
import { createLexicalSelector } from "../../src/recall/select-lexical.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const EVAL_SMALL = path.resolve(import.meta.dirname, "../fixtures/eval-small");

describe("runEval", () => {
  it("scores the lexical selector on a fixture with known answers", async () => {
    const report = await runEval({
      dataDir: EVAL_SMALL,
      selector: createLexicalSelector({ cache: new LexicalIndexCache() }),
      k: 5,
    });
    // Per query: 1, 1, 1/2 (the pnpm note shares no word with the freeze question), 1, 0 (nothing matches).
    assert.equal(report.queries, 5);
    assert.equal(report.k, 5);
    assert.equal(report.selector, "lexical");
    assert.equal(report.recallAtK, 0.7);
    assert.equal(report.anyHitAtK, 0.8);
    assert.deepEqual(report.byCategory, {
      rules: { queries: 2, recallAtK: 0.75, anyHitAtK: 1 },
      preferences: { queries: 2, recallAtK: 0.5, anyHitAtK: 0.5 },
      references: { queries: 1, recallAtK: 1, anyHitAtK: 1 },
    });
    assert.ok(report.msPerQuery.p50 >= 0 && report.msPerQuery.p95 >= report.msPerQuery.p50);
  });

  it("with k = 1 a two-file answer can reach at most one half", async () => {
    const report = await runEval({
      dataDir: EVAL_SMALL,
      selector: createLexicalSelector({ cache: new LexicalIndexCache() }),
      k: 1,
    });
    assert.equal(report.byCategory.rules.recallAtK, 0.75);
  });

  it("uses the data dir itself as the memory dir when a query has no conv", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "queries.jsonl": `${JSON.stringify({ question: "what is the deploy pipeline?", gold: ["project-deploy.md"] })}\n`,
      "project-deploy.md": "---\ndescription: deploy pipeline\ntype: project\n---\nBlue/green via Argo.\n",
    });
    const report = await runEval({
      dataDir: dir,
      selector: createLexicalSelector(),
    });
    assert.equal(report.recallAtK, 1);
    assert.deepEqual(report.byCategory, {});
  });

  it("names the file and line of a malformed query", async () => {
    const dir = makeTempDir();
    writeTree(dir, { "queries.jsonl": '{"question":"ok","gold":["a.md"]}\n\n{"question":"no gold"}\n' });
    await assert.rejects(readEvalQueries(dir), (error) => {
      assert.ok(isMemdirError(error, "invalid-input"));
      assert.match(error.message, /queries\.jsonl:3: "gold"/);
      return true;
    });
  });

  it("refuses a conv that points outside the data dir", async () => {
    const dir = makeTempDir();
    writeTree(dir, { "queries.jsonl": '{"question":"q","gold":["a.md"],"conv":".."}\n' });
    await assert.rejects(readEvalQueries(dir), /"conv" must be a folder name/);
  });

  it("says what is missing when the data dir has no queries.jsonl", async () => {
    const dir = makeTempDir();
    fs.mkdirSync(path.join(dir, "empty"));
    await assert.rejects(readEvalQueries(path.join(dir, "empty")), (error) =>
      isMemdirError(error, "not-found"),
    );
  });
});
