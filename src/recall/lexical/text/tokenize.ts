/**
 * Text → search terms for the lexical selector (docs/design.md#selectors). Works for English and for
 * Chinese/Japanese/Korean text, which has no spaces between words:
 *
 * - NFKC folds full-width forms (`ＡＢＣ` → `abc`), then everything is lower-cased;
 * - `Intl.Segmenter` (word granularity, ICU dictionaries) splits words, including CJK words
 *   (only on lines that need it: a regex split gives the same words for space-separated scripts, faster);
 * - runs of CJK characters also yield overlapping character bigrams, because dictionary
 *   segmentation is not stable between a short query and a long body (`登录模块` may come
 *   out as `登录|模|块` in one and `登录|模块` in the other) while bigrams always agree;
 * - identifiers split on `.`, `/`, `_`, `-` (`login.integration.test.ts` → login, integration, test, ts);
 * - English stop words are dropped, irregular verb forms mapped to their base (`went` → `go`) and words
 *   lightly stemmed (`paintings` → `paint`).
 */

import { isNounMarker, joinedAfter, type PhrasalTable, phrasalTable } from "./phrasal-verbs.ts";
import { NEEDS_SEGMENTER, segmentPieces, wordSegmenter } from "./segment.ts";

/** Han, Hiragana, Katakana, Hangul (and their extensions / compatibility forms). */
/** One Chinese, Japanese or Korean character. */
export const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** A run of Chinese, Japanese or Korean characters, the prolonged sound mark included: the runs bigrams are made of. */
export const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+/gu;
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;
/** Splits an identifier-like segment into its parts. */
const PART_SEPARATOR = /[^\p{L}\p{N}]+/u;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Common English function words: they match everything and so rank nothing. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below " +
    "between both but by can could did do does doing down during each few for from further had has have " +
    "having he her here hers herself him himself his how i if in into is it its itself just me more most my " +
    "myself no nor not now of off on once only or other our ours ourselves out over own same she should so " +
    "some such than that the their theirs them themselves then there these they this those through to too " +
    "under until up very was we were what when where which while who whom why will with would you your " +
    "yours yourself yourselves also ever get got may might must shall s t d ll m o re ve y let us"
  ).split(" "),
);

/** Very frequent one-character CJK function words (particles, the possessive 的). */
export const CJK_STOP_WORDS: ReadonlySet<string> = new Set(
  "的 了 是 在 和 也 就 都 而 及 与 着 或 之 其 这 那 个".split(" "),
);

/**
 * Light English stemmer (plural, past, progressive and a few derivational endings). Deliberately
 * conservative: a wrong merge costs precision everywhere, a missed merge only one recall.
 */
export function stemEnglish(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  // "tried"/"studied" meet "try"/"study" (not "tri"/"studi").
  else if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  if (w.endsWith("eed")) {
    // agreed → agree, but keep "need"/"seed" short words as they are
    if (w.length > 4) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && /[aeiouy]/.test(w.slice(0, -2)) && w.length > 4) {
    w = undouble(w.slice(0, -2));
  } else if (w.endsWith("ing") && /[aeiouy]/.test(w.slice(0, -3)) && w.length > 5) {
    w = undouble(w.slice(0, -3));
  }
  if (w.endsWith("ly") && w.length > 5) w = w.slice(0, -2);
  else if (w.endsWith("ness") && w.length > 6) w = w.slice(0, -4);
  else if (w.endsWith("ment") && w.length > 7) w = w.slice(0, -4);
  else if (w.endsWith("ation") && w.length > 7) w = w.slice(0, -5);
  // Final silent e: "hope"/"hoping" and "create"/"created" meet at "hop"/"creat".
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** "stopp" → "stop", but "fall" / "pass" / "buzz" stay (ll, ss, zz are real endings). */
function undouble(stem: string): string {
  const last = stem.at(-1);
  if (stem.length > 3 && last === stem.at(-2) && last !== undefined && !"lsz".includes(last)) {
    return stem.slice(0, -1);
  }
  return stem;
}

/** One search term and the text it came from (for `--explain` reasons). */
export interface Token {
  term: string;
  surface: string;
}

/**
 * Splits `text` into normalized search terms, in order (duplicates kept: callers count them).
 * CJK bigram terms end with `\u0002` so they never collide with a dictionary word of the same
 * characters: the two kinds of evidence are counted separately.
 *
 * @example
 * tokenize("Integration tests must not mock the DB") // ["integr", "test", "mock", "db"]
 * tokenize("登录模块的集成测试") // words such as "登录", "集成", "测试" plus bigrams
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  forEachTerm(text, (term) => {
    terms.push(term);
  });
  return terms;
}

/** Like {@link tokenize}, keeping each term's surface form (used to explain matches). */
export function tokenizeDetailed(text: string): Token[] {
  const tokens: Token[] = [];
  forEachTerm(text, (term, surface) => {
    tokens.push({ term, surface });
  });
  return tokens;
}

/** Receives each term of a text in order, with the text it came from. */
export type TermVisitor = (term: string, surface: string) => void;

/** Text that NFKC leaves as it is (it only folds non-ASCII forms). */
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * The terms of {@link tokenize}, handed to `visit` one by one instead of collected: indexing
 * 20,000 files tokenizes ~100 MB of text, and per-token objects and per-line arrays were most
 * of the garbage of a cold index build (measured: ~4 GB of short-lived allocations).
 */
export function forEachTerm(text: string, visit: TermVisitor): void {
  if (!text) return;
  const normalized = ASCII_ONLY.test(text) ? text.toLowerCase() : text.normalize("NFKC").toLowerCase();
  forEachNormalizedTerm(normalized, visit);
}

/** {@link forEachTerm} of text already NFKC-normalized and lower-cased (the index build has it so). */
export function forEachNormalizedTerm(normalized: string, visit: TermVisitor): void {
  // Line by line: the segmenter is ~10x slower than a regex split, so plain Latin text skips it.
  if (!normalized.includes("\n")) visitLine(normalized, visit);
  else for (const line of normalized.split("\n")) visitLine(line, visit);
}

function visitLine(line: string, visit: TermVisitor): void {
  if (!NEEDS_SEGMENTER.test(line)) {
    forEachPlainWord(line, visit);
    return;
  }
  // In bounded pieces: the segmenter is quadratic in the length of what it is given (segment.ts).
  for (const piece of segmentPieces(line)) forEachSegmentedWord(piece, visit);
  forEachBigram(line, visit);
}

/**
 * The word terms of normalized text that needs no segmenter (see NEEDS_SEGMENTER), in order, each
 * phrasal verb's joined word after its particle ("set up" → set, setup; phrasal-verbs.ts). The
 * index build's scanner does the same for ASCII lines (src/recall/lexical/index/term-scanner.ts).
 */
export function forEachPlainWord(text: string, visit: TermVisitor): void {
  // The word before: its phrasal-verb particles, where it ends, and whether a noun marker preceded it.
  let verb: ReadonlyMap<string, string> | undefined;
  let verbStart = 0;
  let verbEnd = 0;
  let verbAfterMarker = false;
  let marker = false;
  for (const match of text.matchAll(WORD_RUN)) {
    const word = match[0];
    const start = match.index;
    const term = termOfWord(word);
    if (term !== undefined) visit(term, word);
    const joined = joinedAfter(verb, word, verbAfterMarker, text, verbEnd, start);
    if (joined !== undefined) visit(joined, text.slice(verbStart, start + word.length));
    verb = term === undefined ? undefined : PHRASAL.get(term);
    verbStart = start;
    verbEnd = start + word.length;
    verbAfterMarker = marker;
    marker = isNounMarker(word);
  }
}

/** A word as {@link forEachPlainWord} finds them: the runs that `PART_SEPARATOR` splits text into. */
const WORD_RUN = /[\p{L}\p{N}]+/gu;

/**
 * The word terms (no bigrams) of normalized text handed to the segmenter whole: at most
 * `SEGMENT_PIECE_CHARS` characters of one line.
 */
export function forEachSegmentedWord(piece: string, visit: TermVisitor): void {
  for (const { segment, isWordLike } of wordSegmenter.segment(piece)) {
    if (!isWordLike && !HAS_LETTER_OR_DIGIT.test(segment)) continue;
    if (CJK_CHAR.test(segment)) addCjkWord(segment, visit);
    else for (const part of segment.split(PART_SEPARATOR)) addWord(part, visit);
  }
}

/** The CJK character-bigram terms of normalized text (one line), in order. */
export function forEachBigram(line: string, visit: TermVisitor): void {
  for (const run of line.match(CJK_RUN) ?? []) addBigrams(run, visit);
}

function addWord(part: string, visit: TermVisitor): void {
  const term = termOfWord(part);
  if (term !== undefined) visit(term, part);
}

/**
 * The search term of one lower-case word, as {@link tokenize} makes it (`undefined` for a stop
 * word). For callers with many single words (the word-vector table), without tokenizing text.
 */
export function termOfWord(word: string): string | undefined {
  if (!word || ENGLISH_STOP_WORDS.has(word)) return undefined;
  return stemEnglish(IRREGULAR_FORMS.get(word) ?? word);
}

function addCjkWord(segment: string, visit: TermVisitor): void {
  // Single kana are particles (の, は, を); single-Han function words are listed.
  if (segment.length === 1 && (HIRAGANA_ONLY.test(segment) || CJK_STOP_WORDS.has(segment))) return;
  if (HIRAGANA_ONLY.test(segment) && segment.length <= 2) return;
  visit(segment, segment);
}

function addBigrams(run: string, visit: TermVisitor): void {
  const chars = [...run];
  for (let i = 0; i + 1 < chars.length; i++) {
    const bigram = `${chars[i]}${chars[i + 1]}`;
    visit(`${bigram}${BIGRAM_MARK}`, bigram);
  }
}

/** Suffix that marks a CJK character-bigram term. */
export const BIGRAM_MARK = "\u0002";

/**
 * Irregular English verb forms → their base form, so "went" meets "go" and "bought" meets "buy"
 * (the suffix stemmer cannot see these). Only unambiguous forms: "left", "saw", "found" are
 * also ordinary words with other meanings and stay as they are.
 */
const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map(
  (
    "went:go gone:go going:go goes:go bought:buy made:make took:take taken:take seen:see gave:give given:give " +
    "came:come ran:run wrote:write written:write met:meet felt:feel began:begin begun:begin brought:bring " +
    "thought:think told:tell said:say kept:keep held:hold taught:teach caught:catch won:win lost:lose " +
    "spent:spend sent:send built:build sold:sell paid:pay drew:draw drawn:draw grew:grow grown:grow " +
    "flew:fly flown:fly drove:drive driven:drive rode:ride ridden:ride sang:sing sung:sing swam:swim swum:swim " +
    "ate:eat eaten:eat wore:wear worn:wear chose:choose chosen:choose fell:fall fallen:fall knew:know known:know " +
    "spoke:speak spoken:speak broke:break broken:break forgot:forget forgotten:forget became:become heard:hear " +
    "understood:understand stood:stand sat:sit slept:sleep fought:fight threw:throw thrown:throw woke:wake " +
    "children:child men:man women:woman people:person taught:teach bit:bite hid:hide shook:shake " +
    "struck:strike stuck:stick swept:sweep wept:weep meant:mean dealt:deal"
  )
    .split(" ")
    .map((pair) => pair.split(":") as [string, string]),
);

// Last: it stems with the tables above.
/** The phrasal verbs by term (phrasal-verbs.ts): constant data, made with this tokenizer's terms. */
export const PHRASAL: PhrasalTable = phrasalTable(termOfWord);
