// Reliability: the shared hostile-path table (hostile-path-cases.ts) against the agent's Write and Edit tools
// under the extraction permissions (`memoryOnlyPermissions`), driven through the real agent loop
// with an in-process scripted model: every attempt is refused by the permission check, the
// refusal goes back to the model as an error result, and nothing outside the memory dir changes.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { type LoopEvent, queryLoop } from "../../src/agent/loop.ts";
import { memoryOnlyPermissions } from "../../src/agent/permissions.ts";
import { createToolContext } from "../../src/agent/tools/spec.ts";
import { defaultTools } from "../../src/agent/tools.ts";
import type { ModelClient, ModelResponse } from "../../src/model/client.ts";
import { counted } from "../helpers/reliability-counts.ts";
import {
  HOSTILE_PATH_CASES,
  type HostileCase,
  makeHostileFixture,
  prepareHostileCase,
  snapshotOutside,
} from "./hostile-path-cases.ts";

type ToolResultEvent = Extract<LoopEvent, { type: "tool_result" }>;

/** A model that asks for one tool call, then ends its turn. */
function scriptedClient(name: string, input: Record<string, unknown>): ModelClient {
  let calls = 0;
  return {
    name: "scripted",
    async complete(): Promise<ModelResponse> {
      calls++;
      const usage = { inputTokens: 1, outputTokens: 1 };
      if (calls > 1) return { content: [{ type: "text", text: "Done." }], stopReason: "end_turn", usage };
      return { content: [{ type: "tool_use", id: "call-1", name, input }], stopReason: "tool_use", usage };
    },
  };
}

/** Runs one agent turn whose only tool call is `name(input)` in `memoryDir`; returns the tool result. */
async function runToolCall(
  memoryDir: string,
  name: string,
  input: Record<string, unknown>,
): Promise<ToolResultEvent> {
  let result: ToolResultEvent | undefined;
  for await (const event of queryLoop({
    messages: [{ id: "u1", role: "user", content: "save what you learned" }],
    tools: defaultTools,
    client: scriptedClient(name, input),
    permissions: memoryOnlyPermissions({ memoryDir }),
    // The extraction agent runs with the memory dir as its working directory.
    toolContext: createToolContext({ cwd: memoryDir, memoryDir }),
  })) {
    if (event.type === "tool_result") result = event;
  }
  assert.ok(result, `${name}: the loop ran no tool call`);
  return result;
}

const TOOL_INPUTS: Record<string, (requested: string) => Record<string, unknown>> = {
  Write: (file_path) => ({
    file_path,
    content: "---\ndescription: escaped\ntype: user\n---\nwritten where it must not be\n",
  }),
  // The victim's own text, so an Edit that got through would really change it.
  Edit: (file_path) => ({
    file_path,
    old_string: "original victim content",
    new_string: "edited by an escape",
  }),
};

/**
 * Relative names that stay inside the memory dir as the tool resolves them (against its cwd, the
 * memory dir: a folder literally named `~` or `C:`), so the permission check lets them through;
 * the single writer then refuses the suspicious name (Write), or Edit finds no such file. Either
 * way the call fails and nothing is written anywhere.
 */
const INSIDE_AS_RESOLVED = new Set(["home-relative", "Windows drive with slash"]);

function expectRefused(testCase: HostileCase, tool: string): Promise<void> {
  return counted("escapes", () => refused(testCase, tool));
}

async function refused(testCase: HostileCase, tool: string): Promise<void> {
  const fixture = makeHostileFixture();
  const { memoryDir, requested } = prepareHostileCase(testCase, fixture);
  const before = snapshotOutside(fixture);
  const indexBefore = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
  const result = await runToolCall(memoryDir, tool, TOOL_INPUTS[tool](requested));
  assert.equal(result.isError, true, `${tool} ${JSON.stringify(requested)} succeeded: ${result.content}`);
  if (INSIDE_AS_RESOLVED.has(testCase.name)) {
    assert.match(result.content, tool === "Write" ? /memdir: write: the path/ : /does not exist/);
  } else {
    assert.equal(
      result.refused,
      true,
      `${tool} ${JSON.stringify(requested)} was not refused by the permission check: ${result.content}`,
    );
    assert.match(
      result.content,
      new RegExp(`^${tool} refused: this agent may write only inside the memory directory`),
    );
  }
  assert.deepEqual(
    snapshotOutside(fixture),
    before,
    `${testCase.name}: ${tool} changed something outside the memory dir`,
  );
  assert.equal(
    fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8"),
    indexBefore,
    `${testCase.name}: MEMORY.md changed although ${tool} was refused`,
  );
}

describe("hostile paths against the agent's Write and Edit under the extraction permissions", () => {
  it("allows a plain write inside the memory dir (so the refusals below mean something)", async () => {
    const fixture = makeHostileFixture();
    const result = await runToolCall(fixture.memoryDir, "Write", TOOL_INPUTS.Write("feedback-fine.md"));
    assert.equal(result.refused, false, result.content);
    assert.equal(result.isError, false, result.content);
    assert.ok(
      fs.existsSync(path.join(fixture.memoryDir, "feedback-fine.md")),
      "the allowed write did not land",
    );
    const edit = await runToolCall(fixture.memoryDir, "Edit", {
      file_path: path.join(fixture.memoryDir, "existing.md"),
      old_string: "body",
      new_string: "edited body",
    });
    assert.equal(edit.refused, false, edit.content);
    assert.match(fs.readFileSync(path.join(fixture.memoryDir, "existing.md"), "utf8"), /edited body/);
  });

  for (const tool of Object.keys(TOOL_INPUTS)) {
    describe(tool, () => {
      for (const testCase of HOSTILE_PATH_CASES) {
        it(testCase.name, () => expectRefused(testCase, tool));
      }
    });
  }
});
