// Which Office host (if any) the pane is running in.
// Outside Office, Office.js resolves onReady with host null; without Office.js at all
// (a plain browser tab, a test page) there is no Office global. Both are "not in Office".

export interface HostInfo {
  /** "Excel" inside Excel (desktop, web, or the harness shim); null outside Office. */
  host: string | null;
  /** Office.context.platform, e.g. "PC", "Mac", "OfficeOnline"; null outside Office. */
  platform: string | null;
}

interface OfficeLike {
  onReady(callback?: (info: { host: unknown; platform: unknown }) => void): Promise<{ host: unknown; platform: unknown }>;
}

export function waitForOffice(timeoutMs = 10_000, scope: { Office?: unknown } = globalThis as { Office?: unknown }): Promise<HostInfo> {
  const office = scope.Office as OfficeLike | undefined;
  if (!office || typeof office.onReady !== "function") return Promise.resolve({ host: null, platform: null });
  return new Promise<HostInfo>((resolve) => {
    const timer = setTimeout(() => resolve({ host: null, platform: null }), timeoutMs);
    void office.onReady().then((info) => {
      clearTimeout(timer);
      resolve({
        host: info.host == null ? null : String(info.host),
        platform: info.platform == null ? null : String(info.platform),
      });
    });
  });
}
