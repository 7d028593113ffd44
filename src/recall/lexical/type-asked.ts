import { type MemoryHeader, type MemoryType, savedAtMs } from "../../types.ts";
import type { LexicalPick } from "./index/types.ts";

/** The words that name a memory type in a prompt: the type and its plural. */
const TYPE_WORDS: Readonly<Record<string, MemoryType>> = {
  user: "user",
  users: "user",
  feedback: "feedback",
  feedbacks: "feedback",
  project: "project",
  projects: "project",
  reference: "reference",
  references: "reference",
};

/**
 * The memories a prompt asks for by kind, when no word of it matched any memory: the newest `k`
 * of the one type it names ("user preferences", "list my feedback"), else none. A type is no
 * evidence beside words that match ("add a feedback form" is about the app), so the index holds no
 * type terms; a prompt that matches nothing else and names one type can only mean that type
 * (docs/design.md#memory-types-are-no-evidence).
 *
 * @example
 * picksOfAskedType("user preferences", headers, 5) // the 5 newest user memories, score 0
 */
export function picksOfAskedType(query: string, headers: readonly MemoryHeader[], k: number): LexicalPick[] {
  const named = new Set<MemoryType>();
  for (const word of query.toLowerCase().match(/[a-z]+/g) ?? []) {
    const type = TYPE_WORDS[word];
    if (type !== undefined) named.add(type);
  }
  if (named.size !== 1 || k <= 0) return [];
  const [type] = named;
  return headers
    .filter((header) => header.type === type)
    .sort((a, b) => savedAtMs(b) - savedAtMs(a))
    .slice(0, k)
    .map((header) => ({
      file: header.file,
      score: 0,
      reason: `no word of the prompt matched a memory; it names the type ${type}`,
      matched: {},
    }));
}
