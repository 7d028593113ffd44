import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli } from "../helpers/cli.ts";
import { agentFixture, fakeModelEnv } from "./agent-fixture.ts";

describe("memdir chat", () => {
  it("answers each line, shows saved memories, and quits on /exit", async (t) => {
    const { home, project, memoryDir } = agentFixture();
    const memoryFile = path.join(memoryDir, "user-prefers-pnpm.md");
    const server = await startFakeModelServer(async (request) => {
      if (request.jsonSchema) return { json: { selected_memories: [] } };
      if (request.userText.endsWith("hello there")) return "Hi! How can I help?";
      if (request.userText.endsWith("remember that I use pnpm")) {
        return {
          toolCall: {
            name: "Write",
            input: {
              file_path: memoryFile,
              content: "---\ndescription: the user uses pnpm, not npm\ntype: user\n---\nUse pnpm.\n",
            },
          },
        };
      }
      return "Saved.";
    });
    t.after(() => server.close());
    const result = await runCli(["chat"], {
      home,
      cwd: project,
      env: fakeModelEnv(server.anthropicBaseURL),
      input: "hello there\nremember that I use pnpm\n/exit\nnever sent\n",
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Hi! How can I help\?/);
    assert.match(result.stdout, /✎ saved: user-prefers-pnpm\.md/);
    assert.match(result.stdout, /Saved\./);
    assert.ok(fs.existsSync(memoryFile));
    assert.equal(result.stdout.includes("never sent"), false);
  });

  it("ends cleanly at the end of input (Ctrl-D)", async (t) => {
    const { home, project } = agentFixture();
    const server = await startFakeModelServer(async () => "ok");
    t.after(() => server.close());
    const result = await runCli(["chat"], {
      home,
      cwd: project,
      env: fakeModelEnv(server.anthropicBaseURL),
      input: "",
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 0);
  });
});
