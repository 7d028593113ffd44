import type { Corpus } from "./index/corpus.ts";
import type { QueryTerm } from "./index/types.ts";
import { inverseDocumentFrequency } from "./stages/bm25.ts";
import { priorDocumentFrequency } from "./text/code-words.ts";
import { withoutJoinedParts } from "./text/phrasal-verbs.ts";
import { cutQuery } from "./text/query-text.ts";
import { NEEDS_SEGMENTER, wordSegmenter } from "./text/segment.ts";
import { CJK_STOP_WORDS, PHRASAL, type Token, termOfWord, tokenizeDetailed } from "./text/tokenize.ts";

/**
 * The query's tokens, without the words that only frame a question ({@link QUESTION_WORDS}). Only
 * the part {@link cutQuery} keeps is tokenized (docs/design.md#long-input).
 */
export function queryTokens(query: string): Token[] {
  const cut = cutQuery(query);
  // A date's words stay query words: transcripts say "last weekend" and "5月4号" too (measured on
  // the tuning half's LoCoMo sessions: dropping them cost 0.8 points, only relative ones 0.4).
  const content = withoutJoinedParts(tokenizeDetailed(withoutCjkFraming(cut))).filter(
    (token) => !QUESTION_WORDS.has(token.surface),
  );
  // A question made of framing words alone ("我的名字是什么？") is about them: keep them then.
  return content.length > 0 ? content : withoutJoinedParts(tokenizeDetailed(cut));
}

/**
 * The query's terms that occur in the index, with their weights. A word no memory contains
 * (often a typo: "fesetival", "Tennesee") is replaced by the indexed words one edit away, at
 * `typoWeight` of their usual weight.
 */
export function queryTerms(
  corpus: Corpus,
  tokens: readonly Token[],
  typoWeight: number,
  pathTerms: ReadonlySet<string> = NO_TERMS,
  joined: readonly Token[] = [],
): QueryTerm[] {
  const documentCount = corpus.size;
  const passageCount = corpus.passageCount;
  const terms = new Map<number, QueryTerm>();
  const addTerm = (id: number, term: string, surface: string, weight: number) => {
    if (terms.has(id)) return;
    const frequency = corpus.documentFrequency.get(id);
    if (frequency <= 0) return;
    // `src` and `ts` of a path in the prompt weigh as if half the memories had them
    // (docs/design.md#code-common-words): in a small directory their count is noise.
    const passageFrequency = corpus.passageFrequency.get(id);
    terms.set(id, {
      id,
      surface,
      idf:
        weight *
        inverseDocumentFrequency(
          documentCount,
          priorDocumentFrequency(term, pathTerms, documentCount, frequency),
        ),
      passageIdf:
        weight *
        inverseDocumentFrequency(
          passageCount,
          priorDocumentFrequency(term, pathTerms, passageCount, passageFrequency),
        ),
    });
  };
  for (const token of [...tokens, ...joined]) {
    const id = corpus.dictionary.lookup(token.term);
    if (id !== undefined && corpus.documentFrequency.get(id) > 0) addTerm(id, token.term, token.surface, 1);
  }
  if (typoWeight > 0) {
    for (const token of tokens) {
      const id = corpus.dictionary.lookup(token.term);
      if (id !== undefined && corpus.documentFrequency.get(id) > 0) continue;
      if (!TYPO_CANDIDATE.test(token.term)) continue;
      for (const near of corpus.dictionary.withinOneEdit(token.term))
        addTerm(near, corpus.dictionary.term(near) ?? "", `${token.surface}~`, typoWeight);
      // Two words run together ("healthcheck" where memories say "health check"): a guess, as a
      // typo's neighbours are, so at the same weight.
      for (const part of runTogetherParts(corpus, token))
        addTerm(part.id, part.term, `${part.surface}~`, typoWeight);
    }
  }
  return [...terms.values()];
}

/**
 * The words a prompt writes apart that memories write as one ("log out" → logout, "sign-up" →
 * signup, "set up" → setup): each two adjacent Latin words, with one space or hyphen between them,
 * joined, and kept when the index holds the joined word. The particle of such a pair is a stop
 * word ("out", "up"), so without this the memory's one word was never searched for. Only words
 * the index has are added, so a pair no memory writes as one changes nothing.
 *
 * @example joinedWordTokens(corpus, "how do I log out users?") // [{ term: "logout", surface: "log out" }] when a memory says "logout"
 */
export function joinedWordTokens(corpus: Corpus, query: string): Token[] {
  const text = cutQuery(query);
  const words = [...text.matchAll(/[A-Za-z]+/g)];
  const joined: Token[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    const [first, second] = [words[i], words[i + 1]];
    const between = text.slice((first.index ?? 0) + first[0].length, second.index);
    if (between !== " " && between !== "-") continue;
    const [token, ...rest] = tokenizeDetailed(`${first[0]}${second[0]}`);
    if (token === undefined || rest.length > 0) continue;
    const id = corpus.dictionary.lookup(token.term);
    if (id === undefined || corpus.documentFrequency.get(id) <= 0) continue;
    joined.push({ term: token.term, surface: `${first[0]}${between}${second[0]}` });
  }
  return joined;
}

/**
 * Words that frame a question rather than name its topic ("what *kind* of art", "*describe*
 * her", "how *many*"): dropped from queries only, so memories keep them. Measured on LoCoMo:
 * +0.2 points on sessions and +0.1 on observations, in every category.
 */
const ENGLISH_FRAMING_WORDS =
  "kind kinds type types sort sorts mention mentioned describe described specific specifically " +
  "thing things something many much often likely probably think";

/**
 * The same for Chinese and Japanese (docs/design.md#framing-words): question words (什么, 哪些,
 * 何, どの), the words that only point back at the conversation (曾经, 还记得, 提到, 覚えて),
 * sentence-final particles (吗, 呢, 吧, ですか) and personal pronouns (我, 你, 私, あなた: in a
 * one-to-one conversation every memory has them, as English ones are stop words). 名字/名前
 * ("name") frames "它的名字是？" the way "kind" frames "what kind of": the answer is a name, and
 * the word itself matches every memory where someone gives theirs. Checked against content
 * queries in test/recall/lexical/framing-words.test.ts.
 */
const CJK_FRAMING_WORDS =
  "什么 甚么 什麼 哪些 哪个 哪個 哪里 哪裡 哪儿 哪 怎么 怎麼 怎样 怎么样 如何 为什么 為什麼 多少 几 幾 谁 誰 " +
  "名字 曾经 曾經 曾 还记得 還記得 记得 記得 提到 提过 说过 問過 问过 告诉 告訴 请问 請問 是否 有没有 是不是 " +
  "吗 嗎 呢 吧 啊 还 我 你 您 他 她 它 我的 你的 他的 她的 它的 我们 你们 他们 她们 我們 你們 他們 " +
  "何 なに なん どの どれ どんな どこ いつ 誰 だれ 名前 覚え 覚えて 覚えている 教えて ですか ますか でしたか 私 僕 あなた";

/**
 * Every framing word, and every character pair inside a Chinese or Japanese one (the tokenizer
 * also indexes CJK text as overlapping pairs: 还记得 gives 还记 and 记得, which frame as much).
 */
const QUESTION_WORDS: ReadonlySet<string> = new Set(
  `${ENGLISH_FRAMING_WORDS} ${CJK_FRAMING_WORDS}`.split(" ").flatMap((word) => [word, ...innerPairs(word)]),
);

/**
 * `text` with its Chinese and Japanese framing and stop words blanked out, word by word as the
 * segmenter splits it (so 酒吧 "bar" keeps its 吧 and 任何 its 何): the character pairs the
 * tokenizer makes of CJK runs then never straddle a framing word (它的名字是 would give 的名, 字是).
 */
function withoutCjkFraming(text: string): string {
  if (!NEEDS_SEGMENTER.test(text)) return text;
  let kept = "";
  for (const { segment } of wordSegmenter.segment(text)) {
    kept += QUESTION_WORDS.has(segment) || CJK_STOP_WORDS.has(segment) ? " " : segment;
  }
  return kept;
}

function innerPairs(word: string): string[] {
  const chars = [...word];
  if (!/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+$/u.test(word)) return [];
  return chars.slice(1).map((char, i) => `${chars[i]}${char}`);
}

const NO_TERMS: ReadonlySet<string> = new Set();

/** Only longer Latin-script words get typo matching: short words have too many neighbors. */
const TYPO_CANDIDATE = /^[a-z]{5,}$/;

/**
 * The two words a query word no memory contains is made of, when it is two words the index holds
 * run together ("healthcheck" → health, check; "lockfile" → lock, file): the dual of
 * {@link joinedWordTokens}. Each part is a word of three letters or more that is not a stop word
 * (a stop word would match everything: "inbox" is not "box"), and some memory says both (else
 * "pipeline" was the "pipe" of one memory and the "line" of another); the first such cut from
 * the left is taken. A phrasal verb's joined word ("setup", "timeout") is a word of its own and is never
 * cut: "setup" is not a question about the Redis `SET` (src/recall/lexical/text/phrasal-verbs.ts).
 */
export function runTogetherParts(
  corpus: Corpus,
  token: Token,
): { id: number; term: string; surface: string }[] {
  const word = token.surface;
  if (!/^[a-z]{6,32}$/.test(word) || JOINED_TERMS.has(token.term)) return [];
  const indexed = (part: string) => {
    const term = termOfWord(part);
    const id = term === undefined ? undefined : corpus.dictionary.lookup(term);
    return term !== undefined && id !== undefined && corpus.documentFrequency.get(id) > 0
      ? { id, term, surface: part }
      : null;
  };
  for (let cut = 3; cut <= word.length - 3; cut++) {
    const left = indexed(word.slice(0, cut));
    if (left === null) continue;
    const right = indexed(word.slice(cut));
    if (right !== null && saidTogether(corpus, left.id, right.id)) return [left, right];
  }
  return [];
}

/** True when some memory holds both terms: a memory that writes the two words apart. */
function saidTogether(corpus: Corpus, a: number, b: number): boolean {
  const [rare, common] = corpus.documentFrequency.get(a) <= corpus.documentFrequency.get(b) ? [a, b] : [b, a];
  const holders = new Set<string>();
  corpus.forEachMemory(rare, (memory) => holders.add(memory.file));
  let found = false;
  corpus.forEachMemory(common, (memory) => {
    if (holders.has(memory.file)) found = true;
  });
  return found;
}

/** The terms of the phrasal verbs' joined words (setup, login, timeout…). */
const JOINED_TERMS: ReadonlySet<string> = new Set(
  [...PHRASAL.values()].flatMap((particles) => [...particles.values()]),
);
