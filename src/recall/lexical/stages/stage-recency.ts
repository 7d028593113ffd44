import { savedAtMs } from "../../../types.ts";
import type { RankingStage } from "./stage.ts";

/**
 * Mild recency prior over the span of save times: the newest memory's score is multiplied by
 * 1 + `recencyWeight`, the oldest by 1. Context evidence: it breaks near-ties toward what is
 * current, never lifts a memory over the relevance floor.
 */
export const recencyStage: RankingStage = {
  name: "recency",
  combine: "scale",
  evidence: "context",
  score({ tuning, times }, candidates) {
    const weight = tuning.recencyWeight;
    if (weight <= 0 || times.length < 2) return null;
    const oldest = times[0];
    const span = times[times.length - 1] - oldest;
    if (span <= 0) return null;
    const scores = new Float64Array(candidates.length);
    for (let c = 0; c < candidates.length; c++)
      scores[c] = 1 + (weight * (savedAtMs(candidates[c].header) - oldest)) / span;
    return { scores };
  },
};
