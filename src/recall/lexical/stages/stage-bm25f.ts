import type { MemoryHeader } from "../../../types.ts";
import type { Corpus } from "../index/corpus.ts";
import {
  FIELD_NAMES,
  type FieldName,
  fieldFrequency,
  fieldLength,
  type IndexedMemory,
} from "../index/memory-record.ts";
import type { RankScratch } from "../index/scratch.ts";
import type { Candidate, LexicalTuning, QueryTerm } from "../index/types.ts";
import { lengthDivisor, saturate, weightedFrequency } from "./bm25.ts";

/**
 * The first stage of the lexical ranker: BM25F (Robertson & Zaragoza 2009) over file name,
 * description, type and body, for every memory sharing a word with the query. The type field
 * holds no terms, and the name none of its type prefix (docs/design.md#memory-types-are-no-evidence).
 */

/** The memories matching an original query term, and their whole-file scores (same positions). */
export interface WholeFileMatches {
  memories: IndexedMemory[];
  headers: MemoryHeader[];
  /** The index's reused score buffer: valid for the first `memories.length` entries, until the next query. */
  scores: Float64Array;
}

/**
 * BM25F over the four fields for every memory sharing a word with the query; only memories
 * matching an original query term count. Every match gets a score in the index's reused buffer, but only
 * the best few later become {@link Candidate} objects ({@link bestMatches}): up to 20,000
 * candidate objects per query were most of the garbage a query left (several MB), and garbage
 * that survives into the old generation is peak RSS.
 */
export function scoreWholeFiles(
  corpus: Corpus,
  scratch: RankScratch,
  headerByFile: ReadonlyMap<string, MemoryHeader>,
  terms: QueryTerm[],
  tuning: LexicalTuning,
  averages: Record<FieldName, number>,
): WholeFileMatches {
  const memories: IndexedMemory[] = [];
  const headers: MemoryHeader[] = [];
  const found = corpus.candidates(terms);
  const bases = scratch.wholeFileScores(found.length);
  const fields = new FieldConstants(tuning, averages);
  const present = termsPresent(corpus, found, terms, scratch);
  const callerHeaders = scratch.headersFor(headerByFile);
  // Indexed loops, and the scores in a typed array: this runs for up to 20,000 memories per
  // query, and iterator objects or boxed numbers per memory were MB of garbage per query.
  for (let c = 0; c < found.length; c++) {
    const memory = found[c];
    const header = callerHeaders.of(memory);
    if (header === null) continue;
    fields.measure(memory);
    // The terms whose posting lists hold this memory (a term it lacks adds nothing), in order.
    const mask = present === null ? ALL_TERMS : present[memory.slot];
    let base = 0;
    let matchedIdf = 0;
    for (let t = 0; t < terms.length; t++) {
      if (t < 32 && (mask & (1 << t)) === 0) continue;
      const term = terms[t];
      const pseudo = fields.pseudoFrequency(memory, term.id);
      if (pseudo > 0) {
        base += term.idf * saturate(pseudo, tuning.k1);
        if (!term.expansion) matchedIdf += term.idf;
      }
    }
    if (matchedIdf > 0 && matchedIdf >= tuning.minMatchedIdf) {
      bases[memories.length] = base;
      memories.push(memory);
      headers.push(header);
    }
  }
  if (present !== null) for (let c = 0; c < found.length; c++) present[found[c].slot] = 0;
  return { memories, headers, scores: bases };
}

const ALL_TERMS = 0xffffffff;

/**
 * Per posting slot of `found`, a bit for each of the first 32 `terms` whose posting list holds
 * it (zeroed again by the caller), or null when one term is all there is. At 20,000 memories a
 * query matches thousands of files, and looking every query term up in every field of each was
 * most of the query's time; a memory absent from a term's list does not contain the term (every
 * term of every field is posted), so that term scores 0 there and is skipped
 * (docs/design.md#ranking-cost-per-query).
 */
function termsPresent(
  corpus: Corpus,
  found: readonly IndexedMemory[],
  terms: readonly QueryTerm[],
  scratch: RankScratch,
): Uint32Array | null {
  if (terms.length < 2) return null;
  let slots = 0;
  for (let c = 0; c < found.length; c++) if (found[c].slot >= slots) slots = found[c].slot + 1;
  const present = scratch.termMasks(slots);
  for (let t = 0; t < terms.length && t < 32; t++) corpus.markPostings(terms[t].id, present, 1 << t);
  return present;
}

/**
 * Adds feedback words to the scores of the first pass. Feedback words never make a memory a
 * match, and each score is a sum over the terms in order, so this gives exactly what scoring
 * all terms afresh would, without walking the original terms' postings and fields again.
 */
export function addExpansionScores(
  matches: WholeFileMatches,
  expansion: QueryTerm[],
  tuning: LexicalTuning,
  averages: Record<FieldName, number>,
): void {
  const bases = matches.scores;
  const fields = new FieldConstants(tuning, averages);
  for (let m = 0; m < matches.memories.length; m++) {
    const memory = matches.memories[m];
    fields.measure(memory);
    let base = bases[m];
    for (let t = 0; t < expansion.length; t++) {
      const pseudo = fields.pseudoFrequency(memory, expansion[t].id);
      if (pseudo > 0) base += expansion[t].idf * saturate(pseudo, tuning.k1);
    }
    bases[m] = base;
  }
}

/**
 * BM25F's length-normalized, weighted frequency of a term over the fields of a memory:
 * `normalizedFieldFrequency` (bm25.ts) per field, summed in field order, with what depends only on
 * the query (weights) or only on the memory (its {@link lengthDivisor}s) computed once instead of
 * per term — the same operations on the same numbers, so the same result.
 */
class FieldConstants {
  readonly #weight: Float64Array;
  readonly #normalization: Float64Array;
  readonly #average: Float64Array;
  /** The current memory's divisor per field. */
  readonly #divisor = new Float64Array(FIELD_NAMES.length);

  constructor(tuning: LexicalTuning, averages: Record<FieldName, number>) {
    this.#weight = Float64Array.from(FIELD_NAMES, (field) => tuning.fieldWeight[field]);
    this.#normalization = Float64Array.from(FIELD_NAMES, (field) => tuning.lengthNormalization[field]);
    this.#average = Float64Array.from(FIELD_NAMES, (field) => averages[field]);
  }

  /** Takes `memory`'s field lengths for the next {@link pseudoFrequency} calls. */
  measure(memory: IndexedMemory): void {
    for (let f = 0; f < FIELD_NAMES.length; f++)
      this.#divisor[f] = lengthDivisor(
        fieldLength(memory, FIELD_NAMES[f]),
        this.#average[f],
        this.#normalization[f],
      );
  }

  /** The pseudo-frequency of `termId` in the memory last {@link measure}d. */
  pseudoFrequency(memory: IndexedMemory, termId: number): number {
    let pseudo = 0;
    for (let f = 0; f < FIELD_NAMES.length; f++) {
      const frequency = fieldFrequency(memory, FIELD_NAMES[f], termId);
      if (frequency !== 0) pseudo += weightedFrequency(frequency, this.#weight[f], this.#divisor[f]);
    }
    return pseudo;
  }
}

/** The best `depth` matches as candidates, best first (equal scores keep posting order). */
export function bestMatches(matches: WholeFileMatches, depth: number): Candidate[] {
  const bases = matches.scores;
  const count = matches.memories.length;
  // The comparator returns small integers: a returned double is a boxed number per comparison.
  // A total order (ties by position), so the best `depth` come out the same however they are found.
  const byScore = (a: number, b: number) => (bases[a] < bases[b] ? 1 : bases[a] > bases[b] ? -1 : a - b);
  const order =
    count <= depth
      ? Array.from({ length: count }, (_, position) => position)
      : bestPositions(bases, count, depth);
  order.sort(byScore);
  const best: Candidate[] = [];
  for (let i = 0; i < order.length && i < depth; i++) {
    const position = order[i];
    const base = bases[position];
    best.push({
      memory: matches.memories[position],
      header: matches.headers[position],
      base,
    });
  }
  return best;
}

/**
 * The positions of the best `depth` of `scores[0..count)` (in no particular order), kept in a
 * heap whose root is the worst kept: at 20,000 memories a query has thousands of matches, and
 * sorting them all to take 200 was most of what choosing the candidates cost.
 */
function bestPositions(scores: Float64Array, count: number, depth: number): number[] {
  const heap: number[] = [];
  // `a` ranks after `b`: a lower score, or an equal one later in posting order.
  const after = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  for (let position = 0; position < count; position++) {
    if (heap.length < depth) {
      let at = heap.length;
      heap.push(position);
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!after(heap[at], heap[parent])) break;
        [heap[at], heap[parent]] = [heap[parent], heap[at]];
        at = parent;
      }
    } else if (depth > 0 && after(heap[0], position)) {
      heap[0] = position;
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= depth) break;
        const right = left + 1;
        const worse = right < depth && after(heap[right], heap[left]) ? right : left;
        if (!after(heap[worse], heap[at])) break;
        [heap[at], heap[worse]] = [heap[worse], heap[at]];
        at = worse;
      }
    }
  }
  return heap;
}
