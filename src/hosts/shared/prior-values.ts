import { isDeepStrictEqual } from "node:util";
import type { JsonObject } from "./json-config.ts";

// `--recommended` changes settings that are the agent's own, not memdir's (Claude Code's
// `autoMemoryEnabled`, Qwen Code's `memory.enableManagedAutoMemory`). What they held before is
// kept in a record beside the file, so `--remove` puts back exactly that — a `true` the user had
// comes back as `true`, an absent key stays absent — and, when nothing else in the file changed
// meanwhile, the file's text byte for byte (docs/integrations.md#removing-memdir-again).

/** One setting `--recommended` sets: where, and the value memdir gives it. */
export interface RecommendedSetting {
  path: string[];
  value: unknown;
}

/** What a setting held before memdir's first `--recommended` run. */
export interface PriorValue {
  path: string[];
  /** Whether the key existed; `value` is meaningful only then. */
  had: boolean;
  value?: unknown;
  /** Whether each folder key on the way existed (`env` for `env.MEMDIR_DISABLE`). */
  parentsHad: boolean[];
}

/** The record kept beside a config file: its text before setup, and the prior values. */
export interface PriorRecord {
  version: 1;
  /** The file's text before memdir's first `--recommended` change (null: there was no file). */
  before: string | null;
  values: PriorValue[];
}

/** The record's file beside the config file (no `.json` ending: Copilot loads every `*.json` of its hooks folder). */
export function priorRecordPath(file: string): string {
  return `${file}.memdir-prior`;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at `keyPath`, or undefined. */
export function valueAt(doc: JsonObject, keyPath: readonly string[]): unknown {
  let current: unknown = doc;
  for (const key of keyPath) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function hasAt(doc: JsonObject, keyPath: readonly string[]): boolean {
  const parent = valueAt(doc, keyPath.slice(0, -1));
  return isObject(parent) && Object.hasOwn(parent, keyPath[keyPath.length - 1]);
}

/**
 * `doc` with `keyPath` set to `value` (in its place when the key exists, so the file's key order
 * is kept; folders made as needed), or removed when `value` is undefined, with the folders
 * `dropEmpty` names (by depth) removed when that leaves them empty.
 */
export function withValueAt(
  doc: JsonObject,
  keyPath: readonly string[],
  value: unknown,
  dropEmpty: readonly boolean[] = [],
): JsonObject {
  const [key, ...rest] = keyPath;
  if (rest.length === 0) {
    if (value === undefined) {
      if (!Object.hasOwn(doc, key)) return doc;
      const { [key]: _dropped, ...kept } = doc;
      return kept;
    }
    if (Object.hasOwn(doc, key) && isDeepStrictEqual(doc[key], value)) return doc;
    return Object.hasOwn(doc, key) ? replaceKey(doc, key, value) : { ...doc, [key]: value };
  }
  const child = isObject(doc[key]) ? doc[key] : {};
  if (value === undefined && !isObject(doc[key])) return doc;
  const next = withValueAt(child, rest, value, dropEmpty.slice(1));
  if (value === undefined && dropEmpty[0] === true && Object.keys(next).length === 0)
    return withValueAt(doc, [key], undefined);
  return Object.hasOwn(doc, key) ? replaceKey(doc, key, next) : { ...doc, [key]: next };
}

function replaceKey(doc: JsonObject, key: string, value: unknown): JsonObject {
  const result: JsonObject = {};
  for (const [name, current] of Object.entries(doc)) result[name] = name === key ? value : current;
  return result;
}

/** The record to keep before the first `--recommended` change of a file. */
export function priorRecord(
  before: string | null,
  doc: JsonObject,
  settings: readonly RecommendedSetting[],
): PriorRecord {
  return {
    version: 1,
    before,
    values: settings.map(({ path }) => {
      const had = hasAt(doc, path);
      return {
        path,
        had,
        ...(had ? { value: valueAt(doc, path) } : {}),
        parentsHad: path.slice(0, -1).map((_, depth) => hasAt(doc, path.slice(0, depth + 1))),
      };
    }),
  };
}

/** Reads a record's text; anything that is not one is treated as no record. */
export function parsePriorRecord(text: string | null): PriorRecord | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<PriorRecord>;
    if (value.version !== 1 || !Array.isArray(value.values)) return null;
    if (value.before !== null && typeof value.before !== "string") return null;
    return value as PriorRecord;
  } catch {
    return null;
  }
}

/**
 * `doc` with each recommended setting that still holds memdir's value put back as the record has
 * it (a setting the user changed since is theirs and stays). Without a record (a setup made before
 * records were kept), `dropWithoutRecord` removes memdir's values instead, as `--remove
 * --recommended` always did.
 */
export function restoreRecommended(
  doc: JsonObject,
  settings: readonly RecommendedSetting[],
  record: PriorRecord | null,
  dropWithoutRecord: boolean,
): JsonObject {
  let next = doc;
  for (const setting of settings) {
    if (!hasAt(next, setting.path) || !isDeepStrictEqual(valueAt(next, setting.path), setting.value))
      continue;
    const prior = record?.values.find((value) => isDeepStrictEqual(value.path, setting.path));
    if (prior === undefined) {
      if (record === null && dropWithoutRecord)
        next = withValueAt(
          next,
          setting.path,
          undefined,
          setting.path.slice(0, -1).map(() => true),
        );
      continue;
    }
    next = prior.had
      ? withValueAt(next, setting.path, prior.value)
      : withValueAt(
          next,
          setting.path,
          undefined,
          prior.parentsHad.map((had) => !had),
        );
  }
  return next;
}
