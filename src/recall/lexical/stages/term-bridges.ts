import { processMemo } from "../../../process-memo.ts";
import type { Corpus } from "../index/corpus.ts";
import { withoutJoinedParts } from "../text/phrasal-verbs.ts";
import { TERM_BRIDGES } from "../text/term-bridges-table.ts";
import {
  BIGRAM_MARK,
  CJK_CHAR,
  CJK_RUN,
  forEachBigram,
  type Token,
  tokenizeDetailed,
} from "../text/tokenize.ts";
import { inverseDocumentFrequency } from "./bm25.ts";

/**
 * The term-bridge table ({@link TERM_BRIDGES}) as search terms, and which of its concepts a query
 * names (docs/design.md#term-bridges). The table is compiled once per process, on the first query
 * (about 400 terms; Chinese and Japanese entries without the segmenter); a query then costs a look-up per query word.
 */

/** One term of a concept line, as the search terms it needs (all of them, for a phrase). */
export interface BridgeEntry {
  /** As written in the table (what `--explain` names). */
  text: string;
  /**
   * The search terms a text must hold for the entry to occur in it: the words of Latin-script
   * text; the character pairs of Chinese or Japanese text (the segmenter may cut a short prompt
   * and a long memory differently; pairs always agree), or its word when it is one character.
   */
  terms: readonly string[];
}

/** One line of the table. */
export interface BridgeGroup {
  concept: string;
  entries: readonly BridgeEntry[];
}

interface CompiledBridges {
  groups: readonly BridgeGroup[];
  /** Search term → the entries (group, entry) that need it. */
  byTerm: ReadonlyMap<string, readonly (readonly [number, number])[]>;
}

// The key of the compiled table among the process memos: constant data, compiled on first use,
// one copy per process, like the word vectors.
const COMPILED = Symbol("term-bridges");

/** Parses `table` (the {@link TERM_BRIDGES} format). Exported for tests of the table itself. */
export function compileBridges(table: string): { groups: readonly BridgeGroup[] } & CompiledBridges {
  const groups: BridgeGroup[] = [];
  const byTerm = new Map<string, [number, number][]>();
  for (const raw of table.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const concept = line.slice(0, colon).trim();
    const entries: BridgeEntry[] = [];
    for (const text of line.slice(colon + 1).split(",")) {
      const terms = entryTerms(text.trim());
      if (terms.length === 0) continue;
      const at = entries.length;
      entries.push({ text: text.trim(), terms });
      for (const term of new Set(terms)) {
        let list = byTerm.get(term);
        if (!list) {
          list = [];
          byTerm.set(term, list);
        }
        list.push([groups.length, at]);
      }
    }
    groups.push({ concept, entries });
  }
  return { groups, byTerm };
}

function entryTerms(text: string): string[] {
  // Chinese or Japanese alone keeps only its character pairs, and those need no segmenter:
  // tokenizing the table's ~200 such entries loaded it into every prompt process that ranks,
  // English prompts included (~13-20 ms, docs/design.md#the-prompt-hook-process).
  // The prolonged sound mark (ー, U+30FC, of the Common script) counts as Japanese here, as in
  // the runs bigrams are made of: "リリース" needs no segmenter either.
  const normalized = text.normalize("NFKC").toLowerCase();
  if (!/[\p{L}\p{N}]/u.test(normalized.replace(CJK_RUN, ""))) {
    const pairs: string[] = [];
    forEachBigram(normalized, (term) => {
      pairs.push(term);
    });
    if (pairs.length > 0) return [...new Set(pairs)];
  }
  // A phrasal verb stands for its joined word alone ("roll back" is rollback), as in a prompt.
  const terms = withoutJoinedParts(tokenizeDetailed(text)).map((token) => token.term);
  const kept = terms.filter((term) => term.endsWith(BIGRAM_MARK) || !CJK_CHAR.test(term));
  return [...new Set(kept.length > 0 ? kept : terms)];
}

const NO_TERMS: ReadonlySet<string> = new Set();

function bridges(): CompiledBridges {
  return processMemo(COMPILED, () => compileBridges(TERM_BRIDGES));
}

/** A concept the query names, with what it names it by and what else may say it in a memory. */
export interface BridgedConcept {
  concept: string;
  /** The word of the query that names it (`install`, `超时`; a phrase as the table writes it). */
  trigger: string;
  /**
   * The concept's other terms that occur in the index, as term ids (a phrase: all its words),
   * with their IDF; terms the query says itself are left out (exact evidence, BM25's part).
   */
  targets: readonly { text: string; ids: readonly number[]; idf: readonly number[] }[];
}

/**
 * The concepts of the table that `tokens` name (the first term of the query that names one is its
 * trigger; words the query writes only inside a path, `pathOnly`, name none), each with the other terms memories in `corpus` may say it with. Empty when the query
 * names none, or no memory says any other term of those it names.
 */
export function bridgedConcepts(
  corpus: Corpus,
  tokens: readonly Token[],
  pathOnly: ReadonlySet<string> = NO_TERMS,
): BridgedConcept[] {
  if (tokens.length === 0) return [];
  const table = bridges();
  const queryTerms = new Set<string>();
  for (const token of tokens) queryTerms.add(token.term);
  const fired = new Map<number, string>();
  for (const token of tokens) {
    // A word of a path names a file, and matches exactly (code-words.ts, pathOnlyTerms).
    if (pathOnly.has(token.term)) continue;
    for (const [group, entry] of table.byTerm.get(token.term) ?? []) {
      if (fired.has(group)) continue;
      const { terms, text } = table.groups[group].entries[entry];
      // Named as the prompt says it ("credentials"), a phrase as the table writes it.
      if (terms.every((term) => queryTerms.has(term)))
        fired.set(group, terms.length === 1 ? token.surface : text);
    }
  }
  const concepts: BridgedConcept[] = [];
  for (const [group, trigger] of fired) {
    const targets: BridgedConcept["targets"][number][] = [];
    for (const entry of table.groups[group].entries) {
      if (entry.terms.every((term) => queryTerms.has(term))) continue;
      const ids: number[] = [];
      const idf: number[] = [];
      for (const term of entry.terms) {
        const id = corpus.dictionary.lookup(term);
        const frequency = id === undefined ? 0 : corpus.documentFrequency.get(id);
        if (id === undefined || frequency <= 0) break;
        ids.push(id);
        idf.push(inverseDocumentFrequency(corpus.size, frequency));
      }
      if (ids.length === entry.terms.length) targets.push({ text: entry.text, ids, idf });
    }
    if (targets.length > 0) concepts.push({ concept: table.groups[group].concept, trigger, targets });
  }
  return concepts;
}
