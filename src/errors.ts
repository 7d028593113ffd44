/**
 * Every error memdir throws on purpose. `code` is a stable string a caller can switch on;
 * the message names the subsystem and the input (`memdir: frontmatter: x.md: missing "type"`).
 *
 * @example
 * try { await saveMemory(dir, input) } catch (e) { if (e instanceof MemdirError && e.code === "secret") … }
 */
export type MemdirErrorCode =
  | "invalid-input"
  | "invalid-type"
  | "path-outside"
  | "secret"
  | "quarantined"
  | "not-found"
  | "conflict"
  | "project-mismatch"
  | "lock-timeout"
  | "lock-lost"
  | "io"
  | "not-a-file"
  | "frontmatter"
  | "no-model"
  | "model"
  | "aborted"
  | "unreachable"
  | "remote-rewritten"
  | "remote-invalid"
  | "usage";

export class MemdirError extends Error {
  readonly code: MemdirErrorCode;

  constructor(code: MemdirErrorCode, message: string, options?: { cause?: unknown }) {
    super(message.startsWith("memdir:") ? message : `memdir: ${message}`, options);
    this.name = "MemdirError";
    this.code = code;
  }
}

/** True when `error` is a MemdirError, optionally of one code. */
export function isMemdirError(error: unknown, code?: MemdirErrorCode): error is MemdirError {
  return error instanceof MemdirError && (code === undefined || error.code === code);
}

/**
 * Throws `MemdirError("aborted")` (`memdir: <what>: aborted`, the signal's reason as `cause`)
 * when `signal` has been aborted: the one check every long step makes between its awaits.
 *
 * @example throwIfAborted(options.signal, "scan");
 */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new MemdirError("aborted", `${what}: aborted`, { cause: signal.reason });
}

/**
 * One line for an error the operating system reported (`EROFS`, `ENOSPC`, `ENOTDIR`…, as Node
 * throws them: a `code` and a `syscall`), or null for any other error. A read-only or full disk is
 * the user's situation, not a bug: the CLI prints this line instead of a stack trace (docs/design.md#errors).
 *
 * @example systemErrorLine(erofs) // "cannot mkdir /m/.memdir-cache: EROFS (read-only file system)"
 */
export function systemErrorLine(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  if (typeof code !== "string" || typeof syscall !== "string" || !/^E[A-Z0-9]+$/.test(code)) return null;
  // Node's message is "EROFS: read-only file system, mkdir '/m/x'": keep the words.
  const words = /^E[A-Z0-9]+: ([^,]+)/.exec(error.message)?.[1];
  return `cannot ${syscall}${path ? ` ${path}` : ""}: ${code}${words ? ` (${words})` : ""}`;
}
