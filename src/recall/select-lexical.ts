import { MemdirError } from "../errors.ts";
import type { MemoryHeader } from "../types.ts";
import { inverseDocumentFrequency, normalizedFieldFrequency, saturate } from "./bm25.ts";
import { defaultLexicalIndexCache, type LexicalIndex, type LexicalIndexCache } from "./lexical-index.ts";
import { addRelatedWordScores, type RelatedWordTuning, relatedQueryWords } from "./lexical-related.ts";
import {
  applyRecencyPrior,
  bestPassageScore,
  type Candidate,
  feedbackTerms,
  type QueryTerm,
  smoothByNeighbors,
  sortedTimes,
} from "./lexical-stages.ts";
import {
  FIELD_NAMES,
  type FieldName,
  fieldFrequency,
  fieldLength,
  type IndexedMemory,
} from "./memory-record.ts";
import type { MemoryPick, Selector } from "./selector.ts";
import { BIGRAM_MARK, type Token, tokenizeDetailed } from "./tokenize.ts";
import { bundledWordVectors, type WordVectors } from "./word-vectors.ts";

/**
 * Knobs of the lexical ranker. The defaults were measured on the LoCoMo development split
 * (`bench/eval-locomo.ts`; the log is in the issue 4 report) and are not tuned per data set.
 */
export interface LexicalTuning extends RelatedWordTuning {
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25F weight and length normalization (b) per field. */
  fieldWeight: Record<FieldName, number>;
  lengthNormalization: Record<FieldName, number>;
  /** Weight of the best passage score added to the whole-file score (0 turns passages off). */
  passageWeight: number;
  /**
   * Passages only count in files with at least this many body lines: in a short note the best
   * passage is the note itself, and counting it twice over-weights its words (measured: −1 point
   * on LoCoMo observations when passages were scored in 4-line notes).
   */
  passageMinLines: number;
  /** Pseudo-relevance feedback: memories read, words added, their weight (0 turns it off). */
  feedbackDocuments: number;
  feedbackTerms: number;
  feedbackWeight: number;
  /**
   * Feedback only runs when the average memory body is at most this many words: a short note
   * is about one thing, so its other words are the topic's vocabulary; a long transcript's
   * best words are mostly noise (measured on LoCoMo: +0.7 points on observations, ~45-word
   * notes, −0.4 on sessions, ~500-word transcripts, so sessions skip it).
   */
  feedbackMaxAverageLength: number;
  /** Weight of a dictionary word one typo away from an unknown query word (0 turns it off). */
  typoWeight: number;
  /** How many of the best whole-file candidates take part in the neighbor and recency stages. */
  rerankDepth: number;
  /** How many of the best whole-file candidates get the (costlier) passage stage. */
  passageDepth: number;
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
  k1: 2,
  fieldWeight: { name: 1, description: 1, type: 0.5, body: 1 },
  lengthNormalization: { name: 0.5, description: 0.5, type: 0, body: 0.75 },
  passageWeight: 1,
  passageMinLines: 8,
  typoWeight: 0.7,
  feedbackDocuments: 3,
  feedbackTerms: 10,
  feedbackWeight: 0.2,
  feedbackMaxAverageLength: 200,
  rerankDepth: 200,
  passageDepth: 40,
  neighborWindowMs: 60_000,
  neighborWeight: 0.3,
  neighborMaxBurst: 40,
  recencyWeight: 0.02,
  minMatchedIdf: 0,
  relativeFloor: 0.25,
  relatedWeight: 3,
  relatedPassageWeight: 1,
  relatedThreshold: 0.35,
  relatedDepth: 40,
};

/** Options of {@link createLexicalSelector}. */
export interface LexicalSelectorOptions {
  /** Index cache (default: one per process). Tests pass their own to start cold. */
  cache?: LexicalIndexCache;
  /** Override some ranking knobs (benchmarks and experiments). */
  tuning?: Partial<LexicalTuning>;
  /**
   * Word vectors of the related-word stage (default: the bundled GloVe table, read on first
   * use); `null` ranks by shared words alone.
   */
  wordVectors?: WordVectors | null;
}

/** A pick with the detail `recall --explain` prints. */
export interface LexicalPick extends MemoryPick {
  /** Matched query words per field, e.g. `{description: ["mock", "数据库"]}`. */
  matched: Partial<Record<FieldName, string[]>>;
}

/**
 * The offline selector (issue 4): BM25F over file name, description, type and body, plus the
 * best two-line passage, a share of the score of memories saved in the same burst, a mild
 * recency prior and a relevance floor. Ranks every header it is given (no 200-newest cap).
 *
 * @example
 * const selector = createLexicalSelector();
 * const headers = await scanHeaders(memoryDir, { limit: Number.POSITIVE_INFINITY });
 * const { picks } = await selector.select({ query: "why do login tests hit a real database?", headers, k: 5, memoryDir });
 * // [{ file: "feedback-real-database.md", score: 7.1, reason: "matched description: login, database; …" }]
 */
export function createLexicalSelector(options: LexicalSelectorOptions = {}): Selector {
  const cache = options.cache ?? defaultLexicalIndexCache;
  const tuning = { ...DEFAULT_LEXICAL_TUNING, ...options.tuning };
  const select: Selector["select"] = async ({ query, headers, ...request }, signal) => {
    const index = cache.forDirectory(request.memoryDir);
    await index.sync(headers, signal);
    if (signal?.aborted) {
      throw new MemdirError("aborted", "recall: lexical selection aborted", { cause: signal.reason });
    }
    const vectors = options.wordVectors === undefined ? bundledWordVectors() : options.wordVectors;
    const picks = rankLexically(index, query, headers, request, tuning, vectors);
    if (!request.explain) return { picks };
    // Deterministic, and cheap when warm: every match above the floor ranks the same way, so
    // positions after k are exactly the "beyond k" candidates of `recall --explain`.
    return { picks, ranking: rankLexically(index, query, headers, { k: headers.length }, tuning, vectors) };
  };
  return { name: "lexical", select };
}

/** Ranks `headers` against `query` using an index already synced with them. Pure apart from reading the index. */
export function rankLexically(
  index: LexicalIndex,
  query: string,
  headers: readonly MemoryHeader[],
  options: { k: number },
  tuning: LexicalTuning = DEFAULT_LEXICAL_TUNING,
  vectors: WordVectors | null = null,
): LexicalPick[] {
  const tokens = tokenizeDetailed(query).filter((token) => !QUESTION_WORDS.has(token.surface));
  const terms = queryTerms(index, tokens, tuning.typoWeight);
  if (terms.length === 0 || options.k <= 0) return [];
  const averages = Object.fromEntries(FIELD_NAMES.map((f) => [f, index.averageLength(f)])) as Record<
    FieldName,
    number
  >;

  // The synced header list's map is built once per sync, not twice per query (20,000 entries).
  const synced = index.syncedWith(headers);
  const headerByFile = synced ? index.syncedHeaderByFile() : mapByFile(headers);
  // Only the best `depth` whole-file candidates go on (the stages below and feedback's top few).
  const depth = Math.max(tuning.rerankDepth, options.k, tuning.feedbackDocuments);
  const matches = scoreWholeFiles(index, headerByFile, terms, tuning, averages);
  let scored = bestMatches(matches, depth);
  const notesAreShort = averages.body <= tuning.feedbackMaxAverageLength;
  if (tuning.feedbackDocuments > 0 && tuning.feedbackWeight > 0 && notesAreShort && scored.length > 0) {
    const expansion = feedbackTerms(index, scored, terms, tuning);
    if (expansion.length > 0) {
      addExpansionScores(matches, expansion, tuning, averages);
      scored = bestMatches(matches, depth);
    }
  }
  if (scored.length === 0) return [];
  const top = scored.slice(0, Math.max(tuning.rerankDepth, options.k));

  if (tuning.passageWeight > 0) {
    for (const candidate of top.slice(0, tuning.passageDepth)) {
      if (candidate.memory.lineCount < tuning.passageMinLines) continue;
      candidate.passage = bestPassageScore(index, candidate.memory, terms, tuning.k1);
      candidate.score = candidate.base + tuning.passageWeight * candidate.passage;
    }
  }
  if (vectors) addRelatedWordScores(index, top, relatedQueryWords(index, tokens, vectors), vectors, tuning);
  // The floor judges each memory on its own evidence: the save-burst and recency stages may
  // reorder relevant memories, but never lift one that barely matches over the floor (in SPEC's
  // worked example, two memories saved together must not both be recalled for a login-test fix).
  const ownScore = new Map(top.map((candidate) => [candidate, candidate.score]));
  const bestOwn = Math.max(...ownScore.values());
  // Every mtime in order, sorted once per sync rather than per query (20,000 numbers).
  const times = synced ? index.syncedSortedTimes() : sortedTimes(headers);
  if (tuning.neighborWeight > 0 && tuning.neighborWindowMs > 0) smoothByNeighbors(top, times, tuning);
  applyRecencyPrior(top, times, tuning.recencyWeight);

  top.sort((a, b) => b.score - a.score || b.header.mtimeMs - a.header.mtimeMs);
  const kept = top.filter((candidate) => (ownScore.get(candidate) ?? 0) >= bestOwn * tuning.relativeFloor);
  return kept.slice(0, options.k).map((candidate) => toPick(candidate, terms));
}

/** The memories matching an original query term, with their whole-file scores in {@link scoreBuffer}. */
interface WholeFileMatches {
  memories: IndexedMemory[];
  headers: MemoryHeader[];
}

/**
 * BM25F over the four fields for every memory sharing a word with the query; only memories
 * matching an original query term count. Every match gets a score in a reused buffer, but only
 * the best few later become {@link Candidate} objects ({@link bestMatches}): up to 20,000
 * candidate objects per query were most of the garbage a query left (several MB), and garbage
 * that survives into the old generation is peak RSS.
 */
function scoreWholeFiles(
  index: LexicalIndex,
  headerByFile: ReadonlyMap<string, MemoryHeader>,
  terms: QueryTerm[],
  tuning: LexicalTuning,
  averages: Record<FieldName, number>,
): WholeFileMatches {
  const memories: IndexedMemory[] = [];
  const headers: MemoryHeader[] = [];
  const found = index.candidates(terms);
  if (scoreBuffer.length < found.length)
    scoreBuffer = new Float64Array(Math.max(found.length, scoreBuffer.length * 2));
  const bases = scoreBuffer;
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
  return { memories, headers };
}

/**
 * Adds feedback words to the scores of the first pass. Feedback words never make a memory a
 * match, and each score is a sum over the terms in order, so this gives exactly what scoring
 * all terms afresh would, without walking the original terms' postings and fields again.
 */
function addExpansionScores(
  matches: WholeFileMatches,
  expansion: QueryTerm[],
  tuning: LexicalTuning,
  averages: Record<FieldName, number>,
): void {
  const bases = scoreBuffer;
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
function bestMatches(matches: WholeFileMatches, depth: number): Candidate[] {
  const bases = scoreBuffer;
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
      passage: 0,
      neighbor: null,
      related: null,
      score: base,
    });
  }
  return best;
}

/** Whole-file scores of the current query's matches, reused across queries (ranking is synchronous). */
let scoreBuffer = new Float64Array(1024);

function mapByFile(headers: readonly MemoryHeader[]): Map<string, MemoryHeader> {
  const byFile = new Map<string, MemoryHeader>();
  for (const header of headers) byFile.set(header.file, header);
  return byFile;
}

/**
 * The query's terms that occur in the index, with their weights. A word no memory contains
 * (often a typo: "fesetival", "Tennesee") is replaced by the indexed words one edit away, at
 * `typoWeight` of their usual weight.
 */
function queryTerms(index: LexicalIndex, tokens: readonly Token[], typoWeight: number): QueryTerm[] {
  const documentCount = index.size;
  const passageCount = index.passageCount;
  const terms = new Map<number, QueryTerm>();
  const addTerm = (id: number, surface: string, weight: number) => {
    if (terms.has(id)) return;
    const frequency = index.documentFrequency.get(id);
    if (frequency <= 0) return;
    terms.set(id, {
      id,
      surface,
      idf: weight * inverseDocumentFrequency(documentCount, frequency),
      passageIdf: weight * inverseDocumentFrequency(passageCount, index.passageFrequency.get(id)),
    });
  };
  for (const token of tokens) {
    const id = index.dictionary.lookup(token.term);
    if (id !== undefined && index.documentFrequency.get(id) > 0) addTerm(id, token.surface, 1);
  }
  if (typoWeight > 0) {
    for (const token of tokens) {
      const id = index.dictionary.lookup(token.term);
      if (id !== undefined && index.documentFrequency.get(id) > 0) continue;
      if (!TYPO_CANDIDATE.test(token.term)) continue;
      for (const near of index.dictionary.withinOneEdit(token.term))
        addTerm(near, `${token.surface}~`, typoWeight);
    }
  }
  return [...terms.values()];
}

/**
 * Words that frame a question rather than name its topic ("what *kind* of art", "*describe*
 * her", "how *many*"): dropped from queries only, so memories keep them. Measured on LoCoMo:
 * +0.2 points on sessions and +0.1 on observations, in every category.
 */
const QUESTION_WORDS: ReadonlySet<string> = new Set(
  (
    "kind kinds type types sort sorts mention mentioned describe described specific specifically " +
    "thing things something many much often likely probably think"
  ).split(" "),
);

/** Only longer Latin-script words get typo matching: short words have too many neighbors. */
const TYPO_CANDIDATE = /^[a-z]{5,}$/;

function toPick(candidate: Candidate, allTerms: QueryTerm[]): LexicalPick {
  const terms = allTerms.filter((term) => !term.expansion);
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
  if (candidate.related) reason += `; related: ${candidate.related}`;
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
