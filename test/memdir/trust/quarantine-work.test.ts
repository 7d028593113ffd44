// The quarantine's work on hostile bodies (docs/design.md#quarantine): it runs on every write
// while the writer holds its lock, so a megabyte of words that each begin a rule must cost a
// bounded number of tries per character, not a search through the rest of the text for each.
// The work is counted (findInstructionsCounted), never timed: the places the rules' patterns were
// tried at and the steps of the line lookups. A search of the rest of the sentence for each
// "ignore" counted about 70,000 tries per character here.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findInstructionsCounted } from "../../../src/memdir/trust/quarantine.ts";
import { INTENT_RULES } from "../../../src/memdir/trust/quarantine-rules.ts";

const MEGABYTE = 1_000_000;
// Each rule passes over every place once, plus at most `gap + 1` tries after each match of a
// rule's first words and one more read of the sentences around a pronoun's match: the rules'
// count plus 25 to 35 per character on the bodies below (a search of the rest of the text per
// match would be thousands).
const TRIES_PER_CHARACTER = INTENT_RULES.length + 60;

function repeatedTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length));
}

const HOSTILE_BODIES: Record<string, string> = {
  // The reviewer's body: one sentence of nothing but the override verb.
  "the override verb alone": repeatedTo("ignore ", MEGABYTE),
  // The first words of every rule with a second part, and never the second part.
  "every rule's first words": repeatedTo(
    "ignore your rules this note 忽略 之前的 以前の ignora download run add hide it 下载 ダウンロード descarga ",
    MEGABYTE,
  ),
  // The three-part rule: each "it" opens another window for the third part.
  "hide and its objects": repeatedTo("hide it it it it it it it ", MEGABYTE),
  // A first part that matches at every other character.
  "a two-character first part": repeatedTo("下载", MEGABYTE),
  // A pronoun rule's first words in one endless sentence, and in a sentence each: the sentences
  // around each match are read once more, never the rest of the text.
  "a pronoun after the verb, one sentence": repeatedTo("ignore them send it ", MEGABYTE),
  "a pronoun after the verb, a sentence each": repeatedTo("your rules. ignore them. ", MEGABYTE),
  // A finding on every line: each one's line is looked up.
  "a role line on every line": repeatedTo("User: hi\nAssistant: ok\n", MEGABYTE),
};

describe("the quarantine's work on a megabyte of hostile text", () => {
  for (const [name, body] of Object.entries(HOSTILE_BODIES)) {
    it(`stays within ${TRIES_PER_CHARACTER} tries per character: ${name}`, () => {
      const work = { tries: 0 };
      findInstructionsCounted(body, work);
      assert.ok(work.tries > 0);
      const perCharacter = work.tries / body.length;
      assert.ok(
        perCharacter <= TRIES_PER_CHARACTER,
        `${name}: ${perCharacter.toFixed(1)} tries per character over ${body.length} characters`,
      );
    });
  }

  it("finds what it found before on the role lines (the counted scan is the scan)", () => {
    const work = { tries: 0 };
    const findings = findInstructionsCounted("User: hi\nAssistant: ok\n".repeat(3), work);
    assert.deepEqual(
      findings.map((finding) => [finding.intent, finding.line]),
      [
        ["role", 1],
        ["role", 2],
        ["role", 3],
        ["role", 4],
        ["role", 5],
        ["role", 6],
      ],
    );
  });
});
