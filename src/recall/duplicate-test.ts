import { NEEDS_SEGMENTER, segmentPieces, wordSegmenter } from "./lexical/text/segment.ts";

/**
 * When two memories say the same thing (docs/design.md#consolidation): the duplicate test that
 * consolidation's merge, `memdir import` and `memory_save` share, without a model. Pure.
 */

/** What the duplicate test reads of a memory. */
export interface MemoryText {
  description: string;
  body: string;
}

/** Word overlap at or above which two memories of one type are near-duplicates. */
export const NEAR_DUPLICATE_JACCARD = 0.85;
/** With the same description, the bodies need this much overlap. */
export const SAME_DESCRIPTION_BODY_JACCARD = 0.6;
/** …or the smaller body's words must nearly all be in the other. */
export const SAME_DESCRIPTION_CONTAINMENT = 0.9;
/** Fewer words than this and the word-overlap rule does not apply: tiny memories share most of their few words by chance ("use pnpm" / "use npm"). */
export const MIN_TOKENS_FOR_NEAR = 4;
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
export interface Comparable {
  description: string;
  body: string;
  bodyWords: Set<string>;
  allWords: Set<string>;
}

/** The normalized texts and word sets of one memory (each body normalized and segmented once). */
export function comparable(memory: MemoryText): Comparable {
  const description = normalizeText(memory.description);
  const body = normalizeText(memory.body);
  // The same as normalizing `${description}\n${body}`: the newline becomes the space between them.
  const all = [description, body].filter(Boolean).join(" ");
  return { description, body, bodyWords: wordsOfNormalized(body), allWords: wordsOfNormalized(all) };
}

/** How alike two memories of the same type are, or null when they are not duplicates. */
export function duplicateKind(
  a: MemoryText,
  b: MemoryText,
): { reason: "exact" | "near"; similarity: number } | null {
  return compareComparable(comparable(a), comparable(b));
}

export function compareComparable(
  a: Comparable,
  b: Comparable,
): { reason: "exact" | "near"; similarity: number } | null {
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
