import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { foreignTranscriptLine, messagesFromWholeSession } from "../hosts/transcript-lines.ts";
import type { Message } from "../types.ts";

/**
 * One transcript line. The envelope leaves room for other line kinds later; readers skip
 * kinds they do not know.
 */
export interface TranscriptLine {
  type: "message";
  sessionId: string;
  message: Message;
}

/** An open session transcript: `<projectDir>/<sessionId>.jsonl`, appended one line per message. */
export interface Transcript {
  sessionId: string;
  path: string;
  append(message: Message): void;
  close(): void;
}

/** Session ids are UUIDs; anything else is refused so `--resume` cannot name an arbitrary path. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** A new session id. */
export function newSessionId(): string {
  return randomUUID();
}

/** `<projectDir>/<sessionId>.jsonl` (docs/design.md#transcripts: beside `memory/`). */
export function transcriptPath(projectDir: string, sessionId: string): string {
  if (!SESSION_ID.test(sessionId))
    throw new MemdirError("invalid-input", `transcript: invalid session id ${JSON.stringify(sessionId)}`);
  return path.join(projectDir, `${sessionId}.jsonl`);
}

/**
 * Opens (creating if needed) a session transcript for appending. Each message is written with
 * one `write` call as it arrives, so a killed process loses at most the message in flight;
 * the OS keeps what was written even without fsync.
 *
 * @example const transcript = openTranscript({projectDir: location.projectDir}); transcript.append(message);
 */
export function openTranscript(options: { projectDir: string; sessionId?: string }): Transcript {
  const sessionId = options.sessionId ?? newSessionId();
  const file = transcriptPath(options.projectDir, sessionId);
  fs.mkdirSync(options.projectDir, { recursive: true });
  const fd = fs.openSync(file, "a");
  // A previous crash may have left a torn last line: start on a fresh line so ours stays valid.
  const size = fs.fstatSync(fd).size;
  if (size > 0) {
    const last = Buffer.alloc(1);
    const readFd = fs.openSync(file, "r");
    try {
      fs.readSync(readFd, last, 0, 1, size - 1);
    } finally {
      fs.closeSync(readFd);
    }
    if (last[0] !== 0x0a) fs.writeSync(fd, "\n");
  }
  let closed = false;
  return {
    sessionId,
    path: file,
    append(message) {
      if (closed) throw new MemdirError("io", `transcript: ${file} is closed`);
      const line: TranscriptLine = { type: "message", sessionId, message };
      fs.writeSync(fd, `${JSON.stringify(line)}\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      fs.closeSync(fd);
    },
  };
}

/** What `loadTranscript` found: the messages, and how many lines it could not use. */
export interface LoadedTranscript {
  sessionId: string;
  path: string;
  messages: Message[];
  /** Lines that were not valid JSON (a torn last line after a crash is the usual one). */
  skippedLines: number;
}

/**
 * Reads a transcript. Tolerant: a torn or broken line is skipped and counted, never fatal.
 * Throws `MemdirError("not-found")` when the file does not exist.
 */
export function loadTranscript(file: string): LoadedTranscript {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new MemdirError("not-found", `transcript: no session at ${file}`, { cause: error });
  }
  // A Gemini CLI session is read whole: its records replace and rewind earlier ones by id.
  const whole = messagesFromWholeSession(text);
  if (whole !== null) return { path: file, ...whole };
  const messages: Message[] = [];
  let skippedLines = 0;
  let sessionId = path.basename(file, ".jsonl");
  const lines = text.split("\n");
  for (let lineNumber = 0; lineNumber < lines.length; lineNumber++) {
    const raw = lines[lineNumber];
    if (raw.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      skippedLines += 1;
      continue;
    }
    const line = parsed as Partial<TranscriptLine>;
    if (line?.type !== "message" || !line.message || typeof line.message !== "object") {
      // Not ours: maybe a Claude Code, Codex, Copilot CLI or Cursor session read through `memdir hook stop`.
      const foreign = foreignTranscriptLine(parsed, lineNumber);
      if (foreign?.sessionId) sessionId = foreign.sessionId;
      if (foreign?.message) messages.push(foreign.message);
      continue;
    }
    if (typeof line.sessionId === "string") sessionId = line.sessionId;
    messages.push(line.message);
  }
  return { sessionId, path: file, messages, skippedLines };
}

/** A session transcript on disk (consolidation counts and searches these, docs/design.md#transcripts). */
export interface TranscriptInfo {
  sessionId: string;
  path: string;
  mtimeMs: number;
}

/** Every session transcript in a project dir, newest first; a missing dir yields none. */
export function listTranscripts(projectDir: string): TranscriptInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync(projectDir);
  } catch {
    return [];
  }
  const found: TranscriptInfo[] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const file = path.join(projectDir, name);
    try {
      const stat = fs.statSync(file);
      if (stat.isFile())
        found.push({ sessionId: name.slice(0, -".jsonl".length), path: file, mtimeMs: stat.mtimeMs });
    } catch {
      // Removed while listing: not a session any more.
    }
  }
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs);
}
