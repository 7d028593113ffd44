import { mergeBodies } from "../dream/dedupe-groups.ts";
import {
  duplicateKind,
  jaccard,
  NEAR_DUPLICATE_JACCARD,
  normalizeText,
  wordSet,
} from "../recall/duplicate-test.ts";
import type { MemoryType } from "../types.ts";
import type { ImportCandidate } from "./sources/types.ts";

/**
 * What an import does with each candidate, decided before anything is written (pure;
 * docs/design.md#import-and-export): skip what this source already gave (its `imported_from` key
 * is on a memory), skip or merge what an existing memory already says (the consolidation's own
 * duplicate test, `duplicateKind`), import the rest.
 */

/** A memory already in the memory dir, as the plan compares it. */
export interface KnownMemory {
  file: string;
  type: MemoryType;
  description: string;
  body: string;
  /** Its whole frontmatter, kept when a candidate is merged into it. */
  data: Record<string, unknown>;
  /** `modified` as ms, when it has one. */
  modifiedMs: number | null;
  /** The sources it came from (`imported_from`). */
  importedFrom: string[];
}

export type Decision =
  | { action: "import"; candidate: ImportCandidate }
  | { action: "merge"; candidate: ImportCandidate; into: KnownMemory; body: string }
  | { action: "skip"; candidate: ImportCandidate; reason: string };

/** The `imported_from` of a frontmatter as a list (one key is written as a string, several as a list). */
export function importedFromOf(data: Record<string, unknown>): string[] {
  const value = data.imported_from;
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}

/**
 * The memories the plan compares against, kept up to date as the import goes, so the source's
 * own duplicates (the same fact saved twice) are found too. Word sets are computed once per memory.
 */
export class KnownMemories {
  private readonly byKey = new Map<string, string>();
  private readonly memories: { memory: KnownMemory; words: Set<string>; description: string }[] = [];

  /**
   * @param waiting `imported_from` keys a pending proposal in the inbox already holds, with its
   * id: an import run again while its memories wait for review skips them rather than proposing
   * them twice.
   */
  constructor(
    memories: readonly KnownMemory[],
    private readonly waiting: ReadonlyMap<string, string> = new Map(),
  ) {
    for (const memory of memories) this.add(memory);
  }

  /** Adds a memory, or replaces the one of the same file. */
  add(memory: KnownMemory): void {
    const entry = {
      memory,
      words: wordSet(`${memory.description}\n${memory.body}`),
      description: normalizeText(memory.description),
    };
    const at = this.memories.findIndex((m) => m.memory.file === memory.file);
    if (at >= 0) this.memories[at] = entry;
    else this.memories.push(entry);
    for (const key of memory.importedFrom) this.byKey.set(key, memory.file);
  }

  /** What to do with `candidate`. */
  decide(candidate: ImportCandidate): Decision {
    const already = this.byKey.get(candidate.key);
    if (already !== undefined) return { action: "skip", candidate, reason: `already imported as ${already}` };
    const proposal = this.waiting.get(candidate.key);
    if (proposal !== undefined)
      return { action: "skip", candidate, reason: `already waits for review: memdir inbox show ${proposal}` };
    const words = wordSet(`${candidate.description}\n${candidate.body}`);
    const description = normalizeText(candidate.description);
    for (const known of this.memories) {
      if (known.memory.type !== candidate.type) continue;
      // duplicateKind finds near-duplicates only with the same description or a word overlap of
      // NEAR_DUPLICATE_JACCARD: the rest are left out before its fuller comparison.
      if (known.description !== description && jaccard(known.words, words) < NEAR_DUPLICATE_JACCARD) continue;
      const kind = duplicateKind(known.memory, candidate);
      if (kind === null) continue;
      const body = mergeBodies(known.memory.body, [candidate.body]);
      if (kind.reason === "exact" || body === known.memory.body)
        return { action: "skip", candidate, reason: `already said by ${known.memory.file}` };
      return { action: "merge", candidate, into: known.memory, body };
    }
    return { action: "import", candidate };
  }
}
