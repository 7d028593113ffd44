/**
 * The opencode plugin `memdir setup opencode` writes (`~/.config/opencode/plugins/memdir.js`, or
 * the project's `.opencode/plugins/`), which opencode loads at start. opencode runs no hook
 * commands; its plugins are JavaScript in its own process. This one runs `memdir hook
 * session-start` once per session and adds its answer (the rules and the `MEMORY.md` index) to
 * every model request's system prompt (`experimental.chat.system.transform`), and runs `memdir
 * hook user-prompt-submit` for each prompt and adds its answer (recalled memories, a "remember …"
 * notice) to that prompt as a synthetic text part (`chat.message`), so it is stored with the
 * message and reaches the model once per request (docs/integrations.md#opencode;
 * test/integration/opencode.test.ts checks both in the real binary).
 */

/** The first line of the plugin: how setup knows a file is its own. */
export const OPENCODE_PLUGIN_MARKER = "// memdir for opencode: written by `memdir setup opencode`.";

/** The plugin's source for a memdir started as `command` (its words, e.g. `["npx", "-y", "memdir"]`). */
export function opencodePluginSource(command: readonly string[]): string {
  return `${OPENCODE_PLUGIN_MARKER} \`memdir setup opencode --remove\` removes it.
// It adds memdir's rules and memory index to each request's system prompt, and the memories
// recalled for a prompt to that prompt, from \`memdir hook session-start\` and
// \`memdir hook user-prompt-submit\`. A hook that fails or answers nothing adds nothing.
import { spawn } from "node:child_process";

const COMMAND = ${JSON.stringify(command)};

function hook(event, input) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(COMMAND[0], [...COMMAND.slice(1), "hook", event], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve(null);
      return;
    }
    child.on("error", () => resolve(null));
    child.stdout.setEncoding("utf8").on("data", (data) => {
      out += data;
    });
    child.on("close", () => {
      try {
        const context = JSON.parse(out)?.hookSpecificOutput?.additionalContext;
        resolve(typeof context === "string" && context.trim() !== "" ? context : null);
      } catch {
        resolve(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

export const MemdirPlugin = async ({ directory }) => {
  const sessions = new Map();
  return {
    "experimental.chat.system.transform": async (input, output) => {
      const id = input?.sessionID ?? "";
      if (!sessions.has(id))
        sessions.set(id, hook("session-start", { hook_event_name: "SessionStart", session_id: id, cwd: directory, source: "startup" }));
      const context = await sessions.get(id);
      if (context && Array.isArray(output?.system)) output.system.push(context);
    },
    "chat.message": async (input, output) => {
      const parts = Array.isArray(output?.parts) ? output.parts : [];
      const typed = parts.filter((part) => part?.type === "text" && !part.synthetic);
      const prompt = typed.map((part) => part.text).join("\\n");
      if (prompt.trim() === "") return;
      const context = await hook("user-prompt-submit", {
        hook_event_name: "UserPromptSubmit",
        session_id: input?.sessionID ?? "",
        cwd: directory,
        prompt,
      });
      if (!context) return;
      const first = typed[0];
      parts.push({ ...first, id: \`\${first.id}memdir\`, text: context, synthetic: true });
    },
  };
};
`;
}
