// Connect: base URL + credential (API key or OAuth access token), then the deployment.
// The credential field is a password field; its value goes only to SecretStore and the API layer.
import { useSignal, type Signal } from "@preact/signals";
import type { Deployment } from "../types";
import type { PaneStore } from "../state/store";
import type { SignedInUser } from "../app/model";

const URL_NOTICE = "connect-url";

/** A bad URL is said in the pane's one notification area (kind "connect-url"), the field marked invalid. */
function urlError(store: PaneStore, detail: string): void {
  store.notice.value = { tone: "error", title: "Check the platform URL", detail, kind: URL_NOTICE };
  document.getElementById("cb-base-url")?.focus();
}

/** The platform's address as typed, checked: its origin, or null once what is wrong with it has been said. */
function platformOrigin(store: PaneStore, typed: string): string | null {
  let url: URL;
  try {
    url = new URL(typed.trim());
  } catch {
    urlError(store, "Enter the platform's address, for example https://acme.example.com");
    return null;
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && /^(127\.0\.0\.1|localhost)$/.test(url.hostname))) {
    urlError(store, "Use an https:// address (plain http is allowed only for a local stand-in).");
    return null;
  }
  if (url.pathname.replace(/\/+$/, "") !== "" || url.search || url.hash) {
    // The API lives at the tenant host itself (seeds 01): a path here only leads to 404s.
    urlError(store, `Enter the platform's address without a path, for example ${url.origin}`);
    return null;
  }
  return url.origin;
}

export function ConnectView({ store }: { store: PaneStore }) {
  const baseUrl = useSignal(store.prefill.baseUrl ?? "");
  const dataUrl = useSignal(store.prefill.dataUrl ?? "");
  const credential = useSignal(store.prefill.credential ?? "");
  const urlInvalid = store.notice.value?.kind === URL_NOTICE;
  const busy = store.busy.value !== null;

  const submit = async (ev: Event) => {
    ev.preventDefault();
    const origin = platformOrigin(store, baseUrl.value);
    if (origin === null) return;
    store.clearNotice(URL_NOTICE);
    const data = dataUrl.value.trim();
    await store.signIn({ baseUrl: origin, dataUrl: data === "" ? null : data, credential: credential.value.trim() });
  };

  const deployments = store.deployments.value;
  const user = store.user.value;
  if (user && deployments.length > 1 && !store.workspace.value) {
    return <ChooseDeployment store={store} user={user} deployments={deployments} busy={busy} />;
  }

  return (
    <form onSubmit={submit} aria-labelledby="cb-connect-title" autocomplete="off">
      <h1 id="cb-connect-title">Connect to your analytics platform</h1>
      <p class="cb-meta">Your credential is kept in this add-in's own storage on this computer. It is never written into the workbook.</p>
      <div class="cb-field">
        <label for="cb-base-url">Platform URL</label>
        <input
          id="cb-base-url"
          class="cb-input"
          type="url"
          required
          placeholder="https://acme.example.com"
          value={baseUrl.value}
          onInput={(e) => {
            baseUrl.value = e.currentTarget.value;
            store.clearNotice(URL_NOTICE); // what it said was about the URL as it was
          }}
          aria-invalid={urlInvalid ? true : undefined}
        />
      </div>
      <CredentialField credential={credential} />
      <AdvancedFields store={store} dataUrl={dataUrl} />
      <button type="submit" class="cb-btn cb-primary" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}

/** Signed in with more than one deployment and none chosen yet: one card per deployment. */
function ChooseDeployment(p: { store: PaneStore; user: SignedInUser; deployments: readonly Deployment[]; busy: boolean }) {
  const { store, user, deployments, busy } = p;
  return (
    <section aria-labelledby="cb-dep-title">
      <h1 id="cb-dep-title">Choose a deployment</h1>
      <p>Signed in as {user.name || user.email}.</p>
      <ul class="cb-list">
        {deployments.map((d) => (
          <li key={d.id} class="cb-card">
            <div class="cb-card-head">
              <span class="cb-card-title">{d.name}</span>
              <button type="button" class="cb-btn cb-primary" disabled={busy} onClick={() => void store.chooseDeployment(d)}>
                Use {d.name}
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function CredentialField({ credential }: { credential: Signal<string> }) {
  return (
    <div class="cb-field">
      <label for="cb-credential">API key or access token</label>
      <input
        id="cb-credential"
        class="cb-input"
        type="password"
        required
        autocomplete="off"
        spellcheck={false}
        value={credential.value}
        onInput={(e) => (credential.value = e.currentTarget.value)}
      />
      {/* The same words as the command line's (src/cli/args.ts): the seeds make API keys admin only (issue 31 item 5). */}
      <span class="cb-hint">
        Paste an API key or an OAuth access token (ask an admin of your platform for an API key: only admins can create them).
      </span>
    </div>
  );
}

function AdvancedFields({ store, dataUrl }: { store: PaneStore; dataUrl: Signal<string> }) {
  return (
    <details>
      <summary>Advanced</summary>
      <div class="cb-field">
        <label for="cb-data-url">Data API URL (optional)</label>
        <input
          id="cb-data-url"
          class="cb-input"
          type="url"
          value={dataUrl.value}
          onInput={(e) => {
            dataUrl.value = e.currentTarget.value;
            store.clearNotice(URL_NOTICE);
          }}
        />
        <span class="cb-hint">Leave empty to use the one the platform reports for the deployment.</span>
      </div>
    </details>
  );
}
