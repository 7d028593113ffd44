import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { loadTranscript } from "../../src/agent/transcript.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { agentFixture, agentRequests, bodyText, fakeModelEnv, INDEX_LINE } from "./agent-fixture.ts";

const QUESTION = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";

describe("memdir run", () => {
  it("says what to set when no model is configured", async () => {
    const { home, project } = agentFixture();
    const result = await runCliInProcess(["run", "hello there"], { home, cwd: project });
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split("\n").length, 1);
    assert.match(result.stderr, /ANTHROPIC_API_KEY/);
  });

  it("answers with the index in the first request and the recalled memory in a later one, once", async (t) => {
    const { home, project, projectDir } = agentFixture();
    let agentCalls = 0;
    const server = await startFakeModelServer(async (request) => {
      if (request.jsonSchema) return { json: { selected_memories: ["feedback-real-database.md"] } };
      agentCalls += 1;
      // Work (one Glob per call) until the recalled memory arrives, then answer.
      if (
        request.userText.includes("<system-reminder>") ||
        bodyText(request).includes("system-reminder") ||
        agentCalls > 40
      )
        return "已修复：测试继续连接真实数据库。";
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { toolCall: { name: "Glob", input: { pattern: "**/*.test.ts" } } };
    });
    t.after(() => server.close());
    const result = await runCliInProcess(["run", QUESTION], {
      home,
      cwd: project,
      env: fakeModelEnv(server.anthropicBaseURL),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "已修复：测试继续连接真实数据库。");
    assert.match(result.stderr, /↺ recalled: feedback-real-database\.md/);

    const requests = agentRequests(server.requests);
    const first = (requests[0].body as { messages: { role: string; content: unknown }[] }).messages[0];
    assert.equal(first.role, "user");
    const firstText = JSON.stringify(first.content);
    assert.ok(firstText.includes(INDEX_LINE.replace(/"/g, '\\"')), "the index is in the first user message");
    assert.ok(
      firstText.indexOf("MEMORY.md") < firstText.indexOf("修复 src/auth"),
      "context comes before the question",
    );
    assert.equal(bodyText(requests[0]).includes("system-reminder"), false);
    const last = bodyText(requests.at(-1)!);
    assert.equal(
      last.split("<system-reminder>Memory (saved 2 days ago)").length - 1,
      1,
      "surfaced exactly once",
    );
    assert.match(last, /feedback-real-database\.md/);

    const transcripts = fs.readdirSync(projectDir).filter((f) => f.endsWith(".jsonl"));
    assert.equal(transcripts.length, 1);
    const loaded = loadTranscript(path.join(projectDir, transcripts[0]));
    assert.equal(loaded.skippedLines, 0);
    assert.ok(loaded.messages.some((m) => m.content === QUESTION));
  });

  it("prints events as JSON lines with --json, and --resume continues the session", async (t) => {
    const { home, project } = agentFixture();
    const server = await startFakeModelServer(async (request) => {
      if (request.jsonSchema) return { json: { selected_memories: [] } };
      return request.userText.includes("second") ? "Second answer." : "First answer.";
    });
    t.after(() => server.close());
    const env = fakeModelEnv(server.anthropicBaseURL);
    const first = await runCliInProcess(["run", "first question here", "--json"], {
      home,
      cwd: project,
      env,
    });
    assert.equal(first.code, 0, first.stderr);
    const events = first.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; sessionId?: string; text?: string });
    assert.deepEqual(events.at(-2), {
      type: "turn_end",
      reason: "end_turn",
      text: "First answer.",
      turns: 1,
    });
    const session = events.at(-1)!;
    assert.equal(session.type, "session");

    const second = await runCliInProcess(["run", "second question here", "--resume", session.sessionId!], {
      home,
      cwd: project,
      env,
    });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), "Second answer.");
    const resumed = bodyText(agentRequests(server.requests).at(-1)!);
    assert.match(resumed, /first question here/);
    assert.match(resumed, /First answer\./);
  });
});
