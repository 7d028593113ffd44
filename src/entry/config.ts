/**
 * `memdir/config` — options, environment and settings files resolved in one place: the memory
 * root, whether auto memory is on, and which model (if any) memdir may call.
 *
 * @example
 * import { resolveConfig } from "memdir/config";
 * const config = resolveConfig({ cwd: process.cwd(), env: process.env });
 */

export {
  type ConfigOptions,
  type MemdirSettings,
  type ModelConfig,
  type Provider,
  type ResolvedConfig,
  resolveAutoMemory,
  resolveConfig,
  resolveModelConfig,
  resolveRoot,
  type SettingsPair,
  type SwitchInput,
} from "../config.ts";
export { type DreamMode, MEMORY_MODES, type MemoryMode } from "../types.ts";
