// Microsoft's online manifest check (office-addin-manifest validate), where the
// network allows. It posts the manifest to Microsoft's validation service; when
// that service cannot be reached or does not answer properly, the outcome is
// "not-run" with the reason — never a pass.
export type OnlineOutcome =
  { status: "passed"; notes: string[] } | { status: "failed"; messages: string[] } | { status: "not-run"; reason: string };

interface Issue {
  title?: string;
  content?: string;
  line?: number;
}
interface Validation {
  isValid: boolean;
  status?: number;
  statusText?: string;
  report?: { status?: string; errors?: Issue[]; warnings?: Issue[]; notes?: Issue[] };
}
type ValidateFn = (manifestPath: string) => Promise<Validation>;

const describe = (issue: Issue) => `${issue.line ? `line ${issue.line}: ` : ""}${[issue.title, issue.content].filter(Boolean).join(": ")}`;

export async function validateOnline(manifestPath: string, timeoutMs = 20_000, validate?: ValidateFn): Promise<OnlineOutcome> {
  let run: ValidateFn;
  if (validate) run = validate;
  else {
    try {
      run = (await import("office-addin-manifest")).validateManifest as ValidateFn;
    } catch (err) {
      return { status: "not-run", reason: `office-addin-manifest could not be loaded (${String(err)})` };
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  let validation: Validation | "timeout";
  try {
    validation = await Promise.race([run(manifestPath), timeout]);
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").trim();
    return { status: "not-run", reason };
  } finally {
    clearTimeout(timer);
  }
  if (validation === "timeout") {
    return { status: "not-run", reason: `Microsoft's validation service did not answer within ${timeoutMs / 1000} s` };
  }
  if (validation.status !== undefined && validation.status !== 200) {
    return {
      status: "not-run",
      reason: `Microsoft's validation service answered HTTP ${validation.status} ${validation.statusText ?? ""}`.trim(),
    };
  }
  if (!validation.report) {
    return { status: "not-run", reason: "Microsoft's validation service sent no report" };
  }
  if (validation.isValid) return { status: "passed", notes: (validation.report.notes ?? []).map(describe) };
  const messages = [...(validation.report.errors ?? []), ...(validation.report.warnings ?? [])].map(describe);
  return { status: "failed", messages: messages.length ? messages : [`status ${validation.report.status ?? "unknown"}`] };
}
