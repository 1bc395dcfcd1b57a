// Runs the SheetPort contract (checks.ts) against one port and returns a pass/fail report.
// Framework-neutral: used by the vitest wrappers in test/host and by the Diagnostics view.

import type { SheetPort } from "../port.ts";
import { CheckSkipped, CONTRACT_CHECKS, type ContractCheck } from "./checks.ts";
import type { ContractDriver } from "./driver.ts";
import { HOSTILE_STRINGS } from "./hostile-strings.ts";

export type { ContractDriver, CellInspection } from "./driver.ts";
export { CONTRACT_CHECKS, type ContractCheck } from "./checks.ts";
export { HOSTILE_STRINGS, ISSUE_STRINGS } from "./hostile-strings.ts";

export type CheckStatus = "pass" | "fail" | "skip";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  ms: number;
  /** Why it failed or was skipped. */
  detail?: string;
}

export interface ContractReport {
  label: string;
  results: CheckResult[];
  passed: number;
  failed: number;
  skipped: number;
}

export interface RunContractOptions {
  port: SheetPort;
  driver: ContractDriver;
  /** Run only these checks (by name); all by default. */
  checks?: readonly ContractCheck[];
  hostileStrings?: readonly string[];
  /** Called as each check finishes (for a live report). */
  onResult?: (r: CheckResult) => void;
}

let scratchCounter = 0;

/** Runs one check on a fresh scratch sheet, which it deletes afterwards. */
export async function runCheck(check: ContractCheck, options: RunContractOptions): Promise<CheckResult> {
  const t0 = Date.now();
  const name = `CbContract${Date.now() % 100000}_${++scratchCounter}`;
  let sheet: Awaited<ReturnType<ContractDriver["addSheet"]>> | null = null;
  try {
    sheet = await options.driver.addSheet(name);
    await check.run({ port: options.port, driver: options.driver, sheet, hostileStrings: options.hostileStrings ?? HOSTILE_STRINGS });
    return { name: check.name, status: "pass", ms: Date.now() - t0 };
  } catch (e) {
    const err = e as Error;
    if (err instanceof CheckSkipped) return { name: check.name, status: "skip", ms: Date.now() - t0, detail: err.message };
    return { name: check.name, status: "fail", ms: Date.now() - t0, detail: `${err?.name ?? "Error"}: ${err?.message ?? String(e)}` };
  } finally {
    if (sheet) await options.driver.deleteSheet(sheet.id).catch(() => undefined);
  }
}

export async function runContract(options: RunContractOptions): Promise<ContractReport> {
  const results: CheckResult[] = [];
  for (const c of options.checks ?? CONTRACT_CHECKS) {
    const r = await runCheck(c, options);
    results.push(r);
    options.onResult?.(r);
  }
  return {
    label: options.driver.label,
    results,
    passed: results.filter((r) => r.status === "pass").length,
    failed: results.filter((r) => r.status === "fail").length,
    skipped: results.filter((r) => r.status === "skip").length,
  };
}
