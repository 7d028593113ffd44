import type { MemoryHeader } from "../../types.ts";
import type { LexicalTuning } from "../select-lexical.ts";
import { inverseDocumentFrequency } from "./bm25.ts";
import type { LexicalIndex } from "./lexical-index.ts";
import { bodyFrequency, forEachDescriptionTerm, type IndexedMemory, PASSAGE_LINES } from "./memory-record.ts";

/**
 * The re-ranking stages of the lexical selector, applied to the best whole-file candidates:
 * passage evidence, save-burst neighbors, the recency prior, and (off by default) pseudo-relevance
 * feedback. Each stage is a pure function of the index and the candidates.
 */

export interface QueryTerm {
  id: number;
  surface: string;
  idf: number;
  passageIdf: number;
  /** Added by pseudo-relevance feedback, not typed by the user. */
  expansion?: boolean;
}

export interface Candidate {
  memory: IndexedMemory;
  header: MemoryHeader;
  base: number;
  passage: number;
  neighbor: string | null;
  /** The strongest related-word match ("leaning≈liberal"), from the related-word stage. */
  related: string | null;
  score: number;
}

/**
 * Best BM25 score of one passage, with passage-level IDF: a speaker's name or a topic word that
 * is in every session file is still rare among passages, so "Melanie … camping" in one turn
 * beats the two words far apart (Callan 1994, passage-level evidence).
 */
export function bestPassageScore(
  index: LexicalIndex,
  memory: IndexedMemory,
  terms: QueryTerm[],
  k1: number,
): number {
  const average = index.averagePassageLength;
  const slots = new Map<number, number>();
  const wanted: QueryTerm[] = [];
  for (const term of terms) {
    if (bodyFrequency(memory, term.id) > 0) {
      slots.set(term.id, wanted.length);
      wanted.push(term);
    }
  }
  if (wanted.length === 0) return 0;
  // Count query terms line by line once; a passage is PASSAGE_LINES consecutive lines.
  const lineCount = memory.lineCount;
  const record = memory.record;
  const tokensAt = memory.tokensAt;
  const counts = new Uint16Array(lineCount * wanted.length);
  const lineLength = new Uint32Array(lineCount);
  for (let line = 0; line < lineCount; line++) {
    const start = memory.lineStart(line);
    const end = line + 1 < lineCount ? memory.lineStart(line + 1) : memory.tokenCount;
    lineLength[line] = end - start;
    for (let i = tokensAt + start; i < tokensAt + end; i++) {
      const slot = slots.get(record[i]);
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

/**
 * Cluster smoothing over save time: each candidate gains `neighborWeight` × the best score of
 * another candidate saved within `neighborWindowMs`, when that burst is small enough to be one
 * extraction run. Related facts from one conversation are saved together. `times`: every
 * header's mtime, ascending ({@link sortedTimes}).
 */
export function smoothByNeighbors(candidates: Candidate[], times: Float64Array, tuning: LexicalTuning): void {
  const burstSize = (time: number) =>
    upperBound(times, time + tuning.neighborWindowMs) - lowerBound(times, time - tuning.neighborWindowMs);
  const byTime = [...candidates].sort((a, b) => a.header.mtimeMs - b.header.mtimeMs);
  const boosts = new Map<Candidate, { value: number; from: string }>();
  for (let i = 0; i < byTime.length; i++) {
    const candidate = byTime[i];
    if (burstSize(candidate.header.mtimeMs) > tuning.neighborMaxBurst) continue;
    let bestNeighbor: Candidate | null = null;
    for (const direction of [-1, 1]) {
      for (let j = i + direction; j >= 0 && j < byTime.length; j += direction) {
        const other = byTime[j];
        if (Math.abs(other.header.mtimeMs - candidate.header.mtimeMs) > tuning.neighborWindowMs) break;
        if (!bestNeighbor || other.score > bestNeighbor.score) bestNeighbor = other;
      }
    }
    if (bestNeighbor) {
      boosts.set(candidate, {
        value: tuning.neighborWeight * bestNeighbor.score,
        from: bestNeighbor.header.file,
      });
    }
  }
  for (const [candidate, boost] of boosts) {
    candidate.score += boost.value;
    candidate.neighbor = boost.from;
  }
}

/** Mild recency prior over the span of `times` (every header's mtime, ascending: {@link sortedTimes}). */
export function applyRecencyPrior(candidates: Candidate[], times: Float64Array, weight: number): void {
  if (weight <= 0 || times.length < 2) return;
  const oldest = times[0];
  const span = times[times.length - 1] - oldest;
  if (span <= 0) return;
  for (const candidate of candidates) {
    candidate.score *= 1 + (weight * (candidate.header.mtimeMs - oldest)) / span;
  }
}

/**
 * Every header's mtime, ascending. The scan lists headers newest first, so this is usually a
 * reversed copy (no sort of 20,000 numbers per query); any other order is sorted.
 */
export function sortedTimes(headers: readonly MemoryHeader[]): Float64Array {
  const count = headers.length;
  const times = new Float64Array(count);
  let ascending = true;
  for (let i = 0; i < count; i++) {
    const time = headers[count - 1 - i].mtimeMs;
    times[i] = time;
    if (i > 0 && time < times[i - 1]) ascending = false;
  }
  return ascending ? times : times.sort();
}

function lowerBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function upperBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Pseudo-relevance feedback (RM3-style, Lavrenko & Croft 2001): the words that weigh most in
 * the best first-pass memories (frequency share × IDF × the memory's relative score) join the
 * query at `feedbackWeight`. Finds the second half of a two-part answer that uses the first
 * half's vocabulary rather than the question's.
 */
export function feedbackTerms(
  index: LexicalIndex,
  ranked: Candidate[],
  terms: QueryTerm[],
  tuning: LexicalTuning,
): QueryTerm[] {
  const original = new Set(terms.map((term) => term.id));
  const weights = new Map<number, number>();
  const best = ranked[0].base;
  for (const candidate of ranked.slice(0, tuning.feedbackDocuments)) {
    const memory = candidate.memory;
    const share = candidate.base / best;
    const length = memory.descriptionLength + memory.tokenCount || 1;
    const add = (id: number, frequency: number) => {
      if (original.has(id)) return;
      weights.set(id, (weights.get(id) ?? 0) + (share * frequency) / length);
    };
    forEachDescriptionTerm(memory, add);
    const record = memory.record;
    for (let i = 0; i < memory.bodyTermCount; i++)
      add(record[memory.bodyTermsAt + i], record[memory.bodyFrequenciesAt + i]);
  }
  const documentCount = index.size;
  const expansion = [...weights]
    .map(([id, weight]) => {
      const frequency = index.documentFrequency.get(id);
      // A word in a single memory cannot lead anywhere new.
      const idf = frequency > 1 ? inverseDocumentFrequency(documentCount, frequency) : 0;
      return { id, weight: weight * idf, idf, frequency };
    })
    .filter((entry) => entry.weight > 0)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, tuning.feedbackTerms);
  if (expansion.length === 0) return [];
  const top = expansion[0].weight;
  return expansion.map((entry) => {
    const scale = (tuning.feedbackWeight * entry.weight) / top;
    return {
      id: entry.id,
      surface: "",
      idf: scale * entry.idf,
      passageIdf: scale * inverseDocumentFrequency(index.passageCount, index.passageFrequency.get(entry.id)),
      expansion: true,
    };
  });
}
