import pc from "picocolors";

/** Where a command writes; passed in so tests and the MCP server never touch process streams. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** All of stdin; an aborted `signal` stops waiting for a writer that never closes it. */
  stdin?: (signal?: AbortSignal) => Promise<string>;
}

export const processIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: readStdin,
};

/**
 * Reads all of stdin as UTF-8 (empty when stdin is a TTY). When `signal` aborts (a hook's time
 * bound), stdin is destroyed, so a host that never closes it cannot keep this process alive.
 */
export async function readStdin(signal?: AbortSignal): Promise<string> {
  if (process.stdin.isTTY) return "";
  const stop = () => process.stdin.destroy();
  signal?.addEventListener("abort", stop, { once: true });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
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
