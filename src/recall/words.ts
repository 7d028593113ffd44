import { segmentPieces, wordSegmenter } from "./lexical/segment.ts";
import { cutQuery } from "./query-text.ts";

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
  let words = 0;
  for (const piece of segmentPieces(text)) {
    for (const segment of wordSegmenter.segment(piece)) {
      if (segment.isWordLike && ++words >= limit) return words;
    }
  }
  return words;
}

/**
 * True for an input of at most one word — too little to recall on (docs/design.md#prefetch-gates). The original
 * design tests "no whitespace", which skips every Chinese or Japanese prompt (issue 4). Counting
 * stops at the second word, and only the part recall would search is looked at ({@link cutQuery}):
 * a pasted page is judged as fast as a question.
 */
export function isSingleWord(text: string): boolean {
  return countWords(cutQuery(text), 2) <= 1;
}
