import { inverseDocumentFrequency } from "./bm25.ts";
import type { Corpus } from "./corpus.ts";
import { forEachDescriptionTerm, type IndexedMemory, PASSAGE_LINES } from "./memory-record.ts";
import type { RelatedScratch } from "./scratch.ts";
import type { RankingStage } from "./stage.ts";
import type { Token } from "./tokenize.ts";
import type { WordVectors } from "./word-vectors.ts";

/**
 * The related-word stage of the lexical selector: evidence from words that mean nearly what a
 * query word means ("political leaning" → "liberal", "martial arts" → "karate", "pets" →
 * "dogs"), judged by static word vectors ({@link WordVectors}). It re-scores only the best
 * whole-file candidates, so a memory must still share a word with the query to be considered.
 *
 * Two scores, both summing `idf × (similarity − threshold) / (1 − threshold)` over query words:
 * - whole memory (memories of `passageMinLines`+ lines): each query word's most similar *other*
 *   word in the body — the exact word is already BM25's evidence;
 * - best passage (every memory): the two lines where the query's words, exact or related, are
 *   best covered together, as in a short note that says "liberal" next to the person's name.
 *
 * The relevance floor counts this evidence too: a memory that says "liberal" is an answer to
 * "political leaning" even though it shares only the person's name with the question.
 *
 * Measured on the LoCoMo development split (k = 5): sessions 0.896 → 0.906, observations
 * 0.751 → 0.766 (judged by word evidence alone, the floor drops most of the memories this
 * stage finds: 0.897 / 0.755). Query expansion with each word's nearest neighbors, tried
 * first, moved neither (0.886–0.898): a fixed neighbor list adds the same noise to every
 * memory, while the best match inside one memory is about that memory.
 */

/** A query word that has a vector. */
export interface RelatedQueryWord {
  /** Term id in the index, or -1 when no memory contains the word. */
  id: number;
  /** Row in the word vectors. */
  row: number;
  idf: number;
  surface: string;
}

/**
 * At most this many query words take part (the rarest first): a pasted page as the prompt
 * must not cost a similarity per word per memory token.
 */
const MAX_QUERY_WORDS = 12;

/** The query words with a vector, weighted by their IDF in `corpus` (a word no memory has gets the highest). */
export function relatedQueryWords(
  corpus: Corpus,
  tokens: readonly Token[],
  vectors: WordVectors,
): RelatedQueryWord[] {
  const seen = new Set<string>();
  const words: RelatedQueryWord[] = [];
  for (const token of tokens) {
    if (seen.has(token.term)) continue;
    seen.add(token.term);
    const row = vectors.rowOf(token.term);
    if (row < 0) continue;
    const id = corpus.dictionary.lookup(token.term) ?? -1;
    const frequency = id >= 0 ? Math.max(0, corpus.documentFrequency.get(id)) : 0;
    words.push({ id, row, idf: inverseDocumentFrequency(corpus.size, frequency), surface: token.surface });
  }
  if (words.length <= MAX_QUERY_WORDS) return words;
  const rarest = new Set([...words].sort((a, b) => b.idf - a.idf).slice(0, MAX_QUERY_WORDS));
  return words.filter((word) => rarest.has(word));
}

/**
 * The stage: scores for the first `relatedDepth` candidates, and as each one's note its
 * strongest related pair (e.g. "leaning≈liberal") for `--explain`. Off without word vectors.
 */
export const relatedWordsStage: RankingStage = {
  name: "related words",
  combine: "add",
  evidence: "own",
  score({ corpus, scratch, tuning, tokens, vectors }, candidates) {
    if (!vectors) return null;
    let words = relatedQueryWords(corpus, tokens, vectors);
    if (words.length === 0 || (tuning.relatedWeight <= 0 && tuning.relatedPassageWeight <= 0)) return null;
    // At most MAX_QUERY_WORDS words; relatedQueryWords keeps the rarest that many.
    if (words.length > MAX_QUERY_WORDS) words = words.slice(0, MAX_QUERY_WORDS);
    const related = scratch.related;
    related.fit(words.length);
    const similarities = similaritiesFor(corpus, vectors, words, related);
    const threshold = tuning.relatedThreshold;
    const gain = (similarity: number) => (similarity - threshold) / (1 - threshold);
    const scores = new Float64Array(candidates.length);
    const notes: (string | null)[] = new Array(candidates.length).fill(null);
    const depth = Math.min(candidates.length, tuning.relatedDepth);
    for (let c = 0; c < depth; c++) {
      const memory = candidates[c].memory;
      const best = bestOtherWords(memory, words, similarities, related);
      let wholeScore = 0;
      let strongestWhole = -1;
      let strongestContribution = 0;
      for (let q = 0; q < words.length; q++) {
        if (best.similarity[q] <= threshold || best.row[q] < 0) continue;
        const contribution = words[q].idf * gain(best.similarity[q]);
        wholeScore += contribution;
        if (strongestWhole < 0 || contribution > strongestContribution) {
          strongestWhole = q;
          strongestContribution = contribution;
        }
      }
      let added = 0;
      // The query word `--explain` names: the strongest related (not exact) evidence that scored.
      let named = -1;
      if (tuning.relatedWeight > 0 && memory.lineCount >= tuning.passageMinLines && wholeScore > 0) {
        added += tuning.relatedWeight * wholeScore;
        named = strongestWhole;
      }
      if (tuning.relatedPassageWeight > 0) {
        const passage = bestRelatedPassage(memory, words, similarities, gain, threshold, related);
        added += tuning.relatedPassageWeight * passage.score;
        if (named < 0) named = passage.strongestRelated;
      }
      scores[c] = added;
      if (named >= 0 && best.row[named] >= 0)
        notes[c] = `${words[named].surface}≈${vectors.word(best.row[named])}`;
    }
    return { scores, notes };
  },
  explain: (pair) => `related: ${pair}`,
};

/**
 * Per query word, the most similar word of the description or body that is not a query word
 * (those are exact evidence, already counted), and that word's vector row.
 */
function bestOtherWords(
  memory: IndexedMemory,
  words: readonly RelatedQueryWord[],
  similarities: Similarities,
  scratch: RelatedScratch,
): { similarity: Float64Array; row: Int32Array } {
  const similarity = scratch.bestSimilarity.fill(0, 0, words.length);
  const row = scratch.bestRow.fill(-1, 0, words.length);
  const consider = (id: number) => {
    const at = similarities.of(id);
    if (at < 0 || isQueryWord(id, words)) return;
    for (let q = 0; q < words.length; q++) {
      const s = similarities.values[at + q];
      if (s > similarity[q]) {
        similarity[q] = s;
        row[q] = similarities.rowOfTerm(id);
      }
    }
  };
  forEachDescriptionTerm(memory, consider);
  const record = memory.record;
  for (let i = 0; i < memory.bodyTermCount; i++) consider(record[memory.bodyTermsAt + i]);
  return { similarity, row };
}

function isQueryWord(id: number, words: readonly RelatedQueryWord[]): boolean {
  for (let q = 0; q < words.length; q++) if (words[q].id === id) return true;
  return false;
}

/**
 * Best passage: the description on its own (a memory's one-line summary) or two body lines;
 * per query word its best exact (1) or related match in the passage. `strongestRelated`: the
 * query word whose related (not exact) match adds most to that passage, or -1. (Unlike the
 * whole-memory score, another query word counts as a related match here: in a passage, "art"
 * next to "painting" is evidence for both; measured, excluding it changed nothing on sessions
 * and cost 0.003 on observations.)
 */
function bestRelatedPassage(
  memory: IndexedMemory,
  words: readonly RelatedQueryWord[],
  similarities: Similarities,
  gain: (similarity: number) => number,
  threshold: number,
  scratch: RelatedScratch,
): { score: number; strongestRelated: number } {
  const lineCount = memory.lineCount;
  const width = words.length;
  // Every term of this memory already has its similarities (bestOtherWords ran first), so the
  // buffer does not grow below and can be read directly in the per-token loop.
  const values = similarities.values;
  const ids = scratch.queryIds;
  for (let q = 0; q < width; q++) ids[q] = words[q].id;
  const matchInto = (target: Float32Array | Float64Array, base: number, id: number) => {
    const at = similarities.of(id);
    if (at < 0) return; // no vector: not a query word either (those all have one)
    for (let q = 0; q < width; q++) {
      const s = id === ids[q] ? 1 : values[at + q];
      if (s > target[base + q]) target[base + q] = s;
    }
  };
  const result = scratch.passage;
  result.score = 0;
  result.strongestRelated = -1;
  const descriptionBest = scratch.description.fill(0, 0, width);
  forEachDescriptionTerm(memory, (id) => matchInto(descriptionBest, 0, id));
  scorePassage(descriptionBest, 0, 1, width, words, gain, threshold, result);
  if (lineCount === 0) return result;
  if (scratch.lines.length < lineCount * width) scratch.lines = new Float32Array(lineCount * width * 2);
  const lineBest = scratch.lines.fill(0, 0, lineCount * width);
  const record = memory.record;
  for (let line = 0; line < lineCount; line++) {
    const start = memory.tokensAt + memory.lineStart(line);
    const end = memory.tokensAt + (line + 1 < lineCount ? memory.lineStart(line + 1) : memory.tokenCount);
    for (let i = start; i < end; i++) matchInto(lineBest, line * width, record[i]);
  }
  const windows = Math.max(1, lineCount - PASSAGE_LINES + 1);
  for (let first = 0; first < windows; first++)
    scorePassage(
      lineBest,
      first,
      Math.min(lineCount, first + PASSAGE_LINES),
      width,
      words,
      gain,
      threshold,
      result,
    );
  return result;
}

/** Scores lines [first, last) of `lineBest` as one passage; keeps it in `result` when it is the best so far. */
function scorePassage(
  lineBest: Float32Array | Float64Array,
  first: number,
  last: number,
  width: number,
  words: readonly RelatedQueryWord[],
  gain: (similarity: number) => number,
  threshold: number,
  result: { score: number; strongestRelated: number },
): void {
  let score = 0;
  let strongest = -1;
  let strongestContribution = 0;
  for (let q = 0; q < width; q++) {
    let top = 0;
    for (let line = first; line < last; line++)
      if (lineBest[line * width + q] > top) top = lineBest[line * width + q];
    if (top <= threshold) continue;
    const contribution = words[q].idf * gain(top);
    score += contribution;
    if (top < 1 && contribution > strongestContribution) {
      strongestContribution = contribution;
      strongest = q;
    }
  }
  if (score > result.score) {
    result.score = score;
    result.strongestRelated = strongest;
  }
}

/**
 * Similarities of index terms to the query words, computed once per term per query (memories
 * share most of their words) into reused buffers: no per-query garbage proportional to the
 * dictionary, which has ~200,000 terms at 20,000 memories.
 */
interface Similarities {
  /** Offset of `id`'s similarities (one per query word) in `values`, or -1 when it has no vector. */
  of(id: number): number;
  values: Float32Array;
  /** The vector row of a term id (-1: none). */
  rowOfTerm(id: number): number;
}

function similaritiesFor(
  corpus: Corpus,
  vectors: WordVectors,
  words: readonly RelatedQueryWord[],
  scratch: RelatedScratch,
): Similarities {
  const rows = termRows(corpus, vectors, scratch);
  const memo = scratch.memo;
  const size = corpus.dictionary.size;
  if (memo.stamp.length < size) {
    memo.stamp = growUint32(memo.stamp, size);
    memo.slot = new Int32Array(memo.stamp.length);
  }
  memo.query++;
  if (memo.query === 0xffffffff) {
    memo.stamp.fill(0);
    memo.query = 1;
  }
  memo.used = 0;
  const width = words.length;
  const query = memo.query;
  // A persisted index may hold ids its dictionary never handed out (they read as terms no
  // memory has): anything outside the row table has no vector.
  const rowOfTerm = (id: number): number => {
    if (id < 0 || id >= rows.byId.length) return -1;
    let row = rows.byId[id];
    if (row === UNKNOWN_ROW) {
      const term = corpus.dictionary.term(id);
      row = term === undefined ? -1 : vectors.rowOf(term);
      rows.byId[id] = row;
    }
    return row;
  };
  return {
    get values() {
      return memo.values;
    },
    rowOfTerm,
    of(id: number): number {
      if (id < 0 || id >= size) return -1;
      if (memo.stamp[id] === query) return memo.slot[id];
      memo.stamp[id] = query;
      const row = rowOfTerm(id);
      if (row < 0) {
        memo.slot[id] = -1;
        return -1;
      }
      const at = memo.used * width;
      if (memo.values.length < at + width) {
        const grown = new Float32Array(Math.max(memo.values.length * 2, at + width));
        grown.set(memo.values);
        memo.values = grown;
      }
      for (let q = 0; q < width; q++) memo.values[at + q] = vectors.similarity(words[q].row, row);
      memo.used++;
      memo.slot[id] = at;
      return at;
    },
  };
}

const UNKNOWN_ROW = -2;

/** Vector row per term id of the index (kept in its scratch), grown to the dictionary. */
function termRows(
  corpus: Corpus,
  vectors: WordVectors,
  scratch: RelatedScratch,
): { vectors: WordVectors; byId: Int32Array } {
  let rows = scratch.rows;
  if (!rows || rows.vectors !== vectors) {
    rows = { vectors, byId: new Int32Array(0) };
    scratch.rows = rows;
  }
  const size = corpus.dictionary.size;
  if (rows.byId.length < size) {
    const grown = new Int32Array(Math.max(size, rows.byId.length * 2)).fill(UNKNOWN_ROW);
    grown.set(rows.byId);
    rows.byId = grown;
  }
  return rows;
}

function growUint32(array: Uint32Array, size: number): Uint32Array {
  const grown = new Uint32Array(Math.max(size, array.length * 2));
  grown.set(array);
  return grown;
}
