const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// English, like every other word the CLI prints; "1 day ago", not "yesterday": an age in
// whole units, not a calendar day.
const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "always" });

/**
 * How long before `now` the time `thenMs` was, in words for a person: "just now" within a
 * minute, then minutes, hours, days (under 30), months (30 days each, under a year), years — each
 * counted down to a whole unit ("59 minutes ago" until the hour is full). A time after `now`
 * (a clock ahead, a `modified` in the future) reads "in 3 days". `--json` keeps ISO times.
 *
 * @example relativeAge(Date.parse("2026-11-01T10:00:00Z"), Date.parse("2026-11-03T12:00:00Z")) // "2 days ago"
 */
export function relativeAge(thenMs: number, now: number): string {
  const ago = now - thenMs;
  const size = Math.abs(ago);
  if (size < MINUTE) return "just now";
  const [unit, length]: [Intl.RelativeTimeFormatUnit, number] =
    size < HOUR
      ? ["minute", MINUTE]
      : size < DAY
        ? ["hour", HOUR]
        : size < 30 * DAY
          ? ["day", DAY]
          : size < 365 * DAY
            ? ["month", 30 * DAY]
            : ["year", 365 * DAY];
  const count = Math.floor(size / length);
  return RELATIVE.format(ago > 0 ? -count : count, unit);
}
