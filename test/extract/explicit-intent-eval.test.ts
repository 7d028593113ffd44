import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseExplicitMemory } from "../../src/extract/explicit-intent.ts";

/**
 * The explicit-request evaluation set (docs/design.md#explicit-remember): realistic developer
 * prompts in English, Chinese and Japanese, each labelled save (with the text to save), forget or
 * none. The rules were tuned on `tuning.json`; `heldout.json` was written with it and not looked at
 * while the rules changed, so its figure is the honest one. `blind-tune.json` and
 * `blind-held-out.json` are a second such pair (docs/design.md#explicit-remember).
 */
interface Case {
  prompt: string;
  expect: "save" | "forget" | "none";
  statement?: string;
}

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/explicit-intent");

function load(name: string): Case[] {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name), "utf8")) as Case[];
}

/** Whether the parser does what the case expects: the right kind, and for a save the right text. */
function correct(item: Case): boolean {
  const intent = parseExplicitMemory(item.prompt);
  if (item.expect === "none") return intent === null;
  if (item.expect === "forget") return intent?.kind === "forget";
  return intent?.kind === "remember" && intent.statement === item.statement;
}

function accuracy(cases: Case[]): { right: number; wrong: string[] } {
  const wrong = cases.filter((item) => !correct(item)).map((item) => item.prompt);
  return { right: cases.length - wrong.length, wrong };
}

describe("explicit requests: the evaluation set", () => {
  // The figures measured when the rules were last changed; a change that loses one fails here.
  for (const [name, size, floor] of [
    ["tuning.json", 153, 153],
    ["heldout.json", 50, 50],
    // A second pair, written together in the words developers type and run once blind (26 and
    // 24 of 30); the rules were then widened on blind-tune.json alone.
    ["blind-tune.json", 30, 30],
    ["blind-held-out.json", 30, 28],
  ] as const) {
    it(`${name}: at least ${floor} of ${size} prompts read right`, () => {
      const cases = load(name);
      assert.equal(cases.length, size);
      const { right, wrong } = accuracy(cases);
      assert.ok(right >= floor, `${right}/${size}; wrong: ${JSON.stringify(wrong, null, 1)}`);
    });
  }
});
