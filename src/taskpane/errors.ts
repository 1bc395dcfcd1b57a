// Every error the pane can meet, as a human message that says what happened and what to do next.
// Typed errors from src/api are recognised by `kind` alone (one row each in KIND_MESSAGES); a few
// errors of src/sync and src/host by name or a pattern (one row each in NAMED_MESSAGES); anything
// unknown still gets a message.

export interface HumanError {
  title: string;
  detail: string;
  next: string;
  /** The request paths, ids and timings behind it: shown only behind a Details toggle. */
  technical?: string;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  code?: unknown;
  kind?: unknown;
  limit?: unknown;
}

function field(e: unknown, key: keyof ErrorLike): unknown {
  return typeof e === "object" && e !== null ? (e as ErrorLike)[key] : undefined;
}

/** The message text of an error, if it has one (never includes secrets: errors carry none). */
function messageOf(e: unknown): string {
  const m = field(e, "message");
  return typeof m === "string" && m.length > 0 ? m : String(e);
}

/** The server's own words without the request line ("POST /v1/load: 500 …" → "…"); "" when none. */
function serverWords(e: unknown): string {
  const m = messageOf(e)
    .replace(/^[A-Z]+ \S+: (\d{3}\b:? ?)?/, "")
    .trim();
  return /^\d{3}$/.test(m) ? "" : m;
}

/** Messages for the `kind` of src/api's typed errors (src/api/errors.ts) and src/sync's outcomes. */
const KIND_MESSAGES: Record<string, HumanError | ((e: unknown) => HumanError)> = {
  network: {
    title: "Cannot reach the platform",
    detail: "The request did not get an answer. The platform URL may be wrong, or the network is down.",
    next: "Check the platform URL and your connection, then try again.",
  },
  server: (e) => ({
    title: "The platform had a problem",
    detail: serverWords(e) ? `It answered with a server error: ${serverWords(e)}` : "It answered with a server error.",
    next: "Wait a moment and try again. If it keeps failing, tell your admin what it said (Details).",
    technical: messageOf(e),
  }),
  timeout: (e) => ({
    title: "The platform did not answer in time",
    detail: "Cellbound stopped waiting for it. Nothing was changed in your cells.",
    next: "Try again in a moment; if the platform stays slow, a large report may need a smaller date range or a limit.",
    technical: messageOf(e),
  }),
  "chat-auth": (e) => ({
    title: "The chat service did not accept your sign-in",
    detail: messageOf(e),
    next: "Sign out and sign in again; if it persists, ask an admin whether chat is enabled for this deployment (or set an agent id in Chat settings).",
  }),
  "chat-busy": {
    title: "The agent is still answering",
    detail: "This conversation is answering another question (perhaps from another window).",
    next: "Wait for that answer or press Stop, then ask again.",
  },
  "token-refused": {
    title: "Your sign-in has expired",
    detail: "The data API refused the sign-in token, even a freshly issued one. This is a sign-in problem, not a missing permission.",
    next: "Sign out and sign in again. If it keeps happening, ask your admin to check the deployment's data API settings.",
  },
  "rate-limited": (e) => ({
    title: "The platform asked Cellbound to slow down",
    detail: `Too many requests right now: ${messageOf(e)}`,
    next: "Wait a minute and try again.",
  }),
  "response-too-large": (e) => ({
    title: "The answer is too large to place",
    detail: `Cellbound stopped reading it: ${messageOf(e)}`,
    next: "Add a limit or filters to the report so that it returns fewer rows, then try again.",
  }),
  "sql-not-supported": {
    title: "This data API does not run SQL reports",
    detail: "The deployment's data API has no SQL endpoint, so this report's SQL query cannot run here. Nothing was changed in your cells.",
    next: "Use a report built from the data model (not SQL) in this deployment, or ask your admin about SQL support.",
  },
  "data-url": (e) => ({
    title: "Check the Data API URL",
    detail: messageOf(e),
    next: "Correct the Data API URL under Advanced (or leave it empty to use the platform's default), then sign in again.",
  }),
  "platform-url": (e) => ({
    title: "Check the platform URL",
    detail: messageOf(e),
    next: "Enter only the platform's address, without a path: for example https://acme.example.com",
  }),
  "invalid-response": (e) => ({
    title: "The platform sent an answer Cellbound does not understand",
    detail: messageOf(e),
    next: "Check that the platform URL points at the platform itself, then try again.",
  }),
  unauthorized: {
    title: "Your sign-in was not accepted",
    detail: "The platform rejected the API key or access token (it may have expired or been revoked).",
    next: "Sign out and sign in again with a valid credential.",
  },
  forbidden: {
    title: "You do not have access",
    detail: "Your account is not allowed to do this in this deployment.",
    next: "Ask the report's owner or an admin for access, or choose another deployment.",
  },
  "not-found": {
    title: "Not found",
    detail: "The report or placement no longer exists on the platform.",
    next: "Reload the workbook home; disconnect the placement if it stays missing.",
  },
  "public-id-taken": {
    title: "That report id is already used",
    detail: "Another report already has this id.",
    next: "Save again: Cellbound will choose a new id.",
  },
  "public-id-other-deployment": {
    title: "That report id belongs to another deployment",
    detail: "A report in a different deployment already uses this id.",
    next: "Save again: Cellbound will choose a new id.",
  },
  "upsert-branch-changed": {
    title: "Someone else changed this report at the same moment",
    detail: "The platform refused the change to avoid overwriting theirs, and retrying did not help.",
    next: "Try again in a moment.",
  },
  "ambiguous-legacy-id": {
    title: "This report has an old, shared id",
    detail: "Several reports share this legacy id, so the platform could not tell which one to update. Nothing changed.",
    next: "Give the report an id of its own (save it again from the report builder).",
  },
  "public-id-immutable": {
    title: "A report's id cannot change",
    detail: "The platform keeps a report's id once it is set.",
    next: "Save it as a new report instead.",
  },
  "placeholder-public-id": {
    title: "That report id is a placeholder",
    detail: "Old reports share synthesized ids that cannot be assigned.",
    next: "Save it as a new report instead.",
  },
  "too-long": (e) => ({ title: "A name is too long", detail: messageOf(e), next: "Use at most 255 characters for the name and title." }),
  "bad-request": (e) => ({
    title: "The platform refused the request",
    detail: messageOf(e),
    next: "Correct the value it names and try again.",
  }),
  "placement-limit": {
    title: "This workbook holds too many placements",
    detail:
      "The platform lists at most 500 placed reports or 2,000 placements per workbook. This workbook is over that limit, so the platform returned no list at all.",
    next: "Disconnect placements you no longer need, or split the workbook, then reload.",
  },
  conflict: (e) => ({ title: "The platform reported a conflict", detail: messageOf(e), next: "Reload and try again." }),
  "scheduled-task-limit": {
    title: "You already have 20 active scheduled prompts",
    detail:
      "The platform allows each person at most 20 scheduled prompts that are switched on, across all deployments of the account. Paused and on-demand prompts do not count.",
    next: "Pause or delete one of your scheduled prompts, or save this one as on demand (Run now only).",
  },
  "scheduled-tasks-disabled": {
    title: "Scheduled prompts are turned off for your account",
    detail: "Your platform account does not have scheduled tasks enabled, so prompts cannot be scheduled or run from here.",
    next: "Ask an account admin to enable scheduled tasks; the chat works as before.",
  },
  "embed-session": (e) => ({
    title: "Your organisation's session URL did not give a session",
    detail: messageOf(e),
    next: "Check the session URL under Comments, or ask your platform admin for the right one.",
  }),
  "data-query": (e) => ({
    title: "The query was rejected",
    detail: messageOf(e),
    next: "Change the report's members or filters and try again.",
  }),
  "retry-exhausted": {
    title: "The platform kept failing",
    detail: "Cellbound tried several times and then gave up.",
    next: "Try again in a moment. If it keeps happening, contact your admin.",
  },
  http: (e) => ({
    title: "The platform answered with an error",
    detail: "The request did not succeed.",
    next: "Try again. If it keeps happening, contact your admin with the Details.",
    technical: messageOf(e),
  }),
};

type Say = (e: unknown) => HumanError;

/**
 * Messages for errors of src/sync and src/host, in the order they are tried: a string row matches the
 * error's name exactly, a pattern row matches "name kind code". The first row that matches speaks.
 */
const NAMED_MESSAGES: [string | RegExp, Say][] = [
  // src/sync's access outcomes (engine.ts, access.ts): their message already says what to do.
  ["ViewOnly", (e) => ({ title: "View only", detail: messageOf(e), next: "Ask the report's owner or an admin if it needs refreshing." })],
  ["NoAccess", (e) => ({ title: "No access", detail: messageOf(e), next: "Ask the report's owner or an admin for access." })],
  // issue 36 (6): the platform's limits per workbook (src/sync/limits.ts); the message names the limit.
  [
    "PlacementLimitReached",
    (e) => ({
      title: "Not placed: this workbook is at the platform's limit",
      detail: messageOf(e),
      next: "Disconnect placements you no longer need on the Workbook tab, then place it again.",
    }),
  ],
  // issue 36 (4): a report that would pass the sheet's last row or column; the message says by how much.
  [
    "DoesNotFit",
    (e) => ({
      title: "The report does not fit there",
      detail: messageOf(e),
      next: "Select a cell higher up or further left, then place it again.",
    }),
  ],
  // A placement cancelled part way (home/live.ts): what stays, and how to finish it or take it away.
  [
    "PlaceInterrupted",
    (e) => ({
      title: "Placing the report was cancelled part way",
      detail: messageOf(e),
      next: "On the Workbook tab it shows as “Interrupted — finish refresh”: press its Refresh to finish placing it, or Disconnect it and delete those rows if you do not want it.",
    }),
  ],
  // The pane's words for a placement disconnected while something of it was under way (home/live.ts).
  [
    "PlacementGone",
    (e) => ({
      title: "It is no longer in this workbook",
      detail: messageOf(e),
      next: "Nothing more was done with it. Place the report again if you still need it.",
    }),
  ],
  [
    /Overwrite|NotEmpty|WouldOverwrite/i,
    (e) => ({ title: "The target cells are not empty", detail: messageOf(e), next: "Choose another cell, or confirm to overwrite them." }),
  ],
  [
    /CannotGrow|NoRoom/i,
    (e) => ({
      title: "The report no longer fits",
      detail: messageOf(e),
      next: "Make room below or to the right of the placement (Cellbound never pushes other content aside), then refresh again.",
    }),
  ],
  [
    /TargetObstacle/,
    (e) => ({
      title: "Cellbound cannot write there",
      detail: messageOf(e),
      next: "Remove what is in the way (it is named above) or choose other cells, then try again.",
    }),
  ],
  ["DataChanged", dataChanged],
  // issue 32: a filter's input cell cannot be used; the engine's words name the cell and say what to type.
  [
    "InvalidInput",
    (e) => ({
      title: "An input cell cannot be used",
      detail: messageOf(e),
      next: "Fix that cell, then refresh again. Nothing was written.",
    }),
  ],
  // issue 32: a binding that cannot be made (a SQL report, a reference that is not cells, a circle).
  [
    "CannotBind",
    (e) => ({
      title: "The filter cannot take its values from there",
      detail: messageOf(e),
      next: "Select other cells and bind again; the placement keeps its inputs as they were.",
    }),
  ],
  [
    /InvalidSelection/,
    (e) => ({ title: "Select one cell", detail: messageOf(e), next: "Click the one cell where the report should start, then try again." }),
  ],
  [
    /PictureTooLarge/,
    (e) => ({
      title: "The picture is too large for Excel on the web",
      detail: messageOf(e),
      next: "Make the dashboard smaller on the platform, or insert the picture from Excel desktop.",
    }),
  ],
  [
    /InvalidOperationInCellEditMode/,
    () => ({
      title: "Waiting for you to finish editing the cell",
      detail: "Excel does not let add-ins change the workbook while a cell is being edited, so nothing was changed.",
      next: "Press Enter or Esc to finish editing the cell, then try again.",
    }),
  ],
  [
    /PayloadSize|RequestPayloadSizeLimitExceeded/i,
    (e) => ({
      title: "Excel refused a write that was too large",
      detail: messageOf(e),
      next: "Try again; if it keeps failing, place a smaller report.",
    }),
  ],
];

/** issue 22 (5): a co-author's Cellbound or another pane kept saving the placements while this one tried (src/sync/session.ts). */
function dataChanged(e: unknown): HumanError {
  const written = (e as { cellsWritten?: unknown }).cellsWritten === true;
  return {
    title: "Someone else is changing Cellbound's placements",
    detail: written
      ? `${messageOf(e)} The cells were written, but Cellbound's record of them could not be merged with the other person's.`
      : `${messageOf(e)} Nothing of this step was written.`,
    next: written
      ? "Wait a moment, then open the Workbook tab: a refresh finishes the record (it reads “Interrupted — finish refresh” until then)."
      : "Wait a moment (a co-author may be placing or refreshing reports), then try again.",
  };
}

/**
 * A part of the pane loaded on demand (a pane's chunk, the live backend at the first sign-in) that did
 * not arrive: webpack's ChunkLoadError, or the browser's own words for a module import that failed.
 */
export function isChunkLoadError(e: unknown): boolean {
  return (
    field(e, "name") === "ChunkLoadError" ||
    /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed/.test(
      messageOf(e),
    )
  );
}

/** A part of the pane loaded on demand that did not arrive (isChunkLoadError). */
const CHUNK_NOT_LOADED = (e: unknown): HumanError => ({
  title: "Part of Cellbound could not be loaded",
  detail: "Cellbound downloads this part when it is first needed, and the download failed: the connection may be down.",
  next: "Check the connection and try again.",
  technical: messageOf(e),
});

export function describeError(e: unknown): HumanError {
  const name = String(field(e, "name") ?? "");
  const kind = String(field(e, "kind") ?? "");
  const code = String(field(e, "code") ?? "");
  const tag = `${name} ${kind} ${code}`;

  // Retries ran out: say what kept failing (the last cause), not that retrying happened.
  const cause = typeof e === "object" && e !== null ? (e as { cause?: unknown }).cause : undefined;
  if (kind === "retry-exhausted" && typeof cause === "object" && cause !== null && cause !== e) {
    const inner = describeError(cause);
    return { ...inner, detail: `${inner.detail} Cellbound retried several times.` };
  }
  const byKind = KIND_MESSAGES[kind];
  if (byKind) return typeof byKind === "function" ? byKind(e) : byKind;
  // A DOM TimeoutError (AbortSignal.timeout) reads like ours.
  if (name === "TimeoutError") return (KIND_MESSAGES.timeout as (e: unknown) => HumanError)(e);
  if (name === "AbortError" || /Abort|Cancel/.test(kind)) {
    return { title: "Stopped", detail: "The operation was stopped before it finished.", next: "Run it again when you are ready." };
  }
  if (isChunkLoadError(e)) return CHUNK_NOT_LOADED(e);
  const named = NAMED_MESSAGES.find(([match]) => (typeof match === "string" ? match === name : match.test(tag)));
  if (named) return named[1](e);
  return { title: "Something went wrong", detail: messageOf(e), next: "Try again. If it keeps happening, reload the pane." };
}
