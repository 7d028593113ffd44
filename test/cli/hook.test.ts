import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli, runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { WORKED_EXAMPLE_PROMPT, writeWorkedExample } from "../mcp/worked-example.ts";

/**
 * The worked example (docs/design.md#worked-example): project `<home>/shop`, its memory dir under `<home>/.claude/projects/`
 * holding the index and two memories saved two days ago.
 */
function workedExample(): { home: string; project: string; memoryDir: string } {
  const home = makeTempDir("memdir-hook-");
  const project = path.join(home, "shop");
  fs.mkdirSync(project);
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  writeWorkedExample(memoryDir);
  return { home, project, memoryDir };
}

function hookInput(fields: Record<string, unknown>): string {
  return JSON.stringify({ session_id: "s-1", transcript_path: "/nonexistent/s-1.jsonl", ...fields });
}

interface HookAnswer {
  hookSpecificOutput?: { hookEventName: string; additionalContext: string };
}

describe("memdir hook user-prompt-submit", () => {
  it("surfaces the worked example's memory for the worked example's prompt, from the input's cwd", async () => {
    const { home, project } = workedExample();
    const result = await runCliInProcess(["hook", "user-prompt-submit"], {
      home,
      cwd: home, // not the project: the project comes from the hook input
      input: hookInput({ cwd: project, hook_event_name: "UserPromptSubmit", prompt: WORKED_EXAMPLE_PROMPT }),
    });
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout) as HookAnswer;
    assert.equal(answer.hookSpecificOutput?.hookEventName, "UserPromptSubmit");
    const context = answer.hookSpecificOutput?.additionalContext ?? "";
    assert.match(context, /^Memory \(saved 2 days ago\): .*feedback-real-database\.md:/m);
    assert.doesNotMatch(context, /system-reminder/, "the host wraps the context in its own reminder");
    assert.match(context, /登录模块的集成测试必须连接真实数据库/);
    const auth = context.indexOf("project-auth-migration.md");
    assert.ok(
      auth === -1 || auth > context.indexOf("feedback-real-database.md"),
      "the right memory comes first",
    );
  });

  it("saves a plain 'remember …' at once and says so", async () => {
    const { home, project, memoryDir } = workedExample();
    const result = await runCliInProcess(["hook", "user-prompt-submit"], {
      home,
      input: hookInput({ cwd: project, prompt: "remember that we deploy only on Tuesdays" }),
    });
    assert.equal(result.code, 0, result.stderr);
    const context = (JSON.parse(result.stdout) as HookAnswer).hookSpecificOutput?.additionalContext ?? "";
    assert.match(context, /memdir: Saved \w+ memory (\S+\.md)/);
    const file = /memory (\S+\.md)/.exec(context)?.[1] ?? "";
    assert.match(fs.readFileSync(path.join(memoryDir, file), "utf8"), /deploy only on Tuesdays/);
    assert.match(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), new RegExp(`\\(${file}\\)`));
  });

  it("saves only the request's sentence and forgets only a memory the prompt names", async () => {
    const { home, project, memoryDir } = workedExample();
    const prompt = (text: string) =>
      runCliInProcess(["hook", "user-prompt-submit"], {
        home,
        input: hookInput({ cwd: project, prompt: text }),
      });
    const contextOf = (stdout: string) =>
      (JSON.parse(stdout) as HookAnswer).hookSpecificOutput?.additionalContext ?? "";

    const save = await prompt(
      "Remember that the build uses Node 20.\nNow bump the version in package.json and open a PR.",
    );
    assert.equal(save.code, 0, save.stderr);
    const file = /memdir: Saved \w+ memory (\S+\.md)/.exec(contextOf(save.stdout))?.[1] ?? "";
    const saved = fs.readFileSync(path.join(memoryDir, file), "utf8");
    assert.match(saved, /the build uses Node 20\./);
    assert.doesNotMatch(saved, /bump the version|open a PR/, "the next sentence is a task, not the memory");

    // An everyday "删除 …" about code deletes no memory, even one its words match.
    const chore = await prompt("删除登录模块集成测试里没用的 console.log");
    assert.equal(chore.code, 0, chore.stderr);
    assert.doesNotMatch(contextOf(chore.stdout), /memdir: (?:Forgot|No memory matches)/);
    assert.ok(fs.existsSync(path.join(memoryDir, "feedback-real-database.md")));

    const forget = await prompt("忘掉关于认证重构的记忆");
    assert.equal(forget.code, 0, forget.stderr);
    assert.match(
      contextOf(forget.stdout),
      /memdir: Forgot project-auth-migration\.md: 认证重构由合规要求推动/,
    );
    assert.equal(fs.existsSync(path.join(memoryDir, "project-auth-migration.md")), false);
    assert.doesNotMatch(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), /project-auth-migration/);
    assert.ok(fs.existsSync(path.join(memoryDir, "feedback-real-database.md")));
  });

  it("answers {} and exits 0 on malformed or empty stdin", async () => {
    const { home } = workedExample();
    // Two CLI runs; every other malformed shape is covered by test/hooks/events.test.ts.
    for (const input of ["{not json", ""]) {
      const result = await runCli(["hook", "user-prompt-submit"], { home, input });
      assert.equal(result.code, 0, `exit code for ${JSON.stringify(input)}`);
      assert.deepEqual(JSON.parse(result.stdout), {}, `answer for ${JSON.stringify(input)}`);
    }
  });

  it("answers {} when auto memory is off", async () => {
    const { home, project } = workedExample();
    const result = await runCliInProcess(["hook", "user-prompt-submit"], {
      home,
      env: { MEMDIR_DISABLE: "1" },
      input: hookInput({ cwd: project, prompt: WORKED_EXAMPLE_PROMPT }),
    });
    assert.equal(result.code, 0);
    assert.deepEqual(JSON.parse(result.stdout), {});
  });

  it("honours the project's settings when the agent works in a sub-folder", async () => {
    const { home, project } = workedExample();
    fs.mkdirSync(path.join(project, ".git")); // the project root is the repository's root
    fs.mkdirSync(path.join(project, ".claude"));
    fs.writeFileSync(
      path.join(project, ".claude", "settings.json"),
      JSON.stringify({ memdirEnabled: false }), // memdir's own switch (the host's picks the mode)
    );
    const subFolder = path.join(project, "src", "auth");
    fs.mkdirSync(subFolder, { recursive: true });
    for (const event of ["user-prompt-submit", "session-start"]) {
      const result = await runCliInProcess(["hook", event], {
        home,
        input: hookInput({ cwd: subFolder, prompt: WORKED_EXAMPLE_PROMPT }),
      });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), {}, `${event}: auto memory is off for this project`);
    }
    const transcript = path.join(home, "s-1.jsonl");
    fs.writeFileSync(transcript, `${JSON.stringify({ id: "m1", role: "user", content: "hi" })}\n`);
    const stop = await runCliInProcess(["hook", "stop"], {
      home,
      input: hookInput({ cwd: subFolder, transcript_path: transcript, hook_event_name: "Stop" }),
    });
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stderr, /memory is off/i);
    assert.doesNotMatch(stop.stderr, /extraction started/);
  });

  it("asks the configured model to select (hybrid) and surfaces its pick", async () => {
    const { home, project } = workedExample();
    const server = await startFakeModelServer([
      { json: { selected_memories: ["feedback-real-database.md"] } },
    ]);
    after(() => server.close());
    const result = await runCliInProcess(["hook", "user-prompt-submit", "--timeout-ms", "20000"], {
      home,
      env: {
        ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        ANTHROPIC_API_KEY: "test-key",
        MEMDIR_PROVIDER: "anthropic", // memdir itself opted in: a key alone is not enough
      },
      input: hookInput({ cwd: project, prompt: WORKED_EXAMPLE_PROMPT }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 1, "one selection side query");
    const context = (JSON.parse(result.stdout) as HookAnswer).hookSpecificOutput?.additionalContext ?? "";
    assert.match(context, /feedback-real-database\.md:/);
  });
});

describe("memdir hook session-start", () => {
  it("adds the memory rules and the index", async () => {
    const { home, project, memoryDir } = workedExample();
    const result = await runCliInProcess(["hook", "session-start"], {
      home,
      input: hookInput({ cwd: project, hook_event_name: "SessionStart", source: "startup" }),
    });
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout) as HookAnswer;
    assert.equal(answer.hookSpecificOutput?.hookEventName, "SessionStart");
    const context = answer.hookSpecificOutput?.additionalContext ?? "";
    assert.ok(context.includes(memoryDir), "the rules name the memory dir");
    assert.match(context, /## What not to save/);
    assert.ok(context.includes(`Contents of ${path.join(memoryDir, "MEMORY.md")} (user's auto-memory`));
    assert.match(context, /- \[Real database\]\(feedback-real-database\.md\)/);
    assert.doesNotMatch(
      context,
      /登录模块的集成测试必须连接真实数据库/,
      "the index only, never the memory bodies",
    );
  });
});

describe("memdir hook stop", () => {
  it("does nothing and answers {} without a model", async () => {
    const { home, project, memoryDir } = workedExample();
    const transcript = path.join(home, "session.jsonl");
    fs.writeFileSync(transcript, "");
    const before = fs.readdirSync(memoryDir).sort();
    const result = await runCliInProcess(["hook", "stop"], {
      home,
      input: hookInput({ cwd: project, transcript_path: transcript, hook_event_name: "Stop" }),
    });
    assert.equal(result.code, 0);
    assert.deepEqual(JSON.parse(result.stdout), {});
    assert.match(result.stderr, /not configured for a model/);
    assert.deepEqual(fs.readdirSync(memoryDir).sort(), before);
  });

  it("answers {} and exits 0 for an unknown event, with one line saying so", async () => {
    const { home } = workedExample();
    const result = await runCliInProcess(["hook", "pre-tool-use"], { home, input: "{}" });
    assert.equal(result.code, 0);
    assert.deepEqual(JSON.parse(result.stdout), {});
    assert.match(result.stderr, /unknown event "pre-tool-use"/);
    assert.equal(result.stderr.trim().split("\n").length, 1);
  });
});
