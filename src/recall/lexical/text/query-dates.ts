/**
 * The dates a query names ("May 4th", "2023-05-04", "5月4号", "yesterday", "上周", "先週", "two
 * days ago"), resolved against the query's time into spans of local calendar time. The date
 * stage (stage-date.ts) gives evidence to memories saved in a span (docs/design.md#dates-in-queries).
 *
 * Days, weekdays and month names come from chrono-node (English, Chinese and Japanese parsers);
 * the relative periods chrono leaves out or gets wrong in Chinese and Japanese (上周, 先週, 上个月,
 * 两天前, 一昨日) and the calendar-period words of every language ("last week" is the Monday–Sunday
 * week before this one, not the single day chrono names) are the small rules in
 * {@link PERIOD_RULES}. chrono is loaded only for a query that may name a date.
 */

import {
  isHypothetical,
  isLowercaseVerbMonth,
  isPastTense,
  namesThePresent,
  VAGUE_AGO,
} from "./date-sense.ts";

/** One date or period a query names. */
export interface DateSpan {
  /** The words of the query it came from ("May 4th", "上周"). */
  text: string;
  /** Start (inclusive) and end (exclusive), in ms, of the span in local time. */
  startMs: number;
  endMs: number;
  /**
   * The query named a month or day without a year ("May 4", "5月4号", "in June"): the span is
   * given in the query's year and matches the same days of any year (a memory dir seldom spans
   * more than a year, and the selector does not know which year the speaker had in mind).
   */
  everyYear: boolean;
}

const DAY_MS = 86_400_000;

/**
 * Cheap test before chrono loads and parses (~0.5 ms a query): a date-like number (2023-05-04,
 * 5/4, 4th, 5月, 4日) or a word that can name a day. Any other digit ("fix the 3 failing
 * tests") is no reason to parse.
 */
const MAY_NAME_A_DATE = new RegExp(
  [
    String.raw`\d{4}-\d{1,2}-\d{1,2}`,
    String.raw`\b\d{1,2}/\d{1,2}\b`,
    String.raw`\b\d{1,2}(?:st|nd|rd|th)\b`,
    String.raw`[0-9一二两兩三四五六七八九十]\s*(?:月|日|号|號)`,
    String.raw`\b(?:yesterday|today|tonight|tomorrow|ago|(?:mon|tues|wednes|thurs|fri|satur|sun)day|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b`,
    "昨|今天|今日|明天|明日|前天|星期|礼拜|禮拜|曜日",
  ].join("|"),
  "i",
);

const NUMERALS: Record<string, number> = {
  一: 1,
  二: 2,
  两: 2,
  兩: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};

type Period = "day" | "week" | "weekend" | "month" | "year";

/**
 * Relative periods, by rule: `offset` periods from the one holding the reference time (−1: the
 * one before). A week runs Monday to Sunday (ISO 8601, the usual week in China and Japan); a
 * weekend is that week's Saturday and Sunday. `daysAgo` rules read their count from the match.
 */
const PERIOD_RULES: readonly { pattern: RegExp; period: Period; offset: number | "daysAgo" }[] = [
  { pattern: /\blast weekend\b/gi, period: "weekend", offset: -1 },
  {
    pattern: /\blast week\b|上(?:个|個)?(?:周|週|星期|礼拜|禮拜)(?![一二三四五六日天])|先週/gi,
    period: "week",
    offset: -1,
  },
  {
    pattern: /\bthis week\b|(?:这|這|本)(?:个|個)?(?:周|週|星期|礼拜|禮拜)(?![一二三四五六日天])|今週/gi,
    period: "week",
    offset: 0,
  },
  { pattern: /\blast month\b|上(?:个|個)?月|先月/gi, period: "month", offset: -1 },
  { pattern: /\bthis month\b|(?:这|這|本)(?:个|個)?月|今月/gi, period: "month", offset: 0 },
  { pattern: /\blast year\b|去年|昨年/gi, period: "year", offset: -1 },
  { pattern: /\bthis year\b|今年/gi, period: "year", offset: 0 },
  { pattern: /大前天/g, period: "day", offset: -3 },
  { pattern: /前天|一昨日/g, period: "day", offset: -2 },
  { pattern: /([0-9]+|[一二两兩三四五六七八九十])\s*(?:天|日)前/g, period: "day", offset: "daysAgo" },
];

/**
 * The dates `query` names, resolved against `nowMs` (the query's time). Empty when it names none
 * (then ranking is exactly as without dates).
 *
 * @example
 * await queryDates("What book did I read on May 6th?", Date.parse("2023-05-10T12:00:00"))
 * // [{ text: "May 6th", startMs: <2023-05-06 00:00>, endMs: <2023-05-07 00:00>, everyYear: true }]
 */
export async function queryDates(query: string, nowMs: number): Promise<DateSpan[]> {
  // What the date stage may not read as a memory's time (date-sense.ts): a hypothetical's date,
  // a vague count, "today" in a present-tense request, "march" the verb.
  // Asked only of a query that names a date: most prompts name none and pay one regex, as before.
  let hypotheticalMemo: boolean | undefined;
  let pastMemo: boolean | undefined;
  const hypothetical = () => (hypotheticalMemo ??= isHypothetical(query));
  const past = () => (pastMemo ??= isPastTense(query));
  const spans: DateSpan[] = [];
  // The rules first; what they matched is blanked so the parsers do not read it a second time.
  let rest = query.replace(VAGUE_AGO, (text) => " ".repeat(text.length));
  for (const rule of PERIOD_RULES) {
    rest = rest.replace(rule.pattern, (text: string, ...groups: unknown[]) => {
      const count = String(groups[0]);
      const offset = rule.offset === "daysAgo" ? -(NUMERALS[count] ?? Number(count)) : rule.offset;
      if (Number.isFinite(offset) && !hypothetical() && (past() || !namesThePresent(text)))
        spans.push({ text, ...periodSpan(nowMs, rule.period, offset), everyYear: false });
      return " ".repeat(text.length);
    });
  }
  if (!MAY_NAME_A_DATE.test(rest) || hypothetical()) return spans;
  const reference = new Date(nowMs);
  const seen = new Set(spans.map((span) => span.text));
  for (const parse of await parsersFor(rest)) {
    for (const result of parse(rest, reference)) {
      if (seen.has(result.text) || isLowercaseVerbMonth(result.text)) continue;
      if (!past() && namesThePresent(result.text)) continue;
      const span = spanOf(result, nowMs);
      if (span === null) continue;
      seen.add(result.text);
      spans.push(span);
    }
  }
  return spans;
}

/** What this module reads of a chrono result. */
interface ParsedDate {
  text: string;
  start: ParsedComponents;
  end?: ParsedComponents | null;
}
interface ParsedComponents {
  isCertain(component: "year" | "month" | "day" | "weekday"): boolean;
  date(): Date;
}
type DateParser = (text: string, reference: Date) => ParsedDate[];

/** The chrono parsers for the scripts `text` uses (English for Latin text, Chinese and Japanese for Han and kana). */
async function parsersFor(text: string): Promise<DateParser[]> {
  const parsers: DateParser[] = [];
  if (/[a-z0-9]/i.test(text)) {
    const en = await import("chrono-node/en");
    parsers.push((input, reference) => en.casual.parse(input, reference));
  }
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) {
    const zh = await import("chrono-node/zh");
    const ja = await import("chrono-node/ja");
    parsers.push((input, reference) => zh.parse(input, reference));
    parsers.push((input, reference) => ja.parse(input, reference));
  }
  return parsers;
}

/**
 * A parsed date as a span of whole days: the named day (or month, when no day was named), up to
 * the end of a named range. A bare weekday is the latest such day on or before the query (a
 * question looks back); a time alone ("at 2 pm") is no date.
 */
function spanOf(result: ParsedDate, nowMs: number): DateSpan | null {
  const start = result.start;
  const named = (["year", "month", "day", "weekday"] as const).filter((part) => start.isCertain(part));
  if (named.length === 0) return null;
  const weekdayOnly = named.length === 1 && named[0] === "weekday";
  const monthOnly = !start.isCertain("day") && !weekdayOnly && start.isCertain("month");
  const everyYear =
    !start.isCertain("year") && !weekdayOnly && (start.isCertain("month") || start.isCertain("day"));
  let startMs = dayStart(start.date().getTime());
  if (weekdayOnly && startMs > nowMs) startMs -= 7 * DAY_MS;
  let endMs = monthOnly ? periodSpan(startMs, "month", 0).endMs : addDays(startMs, 1);
  if (!start.isCertain("month") && !start.isCertain("day") && !weekdayOnly)
    endMs = periodSpan(startMs, "year", 0).endMs;
  if (result.end) endMs = Math.max(endMs, addDays(dayStart(result.end.date().getTime()), 1));
  return { text: result.text, startMs, endMs, everyYear };
}

/** The period `offset` periods from the one holding `timeMs`, in local time. */
function periodSpan(timeMs: number, period: Period, offset: number): { startMs: number; endMs: number } {
  const date = new Date(timeMs);
  if (period === "year") {
    const year = date.getFullYear() + offset;
    return { startMs: new Date(year, 0, 1).getTime(), endMs: new Date(year + 1, 0, 1).getTime() };
  }
  if (period === "month") {
    const month = date.getMonth() + offset;
    return {
      startMs: new Date(date.getFullYear(), month, 1).getTime(),
      endMs: new Date(date.getFullYear(), month + 1, 1).getTime(),
    };
  }
  if (period === "day") {
    const startMs = addDays(dayStart(timeMs), offset);
    return { startMs, endMs: addDays(startMs, 1) };
  }
  // Monday of this week: getDay() is 0 on Sunday.
  const monday = addDays(dayStart(timeMs), -((date.getDay() + 6) % 7) + 7 * offset);
  if (period === "weekend") return { startMs: addDays(monday, 5), endMs: addDays(monday, 7) };
  return { startMs: monday, endMs: addDays(monday, 7) };
}

/** Local midnight starting the day of `timeMs`. */
function dayStart(timeMs: number): number {
  const date = new Date(timeMs);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** `days` calendar days after `dayMs` (a local midnight), across daylight-saving changes. */
function addDays(dayMs: number, days: number): number {
  const date = new Date(dayMs);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days).getTime();
}

/** Whether a save time falls in `span` (for an `everyYear` span: the same days in the save's year). */
export function savedInSpan(span: DateSpan, savedMs: number): boolean {
  if (!span.everyYear) return savedMs >= span.startMs && savedMs < span.endMs;
  const saved = new Date(savedMs);
  const spanYear = new Date(span.startMs).getFullYear();
  const shifted = new Date(savedMs);
  shifted.setFullYear(spanYear, saved.getMonth(), saved.getDate());
  return shifted.getTime() >= span.startMs && shifted.getTime() < span.endMs;
}

/** How `--explain` names a span: one day `2023-05-04`, a range `2023-05-01…2023-05-07` (`05-04` in any year). */
export function spanLabel(span: DateSpan): string {
  const day = (ms: number) => {
    const date = new Date(ms);
    const text = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
    return span.everyYear ? text.slice(5) : text;
  };
  const last = addDays(span.endMs, -1);
  return last <= span.startMs ? day(span.startMs) : `${day(span.startMs)}…${day(last)}`;
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}
