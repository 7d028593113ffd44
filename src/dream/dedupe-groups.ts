import { NEEDS_SEGMENTER, segmentPieces, wordSegmenter } from "../recall/lexical/text/segment.ts";
import type { MemoryType } from "../types.ts";

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

/** Word overlap at or above which two memories of one type are near-duplicates. */
export const NEAR_DUPLICATE_JACCARD = 0.85;
/** With the same description, the bodies need this much overlap. */
export const SAME_DESCRIPTION_BODY_JACCARD = 0.6;
/** …or the smaller body's words must nearly all be in the other. */
export const SAME_DESCRIPTION_CONTAINMENT = 0.9;
// Tiny memories share most of their few words by chance ("use pnpm" / "use npm").
const MIN_TOKENS_FOR_NEAR = 4;
/**
 * How much of a memory's normalized text its word sets are made from (docs/design.md#long-input):
 * the part recall indexes (64 KB). A 5 MB memory costs what a long note costs; two that differ
 * only past this point are near-duplicates, and the merge still keeps every line either has.
 */
export const DEDUPE_MAX_CHARS = 64 * 1024;

/** Lower-case, NFKC, punctuation and spacing removed: equal text reads equal. */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The set of words (for CJK: the segmenter's words) of a text, from its first
 * {@link DEDUPE_MAX_CHARS} characters once normalized.
 */
export function wordSet(text: string): Set<string> {
  return wordsOfNormalized(normalizeText(text));
}

function wordsOfNormalized(normalized: string): Set<string> {
  let capped = normalized;
  if (capped.length > DEDUPE_MAX_CHARS) {
    capped = capped.slice(0, DEDUPE_MAX_CHARS);
    const lastSpace = capped.lastIndexOf(" ");
    if (lastSpace > 0) capped = capped.slice(0, lastSpace); // no half word
  }
  // Normalized text is words between single spaces. The segmenter costs ~3 µs a segment, so it
  // only sees the words of scripts written without spaces (and odd ones): 2,000 memories in
  // 10 s became 0.2 s, with the same words.
  const words = new Set<string>();
  for (const word of capped.split(" ")) {
    if (PLAIN_WORD.test(word) && !NEEDS_SEGMENTER.test(word)) words.add(word);
    else
      for (const piece of segmentPieces(word))
        for (const part of wordSegmenter.segment(piece)) if (part.isWordLike) words.add(part.segment);
  }
  return words;
}

// Letters, digits and combining marks only: one word-like segment, as the segmenter would say.
const PLAIN_WORD = /^[\p{L}\p{N}\p{M}]+$/u;

/** |A ∩ B| / |A ∪ B|; two empty sets are identical. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const shared = sharedCount(a, b);
  return shared / (a.size + b.size - shared);
}

/** |A ∩ B| / min(|A|, |B|): how much of the smaller set the larger one holds. */
export function containment(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (Math.min(a.size, b.size) === 0) return 0;
  return sharedCount(a, b) / Math.min(a.size, b.size);
}

function sharedCount(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared;
}

/** What the comparison of two memories needs, computed once per memory per run. */
interface Comparable {
  description: string;
  body: string;
  bodyWords: Set<string>;
  allWords: Set<string>;
}

/** The normalized texts and word sets of one memory (each body normalized and segmented once). */
function comparable(memory: Pick<MemoryDocument, "description" | "body">): Comparable {
  const description = normalizeText(memory.description);
  const body = normalizeText(memory.body);
  // The same as normalizing `${description}\n${body}`: the newline becomes the space between them.
  const all = [description, body].filter(Boolean).join(" ");
  return { description, body, bodyWords: wordsOfNormalized(body), allWords: wordsOfNormalized(all) };
}

/** How alike two memories of the same type are, or null when they are not duplicates. */
export function duplicateKind(
  a: Pick<MemoryDocument, "description" | "body">,
  b: Pick<MemoryDocument, "description" | "body">,
): { reason: "exact" | "near"; similarity: number } | null {
  return compare(comparable(a), comparable(b));
}

function compare(a: Comparable, b: Comparable): { reason: "exact" | "near"; similarity: number } | null {
  const sameDescription = a.description === b.description;
  if (sameDescription && a.body === b.body) return { reason: "exact", similarity: 1 };
  const bodyA = a.bodyWords;
  const bodyB = b.bodyWords;
  if (sameDescription && Math.min(bodyA.size, bodyB.size) > 0) {
    const similarity = jaccard(bodyA, bodyB);
    // Same description and one body (nearly) inside the other: the longer one is an update of the shorter.
    if (
      similarity >= SAME_DESCRIPTION_BODY_JACCARD ||
      containment(bodyA, bodyB) >= SAME_DESCRIPTION_CONTAINMENT
    )
      return { reason: "near", similarity };
  }
  const allA = a.allWords;
  const allB = b.allWords;
  const smaller = Math.min(allA.size, allB.size);
  if (smaller < MIN_TOKENS_FOR_NEAR) return null;
  // Jaccard can reach the threshold only when the sizes are that close: most pairs stop here.
  if (smaller < NEAR_DUPLICATE_JACCARD * Math.max(allA.size, allB.size)) return null;
  const similarity = jaccard(allA, allB);
  return similarity >= NEAR_DUPLICATE_JACCARD ? { reason: "near", similarity } : null;
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
export function findDuplicateGroups(memories: readonly MemoryDocument[]): DuplicateGroup[] {
  const sorted = [...memories].sort(survivorOrder);
  // Each memory is normalized and segmented once per run, not once per pair (docs/design.md#the-consolidation-run).
  const features = sorted.map(comparable);
  const matches = sorted.map(() => new Map<number, { reason: "exact" | "near"; similarity: number }>());
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      if (sorted[i].type !== sorted[j].type) continue;
      const kind = compare(features[i], features[j]);
      if (kind) matches[i].set(j, kind);
    }
  }
  const grouped = new Set<number>();
  const groups: DuplicateGroup[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (grouped.has(i)) continue;
    // Survivor order puts the survivor first, so its duplicates all come after it.
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
