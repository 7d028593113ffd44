import type { MemoryType } from "../../types.ts";
import { fileTime, readSourceText } from "./source-file.ts";
import { bulletSection, descriptionFrom, paragraphs } from "./text.ts";
import type { ImportCandidate, SkippedSource, SourceRead } from "./types.ts";

/**
 * The MCP reference memory server's knowledge graph (docs/import.md#mcp-memory): a JSON Lines
 * file of `{"type":"entity","name","entityType","observations":[…]}` and
 * `{"type":"relation","from","to","relationType"}`. One memory per entity, holding its
 * observations and the relations it takes part in. The graph records no dates: the file's
 * modification time stands for all of them.
 */
export async function readMcpMemory(from: string): Promise<SourceRead> {
  const text = await readSourceText("mcp-memory", from);
  return { ...mcpMemoryCandidates(text, await fileTime(from)) };
}

interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

interface Relation {
  from: string;
  to: string;
  relationType: string;
}

/** The graph's lines as memories (pure). A line that is not an entity or a relation is skipped and said. */
export function mcpMemoryCandidates(text: string, modifiedMs: number | null): SourceRead {
  const entities = new Map<string, Entity>();
  const relations: Relation[] = [];
  const skipped: SkippedSource[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const where = `mcp-memory line ${index + 1}`;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(line) as Record<string, unknown>;
    } catch {
      skipped.push({ source: where, reason: "not JSON" });
      continue;
    }
    if (item?.type === "entity" && typeof item.name === "string" && item.name.trim() !== "") {
      const observations = Array.isArray(item.observations)
        ? item.observations.filter((o): o is string => typeof o === "string" && o.trim() !== "")
        : [];
      const known = entities.get(item.name);
      if (known) known.observations.push(...observations);
      else
        entities.set(item.name, {
          name: item.name,
          entityType: typeof item.entityType === "string" ? item.entityType : "",
          observations,
        });
    } else if (
      item?.type === "relation" &&
      typeof item.from === "string" &&
      typeof item.to === "string" &&
      typeof item.relationType === "string"
    ) {
      relations.push({ from: item.from, to: item.to, relationType: item.relationType });
    } else skipped.push({ source: where, reason: "neither an entity nor a relation" });
  }
  const candidates: ImportCandidate[] = [];
  for (const entity of entities.values()) {
    const label = `mcp-memory entity "${entity.name}"`;
    const related = relations
      .filter((r) => r.from === entity.name || r.to === entity.name)
      .map((r) => `${r.from} ${r.relationType.replace(/_/g, " ")} ${r.to}`);
    if (entity.observations.length === 0 && related.length === 0) {
      skipped.push({ source: label, reason: "no observations or relations" });
      continue;
    }
    const kind = entity.entityType ? ` (${entity.entityType})` : "";
    candidates.push({
      key: `mcp-memory:entity:${entity.name}`,
      label,
      type: typeForEntity(entity.entityType),
      description: descriptionFrom(
        entity.observations.length > 0
          ? `${entity.name}${kind}: ${entity.observations[0]}`
          : `${entity.name}${kind}`,
      ),
      title: entity.name,
      body: paragraphs(
        bulletSection("Observations:", entity.observations),
        bulletSection("Relations:", related),
      ),
      modifiedMs,
    });
  }
  return { candidates, skipped };
}

/**
 * The server is told to remember the user (identity, behaviours, preferences, goals,
 * relationships): a person is `user`, a rule or preference `feedback`, a project or codebase
 * `project`, and the rest (organizations, tools, events) `reference`.
 */
export function typeForEntity(entityType: string): MemoryType {
  const kind = entityType.toLowerCase();
  if (/\b(person|user|human|me|self|individual)\b/.test(kind)) return "user";
  if (/\b(preference|rule|guideline|convention|feedback|behaviou?r)\b/.test(kind)) return "feedback";
  if (/\b(project|repository|repo|codebase|service|application|app)\b/.test(kind)) return "project";
  return "reference";
}
