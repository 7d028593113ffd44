import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  listTranscripts,
  loadTranscript,
  openTranscript,
  transcriptPath,
} from "../../src/agent/transcript.ts";
import type { Message } from "../../src/types.ts";
import { makeTempDir } from "../helpers/temp.ts";

const message = (id: string, text: string): Message => ({ id, role: "user", content: text });

describe("transcripts", () => {
  it("appends one JSON line per message and loads them back", () => {
    const projectDir = makeTempDir();
    const transcript = openTranscript({ projectDir });
    transcript.append(message("1", "hello"));
    transcript.append({ id: "2", role: "assistant", content: [{ type: "text", text: "hi" }] });
    transcript.close();
    const lines = fs.readFileSync(transcript.path, "utf8").trim().split("\n");
    assert.equal(lines.length, 2);
    for (const line of lines) JSON.parse(line);
    const loaded = loadTranscript(transcript.path);
    assert.deepEqual(
      loaded.messages.map((m) => m.id),
      ["1", "2"],
    );
    assert.equal(loaded.sessionId, transcript.sessionId);
    assert.equal(path.dirname(transcript.path), projectDir);
  });

  it("skips a torn last line and continues on a fresh line when resumed", () => {
    const projectDir = makeTempDir();
    const first = openTranscript({ projectDir, sessionId: "s1" });
    first.append(message("1", "hello"));
    first.close();
    fs.appendFileSync(first.path, '{"type":"message","sessionId":"s1","mess');
    assert.equal(loadTranscript(first.path).messages.length, 1);
    assert.equal(loadTranscript(first.path).skippedLines, 1);
    const resumed = openTranscript({ projectDir, sessionId: "s1" });
    resumed.append(message("2", "again"));
    resumed.close();
    assert.deepEqual(
      loadTranscript(first.path).messages.map((m) => m.id),
      ["1", "2"],
    );
  });

  it("refuses session ids that would name another path, and lists sessions", () => {
    const projectDir = makeTempDir();
    assert.throws(() => transcriptPath(projectDir, "../escape"), /invalid session id/);
    openTranscript({ projectDir, sessionId: "a" }).close();
    assert.deepEqual(
      listTranscripts(projectDir).map((t) => t.sessionId),
      ["a"],
    );
    assert.throws(() => loadTranscript(path.join(projectDir, "missing.jsonl")), /no session/);
  });
});

describe("loadTranscript with another agent's sessions", () => {
  it("reads the conversation lines of a Claude Code transcript and skips the rest", () => {
    const dir = makeTempDir();
    const file = path.join(dir, "cc-session.jsonl");
    const lines = [
      { type: "summary", summary: "earlier work" },
      {
        type: "user",
        uuid: "u1",
        sessionId: "cc-1",
        message: { role: "user", content: "记住：登录模块的集成测试不得 mock 数据库" },
      },
      {
        type: "assistant",
        uuid: "a1",
        sessionId: "cc-1",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "…" },
            { type: "text", text: "Saving it." },
            { type: "tool_use", id: "t1", name: "Write", input: { file_path: "x.md", content: "x" } },
          ],
        },
      },
      {
        type: "user",
        uuid: "u2",
        sessionId: "cc-1",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "written" }] }],
        },
      },
    ];
    fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const loaded = loadTranscript(file);
    assert.equal(loaded.sessionId, "cc-1");
    assert.deepEqual(
      loaded.messages.map((m) => m.id),
      ["u1", "a1", "u2"],
    );
    assert.equal(loaded.messages[0].content, "记住：登录模块的集成测试不得 mock 数据库");
    assert.deepEqual(loaded.messages[1].content, [
      { type: "text", text: "Saving it." },
      { type: "tool_use", id: "t1", name: "Write", input: { file_path: "x.md", content: "x" } },
    ]);
    assert.deepEqual(loaded.messages[2].content, [
      { type: "tool_result", toolUseId: "t1", content: "written" },
    ]);
  });

  it("reads a Copilot CLI session log (events.jsonl): what the user typed and the assistant's text, by event id", () => {
    // The event shapes Copilot CLI 1.0.102 writes (test/integration/copilot.test.ts reads a real one).
    const file = path.join(makeTempDir(), "events.jsonl");
    const events = [
      { type: "session.start", data: { sessionId: "5e49", copilotVersion: "1.0.102" }, id: "e1" },
      { type: "hook.start", data: { hookType: "userPromptSubmitted", input: { prompt: "When?" } }, id: "e2" },
      {
        type: "user.message",
        data: { content: "When does the freeze start?", transformedContent: "<system_reminder>Memory …" },
        id: "e3",
        timestamp: "2026-12-05T07:18:32.648Z",
      },
      { type: "assistant.message", data: { content: "", toolRequests: [{ name: "view" }] }, id: "e4" },
      { type: "tool.execution_complete", data: { result: { content: "…" } }, id: "e5" },
      { type: "assistant.message", data: { content: "Friday at noon." }, id: "e6" },
    ];
    fs.writeFileSync(file, `${events.map((event) => JSON.stringify(event)).join("\n")}\n`);
    const loaded = loadTranscript(file);
    assert.equal(loaded.sessionId, "5e49");
    assert.deepEqual(loaded.messages, [
      {
        id: "e3",
        role: "user",
        content: "When does the freeze start?",
        timestamp: "2026-12-05T07:18:32.648Z",
      },
      { id: "e6", role: "assistant", content: "Friday at noon." },
    ]);
  });
});
