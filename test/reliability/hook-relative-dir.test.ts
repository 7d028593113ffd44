// A relative --dir in a hook resolves against the process's directory, not
// stdin's cwd. The host starts the hook in its own directory (here: home, which holds a decoy
// notes/memory of its own) and names the project in the input's `cwd`; `--dir notes/memory` must
// mean the project's notes/memory for every event, including the detached extraction the stop
// hook starts. Real child processes, the fake model server for the extraction.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { processGone, waitFor } from "../helpers/wait.ts";

/** One memory and its index line in `dir`. */
function oneMemory(dir: string, file: string, title: string, description: string): void {
  writeMemory(dir, file, memory(description, `${description}.`, "project"));
  fs.writeFileSync(path.join(dir, "MEMORY.md"), `- [${title}](${file}) — ${description}\n`);
}

function setUp() {
  const home = makeTempDir("memdir-hook-rel-dir-");
  const shop = path.join(home, "shop");
  const memoryDir = path.join(shop, "notes", "memory");
  oneMemory(memoryDir, "project-staging-reset.md", "Staging resets", "the staging database resets nightly");
  // The same relative path under the host's own directory, with another memory in it.
  const decoyDir = path.join(home, "notes", "memory");
  oneMemory(
    decoyDir,
    "project-staging-kept.md",
    "Staging kept",
    "the staging database keeps its data forever",
  );
  const decoyBefore = fs.readdirSync(decoyDir).sort();
  const decoyUntouched = () => assert.deepEqual(fs.readdirSync(decoyDir).sort(), decoyBefore, "the decoy");
  return { home, shop, memoryDir, decoyUntouched };
}

function context(stdout: string): string {
  const answer = JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: string } };
  return answer.hookSpecificOutput?.additionalContext ?? "";
}

describe("memdir hook --dir <relative> started outside the project", () => {
  it("user-prompt-submit recalls from the project's folder, not the host's", async () => {
    const { home, shop, decoyUntouched } = setUp();
    const result = await runCli(["hook", "user-prompt-submit", "--dir", "notes/memory"], {
      home,
      cwd: home,
      input: JSON.stringify({
        session_id: "s-1",
        cwd: shop,
        hook_event_name: "UserPromptSubmit",
        prompt: "when does the staging database get wiped?",
      }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(context(result.stdout), /project-staging-reset\.md/, result.stderr);
    assert.doesNotMatch(result.stdout, /project-staging-kept/);
    decoyUntouched();
  });

  it("session-start gives the project's index", async () => {
    const { home, shop, decoyUntouched } = setUp();
    const result = await runCli(["hook", "session-start", "--dir", "notes/memory"], {
      home,
      cwd: home,
      input: JSON.stringify({ session_id: "s-1", cwd: shop, hook_event_name: "SessionStart" }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(context(result.stdout), /Staging resets/, result.stderr);
    assert.doesNotMatch(result.stdout, /Staging kept/);
    decoyUntouched();
  });

  it("stop starts the extraction on the project's folder", async () => {
    const { home, shop, memoryDir, decoyUntouched } = setUp();
    const transcript = path.join(home, "s-1.jsonl");
    const line = (message: object) => `${JSON.stringify({ type: "message", sessionId: "s-1", message })}\n`;
    fs.writeFileSync(
      transcript,
      line({ id: "m1", role: "user", content: "Release freeze starts on the 20th." }) +
        line({ id: "m2", role: "assistant", content: [{ type: "text", text: "Noted." }] }),
    );
    const saved = "project-release-freeze.md";
    const server = await startFakeModelServer([
      {
        toolCall: {
          name: "Write",
          input: {
            file_path: path.join(memoryDir, saved),
            content: memory("the release freeze starts on the 20th", "Freeze from the 20th.", "project"),
          },
        },
      },
      "Saved.",
    ]);
    after(() => server.close());
    const result = await runCli(["hook", "stop", "--dir", "notes/memory"], {
      home,
      cwd: home,
      env: {
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        MEMDIR_PROVIDER: "anthropic",
      },
      input: JSON.stringify({
        session_id: "s-1",
        transcript_path: transcript,
        cwd: shop,
        hook_event_name: "Stop",
      }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /extraction started in the background/, result.stderr);
    const pid = Number(/pid (\d+)/.exec(result.stderr)?.[1]);
    assert.ok(Number.isInteger(pid), result.stderr);
    // Until the detached extraction has exited: it still writes its cursor after the save.
    await waitFor(() => processGone(pid), { timeout: 60_000, interval: 100, what: `extraction pid ${pid}` });
    assert.ok(fs.existsSync(path.join(memoryDir, saved)), `the extraction saved in ${memoryDir}`);
    assert.ok(
      JSON.stringify(server.requests[0].body).includes(memoryDir),
      "the extraction was told the project's folder",
    );
    decoyUntouched();
  });
});
