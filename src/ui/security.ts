import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * The rules that keep `memdir ui` to its user (docs/ui.md#security, docs/design.md#local-web-view):
 * it listens on 127.0.0.1 only; every request needs the run's token (in the URL the command
 * prints) or the session cookie the first visit with it sets; a `Host` other than
 * `127.0.0.1:<port>` is refused (a DNS-rebinding page reaches the port under its own name); a
 * write from another origin is refused (the cookie is SameSite=Strict as well).
 */

/** The name of the session cookie (HttpOnly, SameSite=Strict, this server only). */
export const SESSION_COOKIE = "memdir_ui";

/** The secrets of one run: the token printed in the URL and the session value of the cookie. */
export interface UiSecrets {
  token: string;
  session: string;
}

/** Fresh random secrets for one run (32 bytes each, URL-safe). */
export function newSecrets(): UiSecrets {
  return { token: randomBytes(32).toString("base64url"), session: randomBytes(32).toString("base64url") };
}

/**
 * How long a one-time code from {@link OneTimeCodes} stays good. `memdir ui --open` hands the
 * browser a code instead of the token, because a command line is readable by every local user
 * (`ps`): a code is spent by the browser's first request, within seconds of the start, and is
 * worthless after; a minute covers a browser that takes long to start.
 */
export const OPEN_CODE_MS = 60_000;

/** Single-use, short-lived codes a browser trades once for the session cookie (docs/ui.md#security). */
export class OneTimeCodes {
  readonly #codes = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new code, good for {@link OPEN_CODE_MS}. */
  issue(): string {
    const code = randomBytes(32).toString("base64url");
    this.#codes.set(code, this.now() + OPEN_CODE_MS);
    return code;
  }

  /** Whether `given` is a code issued here, unused and unexpired; it is spent either way. */
  take(given: string | null): boolean {
    if (given === null) return false;
    const now = this.now();
    for (const [code, expires] of this.#codes) {
      if (expires <= now) this.#codes.delete(code);
      else if (sameSecret(given, code)) {
        this.#codes.delete(code);
        return true;
      }
    }
    return false;
  }
}

/** Whether `given` equals `expected`, compared in constant time. */
function sameSecret(given: string | undefined | null, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The `Set-Cookie` value that starts a session. */
export function sessionCookie(secrets: UiSecrets): string {
  return `${SESSION_COOKIE}=${secrets.session}; HttpOnly; SameSite=Strict; Path=/`;
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** What the checks decided: refused with a reason, or allowed (and whether by the token). */
export type Verdict = { allowed: false; reason: string } | { allowed: true; byToken: boolean };

/**
 * Judges one request against the rules above. `origin` is `http://127.0.0.1:<port>`. A request
 * with the right token in `?token=`, or a page request with an unspent one-time `?code=`, is
 * allowed (the caller then sets the cookie); otherwise the session cookie is required.
 *
 * @example
 * const verdict = judgeRequest(request, url, { secrets, origin: "http://127.0.0.1:4242" });
 * if (!verdict.allowed) refuse(403, verdict.reason);
 */
export function judgeRequest(
  request: Pick<IncomingMessage, "method" | "headers">,
  url: URL,
  options: { secrets: UiSecrets; origin: string; codes?: OneTimeCodes },
): Verdict {
  const expectedHost = options.origin.replace(/^http:\/\//, "");
  if (request.headers.host !== expectedHost)
    return { allowed: false, reason: `Host must be ${expectedHost}` };
  if (WRITE_METHODS.has(request.method ?? "GET")) {
    const origin = request.headers.origin;
    // Browsers send Origin with every POST; a client without one (curl) still needs the cookie.
    if (origin !== undefined && origin !== options.origin)
      return { allowed: false, reason: "writes are accepted from this page only" };
    const site = request.headers["sec-fetch-site"];
    if (site !== undefined && site !== "same-origin")
      return { allowed: false, reason: "writes are accepted from this page only" };
  }
  if (sameSecret(url.searchParams.get("token"), options.secrets.token))
    return { allowed: true, byToken: true };
  // Only a page request spends a code: it is answered with the cookie and a redirect.
  if (
    request.method === "GET" &&
    !url.pathname.startsWith("/api/") &&
    options.codes?.take(url.searchParams.get("code"))
  )
    return { allowed: true, byToken: true };
  if (sameSecret(cookieValue(request.headers.cookie, SESSION_COOKIE), options.secrets.session))
    return { allowed: true, byToken: false };
  return { allowed: false, reason: "open the URL memdir ui printed (it carries the token)" };
}
