import type { MemoryHeader } from "../../types.ts";
import { normalizedFieldFrequency, saturate } from "./bm25.ts";
import type { Corpus } from "./corpus.ts";
import {
  FIELD_NAMES,
  type FieldName,
  fieldFrequency,
  fieldLength,
  type IndexedMemory,
} from "./memory-record.ts";
import type { RankScratch } from "./scratch.ts";
import type { Candidate, LexicalTuning, QueryTerm } from "./types.ts";

/**
 * The first stage of the lexical ranker: BM25F (Robertson & Zaragoza 2009) over file name,
 * description, type and body, for every memory sharing a word with the query.
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
  // Indexed loops, and the scores in a typed array: this runs for up to 20,000 memories per
  // query, and iterator objects or boxed numbers per memory were MB of garbage per query.
  for (let c = 0; c < found.length; c++) {
    const memory = found[c];
    const header = headerByFile.get(memory.file);
    // Only files the caller passed, and only as they are now (same key as the scan).
    if (!header || header.mtimeMs !== memory.mtimeMs || header.size !== memory.size) continue;
    let base = 0;
    let matchedIdf = 0;
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t];
      const pseudo = pseudoFrequency(memory, term, tuning, averages);
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
  return { memories, headers, scores: bases };
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
  for (let m = 0; m < matches.memories.length; m++) {
    const memory = matches.memories[m];
    let base = bases[m];
    for (let t = 0; t < expansion.length; t++) {
      const pseudo = pseudoFrequency(memory, expansion[t], tuning, averages);
      if (pseudo > 0) base += expansion[t].idf * saturate(pseudo, tuning.k1);
    }
    bases[m] = base;
  }
}

/** BM25F's length-normalized, weighted frequency of `term` over the four fields of `memory`. */
function pseudoFrequency(
  memory: IndexedMemory,
  term: QueryTerm,
  tuning: LexicalTuning,
  averages: Record<FieldName, number>,
): number {
  let pseudo = 0;
  for (let f = 0; f < FIELD_NAMES.length; f++) {
    const field = FIELD_NAMES[f];
    pseudo += normalizedFieldFrequency(
      fieldFrequency(memory, field, term.id),
      fieldLength(memory, field),
      averages[field],
      tuning.fieldWeight[field],
      tuning.lengthNormalization[field],
    );
  }
  return pseudo;
}

/** The best `depth` matches as candidates, best first (equal scores keep posting order). */
export function bestMatches(matches: WholeFileMatches, depth: number): Candidate[] {
  const bases = matches.scores;
  // The comparator returns small integers: a returned double is a boxed number per comparison.
  const order = Array.from({ length: matches.memories.length }, (_, position) => position);
  order.sort((a, b) => (bases[a] < bases[b] ? 1 : bases[a] > bases[b] ? -1 : a - b));
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
