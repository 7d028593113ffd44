import pc from "picocolors";
import { MemdirError } from "../../errors.ts";

/** Where a command writes; passed in so tests and the MCP server never touch process streams. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * All of stdin; an aborted `signal` stops waiting for a writer that never closes it. Past
   * `maxBytes` it stops reading and throws `MemdirError("invalid-input")`.
   */
  stdin?: (signal?: AbortSignal, maxBytes?: number) => Promise<string>;
  /** stderr is a terminal: long jobs draw their progress there (`support/progress.ts`). */
  stderrIsTTY?: boolean;
}

export const processIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: readStdin,
  stderrIsTTY: process.stderr.isTTY === true,
};

/**
 * Reads all of stdin as UTF-8 (empty when stdin is a TTY). When `signal` aborts (a hook's time
 * bound), stdin is destroyed, so a host that never closes it cannot keep this process alive; past
 * `maxBytes`, stdin is destroyed too and `MemdirError("invalid-input")` thrown, so an endless
 * stdin is never held or waited for.
 */
export async function readStdin(signal?: AbortSignal, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
  if (process.stdin.isTTY) return "";
  const stop = () => process.stdin.destroy();
  signal?.addEventListener("abort", stop, { once: true });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of process.stdin) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        stop();
        throw new MemdirError("invalid-input", `stdin: more than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Prints `value` as pretty JSON followed by a newline. */
export function printJson(io: CliIO, value: unknown): void {
  io.stdout(jsonText(value));
}

/** `value` as {@link printJson} prints it. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export const colors = pc;

/**
 * `text` safe to print on a terminal: every control character but tab and line feed (a CR only
 * before a line feed), DEL and the C1 controls shown as `\u001b`. A memory written by hand or
 * pulled by sync may hold an ESC sequence that would set the terminal's title or clear it.
 *
 * @example
 * printable("red \u001b[31m") // "red \\u001b[31m"
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\r(?!\n)/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
