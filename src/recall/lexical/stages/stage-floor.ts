/**
 * The relative relevance floor: a candidate is kept only when its own evidence (its score
 * before the `context` stages: saved together, recency) reaches `relativeFloor` × the best such
 * score. Judged before smoothing, so a memory that barely matches is not recalled just because
 * it was saved next to the right answer (two memories saved together must not both be recalled
 * for a question only one of them answers).
 *
 * @returns per candidate, whether it clears the floor
 */
export function clearsFloor(ownScores: Float64Array, relativeFloor: number): Uint8Array {
  let best = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < ownScores.length; c++) if (ownScores[c] > best) best = ownScores[c];
  const floor = best * relativeFloor;
  const kept = new Uint8Array(ownScores.length);
  for (let c = 0; c < ownScores.length; c++) kept[c] = ownScores[c] >= floor ? 1 : 0;
  return kept;
}
