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
  return weightedFrequency(
    frequency,
    weight,
    lengthDivisor(fieldLength, averageFieldLength, lengthNormalization),
  );
}

/**
 * The length normalization of one field of one memory, {@link normalizedFieldFrequency}'s divisor
 * (an empty field's average counts as 1). Depends on the memory, not the term: BM25F computes it
 * once per memory and field (stage-bm25f.ts).
 */
export function lengthDivisor(
  fieldLength: number,
  averageFieldLength: number,
  lengthNormalization: number,
): number {
  const average = averageFieldLength > 0 ? averageFieldLength : 1;
  return 1 - lengthNormalization + (lengthNormalization * fieldLength) / average;
}

/** A field's weighted frequency over its {@link lengthDivisor}. */
export function weightedFrequency(frequency: number, weight: number, divisor: number): number {
  return (weight * frequency) / divisor;
}

/** Saturates a (pseudo-)frequency: tf·(k1+1)/(tf+k1). */
export function saturate(frequency: number, k1: number): number {
  return (frequency * (k1 + 1)) / (frequency + k1);
}
