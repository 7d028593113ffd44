import type { MemoryType } from "../types.ts";

// What an explicit request's statement is, once the request is found (docs/design.md#explicit-remember).

const REFERENCE =
  /(https?:\/\/|\b(?:dashboard|grafana|kibana|jira|linear|ticket|runbook|wiki|confluence|notion|sentry|datadog)\b|看板|工单|文档在)/i;
const USER_FACT =
  /^(?:i\s+(?:am|'m|was|work|live|prefer|like|love|hate|use|have|speak|come)\b|i'm\b|my\b|me\b|我(?:是|叫|在|喜欢|偏好|习惯|的|更喜欢|住)|私は|僕は|私の)/i;
const RULE =
  /\b(?:always|never|don't|do not|must|should|shouldn't|avoid|prefer|use|stop|keep|make sure|only|no)\b|不要|不得|不能|别|必须|总是|始终|一律|应该|务必|禁止|优先|使用|用|しないで|してください|必ず|使う|使って|禁止/i;

/**
 * Guesses the memory type of an explicit statement: `reference` for pointers to outside
 * systems, `user` for facts about the user, `feedback` for rules about how to work, else `project`.
 */
export function classifyStatement(statement: string): MemoryType {
  if (REFERENCE.test(statement)) return "reference";
  if (USER_FACT.test(statement)) return "user";
  if (RULE.test(statement)) return "feedback";
  return "project";
}

/** The description of an explicit memory: the statement, trimmed to one short line. */
export function describeStatement(statement: string, maxLength = 150): string {
  const firstLine = statement.split(/\r?\n/)[0].trim();
  if (firstLine.length <= maxLength) return firstLine;
  return `${firstLine.slice(0, maxLength - 1).trimEnd()}…`;
}
