import { cutQuery } from "./lexical/text/query-text.ts";
import { segmentPieces, wordSegmenter } from "./lexical/text/segment.ts";

/**
 * Counts words the way a reader would, with `Intl.Segmenter` (ICU dictionaries for Chinese,
 * Japanese, Thai…) instead of splitting on whitespace: `修复登录测试` is three words
 * (修复 / 登录 / 测试), `hello!` is one, punctuation and spaces are none. Stops at `limit`
 * (default: counts them all), and segments long text in bounded pieces (docs/design.md#long-input).
 *
 * @example
 * countWords("修复登录测试") // 3
 * countWords("hello") // 1
 * countWords("x ".repeat(80000), 2) // 2
 */
export function countWords(text: string, limit = Number.POSITIVE_INFINITY): number {
  if (
    limit >= 1 &&
    limit !== Number.POSITIVE_INFINITY &&
    ASCII_ONLY.test(text) &&
    plainChunksReach(text, limit)
  )
    return limit;
  let words = 0;
  for (const piece of segmentPieces(text)) {
    for (const segment of wordSegmenter.segment(piece)) {
      if (segment.isWordLike && ++words >= limit) return words;
    }
  }
  return words;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_LETTER_OR_DIGIT = /[A-Za-z0-9]/;
const ASCII_SPACE = /\s+/;

/**
 * Whether ASCII `text` has at least `limit` words without asking the segmenter (whose ICU data
 * costs a process ~13 ms, docs/design.md#the-prompt-hook-process): ASCII white space always ends a word, and a run between
 * spaces that holds a letter or digit holds at least one word. So `limit` such runs mean at
 * least `limit` words; fewer decide nothing (`a-b` is two words), and the segmenter counts.
 */
function plainChunksReach(text: string, limit: number): boolean {
  let chunks = 0;
  for (const chunk of text.split(ASCII_SPACE))
    if (ASCII_LETTER_OR_DIGIT.test(chunk) && ++chunks >= limit) return true;
  return false;
}

/**
 * True for an input of at most one word — too little to recall on (docs/design.md#prefetch-gates). The original
 * design tests "no whitespace", which skips every Chinese or Japanese prompt (docs/design.md#selectors). Counting
 * stops at the second word, and only the part recall would search is looked at ({@link cutQuery}):
 * a pasted page is judged as fast as a question.
 */
export function isSingleWord(text: string): boolean {
  return countWords(cutQuery(text), 2) <= 1;
}
