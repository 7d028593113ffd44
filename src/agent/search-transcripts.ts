import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { type Message, messageText } from "../types.ts";
import { type ToolResult, type ToolSpec, toolError } from "./tools/spec.ts";

/**
 * Bounds: the consolidating agent must search transcripts *narrowly* (docs/design.md#the-consolidation-run), never load them
 * whole, so matches are few, lines are short and the whole answer is capped.
 */
const DEFAULT_MAX_MATCHES = 20;
const MAX_MATCHES = 50;
const MAX_CONTEXT_LINES = 3;
const MAX_LINE_CHARS = 240;
const MAX_OUTPUT_CHARS = 8_000;
const DEFAULT_MAX_SESSIONS = 10;
// A transcript bigger than this is searched only in its last part (recent turns matter most).
const MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024;

const inputSchema = z.object({
  query: z
    .string()
    .min(1)
    .describe("Text to look for (case-insensitive), or a regular expression when regex is true"),
  regex: z.boolean().optional().describe("Treat query as a JavaScript regular expression"),
  session: z.string().optional().describe("Search only this session id"),
  max_sessions: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe(`Search the most recent N sessions (default ${DEFAULT_MAX_SESSIONS})`),
  context: z
    .number()
    .int()
    .min(0)
    .max(MAX_CONTEXT_LINES)
    .optional()
    .describe("Lines of context around each match (default 1)"),
  max_matches: z
    .number()
    .int()
    .min(1)
    .max(MAX_MATCHES)
    .optional()
    .describe(`Stop after this many matches (default ${DEFAULT_MAX_MATCHES})`),
});

export type SearchTranscriptsInput = z.infer<typeof inputSchema>;

interface Session {
  id: string;
  path: string;
  mtimeMs: number;
}

async function listSessions(projectDir: string, exclude: ReadonlySet<string>): Promise<Session[]> {
  let names: string[];
  try {
    names = await fs.readdir(projectDir);
  } catch {
    return [];
  }
  const sessions: Session[] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const id = name.slice(0, -".jsonl".length);
    if (exclude.has(id)) continue;
    const file = path.join(projectDir, name);
    const stat = await fs.stat(file).catch(() => null);
    if (stat?.isFile()) sessions.push({ id, path: file, mtimeMs: stat.mtimeMs });
  }
  return sessions.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

async function readTail(file: string): Promise<string> {
  const handle = await fs.open(file, "r");
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - MAX_TRANSCRIPT_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString("utf8");
    return start === 0 ? text : text.slice(text.indexOf("\n") + 1);
  } finally {
    await handle.close();
  }
}

/** The readable text of one transcript line: a message's text and tool calls, else nothing. */
function recordText(raw: string): { role: string; time: string; text: string } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null; // a torn line after a crash
  }
  const record = parsed as { message?: Message } & Partial<Message>;
  const message = (record.message ?? record) as Message;
  if (!message || (message.role !== "user" && message.role !== "assistant") || message.isMeta) return null;
  let text = messageText(message);
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (block.type === "tool_use") text += `\n[tool ${block.name}] ${JSON.stringify(block.input)}`;
      else if (block.type === "tool_result") text += `\n[tool result] ${block.content}`;
    }
  }
  return { role: message.role, time: message.timestamp ?? "", text };
}

function clip(line: string): string {
  const flat = line.replace(/\s+/g, " ").trim();
  return flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS)}…` : flat;
}

/**
 * Searches session transcripts (`<projectDir>/*.jsonl`), newest session first, and returns the
 * matching lines of message text with a little context, never whole files. Pure I/O, no model.
 */
export async function searchTranscripts(
  projectDir: string,
  input: SearchTranscriptsInput,
  options: { excludeSessionIds?: readonly string[]; signal?: AbortSignal } = {},
): Promise<ToolResult> {
  let matcher: (line: string) => boolean;
  if (input.regex) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(input.query, "iu");
    } catch (error) {
      return toolError(`SearchTranscripts: invalid regular expression: ${(error as Error).message}`);
    }
    matcher = (line) => pattern.test(line);
  } else {
    const needle = input.query.toLowerCase();
    matcher = (line) => line.toLowerCase().includes(needle);
  }
  const exclude = new Set(options.excludeSessionIds ?? []);
  let sessions = await listSessions(projectDir, exclude);
  if (input.session) sessions = sessions.filter((s) => s.id === input.session);
  sessions = sessions.slice(0, input.max_sessions ?? DEFAULT_MAX_SESSIONS);
  if (sessions.length === 0) return { content: "No session transcripts to search." };

  const maxMatches = input.max_matches ?? DEFAULT_MAX_MATCHES;
  const contextLines = input.context ?? 1;
  const out: string[] = [];
  let chars = 0;
  let matches = 0;
  let truncated = false;
  search: for (const session of sessions) {
    if (options.signal?.aborted) break;
    const text = await readTail(session.path).catch(() => "");
    const records = text.split("\n");
    for (let index = 0; index < records.length; index++) {
      const record = recordText(records[index]);
      if (!record) continue;
      const lines = record.text.split("\n");
      for (let i = 0; i < lines.length; i++) {
        if (!matcher(lines[i])) continue;
        if (matches >= maxMatches) {
          truncated = true;
          break search;
        }
        const from = Math.max(0, i - contextLines);
        const to = Math.min(lines.length, i + contextLines + 1);
        const block = [
          `${session.id} #${index + 1} ${record.role}${record.time ? ` ${record.time}` : ""}:`,
          ...lines.slice(from, to).map((line, k) => `${from + k === i ? ">" : " "} ${clip(line)}`),
        ].join("\n");
        if (chars + block.length > MAX_OUTPUT_CHARS) {
          truncated = true;
          break search;
        }
        out.push(block);
        chars += block.length;
        matches++;
      }
    }
  }
  if (out.length === 0)
    return { content: `No matches for ${JSON.stringify(input.query)} in ${sessions.length} session(s).` };
  const tail = truncated ? "\n… more matches left out: narrow the query or name a session." : "";
  return { content: `${out.join("\n\n")}${tail}` };
}

/**
 * The `SearchTranscripts` tool for a consolidating agent: narrow searches of this project's
 * session transcripts. `excludeSessionIds` hides sessions (e.g. the one being consolidated from).
 *
 * @example
 * const tool = createSearchTranscriptsTool({ projectDir: location.projectDir });
 */
export function createSearchTranscriptsTool(options: {
  projectDir: string;
  excludeSessionIds?: readonly string[];
}): ToolSpec<SearchTranscriptsInput> {
  return {
    name: "SearchTranscripts",
    description:
      "Search past session transcripts of this project for a word or phrase. Returns matching lines with a " +
      "little context (session id, message number, role, time), newest sessions first, never whole files. " +
      "Use narrow queries (a name, a term, a date) to check what was said about a memory.",
    inputSchema,
    readOnly: true,
    handler: (input, context) =>
      searchTranscripts(options.projectDir, input, {
        excludeSessionIds: options.excludeSessionIds,
        signal: context.signal,
      }),
  };
}
