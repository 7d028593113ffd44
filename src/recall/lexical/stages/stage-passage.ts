import type { Corpus } from "../index/corpus.ts";
import { bodyFrequency, bodyTokens, type IndexedMemory, PASSAGE_LINES } from "../index/memory-record.ts";
import type { PassageScratch } from "../index/scratch.ts";
import type { QueryTerm } from "../index/types.ts";
import type { RankingStage } from "./stage.ts";

/**
 * Passage evidence: each of the best `passageDepth` candidates with at least `passageMinLines`
 * body lines gains `passageWeight` × its best passage's score ({@link bestPassageScore}).
 */
export const passageStage: RankingStage = {
  name: "passage",
  combine: "add",
  evidence: "own",
  score({ corpus, scratch, tuning, terms }, candidates) {
    if (tuning.passageWeight <= 0) return null;
    const scores = new Float64Array(candidates.length);
    const depth = Math.min(candidates.length, tuning.passageDepth);
    for (let c = 0; c < depth; c++) {
      const memory = candidates[c].memory;
      if (memory.lineCount < tuning.passageMinLines) continue;
      scores[c] = tuning.passageWeight * bestPassageScore(corpus, memory, terms, tuning.k1, scratch.passage);
    }
    return { scores };
  },
};

/**
 * Best BM25 score of one passage, with passage-level IDF: a speaker's name or a topic word that
 * is in every session file is still rare among passages, so "Melanie … camping" in one turn
 * beats the two words far apart (Callan 1994, passage-level evidence).
 */
export function bestPassageScore(
  corpus: Corpus,
  memory: IndexedMemory,
  terms: readonly QueryTerm[],
  k1: number,
  scratch: PassageScratch,
): number {
  const average = corpus.averagePassageLength;
  const wanted = scratch.wanted;
  wanted.length = 0;
  for (const term of terms) if (bodyFrequency(memory, term.id) > 0) wanted.push(term);
  if (wanted.length === 0) return 0;
  // Slot of each wanted term id, by a stamped array instead of a Map: this is looked up per token.
  const stamp = scratch.begin(corpus.dictionary.size, wanted);
  const slotOf = scratch.slotOf;
  const stampOf = scratch.stampOf;
  // Count query terms line by line once; a passage is PASSAGE_LINES consecutive lines.
  const lineCount = memory.lineCount;
  const width = wanted.length;
  const tokens = bodyTokens(memory, scratch.tokens);
  const { counts, lineLength } = scratch.fit(lineCount, width);
  for (let line = 0; line < lineCount; line++) {
    const start = memory.lineStart(line);
    const end = line + 1 < lineCount ? memory.lineStart(line + 1) : memory.tokenCount;
    lineLength[line] = end - start;
    for (let i = start; i < end; i++) {
      const id = tokens[i];
      if (stampOf[id] === stamp) counts[line * width + slotOf[id]]++;
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
    for (let slot = 0; slot < width; slot++) {
      let count = 0;
      for (let line = first; line < last; line++) count += counts[line * width + slot];
      if (count > 0) score += (wanted[slot].passageIdf * count * (k1 + 1)) / (count + k1 * lengthFactor);
    }
    if (score > best) best = score;
  }
  return best;
}
