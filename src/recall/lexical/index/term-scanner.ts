/**
 * The body tokenizer of an index build (docs/design.md#building-the-index): a memory's
 * body text → term ids and line starts, the same ids {@link forEachTerm} line by line and
 * `TermDictionary.intern` would give, in the same order (test/recall/lexical/term-scanner.test.ts
 * builds both ways and compares).
 *
 * Why not forEachTerm itself: a cold build of 2,000 memories (16 MB) spent ~750 ms there, most of it
 * the per-line regex split, one string per token and the stop-word / irregular-form / stemming
 * look-ups of every token (each word's term is the same every time it occurs). Here an ASCII line
 * is scanned by hand, one pass over its char codes, lower-casing as it goes; each word is hashed
 * from its codes and looked up in a table of the words seen so far (per corpus), which holds the
 * word's term id (or "stop word"). A word is turned into a string, normalized, stemmed and interned
 * only the first time it is seen. A line with any non-ASCII character goes to forEachTerm as before
 * (NFKC, Unicode classes, the segmenter for scripts without spaces).
 *
 * Why the partial scan of such a line may stay interned: it stops at the line's first non-ASCII
 * character, so the words it completed are the ASCII words before it, each followed by an ASCII
 * separator; forEachTerm yields those same words first, in the same order (NFKC and lower-casing
 * leave ASCII as it is, and a combining mark composes only with the character just before it,
 * which is then part of an unfinished word, or one of `<=>`, which compose to symbols). So the
 * dictionary assigns the same ids in the same order either way; only the line's tokens are redone.
 */

import { isNounMarker, joinedAfter } from "../text/phrasal-verbs.ts";
import { isSafeCut, NEEDS_SEGMENTER, SEGMENT_PIECE_CHARS } from "../text/segment.ts";
import {
  forEachBigram,
  forEachNormalizedTerm,
  forEachSegmentedWord,
  PHRASAL,
  termOfWord,
} from "../text/tokenize.ts";
import { grow, type TermDictionary } from "./dictionary.ts";

/** The term id the word table holds for a stop word. */
const STOP_WORD = -1;
/** Longer words are not kept in the word table (a hash blob or a minified line need no memo). */
const MEMO_MAX_CHARS = 64;
const EMPTY = 0;
/** Non-ASCII chunks remembered at most (then forgotten all at once): bounds what the memo holds. */
const CHUNK_MEMO_ENTRIES = 20_000;

/**
 * Per ASCII code: the code lower-cased when it is a letter or digit (ASCII `\p{L}` and `\p{N}`,
 * what makes words), else 0 (a separator). One table look-up per character instead of range tests.
 */
const WORD_CODES: Uint8Array = (() => {
  const codes = new Uint8Array(0x80);
  for (let code = 0x30; code <= 0x39; code++) codes[code] = code;
  for (let code = 0x61; code <= 0x7a; code++) codes[code] = codes[code - 0x20] = code;
  return codes;
})();

/** What forEachTerm makes of a chunk of a line: its words, and its bigrams (which go last). */
interface ChunkTerms {
  words: string[];
  bigrams: string[];
  /** Their term ids, once interned. */
  wordIds: number[] | null;
  bigramIds: number[] | null;
}

/** Body tokens and line starts of the last {@link TermScanner.scan}, in the scanner's buffers. */
export interface ScannedBody {
  /** Term ids in reading order, `tokens[0..tokenCount)`. */
  readonly tokens: Uint32Array;
  readonly tokenCount: number;
  /** Token offset of each line that has tokens, `lineStarts[0..lineCount)`. */
  readonly lineStarts: Uint32Array;
  readonly lineCount: number;
}

function isAscii(text: string, begin: number, end: number): boolean {
  for (let i = begin; i < end; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * Tokenizes memory bodies into one dictionary's term ids. Keeps its buffers and its word table
 * from body to body (indexing 20,000 files allocates no per-file arrays); belongs to one corpus,
 * whose dictionary never reassigns an id, so a remembered id stays right.
 */
export class TermScanner implements ScannedBody {
  tokens: Uint32Array = new Uint32Array(16 * 1024);
  tokenCount = 0;
  lineStarts: Uint32Array = new Uint32Array(1024);
  lineCount = 0;
  readonly #dictionary: TermDictionary;
  // The word table: open addressing over `#slots` (entry + 1, 0 empty), entries in parallel arrays.
  #slots: Int32Array = new Int32Array(4096);
  #hashes: Int32Array = new Int32Array(2048);
  #ids: Int32Array = new Int32Array(2048);
  #words: string[] = [];
  // Per entry: the particles of its phrasal verb (phrasal-verbs.ts), and whether it is a noun marker.
  #verbs: (ReadonlyMap<string, string> | undefined)[] = [];
  #markers: boolean[] = [];
  // The word before, within an ASCII line: as forEachPlainWord keeps it.
  #verb: ReadonlyMap<string, string> | undefined = undefined;
  #verbEnd = 0;
  #verbAfterMarker = false;
  #marker = false;
  readonly #codes = new Uint16Array(MEMO_MAX_CHARS);
  // Terms of the non-ASCII chunks seen lately (see #scanLine).
  readonly #chunks = new Map<string, ChunkTerms>();
  readonly #push = (term: string): void => this.#pushToken(this.#dictionary.intern(term));

  constructor(dictionary: TermDictionary) {
    this.#dictionary = dictionary;
  }

  /**
   * Tokenizes `text` from `start` on (replacing the previous text's tokens and line starts). A
   * body is passed as the file's text and where the body starts, not as a slice: V8 reads a
   * character of a sliced string through the slice every time (measured: the 200-memory cold
   * hook counted ~9% more instructions when the body was a slice).
   */
  scan(text: string, start = 0): ScannedBody {
    this.tokenCount = 0;
    this.lineCount = 0;
    const body = text;
    const length = body.length;
    let lineBegin = start;
    while (lineBegin <= length) {
      const lineTokens = this.tokenCount;
      let lineEnd = body.indexOf("\n", lineBegin);
      if (lineEnd < 0) lineEnd = length;
      // Checked before anything is interned: a line scanned as ASCII up to its first non-ASCII
      // character interned words the general way may never make (the segmenter joins `foo_` with
      // the Katakana after it), so ids came in another order than forEachTerm's.
      if (isAscii(body, lineBegin, lineEnd)) this.#scanAsciiLine(body, lineBegin, lineEnd, true);
      // A non-ASCII character: the whole line goes the general way (see the top of this file).
      else this.#scanLine(body.slice(lineBegin, lineEnd));
      if (this.tokenCount > lineTokens) {
        if (this.lineCount >= this.lineStarts.length)
          this.lineStarts = grow(this.lineStarts, this.lineCount + 1);
        this.lineStarts[this.lineCount++] = lineTokens;
      }
      lineBegin = lineEnd + 1;
    }
    return this;
  }

  /**
   * A line with non-ASCII text, as forEachTerm takes it: NFKC, lower case, then the segmenter for
   * scripts without spaces. Such a line (up to one segmenter piece long) is taken in chunks cut
   * where segment.ts may cut (so each chunk has the words it has in the line): an ASCII chunk is
   * scanned like an ASCII line, the others are segmented once per distinct chunk (generated,
   * templated and copied text repeats them; ICU's segmenter is the slowest step of a build).
   * Bigrams follow all the line's words, as in forEachTerm.
   */
  #scanLine(line: string): void {
    const normalized = line.normalize("NFKC").toLowerCase();
    if (normalized.length > SEGMENT_PIECE_CHARS || !NEEDS_SEGMENTER.test(normalized)) {
      forEachNormalizedTerm(normalized, this.#push);
      return;
    }
    const length = normalized.length;
    let chunkStart = 0;
    let ascii = true;
    // Chunks whose bigrams are still to come, in order.
    let withBigrams: ChunkTerms[] | null = null;
    for (let i = 0; i <= length; i++) {
      if (i < length && !(i > chunkStart && isSafeCut(normalized, i))) {
        if (normalized.charCodeAt(i) >= 0x80) ascii = false;
        continue;
      }
      if (ascii) {
        // No phrasal verbs joined: forEachTerm segments such a line, and the segmenter's words are not joined.
        this.#scanAsciiLine(normalized, chunkStart, i, false);
      } else {
        const chunk = this.#segmentedChunk(normalized.slice(chunkStart, i));
        // Interned the first time in the order forEachTerm interns them; their ids after that.
        chunk.wordIds ??= chunk.words.map((term) => this.#dictionary.intern(term));
        for (const id of chunk.wordIds) this.#pushToken(id);
        if (chunk.bigrams.length > 0) {
          withBigrams ??= [];
          withBigrams.push(chunk);
        }
      }
      chunkStart = i;
      ascii = true;
      if (i < length && normalized.charCodeAt(i) >= 0x80) ascii = false;
    }
    if (withBigrams === null) return;
    for (const chunk of withBigrams) {
      chunk.bigramIds ??= chunk.bigrams.map((term) => this.#dictionary.intern(term));
      for (const id of chunk.bigramIds) this.#pushToken(id);
    }
  }

  /** The word and bigram terms of a non-ASCII chunk, remembered per chunk. */
  #segmentedChunk(chunk: string): ChunkTerms {
    const known = this.#chunks.get(chunk);
    if (known !== undefined) return known;
    const terms: ChunkTerms = { words: [], bigrams: [], wordIds: null, bigramIds: null };
    forEachSegmentedWord(chunk, (term) => terms.words.push(term));
    forEachBigram(chunk, (term) => terms.bigrams.push(term));
    if (this.#chunks.size >= CHUNK_MEMO_ENTRIES) this.#chunks.clear();
    this.#chunks.set(chunk, terms);
    return terms;
  }

  /**
   * Adds the tokens of `text[begin, end)`, ASCII text with no line break (the caller checked), with
   * each phrasal verb's joined word after its particle when `joins` (as forEachPlainWord does).
   */
  #scanAsciiLine(text: string, begin: number, end: number, joins: boolean): void {
    let wordStart = -1;
    let hash = 0;
    this.#verb = undefined;
    this.#marker = false;
    for (let i = begin; i < end; i++) {
      const code = WORD_CODES[text.charCodeAt(i)];
      if (code !== 0) {
        if (wordStart < 0) {
          wordStart = i;
          hash = 0x811c9dc5;
        }
        hash = Math.imul(hash ^ code, 0x01000193);
        continue;
      }
      if (wordStart >= 0) {
        const entry = this.#word(text, wordStart, i, hash);
        if (joins) this.#join(entry, text, wordStart, i);
        wordStart = -1;
      }
    }
    if (wordStart >= 0) {
      const entry = this.#word(text, wordStart, end, hash);
      if (joins) this.#join(entry, text, wordStart, end);
    }
  }

  /**
   * After the word `text[start, end)` (its word-table entry, -1 for a long word): the joined word
   * of the phrasal verb before it when it is that verb's particle, as forEachPlainWord adds it.
   */
  #join(entry: number, text: string, start: number, end: number): void {
    const joined =
      entry < 0
        ? undefined
        : joinedAfter(this.#verb, this.#words[entry], this.#verbAfterMarker, text, this.#verbEnd, start);
    if (joined !== undefined) this.#pushToken(this.#dictionary.intern(joined));
    this.#verb = entry < 0 ? undefined : this.#verbs[entry];
    this.#verbEnd = end;
    this.#verbAfterMarker = this.#marker;
    this.#marker = entry >= 0 && this.#markers[entry];
  }

  /**
   * Adds the token of the word `text[start, end)` (lower-cased), unless it is a stop word; returns
   * its word-table entry, or -1 for a word too long to be kept there.
   */
  #word(text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    if (length > MEMO_MAX_CHARS) {
      const term = termOfWord(text.slice(start, end).toLowerCase());
      if (term !== undefined) this.#pushToken(this.#dictionary.intern(term));
      return -1;
    }
    const slots = this.#slots;
    const mask = slots.length - 1;
    let at = hash & mask;
    for (let entry = slots[at]; entry !== EMPTY; entry = slots[at]) {
      const k = entry - 1;
      if (this.#hashes[k] === hash && sameWord(this.#words[k], text, start, length)) {
        const id = this.#ids[k];
        if (id !== STOP_WORD) this.#pushToken(id);
        return k;
      }
      at = (at + 1) & mask;
    }
    const word = this.#lowerCopy(text, start, length);
    const term = termOfWord(word);
    const id = term === undefined ? STOP_WORD : this.#dictionary.intern(term);
    const entry = this.#remember(word, hash, id, at);
    this.#verbs.push(term === undefined ? undefined : PHRASAL.get(term));
    this.#markers.push(isNounMarker(word));
    if (id !== STOP_WORD) this.#pushToken(id);
    return entry;
  }

  /** `text[start, start + length)` lower-cased, as a string of its own (no slice of the body kept alive). */
  #lowerCopy(text: string, start: number, length: number): string {
    const codes = this.#codes;
    for (let k = 0; k < length; k++) {
      const code = text.charCodeAt(start + k);
      codes[k] = code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
    }
    return String.fromCharCode.apply(null, codes.subarray(0, length) as unknown as number[]);
  }

  /** Adds `word` to the word table and returns its entry. */
  #remember(word: string, hash: number, id: number, slot: number): number {
    const entry = this.#words.length;
    if (entry >= this.#ids.length) {
      this.#ids = growInt32(this.#ids);
      this.#hashes = growInt32(this.#hashes);
    }
    this.#words.push(word);
    this.#ids[entry] = id;
    this.#hashes[entry] = hash;
    this.#slots[slot] = entry + 1;
    // At most half full: rehash into twice the slots.
    if (2 * (entry + 1) > this.#slots.length) {
      const slots = new Int32Array(this.#slots.length * 2);
      const mask = slots.length - 1;
      for (let k = 0; k <= entry; k++) {
        let at = this.#hashes[k] & mask;
        while (slots[at] !== EMPTY) at = (at + 1) & mask;
        slots[at] = k + 1;
      }
      this.#slots = slots;
    }
    return entry;
  }

  #pushToken(id: number): void {
    if (this.tokenCount >= this.tokens.length) this.tokens = grow(this.tokens, this.tokenCount + 1);
    this.tokens[this.tokenCount++] = id;
  }
}

/** Whether `word` (lower case) is `text[start, start + length)` lower-cased (ASCII). */
function sameWord(word: string, text: string, start: number, length: number): boolean {
  if (word.length !== length) return false;
  for (let k = 0; k < length; k++) {
    const code = text.charCodeAt(start + k);
    if ((code >= 0x41 && code <= 0x5a ? code + 0x20 : code) !== word.charCodeAt(k)) return false;
  }
  return true;
}

function growInt32(array: Int32Array): Int32Array {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}
