// What `cellbound` says: sheet names Excel refuses, usage, reports you cannot open, targets in the way
// (issue 36 item 9, issue 35 §4) — against the platform stand-in, files in a temporary folder.
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import path from "node:path";
import { messageOf, networkProblem } from "../../src/cli/net.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { platformAddress } from "../../src/sync/context.ts";
import { fingerprintGrid } from "../../src/sync/fingerprint.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byCustomer, byStatus, startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
const tmp = tempDir("cb-cli-words-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

const untouched = (file: string) => {
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  return () => {
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  };
};

describe("issue 36 item 9: sheet names Excel refuses are refused before anything is written", () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      "'A name that is longer than thirty-one characters'",
      "A name that is longer than thirty-one characters",
      /at most 31 characters \(this one has 48\)/,
    ],
    ["'Sales/Costs'", "Sales/Costs", /cannot contain any of : \\ \/ \? \* \[ \] \(this one holds \/\)/],
    ["'Q[1]'", "Q[1]", /\(this one holds \[ \]\)/],
    ["'What?'", "What?", /\(this one holds \?\)/],
    ["'All*'", "All*", /\(this one holds \*\)/],
    ["'a:b'", "a:b", /\(this one holds :\)/],
    ["'back\\slash'", "back\\slash", /\(this one holds \\\)/],
    ["'''quoted'", "'quoted", /cannot begin or end with an apostrophe/],
    ["'ends'''", "ends'", /cannot begin or end with an apostrophe/],
    ["History", "History", /Excel reserves the name History/],
    ["''", "", /a sheet name cannot be blank/],
  ];

  it("issue 36 item 9: a new workbook is not created, and nothing reaches the platform (exit 2, the name and the rule)", async () => {
    const report = await env.createReport(byStatus(2));
    const placementsBefore = env.platform.state.placements().length;
    for (const [i, [quoted, name, rule]] of cases.entries()) {
      const file = tmp.file(`new-${i}.xlsx`);
      const out = await env.cli(["place", file, "--report", String(report.id), "--at", `${quoted}!A1`, "--json"]);
      expect(out.code, quoted).toBe(2);
      const error = out.json().files[0]!.error!;
      expect(error, quoted).toMatch(rule);
      if (name) expect(error, quoted).toContain(`“${name}”`);
      expect(error, quoted).toMatch(/Nothing was written\.$/);
      expect(existsSync(file), quoted).toBe(false);
    }
    expect(env.platform.state.placements()).toHaveLength(placementsBefore);
  });

  it("issue 36 item 9: an existing workbook gets no such sheet and keeps its bytes; a sheet it already has is used as it is", async () => {
    const report = await env.createReport(byStatus(2));
    const file = tmp.file("existing.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    const same = untouched(file);
    const text = await env.cli(["place", file, "--report", String(report.id), "--at", "'Sales/Costs'!A1"]);
    expect(text.code).toBe(2);
    expect(text.stdout + text.stderr).toMatch(/Excel does not allow the sheet name “Sales\/Costs”/);
    same();
    expect(XlsxPort.open(file).wb.sheets.map((s) => s.name)).toEqual(["Sheet1"]);
    // A name Excel accepts, at its limit of 31 characters and with an apostrophe inside, is added.
    const ok = "It's thirty-one characters long";
    expect(ok).toHaveLength(31);
    const added = await env.cli(["place", file, "--report", String(report.id), "--at", `'${ok.replace(/'/g, "''")}'!A1`, "--json"]);
    expect(added.code).toBe(0);
    expect(XlsxPort.open(file).wb.sheets.map((s) => s.name)).toEqual(["Sheet1", ok]);
  });
});

describe("issue 35 §4: what the command line says", () => {
  it("issue 35 §4: no arguments is a usage error (exit 2, the usage on stderr); help is not", async () => {
    const none = await env.cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^cellbound: no command given/);
    expect(none.stderr).toContain("Usage:");
    expect(none.stdout).toBe("");
    const help = await env.cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage:");
  });

  it("issue 35 §4: a placement you cannot open is named as far as the file knows it, else as a report you cannot open with its owner", async () => {
    const theirs = await env.createReport(byStatus(2), "outsider");
    const other = await env.createReport(byStatus(3), "outsider");
    const mine = await env.createReport(byStatus(2));
    const file = tmp.file("denied.xlsx");
    expect((await env.cli(["place", file, "--report", String(theirs.id), "--at", "Sheet1!A1"], "outsider")).code).toBe(0);
    expect((await env.cli(["place", file, "--report", String(mine.id), "--at", "Sheet1!E1"])).code).toBe(0);
    // A placement the platform lists for this workbook that the file does not hold (placed into a copy).
    const wbId = XlsxPort.open(file).wb.workbookId!;
    const grid = [
      ["Status", "Count"],
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ];
    await env.client("outsider").connectWorkbook(env.deploymentId, other.id, {
      externalWorkbookId: wbId,
      sheetId: "xlsx-7",
      sheetName: "Elsewhere",
      workbookName: "denied.xlsx",
      host: "SHEETS_DESKTOP",
      resultChecksum: await fingerprintGrid(grid),
      ...platformAddress("Elsewhere", { sheetId: "xlsx-7", row: 0, col: 0, rows: 4, cols: 2 }),
    });

    const text = await env.cli(["refresh", file]);
    expect(text.code).toBe(1);
    expect(text.stdout).not.toMatch(/null|#\?/);
    expect(text.stdout).toMatch(
      new RegExp(`Sheet1!A1:B\\d+ {2}${theirs.name} \\(#${theirs.id}\\): not-refreshed — No access: placed by Oscar Outsider`),
    );
    expect(text.stdout).toMatch(/Elsewhere!A1:B4 {2}a report you cannot open \(owner Oscar Outsider\): not-refreshed/);
    const json = await env.cli(["refresh", file, "--json"]);
    const denied = json.json().files[0]!.placements.filter((p) => p.outcome === "not-refreshed");
    expect(denied.map((p) => [p.range, p.reportId, p.reportName]).sort()).toEqual(
      [
        [expect.stringMatching(/^Sheet1!A1:B\d+$/), theirs.id, theirs.name],
        ["Elsewhere!A1:B4", null, null],
      ].sort(),
    );

    const status = await env.cli(["status", file]);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toMatch(/null|#\?/);
    expect(status.stdout).toMatch(
      new RegExp(`Sheet1!A1:B\\d+ {2}${theirs.name} \\(#${theirs.id}\\), deployment .*: no access \\(owner: Oscar Outsider\\)`),
    );
    expect(status.stdout).toMatch(/Elsewhere!A1:B4 {2}a report you cannot open \(owner Oscar Outsider\), deployment .*: no access/);
    const statusJson = JSON.parse((await env.cli(["status", file, "--json"])).stdout) as {
      files: Array<{ placements: Array<{ reportId: number | null; reportName: string | null; status: string }> }>;
    };
    expect(statusJson.files[0]!.placements.find((p) => p.reportId === theirs.id)).toMatchObject({
      reportName: theirs.name,
      status: "no access",
    });
  });

  it("issue 35 §4: occupied target cells are named once with their sheet (not plain!plain!A1:D37)", async () => {
    const report = await env.createReport(byStatus(3));
    const file = tmp.file("occupied.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "plain!A1"])).code).toBe(0);
    const first = XlsxPort.open(file);
    first.wb.userEdit(first.wb.sheets[0]!.id, 2, 5, "my note"); // F3
    first.save();
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", "plain!E2"]);
    expect(out.code).toBe(3);
    expect(out.stdout).not.toMatch(/plain!plain!/);
    expect(out.stdout).toMatch(/^ {2}plain!E2:F\d+ {2}Report \d+: edited F3 — The target holds 1 value/m);
    const json = await env.cli(["place", file, "--report", String(report.id), "--at", "plain!E2", "--json"]);
    expect(json.json().files[0]!.placements[0]!.range).toMatch(/^plain!E2:F\d+$/);
  });

  it("issue 30 §1: a row inserted inside a placement is named as the pane names it, in refresh and in status", async () => {
    const report = await env.createReport(byCustomer(19));
    const file = tmp.file("inserted.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "plain!B2"])).code).toBe(0);
    const book = XlsxPort.open(file);
    book.wb.insertRows(book.wb.sheets[0]!.id, 7, 1); // Insert above row 8
    book.save();
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.json().files[0]!.placements[0]!.reason).toBe(
      "1 row inserted by hand at row 8: left as it is; --overwrite-edits replaces the edits.",
    );
    const status = await env.cli(["status", file]);
    expect(status.stdout).toContain("1 row inserted by hand at row 8");
    expect(status.stdout).not.toMatch(/Rows? [\d–]+ edited by hand/);
  });

  it("issue 35 §4: a target over other placements names the report, the range and each placement in the way", async () => {
    const a = await env.createReport(byStatus(3));
    const b = await env.createReport(byStatus(3));
    const wide = await env.createReport(byCustomer(3)); // three columns
    const file = tmp.file("collides.xlsx");
    expect((await env.cli(["place", file, "--report", String(a.id), "--at", "'My sheet'!A1"])).code).toBe(0);
    expect((await env.cli(["place", file, "--report", String(b.id), "--at", "'My sheet'!D1"])).code).toBe(0);
    const same = untouched(file);
    const out = await env.cli(["place", file, "--report", String(wide.id), "--at", "'My sheet'!B1"]);
    expect(out.code).toBe(3);
    expect(out.stdout).not.toContain("(no range)");
    const line =
      /^ {2}'My sheet'!B1:D4 {2}(.+): edited — Placing it at 'My sheet'!B1:D4 would overlap (.+) and (.+); nothing was written\. Select an empty cell away from other reports and place it again\.$/m.exec(
        out.stdout,
      );
    expect(line, out.stdout).not.toBeNull();
    expect(line![1]).toBe(wide.name);
    expect([line![2], line![3]].sort()).toEqual([`“${a.name}” at 'My sheet'!A1:B4`, `“${b.name}” at 'My sheet'!D1:E4`].sort());
    const json = (await env.cli(["place", file, "--report", String(wide.id), "--at", "'My sheet'!B1", "--json"])).json();
    expect(json.files[0]!.placements[0]).toMatchObject({
      range: "'My sheet'!B1:D4",
      reportId: wide.id,
      reportName: wide.name,
      outcome: "edited",
    });
    same();
  });
});

describe("issue 35 §5: messages", () => {
  const fast = { retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } };

  it("issue 35 §5: --json prints one JSON object for usage and sign-in errors too", async () => {
    const usage = await env.cli(["refresh", "--json"]);
    expect(usage.code).toBe(2);
    expect(usage.json()).toEqual({ error: "refresh needs at least one workbook or folder", files: [] });
    expect(usage.stderr).toContain("Usage:");
    const unknown = await env.cli(["frobnicate", "--json"]);
    expect(unknown.json()).toEqual({ error: 'unknown command "frobnicate"', files: [] });
    const signIn = await env.cli(["status", tmp.file("x.xlsx"), "--json"], "analyst", {
      env: { CELLBOUND_API_KEY: "not-a-key" },
      api: fast,
    });
    expect(signIn.code).toBe(2);
    expect(signIn.stdout.trim().split("\n")).toHaveLength(1);
    expect(signIn.json().error).toMatch(/^cannot sign in to http:\/\/127\.0\.0\.1:\d+: /);
    expect(signIn.stdout).not.toContain("not-a-key");
  });

  it("issue 35 §5: in text, a file's error goes to stderr with its whole path (two Book.xlsx in two folders told apart)", async () => {
    const report = await env.createReport(byStatus(2));
    const good = tmp.file("north/Book.xlsx");
    const bad = tmp.file("south/Book.xlsx");
    mkdirSync(path.dirname(good), { recursive: true });
    mkdirSync(path.dirname(bad), { recursive: true });
    expect((await env.cli(["place", good, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    writeFileSync(bad, "just text");
    const out = await env.cli(["refresh", good, bad]);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`cellbound: ${path.resolve(bad)}: it is not an .xlsx/.xlsm workbook (not a zip package)\n`);
    expect(out.stdout).toMatch(
      new RegExp(`^${good.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n {2}Sheet1!A1:B3 {2}Report \\d+: unchanged\n$`),
    );
  });

  it("issue 35 §5: refused connections, DNS and TLS each say which, not 'fetch failed'", async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const tls = env.platform.info.baseUrl.replace(/^http:/, "https:");
    const cases: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${closed}`, new RegExp(`connection refused: nothing is listening at 127\\.0\\.0\\.1:${closed}`)],
      ["http://no-such-host.invalid", /DNS: the name no-such-host\.invalid (was not found|could not be looked up)/],
      [tls, /TLS: the server does not speak TLS there \(an http:\/\/ address given as https:\/\/\?\)/],
    ];
    for (const [url, said] of cases) {
      const out = await env.cli(["status", tmp.file("x.xlsx")], "analyst", { env: { CELLBOUND_PLATFORM_URL: url }, api: fast });
      expect(out.code, url).toBe(1);
      expect(out.stderr, url).toMatch(said);
      expect(out.stderr, url).not.toMatch(/fetch failed/);
    }
  });

  it("issue 35 §5: certificate problems are named (expired, self-signed, another name), with the way to trust a company authority", () => {
    const failed = (code: string, message = "x") => new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
    expect(networkProblem(failed("CERT_HAS_EXPIRED"))).toBe("TLS: the server's certificate has expired");
    expect(networkProblem(failed("DEPTH_ZERO_SELF_SIGNED_CERT"))).toMatch(
      /^TLS: the server's certificate is self-signed.*NODE_EXTRA_CA_CERTS/,
    );
    expect(networkProblem(failed("UNABLE_TO_GET_ISSUER_CERT_LOCALLY"))).toMatch(
      /not signed by an authority this machine trusts.*NODE_EXTRA_CA_CERTS/,
    );
    expect(networkProblem(failed("ERR_TLS_CERT_ALTNAME_INVALID"))).toBe("TLS: the server's certificate is for another name");
    expect(networkProblem(failed("ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE", "sslv3 alert handshake failure"))).toBe(
      "TLS: the secure connection failed (sslv3 alert handshake failure)",
    );
    expect(messageOf(new Error("GET /api/v1/deployments: fetch failed", { cause: failed("ECONNRESET") }))).toBe(
      "GET /api/v1/deployments: the connection was reset by the server or a proxy",
    );
    expect(networkProblem(new Error("GET …: 500 Internal Server Error"))).toBeNull();
  });

  it("issue 35 §5: the same workbook named twice, or through a link, is worked on once", async () => {
    const report = await env.createReport(byStatus(2));
    const file = tmp.file("twice/Book.xlsx");
    mkdirSync(path.dirname(file), { recursive: true });
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    const link = tmp.file("twice/Same book.xlsx");
    symlinkSync(file, link);
    const out = await env.cli(["refresh", file, file, link, "--json"]);
    expect(out.code, out.stdout).toBe(0);
    expect(out.json().files.map((f) => f.file)).toEqual([file]);
    const status = await env.cli(["status", link, file, "--json"]);
    expect(status.code).toBe(0);
    expect(status.json().files.map((f) => f.file)).toEqual([link]);
  });
});

describe("issue 31 item 3: a viewer's key is told the rule before anything is tried", () => {
  it("issue 31 item 3: refresh gives every placement the pane's view-only words (its owner named), place the viewer's rule; nothing is written or recorded", async () => {
    const file = tmp.file("viewer.xlsx");
    // Three of the analyst's shared demo reports, placed by the analyst.
    for (const [id, at] of [
      [6, "Sheet1!A1"],
      [7, "Sheet1!H1"],
      [8, "Sheet1!N1"],
    ] as const)
      expect((await env.cli(["place", file, "--report", String(id), "--at", at])).code).toBe(0);
    const same = untouched(file);
    const recorded = JSON.stringify(env.platform.state.placements());
    const out = await env.cli(["refresh", file, "--json"], "viewer");
    const lines = out.json().files[0]!.placements;
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.outcome, line.reportName!).toBe("not-refreshed");
      expect(line.reason, line.reportName!).toMatch(
        /^You can view this report but not refresh it — ask Ana Analyst \(.+@.+\) or an admin\.$/,
      );
    }
    const text = await env.cli(["refresh", file], "viewer");
    expect(text.stdout + text.stderr).not.toMatch(/did not let you record|put back/);
    const place = await env.cli(["place", file, "--report", "6", "--at", "Sheet1!T1", "--json"], "viewer");
    expect(place.code).not.toBe(0);
    expect(JSON.stringify(place.json())).toContain(
      "You are a viewer in Sales Analytics: you can open its reports but not place, refresh or save them — ask an admin for the editor role.",
    );
    same();
    expect(JSON.stringify(env.platform.state.placements())).toBe(recorded);
  });
});

describe("issue 31 item 5: where an API key comes from, in the pane's words", () => {
  it("issue 31 item 5: without CELLBOUND_API_KEY the command line says whom to ask for a key, as the pane's Connect does", async () => {
    const out = await env.cli(["status", tmp.file("none.xlsx")], "analyst", { env: { CELLBOUND_API_KEY: "" } });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      "CELLBOUND_API_KEY is not set: export an API key or an OAuth access token (ask an admin of your platform for an API key: only admins can create them)",
    );
    expect(out.stderr).not.toMatch(/profile page/);
  });
});
