import { bulletSection, descriptionFrom, paragraphs, stringList, timeFrom } from "./text.ts";
import type { ImportCandidate, SkippedSource } from "./types.ts";

/**
 * claude-mem's rows as memdir memories (pure; `claude-mem.ts` reads the database). The columns
 * are those of claude-mem's SQLite schema: `observations`, `session_summaries` and `directives`
 * (docs/import.md#claude-mem). A row is a record of column name → value, so a database of an older
 * version, with fewer columns, reads the same.
 *
 * Types: an observation (`decision`, `bugfix`, `feature`, `refactor`, `change`, `discovery`) and a
 * session summary are what happened in and was learned about the project: `project`. A directive
 * is a rule the user gave for every session: `feedback`.
 */
export type Row = Record<string, unknown>;

function text(row: Row, column: string): string {
  const value = row[column];
  return typeof value === "string" ? value.trim() : "";
}

/** The project a row belongs to: where claude-mem merged it, else the one it was recorded in. */
function projectOf(row: Row): string | undefined {
  return text(row, "merged_into_project") || text(row, "project") || undefined;
}

/** One observation → one memory, or why not. */
export function observationCandidate(row: Row): ImportCandidate | SkippedSource {
  const id = String(row.id);
  const label = `claude-mem observation ${id}`;
  const title = text(row, "title");
  const subtitle = text(row, "subtitle");
  const narrative = text(row, "narrative") || text(row, "text");
  const facts = stringList(row.facts);
  const heading = title || narrative.split("\n")[0] || facts[0] || "";
  if (heading === "") return { source: label, reason: "empty: no title, narrative or facts" };
  const concepts = stringList(row.concepts);
  const kind = text(row, "type");
  return {
    key: `claude-mem:observation:${id}`,
    label: title ? `${label} "${title}"` : label,
    type: "project",
    description: descriptionFrom(subtitle && title ? `${title}: ${subtitle}` : heading),
    ...(title ? { title } : {}),
    body: paragraphs(
      narrative,
      bulletSection("Facts:", facts),
      bulletSection("Files read:", stringList(row.files_read)),
      bulletSection("Files modified:", stringList(row.files_modified)),
      [kind ? `Kind: ${kind}` : "", concepts.length > 0 ? `Concepts: ${concepts.join(", ")}` : ""]
        .filter(Boolean)
        .join("\n"),
    ),
    modifiedMs: timeFrom(row.created_at_epoch) ?? timeFrom(row.created_at),
    project: projectOf(row),
  };
}

const SUMMARY_PARTS: readonly [column: string, heading: string][] = [
  ["investigated", "Investigated"],
  ["learned", "Learned"],
  ["completed", "Completed"],
  ["next_steps", "Next steps"],
  ["notes", "Notes"],
];

/** One session summary → one memory, or why not. */
export function summaryCandidate(row: Row): ImportCandidate | SkippedSource {
  const id = String(row.id);
  const label = `claude-mem session summary ${id}`;
  const parts = SUMMARY_PARTS.map(([column, heading]) => [heading, text(row, column)] as const).filter(
    ([, value]) => value !== "",
  );
  if (parts.length === 0) return { source: label, reason: "empty: nothing learned, completed or noted" };
  const request = text(row, "request");
  return {
    key: `claude-mem:summary:${id}`,
    label,
    type: "project",
    description: descriptionFrom(request ? `Session: ${request}` : `Session: ${parts[0][1]}`),
    body: paragraphs(
      request ? `Request: ${request}` : "",
      ...parts.map(([heading, value]) => `${heading}: ${value}`),
      bulletSection("Files edited:", stringList(row.files_edited)),
    ),
    modifiedMs: timeFrom(row.created_at_epoch) ?? timeFrom(row.created_at),
    project: projectOf(row),
  };
}

/** One active directive (a rule re-injected into every session) → one `feedback` memory. */
export function directiveCandidate(row: Row): ImportCandidate | SkippedSource | null {
  const status = text(row, "status");
  if (status !== "" && status !== "active") return null;
  const id = String(row.id);
  const label = `claude-mem directive ${id}`;
  const content = text(row, "content");
  if (content === "") return { source: label, reason: "empty directive" };
  const global = text(row, "scope") === "global" || text(row, "project") === "";
  return {
    key: `claude-mem:directive:${id}`,
    label,
    type: "feedback",
    description: descriptionFrom(content),
    body: content,
    modifiedMs: timeFrom(row.updated_at_epoch) ?? timeFrom(row.created_at_epoch) ?? timeFrom(row.created_at),
    ...(global ? {} : { project: text(row, "project") }),
  };
}
