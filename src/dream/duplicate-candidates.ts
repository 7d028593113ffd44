import { createHash } from "node:crypto";
import {
  type Comparable,
  comparable,
  MIN_TOKENS_FOR_NEAR,
  NEAR_DUPLICATE_JACCARD,
  SAME_DESCRIPTION_BODY_JACCARD,
  SAME_DESCRIPTION_CONTAINMENT,
} from "../recall/duplicate-test.ts";
import type { MemoryType } from "../types.ts";

/**
 * The pairs the offline merge compares (docs/design.md#the-consolidation-run), without comparing
 * all pairs: at 20,000 memories the all-pairs plan was 2·10⁸ comparisons over word `Set`s of
 * every memory (20 minutes, 1.2 GB). Pure. Two memories can be duplicates only when
 *
 * - they have the same normalized description (the rules that read the bodies need it), or
 * - their word sets reach {@link NEAR_DUPLICATE_JACCARD}: then they share a word among the
 *   rarest few of each (prefix filtering: with J ≥ t, |A ∩ B| ≥ ⌈t·|A|⌉, so A's
 *   |A| − ⌈t·|A|⌉ + 1 rarest words and B's meet under one global word order).
 *
 * Every candidate is then judged by {@link compareCompact}, which gives exactly what
 * `compareComparable` gives, so the plan is the all-pairs plan (`test/dream/dedupe-scale.test.ts`
 * checks it against the all-pairs oracle).
 */

/** One memory as the comparison reads it, compact: word ids in ascending order, not `Set`s of strings. */
export interface CompactComparable {
  type: MemoryType;
  description: string;
  /** SHA-256 of the normalized body: equal bodies, equal keys (the exact rule). */
  bodyKey: string;
  bodyWords: Int32Array;
  allWords: Int32Array;
}

/** Word → id for one run, so each memory's words are 4 bytes each. */
class WordIds {
  private readonly ids = new Map<string, number>();
  idsOf(words: ReadonlySet<string>): Int32Array {
    const out = new Int32Array(words.size);
    let k = 0;
    for (const word of words) {
      let id = this.ids.get(word);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(word, id);
      }
      out[k++] = id;
    }
    return out.sort();
  }
  get size(): number {
    return this.ids.size;
  }
}

/** The compact form of each memory, in the order given. */
export function compactComparables(
  memories: readonly { type: MemoryType; description: string; body: string }[],
  onEach?: (done: number) => void,
): CompactComparable[] {
  const words = new WordIds();
  return memories.map((memory, index) => {
    const full: Comparable = comparable(memory);
    onEach?.(index + 1);
    return {
      type: memory.type,
      description: full.description,
      bodyKey: createHash("sha256").update(full.body).digest("base64"),
      bodyWords: words.idsOf(full.bodyWords),
      allWords: words.idsOf(full.allWords),
    };
  });
}

function sharedCount(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return shared;
}

function jaccard(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  const shared = sharedCount(a, b);
  return shared / (a.length + b.length - shared);
}

function containment(a: Int32Array, b: Int32Array): number {
  if (Math.min(a.length, b.length) === 0) return 0;
  return sharedCount(a, b) / Math.min(a.length, b.length);
}

/**
 * `compareComparable` (src/recall/duplicate-test.ts) on the compact form: the same rules, the
 * same thresholds, the same similarity (the counts are the same integers).
 */
export function compareCompact(
  a: CompactComparable,
  b: CompactComparable,
): { reason: "exact" | "near"; similarity: number } | null {
  const sameDescription = a.description === b.description;
  if (sameDescription && a.bodyKey === b.bodyKey) return { reason: "exact", similarity: 1 };
  if (sameDescription && Math.min(a.bodyWords.length, b.bodyWords.length) > 0) {
    const similarity = jaccard(a.bodyWords, b.bodyWords);
    if (
      similarity >= SAME_DESCRIPTION_BODY_JACCARD ||
      containment(a.bodyWords, b.bodyWords) >= SAME_DESCRIPTION_CONTAINMENT
    )
      return { reason: "near", similarity };
  }
  const smaller = Math.min(a.allWords.length, b.allWords.length);
  if (smaller < MIN_TOKENS_FOR_NEAR) return null;
  if (smaller < NEAR_DUPLICATE_JACCARD * Math.max(a.allWords.length, b.allWords.length)) return null;
  const similarity = jaccard(a.allWords, b.allWords);
  return similarity >= NEAR_DUPLICATE_JACCARD ? { reason: "near", similarity } : null;
}

/**
 * How many of a memory's rarest words go into the index. One more than prefix filtering needs
 * (⌈t·n⌉ − 1 in place of ⌈t·n⌉), so a similarity that rounds to the threshold is never missed.
 */
function prefixLength(size: number): number {
  return Math.min(size, size - Math.max(0, Math.ceil(NEAR_DUPLICATE_JACCARD * size) - 1) + 1);
}

/**
 * The memories each memory could be a duplicate of, among those after it: `after(i)` lists, in
 * ascending order, every j > i of the same type that shares the description or one of the
 * indexed rarest words. Built once, in time and memory linear in the words indexed.
 */
export class DuplicateCandidates {
  private readonly postings: Int32Array[];
  private readonly prefixes: Int32Array[];
  private readonly sameDescription: Map<string, number[]>;
  private readonly seen: Int32Array;

  constructor(private readonly items: readonly CompactComparable[]) {
    let vocabulary = 0;
    for (const item of items) for (const id of item.allWords) if (id >= vocabulary) vocabulary = id + 1;
    const frequency = new Int32Array(vocabulary);
    for (const item of items) for (const id of item.allWords) frequency[id]++;
    // Rarest first; ties by id, so the order is one global order.
    const rarestFirst = (x: number, y: number) => frequency[x] - frequency[y] || x - y;
    const counts = new Int32Array(vocabulary);
    this.prefixes = items.map((item) => {
      if (item.allWords.length < MIN_TOKENS_FOR_NEAR) return new Int32Array(0);
      const prefix = Int32Array.from(item.allWords)
        .sort(rarestFirst)
        .subarray(0, prefixLength(item.allWords.length));
      for (const id of prefix) counts[id]++;
      return prefix.slice();
    });
    this.postings = Array.from({ length: vocabulary }, (_, id) => new Int32Array(counts[id]));
    const filled = new Int32Array(vocabulary);
    // Items in ascending order: every posting list is sorted.
    this.prefixes.forEach((prefix, index) => {
      for (const id of prefix) this.postings[id][filled[id]++] = index;
    });
    this.sameDescription = new Map();
    items.forEach((item, index) => {
      const key = `${item.type}\u0000${item.description}`;
      const list = this.sameDescription.get(key);
      if (list) list.push(index);
      else this.sameDescription.set(key, [index]);
    });
    this.seen = new Int32Array(items.length).fill(-1);
  }

  /** The candidates after `i` (ascending, same type, each once). */
  after(i: number): number[] {
    const item = this.items[i];
    const found: number[] = [];
    const take = (j: number) => {
      if (this.seen[j] === i || this.items[j].type !== item.type) return;
      this.seen[j] = i;
      found.push(j);
    };
    for (const j of this.sameDescription.get(`${item.type}\u0000${item.description}`) ?? [])
      if (j > i) take(j);
    for (const id of this.prefixes[i]) {
      const list = this.postings[id];
      for (let k = firstAbove(list, i); k < list.length; k++) take(list[k]);
    }
    return found.sort((x, y) => x - y);
  }
}

/** The index of the first entry above `value` in an ascending list. */
function firstAbove(list: Int32Array, value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
