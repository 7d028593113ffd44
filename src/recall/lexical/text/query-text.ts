/**
 * The most of a message recall searches for (docs/design.md#long-input). A prompt can be a pasted
 * log of megabytes; every step after this one (the word count of the gate, tokenizing, the
 * selectors' side query) then costs what a long question costs, not what the paste costs.
 */
export const QUERY_MAX_CHARS = 4000;

// The cut moves back to a space at most this far, so the last word searched is a whole one.
const WORD_BACK_OFF = 200;

/**
 * `text` cut to its first {@link QUERY_MAX_CHARS} characters: at the last space before the limit
 * when there is one near it, else between two code points. Shorter text is returned unchanged.
 *
 * @example
 * cutQuery("x ".repeat(80000)).length // 3999: the first 2,000 words, without the space after the last
 */
export function cutQuery(text: string): string {
  if (text.length <= QUERY_MAX_CHARS) return text;
  for (let end = QUERY_MAX_CHARS; end > QUERY_MAX_CHARS - WORD_BACK_OFF; end--)
    if (/\s/.test(text[end])) return text.slice(0, end).trimEnd();
  const code = text.charCodeAt(QUERY_MAX_CHARS);
  return text.slice(0, code >= 0xdc00 && code <= 0xdfff ? QUERY_MAX_CHARS - 1 : QUERY_MAX_CHARS);
}
