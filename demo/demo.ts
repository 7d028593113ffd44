// `npm run demo`: the SPEC's worked example, offline and with no API key.
//
// Project /Users/me/shop keeps two memories, saved two days ago. The user asks to fix a failing
// login integration test. The first request carries the memory index in the user context; the
// relevant-memory prefetch runs beside it and picks feedback-real-database.md; the next request
// carries that memory as a hidden <system-reminder> message.
//
// Everything happens in a temp root that is removed at the end. The model call itself is only
// stood in for here (the agent-loop demo replaces this with the real loop and a local fake model).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveConfig } from "../src/config.ts";
import { getMemoryFiles } from "../src/instructions/files.ts";
import { formatUserContext, prependUserContext } from "../src/instructions/user-context.ts";
import { sanitizeProjectPath } from "../src/memdir/paths.ts";
import { saveMemory } from "../src/memdir/write.ts";
import { collectSettledMemories, startRelevantMemoryPrefetch } from "../src/recall/prefetch.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";
import type { Message, ReadFileState } from "../src/types.ts";

const PROJECT = "/Users/me/shop";
const USER_MESSAGE = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";
const TWO_DAYS_MS = 2 * 86_400_000;

function heading(title: string): void {
  console.log(`\n=== ${title} ${"=".repeat(Math.max(0, 72 - title.length))}\n`);
}

function printRequest(messages: readonly Message[]): void {
  for (const message of messages) {
    const label = `[${message.role}${message.isMeta ? ", hidden (isMeta)" : ""}]`;
    console.log(label);
    console.log(
      `${typeof message.content === "string" ? message.content : JSON.stringify(message.content)}\n`,
    );
  }
}

async function main(): Promise<void> {
  const now = Date.now();
  const temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "memdir-demo-")));
  try {
    const home = path.join(temp, "home");
    const root = path.join(home, ".claude");
    const workspace = path.join(temp, "workspace"); // stands in for the checkout; it has no CLAUDE.md
    fs.mkdirSync(workspace, { recursive: true });
    const projectDir = path.join(root, "projects", sanitizeProjectPath(PROJECT));
    const memoryDir = path.join(projectDir, "memory");

    heading("1. The memory directory of /Users/me/shop");
    // Saved through the one writer (file + index line together), then aged two days.
    const memories = [
      {
        file: "feedback-real-database.md",
        title: "集成测试用真实数据库",
        type: "feedback",
        description: "登录模块的集成测试不得 mock 数据库",
        body: "登录模块的集成测试必须连接真实数据库。\n\n原因：曾经出现过 mock 测试通过、生产迁移失败的情况。\n",
      },
      {
        file: "project-auth-migration.md",
        title: "认证重构的起因",
        type: "project",
        description: "认证重构由合规要求推动",
        body: "认证模块的重构是合规要求推动的，不是为了清理技术债。\n\n原因：会话令牌的存储必须满足新的合规审计。\n",
      },
    ];
    // Saved in two different sessions, both two days ago (hours apart).
    let hoursEarlier = 0;
    for (const memory of memories) {
      const saved = await saveMemory(memoryDir, memory);
      const savedAt = new Date(now - TWO_DAYS_MS - hoursEarlier++ * 3 * 3_600_000);
      fs.utimesSync(saved.path, savedAt, savedAt);
    }
    console.log(`${memoryDir}/`);
    for (const name of fs
      .readdirSync(memoryDir)
      .filter((n) => n.endsWith(".md"))
      .sort())
      console.log(`  ${name}`);
    console.log("\nMEMORY.md:");
    console.log(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"));

    heading("2. First request: the user context carries the index");
    const env = { HOME: home };
    const config = resolveConfig({ cwd: workspace, root, env, home });
    const files = await getMemoryFiles({
      config,
      cwd: workspace,
      home,
      root,
      memoryDir,
      env,
      managedDir: path.join(temp, "managed"),
    });
    const userMessage: Message = { id: "user-1", role: "user", content: USER_MESSAGE };
    const firstRequest = prependUserContext([userMessage], formatUserContext(files, { now: () => now }));
    printRequest(firstRequest);

    heading("3. The prefetch starts beside the first model call");
    const readFileState: ReadFileState = new Map();
    const abort = new AbortController();
    const prefetch = startRelevantMemoryPrefetch(firstRequest, {
      location: { memoryDir, projectDir },
      selector: createLexicalSelector(),
      selectorName: "lexical",
      autoMemory: config.autoMemory,
      readFileState,
      signal: abort.signal,
    });
    try {
      console.log(`searching ${memoryDir} for: ${USER_MESSAGE}`);
      console.log(
        `settled before the first model call? ${prefetch.settledAt !== null ? "yes" : "no (the loop never waits)"}`,
      );

      // The first model call would run here. Its duration is what gives the prefetch time to
      // settle; the demo waits on the prefetch instead of a model.
      const result = await prefetch.promise;
      const recall = result.recalls[0];
      for (const candidate of recall?.candidates ?? []) {
        const score = candidate.score === null ? "-" : candidate.score.toFixed(3);
        console.log(
          `  ${candidate.status.padEnd(12)} ${score.padStart(7)}  ${candidate.file}  ${candidate.reason}`,
        );
      }

      heading("4. After iteration 1: consume the settled prefetch");
      const memoryMessages = collectSettledMemories(prefetch, readFileState, 1);
      console.log(
        `consumed on iteration ${prefetch.consumedOnIteration}: ${memoryMessages.length} memory message(s)`,
      );
      for (const [file, state] of readFileState)
        console.log(`  recorded in readFileState: ${file} (${state.source})`);

      heading("5. The next request carries the memory");
      const assistantTurn: Message = {
        id: "assistant-1",
        role: "assistant",
        content: "(iteration 1: the model reads the failing test with its Read tool …)",
      };
      printRequest([...firstRequest, assistantTurn, ...memoryMessages]);
    } finally {
      prefetch[Symbol.dispose]();
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

await main();
