import { createHash } from "node:crypto";
import { codeFingerprint } from "../../../memdir/cache/persisted-cache.ts";
import { ENGLISH_STOP_WORDS, termOfWord } from "./tokenize.ts";

/**
 * The term table beside a word-vector file (`data/word-vectors.terms`, made by
 * scripts/build-word-terms.ts): the search term of each row and a hash table from term to row, in
 * one buffer that a process uses as it is read. No string per row and no map of 35,000 entries
 * is built: splitting the word list, stemming or splitting the terms and filling a `Map` cost a
 * prompt hook's process ~25 ms of its ~30 (docs/design.md#the-prompt-hook-process); a look-up now hashes one term and compares
 * it with the one or two rows in its slot.
 *
 * Format (little-endian): the 4 bytes `MDWT`, a version byte (2), 3 zero bytes, the table's
 * 32-character fingerprint ({@link termTableFingerprint}, ASCII), rows (u32), slots (u32, a power
 * of two), the byte length of the terms (u32); then rows + 1 term starts (u32), slots rows (i32,
 * -1 for an empty slot, open addressing with linear probing on {@link hashTerm}), then the terms
 * in UTF-8 back to back. Every array starts on a multiple of 4.
 */

const MAGIC = "MDWT";
const VERSION = 2;
const HEADER_BYTES = 4 + 1 + 3 + 32 + 4 + 4 + 4;
/** How many words of the word list the fingerprint stems (see termTableFingerprint). */
const SAMPLE_WORDS = 400;

/** For each row, its search term: the tokenizer's term of its word, "" for a stop word or a term an earlier row has. */
export function rowTermsOf(words: readonly string[]): string[] {
  const seen = new Set<string>();
  return words.map((word) => {
    const term = termOfWord(word);
    if (term === undefined || seen.has(term)) return "";
    seen.add(term);
    return term;
  });
}

/**
 * What a term table depends on: the word list it was made from (its bytes as the vector file
 * holds them, "\n"-joined, and their count), the stop words, and the tokenizer's terms of a
 * sample of the words (those at {@link SAMPLE_WORDS} evenly spaced byte offsets: found without
 * splitting the list). A tokenizer change the sample misses is caught by the test that rebuilds
 * the whole table (test/recall/lexical/related-words.test.ts).
 */
export function termTableFingerprint(wordBytes: Buffer, rowCount: number): string {
  const sample: string[] = [];
  if (wordBytes.length > 0) {
    for (let k = 0; k < SAMPLE_WORDS; k++) {
      const at = Math.floor((k * wordBytes.length) / SAMPLE_WORDS);
      const start = at === 0 ? 0 : wordBytes.lastIndexOf(10, at - 1) + 1;
      const end = wordBytes.indexOf(10, start);
      sample.push(termOfWord(wordBytes.toString("utf8", start, end < 0 ? wordBytes.length : end)) ?? "");
    }
  }
  const digest = createHash("sha256").update(wordBytes).digest("hex");
  return codeFingerprint("word-terms/2", rowCount, digest, [...ENGLISH_STOP_WORDS], sample);
}

/** FNV-1a over the UTF-16 code units of `term` (the build and the look-up hash the same way). */
function hashTerm(term: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A term table for `words` (the rows of a vector file, in order) in the format above. */
export function encodeTermTable(words: readonly string[]): Buffer {
  const terms = rowTermsOf(words);
  const termBytes = terms.map((term) => Buffer.from(term, "utf8"));
  const used = terms.filter((term) => term !== "").length;
  let slots = 2;
  // At most 3/4 full: a hit takes ~2 probes on average, a miss ~4 (linear probing).
  while (slots * 3 < used * 4) slots *= 2;
  const bytesTotal = termBytes.reduce((sum, bytes) => sum + bytes.length, 0);
  const out = Buffer.alloc(HEADER_BYTES + 4 * (words.length + 1) + 4 * slots + bytesTotal);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt8(VERSION, 4);
  out.write(termTableFingerprint(Buffer.from(words.join("\n"), "utf8"), words.length), 8, "latin1");
  out.writeUInt32LE(words.length, 40);
  out.writeUInt32LE(slots, 44);
  out.writeUInt32LE(bytesTotal, 48);
  const startsAt = HEADER_BYTES;
  const tableAt = startsAt + 4 * (words.length + 1);
  const bytesAt = tableAt + 4 * slots;
  for (let slot = 0; slot < slots; slot++) out.writeInt32LE(-1, tableAt + 4 * slot);
  let offset = 0;
  terms.forEach((term, row) => {
    out.writeUInt32LE(offset, startsAt + 4 * row);
    termBytes[row].copy(out, bytesAt + offset);
    offset += termBytes[row].length;
    if (term === "") return;
    let slot = hashTerm(term) & (slots - 1);
    while (out.readInt32LE(tableAt + 4 * slot) !== -1) slot = (slot + 1) & (slots - 1);
    out.writeInt32LE(row, tableAt + 4 * slot);
  });
  out.writeUInt32LE(offset, startsAt + 4 * words.length);
  return out;
}

/** Row look-up by search term over a term table's buffer (see {@link decodeTermTable}). */
export class TermTable {
  readonly rowCount: number;
  readonly #buffer: Buffer;
  readonly #starts: Uint32Array;
  readonly #slots: Int32Array;
  readonly #bytesAt: number;
  #size = -1;

  constructor(buffer: Buffer, rowCount: number, starts: Uint32Array, slots: Int32Array, bytesAt: number) {
    this.rowCount = rowCount;
    this.#buffer = buffer;
    this.#starts = starts;
    this.#slots = slots;
    this.#bytesAt = bytesAt;
  }

  /** The row of `term`, or -1. */
  rowOf(term: string): number {
    if (term === "") return -1;
    const slots = this.#slots;
    const mask = slots.length - 1;
    // At most one pass over the table: a damaged one without an empty slot cannot loop forever.
    for (
      let slot = hashTerm(term) & mask, probes = 0;
      probes < slots.length;
      slot = (slot + 1) & mask, probes++
    ) {
      const row = slots[slot];
      if (row < 0 || row >= this.rowCount) return -1;
      if (this.termOf(row) === term) return row;
    }
    return -1;
  }

  /** The search term of `row` ("" for a row no term reaches). */
  termOf(row: number): string {
    const start = this.#starts[row];
    const end = this.#starts[row + 1];
    return this.#buffer.toString("utf8", this.#bytesAt + start, this.#bytesAt + Math.max(start, end));
  }

  /** How many terms have a row (counted on first use). */
  get size(): number {
    if (this.#size < 0) this.#size = this.#slots.reduce((count, row) => (row >= 0 ? count + 1 : count), 0);
    return this.#size;
  }
}

/**
 * The table in `buffer` when it is one, of this version, made for exactly these words
 * (`wordBytes`, `rowCount`: the vector file's word list) and whole; `undefined` for anything else
 * (the caller then computes the terms from the words). Cheap: the header, the sizes and one hash
 * of the word list are checked, nothing per row.
 */
export function decodeTermTable(buffer: Buffer, wordBytes: Buffer, rowCount: number): TermTable | undefined {
  if (buffer.length < HEADER_BYTES || buffer.toString("latin1", 0, 4) !== MAGIC) return undefined;
  if (buffer.readUInt8(4) !== VERSION) return undefined;
  const rows = buffer.readUInt32LE(40);
  const slots = buffer.readUInt32LE(44);
  const bytesTotal = buffer.readUInt32LE(48);
  if (rows !== rowCount || slots === 0 || (slots & (slots - 1)) !== 0) return undefined;
  const tableAt = HEADER_BYTES + 4 * (rows + 1);
  const bytesAt = tableAt + 4 * slots;
  if (buffer.length !== bytesAt + bytesTotal) return undefined;
  if (buffer.toString("latin1", 8, 40) !== termTableFingerprint(wordBytes, rowCount)) return undefined;
  // Typed arrays need an aligned start: a buffer from Node's shared pool may not have one.
  const aligned = buffer.byteOffset % 4 === 0 ? buffer : Buffer.from(buffer);
  const starts = new Uint32Array(aligned.buffer, aligned.byteOffset + HEADER_BYTES, rows + 1);
  if (starts[0] !== 0 || starts[rows] !== bytesTotal) return undefined;
  const table = new Int32Array(aligned.buffer, aligned.byteOffset + tableAt, slots);
  return new TermTable(aligned, rows, starts, table, bytesAt);
}
