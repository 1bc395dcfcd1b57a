// Runs before office.js in the harness pane (harness-taskpane.html loads it as a file: the pane's
// Content-Security-Policy allows no inline script).
// Outside Office, office.js resolves Office.onReady with host null, but in a frame it first navigates
// the frame to about:blank unless OsfOptOut is set (office.js, "not hosted in plain browser top
// window"): that was the pane that sometimes never started.
// Offline means offline: office.js's logger (o15apptofilemappingtable.js: `var Logger`, then
// Logger.ulsEndpoint = new ULSEndpointProxy()) opens an iframe on Microsoft's telemetry service 3 s
// after start. The endpoint is caught as it is set and its frame never loaded.
const w = window as unknown as { OsfOptOut: boolean; Logger: unknown };
w.OsfOptOut = true;
w.Logger = Object.defineProperty({}, "ulsEndpoint", {
  configurable: true,
  get(this: { _uls?: unknown }) {
    return this._uls;
  },
  set(this: { _uls?: unknown }, proxy: { loadProxyFrame?: () => void } | null | undefined) {
    if (proxy) proxy.loadProxyFrame = function () {};
    this._uls = proxy;
  },
});

export {};
