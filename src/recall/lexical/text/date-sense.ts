/**
 * Whether a date a query names is the time of what it asks about — the time a memory of it was
 * saved — or only words that look like a date (docs/design.md#dates-in-queries). The date stage
 * doubles the score of a memory saved in a named span, so a false date costs the question's real
 * answer its place; each rule below names the kind of question it keeps the stage out of.
 */

/**
 * A count that is no count: "a few years ago", "几年前", "数年前". chrono reads these as one
 * definite day, and the day it picks is a guess.
 */
export const VAGUE_AGO =
  /\b(?:a\s+few|few|several|some|many|a\s+couple\s+(?:of\s+)?|couple\s+of)\s+(?:days?|weeks?|months?|years?)\s+ago\b|[几幾](?:天|日|周|週|个?星期|個?星期|个?月|個?月|年)(?:以)?前|(?:数|何)(?:日|週間|か月|ヶ月|カ月|年)(?:か)?前/gi;

/**
 * A question about what would, might or will happen, or what someone plans ("Which states might
 * Tim be in during September?", "Would she enjoy a Sunday hike?", "我下个月应该用什么"): its date
 * names when the thing happens, not when anyone said it, and the memory that tells the plan was
 * saved before. "Could you…" and "would you…" are politeness, not a hypothesis.
 */
const HYPOTHETICAL =
  /\b(?:would|might|could|should|will|shall)\b(?!\s+you\b)|\b(?:likely|probably|plans?|planning|planned|going\s+to|intends?|intending)\b|应该|應該|可能|打算|计划|計劃|准备|準備|将要|將要|会不会|會不會|也许|也許|だろう|でしょう|かもしれ|予定|つもり|べき/i;

/** Whether `query` asks what would, might or will happen (its dates are the event's, not a memory's). */
export function isHypothetical(query: string): boolean {
  return HYPOTHETICAL.test(query);
}

/**
 * Words that mark a question about the past: an English past tense or a past auxiliary, Chinese
 * 了/过, a Japanese past ending (〜た, 〜でした). Words ending in -ed that are not past tenses
 * ("need", "speed", "embed") are listed out.
 */
const PAST =
  /\b(?:did|was|were|had|happened|went|said|told|made|got|came|saw|wrote|ate|met|bought|took|gave|found|ran|left|sent|began|broke|chose|drove|flew|forgot|knew|lost|paid|read|spent|thought|won)\b|\b(?!(?:need|speed|embed|bleed|breed|proceed|exceed|succeed|indeed|feed|seed|shed|heed|weed|bed|red)\b)\w{2,}ed\b|了|过|過|(?:った|いた|した|んだ|ました|でした|だった)(?:か|の|ね|よ|[?？。!！]|\s|$)/i;

/** Whether `query` is worded in the past tense. */
export function isPastTense(query: string): boolean {
  return PAST.test(query);
}

/**
 * A date that is "now" rather than a day in the past: today, tonight, this morning, a bare
 * weekday, this week/month/year, 今天, 今日, 今晚. In a present-tense request ("what do we use today
 * to deploy", "我今天应该…", "Friday deploys") it means "currently" or "every Friday", and a memory
 * saved today is no better an answer for it (recency already breaks ties); in a past-tense
 * question ("what did I fix today") it is the day asked about.
 */
const NOW_WORDS =
  /^(?:today|tonight|now|this\s+(?:morning|afternoon|evening|week|weekend|month|year)|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day(?:\s+(?:morning|afternoon|evening|night))?|(?:星期|礼拜|禮拜|周|週)[一二三四五六日天]|[月火水木金土日]曜日?|今天|今日|今晚|今夜|本日|今朝|(?:这|這|本)(?:个|個)?(?:周|週|星期|礼拜|禮拜|月)|今週|今月|今年)$/i;

/** Whether the date words `text` name the present (a day relative to now that the question may not look back at). */
export function namesThePresent(text: string): boolean {
  return NOW_WORDS.test(text.trim());
}

/**
 * A month name that is also a verb or a modal ("march", "may"): a date only when capitalized or
 * beside a number ("may 4", "march 2023").
 */
export function isLowercaseVerbMonth(text: string): boolean {
  return /^(?:march|may)$/.test(text.trim());
}
