import { cutQuery } from "../query-text.ts";
import { inverseDocumentFrequency } from "./bm25.ts";
import type { Corpus } from "./corpus.ts";
import { type Token, tokenizeDetailed } from "./tokenize.ts";
import type { QueryTerm } from "./types.ts";

/**
 * The query's tokens, without the words that only frame a question ({@link QUESTION_WORDS}). Only
 * the part {@link cutQuery} keeps is tokenized (docs/design.md#long-input).
 */
export function queryTokens(query: string): Token[] {
  return tokenizeDetailed(cutQuery(query)).filter((token) => !QUESTION_WORDS.has(token.surface));
}

/**
 * The query's terms that occur in the index, with their weights. A word no memory contains
 * (often a typo: "fesetival", "Tennesee") is replaced by the indexed words one edit away, at
 * `typoWeight` of their usual weight.
 */
export function queryTerms(corpus: Corpus, tokens: readonly Token[], typoWeight: number): QueryTerm[] {
  const documentCount = corpus.size;
  const passageCount = corpus.passageCount;
  const terms = new Map<number, QueryTerm>();
  const addTerm = (id: number, surface: string, weight: number) => {
    if (terms.has(id)) return;
    const frequency = corpus.documentFrequency.get(id);
    if (frequency <= 0) return;
    terms.set(id, {
      id,
      surface,
      idf: weight * inverseDocumentFrequency(documentCount, frequency),
      passageIdf: weight * inverseDocumentFrequency(passageCount, corpus.passageFrequency.get(id)),
    });
  };
  for (const token of tokens) {
    const id = corpus.dictionary.lookup(token.term);
    if (id !== undefined && corpus.documentFrequency.get(id) > 0) addTerm(id, token.surface, 1);
  }
  if (typoWeight > 0) {
    for (const token of tokens) {
      const id = corpus.dictionary.lookup(token.term);
      if (id !== undefined && corpus.documentFrequency.get(id) > 0) continue;
      if (!TYPO_CANDIDATE.test(token.term)) continue;
      for (const near of corpus.dictionary.withinOneEdit(token.term))
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
