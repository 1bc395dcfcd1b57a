// The hidden Diagnostics view: runs the SheetPort contract suite (src/host/contract) against a port
// and shows a pass/fail report, so someone with real Excel can check the adapter inside Excel.
// The checks work on scratch sheets they add and delete; the workbook's own sheets are not touched.
// Failure details are rendered as text (never HTML).
import { useRef, useState } from "preact/hooks";
import {
  CONTRACT_CHECKS,
  runContract,
  type CheckResult,
  type ContractCheck,
  type ContractDriver,
  type ContractReport,
} from "../../host/contract/index.ts";
import type { SheetPort } from "../../host/port.ts";

export interface DiagnosticsProps {
  port: SheetPort;
  driver: ContractDriver;
  /** Defaults to the whole contract suite. */
  checks?: readonly ContractCheck[];
  hostileStrings?: readonly string[];
}

type Phase =
  | { kind: "idle" }
  | { kind: "running"; done: CheckResult[] }
  | { kind: "done"; report: ContractReport }
  | { kind: "error"; message: string };

export function Diagnostics({ port, driver, checks = CONTRACT_CHECKS, hostileStrings }: DiagnosticsProps) {
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const running = useRef(false);

  async function start() {
    if (running.current) return;
    running.current = true;
    const done: CheckResult[] = [];
    setPhase({ kind: "running", done: [] });
    try {
      const report = await runContract({
        port,
        driver,
        checks,
        ...(hostileStrings ? { hostileStrings } : {}),
        onResult: (r) => {
          done.push(r);
          setPhase({ kind: "running", done: [...done] });
        },
      });
      setPhase({ kind: "done", report });
    } catch (e) {
      setPhase({ kind: "error", message: (e as Error)?.message ?? String(e) });
    } finally {
      running.current = false;
    }
  }

  const results = phase.kind === "running" ? phase.done : phase.kind === "done" ? phase.report.results : [];
  return (
    <section class="cb-diagnostics" aria-labelledby="cb-diag-title">
      <h2 id="cb-diag-title">Diagnostics</h2>
      <p class="cb-meta">
        Runs {checks.length} checks of Cellbound's sheet access ({driver.label}) on temporary sheets it adds and removes.
      </p>
      <button type="button" class="cb-btn" onClick={() => void start()} disabled={phase.kind === "running"}>
        {phase.kind === "done" || phase.kind === "error" ? "Run again" : "Run checks"}
      </button>
      {phase.kind === "running" && (
        <p role="status" aria-live="polite">
          Running… {phase.done.length} of {checks.length}
        </p>
      )}
      {phase.kind === "done" && (
        <p role="status" class={phase.report.failed ? "cb-diag-fail" : "cb-diag-pass"} data-testid="diag-summary">
          {phase.report.failed ? "FAIL" : "PASS"}: {phase.report.passed} passed, {phase.report.failed} failed, {phase.report.skipped} need a
          person
        </p>
      )}
      {phase.kind === "error" && <p role="alert">The checks could not run: {phase.message}</p>}
      {results.length > 0 && (
        <ol class="cb-diag-results" aria-label="Check results">
          {results.map((r) => (
            <li key={r.name} data-status={r.status}>
              <strong>{r.status === "pass" ? "✓ pass" : r.status === "fail" ? "✗ fail" : "– skipped"}</strong> {r.name}{" "}
              <span class="cb-meta">({r.ms} ms)</span>
              {r.detail && <pre class="cb-diag-detail">{r.detail}</pre>}
            </li>
          ))}
        </ol>
      )}
      {phase.kind === "done" && (
        <details>
          <summary>Report as text</summary>
          <pre data-testid="diag-text">{reportText(phase.report)}</pre>
        </details>
      )}
    </section>
  );
}

/** A plain-text report to copy into an issue. */
export function reportText(report: ContractReport): string {
  const lines = [`Cellbound port contract — ${report.label}: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`];
  for (const r of report.results) lines.push(`${r.status.toUpperCase().padEnd(4)} ${r.name}${r.detail ? `\n     ${r.detail}` : ""}`);
  return lines.join("\n");
}
