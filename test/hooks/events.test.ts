import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hookOutput, parseHookInput } from "../../src/hooks/events.ts";

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
    ["a prompt that is not text", '{"prompt": 42}'],
    ["a cwd that is not text", '{"cwd": ["/a"]}'],
  ] as const) {
    it(`gives null for ${name}`, () => {
      assert.equal(parseHookInput(text), null);
    });
  }
});

describe("hookOutput", () => {
  it("wraps context in hookSpecificOutput with the agent's event name", () => {
    assert.deepEqual(hookOutput("user-prompt-submit", "ctx"), {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ctx" },
    });
    assert.equal(hookOutput("session-start", "x").hookSpecificOutput?.hookEventName, "SessionStart");
  });

  it("is {} when there is nothing to add", () => {
    assert.deepEqual(hookOutput("stop", null), {});
    assert.deepEqual(hookOutput("user-prompt-submit", "  \n"), {});
  });
});
