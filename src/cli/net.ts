// The command line's view of the network: what went wrong in words (refused, DNS, TLS — not "fetch
// failed"), and one fetch for the whole run that knows when the platform has stopped answering (a
// deadline passed with no answer) and when the run's --timeout has passed: from then on every request
// fails at once, so the files still to do end quickly instead of each waiting out its own deadlines.
import { TimeoutError } from "../api/index.ts";

/** The first cause in `e`'s chain that carries a system error code (or the fetch's own "bad port"). */
function lowCause(e: unknown): (Error & { code?: string; hostname?: string; address?: string; port?: number }) | null {
  const seen = new Set<unknown>();
  for (let x = e as { cause?: unknown } | undefined; x && !seen.has(x); x = x.cause as { cause?: unknown } | undefined) {
    seen.add(x);
    const err = x as Error & { code?: unknown };
    if (typeof err.code === "string" || (err instanceof Error && err.message === "bad port")) return err as never;
  }
  return null;
}

const TLS_WORDS: Record<string, string> = {
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed, not issued by an authority this machine trusts",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain ends in a self-signed certificate this machine does not trust",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not signed by an authority this machine trusts",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate is not signed by an authority this machine trusts",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate is for another name",
  ERR_SSL_WRONG_VERSION_NUMBER: "the server does not speak TLS there (an http:// address given as https://?)",
};
const TRUST_HINT = " (a company authority: NODE_EXTRA_CA_CERTS=/path/to/ca.pem)";

/** What a low-level network failure was, in words; null when `e` is not one. */
export function networkProblem(e: unknown): string | null {
  const c = lowCause(e);
  if (!c) return null;
  const where = c.address ? `${c.address}${c.port ? `:${c.port}` : ""}` : "the server";
  if (c.message === "bad port") return "the address uses a port fetch refuses to connect to (a port reserved for another protocol)";
  switch (c.code) {
    case "ECONNREFUSED":
      return `connection refused: nothing is listening at ${where}`;
    case "ENOTFOUND":
      return `DNS: the name ${c.hostname ?? "of the server"} was not found`;
    case "EAI_AGAIN":
      return `DNS: the name ${c.hostname ?? "of the server"} could not be looked up (no answer from the name server)`;
    case "ECONNRESET":
      return "the connection was reset by the server or a proxy";
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return `connecting to ${where} timed out`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `no route to ${where}`;
  }
  const code = c.code ?? "";
  if (/^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)|^EPROTO$/.test(code)) {
    const words = TLS_WORDS[code] ?? `the secure connection failed (${c.message.split("\n")[0]!.trim()})`;
    return `TLS: ${words}${/SELF_SIGNED|UNABLE_TO/.test(code) ? TRUST_HINT : ""}`;
  }
  return null;
}

/** `e`'s message with "fetch failed" replaced by what failed (networkProblem). */
export function messageOf(e: unknown): string {
  const msg = e instanceof Error ? e.message || String(e) : String(e);
  const problem = networkProblem(e);
  return problem && /fetch failed/.test(msg) ? msg.replace(/fetch failed/g, problem) : msg;
}

/** The run's time limit passed (--timeout): the abort reason of every request and operation from then on. */
export class RunTimeout extends Error {
  override name = "RunTimeout";
  constructor(seconds: number) {
    super(`the run's time limit of ${seconds} s (--timeout) passed`);
  }
}

/** A request's deadline passed with no answer: the platform stopped answering. */
export class PlatformStopped extends Error {
  override name = "PlatformStopped";
}

/**
 * How the platform is doing for this run. It stops the first time a request's deadline passes with no
 * answer, or when the run's time limit passes: the run's signal aborts (operations under way end with
 * that reason, and every later request fails at once), and nothing more is started.
 */
export class Health {
  private readonly run = new AbortController();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(timeoutSeconds: number | null) {
    if (timeoutSeconds !== null) this.timer = setTimeout(() => this.stop(new RunTimeout(timeoutSeconds)), timeoutSeconds * 1000);
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  /** Why nothing more is started; null: go on. */
  get stopped(): string | null {
    return this.run.signal.aborted ? (this.run.signal.reason as Error).message : null;
  }

  stop(reason: Error): void {
    if (!this.run.signal.aborted) this.run.abort(reason);
  }

  end(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  /** A fetch for the API clients: the run's signal on every request, and a deadline passed with no answer noticed. */
  fetch(base: typeof fetch): typeof fetch {
    return (input, init) => {
      const stopped = this.stopped;
      if (stopped) return Promise.reject(new Error(stopped));
      const own = init?.signal ?? null;
      own?.addEventListener(
        "abort",
        () => {
          if (own.reason instanceof TimeoutError)
            this.stop(new PlatformStopped(`the platform stopped answering (${own.reason.message.replace(/^.*?: /, "")})`));
        },
        { once: true },
      );
      const signal = own ? AbortSignal.any([own, this.run.signal]) : this.run.signal;
      return base(input, { ...init, signal });
    };
  }
}
