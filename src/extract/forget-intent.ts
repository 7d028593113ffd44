// What a "forget …" request names, and what the clause after it says (docs/design.md#explicit-remember).
// explicit-intent.ts finds the trigger (forget, 忘掉, 忘れて); these decide whether it deletes and
// which words the memory is looked up by. Each returns the query, or null when the sentence asks
// nothing of memory.

/**
 * What "forget …" must name to delete anything: something the user said or saved before. A saved
 * thing by name — a memory by its kind ("the pnpm rule", "the memory about Jest", "my preference
 * for tabs", "that note"), "the thing / stuff / one about …", or "what I said about …" — or a "that" clause; "about X" names a thing,
 * not a memory. "forget it" and "forget the tests for now" name nothing said before.
 */
const THAT_CLAUSE = /^that\s+(?:i|i'm|i've|we|we're|we've|you|they|our|my|the|it's|there's)\b/i;

/** A verb that makes what comes before it a statement ("the staging DB is …", "deploys run …"). */
export const STATING_VERB =
  "(?:is|are|was|were|isn't|aren't|lives|uses|runs|needs|must|should|has|have|goes|belongs|requires|takes|expires|points|stays|starts|ends|begins|happens|ships|moves|lands|depends|means|applies|can|cannot|can't|doesn't|don't|won't|will|always|never)";
/**
 * A plural noun and then a plain verb states something too ("deploys go out on Fridays",
 * "integration tests hit the real database"). The plain verbs are kept apart from STATING_VERB:
 * alone, "run" or "use" is as often a noun ("that test run"); after a plural noun it is the verb.
 */
const PLAIN_VERB =
  "(?:go|run|use|need|live|take|ship|happen|point|depend|land|belong|expire|stay|start|end|begin|move|apply|get|hit|call|read|write|fail|pass|require|break|wait|expect|return|include|contain|send|sync|deploy|build|come|share|support|work|talk|time\\s+out)";
const PLURAL_STATEMENT = new RegExp(String.raw`\b[a-z][\w-]*[a-z]s\s+${PLAIN_VERB}\b`, "i");

const STATES_WITH_VERB = new RegExp(String.raw`\b${STATING_VERB}\b`, "i");

/**
 * Whether words state something: a stating verb, or a plural noun and a plain verb. "that test,
 * it's flaky" and "that tests folder" state nothing; "that deploys go out on Fridays" does.
 */
export function statesSomething(words: string): boolean {
  return STATES_WITH_VERB.test(words) || PLURAL_STATEMENT.test(words);
}

/**
 * "forget that staging is on port 5433": a `that` whose words up to the first comma or dash state
 * something is a clause, whatever word it opens with (a name, not only the/we/our). Without a
 * stating verb, `that` points at a thing ("forget that test, it's flaky"), as in "remember that bug
 * from yesterday" (explicit-intent.ts); a relative clause's verb ("that test that was flaky") is
 * not the thing's.
 */
function isThatClause(body: string): boolean {
  if (THAT_CLAUSE.test(body)) return true;
  const head = body.split(/\s*(?:[,;:–—]|\s-\s)/)[0].split(/\s(?:that|which|who)\s/i)[0];
  return /^that\s/i.test(head) && statesSomething(head);
}
/**
 * "the thing about port 3000", "the stuff about redis", "the one about Jest": what was said before,
 * named by its topic. Its words are framing, not words of the memory (explicit.ts's lookup).
 */
export const THING_ABOUT = String.raw`^(?:the|that|this)\s+(?:thing|stuff|bit|part|one)\s+(?=(?:about|on|regarding)\b)`;
const SAVED_THING = new RegExp(
  [
    String.raw`^(?:what|everything|anything|all)\s+(?:i|we|you)\s+(?:\w+\s+)?(?:said|told|wrote|mentioned|asked|saved|remembered|know|noted|learned)\b`,
    String.raw`\b(?:memory|memories|note|notes|rules?|preferences?|instructions?|reminders?)\b(?=\s*(?:$|[,.;:!–—-]|(?:about|on|for|that|which|saying|says|regarding|from|where|because|since)\b))`,
    THING_ABOUT,
  ].join("|"),
  "i",
);
const ABOUT_THING = /^about\s+(?!(?:it|that|this|them)\s*(?:[,.;!]|$))/i;

/**
 * The old change-of-plan test, kept for "about X": a clause that opens with what to do, or with
 * we/I, is what to do instead ("Forget about the redis cache, just use an in-memory map", "forget
 * about the redis cache, I changed my mind"). "forget about X" is how a change of plan is said, and
 * its "we …"/"I …" often reports this task ("I removed it"), so a reason does not save it.
 */
const ABOUT_PLAN_CHANGE =
  /[,;–—-]\s*(?:just|and|let's|lets|use|go|do|try|we|i|then|now|instead|rather)\b|\binstead\b/i;
/**
 * …unless what follows says the tool or place changed for good: "forget about pnpm, we use yarn
 * now", "…, we switched to Vitest", "…, we've moved to staging-2", "…, we're on yarn now". That
 * is a reason the saved thing is wrong, not this task's news ("I moved it to the quarantine
 * folder", "we're fixing them", "we're on a deadline", "I changed my mind").
 */
const SWITCHED_EN =
  /^(?:now\s+)?(?:we|i|the\s+team|our\s+team|everyone)(?:'ve|\s+have)?\s+(?:now\s+|already\s+|just\s+|since\s+)?(?:(?:switched|migrated|moved|changed|went)\s+(?:over\s+|back\s+)?to\b|(?:only\s+)?use\b)|^(?:we're|we\s+are|i'm|i\s+am)\s+(?:(?:now\s+)?using|now\s+on|on\s+[\w.@/-]+\s+now)\b/i;
/**
 * A forget that holds only for a while, or for this piece of work, sets something aside rather
 * than deleting it: "for now / today / the moment / the time being / a bit", "temporarily",
 * "until …", "for this PR / file / one …". Not "now" alone: "we use yarn now" says why a memory
 * is wrong.
 */
const FOR_NOW_EN =
  /\b(?:for\s+(?:now|today|the\s+(?:moment|time\s+being)|a\s+(?:bit|while|moment|sec|second|minute))\b|temporarily\b|until\b|(?:for|in)\s+this\s+(?:one|task|pr|change|fix|ticket|issue|test|run|session|commit|file|function|component|script|step|branch|feature|bug|refactor|story)\b)/i;
const FOR_NOW_ZH = /暂时|暫時|暂且|暫且|临时|臨時|这次|這次|[，,]\s*先/u;
const FOR_NOW_JA = /一旦|いったん|とりあえず|ひとまず|しばらく|当面|今だけ|今回は|今回だけ/u;

/**
 * Where the object ends and a clause about it begins: a comma, semicolon or dash, "because …", or
 * "and/then" before what to do ("the pnpm rule and use npm"; not "the memory about docker and
 * kubernetes").
 */
const CLAUSE_BREAK_EN =
  /\s*[,;]\s*|\s*[–—]\s*|\s+-\s+|\s+(?=(?:because|since|now that|'cause|cause)\s)|\s+(?=(?:and|then)\s+(?:just\s+)?(?:use|go|do|try|switch|stick|keep|focus|start|skip|ignore)\b)/i;
/** From now on: what follows replaces the memory for good. */
const DURABLE_EN =
  /\b(?:from\s+now\s+on|going\s+forward|from\s+here\s+on|in\s+(?:the\s+)?future|henceforth)\b/i;
/** Someone says what they will, must or want to do: this task's plan ("we need to ship", "you can use npm here"). */
const INTENDS_EN =
  /^(?:(?:so|because|since|now)\s+)?(?:(?:we|i|you)(?:'ll|'d|\s+(?:need|needs|want|wanna|should|will|would|can|could|have\s+to|must|gotta|gonna|might|may|shall|are\s+going\s+to|am\s+going\s+to))|(?:we're|i'm|you're)\s+(?:going\s+to|gonna)|let's|lets|let\s+us)\b/i;
/** A clause with its own subject states something: why the saved thing is wrong ("we use yarn now", "it's gone"). */
const STATES_EN =
  /^(?:because|since|now\s+that|'cause|cause)\b|^(?:now\s+)?(?:we|we're|we've|we\s+are|i|i'm|i've|it|it's|its|it\s+is|that|that's|this|they|they're|there's|the|our|my|everyone|nobody|no\s+one)\b/i;
/** What the agent is told to do: an imperative, "instead", "then …". */
const INSTRUCTS_EN =
  /^(?:just|and|then|instead|rather|use|go|do|try|switch|stick|keep|focus|start|skip|ignore|pick|please|pls)\b|^now\b(?!\s+(?:that|we|it|it's|they|the|our)\b)|\binstead\b/i;

type ClauseKind = "plan" | "reason" | "other";

/**
 * What a clause after a forget's object says: a plan for this task (what to do instead, for now,
 * what we need or will do), a reason the saved thing is wrong (its own subject and a statement:
 * "we use yarn now", "we moved to Vitest", "it's gone"; or "from now on …"), or neither.
 */
function clauseKindEn(clause: string): ClauseKind {
  const text = clause.trim();
  if (text === "") return "other";
  if (DURABLE_EN.test(text)) return "reason";
  if (FOR_NOW_EN.test(text) || INTENDS_EN.test(text)) return "plan";
  if (STATES_EN.test(text)) return "reason";
  return INSTRUCTS_EN.test(text) ? "plan" : "other";
}

/**
 * The query of an English "forget …" (docs/design.md#explicit-remember), or null. `next` is the
 * sentence after it, judged when the forget's own sentence has no clause ("Forget about the redis
 * cache. Just use an in-memory map.").
 */
export function forgetQueryEn(separator: string, object: string, next: string): string | null {
  const body = object.replace(/[\s.!]+$/, "");
  const breakAt = CLAUSE_BREAK_EN.exec(body);
  const head = breakAt ? body.slice(0, breakAt.index) : body;
  const clause = breakAt ? body.slice(breakAt.index + breakAt[0].length) : "";
  // "instead" anywhere is what to do instead, but for a clause that states a reason ("we use yarn instead").
  const said = clauseKindEn(clause);
  const kind = said === "other" && /\binstead\b/i.test(body) ? "plan" : said;
  // A reason is no part of what to look for: "we moved to Vitest" would halve the share of the
  // query's words that a memory saying "the tests run on Jest" holds.
  const query = kind === "reason" && head.trim() !== "" ? head : body;
  // A colon always forgets, and a "that" clause names what was said, whatever follows it.
  if (/[:：]/.test(separator) || isThatClause(body)) return query;
  const named = SAVED_THING.test(body);
  if (!named && !ABOUT_THING.test(body)) return null;
  if (FOR_NOW_EN.test(body)) return null;
  if (clause === "") return clauseKindEn(next) === "plan" ? null : query;
  if (named) return kind === "plan" ? null : query;
  if (kind === "reason" && SWITCHED_EN.test(clause.trim())) return query;
  return ABOUT_PLAN_CHANGE.test(body) ? null : query;
}

/**
 * What a Chinese forget must name. 忘掉/忘记: a memory or what was said ("…的记忆", "pnpm 那条",
 * "我之前说的…"). 删除/删掉 are code talk ("删掉这条注释", "删除那条日志") and 忘了 is "forgot"
 * ("忘了提交 lockfile"): they delete only what is called a memory (or after a colon).
 */
const FORGET_OBJECT_ZH = /记忆|記憶|那条|这条|那條|這條|那句|这句|说过|說過|说的|說的/u;
const FORGET_OBJECT_ZH_MEMORY = /记忆|記憶/u;
const CLAUSE_BREAK_ZH = /\s*[，,；;]\s*/u;
const DURABLE_ZH = /以后|以後|今后|今後|从现在起|從現在起|从今以后|從今以後|往后|往後/u;
/** Just use …, use … instead, first …, we first …, or a suggestion ending in 吧 / 就行. */
const PLAN_ZH =
  /^(?:直接|就用|就|只|还是|還是|改成|改用|换成|換成|用|试试|試試|试一下|你|咱们先|咱們先|我们先|我們先)|(?:吧|就行|就好|就可以|即可)[。！!]?$/u;
/** A clause that states why the saved thing is wrong: 我们现在用…, 现在…, 已经…, 因为… */
const STATES_ZH =
  /^(?:因为|因為|我们|我們|咱们|咱們|现在|現在|已经|已經|早就|早已|它|这个|這個|那个|那個|项目|項目|团队|團隊|其实|其實|不再|没在|沒在|换了|換了|改了)/u;

function clauseKindZh(clause: string): ClauseKind {
  const text = clause.trim();
  if (text === "") return "other";
  if (DURABLE_ZH.test(text)) return "reason";
  if (FOR_NOW_ZH.test(text) || PLAN_ZH.test(text)) return "plan";
  return STATES_ZH.test(text) ? "reason" : "other";
}

/** The query of a Chinese 忘掉/忘记/删除 … request, or null. */
export function forgetQueryZh(
  verb: string,
  memoryWord: string | undefined,
  separator: string,
  object: string,
  next: string,
): string | null {
  const breakAt = CLAUSE_BREAK_ZH.exec(object);
  const head = breakAt ? object.slice(0, breakAt.index) : object;
  const clause = breakAt ? object.slice(breakAt.index + breakAt[0].length) : "";
  const kind = clauseKindZh(clause);
  const query = kind === "reason" && head.trim() !== "" ? head : object;
  if (/[:：]/.test(separator)) return query;
  const named = /^(?:忘掉|忘记|忘記)$/u.test(verb) ? FORGET_OBJECT_ZH : FORGET_OBJECT_ZH_MEMORY;
  if ((memoryWord === undefined && !named.test(object)) || FOR_NOW_ZH.test(object)) return null;
  if (kind === "plan" || (clause === "" && clauseKindZh(next) === "plan")) return null;
  return query;
}

/** A Japanese object that names a saved thing: メモ, ルール, 記憶, what was said (って言った …). */
const SAVED_THING_JA =
  /メモ|ルール|記憶|決まり|覚えて(?:もらった|おいた|おいてもらった)|(?:って|と)(?:言った|伝えた|話した)|前に言った/u;
/** Why the saved thing is wrong: 今は…, 移行した, 使ってる, じゃない, やめた … */
const STATES_JA =
  /今は|今では|すでに|既に|移行し|変えた|変わった|変更した|切り替えた|乗り換えた|使って(?:い)?る|使っています|になった|じゃない|ではない|やめた|廃止|古い|使わない|使ってない|いらない/u;
/** A request to do something: ends in て/で (ください), しよう, にして … but not ので or なくて. */
const PLAN_JA =
  /(?<!の|ん|なく)(?:て|で)(?:ください|くれ|ね|ほしい)?[。.!！]?$|しよう|しましょう|にして|でいい|でお願い/u;

function clauseKindJa(clause: string): ClauseKind {
  const text = clause.trim();
  if (text === "") return "other";
  if (FOR_NOW_JA.test(text) || PLAN_JA.test(text)) return "plan";
  return STATES_JA.test(text) ? "reason" : "other";
}

/** A reason said before the object ("今は yarn を使っているので pnpm"): no part of what to look for. */
const REASON_FIRST_JA = /^(.*?(?:ので|んで|から))[、,\s]*/u;

function withoutReasonJa(object: string): string {
  const reason = REASON_FIRST_JA.exec(object);
  if (!reason || !STATES_JA.test(reason[1])) return object;
  const rest = object.slice(reason[0].length).trim();
  return rest === "" ? object : rest;
}

/**
 * The query of a Japanese "… 忘れて" (the object before it, the clause after it), or null. A
 * sentence that ends in 忘れて forgets unless it holds only for now or the next sentence is a
 * request ("テストのことは忘れて。ビルドを直して。"); one that goes on after 忘れて、 forgets only a
 * saved thing by name with a reason ("Jest のメモは忘れて、もう Vitest に移行した").
 */
export function forgetQueryJa(object: string, clause: string, next: string): string | null {
  if (FOR_NOW_JA.test(object)) return null;
  if (clause === "") return clauseKindJa(next) === "plan" ? null : withoutReasonJa(object);
  return SAVED_THING_JA.test(object) && clauseKindJa(clause) === "reason" ? withoutReasonJa(object) : null;
}
