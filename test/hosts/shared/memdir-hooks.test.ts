import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isMemdirCommand, isMemdirHandler } from "../../../src/hosts/shared/memdir-hooks.ts";

describe("which hook entries are memdir's", () => {
  it("takes a command for memdir's when it names memdir or ends as setup ends every hook line", () => {
    for (const command of [
      "memdir hook stop",
      "npx -y memdir hook user-prompt-submit",
      "node /x/bin/memdir.js hook stop",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the plugin's literal ${VAR}, which the agent expands
      'node "${CLAUDE_PLUGIN_ROOT}/bin/memdir.js" hook session-start',
      "/home/me/bin/md hook session-start",
      "memdir-typo hook before-agent",
      "memdir-typo hook after-tool",
      '"/path with space/md" hook post-tool-use',
      "wrapper hook stop --host copilot",
    ])
      assert.ok(isMemdirCommand(command), command);
  });

  it("leaves every other command alone, near misses included", () => {
    for (const command of [
      "notify-send done",
      "guard.sh",
      "/opt/lint-hook stop",
      "my-tool hook stop-the-world",
      "git hook run pre-commit",
      "hook stop",
      "echo hook stop > log",
      "",
      undefined,
      42,
    ])
      assert.ok(!isMemdirCommand(command), String(command));
  });

  it("takes a handler for memdir's by its command, Copilot's bash, or the name setup gives it", () => {
    assert.ok(isMemdirHandler({ type: "command", command: "md hook stop" }));
    assert.ok(isMemdirHandler({ type: "command", bash: "md hook stop --host copilot" }));
    assert.ok(isMemdirHandler({ name: "memdir-after-agent", type: "command", command: "anything" }));
    assert.ok(!isMemdirHandler({ name: "memdir-backup", type: "command", command: "rsync -a" }));
    assert.ok(!isMemdirHandler({ name: "notify", type: "command", command: "notify-send done" }));
    assert.ok(!isMemdirHandler(null));
    assert.ok(!isMemdirHandler(["md hook stop"]));
  });
});
