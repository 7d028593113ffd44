import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  type FakeModelServer,
  type FakeRequest,
  type FakeStep,
  startFakeModelServer,
} from "../../src/testing/index.ts";
import {
  type AgentProject,
  type AgentRun,
  agentProject,
  backgroundDone,
  fromAgent,
  type HeadlessAgent,
  hookCalls,
  killLeftovers,
  memoryFiles,
  occurrences,
  requestText,
  runAgent,
  setupAgent,
  writeGeminiUserSettings,
  writeQwenUserSettings,
} from "./headless-agents.ts";
import { memory, writeMemory } from "./memory.ts";

// The tests Gemini CLI and Qwen Code share: the real agent, wired by the real `memdir setup`, run
// headless against the fake model server (test/integration/gemini.test.ts, qwen.test.ts).

export const INDEX_LINE = "- [Staging freeze](project-staging-freeze.md) — staging deploys freeze on Fridays";
/** Only in the memory's body: the model sees it only when recall surfaced the memory. */
export const SECRET_WORD = "KESTREL-7";
export const PROMPT = "When does the staging deploy freeze start this week?";
export const ANSWER = "The staging freeze starts Friday at noon.";

/** How the model names memdir's save tool, and how it reaches it, in each agent. */
export interface AgentTraits {
  agent: HeadlessAgent;
  /** `memdir setup <agent>` arguments (Qwen: `--recommended`, its own auto memory off). */
  setupArgs: string[];
  /** The requests of the agent's main loop: the ones the user's prompt drives. */
  isMain(request: FakeRequest): boolean;
  /** The step that saves `input` through memdir's MCP tool, or says it cannot; "Saved." when done. */
  saveStep(request: FakeRequest, input: Record<string, string>): FakeStep;
  /** Answers the agent's side requests (Gemini's model router); null for a main request. */
  sideStep(request: FakeRequest): FakeStep | null;
}

/** A project with one memory (`project-staging-freeze.md`), memdir set up for the agent. */
export async function preparedProject(traits: AgentTraits): Promise<AgentProject> {
  const fixture = await agentProject();
  after(() => killLeftovers(fixture.home));
  if (traits.agent === "gemini") writeGeminiUserSettings(fixture.home);
  else writeQwenUserSettings(fixture.home);
  writeMemory(fixture.memoryDir, "MEMORY.md", `${INDEX_LINE}\n`);
  writeMemory(
    fixture.memoryDir,
    "project-staging-freeze.md",
    memory(
      "staging deploys freeze on Fridays",
      `The staging deploy freeze starts every Friday at noon; the release channel calls it ${SECRET_WORD}.`,
      "project",
    ),
  );
  await setupAgent(fixture, traits.agent, traits.setupArgs);
  return fixture;
}

/** A fake model server whose main requests `main` answers; closed when the test or suite ends. */
export async function serverFor(
  traits: AgentTraits,
  main: (request: FakeRequest) => FakeStep,
): Promise<FakeModelServer> {
  const server = await startFakeModelServer((request) => {
    if (!fromAgent(traits.agent, request)) return "a request from someone other than the agent";
    return traits.sideStep(request) ?? main(request);
  });
  after(() => server.close());
  return server;
}

export function assertAnswered(run: AgentRun, answer: string): void {
  assert.equal(
    run.code,
    0,
    `the agent exited ${run.code}: ${run.stderr.slice(-3000)}${run.stdout.slice(-2000)}`,
  );
  assert.equal(run.response, answer, run.stdout.slice(-2000));
}

/** The saves the tests script: a different memory each run. */
function saveInput(run: number): Record<string, string> {
  const days = ["Monday", "Wednesday", "Thursday"];
  return {
    type: "project",
    description: `the release train ${run} leaves on ${days[run - 1]}s`,
    content: `Release train ${run} leaves every ${days[run - 1]} at 15:00 UTC.\nWhy: the QA rota.`,
  };
}

/**
 * The shared suite: index and recall once, no model request of memdir's own, a save through the
 * MCP tool (3 runs), "remember …" to one memory, nothing recalled for an unrelated prompt.
 */
export function describeHeadlessAgent(title: string, traits: AgentTraits, bin: string): void {
  const mainRequests = (server: FakeModelServer) =>
    server.requests.filter((request) => fromAgent(traits.agent, request) && traits.isMain(request));

  describe(title, () => {
    it("brings the index (session start) and the recalled memory to the model, each once; memdir asks no model itself", async () => {
      const fixture = await preparedProject(traits);
      const server = await serverFor(traits, () => ANSWER);
      const run = await runAgent(traits.agent, bin, fixture, { prompt: PROMPT, url: server.url });
      assertAnswered(run, ANSWER);
      await backgroundDone(fixture.home);
      const main = mainRequests(server);
      assert.equal(main.length, 1, "one main request");
      const text = requestText(main[0]!);
      assert.equal(occurrences(text, INDEX_LINE), 1, "the index line, once");
      assert.equal(occurrences(text, SECRET_WORD), 1, "the recalled memory's body, once");
      assert.equal(occurrences(text, PROMPT), 1, "the prompt, once");
      const others = server.requests.filter((request) => !fromAgent(traits.agent, request));
      assert.deepEqual(
        others.map((request) => `${request.headers["user-agent"]} ${request.path}`),
        [],
        "no request but the agent's",
      );
      const events = hookCalls(fixture).map((call) => call.event);
      assert.ok(events.includes("session-start"), `hooks run: ${events.join(", ")}`);
    });

    it("saves a memory through memdir's MCP tool: its file and its MEMORY.md line (3 runs of 3)", async () => {
      const fixture = await preparedProject(traits);
      for (let run = 1; run <= 3; run++) {
        const input = saveInput(run);
        const before = memoryFiles(fixture.memoryDir);
        const server = await serverFor(traits, (request) => traits.saveStep(request, input));
        const result = await runAgent(traits.agent, bin, fixture, {
          prompt: `For future sessions: release train ${run} leaves every ${input.description.split(" ").at(-1)}.`,
          url: server.url,
        });
        assertAnswered(result, "Saved.");
        await backgroundDone(fixture.home);
        const added = memoryFiles(fixture.memoryDir).filter((file) => !before.includes(file));
        assert.equal(added.length, 1, `run ${run}: one new memory (${added.join(", ")})`);
        const file = added[0]!;
        assert.match(
          fs.readFileSync(path.join(fixture.memoryDir, file), "utf8"),
          new RegExp(input.content.split("\n")[0]!),
        );
        const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
        assert.ok(index.startsWith(`${INDEX_LINE}\n`), "the earlier index line is kept");
        assert.equal(occurrences(index, `](${file})`), 1, `run ${run}: the new memory's index line`);
        const last = mainRequests(server).at(-1)!;
        assert.ok(requestText(last).includes(file), "the tool result the model read names the file");
      }
    });

    it('ends a "remember …" prompt with exactly one memory', async () => {
      const fixture = await preparedProject(traits);
      const before = memoryFiles(fixture.memoryDir);
      const server = await serverFor(traits, () => "Noted.");
      const run = await runAgent(traits.agent, bin, fixture, {
        prompt: "remember that the payments service is deployed by Dana every Tuesday",
        url: server.url,
      });
      assertAnswered(run, "Noted.");
      await backgroundDone(fixture.home);
      const added = memoryFiles(fixture.memoryDir).filter((file) => !before.includes(file));
      assert.equal(added.length, 1, `one new memory: ${added.join(", ")}`);
      assert.match(fs.readFileSync(path.join(fixture.memoryDir, added[0]!), "utf8"), /Dana every Tuesday/);
      const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
      assert.equal(occurrences(index, `](${added[0]})`), 1, "its index line");
    });

    it('recalls nothing for an unrelated prompt ("what is 2+2?")', async () => {
      const fixture = await preparedProject(traits);
      const server = await serverFor(traits, () => "4");
      const run = await runAgent(traits.agent, bin, fixture, { prompt: "what is 2+2?", url: server.url });
      assertAnswered(run, "4");
      await backgroundDone(fixture.home);
      const main = mainRequests(server);
      assert.equal(main.length, 1);
      const text = requestText(main[0]!);
      assert.equal(occurrences(text, SECRET_WORD), 0, "no memory recalled");
      assert.equal(occurrences(text, INDEX_LINE), 1, "the index is still there");
    });
  });
}
