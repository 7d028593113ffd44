import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MemdirError } from "../../../errors.ts";
import { processMemo } from "../../../process-memo.ts";
import { decodeTermTable, rowTermsOf, type TermTable } from "./word-terms.ts";

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

/** How rows are found by term (a map built from the words, or a shipped term table). */
interface RowTerms {
  readonly rowCount: number;
  readonly size: number;
  rowOf(term: string): number;
  word(row: number): string;
}

/** Vectors looked up by search term (the tokenizer's stemmed form), compared by cosine. */
export class WordVectors {
  readonly dimensions: number;
  #rows: Int8Array;
  #inverseNorms: Float32Array;
  #terms: RowTerms;

  /**
   * `rows` holds `words.length` rows of `dimensions` values, most frequent word first.
   * `rowTerms`, when given, is {@link rowTermsOf}`(words)` computed earlier: stemming 50,000
   * words is most of what building the look-up costs.
   */
  constructor(words: readonly string[], rows: Int8Array, dimensions: number, rowTerms?: readonly string[]) {
    if (rows.length !== words.length * dimensions)
      throw new MemdirError("invalid-input", "word vectors: row data does not match the word list");
    if (rowTerms !== undefined && rowTerms.length !== words.length)
      throw new MemdirError("invalid-input", "word vectors: the term table does not match the word list");
    this.dimensions = dimensions;
    this.#rows = rows;
    // Norms are computed per row on first use (NaN until then): a query compares a few hundred rows.
    this.#inverseNorms = new Float32Array(words.length).fill(Number.NaN);
    this.#terms = mappedTerms(words, rowTerms ?? rowTermsOf(words));
  }

  /**
   * Vectors whose rows are found through a shipped term table (word-terms.ts): nothing is built
   * per row. `words` gives the word list when a word is first asked for (explanations only).
   * @internal
   */
  static withTermTable(
    table: TermTable,
    words: () => readonly string[],
    rows: Int8Array,
    dimensions: number,
  ): WordVectors {
    const vectors = new WordVectors([], new Int8Array(0), dimensions);
    vectors.#rows = rows;
    vectors.#inverseNorms = new Float32Array(table.rowCount).fill(Number.NaN);
    const decoded: (readonly string[])[] = [];
    vectors.#terms = {
      rowCount: table.rowCount,
      get size() {
        return table.size;
      },
      rowOf: (term) => table.rowOf(term),
      word(row) {
        decoded[0] ??= words();
        return decoded[0][row] ?? "";
      },
    };
    return vectors;
  }

  /** How many rows (words) there are. */
  get rowCount(): number {
    return this.#terms.rowCount;
  }

  /** How many terms have a vector. */
  get size(): number {
    return this.#terms.size;
  }

  /** The row of a search term, or -1 when it has no vector (rare words, names, CJK). */
  rowOf(term: string): number {
    return this.#terms.rowOf(term);
  }

  /** The word a row was made from (its most frequent spelling, e.g. "liberal" for the term "liber"). */
  word(row: number): string {
    return this.#terms.word(row);
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

  /**
   * {@link similarity} of row `b` to each of `rows[0..count)`, into `out[at..at + count)`: the
   * same numbers (integer dot products, then the two inverse norms in the same order), with `b`'s
   * norm looked up once. The related-word stage's per-term step.
   */
  similaritiesTo(rows: Int32Array, count: number, b: number, out: Float32Array, at: number): void {
    const data = this.#rows;
    const dimensions = this.dimensions;
    const inverseB = this.#inverseNorm(b);
    const start = b * dimensions;
    const end = start + dimensions;
    const unrolled = start + (dimensions & ~3);
    for (let q = 0; q < count; q++) {
      const a = rows[q];
      // Sums of int8 products are exact integers: how they are grouped does not change them.
      let dot0 = 0;
      let dot1 = 0;
      let dot2 = 0;
      let dot3 = 0;
      let i = a * dimensions;
      let j = start;
      for (; j < unrolled; i += 4, j += 4) {
        dot0 += data[i] * data[j];
        dot1 += data[i + 1] * data[j + 1];
        dot2 += data[i + 2] * data[j + 2];
        dot3 += data[i + 3] * data[j + 3];
      }
      for (; j < end; i++, j++) dot0 += data[i] * data[j];
      out[at + q] = (dot0 + dot1 + dot2 + dot3) * this.#inverseNorm(a) * inverseB;
    }
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

function mappedTerms(words: readonly string[], terms: readonly string[]): RowTerms {
  const rowOfTerm = new Map<string, number>();
  for (let row = 0; row < terms.length; row++) if (terms[row] !== "") rowOfTerm.set(terms[row], row);
  return {
    rowCount: words.length,
    size: rowOfTerm.size,
    rowOf: (term) => rowOfTerm.get(term) ?? -1,
    word: (row) => words[row] ?? "",
  };
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
 * else. `termTable`: its `.terms` file (word-terms.ts), used when it was made for these words by
 * this code, else ignored (the terms are then computed from the words).
 */
export function decodeWordVectors(buffer: Buffer, source = "word vectors", termTable?: Buffer): WordVectors {
  const fail = (why: string) => new MemdirError("invalid-input", `word vectors: ${source}: ${why}`);
  if (buffer.length < HEADER_BYTES || buffer.toString("latin1", 0, 4) !== MAGIC)
    throw fail("not a memdir word-vector file");
  if (buffer.readUInt8(4) !== VERSION) throw fail(`unsupported version ${buffer.readUInt8(4)}`);
  const dimensions = buffer.readUInt16LE(5);
  const rowCount = buffer.readUInt32LE(7);
  const wordBytes = buffer.readUInt32LE(11);
  if (dimensions === 0 || buffer.length !== HEADER_BYTES + wordBytes + rowCount * dimensions)
    throw fail("truncated or padded (sizes in the header do not add up)");
  const wordList = buffer.subarray(HEADER_BYTES, HEADER_BYTES + wordBytes);
  const start = HEADER_BYTES + wordBytes;
  const rows = new Int8Array(buffer.buffer, buffer.byteOffset + start, rowCount * dimensions);
  const splitWords = () => (wordBytes === 0 ? [] : wordList.toString("utf8").split("\n"));
  // A table is taken only for the very word bytes and row count it was made from, and its build
  // split those bytes into that many words: the word-count check below was the build's.
  const table = termTable === undefined ? undefined : decodeTermTable(termTable, wordList, rowCount);
  if (table !== undefined) return WordVectors.withTermTable(table, splitWords, rows, dimensions);
  const words = splitWords();
  if (words.length !== rowCount) throw fail(`${words.length} words for ${rowCount} rows`);
  return new WordVectors(words, rows, dimensions);
}

/** The term table beside a word-vector file: `word-vectors.bin` → `word-vectors.terms`. */
export function termTableFileOf(file: string): string {
  return file.replace(/(\.bin)?$/, ".terms");
}

/** Reads and decodes a word-vector file, with the term table beside it when there is one. */
export function readWordVectors(file: string): WordVectors {
  let termTable: Buffer | undefined;
  try {
    termTable = fs.readFileSync(termTableFileOf(file));
  } catch {
    termTable = undefined; // no table: the terms are computed from the words
  }
  return decodeWordVectors(fs.readFileSync(file), file, termTable);
}

/** File name of the bundled vectors, in the package's `data` folder. */
export const BUNDLED_WORD_VECTORS = "word-vectors.bin";

// The key of the bundled vectors among the process memos (`null`: unusable): the package's own
// read-only data, as segment.ts keeps the ICU segmenter.
const BUNDLED = Symbol("bundled-word-vectors");

/**
 * The vectors shipped with memdir (3.9 MB), read on the first call and shared by every later one
 * in the process: they never change, and their lazily filled norms and word list are the same
 * for every reader. The memory helper keeps a `Memdir` per memory dir and read them again for
 * each new one (~15 ms, and ~4 ms more decoding the word list for the first `related:` note).
 * `null` when the file is missing or damaged (a copy of `dist` without `data`): the lexical
 * selector then ranks by words alone, as it did before the vectors existed.
 */
export function bundledWordVectors(): WordVectors | null {
  return processMemo(BUNDLED, () => {
    const file = findBundledFile();
    return file ? readWordVectorsOrNull(file, warn) : null;
  });
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
