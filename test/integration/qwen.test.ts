import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { FakeRequest } from "../../src/testing/index.ts";
import {
  type AgentTraits,
  ANSWER,
  assertAnswered,
  describeHeadlessAgent,
  PROMPT,
  preparedProject,
  SECRET_WORD,
  serverFor,
} from "../helpers/headless-agent-suite.ts";
import {
  backgroundDone,
  hookCalls,
  installHeadlessAgent,
  occurrences,
  QWEN_CODE_VERSION,
  requestText,
  runAgent,
} from "../helpers/headless-agents.ts";
import { writeMemory } from "../helpers/memory.ts";

// The real Qwen Code, installed from the npm registry and run headless (`qwen -p`) against the
// fake model server's chat-completions API, wired by the real `memdir setup qwen --recommended`
// (hooks, MCP server, the allow rule for memdir's tools, Qwen's own auto memory off).

const install = installHeadlessAgent("qwen");

const toolResults = (request: FakeRequest) =>
  ((request.body?.messages ?? []) as { role: string }[]).filter((message) => message.role === "tool").length;

const QWEN: AgentTraits = {
  agent: "qwen",
  setupArgs: ["--recommended"],
  isMain: (request) => request.api === "openai" && request.stream,
  sideStep: () => null,
  // Qwen Code defers MCP tools: the model loads the schema with tool_search, then runs it with tool_call.
  saveStep: (request, input) => {
    if (toolResults(request) === 0)
      return { toolCall: { name: "tool_search", input: { query: "select:mcp__memdir__memory_save" } } };
    if (toolResults(request) === 1) {
      const offered = JSON.stringify(request.body?.messages ?? []).includes("mcp__memdir__memory_save");
      if (!offered) return "memory_save was not found.";
      return {
        toolCall: { name: "tool_call", input: { name: "mcp__memdir__memory_save", arguments: input } },
      };
    }
    return "Saved.";
  },
};

const TITLE = `Qwen Code ${QWEN_CODE_VERSION} with memdir (the real CLI, headless, offline)`;
if ("skip" in install) it(TITLE, { skip: install.skip }, () => {});
else {
  const bin = install.bin;
  describeHeadlessAgent(TITLE, QWEN, bin);

  describe(`${TITLE}: tool rounds`, () => {
    it("costs no recall for the empty prompt Qwen Code re-sends after each tool round, and shows the memory once", async () => {
      const fixture = await preparedProject(QWEN);
      // Two tool rounds (memory_list through tool_search and tool_call), then the answer.
      const server = await serverFor(QWEN, (request) => {
        if (toolResults(request) === 0)
          return { toolCall: { name: "tool_search", input: { query: "select:mcp__memdir__memory_list" } } };
        if (toolResults(request) === 1)
          return {
            toolCall: { name: "tool_call", input: { name: "mcp__memdir__memory_list", arguments: {} } },
          };
        return ANSWER;
      });
      const run = await runAgent("qwen", bin, fixture, { prompt: PROMPT, url: server.url });
      assertAnswered(run, ANSWER);
      await backgroundDone(fixture.home);
      const prompts = hookCalls(fixture).filter((call) => call.event === "user-prompt-submit");
      const empty = prompts.filter((call) => call.input.prompt === "");
      assert.ok(empty.length >= 1, `Qwen Code re-sent the prompt event empty (${prompts.length} calls)`);
      for (const call of empty)
        assert.equal(call.output, "{}", "an empty prompt gets nothing, and no recall");
      const recalled = prompts.filter((call) => call.output.includes(SECRET_WORD));
      assert.equal(recalled.length, 1, "one recall, for the real prompt");
      const last = server.requests.filter((request) => QWEN.isMain(request)).at(-1)!;
      assert.equal(toolResults(last), 2, "the answer came after two tool rounds");
      assert.equal(occurrences(requestText(last), SECRET_WORD), 1, "the recalled memory, once, at the end");
    });
  });

  describe(`${TITLE}: file hook`, () => {
    it("brings the memory anchored to a file the model reads with read_file, once: a second read adds nothing", async () => {
      const fixture = await preparedProject(QWEN);
      const login = path.join(fixture.project, "src", "auth", "login.ts");
      fs.mkdirSync(path.dirname(login), { recursive: true });
      fs.writeFileSync(login, "export function login() {\n  return refresh();\n}\n");
      const fileWord = "OSPREY-3"; // only in the anchored memory: the model sees it only if PostToolUse added it
      writeMemory(
        fixture.memoryDir,
        "project-login-refresh.md",
        `---\ndescription: token refresh rule\ntype: project\nanchors:\n  - path: src/auth/login.ts\n---\nEvery change here must keep the ${fileWord} refresh order.\n`,
      );
      const prompt = "Show me what the entry point contains.";
      const answer = "It returns refresh().";
      const server = await serverFor(QWEN, (request) =>
        toolResults(request) < 2 ? { toolCall: { name: "read_file", input: { file_path: login } } } : answer,
      );
      const run = await runAgent("qwen", bin, fixture, { prompt, url: server.url });
      assertAnswered(run, answer);
      await backgroundDone(fixture.home);
      const main = server.requests.filter((request) => QWEN.isMain(request));
      const byResults = (count: number) => main.find((request) => toolResults(request) === count);
      assert.ok(byResults(0) && byResults(1) && byResults(2), `three model requests (${main.length})`);
      assert.equal(occurrences(requestText(byResults(0)!), fileWord), 0, "not before the file was read");
      assert.equal(occurrences(requestText(byResults(1)!), fileWord), 1, "after the read: the memory, once");
      assert.equal(occurrences(requestText(byResults(2)!), fileWord), 1, "the second read adds it no more");
      const fileCalls = hookCalls(fixture).filter((call) => call.event === "post-tool-use");
      assert.equal(fileCalls.length, 2, "the hook ran after each read_file");
    });
  });
}
