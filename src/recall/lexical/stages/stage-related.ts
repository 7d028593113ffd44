import type { Corpus } from "../index/corpus.ts";
import {
  bodyTokens,
  forEachDescriptionTerm,
  type IndexedMemory,
  PASSAGE_LINES,
} from "../index/memory-record.ts";
import type { TermSimilarities } from "../index/related-similarities.ts";
import type { RelatedScratch } from "../index/scratch.ts";
import { priorDocumentFrequency } from "../text/code-words.ts";
import type { Token } from "../text/tokenize.ts";
import type { WordVectors } from "../text/word-vectors.ts";
import { inverseDocumentFrequency } from "./bm25.ts";
import type { RankingStage } from "./stage.ts";

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
  pathTerms: ReadonlySet<string> = new Set(),
): RelatedQueryWord[] {
  const seen = new Set<string>();
  const words: RelatedQueryWord[] = [];
  for (const token of tokens) {
    if (seen.has(token.term)) continue;
    seen.add(token.term);
    const row = vectors.rowOf(token.term);
    if (row < 0) continue;
    const id = corpus.dictionary.lookup(token.term) ?? -1;
    const counted = id >= 0 ? Math.max(0, corpus.documentFrequency.get(id)) : 0;
    // A path's `src` weighs what BM25F gives it (docs/design.md#code-common-words).
    const frequency = priorDocumentFrequency(token.term, pathTerms, corpus.size, counted);
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
  score({ corpus, scratch, tuning, tokens, vectors, pathTerms }, candidates) {
    if (!vectors) return null;
    let words = relatedQueryWords(corpus, tokens, vectors, pathTerms);
    if (words.length === 0 || (tuning.relatedWeight <= 0 && tuning.relatedPassageWeight <= 0)) return null;
    // At most MAX_QUERY_WORDS words; relatedQueryWords keeps the rarest that many.
    if (words.length > MAX_QUERY_WORDS) words = words.slice(0, MAX_QUERY_WORDS);
    const related = scratch.related;
    related.fit(words.length);
    const threshold = tuning.relatedThreshold;
    const similarities = related.similarities;
    similarities.begin(corpus, vectors, words, threshold);
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
        const contribution = words[q].idf * gain(best.similarity[q], threshold);
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
        const passage = bestRelatedPassage(memory, words, similarities, threshold, related);
        added += tuning.relatedPassageWeight * passage.score;
        if (named < 0) named = passage.strongestRelated;
      }
      scores[c] = added;
      if (named < 0) continue;
      // bestOtherWords kept only matches above the threshold; a passage may name a word whose
      // best other word is under it (its passage match was another query word): look that up.
      const row =
        best.similarity[named] > threshold
          ? best.row[named]
          : bestOtherRow(memory, words, named, similarities);
      if (row >= 0) notes[c] = `${words[named].surface}≈${vectors.word(row)}`;
    }
    return { scores, notes };
  },
  explain: (pair) => `related: ${pair}`,
};

/** How far above the threshold a similarity is, scaled to 0..1. */
function gain(similarity: number, threshold: number): number {
  return (similarity - threshold) / (1 - threshold);
}

/**
 * Per query word, the most similar word of the description or body that is not a query word
 * (those are exact evidence, already counted), and that word's vector row. Exact wherever the
 * best similarity is above the threshold (the only place it scores): words whose every
 * similarity is at or under it are skipped ({@link TermSimilarities.of}).
 */
function bestOtherWords(
  memory: IndexedMemory,
  words: readonly RelatedQueryWord[],
  similarities: TermSimilarities,
  scratch: RelatedScratch,
): { similarity: Float64Array; row: Int32Array } {
  const width = words.length;
  const similarity = scratch.bestSimilarity.fill(0, 0, width);
  const row = scratch.bestRow.fill(-1, 0, width);
  const record = memory.record;
  for (let i = memory.descriptionAt; i < memory.typeAt; i += 2)
    considerOther(record[i], words, similarities, similarity, row);
  for (let i = memory.bodyTermsAt, end = i + memory.bodyTermCount; i < end; i++)
    considerOther(record[i], words, similarities, similarity, row);
  return { similarity, row };
}

function considerOther(
  id: number,
  words: readonly RelatedQueryWord[],
  similarities: TermSimilarities,
  similarity: Float64Array,
  row: Int32Array,
): void {
  const at = similarities.of(id);
  if (at < 0 || isQueryWord(id, words)) return;
  const values = similarities.values;
  // Ascending q, as a loop over every query word would update them.
  for (let bits = similarities.bits[id]; bits !== 0; bits &= bits - 1) {
    const q = 31 - Math.clz32(bits & -bits);
    const s = values[at + q];
    if (s > similarity[q]) {
      similarity[q] = s;
      row[q] = similarities.rowOfTerm(id);
    }
  }
}

/** {@link bestOtherWords} for query word `q` alone, with nothing skipped: the row of its best other word, or -1. */
function bestOtherRow(
  memory: IndexedMemory,
  words: readonly RelatedQueryWord[],
  q: number,
  similarities: TermSimilarities,
): number {
  let best = 0;
  let bestRow = -1;
  const consider = (id: number) => {
    const s = similarities.similarity(id, q);
    if (Number.isNaN(s) || isQueryWord(id, words)) return;
    if (s > best) {
      best = s;
      bestRow = similarities.rowOfTerm(id);
    }
  };
  forEachDescriptionTerm(memory, consider);
  for (let i = 0; i < memory.bodyTermCount; i++) consider(memory.record[memory.bodyTermsAt + i]);
  return bestRow;
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
 *
 * Only what can score is visited: per token, the query words it has a match above the threshold
 * for ({@link TermSimilarities.bits}; a best match at or under it counts nothing), and per
 * passage, the query words one of its lines has such a match for.
 */
function bestRelatedPassage(
  memory: IndexedMemory,
  words: readonly RelatedQueryWord[],
  similarities: TermSimilarities,
  threshold: number,
  scratch: RelatedScratch,
): { score: number; strongestRelated: number } {
  const lineCount = memory.lineCount;
  const width = words.length;
  const ids = scratch.queryIds;
  for (let q = 0; q < width; q++) ids[q] = words[q].id;
  const result = scratch.passage;
  result.score = 0;
  result.strongestRelated = -1;
  // A passage's matches: per line, the query words with a countable match (`masks`) and the
  // best one for each of them (`best`, read only where the line's mask has the word).
  const record = memory.record;
  const descriptionMask = scratch.descriptionMask;
  descriptionMask[0] = 0;
  for (let i = memory.descriptionAt; i < memory.typeAt; i += 2) {
    const id = record[i];
    const at = similarities.of(id);
    if (at >= 0)
      descriptionMask[0] = matchInto(scratch.description, 0, descriptionMask[0], id, at, similarities, ids);
  }
  // A negative threshold counts even a word with no match (its best is 0): every word, always.
  const every = threshold < 0 ? (1 << width) - 1 : 0;
  scorePassage(
    scratch.description,
    descriptionMask,
    0,
    1,
    every | descriptionMask[0],
    width,
    words,
    threshold,
    result,
  );
  if (lineCount === 0) return result;
  if (scratch.lines.length < lineCount * width) scratch.lines = new Float32Array(lineCount * width * 2);
  if (scratch.lineMasks.length < lineCount) scratch.lineMasks = new Uint16Array(lineCount * 2);
  const lineBest = scratch.lines;
  const masks = scratch.lineMasks;
  const stamp = similarities.stamp;
  const slot = similarities.slot;
  const query = similarities.query;
  const tokens = bodyTokens(memory, scratch.tokens);
  for (let line = 0; line < lineCount; line++) {
    const start = memory.lineStart(line);
    const end = line + 1 < lineCount ? memory.lineStart(line + 1) : memory.tokenCount;
    let mask = 0;
    for (let i = start; i < end; i++) {
      const id = tokens[i];
      // Every body term was looked up by bestOtherWords: the stamp check nearly always answers.
      const at = stamp[id] === query ? slot[id] : similarities.of(id);
      if (at >= 0) mask = matchInto(lineBest, line * width, mask, id, at, similarities, ids);
    }
    masks[line] = mask;
  }
  const windows = Math.max(1, lineCount - PASSAGE_LINES + 1);
  for (let first = 0; first < windows; first++) {
    const last = Math.min(lineCount, first + PASSAGE_LINES);
    let present = every;
    for (let line = first; line < last; line++) present |= masks[line];
    // A passage without a countable match scores 0, which never replaces the best.
    if (present !== 0) scorePassage(lineBest, masks, first, last, present, width, words, threshold, result);
  }
  return result;
}

/**
 * Raises `best[base + q]` to term `id`'s match with each query word q it has a countable match
 * for (1 for the word itself); `mask`: the words with a match in `best` so far. Returns the new mask.
 */
function matchInto(
  best: Float32Array | Float64Array,
  base: number,
  mask: number,
  id: number,
  at: number,
  similarities: TermSimilarities,
  ids: Int32Array,
): number {
  const values = similarities.values;
  let seen = mask;
  for (let bits = similarities.bits[id]; bits !== 0; bits &= bits - 1) {
    const q = 31 - Math.clz32(bits & -bits);
    const s = id === ids[q] ? 1 : values[at + q];
    const bit = 1 << q;
    if ((seen & bit) === 0) {
      best[base + q] = s;
      seen |= bit;
    } else if (s > best[base + q]) best[base + q] = s;
  }
  return seen;
}

/**
 * Scores lines [first, last) of `lineBest` as one passage (query words in `present`, ascending;
 * a word a line's mask lacks counts 0 there); keeps it in `result` when it is the best so far.
 */
function scorePassage(
  lineBest: Float32Array | Float64Array,
  masks: Uint16Array,
  first: number,
  last: number,
  present: number,
  width: number,
  words: readonly RelatedQueryWord[],
  threshold: number,
  result: { score: number; strongestRelated: number },
): void {
  let score = 0;
  let strongest = -1;
  let strongestContribution = 0;
  for (let bits = present; bits !== 0; bits &= bits - 1) {
    const q = 31 - Math.clz32(bits & -bits);
    const bit = 1 << q;
    let top = 0;
    for (let line = first; line < last; line++)
      if ((masks[line] & bit) !== 0 && lineBest[line * width + q] > top) top = lineBest[line * width + q];
    if (top <= threshold) continue;
    const contribution = words[q].idf * gain(top, threshold);
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
