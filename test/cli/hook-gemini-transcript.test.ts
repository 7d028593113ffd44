import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { loadTranscript } from "../../src/agent/transcript.ts";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { extractionRequestOf } from "../helpers/hook-extraction.ts";
import { makeTempDir } from "../helpers/temp.ts";

// Gemini CLI's AfterAgent hook names its session file in transcript_path:
// ~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.jsonl — a metadata line {sessionId,
// projectHash, …}, message records {id, timestamp, type: "user"|"gemini"|"info"…, content} (a
// string or parts [{text}]), a record written again under its id as the reply streams in,
// {$rewindTo: id} and {$set: {…}} (google-gemini/gemini-cli, chatRecordingService.ts). Older
// versions wrote one JSON object {sessionId, projectHash, messages} to session-*.json.
const USER_SAID = "From now on deploy previews go to the eu-west cluster, never us-east.";
const REPLY = "Understood: previews deploy to eu-west.";
const at = "2026-12-01T10:00:00.000Z";

function geminiSession(dir: string): string {
  const file = path.join(
    dir,
    ".gemini",
    "tmp",
    "a33c3345",
    "chats",
    "session-2026-12-01T10-00-92f625c6.jsonl",
  );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = [
    { sessionId: "92f625c6-a764", projectHash: "a33c3345", startTime: at, lastUpdated: at },
    { id: "m1", timestamp: at, type: "user", content: [{ text: "deploy previews to us-east" }] },
    { id: "m2", timestamp: at, type: "gemini", content: "Deploying to us-east." },
    { $rewindTo: "m1" },
    { id: "m3", timestamp: at, type: "user", content: [{ text: USER_SAID }] },
    { id: "m4", timestamp: at, type: "info", content: "Switched model." },
    { id: "m5", timestamp: at, type: "gemini", content: "Understood" },
    { id: "m5", timestamp: at, type: "gemini", content: REPLY, toolCalls: [] },
    { $set: { lastUpdated: at } },
  ];
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n{"id": "m6", "ty`);
  return file;
}

describe("Gemini CLI session files", () => {
  it("read as the user's and the model's messages: rewinds and rewrites applied, a torn line skipped", () => {
    const file = geminiSession(makeTempDir("memdir-gemini-"));
    const loaded = loadTranscript(file);
    assert.equal(loaded.sessionId, "92f625c6-a764");
    assert.deepEqual(
      loaded.messages.map((message) => [message.id, message.role, message.content]),
      [
        ["m3", "user", USER_SAID],
        ["m5", "assistant", REPLY],
      ],
    );
    assert.equal(loaded.skippedLines, 1);
  });

  it("keep only what the user said: hook context dropped, displayContent preferred, $set.messages applied", () => {
    const file = path.join(makeTempDir("memdir-gemini-"), "session-2026-12-01T11-00-5e1d.jsonl");
    const recalled = "<hook_context>Memory (saved 3 days ago): previews deploy to us-east</hook_context>";
    const lines = [
      { sessionId: "5e1d", projectHash: "c4" },
      // SessionStart's context, a user entry of its own; then a prompt with BeforeAgent's appended.
      { id: "s0", timestamp: at, type: "user", content: [{ text: recalled }] },
      { id: "u1", timestamp: at, type: "user", content: [{ text: USER_SAID }, { text: recalled }] },
      {
        id: "u2",
        timestamp: at,
        type: "user",
        content: [{ text: "Content from @notes.md: a long file" }, "second part"],
        displayContent: [{ text: "summarize @notes.md" }],
      },
      { id: "g2", timestamp: at, type: "gemini", content: "Summary." },
      { id: "u3", timestamp: at, type: "user", content: "a turn Gemini dropped when it compressed" },
      // Gemini rewrote its history: the list replaces every record before it.
      {
        $set: {
          messages: [
            { id: "u1", timestamp: at, type: "user", content: [{ text: USER_SAID }, { text: recalled }] },
            { id: "u2", timestamp: at, type: "user", content: "x", displayContent: "summarize @notes.md" },
            { id: "g2", timestamp: at, type: "gemini", content: ["Summary", "."] },
          ],
        },
      },
    ];
    fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    assert.deepEqual(
      loadTranscript(file).messages.map((message) => [message.id, message.role, message.content]),
      [
        ["u1", "user", USER_SAID],
        ["u2", "user", "summarize @notes.md"],
        ["g2", "assistant", "Summary."],
      ],
    );
  });

  it("read in the older one-object form too", () => {
    const file = path.join(makeTempDir("memdir-gemini-"), "session-2025-11-12T09-44-2f32182a.json");
    const messages = [
      { id: "a", timestamp: at, type: "user", content: USER_SAID },
      { id: "b", timestamp: at, type: "gemini", content: [{ text: "Understood: " }, { text: "eu-west." }] },
    ];
    fs.writeFileSync(file, JSON.stringify({ sessionId: "2f32182a", projectHash: "b1", messages }, null, 2));
    assert.deepEqual(
      loadTranscript(file).messages.map((message) => [message.role, message.content]),
      [
        ["user", USER_SAID],
        ["assistant", "Understood: eu-west."],
      ],
    );
  });

  it("reach the extraction when Gemini's AfterAgent hook names one", async () => {
    const home = makeTempDir("memdir-gemini-");
    const shop = path.join(home, "shop");
    fs.mkdirSync(path.join(home, ".claude", "projects", sanitizeProjectPath(shop), "memory"), {
      recursive: true,
    });
    fs.mkdirSync(shop);
    const transcript = geminiSession(home);
    const sent = await extractionRequestOf(home, "AfterAgent", {
      session_id: "92f625c6-a764",
      transcript_path: transcript,
      cwd: shop,
      hook_event_name: "AfterAgent",
      timestamp: at,
      prompt: USER_SAID,
      prompt_response: REPLY,
      stop_hook_active: false,
    });
    assert.match(sent, /deploy previews go to the eu-west cluster, never us-east/);
    assert.doesNotMatch(sent, /Deploying to us-east/, "the rewound turn is not extracted");
  });
});
