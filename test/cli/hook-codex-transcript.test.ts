import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { loadTranscript } from "../../src/agent/transcript.ts";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { extractionRequestOf } from "../helpers/hook-extraction.ts";
import { makeTempDir } from "../helpers/temp.ts";

// Codex's Stop hook names its session file in transcript_path: ~/.codex/sessions/YYYY/MM/DD/
// rollout-<time>-<id>.jsonl, lines {timestamp, type, payload} — session_meta (payload.id),
// response_item with payload {type: "message", role, content: [{type: "input_text"|"output_text",
// text}]}, plus turn_context, event_msg, reasoning and function calls (openai/codex, codex-rs/protocol).
function codexRollout(dir: string): string {
  const file = path.join(
    dir,
    ".codex",
    "sessions",
    "2026",
    "12",
    "01",
    "rollout-2026-12-01T10-00-00-019a2d7a.jsonl",
  );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const at = "2026-12-01T10:00:00.000Z";
  const lines = [
    {
      timestamp: at,
      type: "session_meta",
      payload: { id: "019a2d7a", cwd: dir, cli_version: "0.65.0", source: "cli" },
    },
    {
      timestamp: at,
      type: "response_item",
      payload: {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>" },
        ],
      },
    },
    {
      timestamp: at,
      type: "response_item",
      payload: {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_text",
            text: "From now on run the e2e suite against the staging cluster, never prod.",
          },
        ],
      },
    },
    {
      timestamp: at,
      type: "event_msg",
      payload: { type: "user_message", message: "From now on run the e2e suite…", kind: "plain" },
    },
    { timestamp: at, type: "turn_context", payload: { cwd: dir, model: "gpt-5-codex" } },
    {
      timestamp: at,
      type: "response_item",
      payload: { type: "reasoning", summary: [], encrypted_content: "…" },
    },
    {
      timestamp: at,
      type: "response_item",
      payload: {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Understood: e2e runs go to the staging cluster." }],
      },
    },
  ];
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

describe("Codex session files", () => {
  it("read as the user's and the assistant's messages, with ids that stay the same between reads", () => {
    const file = codexRollout(makeTempDir("memdir-codex-"));
    const first = loadTranscript(file);
    assert.equal(first.sessionId, "019a2d7a");
    assert.deepEqual(
      first.messages.map((message) => [message.role, message.content]),
      [
        ["user", "From now on run the e2e suite against the staging cluster, never prod."],
        ["assistant", "Understood: e2e runs go to the staging cluster."],
      ],
    );
    assert.deepEqual(
      loadTranscript(file).messages.map((message) => message.id),
      first.messages.map((message) => message.id),
    );
  });

  it("reach the extraction when Codex's Stop hook names one", async () => {
    const home = makeTempDir("memdir-codex-");
    const shop = path.join(home, "shop");
    fs.mkdirSync(path.join(home, ".claude", "projects", sanitizeProjectPath(shop), "memory"), {
      recursive: true,
    });
    fs.mkdirSync(shop);
    const transcript = codexRollout(home);
    const sent = await extractionRequestOf(home, "Stop", {
      session_id: "019a2d7a",
      turn_id: "t-1",
      transcript_path: transcript,
      cwd: shop,
      hook_event_name: "Stop",
      model: "gpt-5-codex",
      permission_mode: "default",
      stop_hook_active: false,
      last_assistant_message: "Understood: e2e runs go to the staging cluster.",
    });
    assert.match(sent, /run the e2e suite against the staging cluster, never prod/);
    assert.doesNotMatch(sent, /environment_context/);
  });
});
