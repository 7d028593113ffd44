import { MemdirError } from "../errors.ts";
import type { MemoryHeader } from "../types.ts";
import { inverseDocumentFrequency, normalizedFieldFrequency, saturate } from "./bm25.ts";
import {
  bodyFrequency,
  defaultLexicalIndexCache,
  FIELD_NAMES,
  type FieldName,
  forEachPassage,
  type IndexedMemory,
  type LexicalIndex,
  type LexicalIndexCache,
} from "./lexical-index.ts";
import type { Pick, Selector } from "./selector.ts";
import { BIGRAM_MARK, tokenizeDetailed } from "./tokenize.ts";

/**
 * Knobs of the lexical ranker. The defaults were measured on the LoCoMo development split
 * (`bench/eval-locomo.ts`; the log is in the issue 4 report) and are not tuned per data set.
 */
export interface LexicalTuning {
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25F weight and length normalization (b) per field. */
  fieldWeight: Record<FieldName, number>;
  lengthNormalization: Record<FieldName, number>;
  /** Weight of the best passage score added to the whole-file score (0 turns passages off). */
  passageWeight: number;
  /** How many of the best whole-file candidates get the (costlier) passage and neighbor stages. */
  rerankDepth: number;
  /**
   * Memories saved within this many ms of each other were usually written by one extraction
   * run about one conversation; a share of the best such neighbor's score is added (cluster
   * score smoothing). 0 turns it off.
   */
  neighborWindowMs: number;
  neighborWeight: number;
  /** Bursts larger than this are not treated as one conversation (e.g. a git checkout). */
  neighborMaxBurst: number;
  /** Mild recency prior: the newest memory gets ×(1 + recencyWeight), the oldest ×1. */
  recencyWeight: number;
  /**
   * Relevance floor: minimum summed IDF of the matched query terms. A memory must match at
   * least one query term in any case, so a query that shares no word with any memory gets no
   * picks. 0 by default: an IDF cut also drops the right answer when every memory mentions the
   * query's topic (measured: −0.7 points on LoCoMo sessions at 0.5).
   */
  minMatchedIdf: number;
  /** Relevance floor relative to the best score: weaker candidates are dropped. */
  relativeFloor: number;
}

export const DEFAULT_LEXICAL_TUNING: LexicalTuning = {
  k1: 1.2,
  fieldWeight: { name: 1, description: 1, type: 0.5, body: 1 },
  lengthNormalization: { name: 0.5, description: 0.5, type: 0, body: 0.75 },
  passageWeight: 1,
  rerankDepth: 100,
  neighborWindowMs: 60_000,
  neighborWeight: 0.3,
  neighborMaxBurst: 40,
  recencyWeight: 0.02,
  minMatchedIdf: 0,
  relativeFloor: 0.15,
};

/** Options of {@link createLexicalSelector}. */
export interface LexicalSelectorOptions {
  /** Index cache (default: one per process). Tests pass their own to start cold. */
  cache?: LexicalIndexCache;
  /** Override some ranking knobs (benchmarks and experiments). */
  tuning?: Partial<LexicalTuning>;
}

/** A pick with the detail `recall --explain` prints. */
export interface LexicalPick extends Pick {
  /** Matched query words per field, e.g. `{description: ["mock", "数据库"]}`. */
  matched: Partial<Record<FieldName, string[]>>;
}

interface QueryTerm {
  id: number;
  surface: string;
  idf: number;
  passageIdf: number;
}

interface Candidate {
  memory: IndexedMemory;
  header: MemoryHeader;
  base: number;
  passage: number;
  neighbor: string | null;
  score: number;
}

/**
 * The offline selector (issue 4): BM25F over file name, description, type and body, plus the
 * best two-line passage, a share of the score of memories saved in the same burst, a mild
 * recency prior and a relevance floor. Ranks every header it is given (no 200-newest cap).
 *
 * @example
 * const select = createLexicalSelector();
 * const headers = await scanHeaders(memoryDir, { limit: Number.POSITIVE_INFINITY });
 * const picks = await select("why do login tests hit a real database?", headers, { k: 5, memoryDir });
 * // [{ file: "feedback-real-database.md", score: 7.1, reason: "matched description: login, database; …" }]
 */
export function createLexicalSelector(options: LexicalSelectorOptions = {}): Selector {
  const cache = options.cache ?? defaultLexicalIndexCache;
  const tuning = { ...DEFAULT_LEXICAL_TUNING, ...options.tuning };
  return async (query, headers, selectorOptions) => {
    const index = cache.forDirectory(selectorOptions.memoryDir);
    await index.sync(headers, selectorOptions.signal);
    if (selectorOptions.signal?.aborted) {
      throw new MemdirError("aborted", "recall: lexical selection aborted", {
        cause: selectorOptions.signal.reason,
      });
    }
    return rankLexically(index, query, headers, selectorOptions, tuning);
  };
}

/** Ranks `headers` against `query` using an index already synced with them. Pure apart from reading the index. */
export function rankLexically(
  index: LexicalIndex,
  query: string,
  headers: readonly MemoryHeader[],
  options: { k: number },
  tuning: LexicalTuning = DEFAULT_LEXICAL_TUNING,
): LexicalPick[] {
  const terms = queryTerms(index, query);
  if (terms.length === 0 || options.k <= 0) return [];
  const averages = Object.fromEntries(FIELD_NAMES.map((f) => [f, index.averageLength(f)])) as Record<
    FieldName,
    number
  >;

  const scored: Candidate[] = [];
  for (const header of headers) {
    const memory = index.get(header.file);
    if (!memory) continue;
    let base = 0;
    let matchedIdf = 0;
    for (const term of terms) {
      let pseudo = 0;
      for (const field of FIELD_NAMES) {
        const frequency = fieldFrequency(memory, field, term.id);
        pseudo += normalizedFieldFrequency(
          frequency,
          memory.lengths[field],
          averages[field],
          tuning.fieldWeight[field],
          tuning.lengthNormalization[field],
        );
      }
      if (pseudo > 0) {
        base += term.idf * saturate(pseudo, tuning.k1);
        matchedIdf += term.idf;
      }
    }
    if (base > 0 && matchedIdf >= tuning.minMatchedIdf) {
      scored.push({ memory, header, base, passage: 0, neighbor: null, score: base });
    }
  }
  if (scored.length === 0) return [];
  scored.sort((a, b) => b.base - a.base);
  const top = scored.slice(0, Math.max(tuning.rerankDepth, options.k));

  if (tuning.passageWeight > 0) {
    for (const candidate of top) {
      candidate.passage = bestPassageScore(index, candidate.memory, terms, tuning.k1);
      candidate.score = candidate.base + tuning.passageWeight * candidate.passage;
    }
  }
  if (tuning.neighborWeight > 0 && tuning.neighborWindowMs > 0) smoothByNeighbors(top, headers, tuning);
  applyRecencyPrior(top, headers, tuning.recencyWeight);

  top.sort((a, b) => b.score - a.score || b.header.mtimeMs - a.header.mtimeMs);
  const best = top[0].score;
  return top
    .filter((candidate) => candidate.score >= best * tuning.relativeFloor)
    .slice(0, options.k)
    .map((candidate) => toPick(candidate, terms));
}

function queryTerms(index: LexicalIndex, query: string): QueryTerm[] {
  const documentCount = index.size;
  const passageCount = index.passageCount;
  const terms = new Map<number, QueryTerm>();
  for (const token of tokenizeDetailed(query)) {
    const id = index.dictionary.lookup(token.term);
    if (id === undefined || terms.has(id)) continue;
    const frequency = index.documentFrequency.get(id);
    if (frequency <= 0) continue;
    terms.set(id, {
      id,
      surface: token.surface,
      idf: inverseDocumentFrequency(documentCount, frequency),
      passageIdf: inverseDocumentFrequency(passageCount, index.passageFrequency.get(id)),
    });
  }
  return [...terms.values()];
}

function fieldFrequency(memory: IndexedMemory, field: FieldName, termId: number): number {
  if (field === "body") return bodyFrequency(memory, termId);
  return memory[field].get(termId) ?? 0;
}

/**
 * Best BM25 score of one passage, with passage-level IDF: a speaker's name or a topic word that
 * is in every session file is still rare among passages, so "Melanie … camping" in one turn
 * beats the two words far apart (Callan 1994, passage-level evidence).
 */
function bestPassageScore(
  index: LexicalIndex,
  memory: IndexedMemory,
  terms: QueryTerm[],
  k1: number,
): number {
  const average = index.averagePassageLength;
  const wanted = new Map<number, QueryTerm>();
  for (const term of terms) if (bodyFrequency(memory, term.id) > 0) wanted.set(term.id, term);
  if (wanted.size === 0) return 0;
  let best = 0;
  const counts = new Map<number, number>();
  forEachPassage(memory, (start, end) => {
    counts.clear();
    for (let i = start; i < end; i++) {
      const id = memory.lineTokens[i];
      if (wanted.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    if (counts.size === 0) return;
    const lengthFactor = 0.5 + (0.5 * (end - start)) / average;
    let score = 0;
    for (const [id, count] of counts) {
      const term = wanted.get(id);
      if (term) score += (term.passageIdf * count * (k1 + 1)) / (count + k1 * lengthFactor);
    }
    if (score > best) best = score;
  });
  return best;
}

/**
 * Cluster smoothing over save time: each candidate gains `neighborWeight` × the best score of
 * another candidate saved within `neighborWindowMs`, when that burst is small enough to be one
 * extraction run. Related facts from one conversation are saved together.
 */
function smoothByNeighbors(
  candidates: Candidate[],
  headers: readonly MemoryHeader[],
  tuning: LexicalTuning,
): void {
  const times = headers.map((h) => h.mtimeMs).sort((a, b) => a - b);
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
    if (bestNeighbor)
      boosts.set(candidate, {
        value: tuning.neighborWeight * bestNeighbor.score,
        from: bestNeighbor.header.file,
      });
  }
  for (const [candidate, boost] of boosts) {
    candidate.score += boost.value;
    candidate.neighbor = boost.from;
  }
}

function applyRecencyPrior(candidates: Candidate[], headers: readonly MemoryHeader[], weight: number): void {
  if (weight <= 0 || headers.length < 2) return;
  let oldest = Number.POSITIVE_INFINITY;
  let newest = Number.NEGATIVE_INFINITY;
  for (const header of headers) {
    if (header.mtimeMs < oldest) oldest = header.mtimeMs;
    if (header.mtimeMs > newest) newest = header.mtimeMs;
  }
  const span = newest - oldest;
  if (span <= 0) return;
  for (const candidate of candidates) {
    candidate.score *= 1 + (weight * (candidate.header.mtimeMs - oldest)) / span;
  }
}

function toPick(candidate: Candidate, terms: QueryTerm[]): LexicalPick {
  const matched: Partial<Record<FieldName, string[]>> = {};
  for (const field of FIELD_NAMES) {
    const words = terms
      .filter((term) => fieldFrequency(candidate.memory, field, term.id) > 0)
      .sort((a, b) => b.idf - a.idf)
      .map((term) => term.surface);
    const unique = [...new Set(words)];
    if (unique.length > 0) matched[field] = unique;
  }
  const parts = FIELD_NAMES.filter((field) => matched[field]).map(
    (field) => `${field}: ${abbreviate(matched[field] ?? [])}`,
  );
  let reason = `matched ${parts.join("; ")}`;
  if (candidate.neighbor) reason += `; saved together with ${candidate.neighbor}`;
  return { file: candidate.header.file, score: round(candidate.score), reason, matched };
}

function abbreviate(words: string[]): string {
  const shown = words.slice(0, 6).map((word) => word.replace(BIGRAM_MARK, ""));
  return words.length > 6 ? `${shown.join(", ")} +${words.length - 6}` : shown.join(", ");
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function lowerBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function upperBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
