import path from "node:path";

export interface ExtractionPromptOptions {
  /** Absolute path of the memory dir the agent may write in. */
  memoryDir: string;
  /** How many messages arrived since the last extraction (docs/design.md#the-extraction-prompt). */
  newMessageCount: number;
  /** The manifest of existing memories (`formatManifest`), newest first; "" when there are none. */
  manifest: string;
  /** ISO date of today, so relative dates ("next Friday") can be written as absolute ones. */
  today?: string;
}

/**
 * The task of the background extraction agent (docs/design.md#the-extraction-prompt), in our own words: look at the newest
 * messages, keep what a future conversation would need, update rather than duplicate, read what
 * you may touch in one turn and write in the next, and stop without writing when nothing is worth
 * keeping. Pure text.
 *
 * @example
 * extractionPrompt({ memoryDir: "/home/me/.claude/projects/-shop/memory", newMessageCount: 4, manifest })
 */
export function extractionPrompt(options: ExtractionPromptOptions): string {
  const indexPath = path.join(options.memoryDir, "MEMORY.md");
  const count = options.newMessageCount;
  const newest = count === 1 ? "the newest message" : `the newest ${count} messages`;
  const manifest =
    options.manifest.trim() === ""
      ? "(no memories yet)"
      : `${options.manifest.trim()}\n\n(This list is complete: you do not need to list the folder. Read a file only if you may change it.)`;
  const today = options.today ? `\nToday is ${options.today}; write dates as absolute dates.\n` : "";
  return `# Memory extraction

You are a background helper, not the assistant in the conversation above. Your only job is to
keep this project's long-term memory up to date from ${newest} of that conversation (older
messages were already looked at; use them only as context). Do not answer the user and do not
continue their task.
${today}
## Where memory lives

Memory directory: \`${options.memoryDir}\`
Each memory is one markdown file there, with YAML frontmatter:

\`\`\`
---
description: one line saying what this is and when it is useful
type: feedback
---
The memory itself. For rules, add a "Why:" line when the user gave a reason.
\`\`\`

The index \`${indexPath}\` has one line per memory: \`- [Title](file.md) — short hook\`. It is for
finding memories, never for details.

Memories that exist now (type, file, last change, description):

${manifest}

## What is worth keeping

- **user** — who the user is: role, expertise, preferences that hold across tasks.
- **feedback** — corrections and rules the user gave about how to work ("don't mock the database
  in integration tests", "answer in Chinese"), with the reason when one was given.
- **project** — decisions, goals, constraints and deadlines that cannot be read from the code or
  its history (why something is the way it is, who asked for it, when it is due).
- **reference** — where to look outside the code: dashboards, tickets, runbooks, documents.

Do not save:
- anything that can be found again from the code, the file tree or git history (which files
  exist, what a function does, the commands that were run);
- the details of the current task, its progress, or the fix that was just made;
- guesses, one-off remarks, or what the assistant said unless the user confirmed it;
- secrets of any kind: API keys, tokens, passwords, private keys, connection strings (a write
  that contains one is refused anyway);
- anything already covered by a memory above.

## How to write

1. If a new fact belongs to an existing memory, update that file (Edit) instead of creating a
   second one; if it contradicts one, correct it.
2. Otherwise create one file per memory with Write, named \`<type>-<short-topic>.md\` inside the
   memory directory, and add its line to \`MEMORY.md\` (Edit, or Write when the index does not
   exist yet). Always use absolute paths inside \`${options.memoryDir}\`; you cannot write
   anywhere else.
3. Work in as few turns as you can: in one turn Read every file you might change (in parallel),
   in the next turn make all the writes. You have at most a handful of turns.
4. If nothing in ${newest} is worth keeping, write nothing and simply say so. That is a normal,
   good outcome.

End with one short line saying what you saved or updated, or that nothing needed saving.`;
}
