// The comments pane in Chromium over a scripted CommentsService: the explanation without a session URL,
// the dashboard linked to the selection or chosen by id, filters, infinite scroll, the thread view,
// compose with counter and @mention autocomplete, edit/delete own, resolve for the starter only (and a
// 403 still explained), bodies rendered as text, timestamps in the user's time zone.
import { render } from "preact";
import { CommentsPane } from "../../src/taskpane/comments/CommentsView";
import { MENTION_DEBOUNCE_MS } from "../../src/taskpane/comments/Compose";
import type { CommentView, CommentsService, ThreadFilter, ThreadView } from "../../src/taskpane/comments/service";
import { installTheme, luminance } from "../../src/taskpane/theme/theme";

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cp = (s: string) => [...s].length;

/** An in-memory conversation with the platform's rules that matter to the view. */
function scripted(o: { sessionUrl?: string | null; linked?: number; threads?: number } = {}) {
  const calls: string[] = [];
  let url = o.sessionUrl === undefined ? "https://broker.example/session" : o.sessionUrl;
  let id = 100;
  const at = (n: number) => new Date(Date.UTC(2026, 10, 20, 9, n)).toISOString();
  const mk = (body: string, own: boolean, author = own ? "You" : "ben"): CommentView => ({
    id: ++id,
    userId: own ? 1 : 2,
    author,
    body,
    createdAt: at(id % 60),
    editedAt: null,
    isOwn: own,
  });
  const threads: ThreadView[] = [];
  for (let i = 0; i < (o.threads ?? 3); i++)
    threads.push({ root: mk(`Thread ${i}`, i % 2 === 0), replies: [], resolvedAt: null, resolvedBy: null });
  threads.reverse();
  const users = [
    { id: 1, username: "ana", email: "ana@acme.test", firstName: "Ana" },
    { id: 2, username: "ben", email: "ben@acme.test", firstName: null },
    { id: 3, username: "alice", email: null, firstName: "Alice" },
  ];
  let forbidResolve = false;
  const visible = (f: ThreadFilter) => threads.filter((t) => f === "all" || (f === "resolved") === (t.resolvedAt !== null));
  const service: CommentsService = {
    sessionUrl: () => url,
    configure: (u) => {
      calls.push(`configure ${u}`);
      url = u;
    },
    bodyMax: 10_000,
    measure: cp,
    linkedDashboards: async () => {
      calls.push("linked");
      const n = o.linked ?? 1;
      return {
        placement: { reportName: "Company revenue", range: "Revenue!B2:D6" },
        dashboards: [
          { publicId: "SalesDash001", title: "Sales overview" },
          { publicId: "AcmeDash0002", title: "Acme margins" },
        ].slice(0, n),
      };
    },
    dashboard: async (publicId) => {
      calls.push(`dashboard ${publicId}`);
      if (publicId !== "SalesDash001") throw Object.assign(new Error("404"), { kind: "not-found", status: 404 });
      return { publicId, title: "Sales overview" };
    },
    threads: async (_d, filter, after) => {
      calls.push(`threads ${filter} ${after ?? "-"}`);
      const all = visible(filter);
      const start = after ? Number(after) : 0;
      const page = all.slice(start, start + 20);
      return { threads: page.map((t) => structuredClone(t)), next: start + 20 < all.length ? String(start + 20) : null };
    },
    post: async (_d, body, parentId) => {
      calls.push(`post ${parentId ?? "-"} ${body.slice(0, 30)}`);
      const c = mk(body, true);
      if (parentId === null) threads.unshift({ root: c, replies: [], resolvedAt: null, resolvedBy: null });
      else threads.find((t) => t.root.id === parentId)!.replies.push(c);
      return c;
    },
    edit: async (_d, cid, body) => {
      calls.push(`edit ${cid}`);
      return { ...mk(body, true), id: cid, editedAt: new Date().toISOString() };
    },
    remove: async (_d, cid) => void calls.push(`remove ${cid}`),
    resolve: async (_d, rootId, resolved) => {
      calls.push(`resolve ${rootId} ${resolved}`);
      if (forbidResolve) throw Object.assign(new Error("403"), { kind: "forbidden", status: 403 });
      const t = threads.find((x) => x.root.id === rootId)!;
      t.resolvedAt = resolved ? new Date().toISOString() : null;
      t.resolvedBy = resolved ? "You" : null;
      return structuredClone(t);
    },
    mentionable: async (_d, search) => {
      calls.push(`mentionable ${search}`);
      return users.filter((u) => u.username.includes(search.toLowerCase()));
    },
    close: () => undefined,
  };
  return { service, calls, threads, forbid: () => (forbidResolve = true) };
}

function mount(service: CommentsService, office?: unknown): HTMLElement {
  installTheme(document, office);
  const root = document.createElement("div");
  root.style.width = "320px";
  document.body.append(root);
  render(<CommentsPane service={service} />, root);
  return root;
}

const buttons = (root: Element, name: string) =>
  [...root.querySelectorAll("button")].filter(
    (b) => (b.textContent ?? "").trim() === name || (b.textContent ?? "").trim().startsWith(name + " "),
  );
function button(root: Element, name: string): HTMLButtonElement {
  const b = buttons(root, name)[0];
  if (!b) throw new Error(`no button named ${name}`);
  return b;
}
function type(el: HTMLInputElement | HTMLTextAreaElement, value: string) {
  el.value = value;
  if (el instanceof HTMLTextAreaElement) el.setSelectionRange(value.length, value.length);
  el.dispatchEvent(new Event("input", { bubbles: true }));
}
const threadItems = (root: Element) => [...root.querySelectorAll('ul[aria-label="Threads"] > li')];

describe("comments pane", () => {
  afterEach(() => {
    render(null, document.body);
    document.body.innerHTML = "";
  });

  it("without a session URL, explains what the organisation must provide, and takes one", async () => {
    const s = scripted({ sessionUrl: null });
    const root = mount(s.service);
    expect(root.textContent).toContain("Comments need a session URL from your organisation");
    expect(root.textContent).toContain("admin key that stays on that server");
    const input = root.querySelector<HTMLInputElement>("#cb-session-url")!;
    type(input, "not a url");
    button(root, "Save").click();
    await until(() => root.querySelector('[role="alert"]') !== null);
    expect(s.calls).not.toContain("linked");
    type(input, "https://broker.example/embed-session");
    button(root, "Save").click();
    await until(() => s.calls.includes("linked"));
    expect(s.calls).toContain("configure https://broker.example/embed-session");
  });

  it("opens the one dashboard linked to the selected placement and lists its open threads", async () => {
    const s = scripted();
    const root = mount(s.service);
    await until(() => threadItems(root).length === 3);
    expect(root.textContent).toContain("Dashboards of Company revenue (Revenue!B2:D6)");
    expect(root.querySelector("h2")!.textContent).toBe("Sales overview");
    expect(s.calls).toContain("threads open -");
  });

  it("with several linked dashboards lets the user choose; a publicId opens one; an unknown id is explained", async () => {
    const s = scripted({ linked: 2 });
    const root = mount(s.service);
    await until(() => buttons(root, "Acme margins").length === 1);
    expect(root.querySelector("h2")).toBeNull();
    button(root, "Acme margins").click();
    await until(() => root.querySelector("h2")?.textContent === "Acme margins");
    type(root.querySelector<HTMLInputElement>("#cb-dashboard-id")!, "Nope00000000");
    button(root, "Open").click();
    await until(() => (root.textContent ?? "").includes("No published dashboard has the id Nope00000000"));
  });

  it("filters: include resolved / resolved only ask the service, and resolving hides a thread from the open list", async () => {
    const s = scripted();
    const root = mount(s.service);
    await until(() => threadItems(root).length === 3);
    const own = threadItems(root).find((li) => buttons(li, "Resolve thread").length)!;
    button(own, "Resolve thread").click();
    await until(() => threadItems(root).length === 2);
    expect(root.textContent).toContain("Thread resolved");
    root.querySelectorAll<HTMLInputElement>('input[name="cb-thread-filter"]')[2]!.click();
    await until(() => s.calls.includes("threads resolved -") && threadItems(root).length === 1);
    expect(root.textContent).toContain("Resolved");
    expect(root.textContent).not.toContain("Resolved threads are hidden"); // withdrawn: no longer true (issue 25 §4)
    root.querySelectorAll<HTMLInputElement>('input[name="cb-thread-filter"]')[1]!.click();
    await until(() => s.calls.includes("threads all -") && threadItems(root).length === 3);
  });

  it("shows Resolve only on the user's own threads, Edit/Delete only on own comments, and explains a 403", async () => {
    const s = scripted();
    const root = mount(s.service);
    await until(() => threadItems(root).length === 3);
    for (const li of threadItems(root)) {
      const own = li.querySelector(".cb-comment-head strong")!.textContent === "You";
      expect(buttons(li, "Resolve thread").length).toBe(own ? 1 : 0);
      expect(buttons(li, "Edit").length).toBe(own ? 1 : 0);
      expect(buttons(li, "Delete").length).toBe(own ? 1 : 0);
    }
    s.forbid();
    button(
      threadItems(root).find((li) => buttons(li, "Resolve thread").length)!,
      "Resolve thread",
    ).click();
    await until(() => (root.querySelector('[role="alert"]')?.textContent ?? "").includes("You cannot resolve the thread"));
    expect(threadItems(root)).toHaveLength(3);
  });

  it("renders bodies as text, never HTML, and times in the user's time zone", async () => {
    const s = scripted({ threads: 0 });
    s.threads.push({
      root: {
        id: 7,
        userId: 2,
        author: "ben",
        body: '<img src=x onerror="alert(1)"><b>bold</b> @ana',
        createdAt: "2026-11-20T09:30:00.000Z",
        editedAt: null,
        isOwn: false,
      },
      replies: [],
      resolvedAt: null,
      resolvedBy: null,
    });
    const root = mount(s.service);
    await until(() => threadItems(root).length === 1);
    const body = root.querySelector(".cb-comment-body")!;
    expect(body.querySelector("img, b")).toBeNull();
    expect(body.textContent).toBe('<img src=x onerror="alert(1)"><b>bold</b> @ana');
    expect(body.querySelector(".cb-mention")!.textContent).toBe("@ana");
    const time = root.querySelector("time")!;
    expect(time.getAttribute("datetime")).toBe("2026-11-20T09:30:00.000Z");
    expect(time.textContent).toBe(
      new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date("2026-11-20T09:30:00.000Z")),
    );
    expect(time.title).toBe(
      new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" }).format(new Date("2026-11-20T09:30:00.000Z")),
    );
  });

  it("counts characters as code points and refuses to send over 10,000", async () => {
    const s = scripted({ threads: 0 });
    const root = mount(s.service);
    await until(() => root.querySelector("h2") !== null);
    const box = root.querySelector<HTMLTextAreaElement>("textarea")!;
    const post = button(root, "Post");
    expect(post.disabled).toBe(true); // empty
    const counter = () => root.querySelector(".cb-counter")!.textContent;
    type(box, "😀".repeat(10_000));
    await until(() => counter() === "10,000 / 10,000");
    expect(post.disabled).toBe(false);
    type(box, "😀".repeat(10_001));
    await until(() => (counter() ?? "").includes("1 characters over the limit"));
    expect(post.disabled).toBe(true);
    expect(box.getAttribute("aria-invalid")).toBe("true");
    type(box, "  Revenue dipped in May  ");
    await until(() => !post.disabled);
    post.click();
    await until(() => threadItems(root).length === 1);
    expect(s.calls).toContain("post -   Revenue dipped in May  "); // sent verbatim, not trimmed
    expect(box.value).toBe("");
  });

  it("@mention autocomplete: debounced search, arrows and Enter insert the username", async () => {
    const s = scripted({ threads: 0 });
    const root = mount(s.service);
    await until(() => root.querySelector("h2") !== null);
    const box = root.querySelector<HTMLTextAreaElement>("textarea")!;
    box.focus();
    type(box, "Ask @a");
    type(box, "Ask @al");
    await new Promise((r) => setTimeout(r, MENTION_DEBOUNCE_MS / 2));
    expect(s.calls.filter((c) => c.startsWith("mentionable"))).toEqual([]); // still typing
    await until(() => root.querySelector('[role="listbox"]') !== null);
    expect(s.calls.filter((c) => c.startsWith("mentionable"))).toEqual(["mentionable al"]);
    expect(box.getAttribute("aria-expanded")).toBe("true");
    type(box, "Ask @a");
    await until(() => root.querySelectorAll('[role="option"]').length === 2);
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    await until(() => root.querySelectorAll('[role="option"]')[1]!.getAttribute("aria-selected") === "true");
    expect(box.getAttribute("aria-activedescendant")).toBe(root.querySelectorAll('[role="option"]')[1]!.id);
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await until(() => box.value === "Ask @alice ");
    expect(root.querySelector('[role="listbox"]')).toBeNull();
  });

  it("opens a thread, replies, edits and deletes own comments", async () => {
    const s = scripted();
    const root = mount(s.service);
    await until(() => threadItems(root).length === 3);
    const own = threadItems(root).find((li) => buttons(li, "Resolve thread").length)!;
    button(own, "Open thread").click();
    await until(() => root.querySelector('ul[aria-label="Thread"]') !== null);
    // Focus is not lost with the list: it moves to Back (after the thread view has rendered).
    await until(() => document.activeElement?.textContent === "← All threads");
    const replyBox = root.querySelector<HTMLTextAreaElement>('ul[aria-label="Thread"] textarea')!;
    type(replyBox, "A reply");
    await until(() => !button(root, "Reply").disabled);
    button(root, "Reply").click();
    await until(() => root.querySelectorAll('[aria-label="Replies"] article').length === 1);
    const reply = root.querySelector('[aria-label="Replies"] article')!;
    button(reply, "Edit").click();
    await until(() => reply.querySelector("textarea") !== null);
    const editBox = reply.querySelector<HTMLTextAreaElement>("textarea")!;
    expect(editBox.value).toBe("A reply");
    type(editBox, "A better reply");
    await new Promise((r) => setTimeout(r, 20));
    button(reply, "Save").click();
    await until(() => (root.querySelector('[aria-label="Replies"] article')?.textContent ?? "").includes("(edited)"));
    expect(root.querySelector('[aria-label="Replies"] .cb-comment-body')!.textContent).toBe("A better reply");
    button(root.querySelector('[aria-label="Replies"] article')!, "Delete").click();
    await until(() => buttons(root, "Yes, delete").length === 1);
    button(root, "Yes, delete").click();
    await until(() => root.querySelector('[aria-label="Replies"]') === null);
    button(root, "← All threads").click();
    await until(() => threadItems(root).length === 3);
  });

  it("loads the next page by cursor (infinite scroll, or Load more)", async () => {
    const s = scripted({ threads: 45 });
    const root = mount(s.service);
    await until(() => threadItems(root).length >= 20);
    const more = () => buttons(root, "Load more threads")[0];
    await until(() => threadItems(root).length === 45 || more() !== undefined);
    while (threadItems(root).length < 45) {
      more()?.click();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(new Set(threadItems(root).map((li) => li.querySelector(".cb-comment-body")!.textContent)).size).toBe(45);
    expect(s.calls.filter((c) => c.startsWith("threads open"))).toEqual(["threads open -", "threads open 20", "threads open 40"]);
  });

  it("follows the dark theme (tokens only) and posts with Ctrl+Enter from the keyboard", async () => {
    const s = scripted({ threads: 1 });
    const root = mount(s.service, { context: { officeTheme: { bodyBackgroundColor: "#262626" } } });
    expect(document.documentElement.dataset.theme).toBe("dark");
    await until(() => threadItems(root).length === 1);
    const rgb = (c: string) =>
      "#" +
      (c.match(/\d+/g) ?? [])
        .slice(0, 3)
        .map((n) => Number(n).toString(16).padStart(2, "0"))
        .join("");
    const card = getComputedStyle(threadItems(root)[0]!);
    expect(luminance(rgb(card.backgroundColor))!).toBeLessThan(0.1);
    expect(luminance(rgb(getComputedStyle(root.querySelector(".cb-comment-body")!).color))!).toBeGreaterThan(0.5);
    const box = root.querySelector<HTMLTextAreaElement>("textarea")!;
    box.focus();
    type(box, "From the keyboard");
    await new Promise((r) => setTimeout(r, 20));
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }));
    await until(() => threadItems(root).length === 2);
    expect(s.calls).toContain("post - From the keyboard");
    delete document.documentElement.dataset.theme;
  });
});
