import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { createHookRegistry } from "../../src/agent/hooks.ts";
import { type LoopEvent, queryLoop } from "../../src/agent/loop.ts";
import { mainAgentPermissions } from "../../src/agent/permissions.ts";
import { createToolContext } from "../../src/agent/tools/spec.ts";
import { defaultTools } from "../../src/agent/tools.ts";
import type { Message } from "../../src/types.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { deferredSelector, keywordSelector } from "../recall/fake-selectors.ts";
import { requestText, scriptedClient } from "./scripted-client.ts";

const INDEX = "- [Real database](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库\n";

function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const projectDir = path.join(home, ".claude/projects/-shop");
  const memoryDir = path.join(projectDir, "memory");
  writeTree(project, { "src/auth/login.integration.test.ts": "test('login', () => {});\n" });
  writeTree(memoryDir, {
    "MEMORY.md": INDEX,
    "feedback-real-database.md":
      "---\ndescription: login integration tests must not mock the database\ntype: feedback\n---\nHit a real database.\n",
  });
  const toolContext = createToolContext({ cwd: project, memoryDir });
  const permissions = mainAgentPermissions({ projectRoot: project, memoryDir });
  return { home, project, projectDir, memoryDir, toolContext, permissions };
}

const user = (text: string): Message => ({ id: `u-${text.length}`, role: "user", content: text });

async function collect(events: AsyncIterable<LoopEvent>): Promise<LoopEvent[]> {
  const all: LoopEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe("queryLoop", () => {
  it("sends the user context (with the index) as the first hidden message and the rules in the system prompt", async () => {
    const { memoryDir, toolContext, permissions } = setup();
    const client = scriptedClient(["Done."]);
    const events = await collect(
      queryLoop({
        messages: [user("fix the failing login test")],
        userContext: `Contents of ${memoryDir}/MEMORY.md (user's auto-memory):\n\n${INDEX}`,
        systemPrompt: "You are a coding agent.",
        tools: defaultTools,
        client,
        memory: { memoryDir, rules: "MEMORY RULES HERE" },
        permissions,
        toolContext,
      }),
    );
    const first = client.requests[0];
    assert.equal(first.messages[0].isMeta, true);
    assert.match(first.messages[0].content as string, /feedback-real-database\.md/);
    assert.equal(first.messages[1].content, "fix the failing login test");
    assert.match(first.system ?? "", /You are a coding agent\.\n\nMEMORY RULES HERE/);
    assert.deepEqual(
      first.tools?.map((t) => t.name),
      ["Read", "Write", "Edit", "Glob", "Grep"],
    );
    const end = events.at(-1);
    assert.equal(end?.type, "turn_end");
    assert.equal((end as { text: string }).text, "Done.");
  });

  it("surfaces a recalled memory in a later request, once", async () => {
    const { projectDir, memoryDir, toolContext, permissions } = setup();
    let toolRounds = 0;
    // The selection answers only once the first request is on its way: no memory can be in it.
    const selection = deferredSelector(keywordSelector());
    const client = scriptedClient([
      async (request, index) => {
        // Keep working (one Glob per call) until the recalled memory arrives, then two more rounds.
        if (index === 0) {
          await selection.started;
          selection.release();
        }
        if (requestText(request).includes("<system-reminder>")) toolRounds += 1;
        if (toolRounds > 2) return "Fixed, using the real database.";
        return { toolCalls: [{ name: "Glob", input: { pattern: "**/*.ts" } }] };
      },
    ]);
    const events = await collect(
      queryLoop({
        messages: [user("fix the failing login integration test")],
        tools: defaultTools,
        client,
        memory: {
          memoryDir,
          rules: "rules",
          prefetch: { location: { memoryDir, projectDir }, selector: selection.selector },
        },
        permissions,
        toolContext,
        maxTurns: 200,
      }),
    );
    assert.equal(
      requestText(client.requests[0]).includes("<system-reminder>"),
      false,
      "not in the first request",
    );
    const last = client.requests.at(-1)!;
    const reminders = last.messages.filter(
      (m) => m.isMeta && typeof m.content === "string" && m.content.includes("feedback-real-database.md"),
    );
    assert.equal(reminders.length, 1, "surfaced exactly once");
    assert.match(
      reminders[0].content as string,
      /^<system-reminder>Memory \(saved [^)]+\): .*feedback-real-database\.md:/,
    );
    const surfaced = events.filter((e) => e.type === "memory_surfaced");
    assert.equal(surfaced.length, 1);
    assert.deepEqual((surfaced[0] as { files: string[] }).files, [
      path.join(memoryDir, "feedback-real-database.md"),
    ]);
  });

  it("answers without waiting for a hanging prefetch, and aborts it when the loop ends", async () => {
    const { projectDir, memoryDir, toolContext, permissions } = setup();
    const hanging = deferredSelector();
    let selectorSignal: AbortSignal | undefined;
    const client = scriptedClient([
      async () => {
        // Answer only once the selector is hanging, so the answer provably did not wait for it.
        selectorSignal = (await hanging.started).signal;
        return "Here is the answer.";
      },
    ]);
    const events = await collect(
      queryLoop({
        messages: [user("fix the failing login integration test")],
        tools: defaultTools,
        client,
        memory: {
          memoryDir,
          rules: "rules",
          prefetch: { location: { memoryDir, projectDir }, selector: hanging.selector },
        },
        permissions,
        toolContext,
      }),
    );
    assert.equal((events.at(-1) as { text: string }).text, "Here is the answer.");
    assert.ok(selectorSignal, "the selector was running during the turn");
    assert.equal(selectorSignal.aborted, true, "the prefetch was aborted when the loop ended");
    assert.equal(hanging.aborted, true, "the hanging selection saw the abort");
  });

  it("returns a refused write outside the allowed places to the model as an error result", async () => {
    const { home, toolContext, permissions, memoryDir } = setup();
    const outside = path.join(home, "outside.txt");
    const client = scriptedClient([
      { toolCalls: [{ name: "Write", input: { file_path: outside, content: "x" } }] },
      "I may not write there.",
    ]);
    const events = await collect(
      queryLoop({
        messages: [user("write a file outside")],
        tools: defaultTools,
        client,
        memory: { memoryDir, rules: "rules" },
        permissions,
        toolContext,
      }),
    );
    assert.equal(fs.existsSync(outside), false);
    const toolMessage = client.requests[1].messages.at(-1)!;
    const block = (toolMessage.content as { type: string; isError?: boolean; content: string }[])[0];
    assert.equal(block.type, "tool_result");
    assert.equal(block.isError, true);
    assert.match(block.content, /refused/);
    const result = events.find((e) => e.type === "tool_result") as { refused: boolean };
    assert.equal(result.refused, true);
  });

  it("turns tool failures and unknown tools into error results, never crashes", async () => {
    const { toolContext, permissions } = setup();
    const client = scriptedClient([
      {
        toolCalls: [
          { name: "Read", input: { file_path: "missing.ts" } },
          { name: "Teleport", input: {} },
          { name: "Edit", input: { file_path: 42 } },
        ],
      },
      "ok",
    ]);
    const events = await collect(
      queryLoop({ messages: [user("go")], tools: defaultTools, client, permissions, toolContext }),
    );
    const results = events.filter((e) => e.type === "tool_result") as { isError: boolean; content: string }[];
    assert.deepEqual(
      results.map((r) => r.isError),
      [true, true, true],
    );
    assert.match(results[1].content, /Unknown tool Teleport/);
    assert.match(results[2].content, /invalid input/);
    assert.equal((events.at(-1) as { reason: string }).reason, "end_turn");
  });

  it("with auto memory off sends no rules, no index and recalls nothing", async () => {
    const { toolContext, permissions } = setup();
    const client = scriptedClient(["ok"]);
    await collect(
      queryLoop({
        messages: [user("fix the failing login integration test")],
        systemPrompt: "base",
        tools: defaultTools,
        client,
        memory: null,
        permissions,
        toolContext,
      }),
    );
    assert.equal(client.requests[0].system, "base");
    assert.equal(client.requests[0].messages.length, 1);
  });

  it("fires stop hooks without waiting for them, and logs their failures", async () => {
    const { toolContext, permissions } = setup();
    const logged: string[] = [];
    const hooks = createHookRegistry({ log: (line) => logged.push(line) });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    let slowFinished = false;
    hooks.onStop("slow", async () => {
      await slow;
      slowFinished = true;
    });
    hooks.onStop("broken", () => {
      throw new Error("boom");
    });
    const events = await collect(
      queryLoop({
        messages: [user("hello there")],
        tools: defaultTools,
        client: scriptedClient(["answer"]),
        permissions,
        toolContext,
        hooks,
      }),
    );
    assert.equal(events.at(-1)?.type, "turn_end");
    assert.equal(slowFinished, false, "the answer came back before the hook finished");
    release();
    await hooks.drain();
    assert.equal(slowFinished, true);
    assert.deepEqual(logged, ["memdir: stop hook broken failed: boom"]);
  });

  it("ends with reason aborted when the user aborts during a model call", async () => {
    const { toolContext, permissions } = setup();
    const controller = new AbortController();
    const client = scriptedClient([
      async (request) => {
        controller.abort();
        request.signal?.throwIfAborted();
        return "never";
      },
    ]);
    const events = await collect(
      queryLoop({
        messages: [user("go on")],
        tools: defaultTools,
        client,
        permissions,
        toolContext,
        signal: controller.signal,
      }),
    );
    assert.equal((events.at(-1) as { reason: string }).reason, "aborted");
  });
});
