import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { type FakeRequest, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import { fromClaudeCode, installClaudeCode, modelVisibleText, runClaude } from "../helpers/claude-code.ts";
import { fromCodex, installCodex, runCodex } from "../helpers/codex.ts";
import { assertAnswered } from "../helpers/headless-agent-suite.ts";
import {
  agentProject,
  backgroundDone,
  fromAgent,
  installHeadlessAgent,
  killLeftovers,
  memoryFiles,
  occurrences,
  requestText,
  runAgent,
  setupAgent,
  writeGeminiUserSettings,
} from "../helpers/headless-agents.ts";
import {
  chatText,
  copilotCacheHome,
  installCopilot,
  runAgent as runOpenAIAgent,
} from "../helpers/openai-agents.ts";

// One project, four real agents, one memory dir: a memory Codex saves through memdir's MCP tool
// is recalled by memdir's hooks in Copilot CLI, Gemini CLI and Claude Code, each run headless
// against the fake model server (the other direction of cross-agent.test.ts).

const codex = installCodex();
const copilot = installCopilot();
const gemini = installHeadlessAgent("gemini");
const claude = installClaudeCode();

const HERON = "HERON-19"; // only in the saved memory's body
const SAVE = {
  type: "project",
  description: "the payments service rotates its signing keys on the first Monday",
  content: `The payments service rotates its webhook signing keys on the first Monday of each month, runbook ${HERON}.\nWhy: the acquirer requires monthly rotation.`,
};
const QUESTION = "When does the payments service rotate its webhook signing keys?";
const ANSWER = "On the first Monday of each month.";

/** A fake model server answering every request by `step`, closed when the test ends. */
async function serve(step: (request: FakeRequest) => FakeStep) {
  const server = await startFakeModelServer(step);
  after(() => server.close());
  return server;
}

function hasToolResult(request: FakeRequest): boolean {
  return ((request.body?.input ?? []) as { type?: string }[]).some(
    (item) => item.type === "function_call_output",
  );
}

const TITLE =
  "one memory dir whichever agent is used (Codex saves; Copilot CLI, Gemini CLI, Claude Code recall: the real CLIs)";
const installs = [codex, copilot, gemini, claude];
const skipped = installs.find((install) => "skip" in install);
if (skipped !== undefined && "skip" in skipped) it(TITLE, { skip: skipped.skip }, () => {});
else if ("bin" in codex && "bin" in copilot && "bin" in gemini && "bin" in claude)
  describe(TITLE, () => {
    it("recalls in Copilot CLI, Gemini CLI and Claude Code the memory saved through Codex's session", async () => {
      const fixture = await agentProject();
      after(() => killLeftovers(fixture.home));
      writeGeminiUserSettings(fixture.home);
      await setupAgent(fixture, "codex");
      await setupAgent(fixture, "copilot");
      await setupAgent(fixture, "gemini");
      await setupAgent(fixture, "claude-code", ["--recommended"]);

      const codexServer = await serve((request) => {
        if (!fromCodex(request)) return "not Codex's";
        if (hasToolResult(request)) return "Saved.";
        return { toolCall: { name: "mcp__memdir__memory_save", input: SAVE } };
      });
      const saved = await runCodex(codex.bin, {
        home: fixture.home,
        cwd: fixture.project,
        prompt: `For future sessions: ${SAVE.content.split("\n")[0]}`,
        baseURL: codexServer.openaiBaseURL,
        pathDirs: fixture.pathDirs,
        env: { MEMDIR_HOOK_TIMEOUT_MS: "60000" },
      });
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(saved.stdout.trim(), "Saved.", saved.stderr);
      await backgroundDone(fixture.home);
      const files = memoryFiles(fixture.memoryDir);
      assert.equal(files.length, 1, `Codex saved one memory: ${files.join(", ")}`);
      assert.ok(fs.readFileSync(path.join(fixture.memoryDir, files[0]!), "utf8").includes(HERON));

      const copilotServer = await serve(() => ANSWER);
      const asked = await runOpenAIAgent(copilot.bin, ["--allow-all-tools", "-p", QUESTION], {
        cwd: fixture.project,
        env: {
          PATH: [...fixture.pathDirs, process.env.PATH ?? ""].join(path.delimiter),
          HOME: fixture.home,
          NO_COLOR: "1",
          MEMDIR_HELPER: "0",
          MEMDIR_HOOK_TIMEOUT_MS: "60000",
          XDG_CACHE_HOME: copilotCacheHome(),
          COPILOT_OFFLINE: "true",
          COPILOT_PROVIDER_BASE_URL: copilotServer.openaiBaseURL,
          COPILOT_PROVIDER_TYPE: "openai",
          COPILOT_PROVIDER_API_KEY: "dummy",
          COPILOT_MODEL: "gpt-4.1",
        },
      });
      assert.equal(asked.code, 0, asked.stderr);
      assert.ok(asked.stdout.includes(ANSWER), `${asked.stdout}${asked.stderr}`);
      await backgroundDone(fixture.home);
      const copilotMain = copilotServer.requests.filter((request) => chatText(request).includes(QUESTION));
      assert.ok(copilotMain.length >= 1, "Copilot CLI sent the question");
      assert.equal(
        occurrences(chatText(copilotMain[0]!), HERON),
        1,
        "Copilot CLI's model got the memory, once",
      );

      const geminiServer = await serve((request) => {
        if (!request.stream) return { json: { complexity_reasoning: "short", complexity_score: 10 } };
        return ANSWER;
      });
      const geminiRun = await runAgent("gemini", gemini.bin, fixture, {
        prompt: QUESTION,
        url: geminiServer.url,
      });
      assertAnswered(geminiRun, ANSWER);
      await backgroundDone(fixture.home);
      const geminiMain = geminiServer.requests.filter(
        (request) => fromAgent("gemini", request) && request.stream,
      );
      assert.ok(geminiMain.length >= 1, "Gemini CLI asked its model");
      assert.equal(
        occurrences(requestText(geminiMain[0]!), HERON),
        1,
        "Gemini CLI's model got the memory, once",
      );

      const claudeServer = await serve(() => ANSWER);
      const claudeRun = await runClaude(claude.bin, {
        home: fixture.home,
        cwd: fixture.project,
        prompt: QUESTION,
        baseURL: claudeServer.url,
        pathDirs: fixture.pathDirs,
      });
      assert.equal(claudeRun.code, 0, `${claudeRun.stderr}${claudeRun.stdout}`);
      assert.equal(claudeRun.result?.result, ANSWER, claudeRun.stdout);
      await backgroundDone(fixture.home);
      const claudeMain = claudeServer.requests.filter(
        (request) => fromClaudeCode(request) && modelVisibleText(request).includes(QUESTION),
      );
      assert.ok(claudeMain.length >= 1, "Claude Code sent the question");
      assert.equal(
        occurrences(modelVisibleText(claudeMain[0]!), HERON),
        1,
        "Claude Code's model got it, once",
      );
    });
  });
