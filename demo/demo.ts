// `npm run demo`: the worked example (docs/design.md#worked-example) through the real agent loop, offline, no API key.
//
// The model is a local fake server (`memdir/testing`) that replays a script over real HTTP; every
// other part is the real thing: the session builder, the user context with the MEMORY.md index,
// the memory rules, the file tools writing through memdir's single writer, the relevance prefetch
// (hybrid selector: lexical pre-rank + the model's side query), and the JSONL transcripts.
//
// Session 1: the user says 记住：登录模块的集成测试不得 mock 数据库 and the model saves the memory
// file and its index line with its Write tool. Session 2 (two days later): the user asks to fix the
// failing login test; we print the first request (the index is in it) and the later request that
// carries the recalled memory in a <system-reminder>.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyExplicitMemory } from "../src/extract/explicit.ts";
import { EXPLICIT_MEMORY_HOOK } from "../src/extract/wire.ts";
import { openMemdir } from "../src/memdir/instance.ts";
import { saveMemory } from "../src/memdir/write/write.ts";
import { explainRecall } from "../src/recall/explain.ts";
import { recall } from "../src/recall/recall.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";
import { type AgentSession, createAgentSession } from "../src/session/agent-session.ts";
import { type FakeRequest, startFakeModelServer } from "../src/testing/index.ts";

const REMEMBER = "记住：登录模块的集成测试不得 mock 数据库";
const FIX = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";
const TWO_DAYS_MS = 2 * 86_400_000;
const MEMORY_FILE = "feedback-real-database.md";
const MEMORY_TEXT = `---
description: 登录模块的集成测试不得 mock 数据库
type: feedback
---
登录模块的集成测试必须连接真实数据库，不得 mock。

Why: 曾经出现过 mock 测试通过、生产迁移却失败的情况。
`;
const INDEX_LINE = `- [集成测试用真实数据库](${MEMORY_FILE}) — 登录模块的集成测试不得 mock 数据库\n`;

function heading(title: string): void {
  console.log(`\n=== ${title} ${"=".repeat(Math.max(0, 72 - title.length))}\n`);
}

/** Prints a request's messages as the Anthropic client sent them over HTTP. */
function printRequest(request: FakeRequest, options: { only?: (text: string) => boolean } = {}): void {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  for (const message of messages) {
    const blocks =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const block of blocks as {
      type: string;
      text?: string;
      name?: string;
      input?: unknown;
      content?: unknown;
    }[]) {
      const text =
        block.type === "text"
          ? (block.text ?? "")
          : block.type === "tool_use"
            ? `tool_use ${block.name} ${JSON.stringify(block.input)}`
            : `tool_result ${JSON.stringify(block.content).slice(0, 100)}…`;
      if (options.only && !options.only(text)) continue;
      console.log(`[${message.role}] ${text}\n`);
    }
  }
}

/** Runs one user turn and narrates it. */
async function turn(session: AgentSession, text: string): Promise<void> {
  console.log(`user › ${text}\n`);
  for await (const event of session.runTurn(text)) {
    if (event.type === "tool_call")
      console.log(`  · ${event.name} ${(event.input as { file_path?: string }).file_path ?? ""}`);
    if (event.type === "tool_result" && event.memoryFile)
      console.log(`  ✎ saved through the single writer: ${event.memoryFile}`);
    if (event.type === "memory_surfaced")
      console.log(`  ↺ recalled: ${event.files.map((f) => path.basename(f)).join(", ")}`);
    if (event.type === "turn_end") console.log(`\nassistant › ${event.text}`);
  }
  await session.close();
}

async function main(): Promise<void> {
  const temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "memdir-demo-")));
  const home = path.join(temp, "home");
  const project = path.join(temp, "shop"); // stands in for /Users/me/shop
  fs.mkdirSync(path.join(project, "src/auth"), { recursive: true });
  fs.writeFileSync(
    path.join(project, "src/auth/login.integration.test.ts"),
    "test('login works', async () => {\n  const db = await connectTestDatabase();\n  expect(await login(db, 'me', 'pw')).toBe(true);\n});\n",
  );

  // The stand-in model. One script answers both kinds of request: the selector's side query
  // (it asks for JSON) and the agent's turns.
  let memoryDir = "";
  let phase: "remember" | "fix" = "remember";
  let rememberCalls = 0;
  const server = await startFakeModelServer(async (request) => {
    if (request.jsonSchema) {
      const picks = request.userText.includes(MEMORY_FILE) ? [MEMORY_FILE] : [];
      return { json: { selected_memories: picks } };
    }
    if (phase === "remember") {
      rememberCalls += 1;
      if (rememberCalls === 1)
        return {
          toolCall: {
            name: "Write",
            input: { file_path: path.join(memoryDir, MEMORY_FILE), content: MEMORY_TEXT },
          },
        };
      if (rememberCalls === 2)
        return {
          toolCall: {
            name: "Write",
            input: { file_path: path.join(memoryDir, "MEMORY.md"), content: INDEX_LINE },
          },
        };
      return "记住了：登录模块的集成测试必须连接真实数据库。";
    }
    // Session 2: look at the failing test until the recalled memory has arrived, then answer.
    if (JSON.stringify(request.body).includes("<system-reminder>"))
      return "已修复：测试继续连接真实数据库（按照记忆中的要求，没有引入 mock）。";
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { toolCall: { name: "Read", input: { file_path: "src/auth/login.integration.test.ts" } } };
  });

  try {
    console.log("The model below is memdir's local fake model server (memdir/testing) replaying a script");
    console.log(`over HTTP at ${server.url}. No API key, no network. Everything else is the real loop.`);
    const env = { HOME: home, ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_BASE_URL: server.anthropicBaseURL };
    const sessionOptions = {
      cwd: project,
      env,
      home,
      managedDir: path.join(temp, "managed"),
      log: console.error,
    };

    heading("Session 1: the user asks the agent to remember a rule");
    const first = await createAgentSession(sessionOptions);
    memoryDir = first.location.memoryDir;
    // memdir's offline "remember …" rule would save this statement itself before the model is
    // called; it is switched off for this session to show the model doing it with its tools.
    first.hooks.off(EXPLICIT_MEMORY_HOOK);
    console.log("(the offline 'remember …' rule is off here, so the model saves it with its own tools)\n");
    await turn(first, REMEMBER);
    console.log(`\n${memoryDir}/MEMORY.md:\n${fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8")}`);
    console.log(`${MEMORY_FILE}:\n${fs.readFileSync(path.join(memoryDir, MEMORY_FILE), "utf8")}`);
    console.log(`transcript: ${first.transcript.path}`);

    // The worked example's second memory, saved the same day (through the single writer).
    console.log(
      "\nThe same day, a second memory is saved: project-auth-migration.md (认证重构由合规要求推动).",
    );
    await saveMemory(memoryDir, {
      file: "project-auth-migration.md",
      type: "project",
      description: "认证重构由合规要求推动",
      title: "认证重构的动因",
      body: "认证模块的重构是合规要求推动的，不是为了清理技术债。\n\n原因：会话令牌的存储必须满足新的合规审计。",
    });
    // Two days pass.
    const twoDaysAgo = new Date(Date.now() - TWO_DAYS_MS);
    for (const file of [MEMORY_FILE, "project-auth-migration.md"])
      fs.utimesSync(path.join(memoryDir, file), twoDaysAgo, twoDaysAgo);

    heading("Session 2 (two days later): fix the failing login test");
    phase = "fix";
    const before = server.requests.length;
    const second = await createAgentSession(sessionOptions);
    await turn(second, FIX);
    // The main agent's requests (background extraction also talks to the model after the turn).
    const agentRequests = server.requests
      .slice(before)
      .filter((r) => r.jsonSchema === null && r.system.includes("careful coding agent"));
    const selectorRequests = server.requests.slice(before).filter((r) => r.jsonSchema !== null);

    heading("The first request: the user context carries the MEMORY.md index");
    printRequest(agentRequests[0]);

    heading("The prefetch's side query (ran beside the first model call)");
    console.log(
      `${selectorRequests.length} selection request(s) with the manifest; the scripted model answered {"selected_memories": ["${MEMORY_FILE}"]}`,
    );

    const withMemory = agentRequests.find((r) => JSON.stringify(r.body).includes("<system-reminder>"));
    heading(
      `A later request (#${agentRequests.indexOf(withMemory!) + 1}): the recalled memory as a hidden message`,
    );
    if (withMemory) printRequest(withMemory, { only: (text) => text.includes("<system-reminder>") });
    else console.log("(the memory did not arrive before the answer in this run)");

    await offlineEpilogue(path.join(temp, "offline-memory"), memoryDir);
  } finally {
    await server.close();
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** Part 3: the same cycle with no model at all — the explicit rule saves, lexical recall picks. */
async function offlineEpilogue(offlineDir: string, memoryDir: string): Promise<void> {
  heading("Offline, no model: '记住：…' is saved by memdir's own rule");
  console.log(
    `(into a separate, empty memory dir, ${offlineDir}, so the session's memories stay as they are)\n`,
  );
  const saved = await applyExplicitMemory(REMEMBER, { memoryDir: offlineDir });
  if (saved.action === "saved") console.log(`Saved ${saved.type} memory ${saved.file}: ${saved.description}`);
  console.log(fs.readFileSync(path.join(offlineDir, "MEMORY.md"), "utf8"));

  heading("Offline recall (lexical selector) for the fix request");
  const result = await recall({
    memoryDir,
    query: FIX,
    selector: createLexicalSelector(),
    memdir: openMemdir(memoryDir, { watch: false }),
  });
  for (const candidate of explainRecall(result))
    console.log(
      `  ${candidate.status.padEnd(11)} ${candidate.file}  (score ${candidate.score === null ? "–" : candidate.score.toFixed(2)})`,
    );
  console.log(
    `\nwould inject ${result.messages.length} hidden message(s): ${result.selected.map((m) => m.file).join(", ")}`,
  );
}

await main();
