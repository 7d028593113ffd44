import { processMemo } from "../../../process-memo.ts";

/**
 * `Intl.Segmenter` word segmentation in bounded pieces (docs/design.md#long-input). ICU's word iterator
 * costs time quadratic in the length of the text it is handed (measured on Node 20:
 * `"x ".repeat(20000)` 0.6 s, `"x ".repeat(80000)` 51 s), while pieces of a thousand characters
 * keep it linear. So long text is segmented piece by piece, each cut where a word boundary falls
 * anyway (docs/design.md#long-input).
 */

// Constructing a segmenter loads ICU's word-break data (~13 ms per process, docs/design.md#the-prompt-hook-process); using it is
// cheap. Made on first use, once per process: text that needs no segmenter (see NEEDS_SEGMENTER,
// and words.ts's plain case) never pays for it. A process memo of a stateless ICU object.
const SEGMENTER = Symbol("word-segmenter");

/** One word segmenter for the process, made on first use. */
export const wordSegmenter = {
  segment(text: string): Intl.Segments {
    return processMemo(SEGMENTER, () => new Intl.Segmenter(undefined, { granularity: "word" })).segment(text);
  },
};

/** Text that needs `Intl.Segmenter`: scripts written without spaces (CJK, Thai, Lao, Khmer, Myanmar). */
export const NEEDS_SEGMENTER =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** The longest piece of text handed to the segmenter at once. */
export const SEGMENT_PIECE_CHARS = 1000;

// A cut is looked for in the last half of a piece, after a space or an ideographic full stop or
// comma (boundaries in every script), before a character that does not attach to the one before
// it (a combining mark, a format character or ZWJ does: Unicode word-boundary rule WB4).
export const CUT_AFTER = /[\s\u3001\u3002]/u;
const ATTACHES = /[\p{M}\p{Cf}]/u;

/**
 * `text` as pieces of at most {@link SEGMENT_PIECE_CHARS} characters whose words are the words of
 * `text`: each cut falls after a space (or `、` / `。`), only a run of 500 characters with
 * neither is cut hard (between two code points). Short text is returned as it is, in one piece.
 *
 * @example
 * segmentPieces("x ".repeat(80000)).length // 160
 */
export function segmentPieces(text: string, maxChars = SEGMENT_PIECE_CHARS): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    const end = cutPoint(text, start, start + maxChars);
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * Whether `text` may be cut before position `at` without changing its words: after a space (or
 * `、` / `。`), before a character that is none and does not attach to the one before it.
 */
export function isSafeCut(text: string, at: number): boolean {
  return cutsAfter(text.charCodeAt(at - 1)) && !cutsAfter(text.charCodeAt(at)) && !ATTACHES.test(text[at]);
}

/** `CUT_AFTER` by char code (`\s` of a JS regex, `、`, `。`), for scanners that go code by code. */
export function cutsAfter(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    (code >= 0x3000 && code <= 0x3002) ||
    code === 0xfeff
  );
}

function cutPoint(text: string, start: number, limit: number): number {
  const earliest = start + Math.floor((limit - start) / 2);
  for (let end = limit; end > earliest; end--) if (isSafeCut(text, end)) return end;
  // No boundary in sight: cut between two code points (never inside a surrogate pair).
  const code = text.charCodeAt(limit);
  return code >= 0xdc00 && code <= 0xdfff ? limit - 1 : limit;
}
