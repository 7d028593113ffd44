import assert from "node:assert/strict";
import { after } from "node:test";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli } from "./cli.ts";
import { waitFor, waitForBackgroundExit } from "./wait.ts";

/**
 * Runs `memdir hook <event>` as a child process in `home`, with memdir configured for a fake
 * model, fed `input` (the host's hook JSON); asserts it started the background extraction and
 * returns the body of the extraction's first model request (as JSON text), once the extraction
 * has ended (the temp dirs must outlive it).
 */
export async function extractionRequestOf(home: string, event: string, input: object): Promise<string> {
  const server = await startFakeModelServer(["Nothing worth saving."]);
  after(() => server.close());
  const result = await runCli(["hook", event], {
    home,
    env: {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      MEMDIR_PROVIDER: "anthropic",
    },
    input: JSON.stringify(input),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /extraction started in the background/);
  await waitFor(() => server.requests.length > 0, {
    timeout: 60_000,
    interval: 100,
    what: "the extraction's request",
  });
  const sent = JSON.stringify(server.requests[0].body);
  await waitForBackgroundExit(result.stderr);
  return sent;
}
