import { MemdirError } from "../errors.ts";

/**
 * Turns a vendor SDK error into a `MemdirError`: `aborted` when the caller's signal fired (or the
 * SDK says the user aborted), else `model` with a one-line message naming the provider and the
 * HTTP status. The SDK error stays as `cause` (its `status` and `headers` included).
 */
export function toModelError(provider: string, error: unknown, signal: AbortSignal | undefined): MemdirError {
  if (error instanceof MemdirError) return error;
  const name = error instanceof Error ? error.constructor.name : "";
  if (
    signal?.aborted ||
    name === "APIUserAbortError" ||
    (error instanceof Error && error.name === "AbortError")
  ) {
    return new MemdirError("aborted", `model: ${provider}: request aborted`, { cause: error });
  }
  const status = httpStatus(error);
  const detail = error instanceof Error ? firstLine(error.message) : String(error);
  if (status !== null)
    return new MemdirError("model", `model: ${provider}: HTTP ${status}: ${detail}`, { cause: error });
  return new MemdirError("model", `model: ${provider}: ${detail}`, { cause: error });
}

/** The HTTP status of a vendor SDK error (both SDKs put it on `status`), or null. */
export function httpStatus(error: unknown): number | null {
  if (error instanceof MemdirError) return httpStatus(error.cause);
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : null;
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0]!.trim();
}
