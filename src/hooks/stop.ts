import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { loadTranscript } from "../agent/transcript.ts";
import type { ResolvedConfig } from "../config.ts";
import { extractionStateDir } from "../extract/cursor-store.ts";
import { createModelClientFromConfig } from "../model/factory.ts";
import type { Message } from "../types.ts";
import { missingKeyReason } from "./missing-key.ts";

export interface StopHookOptions {
  /** `transcript_path` from the hook input. */
  transcriptPath: string | undefined;
  /** The project directory the session ran in. */
  cwd: string;
  config: ResolvedConfig;
  /** Memory location options to pass on (`--root`, `--dir`), when the hook was given them. */
  root?: string;
  dir?: string;
  /** The memory dir, where a final turn the transcript lacks is left for the extraction. */
  memoryDir?: string;
  /** The host's copy of the final assistant message (`last_assistant_message`, Gemini's `prompt_response`). */
  lastAssistantMessage?: string;
}

/** What the stop hook decided: run `memdir <args>` in the background, or why not. */
export type StopHookPlan = { run: string[] } | { skip: string };

/**
 * Decides what a `Stop` hook does: with auto memory on, memdir configured for a model (an API key
 * in the host's environment alone is not enough: docs/design.md#model-use-in-hooks) and a
 * transcript on disk, run `memdir extract --transcript <path>` in the background
 * (docs/design.md#when-extraction-runs: extraction never delays the user's answer); otherwise nothing.
 * When the host sent the final assistant message and the transcript does not hold it yet, it is
 * left in a file for the extraction (`--final-message-file`).
 *
 * @example
 * planStopHook({ transcriptPath, cwd, config }) // { run: ["extract", "--transcript", "/…/s.jsonl", "--cwd", "/…"] }
 */
export function planStopHook(options: StopHookOptions): StopHookPlan {
  const { config } = options;
  if (!config.autoMemory) return { skip: `auto memory is off (${config.autoMemoryOffReason})` };
  if (config.bare) return { skip: "bare mode" };
  if (config.memoryMode === "manual") return { skip: "memoryMode is manual: only explicit saves write" };
  if (config.model.optIn === null)
    return {
      skip:
        "memdir is not configured for a model (set MEMDIR_PROVIDER or MEMDIR_MODEL, or memdirProvider " +
        "in settings; an API key alone is not enough): extraction needs one",
    };
  if (createModelClientFromConfig(config.model) === null)
    return { skip: `${missingKeyReason(config.model) ?? "no model configured"}: extraction needs one` };
  if (!options.transcriptPath) return { skip: "the hook input names no transcript_path" };
  const transcript = path.resolve(options.cwd, options.transcriptPath);
  if (!fs.statSync(transcript, { throwIfNoEntry: false })?.isFile())
    return { skip: `no transcript at ${transcript}` };
  const finalFile =
    options.memoryDir && options.lastAssistantMessage?.trim()
      ? leaveFinalMessage(options.memoryDir, transcript, options.lastAssistantMessage)
      : null;
  return {
    run: [
      "extract",
      "--transcript",
      transcript,
      "--cwd",
      options.cwd,
      ...(options.root ? ["--root", options.root] : []),
      ...(options.dir ? ["--dir", options.dir] : []),
      ...(finalFile ? ["--final-message-file", finalFile] : []),
    ],
  };
}

/** The text of a message's text blocks. */
function messageText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/**
 * Whether `messages` already end with the final assistant message `text` (its text, trimmed, is
 * in the last assistant message): then the transcript has the final turn and nothing is added.
 */
export function transcriptHasFinalMessage(messages: readonly Message[], text: string): boolean {
  const wanted = text.trim();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== "assistant") continue;
    return messageText(message).includes(wanted);
  }
  return false;
}

/**
 * Writes the final assistant message to `.memdir-extract/final/<key>.json` (owner-only) when the
 * transcript does not hold it yet, and returns the file; null when it does or the write fails.
 */
function leaveFinalMessage(memoryDir: string, transcript: string, text: string): string | null {
  try {
    if (transcriptHasFinalMessage(loadTranscript(transcript).messages, text)) return null;
    const folder = path.join(extractionStateDir(memoryDir), "final");
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const key = createHash("sha256").update(transcript).digest("hex").slice(0, 24);
    const file = path.join(folder, `${key}.json`);
    fs.writeFileSync(file, JSON.stringify({ transcript, text }), { mode: 0o600 });
    return file;
  } catch {
    return null;
  }
}

/**
 * The final assistant message the stop hook left in `file`, as a message to append to the
 * transcript's, or null (missing, unreadable, or for another transcript). The file is removed.
 */
export function takeFinalMessage(file: string, transcript: string): Message | null {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  } finally {
    fs.rmSync(file, { force: true });
  }
  const record = data as { transcript?: unknown; text?: unknown } | null;
  if (typeof record?.text !== "string" || record.text.trim() === "") return null;
  if (record.transcript !== transcript) return null;
  const id = `final-${createHash("sha256").update(record.text).digest("hex").slice(0, 16)}`;
  return { id, role: "assistant", content: [{ type: "text", text: record.text }] };
}
