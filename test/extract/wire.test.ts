import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createHookRegistry } from "../../src/agent/hooks.ts";
import { type LoopEvent, queryLoop } from "../../src/agent/loop.ts";
import { mainAgentPermissions } from "../../src/agent/permissions.ts";
import { createToolContext } from "../../src/agent/tools/spec.ts";
import { defaultTools } from "../../src/agent/tools.ts";
import type { ExtractionReport } from "../../src/extract/extractor.ts";
import { installMemoryHooks } from "../../src/extract/wire.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import type { ModelClient } from "../../src/model/client.ts";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { type ScriptedReply, scriptedClient } from "../agent/scripted-client.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, ".claude/projects/-shop/memory");
  writeTree(project, { "src/auth/login.ts": "export {};\n" });
  fs.mkdirSync(memoryDir, { recursive: true });
  return { project, memoryDir };
}

async function fakeExtractionModel(script: FakeStep[]) {
  const server = await startFakeModelServer(script);
  after(() => server.close());
  return {
    server,
    client: createAnthropicClient({ apiKey: "test-key", baseURL: server.anthropicBaseURL, maxRetries: 0 }),
  };
}

/** Runs one main-agent turn through the real loop with the memory hooks installed. */
async function runTurn(options: {
  project: string;
  memoryDir: string;
  userText: string;
  replies: ScriptedReply[];
  extractionClient: ModelClient | null;
  notices?: string[];
  logged?: string[];
  reports?: ExtractionReport[];
  bare?: boolean;
}) {
  const logged = options.logged ?? [];
  const hooks = createHookRegistry({ log: (line) => logged.push(line) });
  const memoryHooks = installMemoryHooks({
    hooks,
    memoryDir: options.memoryDir,
    cwd: options.project,
    client: options.extractionClient,
    bare: options.bare,
    log: (line) => logged.push(line),
    onReport: (report) => options.reports?.push(report),
  });
  const mainClient = scriptedClient(options.replies);
  const messages: Message[] = [{ id: "u1", role: "user", content: options.userText }];
  const events: LoopEvent[] = [];
  for await (const event of queryLoop({
    messages,
    tools: defaultTools,
    client: mainClient,
    memory: { memoryDir: options.memoryDir, rules: "Memory rules." },
    permissions: mainAgentPermissions({ projectRoot: options.project, memoryDir: options.memoryDir }),
    toolContext: createToolContext({ cwd: options.project, memoryDir: options.memoryDir }),
    hooks,
    notify: (text) => options.notices?.push(text),
  })) {
    events.push(event);
  }
  return { hooks, memoryHooks, events, mainClient };
}

function memoryFiles(memoryDir: string): string[] {
  return fs.readdirSync(memoryDir).filter((name) => name.endsWith(".md") && name !== "MEMORY.md");
}

describe("installMemoryHooks", () => {
  it("saves the demo's 记住：… message before the model is called, offline (no extraction model)", async () => {
    const { project, memoryDir } = setup();
    let filesWhenModelCalled: string[] = [];
    const { events, memoryHooks } = await runTurn({
      project,
      memoryDir,
      userText: "记住：登录模块的集成测试不得 mock 数据库",
      replies: [
        () => {
          filesWhenModelCalled = memoryFiles(memoryDir);
          return "好的，记住了。";
        },
      ],
      extractionClient: null,
    });
    assert.equal(memoryHooks.extractor, null, "no background extraction without a model");
    assert.equal(filesWhenModelCalled.length, 1, "saved before the first model call");
    const saved = events.find((e) => e.type === "memory_saved");
    assert.deepEqual(saved?.type === "memory_saved" ? saved.files : [], filesWhenModelCalled);
    const notice = events.find((e) => e.type === "notice");
    assert.match(
      notice?.type === "notice" ? notice.text : "",
      /^Saved feedback memory .*: 登录模块的集成测试不得 mock 数据库$/,
    );
    assert.match(
      fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"),
      /登录模块的集成测试不得 mock 数据库/,
    );
  });

  it("never saves from the assistant's text", async () => {
    const { project, memoryDir } = setup();
    await runTurn({
      project,
      memoryDir,
      userText: "what should our test policy be?",
      replies: ["记住：登录模块的集成测试不得 mock 数据库"],
      extractionClient: null,
    });
    assert.deepEqual(fs.readdirSync(memoryDir), []);
  });

  it("extracts in the background after the answer and tells the user what it saved", async () => {
    const { project, memoryDir } = setup();
    const { server, client } = await fakeExtractionModel([
      {
        toolCall: {
          name: "Write",
          input: {
            file_path: path.join(memoryDir, "user-data-scientist.md"),
            content: "---\ndescription: the user is a data scientist\ntype: user\n---\nData scientist.\n",
          },
        },
      },
      "Saved one user memory.",
    ]);
    const notices: string[] = [];
    const { events, hooks } = await runTurn({
      project,
      memoryDir,
      userText: "I'm a data scientist, explain the login test to me",
      replies: ["It checks the login flow against a real database."],
      extractionClient: client,
      notices,
    });
    const end = events.at(-1);
    assert.equal(end?.type === "turn_end" ? end.reason : null, "end_turn");
    await hooks.drain();
    assert.deepEqual(notices, ["Saved 1 memory"]);
    assert.ok(fs.existsSync(path.join(memoryDir, "user-data-scientist.md")));
    assert.match(JSON.stringify(server.requests[0].body?.messages), /explain the login test/);
  });

  it("never fails the user's turn when extraction fails; the failure is logged", async () => {
    const { project, memoryDir } = setup();
    const { client } = await fakeExtractionModel([{ error: 500, message: "overloaded" }]);
    const logged: string[] = [];
    const { events, hooks } = await runTurn({
      project,
      memoryDir,
      userText: "we release on Fridays",
      replies: ["Noted."],
      extractionClient: client,
      logged,
    });
    await hooks.drain();
    const end = events.at(-1);
    assert.equal(end?.type === "turn_end" ? end.reason : null, "end_turn");
    assert.ok(!events.some((e) => e.type === "error"));
    assert.equal(logged.length, 1);
    assert.match(logged[0], /extraction failed/);
  });

  it("does not extract in bare mode, and installs nothing when auto memory is off", async () => {
    const { project, memoryDir } = setup();
    const { server, client } = await fakeExtractionModel([]);
    const { memoryHooks, hooks } = await runTurn({
      project,
      memoryDir,
      userText: "we release on Fridays",
      replies: ["Noted."],
      extractionClient: client,
      bare: true,
    });
    await hooks.drain();
    assert.equal(memoryHooks.extractor, null);
    assert.equal(server.requests.length, 0);

    const off = installMemoryHooks({ hooks: createHookRegistry(), memoryDir: null, cwd: "/", client });
    assert.equal(off.extractor, null);
    assert.equal(await off.drain(), true);
  });

  it("leaves forked agents alone: the stop hook ignores a non-main agent", async () => {
    const { project, memoryDir } = setup();
    const { server, client } = await fakeExtractionModel([]);
    const hooks = createHookRegistry();
    installMemoryHooks({ hooks, memoryDir, cwd: project, client });
    hooks.runStopHooks({
      messages: [{ id: "1", role: "user", content: "hi" }],
      memoryDir,
      toolContext: createToolContext({ cwd: project, memoryDir }),
      isMainAgent: false,
      notify: () => {},
    });
    await hooks.drain();
    assert.equal(server.requests.length, 0);
  });
});
