import { FIELD_NAMES, type FieldName, fieldFrequency } from "./index/memory-record.ts";
import type { Candidate, LexicalPick, QueryTerm } from "./index/types.ts";
import { BIGRAM_MARK } from "./text/tokenize.ts";

/**
 * A ranked candidate as a pick: its final score, and the reason `recall --explain` prints (the
 * matched query words per field, then each stage's note, e.g. "related: leaning≈liberal").
 */
export function toPick(
  candidate: Candidate,
  score: number,
  allTerms: readonly QueryTerm[],
  stageNotes: readonly string[],
): LexicalPick {
  const terms = allTerms.filter((term) => !term.expansion);
  const matched: Partial<Record<FieldName, string[]>> = {};
  for (const field of FIELD_NAMES) {
    const words = terms
      .filter((term) => fieldFrequency(candidate.memory, field, term.id) > 0)
      .sort((a, b) => b.idf - a.idf)
      .map((term) => term.surface);
    const unique = [...new Set(words)];
    if (unique.length > 0) matched[field] = unique;
  }
  const parts = FIELD_NAMES.filter((field) => matched[field]).map(
    (field) => `${field}: ${abbreviate(matched[field] ?? [])}`,
  );
  // A memory found only through the term-bridge table matched no query word itself.
  const said = parts.length > 0 ? [`matched ${parts.join("; ")}`] : [];
  const reason = [...said, ...stageNotes].join("; ");
  return { file: candidate.header.file, score: round(score), reason, matched };
}

function abbreviate(words: string[]): string {
  const shown = words.slice(0, 6).map((word) => word.replace(BIGRAM_MARK, ""));
  return words.length > 6 ? `${shown.join(", ")} +${words.length - 6}` : shown.join(", ");
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
