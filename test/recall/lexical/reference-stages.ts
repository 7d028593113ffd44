/**
 * The straightforward implementations of the hot ranking stages, as they were before the
 * per-query pruning of docs/design.md#ranking-cost-per-query (BASE d7f0211): every token of every candidate compared with every
 * query word, every query term looked up in every field of every match. ranking-equality.test.ts
 * checks that the fast stages in src/ give exactly these scores, notes and picks.
 */

import type { Corpus } from "../../../src/recall/lexical/index/corpus.ts";
import {
  bodyFrequency,
  FIELD_NAMES,
  type FieldName,
  fieldFrequency,
  fieldLength,
  forEachDescriptionTerm,
  type IndexedMemory,
  PASSAGE_LINES,
} from "../../../src/recall/lexical/index/memory-record.ts";
import type {
  Candidate,
  LexicalTuning,
  QueryTerm,
  StageScores,
} from "../../../src/recall/lexical/index/types.ts";
import { normalizedFieldFrequency, saturate } from "../../../src/recall/lexical/stages/bm25.ts";
import type { RankContext } from "../../../src/recall/lexical/stages/stage.ts";
import { relatedQueryWords } from "../../../src/recall/lexical/stages/stage-related.ts";
import type { MemoryHeader } from "../../../src/types.ts";

/** Whole-file BM25F: the matches in posting order and their scores. */
export function referenceWholeFiles(
  corpus: Corpus,
  headerByFile: ReadonlyMap<string, MemoryHeader>,
  terms: QueryTerm[],
  tuning: LexicalTuning,
  averages: Record<FieldName, number>,
): { memories: IndexedMemory[]; scores: number[] } {
  const memories: IndexedMemory[] = [];
  const scores: number[] = [];
  for (const memory of corpus.candidates(terms)) {
    const header = headerByFile.get(memory.file);
    if (!header || header.mtimeMs !== memory.mtimeMs || header.size !== memory.size) continue;
    let base = 0;
    let matchedIdf = 0;
    for (const term of terms) {
      const pseudo = pseudoFrequency(memory, term, tuning, averages);
      if (pseudo > 0) {
        base += term.idf * saturate(pseudo, tuning.k1);
        if (!term.expansion) matchedIdf += term.idf;
      }
    }
    if (matchedIdf > 0 && matchedIdf >= tuning.minMatchedIdf) {
      memories.push(memory);
      scores.push(base);
    }
  }
  return { memories, scores };
}

export function pseudoFrequency(
  memory: IndexedMemory,
  term: QueryTerm,
  tuning: LexicalTuning,
  averages: Record<FieldName, number>,
): number {
  let pseudo = 0;
  for (const field of FIELD_NAMES) {
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

/** Positions of the best `depth` scores, best first, ties in position order (a full sort). */
export function referenceBest(scores: readonly number[], depth: number): number[] {
  const order = scores.map((_, position) => position);
  order.sort((a, b) => (scores[a] < scores[b] ? 1 : scores[a] > scores[b] ? -1 : a - b));
  return order.slice(0, depth);
}

/** The passage stage's score of one memory. */
export function referencePassageScore(
  corpus: Corpus,
  memory: IndexedMemory,
  terms: readonly QueryTerm[],
  k1: number,
): number {
  const average = corpus.averagePassageLength;
  const slots = new Map<number, number>();
  const wanted: QueryTerm[] = [];
  for (const term of terms) {
    if (bodyFrequency(memory, term.id) > 0) {
      slots.set(term.id, wanted.length);
      wanted.push(term);
    }
  }
  if (wanted.length === 0) return 0;
  const lineCount = memory.lineCount;
  const counts = new Uint16Array(lineCount * wanted.length);
  const lineLength = new Uint32Array(lineCount);
  for (let line = 0; line < lineCount; line++) {
    const start = memory.lineStart(line);
    const end = line + 1 < lineCount ? memory.lineStart(line + 1) : memory.tokenCount;
    lineLength[line] = end - start;
    for (let i = start; i < end; i++) {
      const slot = slots.get(memory.token(i));
      if (slot !== undefined) counts[line * wanted.length + slot]++;
    }
  }
  let best = 0;
  const windows = Math.max(1, lineCount - PASSAGE_LINES + 1);
  for (let first = 0; first < windows; first++) {
    const last = Math.min(lineCount, first + PASSAGE_LINES);
    let length = 0;
    for (let line = first; line < last; line++) length += lineLength[line];
    const lengthFactor = 0.5 + (0.5 * length) / average;
    let score = 0;
    for (let slot = 0; slot < wanted.length; slot++) {
      let count = 0;
      for (let line = first; line < last; line++) count += counts[line * wanted.length + slot];
      if (count > 0) score += (wanted[slot].passageIdf * count * (k1 + 1)) / (count + k1 * lengthFactor);
    }
    if (score > best) best = score;
  }
  return best;
}

/** The passage stage over `candidates`. */
export function referencePassageStage(
  context: RankContext,
  candidates: readonly Candidate[],
): StageScores | null {
  const { corpus, tuning, terms } = context;
  if (tuning.passageWeight <= 0) return null;
  const scores = new Float64Array(candidates.length);
  for (let c = 0; c < Math.min(candidates.length, tuning.passageDepth); c++) {
    const memory = candidates[c].memory;
    if (memory.lineCount < tuning.passageMinLines) continue;
    scores[c] = tuning.passageWeight * referencePassageScore(corpus, memory, terms, tuning.k1);
  }
  return { scores };
}

const MAX_QUERY_WORDS = 12;

/** The related-word stage over `candidates`: every similarity computed afresh, nothing skipped. */
export function referenceRelatedStage(
  context: RankContext,
  candidates: readonly Candidate[],
): StageScores | null {
  const { corpus, tuning, tokens, vectors } = context;
  if (!vectors) return null;
  const words = relatedQueryWords(corpus, tokens, vectors).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0 || (tuning.relatedWeight <= 0 && tuning.relatedPassageWeight <= 0)) return null;
  const threshold = tuning.relatedThreshold;
  const gain = (similarity: number) => (similarity - threshold) / (1 - threshold);
  // Similarities as the stage stores them (float32), with "no vector" as null.
  const similarity = (id: number): Float32Array | null => {
    if (id < 0 || id >= corpus.dictionary.size) return null;
    const term = corpus.dictionary.term(id);
    const row = term === undefined ? -1 : vectors.rowOf(term);
    if (row < 0) return null;
    return Float32Array.from(words, (word) => vectors.similarity(word.row, row));
  };
  const rowOf = (id: number) => vectors.rowOf(corpus.dictionary.term(id) ?? "");
  const isQueryWord = (id: number) => words.some((word) => word.id === id);
  const scores = new Float64Array(candidates.length);
  const notes: (string | null)[] = new Array(candidates.length).fill(null);
  for (let c = 0; c < Math.min(candidates.length, tuning.relatedDepth); c++) {
    const memory = candidates[c].memory;
    const bestSimilarity = new Float64Array(words.length);
    const bestRow = new Int32Array(words.length).fill(-1);
    const consider = (id: number) => {
      const values = similarity(id);
      if (values === null || isQueryWord(id)) return;
      for (let q = 0; q < words.length; q++)
        if (values[q] > bestSimilarity[q]) {
          bestSimilarity[q] = values[q];
          bestRow[q] = rowOf(id);
        }
    };
    forEachDescriptionTerm(memory, consider);
    for (let i = 0; i < memory.bodyTermCount; i++) consider(memory.record[memory.bodyTermsAt + i]);
    let wholeScore = 0;
    let strongestWhole = -1;
    let strongestContribution = 0;
    for (let q = 0; q < words.length; q++) {
      if (bestSimilarity[q] <= threshold || bestRow[q] < 0) continue;
      const contribution = words[q].idf * gain(bestSimilarity[q]);
      wholeScore += contribution;
      if (strongestWhole < 0 || contribution > strongestContribution) {
        strongestWhole = q;
        strongestContribution = contribution;
      }
    }
    let added = 0;
    let named = -1;
    if (tuning.relatedWeight > 0 && memory.lineCount >= tuning.passageMinLines && wholeScore > 0) {
      added += tuning.relatedWeight * wholeScore;
      named = strongestWhole;
    }
    if (tuning.relatedPassageWeight > 0) {
      const passage = referenceRelatedPassage(memory, words, similarity, gain, threshold);
      added += tuning.relatedPassageWeight * passage.score;
      if (named < 0) named = passage.strongestRelated;
    }
    scores[c] = added;
    if (named >= 0 && bestRow[named] >= 0)
      notes[c] = `${words[named].surface}≈${vectors.word(bestRow[named])}`;
  }
  return { scores, notes };
}

function referenceRelatedPassage(
  memory: IndexedMemory,
  words: readonly { id: number; idf: number }[],
  similarity: (id: number) => Float32Array | null,
  gain: (similarity: number) => number,
  threshold: number,
): { score: number; strongestRelated: number } {
  const width = words.length;
  const matchInto = (target: Float32Array | Float64Array, base: number, id: number) => {
    const values = similarity(id);
    if (values === null) return;
    for (let q = 0; q < width; q++) {
      const s = id === words[q].id ? 1 : values[q];
      if (s > target[base + q]) target[base + q] = s;
    }
  };
  const result = { score: 0, strongestRelated: -1 };
  const score = (lineBest: Float32Array | Float64Array, first: number, last: number) => {
    let total = 0;
    let strongest = -1;
    let strongestContribution = 0;
    for (let q = 0; q < width; q++) {
      let top = 0;
      for (let line = first; line < last; line++)
        if (lineBest[line * width + q] > top) top = lineBest[line * width + q];
      if (top <= threshold) continue;
      const contribution = words[q].idf * gain(top);
      total += contribution;
      if (top < 1 && contribution > strongestContribution) {
        strongestContribution = contribution;
        strongest = q;
      }
    }
    if (total > result.score) {
      result.score = total;
      result.strongestRelated = strongest;
    }
  };
  const description = new Float64Array(width);
  forEachDescriptionTerm(memory, (id) => matchInto(description, 0, id));
  score(description, 0, 1);
  const lineCount = memory.lineCount;
  if (lineCount === 0) return result;
  const lineBest = new Float32Array(lineCount * width);
  for (let line = 0; line < lineCount; line++) {
    const end = line + 1 < lineCount ? memory.lineStart(line + 1) : memory.tokenCount;
    for (let i = memory.lineStart(line); i < end; i++) matchInto(lineBest, line * width, memory.token(i));
  }
  const windows = Math.max(1, lineCount - PASSAGE_LINES + 1);
  for (let first = 0; first < windows; first++)
    score(lineBest, first, Math.min(lineCount, first + PASSAGE_LINES));
  return result;
}
