import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { type FakeRequest, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import { fromClaudeCode, installClaudeCode, modelVisibleText, runClaude } from "../helpers/claude-code.ts";
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
  writeQwenUserSettings,
} from "../helpers/headless-agents.ts";

// One project, three real agents, one memory dir: a memory Gemini CLI saves through memdir's MCP
// tool is recalled by memdir's hooks in Qwen Code and in Claude Code, each run headless against
// the fake model server.

const gemini = installHeadlessAgent("gemini");
const qwen = installHeadlessAgent("qwen");
const claude = installClaudeCode();

const ORCHARD = "ORCHARD-42"; // only in the saved memory's body
const SAVE = {
  type: "project",
  description: "the billing database migrates during the March maintenance window",
  content: `The billing database migration runs in the March maintenance window, ticket ${ORCHARD}.\nWhy: finance freezes changes in April.`,
};
const QUESTION = "When does the billing database migration run?";
const ANSWER = "In the March maintenance window.";

/** A fake model server answering every request by `step`, closed when the test ends. */
async function serve(step: (request: FakeRequest) => FakeStep) {
  const server = await startFakeModelServer(step);
  after(() => server.close());
  return server;
}

const TITLE = "one memory dir whichever agent is used (Gemini CLI, Qwen Code, Claude Code: the real CLIs)";
const skipped = [gemini, qwen, claude].find((install) => "skip" in install);
if (skipped !== undefined && "skip" in skipped) it(TITLE, { skip: skipped.skip }, () => {});
else if ("bin" in gemini && "bin" in qwen && "bin" in claude)
  describe(TITLE, () => {
    it("recalls in Qwen Code and in Claude Code the memory saved through Gemini CLI's session", async () => {
      const fixture = await agentProject();
      after(() => killLeftovers(fixture.home));
      writeGeminiUserSettings(fixture.home);
      writeQwenUserSettings(fixture.home);
      await setupAgent(fixture, "gemini");
      await setupAgent(fixture, "qwen", ["--recommended"]);
      await setupAgent(fixture, "claude-code", ["--recommended"]);

      const geminiServer = await serve((request) => {
        if (!fromAgent("gemini", request)) return "not Gemini CLI's";
        if (!request.stream) return { json: { complexity_reasoning: "short", complexity_score: 10 } };
        if (JSON.stringify(request.body?.contents ?? []).includes('"functionResponse"')) return "Saved.";
        return { toolCall: { name: "mcp_memdir_memory_save", input: SAVE } };
      });
      const saved = await runAgent("gemini", gemini.bin, fixture, {
        prompt: `For future sessions: ${SAVE.content.split("\n")[0]}`,
        url: geminiServer.url,
      });
      assertAnswered(saved, "Saved.");
      await backgroundDone(fixture.home);
      const files = memoryFiles(fixture.memoryDir);
      assert.equal(files.length, 1, `Gemini CLI saved one memory: ${files.join(", ")}`);
      assert.ok(fs.readFileSync(path.join(fixture.memoryDir, files[0]!), "utf8").includes(ORCHARD));

      const qwenServer = await serve(() => ANSWER);
      const asked = await runAgent("qwen", qwen.bin, fixture, { prompt: QUESTION, url: qwenServer.url });
      assertAnswered(asked, ANSWER);
      await backgroundDone(fixture.home);
      const qwenMain = qwenServer.requests.filter((request) => fromAgent("qwen", request) && request.stream);
      assert.equal(qwenMain.length, 1, "Qwen Code asked its model once");
      assert.equal(
        occurrences(requestText(qwenMain[0]!), ORCHARD),
        1,
        "Qwen Code's model got the memory, once",
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
        occurrences(modelVisibleText(claudeMain[0]!), ORCHARD),
        1,
        "Claude Code's model got it, once",
      );
    });
  });
