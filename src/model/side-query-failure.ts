// Kept apart from side-query.ts, which loads zod (~95 modules): recall names a failure on every
// prompt, and a hook run without the helper must not load a schema library it never uses
// (docs/design.md#the-prompt-hook-process).

/** Why a side query produced no data. `message` is one line, fit for `recall --explain`. */
export interface SideQueryFailure {
  kind: "timeout" | "aborted" | "invalid" | "model";
  message: string;
  cause?: unknown;
}

/**
 * A failure as one phrase, its kind first: `timeout: …`, `model: openai: Connection error.` (a
 * model client's message that already starts with its kind is not prefixed again).
 */
export function describeFailure(failure: { kind: string; message: string }): string {
  return failure.message.startsWith(`${failure.kind}:`)
    ? failure.message
    : `${failure.kind}: ${failure.message}`;
}
