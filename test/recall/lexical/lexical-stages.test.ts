import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../src/recall/lexical/index/lexical-index.ts";
import type { LexicalPick, LexicalTuning } from "../../../src/recall/lexical/index/types.ts";
import { createLexicalSelector } from "../../../src/recall/select-lexical.ts";
import { makeTempDir } from "../../helpers/temp.ts";

// One behaviour test per re-ranking stage of the lexical selector: each builds a memory dir in
// which one memory wins (or loses) because of that stage, and shows the pick change when the
// stage is turned off. Word vectors are off (`wordVectors: null`) so that the related-word
// stage (test/recall/related-words.test.ts) cannot blur what the stage under test does.

const NOW = Date.parse("2026-08-10T12:00:00Z");
const DAY = 86_400_000;

interface Note {
  file: string;
  description: string;
  body: string;
  /** Save time, as milliseconds before NOW. */
  savedAgoMs: number;
}

function makeDir(notes: readonly Note[]): string {
  const dir = makeTempDir("memdir-stages-");
  for (const note of notes) {
    const file = path.join(dir, note.file);
    fs.writeFileSync(file, `---\ndescription: ${note.description}\ntype: project\n---\n${note.body}\n`);
    const time = new Date(NOW - note.savedAgoMs);
    fs.utimesSync(file, time, time);
  }
  return dir;
}

async function select(
  dir: string,
  query: string,
  tuning: Partial<LexicalTuning> = {},
  k = 5,
): Promise<LexicalPick[]> {
  const headers = await scanHeaders(dir, { cache: new HeaderCache() });
  const selector = createLexicalSelector({ cache: new LexicalIndexCache(), tuning, wordVectors: null });
  return (await selector.select({ query, headers, k, memoryDir: dir })).picks as LexicalPick[];
}

const files = (picks: readonly LexicalPick[]) => picks.map((pick) => pick.file);

/** `count` lines of words no query below uses (each line different, so no line repeats a word). */
function filler(count: number, topic: string): string {
  return Array.from(
    { length: count },
    (_, i) => `${topic} remark ${i + 1} about weather, lunch and traffic`,
  ).join("\n");
}

describe("lexical ranking stages", () => {
  it("passage: a long note that says both query words in one line beats one that says them often but far apart", async () => {
    const together = [
      filler(5, "alpha"),
      "Melanie camping at the lake: her best summer weekend.",
      filler(5, "beta"),
    ].join("\n");
    const apart = [
      "Melanie called.",
      filler(4, "gamma"),
      "Melanie wrote again.",
      filler(4, "delta"),
      "The camping gear is in the garage.",
      filler(4, "epsilon"),
      "Camping stoves were on sale.",
    ].join("\n");
    const dir = makeDir([
      { file: "diary-together.md", description: "diary of one month", body: together, savedAgoMs: 9 * DAY },
      { file: "diary-apart.md", description: "diary of another month", body: apart, savedAgoMs: 3 * DAY },
      {
        file: "diary-other.md",
        description: "diary of a quiet month",
        body: filler(12, "zeta"),
        savedAgoMs: 6 * DAY,
      },
    ]);
    const query = "When did Melanie go camping?";
    assert.deepEqual(files(await select(dir, query, {}, 1)), ["diary-together.md"]);
    // Without passages the words' counts decide, and the note that merely repeats them wins.
    assert.deepEqual(files(await select(dir, query, { passageWeight: 0 }, 1)), ["diary-apart.md"]);
  });

  it("saved together: a note saved in the same minute as the best match ranks above an equally weak, newer one", async () => {
    const dir = makeDir([
      {
        file: "trip-itinerary.md",
        description: "Lisbon trip itinerary: flights, hotel and museum tickets",
        body: "Lisbon trip: fly out Friday, hotel near the museum, tickets booked.",
        savedAgoMs: 10 * DAY,
      },
      {
        // Saved by the same extraction run as the itinerary, 20 seconds later.
        file: "trip-packing.md",
        description: "packing list for the trip",
        body: "Pack the adapter and a rain jacket.",
        savedAgoMs: 10 * DAY - 20_000,
      },
      {
        file: "old-trip-receipts.md",
        description: "receipts from the trip",
        body: "Keep the taxi receipts in the blue folder.",
        savedAgoMs: 2 * DAY,
      },
      {
        file: "unrelated.md",
        description: "garden watering schedule",
        body: "Water the tomatoes at dawn.",
        savedAgoMs: 30 * DAY,
      },
    ]);
    const query = "what is planned for the Lisbon trip?";
    const picks = await select(dir, query);
    assert.deepEqual(files(picks), ["trip-itinerary.md", "trip-packing.md", "old-trip-receipts.md"]);
    assert.match(picks[1].reason, /saved together with trip-itinerary\.md/);
    const alone = await select(dir, query, { neighborWeight: 0 });
    assert.deepEqual(files(alone), ["trip-itinerary.md", "old-trip-receipts.md", "trip-packing.md"]);
  });

  it("recency: of two notes that say nearly the same, the newer one wins", async () => {
    const dir = makeDir([
      {
        file: "standup-time-old.md",
        description: "team standup meeting time",
        body: `The standup meeting is at 9:30 in room four.\n${filler(3, "eta")}`,
        savedAgoMs: 90 * DAY,
      },
      {
        // One word longer, so by words alone it scores a little lower.
        file: "standup-time-new.md",
        description: "team standup meeting time",
        body: `The standup meeting moved to 10:00 in room four.\n${filler(3, "theta")}`,
        savedAgoMs: 1 * DAY,
      },
      {
        file: "holiday.md",
        description: "office closed on the holiday",
        body: filler(4, "iota"),
        savedAgoMs: 45 * DAY,
      },
    ]);
    const query = "when is the standup meeting?";
    assert.deepEqual(files(await select(dir, query, {}, 1)), ["standup-time-new.md"]);
    assert.deepEqual(files(await select(dir, query, { recencyWeight: 0 }, 1)), ["standup-time-old.md"]);
  });

  it("feedback: the second half of a two-part answer, which shares only a common word with the question, is found", async () => {
    const other = (n: number) => ({
      file: `errand-${n}.md`,
      description: `errand ${n}`,
      body: `Pick up the ${["parcel", "bicycle", "prescription", "laundry"][n]} before noon.`,
      savedAgoMs: (30 + n) * DAY,
    });
    const dir = makeDir([
      {
        file: "note-vacation.md",
        description: "Caroline's summer plans",
        body: "Caroline spent her vacation in Sweden.",
        savedAgoMs: 40 * DAY,
      },
      {
        // The answer's second half: where in Sweden. It never says "vacation".
        file: "note-cities.md",
        description: "Caroline toured",
        body: "Caroline saw Stockholm and Uppsala in Sweden.",
        savedAgoMs: 60 * DAY,
      },
      {
        // As long as the note above and newer, so by the question's words alone it ranks first.
        file: "note-hobby.md",
        description: "Caroline's hobby",
        body: "Caroline paints portraits and landscapes on Sundays.",
        savedAgoMs: 10 * DAY,
      },
      other(0),
      other(1),
      other(2),
      other(3),
    ]);
    const query = "Where did Caroline go on vacation?";
    assert.deepEqual(files(await select(dir, query, {}, 2)), ["note-vacation.md", "note-cities.md"]);
    // Without feedback, "Sweden" (learnt from the best match) counts for nothing.
    assert.deepEqual(files(await select(dir, query, { feedbackWeight: 0 }, 2)), [
      "note-vacation.md",
      "note-hobby.md",
    ]);
  });

  it("floor: a note that barely matches is not recalled just because it was saved next to the right answer", async () => {
    const dir = makeDir([
      {
        file: "feedback-login-tests.md",
        description: "login integration tests must hit the real database, never mocks",
        body: "Login integration tests run against the real database; mocking it hid a broken migration.",
        savedAgoMs: 5 * DAY,
      },
      {
        // Saved by the same run, about something else that happens to mention tests once.
        file: "project-release-dates.md",
        description: "release calendar for the autumn",
        body: `Release 4.2 ships in October after the tests are green.\n${filler(6, "kappa")}`,
        savedAgoMs: 5 * DAY - 30_000,
      },
      {
        file: "user-editor.md",
        description: "prefers vim keybindings",
        body: "Uses vim keybindings everywhere.",
        savedAgoMs: 20 * DAY,
      },
    ]);
    const query = "fix the failing login integration tests against the database";
    const picks = await select(dir, query);
    assert.deepEqual(files(picks), ["feedback-login-tests.md"]);
    // Without a floor the release note is a candidate, and the save-burst share lifts its final
    // score over a quarter of the best: judged after smoothing, it would have been recalled.
    const unfloored = await select(dir, query, { relativeFloor: 0 });
    assert.deepEqual(files(unfloored), ["feedback-login-tests.md", "project-release-dates.md"]);
    assert.match(unfloored[1].reason, /saved together with feedback-login-tests\.md/);
    assert.ok(unfloored[1].score >= 0.25 * unfloored[0].score, JSON.stringify(unfloored));
  });
});
