/**
 * `memdir/testing`: test doubles shipped with the package, so you can test an agent built on memdir
 * offline — no API key, no network beyond 127.0.0.1.
 *
 * @example
 * import { startFakeModelServer } from "memdir/testing";
 * const server = await startFakeModelServer([{ json: { selected_memories: ["feedback-testing.md"] } }]);
 * process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL; // or pass baseURL to a client
 *
 * @example
 * import { createFakeModelClient } from "memdir/testing";
 * const client = createFakeModelClient(["Hello!"]); // a ModelClient answering in this process
 */
export { createFakeModelClient, type FakeModelClient } from "./fake-model-client.ts";
export { type FakeModelServer, startFakeModelServer } from "./fake-model-server.ts";
export type { FakeRequest, FakeStep, FakeStepFunction, FakeToolCall } from "./fake-steps.ts";
