import type { LexicalTuning } from "./index/types.ts";

/**
 * The lexical ranker's knobs as measured on the LoCoMo development split (see {@link LexicalTuning}).
 * The `type` field holds no terms (docs/design.md#memory-types-are-no-evidence), so its weight and
 * normalization act on nothing.
 */
export const DEFAULT_LEXICAL_TUNING: LexicalTuning = {
  k1: 2,
  fieldWeight: { name: 1, description: 1, type: 0.5, body: 1 },
  lengthNormalization: { name: 0.5, description: 0.5, type: 0, body: 0.75 },
  passageWeight: 1,
  passageMinLines: 8,
  typoWeight: 0.7,
  bridgeWeight: 0.5,
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
  dateWeight: 1,
  answerWeight: 0.8,
  answerWindowMs: 30 * 60_000,
  minMatchedIdf: 0,
  relativeFloor: 0.25,
  relatedWeight: 3,
  relatedPassageWeight: 1,
  relatedThreshold: 0.35,
  relatedDepth: 40,
};
