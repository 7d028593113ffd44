import { claudeCodeHost } from "./claude-code/host.ts";
import { clineHost } from "./cline/host.ts";
import { codexHost } from "./codex/host.ts";
import { copilotHost } from "./copilot/host.ts";
import { cursorHost } from "./cursor/host.ts";
import { geminiHost } from "./gemini/host.ts";
import { opencodeHost } from "./opencode/host.ts";
import { qwenHost } from "./qwen/host.ts";
import { HOST_NAMES, type Host, type HostName } from "./shared/host.ts";

/** Every host memdir knows, in `HOST_NAMES` order (docs/design.md#hosts). */
export const HOSTS: readonly Host[] = [
  claudeCodeHost,
  codexHost,
  geminiHost,
  qwenHost,
  copilotHost,
  opencodeHost,
  cursorHost,
  clineHost,
];

/** The host named `name`. */
export function hostNamed(name: HostName): Host {
  const host = HOSTS.find((candidate) => candidate.name === name);
  if (!host) throw new Error(`no host named ${name} (one of ${HOST_NAMES.join(", ")})`);
  return host;
}
