import path from "node:path";

export interface ConsolidationPromptOptions {
  /** Absolute path of the memory dir the agent works on (a scratch copy in propose mode). */
  memoryDir: string;
  /** The manifest of existing memories (`formatManifest`), newest first. */
  manifest: string;
  /** Session ids changed since the last consolidation, newest first. */
  recentSessions: readonly string[];
  /** ISO date of today, for turning relative dates into absolute ones. */
  today: string;
  /** When the last consolidation ran (ISO), or null for the first one. */
  lastConsolidatedAt: string | null;
  indexMaxLines: number;
  indexMaxBytes: number;
  /**
   * Memories whose anchors (project files and symbols they name) vanished or changed, one line
   * each (`- file.md: src/auth/login.ts no longer exists`): looked at first (docs/design.md#stale-anchors).
   */
  stale?: readonly string[];
}

/**
 * The task of the consolidating agent (docs/design.md#the-consolidation-run), in our own words: orient, gather, consolidate,
 * prune and re-index, then a short summary. Pure text.
 *
 * @example
 * const prompt = consolidationPrompt({ memoryDir, manifest, recentSessions, today: "2026-03-01", … });
 */
export function consolidationPrompt(options: ConsolidationPromptOptions): string {
  const indexPath = path.join(options.memoryDir, "MEMORY.md");
  const sessions =
    options.recentSessions.length === 0
      ? "(no session changed since then)"
      : options.recentSessions.map((id) => `- ${id}`).join("\n");
  const since = options.lastConsolidatedAt
    ? `since the last consolidation (${options.lastConsolidatedAt})`
    : "(this is the first consolidation)";
  return `# Memory consolidation

You are tidying the long-term memory of this project. It lives in \`${options.memoryDir}\`: one
markdown file per memory (YAML frontmatter with \`description\` and \`type\`: user, feedback,
project or reference) and the index \`${indexPath}\`, one line per memory in the form
\`- [Title](file.md) — short hook\`. Future conversations load the index first and open a memory
only when its line looks relevant, so the index must be accurate and short, and each memory must
say one thing clearly. Today is ${options.today}.

Work in four steps.

## 1. Orient

Read the index and the memory files you may change. The existing memories (newest first):

${options.manifest || "(none)"}
${staleSection(options.stale ?? [])}
## 2. Gather

Look for what has changed in recent work. Sessions ${since}, newest first:

${sessions}

Search them with SearchTranscripts using narrow queries (a name, a term, a date from a memory),
recent sessions first. Never try to read a transcript whole; a handful of targeted searches is
enough. Only what the user said or confirmed counts as evidence.

## 3. Consolidate

- Merge memories that say the same thing into one file; delete the others with the Delete tool.
- Rewrite relative dates ("yesterday", "next Friday", "last week") as absolute dates (YYYY-MM-DD),
  working them out from the memory's file time or the session where they were said.
- Delete or correct a memory when a later session contradicts it; keep the newer fact.
- Keep the frontmatter valid: every memory keeps a one-line \`description\` that says when it is
  useful, and a \`type\`.
- Do not add facts nobody stated, and do not save what the code or git history already shows.

## 4. Prune and re-index

Rewrite \`${indexPath}\` so that it has exactly one short line per memory file: drop lines that
point at files that no longer exist, add lines for memory files that have none, and resolve lines
that contradict each other. Keep it under ${options.indexMaxLines} lines and ${options.indexMaxBytes} bytes;
when it is long, merge or remove the least useful memories rather than cutting lines short.

Only files inside \`${options.memoryDir}\` may be written or deleted; anything else will be refused.
Read what you may touch first, then write. If nothing needs to change, change nothing.

Finish with a short summary (a few lines): what you merged, corrected, deleted and re-indexed.`;
}

function staleSection(stale: readonly string[]): string {
  if (stale.length === 0) return "";
  return `
Look at these first: they name project files or symbols that vanished or changed since they were
saved, so they may no longer be true. Check the code, then correct, narrow or delete them.

${stale.join("\n")}
`;
}
