import type { ResolvedConfig } from "../config.ts";
import { ensureMemoryDir, type MemoryLocation } from "../memdir/location/paths.ts";
import { memorySystemPrompt } from "../prompts/memory-rules.ts";

/**
 * The memory rules for a session's system prompt, or `null` when auto memory is off (then the
 * model gets no rules and should not write memories). Creates the memory directory (and claims
 * it for the project) first, as docs/design.md#memory-rules asks, so the model's first write lands in a folder that
 * exists.
 *
 * @throws MemdirError("project-mismatch") when the directory belongs to another project.
 * @example
 * const rules = await loadMemoryRules({ config, location: await resolveMemoryLocation({ cwd }) });
 * const system = rules ? `${basePrompt}\n\n${rules}` : basePrompt;
 */
export async function loadMemoryRules(options: {
  config: ResolvedConfig;
  location: MemoryLocation;
}): Promise<string | null> {
  if (!options.config.autoMemory) return null;
  await ensureMemoryDir(options.location);
  return memorySystemPrompt({ memoryDir: options.location.memoryDir, teamMemory: options.config.teamMemory });
}
