import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { runCli, runProcess } from "../helpers/cli.ts";
import { extractionRequestOf } from "../helpers/hook-extraction.ts";
import { writeMemory } from "../helpers/memory.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";

// Cursor's hooks (cursor.com/docs/agent/hooks, and the hooks.json of projects that answer it):
// every input has conversation_id, generation_id, model, hook_event_name (camelCase), cursor_version,
// workspace_roots, user_email, transcript_path, and no cwd; sessionStart adds session_id,
// is_background_agent, composer_mode and reads `{additional_context, env, continue}` back; stop adds
// status and loop_count and reads `{followup_message}`; beforeSubmitPrompt adds prompt and
// attachments and reads `{continue, user_message}` (no context). User-level hooks run in ~/.cursor.

function cursorProject() {
  const home = makeTempDir("memdir-cursor-");
  const shop = path.join(home, "shop");
  fs.mkdirSync(path.join(home, ".cursor"), { recursive: true });
  fs.mkdirSync(shop);
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(shop), "memory");
  fs.mkdirSync(memoryDir, { recursive: true });
  writeMemory(
    memoryDir,
    "feedback-staging-db.md",
    "---\ndescription: integration tests use the staging database, never mocks\ntype: feedback\n---\nWhy: mocks hid a broken migration.\n",
  );
  fs.writeFileSync(
    path.join(memoryDir, "MEMORY.md"),
    "- [Staging DB](feedback-staging-db.md) — integration tests hit the staging database\n",
  );
  return { home, shop, memoryDir };
}

function cursorInput(shop: string, event: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    conversation_id: "conv-7f3a",
    generation_id: "gen-19c2",
    model: "claude-sonnet-4",
    hook_event_name: event,
    cursor_version: "2.0.77",
    workspace_roots: [shop],
    user_email: "dev@example.com",
    transcript_path: null,
    ...extra,
  });
}

/** Runs a hooks.json `command` the way Cursor does: through the shell, JSON on stdin. */
function runHookCommand(command: string, options: { cwd: string; home: string; input: string }) {
  // The memory helper off, as in runCli: this file tests Cursor's shapes (test/helper/ tests the
  // helper); a helper that session start launched was still making its socket folder in the
  // temp HOME while the test removed it (ENOTEMPTY).
  const env = { PATH: process.env.PATH ?? "", HOME: options.home, NO_COLOR: "1", MEMDIR_HELPER: "0" };
  return runProcess("/bin/sh", ["-c", command], { cwd: options.cwd, env, input: options.input });
}

describe("memdir hook in Cursor", () => {
  it("answers what `memdir setup cursor` wires in Cursor's shape, with the workspace root as the project", async () => {
    const { home, shop } = cursorProject();
    const command = [process.execPath, ...cliNodeArgs()].join(" ");
    const setup = await runCli(["setup", "cursor", "--command", command, "--json"], { home, cwd: shop });
    assert.equal(setup.code, 0, setup.stderr);
    const hooks = JSON.parse(fs.readFileSync(path.join(home, ".cursor", "hooks.json"), "utf8")) as {
      hooks: Record<string, Array<{ command: string }>>;
    };
    assert.deepEqual(Object.keys(hooks.hooks).sort(), ["sessionStart", "stop"]);
    // User-level hooks run in ~/.cursor, far from the project: only workspace_roots names it.
    const cursorDir = path.join(home, ".cursor");

    const start = await runHookCommand(hooks.hooks.sessionStart[0].command, {
      cwd: cursorDir,
      home,
      input: cursorInput(shop, "sessionStart", {
        session_id: "conv-7f3a",
        is_background_agent: false,
        composer_mode: "agent",
      }),
    });
    assert.equal(start.code, 0, start.stderr);
    const answer = JSON.parse(start.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(answer), ["additional_context"], start.stdout);
    const context = String(answer.additional_context);
    assert.match(context, /integration tests hit the staging database/);
    assert.ok(context.length <= 10_000, `${context.length} characters`);
    assert.doesNotMatch(context, /<system-reminder>/);

    const stop = await runHookCommand(hooks.hooks.stop[0].command, {
      cwd: cursorDir,
      home,
      input: cursorInput(shop, "stop", { status: "completed", loop_count: 0 }),
    });
    assert.equal(stop.code, 0, stop.stderr);
    assert.deepEqual(JSON.parse(stop.stdout), {});
    assert.equal(stop.stderr.trim().split("\n").length, 1, stop.stderr);
  });

  it("gives {} to Cursor's prompt and end events, which take no context, and never blocks", async () => {
    const { home, shop } = cursorProject();
    const cases: [string, string, string][] = [
      [
        "beforeSubmitPrompt",
        "user-prompt-submit",
        cursorInput(shop, "beforeSubmitPrompt", {
          prompt: "do the integration tests mock the db?",
          attachments: [],
        }),
      ],
      [
        "sessionEnd",
        "session-end",
        cursorInput(shop, "sessionEnd", {
          session_id: "conv-7f3a",
          reason: "user_close",
          duration_ms: 5000,
          final_status: "completed",
        }),
      ],
      ["an aborted stop", "stop", cursorInput(shop, "stop", { status: "aborted", loop_count: 2 })],
    ];
    for (const [what, event, input] of cases) {
      const result = await runCli(["hook", event], { home, cwd: path.join(home, ".cursor"), input });
      assert.equal(result.code, 0, `${what}: ${result.stderr}`);
      assert.deepEqual(JSON.parse(result.stdout), {}, what);
      assert.equal(result.stderr.trim().split("\n").length, 1, `${what}: ${result.stderr}`);
    }
    const prompt = await runCli(["hook", "user-prompt-submit"], {
      home,
      input: cursorInput(shop, "beforeSubmitPrompt", { prompt: "staging database?" }),
    });
    assert.match(prompt.stderr, /Cursor takes no context before a prompt/);
  });

  it("still answers Claude Code's SessionStart in hookSpecificOutput", async () => {
    const { home, shop } = cursorProject();
    const result = await runCli(["hook", "session-start"], {
      home,
      input: JSON.stringify({
        session_id: "s",
        transcript_path: null,
        cwd: shop,
        hook_event_name: "SessionStart",
      }),
    });
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout) as { hookSpecificOutput?: { additionalContext: string } };
    assert.match(answer.hookSpecificOutput?.additionalContext ?? "", /staging database/);
  });
  // Failed before: Cursor's transcript lines ({role, message: {content}}, no type, no id) matched
  // none of the readers, and its stop input has no final message: extraction saw nothing.
  it("hands its stop hook's transcript to the extraction: the user's query and the reply, not Cursor's added context", async () => {
    const { home, shop } = cursorProject();
    const transcript = path.join(home, ".cursor", "projects", "shop", "agent-transcripts", "c1", "c1.jsonl");
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    const lines = [
      {
        role: "user",
        message: {
          content: [
            {
              type: "text",
              text: "<user_info>OS: linux, shell: zsh, open file: src/deploy.ts</user_info>\n<user_query>\nFrom now on release builds are signed with the hardware key, never the CI key.\n</user_query>",
            },
          ],
        },
      },
      {
        role: "assistant",
        message: { content: [{ type: "tool_use", name: "read_file", input: { path: "x" } }] },
      },
      {
        role: "assistant",
        message: { content: [{ type: "text", text: "Noted: the hardware key signs release builds." }] },
      },
    ];
    fs.writeFileSync(transcript, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const sent = await extractionRequestOf(
      home,
      "stop",
      JSON.parse(
        cursorInput(shop, "stop", { status: "completed", loop_count: 0, transcript_path: transcript }),
      ),
    );
    assert.match(sent, /release builds are signed with the hardware key, never the CI key/);
    assert.match(sent, /Noted: the hardware key signs release builds/);
    assert.doesNotMatch(sent, /shell: zsh/, "Cursor's own context is not the user speaking");
  });
});
