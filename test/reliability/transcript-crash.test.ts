import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { loadTranscript } from "../../src/agent/transcript.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { agentFixture, fakeModelEnv } from "../cli/agent-fixture.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { recordReliability } from "../helpers/reliability-counts.ts";

describe("transcripts survive SIGKILL", () => {
  it("leaves valid JSONL holding every message written before the kill", async (t) => {
    const { home, project, projectDir } = agentFixture();
    let hung!: () => void;
    const hanging = new Promise<void>((resolve) => {
      hung = resolve;
    });
    let agentCalls = 0;
    const server = await startFakeModelServer(async (request) => {
      if (request.jsonSchema) return { json: { selected_memories: [] } };
      agentCalls += 1;
      if (agentCalls === 1)
        return { toolCall: { name: "Read", input: { file_path: "src/auth/login.integration.test.ts" } } };
      hung();
      return { hang: true };
    });
    t.after(() => server.close());
    const child = spawn(process.execPath, [...cliNodeArgs(), "run", "read the login test please"], {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        NO_COLOR: "1",
        ...fakeModelEnv(server.anthropicBaseURL),
      },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await Promise.race([hanging, exited]);
    child.kill("SIGKILL");
    await exited;

    const files = fs.readdirSync(projectDir).filter((f) => f.endsWith(".jsonl"));
    assert.equal(files.length, 1);
    const text = fs.readFileSync(path.join(projectDir, files[0]), "utf8");
    for (const line of text.split("\n").filter(Boolean)) JSON.parse(line);
    const loaded = loadTranscript(path.join(projectDir, files[0]));
    // One SIGKILL injected; four messages were on disk before it.
    recordReliability("faults", {
      tried: 1,
      losses: loaded.skippedLines + Math.max(0, 4 - loaded.messages.length),
    });
    assert.equal(loaded.skippedLines, 0);
    // user context, the question, the assistant's tool call and the tool result were all on disk.
    const kinds = loaded.messages.map((m) =>
      m.isMeta
        ? "context"
        : typeof m.content === "string"
          ? m.role
          : `${m.role}:${m.content.map((b) => b.type).join(",")}`,
    );
    assert.deepEqual(kinds, ["user", "context", "assistant:tool_use", "user:tool_result"]);
  });
});
