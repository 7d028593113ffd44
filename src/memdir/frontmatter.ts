import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { isMemoryType, type MemoryType } from "../types.ts";

/** A problem found in one file's frontmatter; never thrown, always returned. */
export interface FrontmatterIssue {
  code:
    | "no-frontmatter"
    | "unclosed"
    | "yaml"
    | "not-a-map"
    | "missing-type"
    | "invalid-type"
    | "missing-description";
  message: string;
}

export interface ParsedMemory {
  /** The frontmatter as a plain object (empty when absent or broken). */
  data: Record<string, unknown>;
  type: MemoryType | null;
  description: string | null;
  /** Everything after the closing `---` (or the whole text when there is no frontmatter). */
  body: string;
  issues: FrontmatterIssue[];
}

const OPEN = /^\uFEFF?---[ \t]*\r?$/;
const CLOSE = /^---[ \t]*\r?$/;

/**
 * Splits and parses a memory file's frontmatter. Tolerant: a BOM, CRLF, quoted values and
 * missing fields are fine; a bad file yields issues, never an exception.
 * `maxLines` limits where the closing `---` may be (the header scan passes 30).
 *
 * @example
 * parseFrontmatter("---\ndescription: x\ntype: user\n---\nbody").type // "user"
 */
export function parseFrontmatter(text: string, options: { maxLines?: number } = {}): ParsedMemory {
  const issues: FrontmatterIssue[] = [];
  const lines = text.split("\n");
  if (lines.length === 0 || !OPEN.test(lines[0])) {
    return {
      data: {},
      type: null,
      description: null,
      body: text.replace(/^\uFEFF/, ""),
      issues: [{ code: "no-frontmatter", message: "no frontmatter (the file must start with ---)" }],
    };
  }
  const limit = Math.min(lines.length, options.maxLines ?? Number.POSITIVE_INFINITY);
  let close = -1;
  for (let i = 1; i < limit; i++) {
    if (CLOSE.test(lines[i])) {
      close = i;
      break;
    }
  }
  if (close < 0) {
    const where = options.maxLines ? ` within ${options.maxLines} lines` : "";
    return {
      data: {},
      type: null,
      description: null,
      body: text.replace(/^\uFEFF/, ""),
      issues: [{ code: "unclosed", message: `frontmatter is not closed by ---${where}` }],
    };
  }
  const yamlText = lines
    .slice(1, close)
    .map((l) => l.replace(/\r$/, ""))
    .join("\n");
  const body = lines
    .slice(close + 1)
    .join("\n")
    .replace(/^\r?\n/, "");
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = yamlText.trim() === "" ? {} : parseYaml(yamlText, { prettyErrors: false });
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      data = parsed as Record<string, unknown>;
    else issues.push({ code: "not-a-map", message: "frontmatter is not a key: value map" });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    issues.push({ code: "yaml", message: `frontmatter is not valid YAML: ${reason}` });
  }
  const rawType = data.type;
  let type: MemoryType | null = null;
  if (rawType === undefined || rawType === null || rawType === "") {
    issues.push({ code: "missing-type", message: 'missing "type"' });
  } else if (isMemoryType(typeof rawType === "string" ? rawType.trim() : rawType)) {
    type = (rawType as string).trim() as MemoryType;
  } else {
    issues.push({
      code: "invalid-type",
      message: `invalid "type": ${JSON.stringify(rawType)} (one of user, feedback, project, reference)`,
    });
  }
  const rawDescription = data.description;
  let description: string | null = null;
  if (typeof rawDescription === "string" && rawDescription.trim() !== "") description = rawDescription.trim();
  else if (typeof rawDescription === "number" || typeof rawDescription === "boolean")
    description = String(rawDescription);
  else issues.push({ code: "missing-description", message: 'missing "description"' });
  return { data, type, description, body, issues };
}

/**
 * Serializes a memory file: frontmatter (description first, then type, then any extra keys)
 * and the body, ending in one newline.
 */
export function serializeMemory(fields: {
  description: string;
  type: MemoryType;
  body: string;
  extra?: Record<string, unknown>;
}): string {
  const data: Record<string, unknown> = {
    description: fields.description,
    type: fields.type,
    ...fields.extra,
  };
  const yamlText = stringifyYaml(data, { lineWidth: 0 }).trimEnd();
  const body = fields.body.replace(/\r\n/g, "\n").replace(/\s+$/, "");
  return `---\n${yamlText}\n---\n${body}\n`;
}
