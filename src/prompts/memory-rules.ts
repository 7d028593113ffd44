import path from "node:path";

// The rules the session-start memory rules and the MCP server's instructions both state, written
// once so the two can never disagree (docs/design.md#memory-rules: one said "save it with memory_save", the other
// "there is no separate remember tool").

/**
 * How a memory is written: the file tools, or memdir's MCP tools where a client has them. The
 * memory dir lies outside the project, where Gemini CLI's file tools refuse to write and Codex's
 * sandbox asks first: there the MCP tools are the way.
 */
export const WRITE_TOOLS_RULE =
  "write to it with your ordinary file tools (Write, Edit), or, where memdir's MCP tools are connected, " +
  "with memory_save (a new memory) and memory_update (a changed one): both go through the same checks. " +
  "Where your file tools may not write outside the workspace (Gemini CLI's, Codex's sandbox), use memory_save and memory_update.";

/** Saving on request. */
export const REMEMBER_RULE =
  "If the user explicitly asks you to remember something, save it immediately, before you go on with anything else, " +
  "unless a memdir line in your context says it is already saved: then it is, and a second save would only repeat it.";

/** What a memory is worth. */
export const POINT_IN_TIME_RULE = "A memory is a note of what was true when it was written.";

/**
 * The MCP server's `instructions` (pure): what memdir is, when to recall, and the shared rules
 * above in the words a client with only the MCP tools needs.
 *
 * @example
 * new McpServer(info, { instructions: mcpServerInstructions() });
 */
export function mcpServerInstructions(): string {
  return [
    "memdir keeps long-term memory for this project: small markdown notes that outlive the conversation.",
    // Tools are named by what they do, not by name: hosts show them prefixed (`memdir_memory_recall`,
    // `memdir__memory_recall`, `mcp__memdir__memory_recall`), so a bare name matches none of them.
    "At the start of a task, call its memory recall tool with the user's request (or its session context tool for",
    "the standing instructions and the index of every memory).",
    `${REMEMBER_RULE} Save a new memory with its memory save tool; change an existing one with its memory update`,
    "tool rather than adding a second one on the same subject, and remove a wrong one with its memory delete tool.",
    `${POINT_IN_TIME_RULE} Check what it says about code before relying on it.`,
  ].join(" ");
}

export interface MemoryRulesOptions {
  /** Absolute path of the auto-memory directory. */
  memoryDir: string;
  /** Mention the shared team folder (`<memoryDir>/team/`) too. */
  teamMemory?: boolean;
}

/**
 * The memory rules for the main agent's system prompt (docs/design.md#memory-rules), in our own words: where memory
 * lives, the four types and when to save each, what never to save, saving on request, the two
 * write steps, updating instead of duplicating, checking old notes against the present, and
 * ignoring memory when asked. Pure: it creates nothing. The caller creates the directory before
 * the session starts (see `loadMemoryRules` in `instructions/memory-rules.ts`), so the model's
 * first write cannot fail on a missing folder.
 *
 * @example
 * const system = `${basePrompt}\n\n${memorySystemPrompt({ memoryDir: location.memoryDir })}`;
 */
export function memorySystemPrompt(options: MemoryRulesOptions): string {
  const memoryDir = options.memoryDir;
  const indexPath = path.join(memoryDir, "MEMORY.md");
  const sections = [
    `# Memory

You keep a long-term memory for this project in the folder \`${memoryDir}\`. It outlives this
conversation: what you save there is available in future conversations with this user. The folder
already exists; ${WRITE_TOOLS_RULE}

\`${indexPath}\` is the index: one line per memory. It is loaded into every new conversation, so
keep it short. The memories themselves are separate files next to it; read one when its index line
suggests it matters for the task at hand.`,

    `## What to save

Each memory has one of four types:

- **user**: who the user is: their role, expertise, preferences and habits. Save it when you learn
  something about the user that should shape how you work with them next time.
- **feedback**: corrections and rules the user gave about how to work ("don't mock the database in
  integration tests", "always run the linter before committing"). Save it when the user corrects
  you or states a rule, together with the reason, so you can judge edge cases later.
- **project**: decisions, goals, constraints, deadlines and context about the work that cannot be
  read from the code itself (why a migration is happening, who depends on what, what was ruled out).
  Save it when you learn such a fact and it will still matter in a later conversation.
- **reference**: pointers to things outside this folder: dashboards, tickets, documents, channels,
  where to look something up. Save it when the user tells you where information lives.`,

    `## What not to save

- Anything that can be re-derived from the code, the git history or the directory tree (which
  files exist, what a function does, who changed what). Read the source instead.
- Ephemeral state of the current task: progress, to-do lists, intermediate results, what you are
  about to do next.
- Anything already written in CLAUDE.md, AGENTS.md or the other instruction files.
- Secrets, ever: API keys, tokens, passwords, private keys, credentials. A memory file is plain
  text on disk; a write that contains a secret is refused.`,

    `## When to save, update or remove

- ${REMEMBER_RULE}
- If the user asks you to forget something, delete its memory file and its line in the index.
- Before you write, look at the index. If a memory on the same subject exists, update that file
  (and its index line) instead of adding a second one. When a new fact contradicts an old memory,
  correct or delete the old one.`,

    `## How to save: two steps

1. Write the memory to its own file in \`${memoryDir}\`, named for its subject (for example
   \`feedback-real-database.md\`), starting with frontmatter:

   \`\`\`markdown
   ---
   description: one line saying what this is and when it is useful
   type: feedback
   ---
   The memory itself. For feedback and project memories, add a "Why:" line with the reason.
   \`\`\`

   \`type\` is one of user, feedback, project, reference. The description is what later decides
   whether this memory is recalled, so make it specific.
2. Add ONE pointer line for it to \`${indexPath}\`:

   \`- [Title](file.md) — one-line hook\`

   The index is for finding memories, never for their content: no details, no multi-line entries.`,

    `## Using memories

- ${POINT_IN_TIME_RULE} Before you act on one that names a file, function, flag or line number,
  check that it still exists and still says that; if the memory is wrong now, fix or delete it.
- Prefer what the user says in this conversation over what a memory says.
- If the user tells you to ignore memory or not to use it, act as if the memory folder were empty:
  do not read it, cite it or let it shape your answer, and do not save anything until they say so.`,
  ];
  if (options.teamMemory) {
    const teamDir = path.join(memoryDir, "team");
    sections.push(`## Team memory

\`${teamDir}\` holds memories shared with the user's team, with its own index
\`${path.join(teamDir, "MEMORY.md")}\`. Save there only what every teammate should know (team
conventions, shared decisions); keep personal preferences in the main folder. Never put anything
private or secret in team memory.`);
  }
  return sections.join("\n\n");
}
