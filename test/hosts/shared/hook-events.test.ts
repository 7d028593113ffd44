import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hookDialect, hookOutput, parseHookInput } from "../../../src/hosts/shared/hook-events.ts";

describe("parseHookInput", () => {
  it("reads the common hook fields and ignores the ones it does not know", () => {
    const input = parseHookInput(
      JSON.stringify({
        session_id: "abc",
        transcript_path: "/t/abc.jsonl",
        cwd: "/Users/me/shop",
        hook_event_name: "UserPromptSubmit",
        prompt: "fix the login test",
        permission_mode: "default",
      }),
    );
    assert.deepEqual(input, {
      session_id: "abc",
      transcript_path: "/t/abc.jsonl",
      cwd: "/Users/me/shop",
      hook_event_name: "UserPromptSubmit",
      prompt: "fix the login test",
    });
  });

  for (const [name, text] of [
    ["broken JSON", "{not json"],
    ["empty input", ""],
    ["an array", "[1, 2]"],
    ["a string", '"hello"'],
    ["null", "null"],
  ] as const) {
    it(`gives null for ${name}`, () => {
      assert.equal(parseHookInput(text), null);
    });
  }

  it("reads a field of the wrong type, or null, as absent and keeps the rest", () => {
    // Codex sends "transcript_path": null (codex-rs/hooks/schema/generated/stop.command.input.schema.json).
    assert.deepEqual(parseHookInput('{"prompt": 42, "cwd": "/a"}'), { cwd: "/a" });
    assert.deepEqual(parseHookInput('{"cwd": ["/a"], "prompt": "hi"}'), { prompt: "hi" });
    assert.deepEqual(
      parseHookInput('{"transcript_path": null, "last_assistant_message": null, "cwd": "/a"}'),
      {
        cwd: "/a",
      },
    );
  });
});

describe("hookOutput", () => {
  it("wraps context in hookSpecificOutput with the agent's event name", () => {
    assert.deepEqual(hookOutput("user-prompt-submit", "ctx"), {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ctx" },
    });
    assert.deepEqual(hookOutput("session-start", "x"), {
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "x" },
    });
  });

  it("answers Cursor in its own shape: additional_context at sessionStart, {} elsewhere", () => {
    assert.deepEqual(hookOutput("session-start", "rules", "cursor"), { additional_context: "rules" });
    assert.deepEqual(hookOutput("user-prompt-submit", "ctx", "cursor"), {});
    assert.deepEqual(hookOutput("session-start", "  ", "cursor"), {});
  });

  it("is {} when there is nothing to add", () => {
    assert.deepEqual(hookOutput("stop", null), {});
    assert.deepEqual(hookOutput("user-prompt-submit", "  \n"), {});
  });
});

describe("hookDialect", () => {
  it("tells Cursor's payloads from the hookSpecificOutput hosts' by the payload", () => {
    const cursorStart = parseHookInput(
      JSON.stringify({
        conversation_id: "c",
        generation_id: "g",
        hook_event_name: "sessionStart",
        cursor_version: "2.0.77",
        workspace_roots: ["/work/shop"],
        session_id: "c",
        is_background_agent: false,
        composer_mode: "agent",
      }),
    );
    assert.equal(hookDialect(cursorStart), "cursor");
    assert.deepEqual(cursorStart?.workspace_roots, ["/work/shop"]);
    assert.equal(hookDialect(parseHookInput('{"hook_event_name": "stop", "status": "completed"}')), "cursor");
    for (const name of ["SessionStart", "Stop", "BeforeAgent"])
      assert.equal(
        hookDialect(parseHookInput(JSON.stringify({ hook_event_name: name, cwd: "/a" }))),
        "claude-code",
      );
    assert.equal(hookDialect(parseHookInput("{}")), "claude-code");
    assert.equal(hookDialect(null), "claude-code");
  });
});
