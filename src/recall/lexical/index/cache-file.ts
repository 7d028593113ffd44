import type { BinaryCacheContent, BinaryCacheInput, CacheArray } from "../../../memdir/cache/binary-cache.ts";
import { codeFingerprint } from "../../../memdir/cache/persisted-cache.ts";
import { frontmatterParserCode, frontmatterParserVersion } from "../../../memdir/format/frontmatter.ts";
import { PHRASAL_PAIRS } from "../text/phrasal-verbs.ts";
import {
  ENGLISH_STOP_WORDS,
  forEachTerm,
  stemEnglish,
  tokenize,
  tokenizeDetailed,
} from "../text/tokenize.ts";
import { Corpus, nameWithoutType } from "./corpus.ts";
import {
  type IndexedMemory,
  type MemoryRecord,
  PASSAGE_LINES,
  packRecord,
  RECORD_HEADER,
  recordLength,
} from "./memory-record.ts";
import { INDEX_MAX_BYTES } from "./read-file.ts";
import { TermScanner } from "./term-scanner.ts";
import type { PersistedIndex, SavedIndex } from "./types.ts";

/**
 * The lexical index's cache file, `<memoryDir>/.memdir-cache/lexical.bin` (written and read by
 * memdir/cache/persisted-cache.ts in the layout of memdir/cache/binary-cache.ts): its content
 * ({@link PersistedIndex}: the term and file names and totals in the header, every column a typed
 * array the next process uses as a view into the one buffer it read, postings read per query term
 * where they lie), the check a loaded one must pass, and the fingerprint that retires a file
 * written by older tokenizing or indexing code.
 */

/** The cache's name under `.memdir-cache/`. */
export const LEXICAL_CACHE_NAME = "lexical";

/** The columns of a {@link PersistedIndex}, in the order the cache file holds them. */
const COLUMNS = [
  "mtimeMs",
  "sizes",
  "narrowRecords",
  "wideRecords",
  "recordStarts",
  "recordWide",
  "documentFrequency",
  "passageFrequency",
  "postingOffsets",
  "postingSlots",
] as const;

/** A snapshot as the cache file's content: names and totals in the header, the columns as arrays. */
export function persistedContent(index: SavedIndex): BinaryCacheInput {
  const { terms, files, totalLengths, passageCount, passageLengthTotal } = index;
  return {
    meta: { terms, files, totalLengths, passageCount, passageLengthTotal },
    arrays: COLUMNS.map((column) => index[column]),
  };
}

/**
 * A cache file's content as a {@link PersistedIndex} (the columns stay views into the file's
 * buffer), or null when it has not that shape; {@link isPersistedIndex} still checks it.
 */
export function persistedIndexOf(content: BinaryCacheContent | null): PersistedIndex | null {
  if (content === null || content.arrays.length !== COLUMNS.length) return null;
  const meta = content.meta as Partial<PersistedIndex> | null;
  if (meta === null || typeof meta !== "object") return null;
  const columns = Object.fromEntries(COLUMNS.map((column, i) => [column, content.arrays[i]])) as Record<
    (typeof COLUMNS)[number],
    CacheArray
  >;
  return { ...meta, ...columns } as PersistedIndex;
}

/**
 * The index in the cache file's columnar form, with term ids renumbered to the terms live
 * memories use (so terms of deleted or edited files do not pile up across processes).
 */
export function snapshotCorpus(corpus: Corpus): SavedIndex {
  const oldSize = corpus.dictionary.size;
  const remap = new Int32Array(oldSize).fill(-1);
  const allTerms = corpus.dictionary.terms();
  const terms: string[] = [];
  for (let id = 0; id < oldSize; id++) {
    if (corpus.documentFrequency.get(id) > 0) {
      remap[id] = terms.length;
      terms.push(allTerms[id]);
    }
  }
  const memories = [...corpus.memories()];
  const count = memories.length;
  // Each record keeps its width (renumbering only lowers ids): 16-bit ones in one column,
  // 32-bit ones in the other.
  let narrowTotal = 0;
  let wideTotal = 0;
  for (const memory of memories) {
    if (memory.record instanceof Uint16Array) narrowTotal += memory.record.length;
    else wideTotal += memory.record.length;
  }
  const recordStarts = new Uint32Array(count);
  const recordWide = new Uint8Array(count);
  const identity = terms.length === oldSize;
  // No term died (a first save, or one after edits only): the columns are the live records
  // themselves, written back to back, not a copy (50 MB at 20,000 memories:
  // docs/benchmarks.md#peak-rss-at-20000). Records are never changed in place, so the save may
  // write them after this returns.
  const narrowChunks: Uint16Array[] = [];
  const wideChunks: Uint32Array[] = [];
  const narrowRecords = identity ? new Uint16Array(0) : new Uint16Array(narrowTotal);
  const wideRecords = identity ? new Uint32Array(0) : new Uint32Array(wideTotal);
  let narrowAt = 0;
  let wideAt = 0;
  memories.forEach((memory, i) => {
    const wide = !(memory.record instanceof Uint16Array);
    recordStarts[i] = wide ? wideAt : narrowAt;
    recordWide[i] = wide ? 1 : 0;
    if (identity) {
      if (wide) wideChunks.push(memory.record as Uint32Array);
      else narrowChunks.push(memory.record as Uint16Array);
    } else writeRenumbered(memory, remap, wide ? wideRecords : narrowRecords, recordStarts[i]);
    if (wide) wideAt += memory.record.length;
    else narrowAt += memory.record.length;
  });
  const documentFrequency = new Int32Array(terms.length);
  const passageFrequency = new Int32Array(terms.length);
  for (let id = 0; id < oldSize; id++) {
    if (remap[id] < 0) continue;
    documentFrequency[remap[id]] = corpus.documentFrequency.get(id);
    passageFrequency[remap[id]] = corpus.passageFrequency.get(id);
  }
  // Postings without stale entries: a term's list holds exactly the memories counted in its
  // document frequency, so the frequencies size the lists.
  const postingOffsets = new Uint32Array(terms.length + 1);
  for (let id = 0; id < terms.length; id++)
    postingOffsets[id + 1] = postingOffsets[id] + documentFrequency[id];
  const postingSlots = new Uint32Array(postingOffsets[terms.length]);
  const filled = postingOffsets.slice(0, terms.length);
  memories.forEach((memory, i) => {
    corpus.forEachUniqueTerm(memory, (id) => {
      postingSlots[filled[remap[id]]++] = i;
    });
  });
  return {
    terms,
    files: memories.map((memory) => memory.file),
    mtimeMs: Float64Array.from(memories, (memory) => memory.mtimeMs),
    sizes: Float64Array.from(memories, (memory) => memory.size),
    narrowRecords: narrowChunks.length > 0 ? narrowChunks : narrowRecords,
    wideRecords: wideChunks.length > 0 ? wideChunks : wideRecords,
    recordStarts,
    recordWide,
    documentFrequency,
    passageFrequency,
    postingOffsets,
    postingSlots,
    totalLengths: corpus.totalLengths(),
    passageCount: corpus.passageCount,
    passageLengthTotal: corpus.passageLengthTotal,
  };
}

/**
 * Writes `memory`'s record into `target` at `at` with term ids renumbered by `remap`. The body
 * terms stay sorted: `remap` keeps the order of live ids (it numbers them in id order) and a live
 * memory holds only live ids. Only called when some term died (else the records are saved as they are).
 */
function writeRenumbered(memory: IndexedMemory, remap: Int32Array, target: MemoryRecord, at: number): void {
  const record = memory.record;
  target.set(record, at);
  for (let i = RECORD_HEADER; i < memory.bodyTermsAt; i += 2) target[at + i] = remap[record[i]];
  for (let i = memory.bodyTermsAt; i < memory.bodyFrequenciesAt; i++) target[at + i] = remap[record[i]];
  // Packed tokens are positions in the body-term list, which keeps its order: they stay as they are.
  if (memory.packedTokens) return;
  for (let i = memory.tokensAt; i < memory.tokensAt + memory.tokenCount; i++)
    target[at + i] = remap[record[i]];
}

/**
 * Whether a loaded cache file has the shape of {@link PersistedIndex} and every record lies inside
 * its column (anything else is rebuilt from the memory files).
 */
export function isPersistedIndex(data: PersistedIndex | null): data is PersistedIndex {
  if (data === null || typeof data !== "object" || !Array.isArray(data.terms) || !Array.isArray(data.files))
    return false;
  const count = data.files.length;
  const isU32 = (value: unknown, length?: number) =>
    value instanceof Uint32Array && (length === undefined || value.length === length);
  if (
    !(data.mtimeMs instanceof Float64Array && data.mtimeMs.length === count) ||
    !(data.sizes instanceof Float64Array && data.sizes.length === count) ||
    !(data.documentFrequency instanceof Int32Array && data.documentFrequency.length === data.terms.length) ||
    !(data.passageFrequency instanceof Int32Array && data.passageFrequency.length === data.terms.length) ||
    !(data.narrowRecords instanceof Uint16Array) ||
    !isU32(data.wideRecords) ||
    !isU32(data.recordStarts, count) ||
    !(data.recordWide instanceof Uint8Array && data.recordWide.length === count) ||
    !isU32(data.postingOffsets, data.terms.length + 1) ||
    !isU32(data.postingSlots) ||
    !data.terms.every((term) => typeof term === "string") ||
    !data.files.every((file) => typeof file === "string") ||
    typeof data.passageCount !== "number" ||
    typeof data.passageLengthTotal !== "number" ||
    typeof data.totalLengths !== "object" ||
    data.totalLengths === null
  )
    return false;
  // Every record must lie inside its column. Term ids and slots are not checked one by one (17
  // million at 20,000 memories): one out of range only reads as a term no memory has.
  for (let i = 0; i < count; i++) {
    const column = data.recordWide[i] === 1 ? data.wideRecords : data.narrowRecords;
    const length = recordLength(column, data.recordStarts[i]);
    if (length < 0 || data.recordStarts[i] + length > column.length) return false;
  }
  const offsets = data.postingOffsets;
  return (
    offsets[0] === 0 &&
    offsets.every((value, i) => value <= data.postingSlots.length && (i === 0 || value >= offsets[i - 1]))
  );
}

/**
 * Changes whenever tokenizing or indexing changes, so a cache file from older code is rebuilt.
 * Hashes function sources (a few ms): callers compute it once and keep it.
 */
export function lexicalFingerprint(): string {
  // No CJK in the probe: tokenizing it would construct the word segmenter (~13 ms of ICU data)
  // in every process that loads an index, docs/design.md#the-prompt-hook-process. What the segmenter makes of CJK text depends
  // on ICU's data, so ICU's and Unicode's versions stand for it.
  const probe = "Integration tests went to the database; login.integration.test.ts paintings ＡＢＣ";
  return codeFingerprint(
    // 6: the frontmatter parser is fingerprinted by its code and the yaml version, not by parsing
    // a probe (which loaded the YAML parser into every prompt hook, docs/design.md#the-prompt-hook-process). 7: ICU versions
    // instead of a CJK probe. 8: the binary file (lexical.bin). 9: tokens of small bodies packed
    // one byte each (memory-record.ts). 10: no type terms, names without their type prefix
    // (docs/design.md#memory-types-are-no-evidence). 11: phrasal verbs joined (text/phrasal-verbs.ts).
    "lexical/11",
    PHRASAL_PAIRS,
    process.versions.icu ?? null,
    process.versions.unicode ?? null,
    PASSAGE_LINES,
    INDEX_MAX_BYTES,
    tokenizeDetailed,
    forEachTerm,
    stemEnglish,
    [...ENGLISH_STOP_WORDS],
    tokenize(probe),
    ...frontmatterParserCode(),
    frontmatterParserVersion(),
    Corpus.prototype.add,
    nameWithoutType,
    packRecord,
    TermScanner,
  );
}
