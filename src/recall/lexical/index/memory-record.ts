/**
 * The token statistics of one indexed memory, packed into ONE typed array (its "record").
 *
 * Why one array: at 20,000 memories the index used to hold three small term-frequency `Map`s and
 * five typed arrays per memory — 160,000 heap objects, ~45 MB of object headers and hash tables
 * around ~60 MB of actual numbers. One record per memory keeps the numbers and drops the rest,
 * and 16 bits per value whenever every value of the memory fits (nearly always: term ids stay
 * below 65,536 up to tens of thousands of memories, and a memory is indexed up to 64 KB).
 *
 * Layout (every entry in the record's element type):
 *
 *     [nameTerms, descriptionTerms, typeTerms, bodyTerms, lines, tokens]   counts (the header)
 *     name (id, frequency) pairs, in first-occurrence order
 *     description pairs, type pairs                                         same
 *     body term ids, ascending                                              binary-searched
 *     body frequencies, aligned with the ids
 *     line starts (token offsets within the memory's tokens)
 *     body tokens in reading order
 *
 * The body tokens are three quarters of all records (15 of 20 million entries at 20,000 memories,
 * docs/benchmarks.md#peak-rss-at-20000). A memory with at most {@link LOCAL_TOKEN_TERMS} distinct
 * body terms (nine in ten) stores each token as its term's position in the memory's own sorted
 * body-term list: one byte, packed two to a 16-bit entry (four to a 32-bit one). Larger memories
 * store the term ids themselves. Which form a record uses follows from its counts, so it needs no
 * flag; read the tokens through {@link bodyTokens} or {@link IndexedMemory.token}.
 */

/** Field of a memory that the ranker weighs separately (BM25F). */
export type FieldName = "name" | "description" | "type" | "body";
export const FIELD_NAMES: readonly FieldName[] = ["name", "description", "type", "body"];

/** A record: 16-bit when every value fits, else 32-bit. */
export type MemoryRecord = Uint16Array | Uint32Array;

/** Entries before the data: the six counts. */
export const RECORD_HEADER = 6;

/** Most distinct body terms a memory may have for its tokens to be stored one byte each. */
export const LOCAL_TOKEN_TERMS = 256;

/** Whether a body of `bodyTermCount` distinct terms stores its tokens as one-byte local ids. */
function packsTokens(bodyTermCount: number): boolean {
  return bodyTermCount <= LOCAL_TOKEN_TERMS;
}

/** Entries the tokens take in a record of `bytesPerEntry`-byte elements. */
function tokenEntries(tokenCount: number, bodyTermCount: number, bytesPerEntry: number): number {
  return packsTokens(bodyTermCount) ? Math.ceil(tokenCount / bytesPerEntry) : tokenCount;
}

/** Token statistics of one memory file, with the offsets of each section of its record. */
export class IndexedMemory {
  /** Posting-list slot of the owning index (-1 while not posted). */
  slot = -1;
  readonly descriptionAt: number;
  readonly typeAt: number;
  readonly bodyTermsAt: number;
  readonly bodyFrequenciesAt: number;
  readonly linesAt: number;
  readonly tokensAt: number;
  readonly bodyTermCount: number;
  readonly lineCount: number;
  /** Tokens of the body (its BM25 length). */
  readonly tokenCount: number;
  /** Whether the tokens are one-byte positions in the body-term list (see the layout above). */
  readonly packedTokens: boolean;
  /** Summed frequencies of the short fields (their BM25 lengths). */
  readonly nameLength: number;
  readonly descriptionLength: number;
  readonly typeLength: number;

  constructor(
    readonly file: string,
    readonly path: string,
    readonly mtimeMs: number,
    readonly size: number,
    readonly record: MemoryRecord,
  ) {
    this.descriptionAt = RECORD_HEADER + 2 * record[0];
    this.typeAt = this.descriptionAt + 2 * record[1];
    this.bodyTermsAt = this.typeAt + 2 * record[2];
    this.bodyTermCount = record[3];
    this.bodyFrequenciesAt = this.bodyTermsAt + this.bodyTermCount;
    this.linesAt = this.bodyFrequenciesAt + this.bodyTermCount;
    this.lineCount = record[4];
    this.tokensAt = this.linesAt + this.lineCount;
    this.tokenCount = record[5];
    this.packedTokens = packsTokens(this.bodyTermCount);
    this.nameLength = sumFrequencies(record, RECORD_HEADER, this.descriptionAt);
    this.descriptionLength = sumFrequencies(record, this.descriptionAt, this.typeAt);
    this.typeLength = sumFrequencies(record, this.typeAt, this.bodyTermsAt);
  }

  /** Token offset (within the body tokens) where body line `line` begins. */
  lineStart(line: number): number {
    return this.record[this.linesAt + line];
  }
  /** Body token `position` (a term id). */
  token(position: number): number {
    const record = this.record;
    if (!this.packedTokens) return record[this.tokensAt + position];
    const perEntry = record.BYTES_PER_ELEMENT;
    const entry = record[this.tokensAt + Math.floor(position / perEntry)];
    return record[this.bodyTermsAt + ((entry >>> ((position % perEntry) * 8)) & 0xff)];
  }
}

/** Reusable room for the body tokens of one memory at a time (see {@link bodyTokens}). */
export class TokenBuffer {
  #buffer = new Uint32Array(1024);
  /** A buffer of at least `length` entries (its contents are not kept across calls). */
  fit(length: number): Uint32Array {
    if (this.#buffer.length < length)
      this.#buffer = new Uint32Array(Math.max(length, this.#buffer.length * 2));
    return this.#buffer;
  }
}

/**
 * The body tokens of `memory` as term ids, indexed by token position: a view of the record when it
 * holds ids, else of `buffer` with them decoded (valid until the buffer's next use). A
 * ranking stage reads a candidate's tokens once per query, so decoding them costs about what
 * reading them did.
 */
export function bodyTokens(memory: IndexedMemory, buffer: TokenBuffer): Uint16Array | Uint32Array {
  const { record, tokensAt, tokenCount, bodyTermsAt } = memory;
  if (!memory.packedTokens) return record.subarray(tokensAt, tokensAt + tokenCount);
  const tokens = buffer.fit(tokenCount);
  if (record.BYTES_PER_ELEMENT === 2) {
    let at = tokensAt;
    let i = 0;
    for (; i + 1 < tokenCount; i += 2) {
      const entry = record[at++];
      tokens[i] = record[bodyTermsAt + (entry & 0xff)];
      tokens[i + 1] = record[bodyTermsAt + (entry >>> 8)];
    }
    if (i < tokenCount) tokens[i] = record[bodyTermsAt + (record[at] & 0xff)];
  } else {
    for (let i = 0; i < tokenCount; i++) {
      const entry = record[tokensAt + (i >>> 2)];
      tokens[i] = record[bodyTermsAt + ((entry >>> ((i & 3) * 8)) & 0xff)];
    }
  }
  return tokens.subarray(0, tokenCount);
}

/**
 * How many entries a record with this header occupies in `column` (its element width decides the
 * packed tokens' share); -1 when `column` is too short to tell.
 */
export function recordLength(column: MemoryRecord, at = 0): number {
  if (column.length < at + RECORD_HEADER) return -1;
  const shortTerms = column[at] + column[at + 1] + column[at + 2];
  const bodyTerms = column[at + 3];
  const tokens = tokenEntries(column[at + 5], bodyTerms, column.BYTES_PER_ELEMENT);
  return RECORD_HEADER + 2 * shortTerms + 2 * bodyTerms + column[at + 4] + tokens;
}

/** The BM25 length of `field` in `memory`. */
export function fieldLength(memory: IndexedMemory, field: FieldName): number {
  switch (field) {
    case "name":
      return memory.nameLength;
    case "description":
      return memory.descriptionLength;
    case "type":
      return memory.typeLength;
    default:
      return memory.tokenCount;
  }
}

/** Frequency of `termId` in `field` of `memory` (0 when absent). */
export function fieldFrequency(memory: IndexedMemory, field: FieldName, termId: number): number {
  switch (field) {
    case "name":
      return pairFrequency(memory.record, RECORD_HEADER, memory.descriptionAt, termId);
    case "description":
      return pairFrequency(memory.record, memory.descriptionAt, memory.typeAt, termId);
    case "type":
      return pairFrequency(memory.record, memory.typeAt, memory.bodyTermsAt, termId);
    default:
      return bodyFrequency(memory, termId);
  }
}

/** Frequency of `termId` in a memory's body (0 when absent). */
export function bodyFrequency(memory: IndexedMemory, termId: number): number {
  const record = memory.record;
  let low = memory.bodyTermsAt;
  let high = low + memory.bodyTermCount - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = record[middle];
    if (value === termId) return record[middle + memory.bodyTermCount];
    if (value < termId) low = middle + 1;
    else high = middle - 1;
  }
  return 0;
}

/** Calls `visit(termId, frequency)` for each term of the description, in first-occurrence order. */
export function forEachDescriptionTerm(
  memory: IndexedMemory,
  visit: (termId: number, frequency: number) => void,
): void {
  const record = memory.record;
  for (let i = memory.descriptionAt; i < memory.typeAt; i += 2) visit(record[i], record[i + 1]);
}

/** Calls `visit(termId)` for every term id of any field (an id may repeat across fields). */
export function forEachTermAnywhere(memory: IndexedMemory, visit: (termId: number) => void): void {
  const record = memory.record;
  for (let i = memory.bodyTermsAt; i < memory.bodyFrequenciesAt; i++) visit(record[i]);
  for (let i = RECORD_HEADER; i < memory.bodyTermsAt; i += 2) visit(record[i]);
}

/** Body lines per passage (sliding by one line): a question usually lands on one or two turns. */
export const PASSAGE_LINES = 2;

/** Calls `visit(start, end)` with token offsets of each passage: windows of {@link PASSAGE_LINES} lines. */
export function forEachPassage(memory: IndexedMemory, visit: (start: number, end: number) => void): void {
  const lineCount = memory.lineCount;
  if (lineCount === 0) return;
  const windows = Math.max(1, lineCount - PASSAGE_LINES + 1);
  for (let w = 0; w < windows; w++) {
    const start = memory.lineStart(w);
    const endLine = w + PASSAGE_LINES;
    const end = endLine < lineCount ? memory.lineStart(endLine) : memory.tokenCount;
    visit(start, end);
  }
}

/** The sections of a new record, before packing. `shortFields` hold (id, frequency) pairs. */
export interface RecordParts {
  shortFields: readonly [readonly number[], readonly number[], readonly number[]];
  /** Body tokens in reading order (`tokens[0..tokenCount)`) and line starts (`lineStarts[0..lineCount)`). */
  tokens: Uint32Array;
  tokenCount: number;
  lineStarts: Uint32Array;
  lineCount: number;
  /**
   * Scratch for counting body terms: the caller's, reused, so indexing 20,000 files allocates no
   * per-file buffer. `counts` is indexed by term id (longer than the largest id, all zero, and left
   * all zero), `distinct` at least `tokenCount` long.
   */
  counts: Uint32Array;
  distinct: Uint32Array;
}

/** Packs the parts of one memory into a record (16-bit when every value fits). */
export function packRecord(parts: RecordParts): MemoryRecord {
  const { shortFields, tokens, tokenCount, lineStarts, lineCount, counts } = parts;
  // Counted per id, then only the distinct ids sorted (a body has several times fewer terms than tokens).
  let bodyTermCount = 0;
  for (let i = 0; i < tokenCount; i++) {
    const id = tokens[i];
    if (counts[id]++ === 0) parts.distinct[bodyTermCount++] = id;
  }
  const sorted = parts.distinct.subarray(0, bodyTermCount).sort();
  const shortLength = shortFields[0].length + shortFields[1].length + shortFields[2].length;
  let largest = Math.max(bodyTermCount, lineCount, tokenCount);
  for (const pairs of shortFields) for (const value of pairs) if (value > largest) largest = value;
  // Sorted: the last body term is the largest id. Frequencies and line starts are ≤ tokenCount.
  if (bodyTermCount > 0 && sorted[bodyTermCount - 1] > largest) largest = sorted[bodyTermCount - 1];
  const bytesPerEntry = largest <= 0xffff ? 2 : 4;
  const length =
    RECORD_HEADER +
    shortLength +
    2 * bodyTermCount +
    lineCount +
    tokenEntries(tokenCount, bodyTermCount, bytesPerEntry);
  const record: MemoryRecord = bytesPerEntry === 2 ? new Uint16Array(length) : new Uint32Array(length);
  const packed = packsTokens(bodyTermCount);
  record[0] = shortFields[0].length / 2;
  record[1] = shortFields[1].length / 2;
  record[2] = shortFields[2].length / 2;
  record[3] = bodyTermCount;
  record[4] = lineCount;
  record[5] = tokenCount;
  let at = RECORD_HEADER;
  for (const pairs of shortFields) for (const value of pairs) record[at++] = value;
  const termsAt = at;
  const frequenciesAt = at + bodyTermCount;
  for (let term = 0; term < bodyTermCount; term++) {
    const id = sorted[term];
    record[termsAt + term] = id;
    record[frequenciesAt + term] = counts[id];
    // Packed: the count is spent, and the slot holds the term's position until the tokens are in.
    counts[id] = packed ? term : 0;
  }
  at = frequenciesAt + bodyTermCount;
  record.set(lineStarts.subarray(0, lineCount), at);
  at += lineCount;
  if (!packed) {
    record.set(tokens.subarray(0, tokenCount), at);
    return record;
  }
  const shift = bytesPerEntry === 2 ? 1 : 2;
  for (let i = 0; i < tokenCount; i++)
    record[at + (i >>> shift)] |= counts[tokens[i]] << ((i & (bytesPerEntry - 1)) * 8);
  for (let term = 0; term < bodyTermCount; term++) counts[sorted[term]] = 0;
  return record;
}

function sumFrequencies(record: MemoryRecord, from: number, to: number): number {
  let total = 0;
  for (let i = from + 1; i < to; i += 2) total += record[i];
  return total;
}

function pairFrequency(record: MemoryRecord, from: number, to: number, termId: number): number {
  for (let i = from; i < to; i += 2) if (record[i] === termId) return record[i + 1];
  return 0;
}
