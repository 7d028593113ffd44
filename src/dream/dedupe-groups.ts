import { normalizeText } from "../recall/duplicate-test.ts";
import type { MemoryType, ProgressSink } from "../types.ts";
import { compactComparables, compareCompact, DuplicateCandidates } from "./duplicate-candidates.ts";

/**
 * Offline consolidation (docs/design.md#consolidation), its plan: exact and near-exact duplicate memories, found
 * without a model, grouped to be merged into one file with one index line (pure; `dedupe.ts` reads
 * the memories and applies the groups). Deterministic: the same directory always gives the same
 * plan, so `--propose` and the real run agree.
 */

/** One memory file, read whole. */
export interface MemoryDocument {
  file: string;
  type: MemoryType;
  description: string;
  body: string;
  mtimeMs: number;
  /** True when `MEMORY.md` points at it. */
  indexed: boolean;
  /** The whole file as it was read: a plan is applied only to files that still hold exactly this. */
  text: string;
}

/** Memories that say the same thing: `keep` survives (with `mergedBody`), `remove` go. */
export interface DuplicateGroup {
  type: MemoryType;
  keep: string;
  remove: string[];
  /** `exact`: same description and body once normalized; `near`: high word overlap. */
  reason: "exact" | "near";
  /** Lowest pairwise similarity that joined the group (0..1). */
  similarity: number;
  description: string;
  /** The survivor's body plus any line only a removed copy had, so nothing said is lost. */
  mergedBody: string;
  /**
   * Each member's whole text (`keep` and `remove`) when the plan was made: the group is applied
   * only while every member still holds it (docs/design.md#the-consolidation-run).
   */
  before: Record<string, string>;
}

/** The survivor: the longest body (it says the most), then the indexed one, then the newest, then by name. */
function survivorOrder(a: MemoryDocument, b: MemoryDocument): number {
  if (a.body.trim().length !== b.body.trim().length) return b.body.trim().length - a.body.trim().length;
  if (a.indexed !== b.indexed) return a.indexed ? -1 : 1;
  if (a.mtimeMs !== b.mtimeMs) return b.mtimeMs - a.mtimeMs;
  return a.file < b.file ? -1 : 1;
}

/** The survivor's body plus each line only a removed copy had (compared normalized). */
export function mergeBodies(keep: string, others: readonly string[]): string {
  const seen = new Set(keep.split("\n").map(normalizeText).filter(Boolean));
  const added: string[] = [];
  for (const body of others) {
    for (const line of body.split("\n")) {
      const key = normalizeText(line);
      if (key === "" || seen.has(key)) continue;
      seen.add(key);
      added.push(line.trimEnd());
    }
  }
  if (added.length === 0) return keep;
  return `${keep.replace(/\s+$/, "")}\n${added.join("\n")}\n`;
}

/**
 * Groups duplicate memories (pure). Only memories of the same type are compared. Each group is a
 * survivor and the memories that are duplicates *of the survivor itself*: taken in survivor order,
 * a memory not yet grouped keeps every ungrouped memory it directly matches. Not the connected
 * pairs: there A≈B and B≈C removed C although C and A are different memories (on 2,000 generated
 * memories one chain held 394; docs/design.md#consolidation).
 *
 * @example
 * findDuplicateGroups(docs) // [{keep: "feedback-real-db.md", remove: ["feedback-real-db-2.md"], reason: "exact", …}]
 */
export function findDuplicateGroups(
  memories: readonly MemoryDocument[],
  progress?: ProgressSink,
): DuplicateGroup[] {
  const sorted = [...memories].sort(survivorOrder);
  // Each memory is normalized and segmented once per run, not once per pair, and kept as word ids
  // (docs/design.md#the-consolidation-run).
  const every = (step: string, done: number) => {
    // Once per 256 memories and at the end, not per memory (docs/design.md#progress).
    if (done % 256 === 0 || done === sorted.length) progress?.(step, done, sorted.length);
  };
  const features = compactComparables(sorted, (done) => every("reading words", done));
  // Only the pairs that can be duplicates are compared: the all-pairs loop took 20 minutes at
  // 20,000 memories (docs/benchmarks.md, "Whole commands at 20,000 memories").
  const candidates = new DuplicateCandidates(features);
  const grouped = new Set<number>();
  const groups: DuplicateGroup[] = [];
  for (let i = 0; i < sorted.length; i++) {
    every("comparing memories", i + 1);
    if (grouped.has(i)) continue;
    // Survivor order puts the survivor first, so its duplicates all come after it; those already
    // grouped under an earlier survivor are never compared again.
    const copies: [number, { reason: "exact" | "near"; similarity: number }][] = [];
    for (const j of candidates.after(i)) {
      if (grouped.has(j)) continue;
      const kind = compareCompact(features[i], features[j]);
      if (kind) copies.push([j, kind]);
    }
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

/**
 * A one-line summary of a dedupe plan, for history and the CLI: "merged a.md into b.md (exact)"
 * once done, "would merge a.md into b.md (exact)" for a proposal, which has changed nothing yet.
 */
export function describeGroups(
  groups: readonly DuplicateGroup[],
  state: "done" | "proposed" = "done",
): string {
  if (groups.length === 0) return "no duplicate memories";
  const verb = state === "done" ? "merged" : "would merge";
  return groups.map((g) => `${verb} ${g.remove.join(", ")} into ${g.keep} (${g.reason})`).join("; ");
}
