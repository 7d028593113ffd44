import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createExtractor, type ExtractionReport } from "../../src/extract/extractor.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const MEMORY_TEXT =
  "---\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\n---\nIntegration tests of the login module must hit a real database.\n";
const INDEX_LINE =
  "- [Real database in login tests](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库\n";

function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, ".claude/projects/-shop/memory");
  writeTree(project, { "src/auth/login.ts": "export {};\n" });
  writeTree(memoryDir, {
    "MEMORY.md": "- [Auth migration](project-auth-migration.md) — 认证重构由合规要求推动\n",
    "project-auth-migration.md":
      "---\ndescription: 认证重构由合规要求推动\ntype: project\n---\nCompliance drives it.\n",
  });
  return { home, project, memoryDir };
}

async function fakeModel(script: FakeStep[]) {
  const server = await startFakeModelServer(script);
  after(() => server.close());
  const client = createAnthropicClient({
    apiKey: "test-key",
    baseURL: server.anthropicBaseURL,
    maxRetries: 0,
  });
  return { server, client };
}

let nextId = 0;
function turn(userText: string, answer: string): Message[] {
  nextId += 1;
  return [
    { id: `u${nextId}`, role: "user", content: userText },
    { id: `a${nextId}`, role: "assistant", content: [{ type: "text", text: answer }] },
  ];
}

/** The extraction prompts the fake model received (one per run). */
function promptsSeen(server: { requests: { userText: string }[] }): string[] {
  return server.requests.map((r) => r.userText).filter((text) => text.includes("# Memory extraction"));
}

describe("createExtractor", () => {
  it("writes a memory and its index line, tells the user, and advances the cursor", async () => {
    const { project, memoryDir } = setup();
    const { server, client } = await fakeModel([
      {
        toolCalls: [
          {
            name: "Write",
            input: { file_path: path.join(memoryDir, "feedback-real-database.md"), content: MEMORY_TEXT },
          },
          {
            name: "Edit",
            input: {
              file_path: path.join(memoryDir, "MEMORY.md"),
              old_string: "认证重构由合规要求推动\n",
              new_string: `认证重构由合规要求推动\n${INDEX_LINE}`,
            },
          },
        ],
      },
      "Saved one feedback memory.",
    ]);
    const notices: string[] = [];
    const messages = turn(
      "以后登录模块的集成测试不要 mock 数据库，上次 mock 通过了但迁移失败了",
      "好的，我会用真实数据库。",
    );
    const extractor = createExtractor({
      memoryDir,
      client,
      cwd: project,
      notify: (text) => notices.push(text),
    });
    await extractor.schedule({ messages });

    // The writer stamps who wrote it (docs/design.md#provenance); the rest is the model's text.
    assert.equal(
      fs.readFileSync(path.join(memoryDir, "feedback-real-database.md"), "utf8"),
      MEMORY_TEXT.replace("type: feedback\n", "type: feedback\nsource: extraction\n"),
    );
    assert.match(
      fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"),
      /\(feedback-real-database\.md\)/,
    );
    assert.deepEqual(notices, ["Saved 1 memory"]);
    assert.equal(extractor.cursor, messages.at(-1)?.id);
    const [prompt] = promptsSeen(server);
    assert.match(prompt, /newest 2 messages/);
    assert.match(
      prompt,
      /project-auth-migration\.md .*认证重构由合规要求推动/,
      "the manifest is in the prompt",
    );
    assert.match(prompt, /\*\*feedback\*\*/);
    assert.equal(server.requests.length, 2, "at most the turns it needed");
  });

  it("reports an edit of an existing memory as updated and an index-only edit as nothing", async () => {
    const { project, memoryDir } = setup();
    const { client } = await fakeModel([
      {
        toolCall: {
          name: "Edit",
          input: {
            file_path: path.join(memoryDir, "project-auth-migration.md"),
            old_string: "Compliance drives it.",
            new_string: "Compliance drives it; the deadline is 2026-06-30.",
          },
        },
      },
      "Updated the migration memory.",
      {
        toolCall: {
          name: "Edit",
          input: {
            file_path: path.join(memoryDir, "MEMORY.md"),
            old_string: "Auth migration",
            new_string: "Auth rework",
          },
        },
      },
      "Only tidied the index.",
    ]);
    const notices: string[] = [];
    const reports: ExtractionReport[] = [];
    const extractor = createExtractor({
      memoryDir,
      client,
      cwd: project,
      notify: (text) => notices.push(text),
      onReport: (report) => reports.push(report),
    });
    const first = turn("the auth rework is due 2026-06-30", "Noted.");
    await extractor.schedule({ messages: first });
    await extractor.schedule({ messages: [...first, ...turn("thanks", "You're welcome.")] });

    assert.deepEqual(notices, ["Updated 1 memory"]);
    assert.deepEqual(
      reports.map((r) => r.status),
      ["done", "done"],
    );
    const second = reports[1];
    assert.ok(second.status === "done");
    assert.deepEqual(second.result.written, ["MEMORY.md"]);
    assert.equal(second.notice, null);
  });

  it("may end without writing anything", async () => {
    const { project, memoryDir } = setup();
    const { client } = await fakeModel(["Nothing worth remembering."]);
    const notices: string[] = [];
    const extractor = createExtractor({
      memoryDir,
      client,
      cwd: project,
      notify: (text) => notices.push(text),
    });
    const messages = turn("what time is it?", "I can't tell.");
    await extractor.schedule({ messages });
    assert.deepEqual(notices, []);
    assert.equal(extractor.cursor, messages.at(-1)?.id);
  });

  it("coalesces turns ending during a slow run into exactly one trailing run that sees both", async () => {
    const { project, memoryDir } = setup();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    // Every run answers in one model call; the first one waits until the test releases it.
    const server = await startFakeModelServer(async () => {
      calls += 1;
      active += 1;
      maxActive = Math.max(maxActive, active);
      if (calls === 1) await slow;
      active -= 1;
      return "Nothing to save.";
    });
    after(() => server.close());
    const client = createAnthropicClient({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const reports: ExtractionReport[] = [];
    const extractor = createExtractor({ memoryDir, client, cwd: project, onReport: (r) => reports.push(r) });

    const first = turn("turn one", "answer one");
    const second = [...first, ...turn("turn two", "answer two")];
    const third = [...second, ...turn("turn three: we deploy on Fridays", "answer three")];
    const done = extractor.schedule({ messages: first });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(extractor.running, true);
    const waitSecond = extractor.schedule({ messages: second });
    const waitThird = extractor.schedule({ messages: third });
    release();
    await Promise.all([done, waitSecond, waitThird]);

    const prompts = promptsSeen(server);
    assert.equal(prompts.length, 2, "one run, then exactly one trailing run");
    assert.equal(maxActive, 1, "never two runs at once");
    assert.match(prompts[1], /newest 4 messages/, "the trailing run covers both turns that ended meanwhile");
    const trailing = server.requests[1].body?.messages as { content: unknown }[];
    assert.match(JSON.stringify(trailing), /turn three: we deploy on Fridays/);
    assert.equal(extractor.cursor, third.at(-1)?.id);
    assert.deepEqual(
      reports.map((r) => [r.status, r.newMessages]),
      [
        ["done", 2],
        ["done", 4],
      ],
    );
  });

  it("skips when the main agent wrote into the memory dir itself, advancing the cursor", async () => {
    const { project, memoryDir } = setup();
    const { server, client } = await fakeModel(["Nothing else to save."]);
    const reports: ExtractionReport[] = [];
    const extractor = createExtractor({ memoryDir, client, cwd: project, onReport: (r) => reports.push(r) });
    const wrote: Message[] = [
      { id: "s1", role: "user", content: "remember that I prefer pnpm" },
      {
        id: "s2",
        role: "assistant",
        content: [
          {
            type: "tool_use",
            id: "t1",
            name: "Write",
            // Relative to the project, through `..`: still the memory dir once resolved.
            input: { file_path: path.relative(project, path.join(memoryDir, "user-pnpm.md")), content: "x" },
          },
        ],
      },
      { id: "s3", role: "user", content: [{ type: "tool_result", toolUseId: "t1", content: "Created" }] },
      { id: "s4", role: "assistant", content: [{ type: "text", text: "Saved." }] },
    ];
    await extractor.schedule({ messages: wrote });
    assert.equal(server.requests.length, 0, "no model call for a turn the main agent already saved");
    assert.equal(extractor.cursor, "s4");

    const later = [...wrote, ...turn("run the tests", "All green.")];
    await extractor.schedule({ messages: later });
    assert.deepEqual(
      reports.map((r) => r.status),
      ["skipped", "done"],
    );
    assert.match(
      promptsSeen(server)[0],
      /newest 2 messages/,
      "only the messages after the skipped turn count",
    );
  });

  it("does not advance the cursor after a failure, so the next run covers those messages again", async () => {
    const { project, memoryDir } = setup();
    const { server, client } = await fakeModel([{ error: 500, message: "overloaded" }, "Nothing to save."]);
    const logged: string[] = [];
    const reports: ExtractionReport[] = [];
    const extractor = createExtractor({
      memoryDir,
      client,
      cwd: project,
      log: (line) => logged.push(line),
      onReport: (r) => reports.push(r),
    });
    const first = turn("we ship on the 1st of each month", "OK.");
    await extractor.schedule({ messages: first });
    assert.equal(extractor.cursor, null);
    assert.equal(reports[0].status, "failed");
    assert.equal(logged.length, 1);
    assert.match(logged[0], /^memdir: extraction failed: /);

    await extractor.schedule({ messages: [...first, ...turn("ok", "ok")] });
    assert.match(promptsSeen(server)[1], /newest 4 messages/);
    assert.equal(reports[1].status, "done");
  });

  it("counts every message when the cursor's message is gone (compaction)", async () => {
    const { project, memoryDir } = setup();
    const { server, client } = await fakeModel(["Nothing.", "Nothing."]);
    const extractor = createExtractor({ memoryDir, client, cwd: project });
    await extractor.schedule({ messages: turn("a", "b") });
    const compacted: Message[] = [
      { id: "summary", role: "user", content: "Summary of the earlier conversation: …" },
      ...turn("c", "d"),
    ];
    await extractor.schedule({ messages: compacted });
    assert.match(promptsSeen(server)[1], /newest 3 messages/);
  });

  it("waits for a running extraction on drain, up to the timeout, and dispose aborts it", async () => {
    const { project, memoryDir } = setup();
    const { client } = await fakeModel([{ hang: true }]);
    const logged: string[] = [];
    const extractor = createExtractor({ memoryDir, client, cwd: project, log: (line) => logged.push(line) });
    const done = extractor.schedule({ messages: turn("x", "y") });
    assert.equal(await extractor.drain(20), false, "still running when the timeout passes");
    extractor.dispose();
    await done;
    assert.equal(await extractor.drain(), true);
    assert.equal(extractor.cursor, null);
    assert.deepEqual(logged, [], "an abort on exit is not reported as a failure");
  });
});
