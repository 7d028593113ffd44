import type { AgentSession, AgentSessionOptions } from "./agent-session.ts";

/**
 * Builds a session from configuration: memory location, instruction files and index (the user
 * context, read once per session), memory rules, model client, recall prefetch context,
 * permissions, tools, hooks and the transcript (`<projectDir>/<sessionId>.jsonl`, docs/design.md#transcripts).
 * `resume` loads an earlier transcript and continues appending to it.
 *
 * The agent engine (the loop, its tools, zod schemas, extraction and consolidation) loads on
 * the first call, not with `import("memdir")`: a program that only saves and recalls memories
 * does not pay for it at start-up (issue 17).
 *
 * @example
 * const session = await createAgentSession({ cwd: "/Users/me/shop" });
 * for await (const event of session.runTurn("fix the failing login test")) {
 *   if (event.type === "text_delta") process.stdout.write(event.text);
 * }
 * await session.close();
 */
export async function createAgentSession(options: AgentSessionOptions = {}): Promise<AgentSession> {
  const { createAgentSession: create } = await import("./agent-session.ts");
  return create(options);
}
