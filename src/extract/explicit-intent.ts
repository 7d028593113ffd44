import type { MemoryType } from "../types.ts";
import {
  forgetQueryEn,
  forgetQueryJa,
  forgetQueryZh,
  STATING_VERB,
  statesSomething,
} from "./forget-intent.ts";
import { classifyStatement } from "./statement-type.ts";

/** What an explicit memory instruction in a user message asks for. */
export type ExplicitIntent =
  | { kind: "remember"; statement: string; type: MemoryType }
  | { kind: "forget"; query: string };

// The rules are per sentence (docs/design.md#explicit-remember): a request is a sentence or line
// that opens with the trigger, after an optional polite prefix, and what it asks to keep ends with
// that sentence. "do you remember…" or "I can't remember the password" open with no trigger.
const POLITE = String.raw`(?:(?:hey|ok|okay|also|and|oh|btw|so|thanks|great|cool|alright)[,!\s]+)*(?:please\s+|pls\s+|kindly\s+)?`;
// After a bare "remember" (no "that", no colon) only a clause or a rule may follow: "remember we
// use pnpm", "remember to lint", or "the …" whose own verb states something ("remember the
// staging DB is at …"). "remember the scroll position when navigating back" and "remember the
// selected filter when the page is reloaded" are feature requests: a verb after when/so/if/… is
// the clause's, not the thing's. "keep in mind" is how a task's constraints are said ("keep in
// mind the user may be offline. Implement retries"), so it is no trigger.
const SUBORDINATE = "(?:when|whenever|so|if|after|before|while|until|because|using|across|on|between|once)";
const AFTER_BARE_VERB = String.raw`\s+(?=(?:to|i|i'm|we|we're|we've|my|our|always|never|don't|do not|use|prefer)\b)|\s+(?=the\s(?:(?!\b${SUBORDINATE}\b)[^.!?\n])*?\b${STATING_VERB}\b)`;
const REMEMBER_EN = new RegExp(
  String.raw`^${POLITE}(?:remember|memori[sz]e|note down|make a note)(?:\s+(?:this|the following))?(\s*[:：,-]\s*|\s+that\s+|${AFTER_BARE_VERB})(.+)$`,
  "is",
);
// "don't forget the semicolon on line 12" is about this turn's work: the same statement rule.
const DONT_FORGET_EN = new RegExp(
  String.raw`^${POLITE}(?:don't|dont|do not|never) forget(\s*[:：,-]\s*|\s+that\s+|${AFTER_BARE_VERB})(.+)$`,
  "is",
);
const FORGET_EN = new RegExp(String.raw`^${POLITE}forget(\s*[:：]\s*|\s+)(.+)$`, "is");

const ZH_POLITE = "(?:请|請|麻烦|麻煩|帮我|幫我|你)*";
const REMEMBER_ZH = new RegExp(
  `^(${ZH_POLITE})(记住|記住|记一下|記一下|记下来|記下來|记下|記下|牢记|牢記|记着|記著|别忘了|別忘了|别忘记|別忘記|不要忘了|不要忘记|不要忘記|千万别忘了|千萬別忘了)(?:这一?点|這一?點|这个|這個)?([：:，,\\s]*)(.+)$`,
  "su",
);
/**
 * 记住 run into the next word is a UI label ("记住密码", "记住我"), unless a request frames it;
 * 别忘了 run into the next word is this turn's reminder ("别忘了提交代码"), as "don't forget the
 * semicolon" is: with a separator ("别忘了：测试要连真实数据库") it asks to keep what follows.
 */
const ZH_BARE_VERB =
  /^(?:记住|記住|牢记|牢記|记着|記著|记下|記下|记下来|記下來|别忘了|別忘了|别忘记|別忘記|不要忘了|不要忘记|不要忘記|千万别忘了|千萬別忘了)$/u;
/**
 * "以后提交信息用中文写，记住了": the request after the statement, set off by a comma. Not "我记住了"
 * (the speaker has remembered) and not a question.
 */
const REMEMBER_ZH_SUFFIX =
  /^(.+?)[，,]\s*(?:请|請|你)?(?:记住|記住|记好|記好|记着|記著|牢记|牢記)(?:了|啊|哦|喔|哈|吧)?[。！!]?$/su;
const ZH_CLAUSE_START = /^(?:我们|我們|咱们|咱們)/u;
// No 你 before it: "你忘了我说过要用 pnpm" is a complaint ("you forgot …"), not a request.
const FORGET_ZH =
  /^(?:请|請|麻烦|麻煩|帮我|幫我)*(忘掉|忘记|忘記|忘了|删掉|刪掉|删除|刪除)(这条记忆|這條記憶|记忆|記憶)?([：:]\s*|[，,\s]*)(.+)$/su;
/**
 * 把 … 删掉 / 忘掉: the object before the verb ("把 pnpm 那条记忆删掉", "把我之前说的 Node 18 那条忘了"),
 * judged as FORGET_ZH's object is (forget-intent.ts): 忘掉/忘了 here is a request, never "I forgot",
 * and 删掉/去掉 delete only what is called a memory ("把这行注释删掉" is code talk). A clause after a
 * comma goes with it ("…忘了，我们现在用 Vitest").
 */
const FORGET_ZH_BA =
  /^(?:请|請|麻烦|麻煩|帮我|幫我)*把(.+?)(忘掉|忘了|忘记|忘記|删掉|刪掉|删了|刪了|删除|刪除|去掉)(?:吧|啊|哈)?(?:[，,]\s*(.+?))?[。！!]?$/su;
/**
 * 不用记 … 了 / 别再记着 … 了: "no need to keep … any more" (了 marks the change), a forget of what
 * follows 记, judged by forget-intent.ts as 删掉 … 记忆 is (a plan or "for now" after it deletes
 * nothing: "不用记 pnpm 了，这次先用 npm"). 记录, 记笔记, 记日志, 记账 are other verbs (logging,
 * taking notes), and 记下来 with no object names nothing.
 */
const FORGET_ZH_NO_LONGER =
  /^(?:你)?(?:不用|不必|不需要|别|別|不要)(?:再)?(?:记|記)(?:住|着|著)?(?!录|錄|笔|筆|日志|日誌|账|賬|下来|下來)(.+?)了(?:吧|啊|哈)?(?:[，,]\s*(.+?))?[。！!]?$/su;
const REMEMBER_JA_PREFIX =
  /^(?:これを|これ|以下を)?(?:覚えて(?:おいて)?(?:ください)?|記憶して(?:ください)?|忘れないで(?:ください)?)([：:、,\s]+)(.+)$/su;
const REMEMBER_JA_SUFFIX =
  /^(.+?)(?:ということ|こと)?(?:を|って|と)?(?:覚えて|記憶して)(?:おいて)?(?:ください|ね|な)?[。.!！]?$/su;
/** "… 忘れて" ends the sentence, or goes on after 、 with a clause (forget-intent.ts judges it). */
const FORGET_JA = /^(.+?)(?:のこと)?(?:を|は)?忘れて(?:ください)?(?:[、,]\s*(.+?))?[。.!！]?$/su;

/** A sentence that recounts the conversation ("we talked about this") asks to keep nothing. */
const RECOUNT =
  /^(?:we|i|you)\s+(?:already\s+|just\s+)?(?:talked|discussed|spoke|went over|covered|mentioned|said|told|showed|asked)\b/i;

/**
 * Finds an explicit "remember …" or "forget …" instruction in one user message, the first
 * sentence that is one. Pure.
 *
 * @example
 * parseExplicitMemory("记住：登录模块的集成测试不得 mock 数据库")
 * // { kind: "remember", statement: "登录模块的集成测试不得 mock 数据库", type: "feedback" }
 */
export function parseExplicitMemory(text: string): ExplicitIntent | null {
  const message = unwrapQuotes(text.trim());
  if (message === "" || message.length > 4000) return null;
  const sentences = sentencesOf(message);
  for (const [i, sentence] of sentences.entries()) {
    const intent = sentenceIntent(sentence, sentences[i + 1] ?? "");
    if (intent?.kind !== "remember") {
      if (intent) return intent;
      continue;
    }
    if (pointsBack(sentence, sentences[i + 1] ?? "")) continue;
    // A rule said right after the request is part of it ("Remember that we use pnpm. Never npm."),
    // where any other sentence is this turn's ("… Now bump the version").
    let statement = intent.statement;
    for (const next of sentences.slice(i + 1)) {
      if (!RULE_GOES_ON.test(next) || /[?？]["'”」』)）]*$/.test(next)) break;
      statement += `${/[。！？]$/u.test(statement) ? "" : " "}${next}`;
    }
    return { ...intent, statement };
  }
  return null;
}

/**
 * "Remember that bug from yesterday, it's back" is "do you remember …?" without its question mark
 * (docs/design.md#explicit-remember): `that` there points at a thing, where in "remember that the
 * build uses Node 20" it opens a statement. The words after "remember that" (or "remember the") up
 * to the first comma or dash are a thing when they hold no stating verb (a relative clause's "that
 * was flaky" aside) and, after `that`, do not open as a clause does (the, we, our, in …: a pointing
 * `that` is never followed by them). It is pointed back at when it is placed in the past ("from
 * yesterday", "we ran last sprint") or when what follows, in the sentence or the next one, says of
 * it that it is back ("it's back", "failing again"); "…, never retry it again" is a rule about it
 * and "…. Run the tests again." another task. "Remember that staging deploys on every merge" (no
 * past, nothing back) and "remember that prod moved to us-east-2 last week" (a time, but not in a
 * thing) stay requests.
 */
const POINTER_EN = new RegExp(
  String.raw`^${POLITE}remember\s+(that|the)\s+([^,;:–—]+?)(?:\s*(?:[,;:–—]|\s-\s)\s*(.*?))?[\s.!]*$`,
  "is",
);
const CLAUSE_OPENER =
  /^(?:the|a|an|we|we're|we've|i|i'm|i've|you|you're|they|they're|he|she|it|it's|its|there|there's|our|my|your|their|his|her|this|these|those|all|every|each|no|none|some|any|most|both|only|not|if|when|whenever|after|before|in|on|at|for|since|until|unless|to|with|without|from|nothing|everything|everyone|nobody)\b/i;
const PAST = String.raw`(?:yesterday|last\s+\w+|this\s+morning|earlier|before|the\s+other\s+day|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:a|an|\d+|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|months?)\s+ago)`;
const PLACED_IN_PAST = new RegExp(
  String.raw`\bfrom\s+${PAST}\b|\b(?:we|you|i|they)\s+(?:\w+\s+){1,4}?${PAST}\b`,
  "i",
);
/** What follows is about the thing: it opens with it, they, that's … or goes straight on ("failing again"). */
const REFERS_BACK =
  /^(?:(?:and|but|now|so|because)\s+)?(?:it|it's|its|they|they're|they've|this|that's|the same|same|\w+ing|back)\b/i;
const IS_BACK =
  /\b(?:(?:it's|it is|its|they're|they are|is|are|was)\s+back|c[oa]mes?\s+back|coming\s+back|again|returned|reappeared|resurfaced|regressed|keeps\s+\w+ing|still\s+(?:\w+ing|broken|there|red|flaky))\b/i;

function pointsBack(sentence: string, next: string): boolean {
  const match = POINTER_EN.exec(sentence);
  if (!match) return false;
  const [, article, thing, rest = ""] = match;
  // "that test that was flaky last week": the relative clause's verb is not the thing's.
  const head = thing.split(/\s(?:that|which|who)\s/i)[0];
  if (statesSomething(head) || (/^that$/i.test(article) && CLAUSE_OPENER.test(thing))) return false;
  const after = (rest.trim() === "" ? next : rest).trim();
  return PLACED_IN_PAST.test(thing) || (REFERS_BACK.test(after) && IS_BACK.test(after));
}

/**
 * "Remember, the flaky test is failing again" is a bug report with "remember" as a heads-up, not a
 * request (docs/design.md#explicit-remember): after a bare "remember" or one with a comma or dash
 * (not a colon; after "that", only a bare report, see GOES_ON_EN), a statement that a problem is
 * happening again or still is no memory —
 * "failing again", "the login bug is back", "keeps timing out", "still broken"; 又挂了, 再次出现;
 * また落ちてる. A rule or a condition stays a request ("Remember, never retry flaky tests again",
 * "…, if it is failing again, rerun it once"), and "back on/to" is a state ("staging is back on
 * Node 18").
 */
const PROBLEM_AGAIN_EN =
  /\b(?:(?:failing|crashing|breaking|flaking|erroring|timing\s+out|hanging|happening|leaking|throwing|occurring|showing\s+up|popping\s+up|acting\s+up|broken|flaky|down|red|failed|crashed|broke|happened|showed\s+up|popped\s+up)\s+again|(?:is|are|was|it's|they're)\s+back\b(?!\s+(?:on|to|at|up|online)\b)|c[oa]me\s+back|coming\s+back|reappeared|resurfaced|regressed|keeps?\s+(?:failing|crashing|breaking|flaking|erroring|timing\s+out|hanging|happening|leaking|throwing|showing\s+up|popping\s+up)|still\s+(?:failing|failed|fails|broken|red|flaky|flaking|crashing|erroring|timing\s+out|down|hanging|happening|not\s+working))\b/i;
const PROBLEM_AGAIN_ZH =
  /又(?:挂|掛|失败|失敗|出现|出現|坏|壞|报错|報錯|崩|超时|超時|红|紅|卡住|不行|来了|來了|复现|復現)|再次(?:出现|出現|失败|失敗|报错|報錯|挂|掛)|(?:还是|還是|一直)(?:挂|掛|失败|失敗|报错|報錯|不行)|复现了|復現了/u;
const PROBLEM_AGAIN_JA =
  /また(?:落ち|失敗|壊れ|起き|発生|エラー|タイムアウト|赤|こけ|コケ)|再発|再び(?:落ち|失敗|発生)|まだ(?:落ち|失敗|壊れ|直って(?:い)?ない)|(?:落ち|失敗し)続けて/u;
/**
 * A bare report that something is broken now ("Remember, the build is broken", "remember the
 * staging DB is down right now"): the whole statement is the thing, the state, and at most when
 * or where. Anything after that is what to keep ("staging is down on Sundays for backups"); flaky
 * is a property worth keeping, not news.
 */
const PROBLEM_NOW_EN =
  /^[^,;:.!?]{1,60}?(?:\s+is|\s+are|'s|'re)\s+(?:currently\s+|now\s+|still\s+)?(?:broken|down|failing|red|not\s+working|crashing|erroring|timing\s+out|hanging)(?:\s+(?:right\s+now|now|today|at\s+the\s+moment|currently|on\s+(?:main|master|ci)|in\s+ci))?[\s.!]*$/i;
const STATES_A_RULE =
  /\b(?:never|always|don't|dont|do not|must|should|make sure|avoid|need to|needs to|if)\b|不要|不得|别|別|必须|必須|应该|應該|禁止|一律|总是|總是|永远|永遠|以后|以後|如果|的话|的話|就|しないで|ないで|必ず|べき|ように|たら|なら/iu;

/**
 * After "remember that" only a bare report is one ("Remember that the login bug is back"): a single
 * clause. One that goes on with a reason, a condition or what was done about it is a fact to keep
 * ("…keeps timing out when run in parallel, so we run it serially").
 */
const GOES_ON_EN =
  /[,;–—]|\s-\s|\b(?:when|whenever|if|unless|after|before|while|until|because|since|so|once|which|but|and)\b/i;

function reportsProblem(separator: string, statement: string): boolean {
  if (/[:：]/.test(separator)) return false;
  const problem =
    PROBLEM_AGAIN_EN.test(statement) ||
    PROBLEM_NOW_EN.test(statement) ||
    PROBLEM_AGAIN_ZH.test(statement) ||
    PROBLEM_AGAIN_JA.test(statement);
  if (!problem || STATES_A_RULE.test(statement)) return false;
  return !/\bthat\b/i.test(separator) || !GOES_ON_EN.test(statement);
}

/** A sentence that goes on with the rule just asked to be remembered: it opens with always, never, 不要 … */
const RULE_GOES_ON = /^(?:always|never|don't|dont|do not|avoid|不要|不得|别|禁止|永远|始终|絶対に)/iu;

function sentenceIntent(sentence: string, next: string): ExplicitIntent | null {
  // Questions never instruct ("can you remember …?", "Remember that bug? It's back").
  if (/[?？]["'”」』)）]*$/.test(sentence) && !/^(?:please\s+)?remember\s*:/i.test(sentence)) return null;

  for (const pattern of [REMEMBER_EN, DONT_FORGET_EN, REMEMBER_JA_PREFIX]) {
    const match = pattern.exec(sentence);
    if (match) return reportsProblem(match[1], match[2]) ? null : remember(match[2]);
  }
  const chinese = REMEMBER_ZH.exec(sentence);
  if (chinese) {
    const [, polite, verb, separator, rest] = chinese;
    if (reportsProblem(separator, rest)) return null;
    if (separator !== "" || polite !== "" || !ZH_BARE_VERB.test(verb) || ZH_CLAUSE_START.test(rest))
      return remember(rest);
    return null;
  }
  const chineseSuffix = REMEMBER_ZH_SUFFIX.exec(sentence);
  if (chineseSuffix) return reportsProblem("", chineseSuffix[1]) ? null : remember(chineseSuffix[1]);
  const english = FORGET_EN.exec(sentence);
  if (english) {
    const query = forgetQueryEn(english[1], english[2], next);
    return query === null ? null : forgetIntent(query.replace(/^about\s+/i, ""));
  }
  const chineseForget = FORGET_ZH.exec(sentence);
  if (chineseForget) {
    const [, verb, memoryWord, separator, object] = chineseForget;
    const query = forgetQueryZh(verb, memoryWord, separator, object, next);
    return query === null ? null : forgetIntent(query);
  }
  const baForget = FORGET_ZH_BA.exec(sentence);
  if (baForget) {
    const [, object, verb, clause] = baForget;
    const asked = clause === undefined ? object : `${object}，${clause}`;
    const query = forgetQueryZh(/^忘/u.test(verb) ? "忘掉" : "删掉", undefined, "", asked, next);
    return query === null ? null : forgetIntent(query);
  }
  const noLonger = FORGET_ZH_NO_LONGER.exec(sentence);
  if (noLonger) {
    const [, object, clause] = noLonger;
    // "你不用记这个了" points at something said in the conversation, not at a memory by its words.
    if (/^(?:这个|這個|那个|那個|这些|這些|那些|它|这|這|那)$/u.test(object.trim())) return null;
    const asked = clause === undefined ? object.trim() : `${object.trim()}，${clause}`;
    const query = forgetQueryZh("删掉", "记忆", "", asked, next);
    return query === null ? null : forgetIntent(query);
  }
  // A "… 忘れて、…" that asks nothing may still end in 覚えて ("pnpm のことは忘れて、yarn を使うことを覚えておいて").
  const japaneseForget = FORGET_JA.exec(sentence);
  const japaneseQuery = japaneseForget
    ? forgetQueryJa(japaneseForget[1], japaneseForget[2] ?? "", next)
    : null;
  if (japaneseQuery !== null) return forgetIntent(japaneseQuery);
  if (japaneseForget && (japaneseForget[2] ?? "") === "") return null;
  const japanese = REMEMBER_JA_SUFFIX.exec(sentence);
  if (japanese) return remember(japanese[1]);
  return null;
}

/** Lines a user pastes rather than says: fenced code, quoted lines (`> …`). */
const FENCE = /^\s*(?:```|~~~)/;
const QUOTED = /^\s*>/;
/** A line that goes on into the next: it ends on a comma, or the next opens with a joining word. */
const ENDS_OPEN = /[,，;；]\s*$/;
const OPENS_JOINED = /^\s*(?:and|or|but|because|so|which|unless|except|while|then|plus|since|with|without)\b/;
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)])\s/;
/** A request word alone before a colon ("remember:", "记住：", "remember the following:"): its statement is on the next line. */
const TRIGGER_ALONE = new RegExp(
  String.raw`^${POLITE}(?:remember|memori[sz]e|note down|make a note|(?:don't|do not) forget)(?:\s+(?:this|the following))?\s*[:：]$|^${ZH_POLITE}(?:记住|記住|记一下|記一下|记下来|記下來|记下|記下|牢记|牢記)(?:以下|下面)?[:：]$|^(?:これを|以下を)?(?:覚えて(?:おいて)?(?:ください)?|忘れないで(?:ください)?)[:：]$`,
  "iu",
);

/**
 * The sentences of a message, in order. Lines first: fenced code and quoted lines are dropped; a
 * line joins the one before it when that one ends on a comma or the line opens with "and …" (a
 * wrapped sentence), when it is a list item after a line ending on a colon, or when the line before
 * is a request word alone ("remember:"). Then each is cut after its sentence end (`. ` `! ` `? `
 * and 。！？), which the sentence keeps.
 */
function sentencesOf(message: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of message.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      lines.push("");
    } else lines.push(fenced || QUOTED.test(line) ? "" : line);
  }
  const chunks: string[] = [];
  let current: string | null = null;
  let list = false;
  for (const line of lines) {
    const last = current?.split("\n").at(-1)?.trim() ?? "";
    const joins =
      current !== null &&
      line.trim() !== "" &&
      (ENDS_OPEN.test(last) ||
        OPENS_JOINED.test(line) ||
        TRIGGER_ALONE.test(last) ||
        (LIST_ITEM.test(line) && (list || /[:：]$/.test(last))));
    if (joins) {
      list ||= LIST_ITEM.test(line);
      current = `${current}\n${line}`;
    } else {
      if (current !== null) chunks.push(current);
      current = line;
      list = false;
    }
  }
  if (current !== null) chunks.push(current);
  // Cut at a sentence end within a line only: a joined chunk's lines are one request.
  return chunks.flatMap((chunk) =>
    chunk
      // Not after "i.e." or "e.g.": "we use pnpm, i.e. not npm" is one sentence.
      .split(/(?<=[.!?])(?<!\b(?:i\.e|e\.g|etc|vs|cf|approx|incl|esp|a\.m|p\.m)\.)[ \t]+|(?<=[。！？])/iu)
      .map((sentence) => sentence.trim())
      .filter((sentence) => sentence !== ""),
  );
}

/**
 * A message wholly inside one pair of quotes, without them: `opencode run "remember …"` hands the
 * model (and memdir's plugin) the prompt in double quotes, and a user may quote a request too. A
 * quote inside the message (`remember "pnpm", not npm`) is left alone.
 */
function unwrapQuotes(message: string): string {
  const pairs: Record<string, string> = { '"': '"', "'": "'", "“": "”", "「": "」", "『": "』" };
  const close = pairs[message[0] ?? ""];
  if (close === undefined || message.length < 3 || !message.endsWith(close)) return message;
  const inner = message.slice(1, -1);
  return inner.includes(message[0]) || inner.includes(close) ? message : inner.trim();
}

function remember(raw: string): ExplicitIntent | null {
  const statement = cleanStatement(raw);
  if (statement.length < 2 || RECOUNT.test(statement)) return null;
  // "remember to X" is an instruction about how to work, whatever X says.
  const type = /^\s*to\s/i.test(raw) ? "feedback" : classifyStatement(statement);
  return { kind: "remember", statement, type };
}

function forgetIntent(raw: string): ExplicitIntent | null {
  const query = cleanStatement(raw);
  return query.length < 2 ? null : { kind: "forget", query };
}

export function cleanStatement(raw: string): string {
  return (
    raw
      .trim()
      .replace(/^(?:that|to)\s+(?=\S)/i, "")
      .replace(/^["'“”「『]+|["'“”」』]+$/g, "")
      // "レビューは必ず2人以上、覚えておいてね": the comma before the request is not the statement's.
      .replace(/[\s、，,]+$/u, "")
      .trim()
  );
}
