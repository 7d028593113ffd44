import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MemdirError } from "../../errors.ts";
import { codeFingerprint } from "../../memdir/persisted-cache.ts";
import { ENGLISH_STOP_WORDS, termOfWord } from "./tokenize.ts";

/**
 * Static English word vectors (GloVe 6B, 100 dimensions, 50,000 most frequent words; built by
 * scripts/build-word-vectors.ts). They let the lexical selector see that "political leaning"
 * is about "liberal" and "martial arts" about "karate" without any model call: bag-of-words
 * ranking cannot, and those misses were most of what it got wrong on LoCoMo.
 *
 * File format (`data/word-vectors.bin`, little-endian): the 4 bytes `MDWV`, a version byte (1),
 * dimensions (u16), rows (u32), byte length of the word list (u32), the words in UTF-8 joined
 * by "\n", then rows × dimensions signed bytes.
 */

const MAGIC = "MDWV";
const VERSION = 1;
const HEADER_BYTES = 4 + 1 + 2 + 4 + 4;

/** Vectors looked up by search term (the tokenizer's stemmed form), compared by cosine. */
export class WordVectors {
  readonly dimensions: number;
  readonly #rows: Int8Array;
  readonly #inverseNorms: Float32Array;
  readonly #rowOfTerm = new Map<string, number>();
  readonly #words: readonly string[];

  /**
   * `rows` holds `words.length` rows of `dimensions` values, most frequent word first.
   * `rowTerms`, when given, is {@link rowTermsOf}`(words)` computed earlier (the table shipped
   * beside the bundled file): stemming 50,000 words was most of what a prompt hook's process
   * spent on the vectors (issue 17).
   */
  constructor(words: readonly string[], rows: Int8Array, dimensions: number, rowTerms?: readonly string[]) {
    if (rows.length !== words.length * dimensions)
      throw new MemdirError("invalid-input", "word vectors: row data does not match the word list");
    if (rowTerms !== undefined && rowTerms.length !== words.length)
      throw new MemdirError("invalid-input", "word vectors: the term table does not match the word list");
    this.dimensions = dimensions;
    this.#words = words;
    this.#rows = rows;
    // Norms are computed per row on first use (NaN until then): a query compares a few hundred rows.
    this.#inverseNorms = new Float32Array(words.length).fill(Number.NaN);
    const terms = rowTerms ?? rowTermsOf(words);
    for (let row = 0; row < terms.length; row++) if (terms[row] !== "") this.#rowOfTerm.set(terms[row], row);
  }

  /** How many rows (words) there are. */
  get rowCount(): number {
    return this.#words.length;
  }

  /** How many terms have a vector. */
  get size(): number {
    return this.#rowOfTerm.size;
  }

  /** The row of a search term, or -1 when it has no vector (rare words, names, CJK). */
  rowOf(term: string): number {
    return this.#rowOfTerm.get(term) ?? -1;
  }

  /** The word a row was made from (its most frequent spelling, e.g. "liberal" for the term "liber"). */
  word(row: number): string {
    return this.#words[row] ?? "";
  }

  /** Cosine similarity of two rows. */
  similarity(a: number, b: number): number {
    const rows = this.#rows;
    const dimensions = this.dimensions;
    let dot = 0;
    for (let i = a * dimensions, j = b * dimensions, end = i + dimensions; i < end; i++, j++)
      dot += rows[i] * rows[j];
    return dot * this.#inverseNorm(a) * this.#inverseNorm(b);
  }

  #inverseNorm(row: number): number {
    const known = this.#inverseNorms[row];
    if (!Number.isNaN(known)) return known;
    const rows = this.#rows;
    let sum = 0;
    for (let d = row * this.dimensions, end = d + this.dimensions; d < end; d++) sum += rows[d] * rows[d];
    // Returned as stored (float32), so a first use scores exactly like every later one.
    this.#inverseNorms[row] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    return this.#inverseNorms[row];
  }
}

/**
 * For each row, the search term it is found by: the tokenizer's term of its word, or "" when
 * the word is a stop word or an earlier (more frequent) row has the same term.
 */
export function rowTermsOf(words: readonly string[]): string[] {
  const seen = new Set<string>();
  return words.map((word) => {
    const term = termOfWord(word);
    if (term === undefined || seen.has(term)) return "";
    seen.add(term);
    return term;
  });
}

/** The first line of a term table: its magic word and the fingerprint it was made for. */
const TERMS_MAGIC = "memdir-word-terms";

/**
 * What a term table depends on: the words it was made from, the stop words, and the tokenizer's
 * terms of a sample of them (every 97th word). Not the functions' source text, which differs
 * between the build and tsx; a tokenizer change the sample misses is caught by the test that
 * rebuilds the whole table (test/recall/lexical/related-words.test.ts).
 */
export function rowTermsFingerprint(words: readonly string[]): string {
  const sample = words.filter((_, row) => row % 97 === 0).map((word) => termOfWord(word) ?? "");
  return codeFingerprint("word-terms/1", words.length, words.join("\n"), [...ENGLISH_STOP_WORDS], sample);
}

/** A term table as text (`data/word-vectors.terms`): the magic line, then one term per row. */
export function encodeRowTerms(words: readonly string[]): string {
  return `${TERMS_MAGIC} ${rowTermsFingerprint(words)}\n${rowTermsOf(words).join("\n")}\n`;
}

/** The terms of a term table made for `words` by this code, or undefined for any other text. */
export function decodeRowTerms(text: string, words: readonly string[]): string[] | undefined {
  const lines = text.split("\n");
  if (lines.pop() !== "" || lines.length !== words.length + 1) return undefined;
  if (lines[0] !== `${TERMS_MAGIC} ${rowTermsFingerprint(words)}`) return undefined;
  return lines.slice(1);
}

/** Encodes vectors in the `data/word-vectors.bin` format, each row scaled to unit length and quantized to int8. */
export function encodeWordVectors(
  words: readonly string[],
  rows: readonly number[][],
  dimensions: number,
): Buffer {
  const wordBytes = Buffer.from(words.join("\n"), "utf8");
  const out = Buffer.alloc(HEADER_BYTES + wordBytes.length + words.length * dimensions);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt8(VERSION, 4);
  out.writeUInt16LE(dimensions, 5);
  out.writeUInt32LE(words.length, 7);
  out.writeUInt32LE(wordBytes.length, 11);
  wordBytes.copy(out, HEADER_BYTES);
  let at = HEADER_BYTES + wordBytes.length;
  for (const row of rows) {
    const norm = Math.sqrt(row.reduce((sum, value) => sum + value * value, 0)) || 1;
    for (let d = 0; d < dimensions; d++) out.writeInt8(Math.round((127 * (row[d] ?? 0)) / norm), at++);
  }
  return out;
}

/**
 * Decodes a `data/word-vectors.bin` buffer; throws `MemdirError` (`invalid-input`) on anything
 * else. `termTable`: the text of its `.terms` file, used when it was made for these words by this
 * code (see {@link encodeRowTerms}), else ignored.
 */
export function decodeWordVectors(buffer: Buffer, source = "word vectors", termTable?: string): WordVectors {
  const fail = (why: string) => new MemdirError("invalid-input", `word vectors: ${source}: ${why}`);
  if (buffer.length < HEADER_BYTES || buffer.toString("latin1", 0, 4) !== MAGIC)
    throw fail("not a memdir word-vector file");
  if (buffer.readUInt8(4) !== VERSION) throw fail(`unsupported version ${buffer.readUInt8(4)}`);
  const dimensions = buffer.readUInt16LE(5);
  const rowCount = buffer.readUInt32LE(7);
  const wordBytes = buffer.readUInt32LE(11);
  if (dimensions === 0 || buffer.length !== HEADER_BYTES + wordBytes + rowCount * dimensions)
    throw fail("truncated or padded (sizes in the header do not add up)");
  const words =
    wordBytes === 0 ? [] : buffer.toString("utf8", HEADER_BYTES, HEADER_BYTES + wordBytes).split("\n");
  if (words.length !== rowCount) throw fail(`${words.length} words for ${rowCount} rows`);
  const start = HEADER_BYTES + wordBytes;
  const rows = new Int8Array(buffer.buffer, buffer.byteOffset + start, rowCount * dimensions);
  const rowTerms = termTable === undefined ? undefined : decodeRowTerms(termTable, words);
  return new WordVectors(words, rows, dimensions, rowTerms);
}

/** The term table beside a word-vector file: `word-vectors.bin` → `word-vectors.terms`. */
export function termTableFileOf(file: string): string {
  return file.replace(/(\.bin)?$/, ".terms");
}

/** Reads and decodes a word-vector file, with the term table beside it when there is one. */
export function readWordVectors(file: string): WordVectors {
  let termTable: string | undefined;
  try {
    termTable = fs.readFileSync(termTableFileOf(file), "utf8");
  } catch {
    termTable = undefined; // no table: the terms are computed from the words
  }
  return decodeWordVectors(fs.readFileSync(file), file, termTable);
}

/** File name of the bundled vectors, in the package's `data` folder. */
export const BUNDLED_WORD_VECTORS = "word-vectors.bin";

/**
 * The vectors shipped with memdir (3.9 MB, ~50 ms to read), read afresh on each call: the
 * caller keeps them (`LexicalIndexCache.bundledWordVectors`). `null` when the file is missing or
 * damaged (a copy of `dist` without `data`): the lexical selector then ranks by words alone, as
 * it did before the vectors existed.
 */
export function bundledWordVectors(): WordVectors | null {
  const file = findBundledFile();
  return file ? readWordVectorsOrNull(file, warn) : null;
}

/**
 * {@link readWordVectors}, but a file that cannot be read or decoded gives `null` and one
 * call of `warn`: recall must keep working on words alone rather than fail every query.
 */
export function readWordVectorsOrNull(file: string, warn: (message: string) => void): WordVectors | null {
  try {
    return readWordVectors(file);
  } catch (error) {
    warn(
      `memdir: word vectors unusable, recall ranks by shared words only: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  }
}

function warn(message: string): void {
  process.emitWarning(message, { code: "MEMDIR_WORD_VECTORS" });
}

/**
 * `data/word-vectors.bin` of the package this module belongs to: the nearest ancestor folder
 * with a package.json (src/, dist/ and the test build sit at different depths below it).
 */
function findBundledFile(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, "package.json"))) {
      const candidate = path.join(dir, "data", BUNDLED_WORD_VECTORS);
      return fs.existsSync(candidate) ? candidate : null;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
