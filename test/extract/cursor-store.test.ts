import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  CURSOR_PRUNE_AGE_MS,
  loadTranscriptCursor,
  pruneOrphanCursors,
  saveTranscriptCursor,
} from "../../src/extract/cursor-store.ts";
import { makeTempDir } from "../helpers/temp.ts";

const NOW = Date.parse("2026-11-30T12:00:00Z");

describe("transcript cursors", () => {
  it("round-trip per transcript and survive other transcripts' saves", async () => {
    const memoryDir = makeTempDir();
    const sessions = makeTempDir();
    const a = path.join(sessions, "a.jsonl");
    const b = path.join(sessions, "b.jsonl");
    await saveTranscriptCursor(memoryDir, a, "m4");
    await saveTranscriptCursor(memoryDir, b, "m9");
    assert.equal(await loadTranscriptCursor(memoryDir, a), "m4");
    assert.equal(await loadTranscriptCursor(memoryDir, b), "m9");
    assert.equal(await loadTranscriptCursor(memoryDir, path.join(sessions, "c.jsonl")), null);
  });

  it("prune only old cursors of deleted transcripts, and only past the threshold", async () => {
    const memoryDir = makeTempDir();
    const sessions = makeTempDir();
    const old = () => NOW - CURSOR_PRUNE_AGE_MS - 1000;
    const transcript = (name: string, exists: boolean) => {
      const file = path.join(sessions, name);
      if (exists) fs.writeFileSync(file, "{}\n");
      return file;
    };
    const goneOld = [0, 1, 2].map((i) => transcript(`gone-old-${i}.jsonl`, false));
    const goneRecent = transcript("gone-recent.jsonl", false); // e.g. a session on a synced machine
    const keptOld = transcript("kept-old.jsonl", true);
    for (const file of [...goneOld, keptOld]) await saveTranscriptCursor(memoryDir, file, "m1", old);
    await saveTranscriptCursor(memoryDir, goneRecent, "m1", () => NOW);

    assert.equal(
      await pruneOrphanCursors(memoryDir, { now: () => NOW }),
      0,
      "5 cursors: under the threshold",
    );
    assert.equal(await pruneOrphanCursors(memoryDir, { threshold: 2, now: () => NOW }), 3);
    for (const file of goneOld) assert.equal(await loadTranscriptCursor(memoryDir, file), null);
    assert.equal(await loadTranscriptCursor(memoryDir, goneRecent), "m1");
    assert.equal(await loadTranscriptCursor(memoryDir, keptOld), "m1");

    // At most one look a day: it reads every cursor file.
    const another = transcript("gone-old-3.jsonl", false);
    await saveTranscriptCursor(memoryDir, another, "m1", old);
    const later = (hours: number) => () => NOW + hours * 3_600_000;
    assert.equal(await pruneOrphanCursors(memoryDir, { threshold: 2, now: later(1) }), 0);
    assert.equal(await pruneOrphanCursors(memoryDir, { threshold: 2, now: later(25) }), 1);
  });
});
