import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const EVAL_SMALL = path.resolve(import.meta.dirname, "../fixtures/eval-small");

describe("memdir eval", () => {
  it("prints the report as JSON with exactly the documented fields", async () => {
    const home = makeTempDir();
    const result = await runCliInProcess(
      ["eval", "--data", EVAL_SMALL, "--selector", "lexical", "--k", "5", "--json"],
      {
        home,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(report).sort(), [
      "anyHitAtK",
      "byCategory",
      "k",
      "msPerQuery",
      "queries",
      "recallAtK",
      "selector",
    ]);
    assert.equal(report.queries, 5);
    assert.equal(report.selector, "lexical");
    assert.equal(report.recallAtK, 0.7);
    assert.equal(report.anyHitAtK, 0.8);
    assert.deepEqual(report.byCategory.rules, { queries: 2, recallAtK: 0.75, anyHitAtK: 1 });
    assert.deepEqual(Object.keys(report.msPerQuery).sort(), ["p50", "p95"]);
  });

  it("prints a table per category by default, offline", async () => {
    const home = makeTempDir();
    const result = await runCliInProcess(["eval", "--data", EVAL_SMALL], { home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /5 queries, selector lexical, k = 5/);
    assert.match(result.stdout, /^rules\s+2\s+0\.750\s+1\.000$/m);
    assert.match(result.stdout, /^all\s+5\s+0\.700\s+0\.800$/m);
    assert.match(result.stdout, /p50 [\d.]+ ms, p95 [\d.]+ ms/);
  });

  it("exits 2 on a bad --k and 1 with a clear message when queries.jsonl is missing", async () => {
    const home = makeTempDir();
    const badK = await runCliInProcess(["eval", "--data", EVAL_SMALL, "--k", "zero"], { home });
    assert.equal(badK.code, 2);
    assert.match(badK.stderr, /--k must be a positive whole number/);
    const empty = makeTempDir();
    writeTree(empty, { "note.md": "---\ndescription: x\ntype: user\n---\nx\n" });
    const missing = await runCliInProcess(["eval", "--data", empty], { home });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /queries\.jsonl/);
  });

  it("refuses --selector model when no model is configured", async () => {
    const home = makeTempDir();
    const result = await runCliInProcess(["eval", "--data", EVAL_SMALL, "--selector", "model"], { home });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "", "no table for a run that cannot select");
    assert.equal(
      result.stderr,
      "memdir: no model configured: set ANTHROPIC_API_KEY (or OPENAI_API_KEY, or MEMDIR_PROVIDER=openai with OPENAI_BASE_URL for a local server)\n",
    );
  });
});
