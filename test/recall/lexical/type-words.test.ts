import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { nameWithoutType } from "../../../src/recall/lexical/index/corpus.ts";
import { LexicalIndexCache } from "../../../src/recall/lexical/index/lexical-index.ts";
import { createLexicalSelector } from "../../../src/recall/select-lexical.ts";
import { MEMORY_TYPES } from "../../../src/types.ts";
import { makeTempDir } from "../../helpers/temp.ts";

// A web project's memories with derived `<type>-<slug>.md` names, and prompts that say "user",
// "feedback", "project" or "reference" about the app (test/fixtures/recall-type-words, README
// there; docs/design.md#memory-types-are-no-evidence).
const FIXTURE = path.resolve(import.meta.dirname, "../../fixtures/recall-type-words");

interface Query {
  half: string;
  question: string;
  gold: string[];
}

const queries: Query[] = fs
  .readFileSync(path.join(FIXTURE, "queries.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as Query);

async function selectorOverFixture() {
  const memoryDir = path.join(makeTempDir("memdir-type-words-"), "web");
  fs.cpSync(path.join(FIXTURE, "web"), memoryDir, { recursive: true });
  const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
  const selector = createLexicalSelector({ cache: new LexicalIndexCache() });
  return async (query: string) => (await selector.select({ query, headers, k: 5, memoryDir })).picks;
}

/** The exact evidence `--explain` gives for a pick: `[field, word]` pairs, related words and notes left out. */
function matchedWords(reason: string): [string, string][] {
  const matched = /^matched (.*?)(?:; (?:related|saved together|answer after|date):|$)/.exec(reason)?.[1];
  if (matched === undefined) return [];
  return matched.split("; ").flatMap((part) => {
    const [field, words = ""] = part.split(": ");
    return words.split(", ").map((word): [string, string] => [field, word]);
  });
}

describe("memory types are no evidence", () => {
  it("a prompt that matches nothing and names one type asks for that kind: its newest memories", async () => {
    const select = await selectorOverFixture();
    for (const [query, type] of [
      ["user preferences", "user"],
      ["tell me about the user", "user"],
      ["list my feedback", "feedback"],
    ] as const) {
      const picks = await select(query);
      assert.ok(picks.length > 0, `${query}: nothing recalled`);
      for (const pick of picks) assert.ok(pick.file.startsWith(`${type}-`), `${query} → ${pick.file}`);
    }
    // One that matches words keeps its own picks, with no memory added for the type word.
    const words = await select("add a feedback form to the settings page");
    assert.ok(words.length > 0 && words.every((pick) => pick.score > 0), JSON.stringify(words));
  });

  it("no pick of an app-word prompt rests on the type field or the type prefix of its name", async () => {
    const select = await selectorOverFixture();
    const types = new Set(MEMORY_TYPES.flatMap((type) => [type, `${type}s`]));
    const offending: string[] = [];
    for (const query of queries.filter((q) => q.half === "tuning" || q.half === "held-out")) {
      for (const pick of await select(query.question)) {
        const words = matchedWords(pick.reason);
        const typeEvidence = words.some(([field]) => field === "type");
        const onlyTypeNames =
          words.length > 0 && words.every(([field, word]) => field === "name" && types.has(word));
        if (typeEvidence || onlyTypeNames) offending.push(`${query.question} → ${pick.file}: ${pick.reason}`);
      }
    }
    assert.deepEqual(offending, []);
  });

  it("a prompt about the app's users picks the memory about its subject, and no user-type memory", async () => {
    const select = await selectorOverFixture();
    const picks = await select("update the user profile avatar upload");
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["project-image-uploads-go-s3-presigned-urls.md"],
    );
    const feedback = await select("add a feedback form to the settings page");
    assert.equal(feedback[0]?.file, "project-settings-pages-server-components-under-app-settings.md");
    assert.ok(!feedback.some((pick) => /\btype: /.test(pick.reason)), JSON.stringify(feedback));
  });

  it("a question about the user still finds the memory that answers it, on its own words", async () => {
    const select = await selectorOverFixture();
    const picks = await select("user preferences for answers");
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["user-prefers-short-answers-code-first.md"],
    );
  });

  it("reads a file name without its leading type word", () => {
    assert.equal(nameWithoutType("feedback-pnpm-never-npm-yarn.md"), "pnpm-never-npm-yarn");
    assert.equal(nameWithoutType("user_role.md"), "role");
    assert.equal(nameWithoutType("user.md"), "");
    assert.equal(nameWithoutType("team/project-release-freeze.md"), "team/release-freeze");
    // Only a whole leading word: "users-table" and "projection" are words of the memory.
    assert.equal(nameWithoutType("users-table.md"), "users-table");
    assert.equal(nameWithoutType("projection-notes.md"), "projection-notes");
    assert.equal(nameWithoutType("project/user-prefs.md"), "project/prefs");
  });
});
