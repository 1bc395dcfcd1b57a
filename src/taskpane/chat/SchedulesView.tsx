// The Schedules view of the chat pane (issue 23): the deployment's scheduled prompts with their next
// run in the user's time zone; create one from the current question ("every Monday at 8:00" becomes
// the cron, shown in words with the once-an-hour rule before anything is sent); pause / resume, run
// now, delete (asks first); each task's runs, each opening its chat thread in the pane.
import { useEffect, useRef, useState } from "preact/hooks";
import { NoticeBox, ProgressLine } from "../ui/Notice";
import { describeCron, HOURLY_LIMIT, scheduleFromPhrase, splitQuestion } from "./schedule-phrase";
import type { ScheduleItem, ScheduleRun } from "./schedules-service";
import type { SchedulesModel } from "./schedules";

/** The user's IANA time zone (what the pane schedules in and shows times in). */
export function userTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** A time as the user reads it: their zone, weekday, date, hour and the zone's short name. */
export function localTime(iso: string, timeZone = userTimeZone()): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(new Date(iso));
}

const STATUS = {
  running: ["running…", "cb-badge-info"],
  succeeded: ["done", "cb-badge-ok"],
  failed: ["failed", "cb-badge-danger"],
} as const;

function CreateForm({ model, initial, onDone }: { model: SchedulesModel; initial: string; onDone: () => void }) {
  const split = splitQuestion(initial, (c) => model.service.checkCron(c));
  const [prompt, setPrompt] = useState(split.prompt);
  const [when, setWhen] = useState(split.when ?? "every Monday at 8:00");
  const [name, setName] = useState(split.prompt.slice(0, 80));
  const zone = userTimeZone();
  const built = scheduleFromPhrase(when, (c) => model.service.checkCron(c));
  const first = useRef<HTMLTextAreaElement>(null);
  useEffect(() => first.current?.focus(), []);
  const saving = model.saving.value;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!built.ok || !prompt.trim() || saving) return;
    const t = await model.create({
      name: (name.trim() || prompt.trim()).slice(0, 200),
      prompt: prompt.trim(),
      cron: built.cron,
      timezone: built.cron ? zone : null,
    });
    if (t) onDone();
  };
  return (
    <form class="cb-card cb-sched-form" aria-labelledby="cb-sched-new" onSubmit={(e) => void submit(e)}>
      <h2 id="cb-sched-new">New scheduled prompt</h2>
      <label class="cb-field">
        <span>Question the agent answers on each run</span>
        <textarea
          ref={first}
          class="cb-input"
          rows={2}
          value={prompt}
          onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <label class="cb-field">
        <span>When</span>
        <input
          class="cb-input"
          value={when}
          aria-describedby="cb-sched-when-help"
          aria-invalid={!built.ok}
          onInput={(e) => setWhen((e.target as HTMLInputElement).value)}
        />
      </label>
      <div id="cb-sched-when-help">
        {built.ok ? (
          <p class="cb-meta" role="status">
            Runs {built.text}
            {built.cron ? ` in your time zone (${zone}) · cron ${built.cron}` : ""}.
          </p>
        ) : (
          <p class="cb-message cb-message-warning" role="alert">
            {built.problem}
          </p>
        )}
        <p class="cb-meta">{HOURLY_LIMIT} Leave it empty, or write “on demand”, to run it only with Run now.</p>
      </div>
      <label class="cb-field">
        <span>Name</span>
        <input class="cb-input" value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <div class="cb-actions">
        <button type="submit" class="cb-btn cb-primary" disabled={!built.ok || !prompt.trim() || saving}>
          {saving ? "Saving…" : "Save schedule"}
        </button>
        <button type="button" class="cb-btn" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Runs({ runs, onOpen, title }: { runs: ScheduleRun[] | undefined; onOpen: (r: ScheduleRun) => void; title: string }) {
  if (!runs) return <ProgressLine label="Loading runs…" />;
  if (runs.length === 0) return <p class="cb-meta">No runs yet.</p>;
  return (
    <ol class="cb-list cb-sched-runs" aria-label={`Runs of ${title}, newest first`}>
      {runs.map((r) => (
        <li key={r.id} class="cb-row" data-run={r.id}>
          <span>{localTime(r.startedAt)}</span>
          <span class={`cb-badge ${STATUS[r.status][1]}`}>{STATUS[r.status][0]}</span>
          <button type="button" class="cb-btn cb-small" onClick={() => onOpen(r)} aria-label={`Open the run of ${localTime(r.startedAt)}`}>
            Open
          </button>
        </li>
      ))}
    </ol>
  );
}

function TaskCard({ t, model, onOpen }: { t: ScheduleItem; model: SchedulesModel; onOpen: (r: ScheduleRun, t: ScheduleItem) => void }) {
  const [showRuns, setShowRuns] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const pending = model.pending.value[t.id];
  const runs = model.runs.value[t.id];
  const when = t.cron ? `${describeCron(t.cron)}${t.timezone ? ` (${t.timezone})` : ""}` : "On demand";
  const next = t.nextRunAt ? `Next run: ${localTime(t.nextRunAt)}` : t.cron ? "Paused" : "Runs only with Run now";
  const toggleRuns = () => {
    if (!showRuns && !runs) void model.loadRuns(t.id);
    setShowRuns(!showRuns);
  };
  return (
    <li class="cb-card" data-task={t.id}>
      <div class="cb-card-head">
        <span class="cb-card-title">{t.name}</span>
        {t.cron && <span class={`cb-badge ${t.enabled ? "cb-badge-ok" : "cb-badge-muted"}`}>{t.enabled ? "Active" : "Paused"}</span>}
      </div>
      <p class="cb-meta">“{t.prompt}”</p>
      <p class="cb-meta">
        {when} · {next}
      </p>
      {pending && <ProgressLine label={pending} />}
      <div class="cb-actions">
        {t.canManage ? (
          <>
            <button
              type="button"
              class="cb-btn cb-small cb-primary"
              disabled={!!pending}
              onClick={() =>
                void model.runNow(t).then((r) => {
                  if (r) setShowRuns(true);
                })
              }
            >
              Run now
            </button>
            {t.cron && (
              <button type="button" class="cb-btn cb-small" disabled={!!pending} onClick={() => void model.setEnabled(t, !t.enabled)}>
                {t.enabled ? "Pause" : "Resume"}
              </button>
            )}
            {confirming ? (
              <span class="cb-confirm" role="group" aria-label={`Delete ${t.name}?`}>
                <button
                  type="button"
                  class="cb-btn cb-small cb-danger"
                  onClick={() => void model.remove(t)}
                  aria-label={`Confirm delete ${t.name}`}
                >
                  Delete
                </button>
                <button type="button" class="cb-btn cb-small" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </span>
            ) : (
              <button type="button" class="cb-btn cb-small cb-subtle" disabled={!!pending} onClick={() => setConfirming(true)}>
                Delete…
              </button>
            )}
          </>
        ) : (
          <span class="cb-meta">Someone else’s: only its creator or an admin can run or change it.</span>
        )}
        <button type="button" class="cb-btn cb-small cb-subtle" aria-expanded={showRuns} onClick={toggleRuns}>
          Runs
        </button>
      </div>
      {showRuns && <Runs runs={runs} title={t.name} onOpen={(r) => onOpen(r, t)} />}
    </li>
  );
}

export function SchedulesView({
  model,
  question,
  deploymentName,
  onOpenRun,
  autoCreate = false,
}: {
  model: SchedulesModel;
  /** The current question (composer text, else the open thread's last question): what a new schedule starts from. */
  question: string | null;
  deploymentName: string | null;
  onOpenRun: (run: ScheduleRun, task: ScheduleItem) => void;
  /** Open the new-schedule form at once (the composer's Schedule… button). */
  autoCreate?: boolean;
}) {
  const [creating, setCreating] = useState<string | null>(autoCreate ? (question ?? "") : null);
  useEffect(() => {
    void model.load();
  }, [model]);
  const items = model.items.value;
  return (
    <section class="cb-sched" aria-labelledby="cb-sched-title">
      <div class="cb-row">
        <h2 id="cb-sched-title">Scheduled prompts{deploymentName ? ` · ${deploymentName}` : ""}</h2>
        {creating === null && (
          <button type="button" class="cb-btn cb-small" onClick={() => setCreating(question ?? "")}>
            {question ? "Schedule the current question" : "New scheduled prompt"}
          </button>
        )}
      </div>
      <p class="cb-meta">Times are shown in your time zone ({userTimeZone()}). Each run answers in a new conversation you can open here.</p>
      {model.error.value && <NoticeBox notice={model.error.value} onDismiss={() => (model.error.value = null)} />}
      {creating !== null && <CreateForm model={model} initial={creating} onDone={() => setCreating(null)} />}
      {model.loading.value && items === null && <ProgressLine label="Loading scheduled prompts…" />}
      {items && items.length === 0 && <p class="cb-meta">No scheduled prompts in this deployment yet.</p>}
      {items && items.length > 0 && (
        <ul class="cb-list cb-sched-list" aria-label="Scheduled prompts">
          {items.map((t) => (
            <TaskCard key={t.id} t={t} model={model} onOpen={onOpenRun} />
          ))}
        </ul>
      )}
    </section>
  );
}
