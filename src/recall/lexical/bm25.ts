/**
 * The BM25 arithmetic, kept pure so the index and the selector share one definition.
 * Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009):
 * BM25F sums length-normalized, weighted field frequencies first and saturates once.
 */

/** Inverse document frequency, the non-negative "BM25+" form (never below zero for common terms). */
export function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** One field's contribution to the pseudo-frequency of BM25F. */
export function normalizedFieldFrequency(
  frequency: number,
  fieldLength: number,
  averageFieldLength: number,
  weight: number,
  lengthNormalization: number,
): number {
  if (frequency === 0) return 0;
  const average = averageFieldLength > 0 ? averageFieldLength : 1;
  return (weight * frequency) / (1 - lengthNormalization + (lengthNormalization * fieldLength) / average);
}

/** Saturates a (pseudo-)frequency: tf·(k1+1)/(tf+k1). */
export function saturate(frequency: number, k1: number): number {
  return (frequency * (k1 + 1)) / (frequency + k1);
}
