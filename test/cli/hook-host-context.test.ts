import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadTranscript } from "../../src/agent/transcript.ts";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { type FakeModelServer, startFakeModelServer } from "../../src/testing/index.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

// What hosts wrap around the user's words. Gemini CLI headless prepends the session-start context
// to the prompt as <hook_context>…</hook_context> and adds its environment as
// <session_context>…</session_context>; Qwen Code fires its prompt event again with "prompt": ""
// after every tool round. memdir reads the user's words only.

/** A project `<home>/shop` whose memory holds the login memory, and its session-start context. */
async function shopWithLoginMemory() {
  const home = makeTempDir("memdir-host-context-");
  const shop = path.join(home, "shop");
  fs.mkdirSync(shop);
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(shop), "memory");
  writeMemory(
    memoryDir,
    "project-login-tests.md",
    memory(
      "the login integration tests hit a real database",
      "Login tests use the real database.",
      "project",
    ),
  );
  fs.writeFileSync(
    path.join(memoryDir, "MEMORY.md"),
    "- [Login tests](project-login-tests.md) — the login integration tests hit a real database\n",
  );
  const started = await runCliInProcess(["hook", "session-start"], {
    home,
    input: JSON.stringify({ hook_event_name: "SessionStart", cwd: shop, source: "startup" }),
  });
  const sessionContext = JSON.parse(started.stdout).hookSpecificOutput.additionalContext as string;
  assert.match(sessionContext, /login/, "the session-start context holds the index");
  return { home, shop, memoryDir, sessionContext };
}

const beforeAgent = (cwd: string, prompt: string) =>
  JSON.stringify({
    session_id: "g-1",
    transcript_path: null,
    cwd,
    hook_event_name: "BeforeAgent",
    timestamp: "2026-12-01T10:00:00.000Z",
    prompt,
  });

describe("memdir hook reads the user's words, not the host's context blocks", () => {
  it("recalls nothing for Gemini's headless 'what is 2+2?' although the prepended session context names the login memory", async () => {
    const { home, shop, sessionContext } = await shopWithLoginMemory();
    const prompt = `<hook_context>${sessionContext}</hook_context>\n\nwhat is 2+2?`;
    const result = await runCliInProcess(["hook", "before-agent"], {
      home,
      input: beforeAgent(shop, prompt),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /project-login-tests/, "recall ran on memdir's own index");
  });

  it("saves 'remember …' after Gemini's prepended hook and session context", async () => {
    const { home, shop, memoryDir, sessionContext } = await shopWithLoginMemory();
    const prompt =
      `<session_context>This is the Gemini CLI. Today's date is Tuesday. My operating system is linux.</session_context>\n` +
      `<hook_context>${sessionContext}</hook_context>\n` +
      "remember that the staging database listens on port 5433";
    const result = await runCliInProcess(["hook", "before-agent"], {
      home,
      input: beforeAgent(shop, prompt),
    });
    assert.equal(result.code, 0, result.stderr);
    const saved = fs
      .readdirSync(memoryDir)
      .filter((file) => file.endsWith(".md") && file !== "MEMORY.md")
      .map((file) => fs.readFileSync(path.join(memoryDir, file), "utf8"));
    assert.ok(
      saved.some((text) => text.includes("5433")),
      `nothing saved; the hook said: ${result.stdout} ${result.stderr}`,
    );
    assert.ok(!saved.some((text) => text.includes("hook_context")), "the host's block was saved");
  });

  describe("an empty prompt (Qwen Code after each tool round)", () => {
    const servers: FakeModelServer[] = [];
    after(async () => {
      await Promise.all(servers.map((server) => server.close()));
    });

    it("answers {} with no recall, even with a model configured", async () => {
      const { home, shop } = await shopWithLoginMemory();
      const server = await startFakeModelServer([]);
      servers.push(server);
      for (const prompt of ["", "<hook_context>memdir: rules and index</hook_context>"]) {
        const result = await runCliInProcess(["hook", "UserPromptSubmit"], {
          home,
          env: {
            MEMDIR_PROVIDER: "anthropic",
            ANTHROPIC_API_KEY: "sk-memdir",
            ANTHROPIC_BASE_URL: server.anthropicBaseURL,
          },
          input: JSON.stringify({
            hook_event_name: "UserPromptSubmit",
            cwd: shop,
            session_id: "q-1",
            prompt,
          }),
        });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout.trim(), "{}", `prompt ${JSON.stringify(prompt)}`);
        assert.match(result.stderr, /holds no prompt/);
      }
      assert.equal(server.requests.length, 0, "an empty prompt cost a model call");
    });
  });

  it("extraction reads Gemini's user record without its <session_context> block", () => {
    const file = path.join(makeTempDir("memdir-gemini-"), "session-2026-12-01T11-00-5e1d.jsonl");
    const said = "deploy previews to eu-west from now on";
    const at = "2026-12-01T10:00:00.000Z";
    const lines = [
      { sessionId: "5e1d", projectHash: "c4" },
      {
        id: "u1",
        timestamp: at,
        type: "user",
        content: [
          {
            text: "<session_context>This is the Gemini CLI. My operating system is linux.</session_context>",
          },
          { text: said },
        ],
      },
      { id: "g1", timestamp: at, type: "gemini", content: "Noted." },
    ];
    fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    assert.deepEqual(
      loadTranscript(file).messages.map((message) => [message.role, message.content]),
      [
        ["user", said],
        ["assistant", "Noted."],
      ],
    );
  });
});

describe("memdir hook --host copilot", () => {
  it("answers with a top-level additionalContext, which Copilot CLI reads (it ignores hookSpecificOutput)", async () => {
    const { home, shop } = await shopWithLoginMemory();
    const payload = (event: string, prompt?: string) =>
      JSON.stringify({ hook_event_name: event, session_id: "c-1", cwd: shop, ...(prompt ? { prompt } : {}) });
    const started = await runCliInProcess(["hook", "session-start", "--host", "copilot"], {
      home,
      input: payload("SessionStart"),
    });
    assert.equal(started.code, 0, started.stderr);
    const start = JSON.parse(started.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(start), ["additionalContext"]);
    assert.match(String(start.additionalContext), /project-login-tests\.md/);
    const prompted = await runCliInProcess(["hook", "user-prompt-submit", "--host", "copilot"], {
      home,
      input: payload("UserPromptSubmit", "why do the login integration tests hit a real database?"),
    });
    const prompt = JSON.parse(prompted.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(prompt), ["additionalContext"]);
    assert.match(String(prompt.additionalContext), /Login tests use the real database/);
  });

  it("says the host kept the key out when memdir's settings name a provider whose key is missing", async () => {
    const { home, shop } = await shopWithLoginMemory();
    fs.writeFileSync(
      path.join(home, ".claude", "settings.json"),
      JSON.stringify({ memdirProvider: "openai" }),
    );
    const transcript = path.join(home, "session.jsonl");
    fs.writeFileSync(transcript, "");
    const stopped = await runCliInProcess(["hook", "stop", "--host", "copilot"], {
      home,
      input: JSON.stringify({
        hook_event_name: "Stop",
        session_id: "c-1",
        cwd: shop,
        transcript_path: transcript,
      }),
    });
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stdout.trim(), "{}");
    assert.match(
      stopped.stderr,
      /configured for openai \(memdirProvider in user settings\) but OPENAI_API_KEY/,
    );
    assert.match(stopped.stderr, /host did not pass it/);
    assert.doesNotMatch(stopped.stderr, /no model configured/);
  });
});
