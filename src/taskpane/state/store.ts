// The pane's state, as @preact/signals. Navigation is state-based (Office.js nulls history.pushState):
// `route` says which view is shown. The store owns the session (sign in, deployment choice, sign out)
// and the workbook home's live data; views read signals and call the store's actions.
import { batch, computed, signal } from "@preact/signals";
import type { Backend, ConnectInput, InputRequest, SignedInUser, Workspace } from "../app/model";
import type { Deployment, PlaceOutcome, SaveReportInput } from "../types";
import type { HomeData, PlacementView, RefreshAllProgress, RefreshOutcome, RowRefreshState } from "../home/types";
import { describeError, type HumanError } from "../errors";
import { failedRow } from "../home/live-status";
import type { FocusRequest } from "../ui/focus";
import type { SecretStore } from "./secrets";

export type Route = "connect" | "home" | "reports" | "builder" | "chat" | "comments" | "diagnostics" | "dashboard";

export interface Notice {
  tone: "error" | "warning" | "info" | "success";
  title: string;
  detail?: string;
  next?: string;
  /** Request paths, ids and timings: behind a Details toggle, never in the message itself. */
  technical?: string;
  /**
   * What the message is about, for a view's own messages ("reports-load", "home-load", "connect-url"):
   * the view withdraws its message (clearNotice) when the cause is gone, never someone else's.
   */
  kind?: string;
  /** The view (tab) that raised it, when it is about that view only: it shows there and nowhere else. */
  view?: Route;
}

export interface Prefill {
  baseUrl?: string;
  dataUrl?: string;
  credential?: string;
}

/** A pending hand-edit decision for one placement. */
export interface EditPrompt {
  placementId: string;
  outcome: Extract<RefreshOutcome, { kind: "handEdited" }>;
}

const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
/** A placement's key as the engine makes them (12 random characters; never a "remote:" card's id). */
const isKey = (id: string) => /^[\w-]{8,}$/.test(id);
const without = (set: ReadonlySet<string>, x: string): ReadonlySet<string> => new Set([...set].filter((y) => y !== x));
/** A report's title inside a sentence ("This placement" → "this placement"; “Sales” stays). */
const inSentence = (title: string) => (title.startsWith("“") ? title : lower(title));

/** Parts joined as sentences: each ends with a full stop unless it already ends a sentence. */
export function sentences(parts: readonly string[]): string {
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => (/[.!?…]["”’)]?$/.test(p) ? p : `${p}.`))
    .join(" ");
}

/** The placements a home shows, as one key (which ones, not their state). */
const placementsOf = (home: HomeData): string =>
  home.placements
    .map((p) => p.id)
    .sort()
    .join(" ");

/** The platform did not answer (or not usefully): nothing it said before can be taken as current. */
function unreachable(e: unknown): boolean {
  const kind = (e as { kind?: unknown } | null)?.kind;
  return kind === "timeout" || kind === "network" || kind === "server" || kind === "retry-exhausted";
}

export function errorNotice(e: unknown): Notice {
  const h: HumanError = describeError(e);
  return { tone: "error", ...h };
}

/** How a report is placed: where (the confirmation's cell), values only, as an Excel table (issue 33), its inputs. */
export interface PlaceChoices {
  valuesOnly?: boolean;
  asTable?: boolean;
  at?: { sheetId: string; row: number; col: number };
  inputs?: InputRequest[];
}

export class PaneStore {
  readonly route = signal<Route>("connect");
  readonly user = signal<SignedInUser | null>(null);
  readonly deployments = signal<Deployment[]>([]);
  readonly workspace = signal<Workspace | null>(null);
  readonly notice = signal<Notice | null>(null);
  /** A long operation in progress (shown as a status line with progress and Cancel). */
  readonly busy = signal<{ label: string; done?: number; total?: number; atLeast?: boolean; cancel?: () => void } | null>(null);

  readonly home = signal<HomeData | null>(null);
  /**
   * The platform could not be reached since the last good check (ISO time of that check): the cards
   * shown are not checked, never "Up to date" (HomeView). null: the home is current.
   */
  readonly homeStale = signal<string | null>(null);
  private lastChecked: string | null = null;
  /** After this long a busy action also says "Still waiting for the platform — N s" (BusyLine). */
  slowAfterMs = 10_000;
  /** "Refresh when inputs change" (issue 32) waits this long after the person's last change. */
  autoRefreshMs = 1000;
  private autoTimer: ReturnType<typeof setTimeout> | undefined;
  /** The auto-refresh in flight: a newer change aborts it (its cells are being changed again). */
  private autoAbort: AbortController | null = null;
  readonly homeLoading = signal(false);
  readonly rowStates = signal<Record<string, RowRefreshState>>({});
  readonly refreshAll = signal<(RefreshAllProgress & { running: boolean }) | null>(null);
  readonly editPrompt = signal<EditPrompt | null>(null);
  readonly pendingPlace = signal<{
    /** A report's id, or the builder's report not saved yet (saved only once the overwrite is confirmed). */
    report: number | SaveReportInput;
    outcome: Extract<PlaceOutcome, { kind: "wouldOverwrite" }>;
    valuesOnly?: boolean;
    /** Place it as an Excel table (issue 33): the confirmation keeps the choice. */
    asTable?: boolean;
    /** Filters taking their values from cells (issue 32), placed with it once confirmed. */
    inputs?: InputRequest[];
  } | null>(null);

  /** Where focus goes once the home shows what an action led to (a sign-in: the heading; a placement: its card). */
  readonly focusRequest = signal<FocusRequest | null>(null);
  /**
   * Signing out or switching deployment: what is in flight is being stopped and waited for ("Signing
   * out — stopping the refresh…"); nothing new starts meanwhile.
   */
  readonly stopping = signal<string | null>(null);
  /** Placements whose Disconnect question is open: nothing else starts on them meanwhile. */
  readonly disconnectAsked = signal<ReadonlySet<string>>(new Set());
  /** Placements being disconnected, until the home no longer shows them. */
  readonly disconnecting = signal<ReadonlySet<string>>(new Set());

  readonly signedIn = computed(() => this.workspace.value !== null);

  /**
   * Why nothing else can start on a placement now, as the end of "… can start once <this>." (issue 36
   * items 19, 20): a question about it is open, it is being disconnected, or refreshed on its own. One
   * thing per placement at a time.
   */
  heldBy(placementId: string): string | null {
    const title = () => inSentence(this.reportTitle(placementId));
    if (this.disconnecting.value.has(placementId)) return `${title()} is disconnected`;
    if (!this.refreshAll.value?.running && this.rowStates.value[placementId]?.state === "refreshing") return `${title()} is refreshed`;
    if (this.disconnectAsked.value.has(placementId)) return `you answer the question about disconnecting ${title()}`;
    if (this.editPrompt.value?.placementId === placementId) return `you choose what happens to your edits in ${title()}`;
    return null;
  }

  /** Why Refresh all cannot start now, in words (shown beside the disabled button); null when it can. */
  readonly refreshAllBlocked = computed<string | null>(() => {
    const refreshing = Object.entries(this.rowStates.value).flatMap(([id, r]) => (r.state === "refreshing" ? [id] : []));
    const ids = new Set([
      ...refreshing,
      ...this.disconnecting.value,
      ...this.disconnectAsked.value,
      ...(this.editPrompt.value ? [this.editPrompt.value.placementId] : []),
    ]);
    for (const id of ids) {
      const why = this.heldBy(id);
      if (why) return `Refresh all can start once ${why}.`;
    }
    return null;
  });
  private connection: ConnectInput | null = null;
  private unwatch: (() => void) | null = null;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshAllAbort: AbortController | null = null;
  /** The placements Refresh all's run went over (its footer speaks of them only: issue 31 item 4). */
  private refreshAllOver: string | null = null;
  /** One AbortController per action in flight; all are aborted on navigate and sign-out. */
  private readonly inflight = new Set<AbortController>();
  private homeAbort: AbortController | null = null;
  /** Home loads the person cancelled (as opposed to stopped by leaving the tab or a newer load). */
  private readonly homeCancelled = new WeakSet<AbortController>();
  /** Every operation on the workspace until it has ended (its trailing home check too): sign-out waits for them. */
  private readonly running = new Set<Promise<unknown>>();
  /** A placement is being placed (for "Signing out — stopping the placement…"). */
  private placing = false;

  constructor(
    readonly backend: Backend,
    readonly secrets: SecretStore,
    readonly prefill: Prefill = {},
  ) {}

  /**
   * Show a view; opening the workbook home re-checks it (placements may have changed meanwhile). A
   * check stopped by leaving a tab may not have ended yet (its Excel batch or request still unwinding
   * on a busy machine): it never stands for the new one (issue 31 item 7).
   */
  navigate(route: Route): void {
    if (route !== this.route.value) this.cancelAll();
    this.notice.value = null;
    this.route.value = route;
    const checking = this.homeAbort !== null && !this.homeAbort.signal.aborted;
    if (route === "home" && this.workspace.value && !checking) void this.loadHome();
  }

  /** On start: reconnect with the stored connection, if any. */
  async restore(): Promise<void> {
    const stored = await this.secrets.load();
    if (!stored) return;
    const input: ConnectInput = { baseUrl: stored.baseUrl, dataUrl: stored.dataUrl, credential: stored.credential };
    try {
      const { user, deployments } = await this.backend.signIn(input);
      this.connection = input;
      batch(() => {
        this.user.value = user;
        this.deployments.value = deployments;
      });
      const chosen = deployments.find((d) => d.id === stored.deploymentId);
      if (chosen) await this.chooseDeployment(chosen);
    } catch (e) {
      this.notice.value = { ...errorNotice(e), title: `Could not reconnect: ${describeError(e).title}` };
    }
  }

  /** Withdraw the notice if it is of this kind (its cause is gone); any other message stays. */
  clearNotice(kind: string): void {
    if (this.notice.value?.kind === kind) this.notice.value = null;
  }

  /** Abort every action in flight (its request too) and the home load; Refresh all stops. */
  cancelAll(): void {
    for (const c of [...this.inflight]) c.abort();
    this.homeAbort?.abort();
    this.refreshAllAbort?.abort();
  }

  /** Start a cancellable action: its controller, and the busy line with Cancel. */
  private begin(label: string): AbortController {
    const c = new AbortController();
    this.inflight.add(c);
    this.busy.value = { label, cancel: () => c.abort() };
    return c;
  }

  private end(c: AbortController): void {
    this.inflight.delete(c);
    if (this.inflight.size === 0 && this.stopping.value === null) this.busy.value = null;
  }

  /** Progress of an action still running (a stopped one's late progress changes nothing). */
  private progress(c: AbortController, busy: NonNullable<PaneStore["busy"]["value"]>): void {
    if (this.inflight.has(c) && !c.signal.aborted) this.busy.value = busy;
  }

  /** Run an operation on the workspace, known until it ends: sign-out and a deployment switch wait for it. */
  private op<T>(run: () => Promise<T>): Promise<T> {
    const p = run();
    this.running.add(p);
    const done = () => void this.running.delete(p);
    p.then(done, done);
    return p;
  }

  /** What is in flight, in words for "Signing out — stopping …". */
  private inFlightWords(): string | null {
    if (this.refreshAll.value?.running || Object.values(this.rowStates.value).some((r) => r.state === "refreshing")) return "the refresh";
    if (this.placing) return "the placement";
    if (this.running.size > 0) return "what is running";
    return null;
  }

  /**
   * Stop every action of this session and wait until each has ended (issue 36 item 18): a write under
   * way finishes (with its platform record, under the key it began with) before anything is cleared.
   */
  private async stopAll(what: string): Promise<void> {
    const doing = this.inFlightWords();
    this.stopping.value = doing ? `${what} — stopping ${doing}…` : `${what}…`;
    this.busy.value = { label: this.stopping.value };
    this.cancelAll();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Forget what this session showed about its placements: footers, row states, questions, notices of it. */
  private forgetSession(): void {
    clearTimeout(this.reloadTimer);
    clearTimeout(this.autoTimer);
    this.autoAbort?.abort();
    this.lastChecked = null;
    batch(() => {
      this.rowStates.value = {};
      this.refreshAll.value = null;
      this.editPrompt.value = null;
      this.pendingPlace.value = null;
      this.homeStale.value = null;
      this.focusRequest.value = null;
      this.disconnectAsked.value = new Set();
      this.disconnecting.value = new Set();
    });
  }

  /** A cancelled action says so calmly (not as an error); anything else becomes the error notice. */
  private failed(c: AbortController, e: unknown, what: string): void {
    // Stopped by a sign-out or a deployment switch: that line says what happens ("Signing out — stopping …").
    if (c.signal.aborted && this.stopping.value) return;
    this.notice.value = c.signal.aborted ? { tone: "info", title: `${what} cancelled` } : errorNotice(e);
  }

  /** Step 1 of Connect: check the credential and list deployments. */
  async signIn(input: ConnectInput): Promise<boolean> {
    this.notice.value = null;
    const c = this.begin("Signing in…");
    try {
      const { user, deployments } = await this.backend.signIn(input, c.signal);
      this.connection = input;
      await this.secrets.save({ ...input, deploymentId: null });
      batch(() => {
        this.user.value = user;
        this.deployments.value = deployments;
      });
      if (deployments.length === 0) {
        this.notice.value = {
          tone: "warning",
          title: "No deployments",
          detail: "This account cannot use any deployment.",
          next: "Ask an admin for access.",
        };
      } else if (deployments.length === 1) {
        await this.chooseDeployment(deployments[0]!);
      }
      return true;
    } catch (e) {
      this.failed(c, e, "Sign-in");
      // A URL no platform answers at is about the URL: Connect withdraws it once the URL is edited.
      const kind = (e as { kind?: unknown } | null)?.kind;
      if ((kind === "platform-url" || kind === "data-url") && this.notice.value)
        this.notice.value = { ...this.notice.value, kind: "connect-url" };
      return false;
    } finally {
      this.end(c);
    }
  }

  /**
   * Step 2 of Connect, and switching deployment at any time (no Sign out needed): open the
   * deployment (mints the data-API token behind the scenes).
   */
  async chooseDeployment(deployment: Deployment, o: { focusHome?: boolean } = {}): Promise<void> {
    if (!this.connection) throw new Error("chooseDeployment before signIn");
    if (this.stopping.value) return;
    const connection = this.connection;
    // What runs in the deployment left is stopped and waited for; nothing of it shows in the next.
    await this.stopAll(`Opening ${deployment.name}`);
    this.stopping.value = null;
    this.busy.value = null;
    this.forgetSession();
    await this.whileBusy(`Opening ${deployment.name}…`, async () => {
      this.unwatch?.();
      await this.workspace.value?.close();
      const ws = await this.backend.open(connection, deployment, this.deployments.value);
      this.unwatch = ws.watch(() => {
        this.homeChanged();
        this.inputsMaybeChanged();
      });
      await this.secrets.save({ ...connection, deploymentId: deployment.id });
      batch(() => {
        this.workspace.value = ws;
        this.route.value = "home";
        this.notice.value = null;
        // Focus lands on the home heading, not on <body> (the header's deployment menu keeps its own).
        if (o.focusHome !== false) this.focusRequest.value = { target: "home" };
      });
      await this.loadHome();
    });
  }

  /**
   * Sign out: stop what is in flight and wait for it to end ("Signing out — stopping the refresh…"),
   * then close the workspace (no request of it leaves afterwards), forget every secret and everything
   * this session showed, back to Connect.
   */
  async signOut(): Promise<void> {
    if (this.stopping.value) return;
    this.unwatch?.();
    this.unwatch = null;
    clearTimeout(this.reloadTimer);
    clearTimeout(this.autoTimer);
    await this.stopAll("Signing out");
    const ws = this.workspace.value;
    this.connection = null;
    let cleared = false;
    try {
      await ws?.close();
    } finally {
      try {
        await this.secrets.clearAll();
        cleared = true;
      } finally {
        this.forgetSession();
        batch(() => {
          this.workspace.value = null;
          this.user.value = null;
          this.deployments.value = [];
          this.home.value = null;
          this.route.value = "connect";
          this.stopping.value = null;
          this.busy.value = null;
          this.notice.value = cleared
            ? { tone: "info", title: "Signed out", detail: "Every stored credential and token was removed from this add-in." }
            : null;
        });
      }
    }
  }

  private requireWorkspace(): Workspace {
    const ws = this.workspace.value;
    if (!ws) throw new Error("not signed in");
    return ws;
  }

  /** The workbook changed: re-check the home shortly after (debounced; not while an operation runs). */
  private homeChanged(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      if (this.busy.value || this.refreshAll.value?.running || Object.values(this.rowStates.value).some((r) => r.state === "refreshing")) {
        this.homeChanged();
        return;
      }
      void this.loadHome();
    }, 400);
  }

  /**
   * The person changed the workbook (issue 32): when a placement refreshes when its inputs change, the
   * refresh waits until the changes stop for autoRefreshMs, and a newer change aborts one in flight.
   * Excel runs no batch of it while a cell is being edited (host/excel/cell-edit.ts).
   */
  private inputsMaybeChanged(o: { switched?: boolean } = {}): void {
    if (!o.switched && !this.home.value?.placements.some((p) => p.inputs?.autoRefresh)) return;
    clearTimeout(this.autoTimer);
    this.autoAbort?.abort();
    this.autoTimer = setTimeout(() => void this.op(() => this.autoRefresh()), this.autoRefreshMs);
  }

  /** Refresh the placements whose inputs changed and that refresh on their own, one after another. */
  private async autoRefresh(): Promise<void> {
    if (!this.workspace.value || this.stopping.value) return;
    const refreshing = Object.values(this.rowStates.value).some((r) => r.state === "refreshing");
    if (this.busy.value || this.refreshAll.value?.running || refreshing) {
      this.autoTimer = setTimeout(() => void this.op(() => this.autoRefresh()), this.autoRefreshMs); // after what runs
      return;
    }
    const c = new AbortController();
    this.autoAbort = c;
    await this.checkHome(); // the cards say which inputs changed, and whether they can be used
    const due = (this.home.value?.placements ?? []).filter(
      (p) => p.inputs?.autoRefresh && p.inputs.changed && !p.inputs.problem && this.heldBy(p.id) === null,
    );
    for (const p of due) {
      if (c.signal.aborted || this.stopping.value) break;
      await this.refreshOne(p.id, "ask", c.signal);
    }
    if (this.autoAbort === c) this.autoAbort = null;
  }

  /** "Refresh when inputs change" was turned on: inputs changed already are refreshed after the same wait. */
  inputsSwitched(): void {
    this.inputsMaybeChanged({ switched: true }); // the home does not show the switch on yet
  }

  /** Load (check) the workbook home; a newer load or Cancel aborts the one in flight. */
  loadHome(): Promise<void> {
    return this.op(() => this.checkHome());
  }

  private async checkHome(): Promise<void> {
    const ws = this.workspace.value;
    if (!ws || this.stopping.value) return;
    this.homeAbort?.abort();
    const c = new AbortController();
    this.homeAbort = c;
    this.homeLoading.value = true;
    try {
      const data = await ws.home(c.signal);
      if (c.signal.aborted) return;
      this.lastChecked = new Date().toISOString();
      batch(() => {
        // An ended run's summary goes once placements were added or removed: it no longer describes the home.
        if (this.refreshAll.value && !this.refreshAll.value.running && placementsOf(data) !== this.refreshAllOver)
          this.refreshAll.value = null;
        this.home.value = data;
        this.homeStale.value = null;
        this.clearNotice("home-load");
      });
    } catch (e) {
      if (this.homeAbort !== c) return; // a newer load took over
      if (!c.signal.aborted && this.home.value) this.homeStale.value = this.lastChecked ?? new Date(0).toISOString();
      // A lasting message about what the user just did (a refresh that timed out) is the news: it stays.
      const current = this.notice.value;
      if (!c.signal.aborted && current && current.kind !== "home-load" && (current.tone === "error" || current.tone === "warning")) return;
      // Leaving the Workbook tab stops its check quietly (it runs again on return); only the person's Cancel is news.
      if (c.signal.aborted && !this.homeCancelled.has(c)) return;
      // In the pane's one notification area (replacing what is there), withdrawn by the next good load.
      this.notice.value = c.signal.aborted
        ? {
            tone: "info",
            title: "Checking the workbook was cancelled",
            next: "Open the Workbook tab again to check it.",
            kind: "home-load",
          }
        : { ...errorNotice(e), kind: "home-load" };
    } finally {
      if (this.homeAbort === c) {
        this.homeAbort = null;
        this.homeLoading.value = false;
      }
    }
  }

  /** The person's Cancel of the home check (the busy line's button). */
  cancelHome(): void {
    if (this.homeAbort) this.homeCancelled.add(this.homeAbort);
    this.homeAbort?.abort();
  }

  private setRow(id: string, state: RowRefreshState | null): void {
    const next = { ...this.rowStates.value };
    if (state) next[id] = state;
    else delete next[id];
    this.rowStates.value = next;
  }

  /** Refresh one placement; a hand edit opens the banner instead of overwriting. */
  refresh(placementId: string, choice: "ask" | "overwrite" | "keep" = "ask"): Promise<void> {
    if (this.stopping.value) return Promise.resolve();
    // Its Disconnect question is open, it is being disconnected, or refreshed already: nothing else starts on it.
    if (this.disconnecting.value.has(placementId) || this.disconnectAsked.value.has(placementId)) return Promise.resolve();
    if (this.refreshAll.value?.running || this.rowStates.value[placementId]?.state === "refreshing") return Promise.resolve();
    return this.op(() => this.refreshOne(placementId, choice));
  }

  /** `auto`: an auto-refresh's signal (issue 32): a newer change to the inputs aborts it, quietly. */
  private async refreshOne(placementId: string, choice: "ask" | "overwrite" | "keep", auto?: AbortSignal): Promise<void> {
    const ws = this.requireWorkspace();
    this.editPrompt.value = null;
    this.notice.value = null; // an earlier notice ("Report placed") is not about this refresh
    this.setRow(placementId, { state: "refreshing" });
    const name = this.home.value?.placements.find((p) => p.id === placementId)?.reportName;
    const label = name ? `Refreshing ${name}…` : "Refreshing…";
    const c = this.begin(label);
    auto?.addEventListener("abort", () => c.abort(), { once: true });
    try {
      const outcome = await ws.refresh(placementId, choice, {
        signal: c.signal,
        onProgress: (p) => this.progress(c, { label, done: p.done, total: p.total, cancel: () => c.abort() }),
      });
      if (outcome.kind === "handEdited") {
        this.setRow(placementId, null);
        this.editPrompt.value = { placementId, outcome };
        // The card names the same rows as the banner.
        this.patchFacts(placementId, {
          edit: "edited",
          editedRows: outcome.editedRows,
          editedRowsExact: true,
          handEdits: outcome.line ?? null,
        });
        return;
      }
      if (outcome.kind === "notRefreshed") {
        this.setRow(placementId, { state: "failed", reason: outcome.reason });
        this.notice.value = { tone: "warning", title: `${this.reportTitle(placementId)} was not refreshed`, detail: outcome.reason };
        return;
      }
      const summary = outcome.kind === "kept" ? "Your edits were kept" : outcome.summary;
      this.setRow(placementId, { state: "done", summary });
      this.notice.value =
        outcome.kind === "kept"
          ? {
              tone: "info",
              title: "Refreshed, your edits kept",
              detail: outcome.line
                ? `${outcome.line}: kept as you left them, with the report's rows where they are now; the placement stays marked Edited by hand.`
                : "The rows you edited were left as they are; the placement stays marked Edited by hand.",
            }
          : outcome.notices?.length
            ? {
                tone: "warning",
                title: "Refreshed, with a warning",
                detail: sentences([name ? `${name}: ${summary}` : summary, ...outcome.notices]),
              }
            : { tone: "success", title: "Refreshed", detail: name ? `${name}: ${summary}` : summary };
    } catch (e) {
      // Cancelled: nothing claims it was refreshed; the next check shows an interrupted write as such.
      this.setRow(placementId, c.signal.aborted ? null : failedRow(e, describeError(e).title));
      // Stopped by a newer change to its inputs: quietly, the refresh after that change follows.
      if (c.signal.aborted && !auto?.aborted) this.failed(c, e, "Refresh");
      else {
        const n = this.unnamed(errorNotice(e), placementId);
        this.notice.value = { ...n, title: `${this.reportTitle(placementId)} was not refreshed: ${lower(n.title)}` };
        // The platform cannot be reached: what the other cards show was not checked just now.
        if (unreachable(e) && this.home.value) this.homeStale.value = this.lastChecked ?? new Date(0).toISOString();
      }
    } finally {
      this.end(c);
    }
    await this.loadHome();
  }

  private patchFacts(placementId: string, change: Partial<PlacementView["facts"]>): void {
    const home = this.home.value;
    if (!home) return;
    this.home.value = {
      ...home,
      placements: home.placements.map((p) => (p.id === placementId ? { ...p, facts: { ...p.facts, ...change } } : p)),
    };
  }

  async resolveEdits(choice: "overwrite" | "keep" | "cancel"): Promise<void> {
    const prompt = this.editPrompt.value;
    if (!prompt) return;
    if (choice === "cancel") {
      this.editPrompt.value = null;
      return;
    }
    await this.refresh(prompt.placementId, choice);
  }

  refreshEverything(): Promise<void> {
    if (this.stopping.value || this.refreshAllBlocked.value) return Promise.resolve();
    return this.op(() => this.refreshAllNow());
  }

  private async refreshAllNow(): Promise<void> {
    const ws = this.requireWorkspace();
    const abort = new AbortController();
    this.refreshAllAbort = abort;
    this.notice.value = null; // an earlier single refresh's notice ("Refreshed, your edits kept") is not about this run
    this.refreshAll.value = { done: 0, total: 0, rows: {}, running: true };
    this.refreshAllOver = this.home.value ? placementsOf(this.home.value) : null;
    try {
      const final = await ws.refreshAll({
        signal: abort.signal,
        onProgress: (p) => {
          this.refreshAll.value = { ...p, running: true };
          this.rowStates.value = this.spokenRows(p.rows);
        },
      });
      this.refreshAll.value = { ...final, running: false };
      this.rowStates.value = this.spokenRows(final.rows);
    } catch (e) {
      this.refreshAll.value = this.refreshAll.value && { ...this.refreshAll.value, running: false };
      if (!(abort.signal.aborted && this.stopping.value)) this.notice.value = errorNotice(e);
    } finally {
      this.refreshAllAbort = null;
      await this.loadHome();
    }
  }

  stopRefreshAll(): void {
    this.refreshAllAbort?.abort();
  }

  async locate(placementId: string, rows?: { from: number; to: number }): Promise<void> {
    try {
      await this.requireWorkspace().locate(placementId, rows);
    } catch (e) {
      this.notice.value = errorNotice(e);
    }
  }

  /** Open the Disconnect question of a placement (while it is open, nothing else starts on it). */
  askDisconnect(placementId: string): void {
    this.disconnectAsked.value = new Set([...this.disconnectAsked.value, placementId]);
  }

  /** Close the Disconnect question: "Keep it". */
  keepPlacement(placementId: string): void {
    this.disconnectAsked.value = without(this.disconnectAsked.value, placementId);
  }

  async disconnect(placementId: string): Promise<void> {
    this.keepPlacement(placementId); // the question is answered
    // One thing per placement at a time: not while it (or Refresh all) refreshes, nor twice.
    if (this.stopping.value || this.disconnecting.value.has(placementId) || this.refreshAll.value?.running) return;
    if (this.rowStates.value[placementId]?.state === "refreshing") return;
    this.disconnecting.value = new Set([...this.disconnecting.value, placementId]);
    try {
      const done = await this.whileBusy("Disconnecting…", async (signal) => {
        await this.requireWorkspace().disconnect(placementId, signal);
        this.notice.value = {
          tone: "success",
          title: "Disconnected",
          detail: "The cells stay in the sheet; Cellbound no longer refreshes them.",
        };
      });
      // The progress line ended with the outcome; the home follows (the card stays held until it is gone).
      if (done) await this.loadHome();
    } finally {
      this.disconnecting.value = without(this.disconnecting.value, placementId);
    }
  }

  /** This file is a copy: give it its own workbook id so its placements stop being the original's. */
  async fork(): Promise<void> {
    if (this.stopping.value) return;
    const done = await this.whileBusy("Separating this copy…", async (signal) => {
      const out = await this.requireWorkspace().fork(signal);
      this.notice.value = out.failed.length
        ? {
            tone: "warning",
            title: "This copy is now a separate workbook, with problems",
            detail: out.failed.join(" "),
            next: "Cellbound connects them to this copy at its next check of the workbook; refresh them to connect them now.",
          }
        : {
            tone: "success",
            title: "This copy is now a separate workbook",
            detail: `${out.reconnected} placements were connected to it; the original's stay as they were.`,
          };
    });
    if (done) await this.loadHome();
  }

  /** Not a copy: the same file, renamed or moved. Keep its workbook id and record its new address. */
  async keepIdentity(): Promise<void> {
    if (this.stopping.value) return;
    const done = await this.whileBusy("Recording the new address…", async (signal) => {
      await this.requireWorkspace().keepIdentity(signal);
      this.notice.value = {
        tone: "success",
        title: "Recorded: this is the same workbook",
        detail: "Its placements stay connected as they were; Cellbound now knows the file's new address.",
      };
    });
    if (done) await this.loadHome();
  }

  /** Run a user action with the busy indicator and Cancel shown; a failure becomes the notice, never silence. */
  private whileBusy(label: string, action: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
    return this.op(async () => {
      const c = this.begin(label);
      try {
        await action(c.signal);
        return true;
      } catch (e) {
        this.failed(c, e, label.replace(/…$/, ""));
        return false;
      } finally {
        this.end(c);
      }
    });
  }

  /**
   * A message about a placement never shows its key or tracking name (an engine error may carry them,
   * e.g. one disconnected elsewhere meanwhile): they read as its report's title.
   */
  private unnamed<T extends { title: string; detail?: string }>(n: T, placementId: string): T {
    if (!isKey(placementId)) return n;
    const key = new RegExp(`(?<![\\w-])(CB_)?${placementId}(?![\\w-])`, "g"); // a key holds only [\w-]
    const says = (t: string) => t.replace(key, this.reportTitle(placementId));
    return { ...n, title: says(n.title), ...(n.detail !== undefined ? { detail: says(n.detail) } : {}) };
  }

  /** Refresh all's rows, their reasons without keys: a placement gone meanwhile reads in words. */
  private spokenRows(rows: Record<string, RowRefreshState>): Record<string, RowRefreshState> {
    const out: Record<string, RowRefreshState> = {};
    for (const [id, r] of Object.entries(rows)) {
      const gone = r.state === "failed" && /^No placement \S+ is tracked in this workbook/.test(r.reason);
      out[id] =
        r.state === "failed" && isKey(id) && r.reason.includes(id)
          ? {
              ...r,
              reason: gone
                ? `${this.reportTitle(id)} is no longer in this workbook (it was disconnected).`
                : this.unnamed({ title: r.reason }, id).title,
            }
          : r;
    }
    return out;
  }

  /** A placement's report as people know it (its title), for messages. */
  private reportTitle(placementId: string): string {
    const p = this.home.value?.placements.find((x) => x.id === placementId);
    return p?.reportName ? `“${p.reportName}”` : "This placement";
  }

  /**
   * Place a report at the selected cell; asks first when it would overwrite content. The
   * confirmation passes `at` (the cell chosen the first time), so it lands where it was asked about.
   * A report built in the pane (SaveReportInput) is saved on the platform only as it is placed: a
   * Cancel at the question saves nothing (issue 31 item 1).
   */
  place(report: number | SaveReportInput, confirmed = false, o: PlaceChoices = {}): Promise<boolean> {
    if (this.stopping.value) return Promise.resolve(false);
    return this.op(async () => {
      this.placing = true;
      try {
        return await this.placeNow(report, confirmed, o);
      } finally {
        this.placing = false;
      }
    });
  }

  private async placeNow(report: number | SaveReportInput, confirmed: boolean, o: PlaceChoices): Promise<boolean> {
    const ws = this.requireWorkspace();
    this.pendingPlace.value = null;
    const c = this.begin("Placing report…");
    try {
      const outcome = await ws.place(report, {
        confirmed,
        ...(o.at ? { at: o.at } : {}),
        ...(o.valuesOnly ? { valuesOnly: true } : {}),
        ...(o.asTable ? { asTable: true } : {}),
        ...(o.inputs?.length ? { inputs: o.inputs } : {}),
        signal: c.signal,
        onProgress: (p) =>
          this.progress(c, {
            label: "Placing report…",
            done: p.done,
            total: p.total,
            ...(p.atLeast ? { atLeast: true } : {}),
            cancel: () => c.abort(),
          }),
      });
      if (outcome.kind === "wouldOverwrite") {
        this.pendingPlace.value = {
          report,
          outcome,
          ...(o.valuesOnly ? { valuesOnly: true } : {}),
          ...(o.asTable ? { asTable: true } : {}),
          ...(o.inputs?.length ? { inputs: o.inputs } : {}),
        };
        return false;
      }
      if (outcome.kind === "collides") {
        this.notice.value = {
          tone: "warning",
          title: "There is a report in the way",
          detail: `Placing it at ${outcome.target} would overlap ${outcome.placements.join(", ")}.`,
          next: "Select an empty cell away from other reports and place it again.",
        };
        return false;
      }
      // The progress line (and its Cancel, which could no longer stop anything) ends as the outcome shows.
      this.end(c);
      // A notice (e.g. rows cut at the maximum a placement holds) stays until dismissed: it is about the data.
      this.notice.value = outcome.notices?.length
        ? {
            tone: "warning",
            title: "Report placed, with a warning",
            detail: sentences([`${outcome.sheetName}!${outcome.range}`, ...outcome.notices]),
          }
        : { tone: "success", title: "Report placed", detail: `${outcome.sheetName}!${outcome.range}` };
      await this.loadHome();
      this.route.value = "home";
      this.focusRequest.value = { target: "card", id: outcome.placementId };
      return true;
    } catch (e) {
      // Cancelled after rows were written (Cancel, or leaving the tab): what stays and how to finish it.
      if (e instanceof Error && e.name === "PlaceInterrupted" && !this.stopping.value)
        this.notice.value = { tone: "warning", ...describeError(e) };
      else this.failed(c, e, "Placing the report");
      return false;
    } finally {
      this.end(c);
    }
  }
}
