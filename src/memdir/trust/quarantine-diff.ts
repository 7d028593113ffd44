/**
 * What a write adds that the quarantine must read (docs/design.md#quarantine): the findings of
 * the new text that the old text did not have, compared by intent and matched words, not by
 * line. Text a user already accepted is not flagged again, wherever it moves; a sentence newly
 * formed from old lines (reordered so that two harmless halves meet) is a new finding.
 *
 * The result is that of running the rules on the whole old text and the whole new text, without
 * reading every sentence of a large file (a 20,000-line index) on each write: the rules read
 * sentences, and no sentence crosses a hard line break, so a text is cut into units at its hard
 * breaks, the units both texts hold (as a multiset) are left out, and the rest is read on both
 * sides. Of the rules that read across hard breaks, a paired tag (`<system>…</system>`) makes the
 * lines it spans one unit, and role lines taking turns see every role line of each text (they are
 * kept beside the units read).
 */
import { findInstructions, type QuarantineFinding } from "./quarantine.ts";
import { PAIRED_ROLE_TAG, ROLE_LINE } from "./quarantine-rules.ts";
import { isSoftBreak, normalizedLines } from "./quarantine-text.ts";

const ROLE_LINE_TEST = new RegExp(ROLE_LINE.source, ROLE_LINE.flags.replace("g", ""));

/** The findings `after` has and `before` had not, with their lines in `after`, and the text they were read in. */
export function newInstructions(
  before: string | null,
  after: string,
): { findings: QuarantineFinding[]; text: string } {
  if (before === null || before === "") return { findings: findInstructions(after), text: after };
  if (before === after) return { findings: [], text: "" };
  const old = sideOf(before);
  const next = sideOf(after);
  leaveOutShared(old, next);
  leaveOutShared(next, old);
  const oldScan = scanOf(old);
  const newScan = scanOf(next);
  const known = new Map<string, number>();
  for (const finding of findInstructions(oldScan.text)) {
    const key = findingKey(finding);
    known.set(key, (known.get(key) ?? 0) + 1);
  }
  const findings: QuarantineFinding[] = [];
  for (const finding of findInstructions(newScan.text)) {
    const key = findingKey(finding);
    const count = known.get(key) ?? 0;
    if (count > 0) {
      known.set(key, count - 1);
      continue;
    }
    findings.push({ ...finding, line: newScan.lineOf[finding.line - 1] + 1 });
  }
  return { findings, text: newScan.text };
}

function findingKey(finding: QuarantineFinding): string {
  return `${finding.intent}\u0000${finding.match}`;
}

interface Side {
  raw: string[];
  normalized: string[];
  /** Each unit (lines between hard breaks) as [start, end) and its raw text. */
  units: { start: number; end: number; key: string; shared: boolean }[];
}

function sideOf(text: string): Side {
  const raw = text.split("\n");
  const normalized = normalizedLines(text);
  const bound = pairedTagLines(normalized);
  const units: Side["units"] = [];
  let start = 0;
  for (let i = 0; i < raw.length; i++) {
    if (i < raw.length - 1 && (bound[i] === 1 || isSoftBreak(normalized[i], normalized[i + 1]))) continue;
    units.push({ start, end: i + 1, key: raw.slice(start, i + 1).join("\n"), shared: false });
    start = i + 1;
  }
  return { raw, normalized, units };
}

/**
 * Per line, 1 when a paired tag (`<system>…</system>`) the rule finds in the whole text goes on
 * past it: the tag rule reads across hard breaks, so the lines a pair spans are one unit.
 */
function pairedTagLines(normalized: readonly string[]): Uint8Array {
  const bound = new Uint8Array(normalized.length);
  const text = normalized.join("\n");
  if (!text.includes("<")) return bound;
  const starts: number[] = [];
  let offset = 0;
  for (const line of normalized) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const lineAt = (index: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  for (const match of text.matchAll(PAIRED_ROLE_TAG)) {
    const last = lineAt(match.index + match[0].length - 1);
    for (let line = lineAt(match.index); line < last; line++) bound[line] = 1;
  }
  return bound;
}

/** Marks the units of `side` that `other` holds too, each of `other`'s used once. */
function leaveOutShared(side: Side, other: Side): void {
  const counts = new Map<string, number>();
  for (const unit of other.units) counts.set(unit.key, (counts.get(unit.key) ?? 0) + 1);
  for (const unit of side.units) {
    const count = counts.get(unit.key) ?? 0;
    if (count === 0) continue;
    counts.set(unit.key, count - 1);
    unit.shared = true;
  }
}

/**
 * The text the rules read for one side: its units not shared, and every role line (the one rule
 * that reads across units asks which roles the whole text has), each run of lines in its place
 * apart from the next by one blank line (a hard break, as the lines left out between them were).
 * `lineOf` maps each line of the text to its 0-based line in the side.
 */
function scanOf(side: Side): { text: string; lineOf: number[] } {
  const keep = new Uint8Array(side.raw.length);
  for (const unit of side.units) if (!unit.shared) keep.fill(1, unit.start, unit.end);
  side.normalized.forEach((line, index) => {
    if (ROLE_LINE_TEST.test(line)) keep[index] = 1;
  });
  const lines: string[] = [];
  const lineOf: number[] = [];
  for (let i = 0; i < side.raw.length; i++) {
    if (!keep[i]) continue;
    if (lines.length > 0 && !keep[i - 1]) {
      lines.push("");
      lineOf.push(i - 1);
    }
    lines.push(side.raw[i]);
    lineOf.push(i);
  }
  return { text: lines.join("\n"), lineOf };
}
