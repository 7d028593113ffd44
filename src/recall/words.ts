// One segmenter for the process: constructing it loads ICU data, using it is cheap.
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: "word" });

/**
 * Counts words the way a reader would, with `Intl.Segmenter` (ICU dictionaries for Chinese,
 * Japanese, Thai…) instead of splitting on whitespace: `修复登录测试` is three words
 * (修复 / 登录 / 测试), `hello!` is one, punctuation and spaces are none.
 *
 * @example
 * countWords("修复登录测试") // 3
 * countWords("hello") // 1
 */
export function countWords(text: string): number {
  let words = 0;
  for (const segment of wordSegmenter.segment(text)) if (segment.isWordLike) words++;
  return words;
}

/**
 * True for an input of at most one word — too little to recall on (docs/design.md#prefetch-gates). The original
 * design tests "no whitespace", which skips every Chinese or Japanese prompt (issue 4).
 */
export function isSingleWord(text: string): boolean {
  return countWords(text) <= 1;
}
