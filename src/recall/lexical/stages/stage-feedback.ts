import type { Corpus } from "../index/corpus.ts";
import { forEachDescriptionTerm } from "../index/memory-record.ts";
import type { Candidate, LexicalTuning, QueryTerm } from "../index/types.ts";
import { inverseDocumentFrequency } from "./bm25.ts";

/**
 * Whether feedback runs for this query: it is on, the notes are short ({@link
 * LexicalTuning.feedbackMaxAverageLength}) and the first pass found something to learn from.
 */
export function feedbackApplies(
  corpus: Corpus,
  tuning: LexicalTuning,
  firstPass: readonly Candidate[],
): boolean {
  const notesAreShort = corpus.averageLength("body") <= tuning.feedbackMaxAverageLength;
  return tuning.feedbackDocuments > 0 && tuning.feedbackWeight > 0 && notesAreShort && firstPass.length > 0;
}

/**
 * Pseudo-relevance feedback (RM3-style, Lavrenko & Croft 2001): the words that weigh most in
 * the best first-pass memories (frequency share × IDF × the memory's relative score) join the
 * query at `feedbackWeight`. Finds the second half of a two-part answer that uses the first
 * half's vocabulary rather than the question's.
 */
export function feedbackTerms(
  corpus: Corpus,
  ranked: readonly Candidate[],
  terms: readonly QueryTerm[],
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
  const documentCount = corpus.size;
  const expansion = [...weights]
    .map(([id, weight]) => {
      const frequency = corpus.documentFrequency.get(id);
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
      passageIdf:
        scale * inverseDocumentFrequency(corpus.passageCount, corpus.passageFrequency.get(entry.id)),
      expansion: true,
    };
  });
}
