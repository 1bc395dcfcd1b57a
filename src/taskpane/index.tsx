// Task-pane entry: wait for Office, install the theme, restore the connection, render the app. The
// live backend loads when the first sign-in needs it (app/backend-on-demand.ts), each pane but the
// Workbook tab when it is opened (app/lazy.tsx).
// The harness's Office shim may leave a pre-fill (the stand-in's demo credential) on
// globalThis.__cellboundPrefill; in real Excel nothing sets it.
import { render, type ComponentType } from "preact";
import { waitForOffice } from "./office-host";
import { Shell } from "./shell/Shell";
import { App } from "./app/App";
import { PaneStore, type Prefill } from "./state/store";
import { defaultStore, SecretStore } from "./state/secrets";
import { installTheme } from "./theme/theme";
import { liveBackendOnDemand } from "./app/backend-on-demand";
import type { EmbedConfig } from "./types";
import type { ChatDefaults } from "./chat/live";

function readPrefill(): Prefill {
  const raw = (globalThis as { __cellboundPrefill?: unknown }).__cellboundPrefill;
  if (typeof raw !== "object" || raw === null) return {};
  const o = raw as Record<string, unknown>;
  const pick = (k: string) => (typeof o[k] === "string" ? (o[k] as string) : undefined);
  const out: Prefill = {};
  const baseUrl = pick("baseUrl");
  const dataUrl = pick("dataUrl");
  const credential = pick("credential");
  if (baseUrl) out.baseUrl = baseUrl;
  if (dataUrl) out.dataUrl = dataUrl;
  if (credential) out.credential = credential;
  return out;
}

/** The harness's comments session URL and dev-broker request (real Excel sets none: the pane asks). */
function readEmbedPrefill(): EmbedConfig {
  const raw = (globalThis as { __cellboundPrefill?: { sessionUrl?: unknown; embedViewer?: unknown } }).__cellboundPrefill;
  const out: EmbedConfig = {};
  if (typeof raw?.sessionUrl === "string") out.sessionUrl = raw.sessionUrl;
  const v = raw?.embedViewer as { externalId?: unknown; embedTenantName?: unknown } | undefined;
  if (typeof v?.externalId === "string")
    out.sessionRequest = {
      externalId: v.externalId,
      ...(typeof v.embedTenantName === "string" ? { embedTenantName: v.embedTenantName } : {}),
    };
  return out;
}

/** The harness's default agent id for the chat's agent form (real Excel sets none: the user enters one). */
function readChatPrefill(): ChatDefaults {
  const raw = (globalThis as { __cellboundPrefill?: { chatAgentId?: unknown } }).__cellboundPrefill;
  return typeof raw?.chatAgentId === "string" && raw.chatAgentId ? { defaultAgentId: raw.chatAgentId } : {};
}

/** The hidden Diagnostics view (the sheet-port contract suite), in its own chunk. */
const loadDiagnostics = () =>
  import(/* webpackChunkName: "diagnostics" */ "./diagnostics/index").then((m) => m.DiagnosticsView as ComponentType<{ store: PaneStore }>);

const root = document.getElementById("root");
if (!root) throw new Error("taskpane.html has no #root element");
root.textContent = "";
const ready = waitForOffice();
let store: PaneStore | null = null;

render(
  <Shell ready={ready}>
    {() => {
      if (!store) {
        installTheme();
        store = new PaneStore(liveBackendOnDemand(readEmbedPrefill(), readChatPrefill()), new SecretStore(defaultStore()), readPrefill());
        void store.restore();
      }
      return <App store={store} loadDiagnostics={loadDiagnostics} />;
    }}
  </Shell>,
  root,
);
