import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { FakeRequest, FakeStep } from "../../src/testing/index.ts";
import {
  type AgentTraits,
  assertAnswered,
  describeHeadlessAgent,
  preparedProject,
  serverFor,
} from "../helpers/headless-agent-suite.ts";
import {
  backgroundDone,
  GEMINI_CLI_VERSION,
  installHeadlessAgent,
  occurrences,
  requestText,
  runAgent,
} from "../helpers/headless-agents.ts";
import { writeMemory } from "../helpers/memory.ts";

// The real Gemini CLI, installed from the npm registry and run headless (`gemini -p`) against the
// fake model server's Gemini API, wired by the real `memdir setup gemini` (hooks, MCP server and
// memdir's policy file): what memdir puts in front of the model, and what it saves.

const install = installHeadlessAgent("gemini");

/** Gemini CLI's model router asks for a complexity score first (a JSON, non-streamed request). */
function routerStep(request: FakeRequest): FakeStep | null {
  if (request.stream || request.jsonSchema === null) return null;
  const wanted = JSON.stringify(request.jsonSchema);
  assert.match(wanted, /complexity_score/, "the only JSON request Gemini CLI makes here is its router's");
  return { json: { complexity_reasoning: "a short question", complexity_score: 10 } };
}

const GEMINI: AgentTraits = {
  agent: "gemini",
  setupArgs: [],
  isMain: (request) => request.api === "gemini" && request.stream,
  sideStep: routerStep,
  saveStep: (request, input) => {
    if (JSON.stringify(request.body?.contents ?? []).includes('"functionResponse"')) return "Saved.";
    // Headless, Gemini CLI offers an MCP tool only when a policy allows it (memdir's policy file).
    if (JSON.stringify(request.body?.tools ?? []).includes('"mcp_memdir_memory_save"'))
      return { toolCall: { name: "mcp_memdir_memory_save", input } };
    return "memory_save was not offered.";
  },
};

const TITLE = `Gemini CLI ${GEMINI_CLI_VERSION} with memdir (the real CLI, headless, offline)`;
if ("skip" in install) it(TITLE, { skip: install.skip }, () => {});
else {
  describeHeadlessAgent(TITLE, GEMINI, install.bin);
  describe(`${TITLE}: file hook`, () => {
    it("brings the memory anchored to a file the model reads with read_file, once: a second read adds nothing", async () => {
      const fixture = await preparedProject(GEMINI);
      const login = path.join(fixture.project, "src", "auth", "login.ts");
      fs.mkdirSync(path.dirname(login), { recursive: true });
      fs.writeFileSync(login, "export function login() {\n  return refresh();\n}\n");
      const fileWord = "OSPREY-3"; // only in the anchored memory: the model sees it only if AfterTool added it
      writeMemory(
        fixture.memoryDir,
        "project-login-refresh.md",
        `---\ndescription: token refresh rule\ntype: project\nanchors:\n  - path: src/auth/login.ts\n---\nEvery change here must keep the ${fileWord} refresh order.\n`,
      );
      const prompt = "Show me what the entry point contains.";
      const responses = (request: FakeRequest) =>
        occurrences(JSON.stringify(request.body?.contents ?? []), '"functionResponse"');
      const answer = "It returns refresh().";
      const server = await serverFor(GEMINI, (request) =>
        responses(request) < 2 ? { toolCall: { name: "read_file", input: { file_path: login } } } : answer,
      );
      const run = await runAgent("gemini", install.bin, fixture, { prompt, url: server.url });
      assertAnswered(run, answer);
      await backgroundDone(fixture.home);
      const main = server.requests.filter((request) => GEMINI.isMain(request));
      const byResponses = (count: number) => main.find((request) => responses(request) === count);
      assert.ok(byResponses(0) && byResponses(1) && byResponses(2), `three model requests (${main.length})`);
      assert.equal(occurrences(requestText(byResponses(0)!), fileWord), 0, "not before the file was read");
      assert.equal(
        occurrences(requestText(byResponses(1)!), fileWord),
        1,
        "after the read: the memory, once",
      );
      assert.equal(occurrences(requestText(byResponses(2)!), fileWord), 1, "the second read adds it no more");
    });
  });
}
