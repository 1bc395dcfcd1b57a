// Dashboard exports in the stand-in (seeds 01 §4, §8; issue 16): every rule, and real images.
import { inflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resvg } from "@resvg/resvg-js";
import { EmbedRig } from "./embed-support";
import { createPlatformClient } from "../../src/api/management-client";
import { ForbiddenError } from "../../src/api/errors";

let rig: EmbedRig;
beforeAll(async () => {
  rig = await EmbedRig.start();
}, 60_000);
afterAll(() => rig?.close());

const key = (persona: "admin" | "analyst" | "viewer" | "outsider") => `Bearer ${rig.p.info.apiKeys[persona]}`;
const submit = (body: unknown, persona: "admin" | "analyst" | "viewer" | "outsider" = "analyst") =>
  rig.call("POST", "/api/v1/dashboard-exports", { body, auth: key(persona) });

async function until(jobId: string, persona: "admin" | "analyst" = "analyst"): Promise<{ status: string; error?: string }> {
  for (let i = 0; i < 200; i++) {
    const r = await rig.call("GET", `/api/v1/dashboard-exports/${jobId}`, { auth: key(persona) });
    expect(r.status).toBe(200);
    const j = r.json as { status: string; error?: string };
    if (j.status === "done" || j.status === "failed") return j;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error("the export job never finished");
}

async function download(jobId: string, persona: "admin" | "analyst" = "analyst"): Promise<Response> {
  return fetch(`${rig.base}/api/v1/dashboard-exports/${jobId}/download`, { headers: { Authorization: key(persona) } });
}

describe("dashboard exports", () => {
  it("renders a PNG: 202 {jobId, status}, polls to done, downloads image/png of the charts", async () => {
    const r = await submit({ publicId: "SalesDash001", format: "png" });
    expect(r.status).toBe(202);
    const { jobId, status } = r.json as { jobId: string; status: string };
    expect(["queued", "running"]).toContain(status);
    expect(await until(jobId)).toEqual({ jobId, status: "done" });
    const res = await download(jobId);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // A real picture: decodable, a reasonable size, and not one flat colour.
    const img = new Resvg(
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image width="10" height="10" xlink:href="data:image/png;base64,${Buffer.from(bytes).toString("base64")}"/></svg>`,
    ).render();
    const colours = new Set<number>();
    for (let i = 0; i < img.pixels.length; i += 4) colours.add(img.pixels.readUInt32BE(i));
    expect(colours.size).toBeGreaterThan(3);
    const width = Buffer.from(bytes).readUInt32BE(16);
    const height = Buffer.from(bytes).readUInt32BE(20);
    expect(width).toBeGreaterThan(400);
    expect(height).toBeGreaterThan(400);
  });

  it("renders a PDF with the image embedded", async () => {
    const r = await submit({ publicId: "SalesDash001", format: "pdf" }, "admin");
    const { jobId } = r.json as { jobId: string };
    expect((await until(jobId, "admin")).status).toBe("done");
    const res = await download(jobId, "admin");
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const pdf = Buffer.from(await res.arrayBuffer());
    const text = pdf.toString("latin1");
    expect(text.startsWith("%PDF-1.4")).toBe(true);
    expect(text.trimEnd().endsWith("%%EOF")).toBe(true);
    // The xref offsets point at the objects.
    const startxref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(startxref, startxref + 4)).toBe("xref");
    const offsets = [...text.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    offsets.forEach((o, i) => expect(text.slice(o, o + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`));
    const m = /\/Width (\d+) \/Height (\d+) .*?\/Length (\d+) >>\nstream\n/s.exec(text)!;
    const at = m.index + m[0].length;
    const pixels = inflateSync(pdf.subarray(at, at + Number(m[3])));
    expect(pixels.length).toBe(Number(m[1]) * Number(m[2]) * 3);
  });

  it("400 for a bad format or an unknown field; 404 for an unknown publicId; checked in that order", async () => {
    expect((await submit({ publicId: "SalesDash001", format: "gif" })).status).toBe(400);
    expect((await submit({ publicId: "SalesDash001", format: "png", extra: 1 })).status).toBe(400);
    expect((await submit({ publicId: "NoSuchDash01", format: "gif" })).status).toBe(400);
    const r = await submit({ publicId: "NoSuchDash01", format: "png" });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ error: expect.stringContaining("NoSuchDash01") });
  });

  it("manage access: admin and the deployment's editor may; a viewer gets 403; an editor of another deployment too", async () => {
    expect((await submit({ publicId: "SalesDash001", format: "png" }, "viewer")).status).toBe(403);
    expect((await submit({ publicId: "FinDash00003", format: "png" }, "analyst")).status).toBe(403);
    expect((await submit({ publicId: "FinDash00003", format: "png" }, "outsider")).status).toBe(202);
    expect((await submit({ publicId: "FinDash00003", format: "png" }, "admin")).status).toBe(202);
    expect((await rig.call("POST", "/api/v1/dashboard-exports", { body: { publicId: "SalesDash001", format: "png" } })).status).toBe(401);
  });

  it("renderAs is admin-only and needs a subject that can read the dashboard", async () => {
    expect(
      (await submit({ publicId: "SalesDash001", format: "png", renderAs: { internalId: "vic.viewer@cellbound.test" } }, "analyst")).status,
    ).toBe(403);
    expect(
      (await submit({ publicId: "SalesDash001", format: "png", renderAs: { internalId: "vic.viewer@cellbound.test" } }, "admin")).status,
    ).toBe(202);
    expect(
      (await submit({ publicId: "SalesDash001", format: "png", renderAs: { internalId: "nobody@cellbound.test" } }, "admin")).status,
    ).toBe(400);
    expect(
      (
        await submit(
          { publicId: "AcmeDash0002", format: "png", renderAs: { externalId: "x", embedTenantName: "globex-wholesale" } },
          "admin",
        )
      ).status,
    ).toBe(403);
    expect(
      (await submit({ publicId: "AcmeDash0002", format: "png", renderAs: { externalId: "x", embedTenantName: "acme-retail" } }, "admin"))
        .status,
    ).toBe(202);
    expect((await submit({ publicId: "SalesDash001", format: "png", renderAs: "vic" }, "admin")).status).toBe(400);
  });

  it("a job is its submitter's only, and is dropped with its file 5 minutes after submission (stand-in clock)", async () => {
    const { jobId } = (await submit({ publicId: "SalesDash001", format: "png" })).json as { jobId: string };
    await until(jobId);
    expect((await rig.call("GET", `/api/v1/dashboard-exports/${jobId}`, { auth: key("admin") })).status).toBe(404);
    await rig.advance(4 * 60_000 + 50_000);
    expect((await download(jobId)).status).toBe(200);
    await rig.advance(15_000);
    expect((await rig.call("GET", `/api/v1/dashboard-exports/${jobId}`, { auth: key("analyst") })).status).toBe(404);
    expect((await download(jobId)).status).toBe(404);
    expect((await rig.call("GET", "/api/v1/dashboard-exports/nope", { auth: key("analyst") })).status).toBe(404);
  });

  it("download before done is 409", async () => {
    const { jobId } = (await submit({ publicId: "SalesDash001", format: "png" })).json as { jobId: string };
    const early = await download(jobId);
    expect(early.status).toBe(409);
    await until(jobId);
  });

  it("the API client submits, polls and downloads with typed answers and typed errors", async () => {
    const client = createPlatformClient({ baseUrl: rig.base, credential: rig.p.info.apiKeys.analyst });
    const job = await client.createDashboardExport({ publicId: "SalesDash001", format: "pdf" });
    expect(["queued", "running"]).toContain(job.status);
    let j = job;
    while (j.status === "queued" || j.status === "running") j = await client.getDashboardExport(job.jobId);
    expect(j.status).toBe("done");
    const file = await client.downloadDashboardExport(job.jobId);
    expect(file.contentType).toBe("application/pdf");
    expect(new TextDecoder().decode(file.bytes.slice(0, 5))).toBe("%PDF-");
    const viewer = createPlatformClient({ baseUrl: rig.base, credential: rig.p.info.apiKeys.viewer });
    await expect(viewer.createDashboardExport({ publicId: "SalesDash001", format: "png" })).rejects.toBeInstanceOf(ForbiddenError);
  });
});
