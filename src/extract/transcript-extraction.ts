import path from "node:path";
import { loadTranscript } from "../agent/transcript.ts";
import { MemdirError } from "../errors.ts";
import type { ModelClient } from "../model/client.ts";
import type { ChangeRecorder, Clock, MemoryMode, Message } from "../types.ts";
import { loadTranscriptCursor, pruneOrphanCursors, saveTranscriptCursor } from "./cursor-store.ts";
import { createExtractor, type ExtractionReport } from "./extractor.ts";
import type { ExtractionRunResult } from "./run-extraction.ts";

export interface TranscriptExtractionOptions {
  memoryDir: string;
  /** The stored session (our JSONL or Claude Code's). */
  transcript: string;
  /** The fork's working directory (the session's project). */
  cwd: string;
  client: ModelClient;
  /** Ignore the saved cursor and count the whole transcript as new (the cursor still advances). */
  all?: boolean;
  /** The transcript's messages when the caller has already read them. */
  messages?: readonly Message[];
  now?: Clock;
  /** `ResolvedConfig.memoryMode` (default `auto`). */
  memoryMode?: MemoryMode;
  /** Records each run that writes as one history entry (see `ExtractionRunOptions.record`). */
  record?: ChangeRecorder;
}

/** What one extraction over a stored transcript did. */
export interface TranscriptExtraction {
  transcript: string;
  /** `up-to-date`: nothing after the cursor (no model call); `skipped`: the agent saved memories itself. */
  status: ExtractionReport["status"];
  /** Messages counted as new (hidden meta messages left out). */
  newMessages: number;
  /** The saved cursor after this run (the last processed message id), or null. */
  cursor: string | null;
  /** The model run, when there was one. */
  result: ExtractionRunResult | null;
  error?: Error;
}

/**
 * Extracts memories from the messages of `transcript` that arrived after its saved cursor
 * (`.memdir-extract/cursors/` in the memory dir), with the in-process extractor's rules
 * (docs/design.md#the-cursor-and-the-skip-rule): nothing new → no model call; the main agent wrote memories itself since the cursor
 * → skipped; the cursor advances (and is saved) only when a run succeeds or is skipped. The
 * fork still sees the whole conversation; the prompt names how many of its newest messages are
 * new. Throws `MemdirError` only when the transcript is missing or holds no messages.
 *
 * @example
 * const outcome = await extractTranscript({ memoryDir, transcript: "/…/3f2c.jsonl", cwd, client });
 * outcome.status // "done" | "up-to-date" | "skipped" | "failed"
 */
export async function extractTranscript(options: TranscriptExtractionOptions): Promise<TranscriptExtraction> {
  const transcript = path.resolve(options.transcript);
  const messages = options.messages ?? loadTranscript(transcript).messages;
  if (messages.length === 0)
    throw new MemdirError("invalid-input", `memdir: extract: ${transcript} holds no messages`);
  const start = options.all ? null : await loadTranscriptCursor(options.memoryDir, transcript);
  let report: ExtractionReport | null = null;
  const extractor = createExtractor({
    memoryDir: options.memoryDir,
    client: options.client,
    cwd: options.cwd,
    cursor: start,
    now: options.now,
    memoryMode: options.memoryMode,
    ...(options.record ? { record: options.record } : {}),
    // The transcript's stem is its session id (`<projectDir>/<session>.jsonl`).
    session: path.basename(transcript).replace(/\.jsonl$/, ""),
    log: () => {}, // failures come back in the report; the caller says what happened
    onReport: (value) => {
      report = value;
    },
  });
  try {
    await extractor.schedule({ messages, cwd: options.cwd });
  } finally {
    extractor.dispose();
  }
  const cursor = extractor.cursor;
  if (cursor !== null && (cursor !== start || options.all)) {
    await saveTranscriptCursor(options.memoryDir, transcript, cursor, options.now);
    await pruneOrphanCursors(options.memoryDir, { now: options.now });
  }
  const final = report as ExtractionReport | null;
  if (final === null) {
    // The extractor reports every pass over a non-empty conversation; no report means it threw.
    const error = new Error("extraction failed before the model was called");
    return { transcript, status: "failed", newMessages: 0, cursor, result: null, error };
  }
  return {
    transcript,
    status: final.status,
    newMessages: final.newMessages,
    cursor,
    result: "result" in final ? final.result : null,
    ...(final.status === "failed" ? { error: final.error } : {}),
  };
}
