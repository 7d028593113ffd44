import { usageError } from "./common.ts";

const HOUR = 3_600_000;
const UNIT_MS: Record<string, number> = { h: HOUR, d: 24 * HOUR, w: 7 * 24 * HOUR };

/**
 * The time `--since` means, in ms (pure; `now` passed in): a date `2026-11-01` (its start, local
 * time), a date and time in ISO form (`2026-11-01T09:30`, local unless it has a zone), an age
 * `12h` / `7d` / `2w` (that long before `now`), or `today` / `yesterday` (the day's start, local
 * time). Anything else is a usage error that says what is accepted.
 *
 * @example sinceTime("7d", now) // now - 7 days
 */
export function sinceTime(text: string, now: number): number {
  const given = text.trim().toLowerCase();
  const age = /^(\d+)\s*([hdw])$/.exec(given);
  if (age) return now - Number(age[1]) * UNIT_MS[age[2]];
  if (given === "today" || given === "yesterday") {
    const day = new Date(now);
    return new Date(day.getFullYear(), day.getMonth(), day.getDate() - (given === "today" ? 0 : 1)).getTime();
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(given);
  if (date) {
    const [year, month, dayOfMonth] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const start = new Date(year, month - 1, dayOfMonth);
    // new Date(2026, 1, 30) is March 2nd: a date that does not exist is refused, not moved.
    if (start.getFullYear() === year && start.getMonth() === month - 1 && start.getDate() === dayOfMonth)
      return start.getTime();
  } else if (/^\d{4}-\d{2}-\d{2}t\d{2}:\d{2}/.test(given)) {
    const time = Date.parse(text.trim());
    if (Number.isFinite(time)) return time;
  }
  throw usageError(
    `--since takes a date (2026-11-01), a date and time (2026-11-01T09:30), an age (12h, 7d, 2w), today or yesterday; not ${JSON.stringify(text)}`,
  );
}
