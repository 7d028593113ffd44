import fs from "node:fs";
import path from "node:path";

/**
 * Small samples of each source format `memdir import` reads, written the way each tool writes
 * them (docs/import.md). Every sample holds the same kind of content: facts a user would expect
 * to find as memories afterwards.
 */

/** 2025-03-04T05:06:07.000Z: the date the samples' sources recorded. */
export const SOURCE_TIME = Date.UTC(2025, 2, 4, 5, 6, 7);

// claude-mem's tables as its schema declares them (src/services/sqlite/schema.sql there), the
// columns an import reads and those around them.
const CLAUDE_MEM_SCHEMA = `
CREATE TABLE sdk_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, content_session_id TEXT UNIQUE NOT NULL,
  memory_session_id TEXT UNIQUE, project TEXT NOT NULL, platform_source TEXT NOT NULL DEFAULT 'claude',
  user_prompt TEXT, started_at TEXT NOT NULL, started_at_epoch INTEGER NOT NULL, completed_at TEXT,
  completed_at_epoch INTEGER, status TEXT NOT NULL DEFAULT 'active', worker_port INTEGER,
  prompt_counter INTEGER DEFAULT 0, custom_title TEXT);
CREATE TABLE observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, memory_session_id TEXT NOT NULL, project TEXT NOT NULL,
  text TEXT, type TEXT NOT NULL, title TEXT, subtitle TEXT, facts TEXT, narrative TEXT, concepts TEXT,
  files_read TEXT, files_modified TEXT, prompt_number INTEGER, discovery_tokens INTEGER DEFAULT 0,
  content_hash TEXT, agent_type TEXT, agent_id TEXT, merged_into_project TEXT, generated_by_model TEXT,
  metadata TEXT, created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL,
  UNIQUE(memory_session_id, content_hash));
CREATE TABLE session_summaries (
  id INTEGER PRIMARY KEY AUTOINCREMENT, memory_session_id TEXT NOT NULL, project TEXT NOT NULL,
  request TEXT, investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT, files_read TEXT,
  files_edited TEXT, notes TEXT, prompt_number INTEGER, discovery_tokens INTEGER DEFAULT 0,
  merged_into_project TEXT, created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL);
CREATE TABLE directives (
  id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL DEFAULT 'global', project TEXT,
  content TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'active', source TEXT NOT NULL DEFAULT 'manual',
  created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL, updated_at_epoch INTEGER NOT NULL);
`;

export interface ClaudeMemObservation {
  project: string;
  type?: string;
  title: string;
  subtitle?: string;
  narrative: string;
  facts?: string[];
  concepts?: string[];
  filesModified?: string[];
  mergedInto?: string;
}

/** Writes a claude-mem database at `file` with these rows (built with sql.js, as the reader reads it). */
export async function writeClaudeMemDb(
  file: string,
  rows: {
    observations: ClaudeMemObservation[];
    summaries?: {
      project: string;
      request: string;
      learned: string;
      completed?: string;
      nextSteps?: string;
    }[];
    directives?: { content: string; scope?: string; project?: string; status?: string }[];
  },
): Promise<void> {
  const { default: initSqlJs } = await import("sql.js");
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(CLAUDE_MEM_SCHEMA);
  const at = new Date(SOURCE_TIME).toISOString();
  db.run(
    "INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, started_at, started_at_epoch) VALUES (?, ?, ?, ?, ?)",
    ["content-1", "memory-1", "shop", at, SOURCE_TIME],
  );
  for (const [index, o] of rows.observations.entries())
    db.run(
      `INSERT INTO observations (memory_session_id, project, type, title, subtitle, narrative, facts, concepts,
        files_read, files_modified, merged_into_project, content_hash, created_at, created_at_epoch)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        "memory-1",
        o.project,
        o.type ?? "discovery",
        o.title,
        o.subtitle ?? null,
        o.narrative,
        JSON.stringify(o.facts ?? []),
        JSON.stringify(o.concepts ?? []),
        JSON.stringify([]),
        JSON.stringify(o.filesModified ?? []),
        o.mergedInto ?? null,
        `hash-${index}`,
        at,
        SOURCE_TIME,
      ],
    );
  for (const s of rows.summaries ?? [])
    db.run(
      `INSERT INTO session_summaries (memory_session_id, project, request, learned, completed, next_steps,
        created_at, created_at_epoch) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        "memory-1",
        s.project,
        s.request,
        s.learned,
        s.completed ?? null,
        s.nextSteps ?? null,
        at,
        SOURCE_TIME,
      ],
    );
  for (const d of rows.directives ?? [])
    db.run(
      `INSERT INTO directives (scope, project, content, status, created_at, created_at_epoch, updated_at_epoch)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [d.scope ?? "global", d.project ?? null, d.content, d.status ?? "active", at, SOURCE_TIME, SOURCE_TIME],
    );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, db.export());
  db.close();
}

/** The MCP reference memory server's memory.jsonl: entities and relations, one JSON object a line. */
export function mcpMemoryJsonl(): string {
  return [
    {
      type: "entity",
      name: "Ada_Lovelace",
      entityType: "person",
      observations: ["Prefers pnpm over npm", "Works on the billing service"],
    },
    {
      type: "entity",
      name: "billing-service",
      entityType: "project",
      observations: ["Deploys from the release branch every Tuesday"],
    },
    { type: "relation", from: "Ada_Lovelace", to: "billing-service", relationType: "works_on" },
  ]
    .map((item) => JSON.stringify(item))
    .join("\n");
}

/** ~/.gemini/GEMINI.md (or QWEN.md) with the user's own text and the save_memory section. */
export function addedMemoriesFile(tool: "Gemini" | "Qwen"): string {
  return [
    "# My instructions",
    "",
    "- Always answer in English (the user's own text, not a saved memory)",
    "",
    `## ${tool} Added Memories`,
    "- The user's favourite editor is Helix",
    "- The staging database lives on db-staging.internal and is reset every night",
    "",
  ].join("\n");
}

/** A mem0 get_all result, `{results: […]}` shaped. */
export function mem0Export(): string {
  return JSON.stringify({
    results: [
      {
        id: "8f1c2a9e-0000-4000-8000-000000000001",
        memory: "Is allergic to peanuts",
        hash: "h1",
        metadata: null,
        created_at: "2025-03-04T05:06:07+00:00",
        updated_at: null,
        user_id: "ada",
      },
      {
        id: "8f1c2a9e-0000-4000-8000-000000000002",
        memory: "Prefers code reviews in the morning",
        hash: "h2",
        metadata: { type: "feedback" },
        created_at: "2025-03-04T05:06:07+00:00",
        updated_at: null,
        user_id: "ada",
      },
    ],
  });
}

/** An Obsidian/basic-memory folder: notes with frontmatter, one without, a hidden folder. */
export function markdownNotes(): Record<string, string> {
  return {
    "Deploy checklist.md":
      "---\ntitle: Deploy checklist\ntype: note\ntags: [ops]\nupdated: 2025-03-04T05:06:07.000Z\n---\n# Deploy checklist\n\n1. Run the migrations first.\n2. Then roll the web nodes one by one.\n",
    "people/ada.md":
      "---\ndescription: Ada owns the billing service\ntype: user\nmodified: 2025-03-04T05:06:07.000Z\n---\nAsk Ada before changing invoices.\n",
    ".obsidian/workspace.md": "not a note\n",
  };
}
