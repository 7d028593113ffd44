// The offline merge compares only candidate pairs (src/dream/duplicate-candidates.ts) so it scales
// to 20,000 memories; this checks, on generated directories with planted duplicates, that it
// finds exactly the groups the all-pairs comparison found.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { loadMemoryDocuments } from "../../src/dream/dedupe.ts";
import {
  type DuplicateGroup,
  findDuplicateGroups,
  type MemoryDocument,
  mergeBodies,
} from "../../src/dream/dedupe-groups.ts";
import { comparable, compareComparable } from "../../src/recall/duplicate-test.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { seededRandom, testSeed } from "../helpers/random.ts";
import { makeTempDir } from "../helpers/temp.ts";

/** The straightforward plan, as it was before candidate pairs: every pair of one type compared. */
function allPairsGroups(memories: readonly MemoryDocument[]): DuplicateGroup[] {
  const survivorOrder = (a: MemoryDocument, b: MemoryDocument): number => {
    if (a.body.trim().length !== b.body.trim().length) return b.body.trim().length - a.body.trim().length;
    if (a.indexed !== b.indexed) return a.indexed ? -1 : 1;
    if (a.mtimeMs !== b.mtimeMs) return b.mtimeMs - a.mtimeMs;
    return a.file < b.file ? -1 : 1;
  };
  const sorted = [...memories].sort(survivorOrder);
  const features = sorted.map(comparable);
  const matches = sorted.map(() => new Map<number, { reason: "exact" | "near"; similarity: number }>());
  for (let i = 0; i < sorted.length; i++)
    for (let j = i + 1; j < sorted.length; j++) {
      if (sorted[i].type !== sorted[j].type) continue;
      const kind = compareComparable(features[i], features[j]);
      if (kind) matches[i].set(j, kind);
    }
  const grouped = new Set<number>();
  const groups: DuplicateGroup[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (grouped.has(i)) continue;
    const copies = [...matches[i]].filter(([j]) => !grouped.has(j));
    if (copies.length === 0) continue;
    grouped.add(i);
    for (const [j] of copies) grouped.add(j);
    const keep = sorted[i];
    const rest = copies.map(([j]) => sorted[j]);
    groups.push({
      type: keep.type,
      keep: keep.file,
      remove: rest.map((d) => d.file),
      reason: copies.every(([, kind]) => kind.reason === "exact") ? "exact" : "near",
      similarity: Math.min(...copies.map(([, kind]) => kind.similarity)),
      description: keep.description,
      mergedBody: mergeBodies(
        keep.body,
        rest.map((d) => d.body),
      ),
      before: Object.fromEntries([keep, ...rest].map((d) => [d.file, d.text])),
    });
  }
  return groups.sort((a, b) => (a.keep < b.keep ? -1 : 1));
}

const WORDS = [
  ..."deploy staging database migration login cache token retry queue webhook schema index parser release rollback flag metric alert dashboard budget review commit branch merge build lint test mock fixture runner worker cluster region latency quota backup restore secret vault proxy gateway session cookie locale payment invoice refund export import report".split(
    " ",
  ),
  ..."部署 数据库 缓存 登录 测试 发布 回滚 监控 告警 配置".split(" "),
];
const TYPES = ["user", "feedback", "project", "reference"] as const;

/**
 * A memory dir of about `count` memories: random texts of 2–120 words, and copies of some of them
 * planted with the edits that sit around the thresholds (a word changed, added or dropped; the
 * same description with a longer body; other case and punctuation; the same text as another type).
 */
function plantedDir(seed: number, count: number): string {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const dir = makeTempDir();
  const originals: { description: string; body: string; type: string }[] = [];
  const mutate = (text: string): string => {
    const parts = text.split(" ");
    const edits = 1 + Math.floor(random() * 3);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(random() * (parts.length + 1));
      const kind = random();
      if (kind < 0.4) parts.splice(at, 1, `fresh${Math.floor(random() * 50)}`);
      else if (kind < 0.7) parts.splice(at, 0, pick(WORDS));
      else parts.splice(at, 1);
    }
    return parts.join(" ");
  };
  for (let i = 0; i < count; i++) {
    let next: { description: string; body: string; type: string };
    const roll = random();
    if (originals.length > 0 && roll < 0.45) {
      const base = pick(originals);
      const variant = random();
      if (variant < 0.3) next = { ...base, body: mutate(base.body) };
      else if (variant < 0.5)
        next = { ...base, description: mutate(base.description), body: mutate(base.body) };
      else if (variant < 0.65)
        next = { ...base, body: `${base.body}\n${words(1 + Math.floor(random() * 6))}` };
      else if (variant < 0.8)
        next = { ...base, description: `${base.description.toUpperCase()}!`, body: `${base.body}.` };
      else if (variant < 0.9) next = { ...base, type: pick(TYPES) };
      else next = { ...base, description: words(3), body: mutate(base.body) };
    } else {
      const size = random() < 0.2 ? 1 + Math.floor(random() * 4) : 5 + Math.floor(random() * 115);
      next = { description: words(1 + Math.floor(random() * 8)), body: words(size), type: pick(TYPES) };
      originals.push(next);
    }
    const folder = random() < 0.1 ? "team/" : "";
    writeMemory(
      dir,
      `${folder}m-${String(i).padStart(4, "0")}.md`,
      memory(next.description, next.body, next.type),
      new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 50) * 86_400_000),
    );
  }
  return dir;
}

describe("duplicate groups from candidate pairs", () => {
  it("equal the all-pairs groups on directories with planted near-duplicates", async (t) => {
    const seed = testSeed();
    t.diagnostic(`seed ${seed}`);
    for (let run = 0; run < 3; run++) {
      const dir = plantedDir(seed + run, 300);
      const documents = await loadMemoryDocuments(dir);
      const expected = allPairsGroups(documents);
      assert.ok(expected.length >= 10, `the planted copies make groups (seed ${seed + run})`);
      assert.ok(
        expected.some((g) => g.reason === "near") && expected.some((g) => g.reason === "exact"),
        `both kinds planted (seed ${seed + run})`,
      );
      const actual = findDuplicateGroups(documents);
      // The first group that differs, not a diff of the whole plan (node's diff of two large plans
      // takes minutes).
      const at = expected.findIndex((group, i) => !isDeepStrictEqual(group, actual[i]));
      assert.deepEqual(
        at === -1 ? null : actual[at],
        at === -1 ? null : expected[at],
        `group ${at} of ${expected.length}, MEMDIR_TEST_SEED=${seed + run}`,
      );
      assert.equal(actual.length, expected.length, `MEMDIR_TEST_SEED=${seed + run}`);
    }
  });
});
