import { savedAtMs } from "../../../types.ts";
import type { Candidate } from "../index/types.ts";
import { type DateSpan, savedInSpan, spanLabel } from "../text/query-dates.ts";
import type { RankingStage } from "./stage.ts";

/**
 * Dates in the query (docs/design.md#dates-in-queries): a memory saved on a day the query names (its
 * `modified`, else its mtime), or whose name or description carries that day as `2023-05-04` or
 * `2023年5月4日`, has its score multiplied by 1 + `dateWeight`. Own evidence: "when" is part of
 * what the query asks, as much as its words are, so a memory of the right day that is worded
 * less like the question still clears the relevance floor. A query without a date is unchanged.
 */
export const dateStage: RankingStage = {
  name: "dates",
  combine: "scale",
  evidence: "own",
  score({ tuning, dates }, candidates) {
    if (tuning.dateWeight <= 0 || dates.length === 0) return null;
    const scores = new Float64Array(candidates.length).fill(1);
    const notes: (string | null)[] = new Array(candidates.length).fill(null);
    for (let c = 0; c < candidates.length; c++) {
      const note = dateEvidence(candidates[c], dates);
      if (note === null) continue;
      scores[c] = 1 + tuning.dateWeight;
      notes[c] = note;
    }
    return { scores, notes };
  },
  explain: (note) => `date: ${note}`,
};

/** Dates written in a name or description: ISO `2023-05-04`, or `2023年5月4日`. */
const WRITTEN_DATE = /(\d{4})(?:-(\d{1,2})-(\d{1,2})|年(\d{1,2})月(\d{1,2})[日号號])/g;

/** Why `candidate` matches one of `dates` ("2023-05-04 (saved that day)"), or null. */
function dateEvidence(candidate: Candidate, dates: readonly DateSpan[]): string | null {
  const saved = savedAtMs(candidate.header);
  for (const span of dates) {
    if (savedInSpan(span, saved))
      return `${spanLabel(span)} (${span.endMs - span.startMs > DAY ? "saved in that range" : "saved that day"})`;
  }
  const written = `${candidate.header.file} ${candidate.header.description ?? ""}`;
  for (const match of written.matchAll(WRITTEN_DATE)) {
    const month = Number(match[2] ?? match[4]);
    const day = Number(match[3] ?? match[5]);
    const noon = new Date(Number(match[1]), month - 1, day, 12).getTime();
    if (!Number.isFinite(noon)) continue;
    for (const span of dates)
      if (savedInSpan(span, noon)) return `${spanLabel(span)} (dated that day in its name)`;
  }
  return null;
}

// A day is at most 25 hours long (a daylight-saving change).
const DAY = 25 * 3_600_000;
