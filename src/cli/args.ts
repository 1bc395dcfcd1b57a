// The command line's grammar (docs: README "Refresh on a schedule"). Credentials never come from here.
import { parseArgs } from "node:util";
import { parseAddress } from "../host/a1.ts";
import type { SheetValue } from "../host/port.ts";

export const USAGE = `Usage:
  cellbound place <book.xlsx> --report <id or publicId> --at "<Sheet>!<A1>" [--deployment <id>] [--json]
                  [--input "<member>=<Sheet>!<A1 or range, or a defined name>"]… [--as-table]
  cellbound refresh <book.xlsx or folder>… [--overwrite-edits] [--dry-run] [--json] [--concurrency <n>]
                    [--shard <i>/<n> | --shard-count <n>]
  cellbound refresh <book.xlsx> --set "<Sheet>!<A1>=<value>"… [--out <other.xlsx>] [--overwrite-edits] [--json]
  cellbound status <book.xlsx>… [--json]
Each also takes --timeout <seconds> (the whole run ends by then) and --ignore-lock (a workbook whose
Excel owner file ~$<name> is beside it is rewritten anyway: for when Excel is known not to have it open).

Credentials come from the environment only:
  CELLBOUND_PLATFORM_URL   the platform's address (required)
  CELLBOUND_API_KEY        an API key (required)
  CELLBOUND_DATA_URL       the data API's address (default: <platform>/cubejs-api)

Inputs: --input binds a filter of the report (e.g. customers.country) to cells of the workbook: one cell
(equals), a range (equals any of its values), two cells for a date range ("Inputs!B1,Inputs!B2"), or a
defined name. refresh --set writes a cell first (a value that looks like a number as a number, anything
else as text, never a formula); --out saves the result to another workbook and leaves this one as it is.

Tables: place --as-table places a flat report as an Excel table named after it, kept whole by every
refresh: formulas you add in a column beside it fill every row after each refresh. A pivot stays a range.

Sharding: --shard i/n takes shard i (1…n) of the workbooks, by a hash of each one's path below the
folder named (or its name); --shard-count n takes shard JOB_COMPLETION_INDEX+1 of n (a Kubernetes
Indexed Job sets JOB_COMPLETION_INDEX, 0…n-1).

Exit codes: 0 all refreshed or unchanged · 3 some left because of hand edits or occupied cells ·
1 some not refreshed, not recorded or not tried for another reason (no access, platform error or
timeout) · 2 usage, credentials, or a file that cannot be read or rewritten (read-only, open in Excel,
another cellbound run writing it, a failed save).`;

export class UsageError extends Error {
  override name = "UsageError";
}

/** Options every command takes. */
export interface Common {
  json: boolean;
  /** --timeout: the whole run ends within this many seconds; null: no bound of its own. */
  timeout: number | null;
  /** --ignore-lock: Excel's owner file does not stop a rewrite. */
  ignoreLock: boolean;
}

export type Command =
  | { kind: "help" }
  | ({
      kind: "place";
      file: string;
      report: string;
      at: string;
      deployment: number | null;
      inputs: InputArg[];
      /** --as-table: placed as an Excel table (issue 33; the engine refuses a pivot report in words). */
      asTable: boolean;
    } & Common)
  | ({
      kind: "refresh";
      files: string[];
      overwriteEdits: boolean;
      dryRun: boolean;
      concurrency: number;
      /** `--shard i/n`; with `--shard-count n` the index is null (JOB_COMPLETION_INDEX + 1). */
      shard: { index: number | null; count: number } | null;
      /** --set: cells written before the refresh (one workbook only). */
      sets: CellSet[];
      /** --out: the workbook the result is saved to (the one given is only read). */
      out: string | null;
    } & Common)
  | ({ kind: "status"; files: string[] } & Common);

/** --input "<member>=<ref>": a filter member and where its values come from (the engine's InputRequest). */
export interface InputArg {
  member: string;
  ref: string;
}

/** --set "<Sheet>!<A1>=<value>". */
export interface CellSet {
  /** As given, for the words. */
  given: string;
  sheet: string;
  row: number;
  col: number;
  value: SheetValue;
}

const OPTIONS = {
  report: { type: "string" },
  at: { type: "string" },
  deployment: { type: "string" },
  input: { type: "string", multiple: true },
  "as-table": { type: "boolean", default: false },
  set: { type: "string", multiple: true },
  out: { type: "string" },
  json: { type: "boolean", default: false },
  "overwrite-edits": { type: "boolean", default: false },
  "dry-run": { type: "boolean", default: false },
  concurrency: { type: "string" },
  shard: { type: "string" },
  "shard-count": { type: "string" },
  timeout: { type: "string" },
  "ignore-lock": { type: "boolean", default: false },
} as const;

const SECRET_FLAGS = /^--(api-?key|key|token|password|secret)(=|$)/i;

export function parseCommand(argv: readonly string[]): Command {
  const secret = argv.find((a) => SECRET_FLAGS.test(a));
  if (secret)
    throw new UsageError(
      `${secret.split("=")[0]} is not an option: the API key is read from CELLBOUND_API_KEY only, never the command line.`,
    );
  const [verb, ...rest] = argv;
  if (verb === undefined) throw new UsageError("no command given");
  if (verb === "help" || verb === "--help" || verb === "-h") return { kind: "help" };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const files = parsed.positionals;
  const common: Common = { json: v.json === true, timeout: timeoutOption(v.timeout), ignoreLock: v["ignore-lock"] === true };
  const only = (allowed: string[]) => {
    const all = [...allowed, "json", "timeout", "ignore-lock"];
    const extra = Object.keys(v).filter((k) => v[k] !== undefined && v[k] !== false && !all.includes(k));
    if (extra.length) throw new UsageError(`${verb} does not take --${extra[0]}`);
  };
  switch (verb) {
    case "place": {
      only(["report", "at", "deployment", "input", "as-table"]);
      if (files.length !== 1) throw new UsageError("place takes exactly one workbook");
      if (typeof v.report !== "string" || v.report === "") throw new UsageError("place needs --report <id or publicId>");
      if (typeof v.at !== "string" || v.at === "") throw new UsageError('place needs --at "<Sheet>!<A1>"');
      let deployment: number | null = null;
      if (v.deployment !== undefined) {
        deployment = Number(v.deployment);
        if (!Number.isInteger(deployment) || deployment <= 0)
          throw new UsageError(`--deployment must be a deployment id, not ${String(v.deployment)}`);
      }
      const inputs = inputOptions(v.input as string[] | undefined);
      const asTable = v["as-table"] === true;
      return { kind: "place", file: files[0]!, report: v.report, at: v.at, deployment, inputs, asTable, ...common };
    }
    case "refresh": {
      only(["overwrite-edits", "dry-run", "concurrency", "shard", "shard-count", "set", "out"]);
      if (files.length === 0) throw new UsageError("refresh needs at least one workbook or folder");
      const { sets, out } = copyOptions(v, files);
      const concurrency = v.concurrency === undefined ? 4 : Number(v.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError("--concurrency must be 1–64");
      return {
        kind: "refresh",
        files,
        overwriteEdits: v["overwrite-edits"] === true,
        dryRun: v["dry-run"] === true,
        concurrency,
        shard: shardOption(v.shard, v["shard-count"]),
        sets,
        out,
        ...common,
      };
    }
    case "status":
      only([]);
      if (files.length === 0) throw new UsageError("status needs at least one workbook");
      return { kind: "status", files, ...common };
    default:
      throw new UsageError(`unknown command ${JSON.stringify(verb)}`);
  }
}

function inputOptions(raw: readonly string[] | undefined): InputArg[] {
  const inputs = (raw ?? []).map((given): InputArg => {
    const eq = given.indexOf("=");
    const member = eq < 0 ? "" : given.slice(0, eq).trim();
    const ref = eq < 0 ? "" : given.slice(eq + 1).trim();
    if (!member || !ref || /\s/.test(member))
      throw new UsageError(
        `--input takes "<member>=<Sheet>!<A1 or range, or a defined name>" (e.g. --input "customers.country=Inputs!B1"), not ${JSON.stringify(given)}`,
      );
    return { member, ref };
  });
  const first = inputs.find((a, i) => inputs.findLastIndex((b) => b.member.toLowerCase() === a.member.toLowerCase()) !== i);
  if (first) throw new UsageError(`--input binds ${first.member} twice: give each filter one --input`);
  return inputs;
}

/** --set and --out: one workbook, written cells, and where the result goes. */
function copyOptions(v: Record<string, unknown>, files: readonly string[]): { sets: CellSet[]; out: string | null } {
  const sets = ((v.set as string[] | undefined) ?? []).map(setOption);
  const out = typeof v.out === "string" ? v.out : null;
  if (out === "") throw new UsageError("--out needs the workbook to write, e.g. --out Sales-EU.xlsx");
  if (sets.length === 0 && out === null) return { sets, out };
  const flag = out !== null ? "--out" : "--set";
  if (files.length !== 1) throw new UsageError(`${flag} takes exactly one workbook (a template), not ${files.length}`);
  if (v.shard !== undefined || v["shard-count"] !== undefined) throw new UsageError(`${flag} does not go with --shard or --shard-count`);
  if (out !== null && v["dry-run"] === true) throw new UsageError("--out does not go with --dry-run: a dry run writes nothing");
  if (out !== null && !/\.xls[xm]$/i.test(out))
    throw new UsageError(`--out ${JSON.stringify(out)}: a workbook must be named *.xlsx or *.xlsm`);
  if (out !== null && out.slice(-1).toLowerCase() !== files[0]!.slice(-1).toLowerCase())
    throw new UsageError(
      `--out ${JSON.stringify(out)} must have the template's extension (${files[0]!.slice(-5)}): macros live only in .xlsm`,
    );
  return { sets, out };
}

function setOption(given: string): CellSet {
  const m = /^('(?:[^']|'')+'|[^'!]+)!([$A-Za-z0-9]+)=(.*)$/s.exec(given);
  const bad = () =>
    new UsageError(`--set takes "<Sheet>!<A1>=<value>" (one cell, e.g. --set "Inputs!B1=Germany"), not ${JSON.stringify(given)}`);
  if (!m) throw bad();
  let at: ReturnType<typeof parseAddress>;
  try {
    at = parseAddress(`${m[1]}!${m[2]}`);
  } catch {
    throw bad();
  }
  if (at.sheet === null || at.rows !== 1 || at.cols !== 1) throw bad();
  return { given, sheet: at.sheet, row: at.row, col: at.col, value: cellValue(m[3]!) };
}

/**
 * What --set writes: a number when the text is one as people type it (12, -3.5, 1e6), else the text as it
 * is — never a formula ("=1+1" is text). "007" stays text: a code, whose leading zeros a number would lose.
 */
export function cellValue(text: string): SheetValue {
  if (!/^[+-]?(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return text;
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

function timeoutOption(raw: unknown): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+(\.\d+)?$/.test(raw.trim()) || !(n > 0) || n > 7 * 24 * 3600)
    throw new UsageError(`--timeout takes a number of seconds (up to a week), not ${JSON.stringify(raw)}`);
  return n;
}

const MAX_SHARDS = 100_000;

function shardOption(shard: unknown, count: unknown): { index: number | null; count: number } | null {
  if (shard !== undefined && count !== undefined) throw new UsageError("give --shard i/n or --shard-count n, not both");
  if (typeof shard === "string") {
    const m = /^(\d+)\/(\d+)$/.exec(shard.trim());
    const i = Number(m?.[1]),
      n = Number(m?.[2]);
    if (!m || n < 1 || n > MAX_SHARDS || i < 1 || i > n)
      throw new UsageError(`--shard takes i/n with 1 ≤ i ≤ n (e.g. --shard 2/4), not ${JSON.stringify(shard)}`);
    return { index: i, count: n };
  }
  if (typeof count === "string") {
    const n = Number(count);
    if (!/^\d+$/.test(count.trim()) || n < 1 || n > MAX_SHARDS)
      throw new UsageError(`--shard-count takes the number of shards (1–${MAX_SHARDS}), not ${JSON.stringify(count)}`);
    return { index: null, count: n };
  }
  return null;
}

/** The shard of a run with --shard-count: JOB_COMPLETION_INDEX (0…n-1, a Kubernetes Indexed Job's) + 1. */
export function shardFromEnv(count: number, env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.JOB_COMPLETION_INDEX?.trim();
  const index = Number(raw);
  if (!raw || !/^\d+$/.test(raw) || index >= count)
    throw new UsageError(
      raw
        ? `JOB_COMPLETION_INDEX is ${JSON.stringify(raw)}: with --shard-count ${count} it must be 0–${count - 1}`
        : `--shard-count needs JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job, 0–${count - 1}); elsewhere use --shard i/n`,
    );
  return index + 1;
}

export interface Credentials {
  platformUrl: string;
  apiKey: string;
  dataUrl: string | null;
}

/** CELLBOUND_PLATFORM_URL, CELLBOUND_API_KEY, optional CELLBOUND_DATA_URL. */
export function credentialsFrom(env: Readonly<Record<string, string | undefined>>): Credentials {
  const platformUrl = env.CELLBOUND_PLATFORM_URL?.trim();
  const apiKey = env.CELLBOUND_API_KEY?.trim();
  if (!platformUrl)
    throw new UsageError("CELLBOUND_PLATFORM_URL is not set: export the platform's address, e.g. https://analytics.example.com");
  // The same words as the pane's Connect (ConnectView.tsx): the seeds make API keys admin only (issue 31 item 5).
  if (!apiKey)
    throw new UsageError(
      "CELLBOUND_API_KEY is not set: export an API key or an OAuth access token (ask an admin of your platform for an API key: only admins can create them)",
    );
  for (const [name, url] of [
    ["CELLBOUND_PLATFORM_URL", platformUrl],
    ["CELLBOUND_DATA_URL", env.CELLBOUND_DATA_URL?.trim()],
  ] as const) {
    if (!url) continue;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new UsageError(`${name} is not a URL`);
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new UsageError(`${name} must be an http(s) address`);
    if (u.username || u.password) throw new UsageError(`${name} must not hold a user name or password`);
  }
  return { platformUrl, apiKey, dataUrl: env.CELLBOUND_DATA_URL?.trim() || null };
}
