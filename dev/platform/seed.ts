// Seeded management data (written once per data dir): reports in both deployments, legacy
// reports with a unique and a shared placeholder id, an external workbook whose placements
// mix GRANTED and DENIED for the analyst, and a workbook over the 2000-placement limit.
// The demo persona (the analyst) also finds a small catalogue a user recognises — Revenue by month,
// Top customers, Orders by status and region (a pivot) — in meaningful folders; the edge-case reports
// the tests need live in a folder of their own, out of the way.
import { placeholderPublicId, PLACEHOLDER_BUCKET } from "../../src/api/public-id";
import type { ResultChecksum } from "../../src/api/schemas/management";
import { queryChecksum } from "./service";
import type { Store, StoredPlacement, StoredReport } from "./store";

export const MIXED_WORKBOOK = "wb-mixed-0001";
export const OVERSIZED_WORKBOOK = "wb-oversized-0001";
/** Legacy report ids: 1600 is alone in its placeholder bucket; 1616 and 1617 share one. */
export const LEGACY_UNIQUE_ID = 100 * PLACEHOLDER_BUCKET;
export const LEGACY_SHARED_IDS = [101 * PLACEHOLDER_BUCKET, 101 * PLACEHOLDER_BUCKET + 1];
const AT = "2026-01-15T09:00:00.000Z";

/** The demo catalogue: owned by the analyst, shared with the deployment. */
const DEMO: { id: number; name: string; folderId: number; jsonQuery: object; pivotItems?: StoredReport["pivotItems"] }[] = [
  {
    id: 6,
    name: "Revenue by month",
    folderId: 1,
    jsonQuery: {
      measures: ["orders.total_amount", "orders.count", "orders.return_rate"],
      timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
      order: [["orders.created_at", "asc"]],
    },
  },
  {
    id: 7,
    name: "Top customers",
    folderId: 2,
    jsonQuery: {
      measures: ["orders.total_amount", "orders.count"],
      dimensions: ["customers.name", "customers.country", "customers.segment"],
      order: [["orders.total_amount", "desc"]],
      limit: 25,
    },
  },
  {
    id: 8,
    name: "Orders by status and region",
    folderId: 3,
    jsonQuery: {
      measures: ["orders.count"],
      dimensions: ["orders.status", "customers.country"],
      order: [
        ["orders.status", "asc"],
        ["customers.country", "asc"],
      ],
    },
    pivotItems: {
      rows: ["orders.status"],
      columns: ["customers.country"],
      measures: ["orders.count"],
      filters: [],
      showColumnTotals: true,
      showRowTotals: true,
    },
  },
];

const query = JSON.stringify({ measures: ["orders.count", "orders.total_amount"], dimensions: ["orders.status"] });
const checksum: ResultChecksum = { v: 1, chunks: [{ from: 0, to: 4, hash: "0f1e2d3c4b5a6978" }], payload: "seeded" };

function report(id: number, deploymentId: number, publicId: string | null, name: string, userId: number, shared: boolean): StoredReport {
  const r: StoredReport = {
    id,
    deploymentId,
    publicId,
    name,
    title: name,
    userId,
    shared,
    source: "SHEETS_DESKTOP",
    createdAt: AT,
    updatedAt: AT,
    version: 1,
    jsonQuery: query,
    externalWorkbookId: MIXED_WORKBOOK,
  };
  r.currentQueryChecksum = queryChecksum(r);
  return r;
}
function placement(
  id: string,
  r: StoredReport,
  workbookId: string,
  sheet: string,
  anchor: string,
  end: string,
  queryChecksum: string,
): StoredPlacement {
  return {
    id,
    reportId: r.id,
    host: "SHEETS_DESKTOP",
    workbookId,
    workbookName: workbookId === MIXED_WORKBOOK ? "Mixed.xlsx" : "Oversized.xlsx",
    sheetId: `sheet-${sheet}`,
    sheetName: sheet,
    anchorCell: anchor,
    endResultCell: end,
    resultLocation: `${anchor}:${end}`,
    placedAt: AT,
    refreshedAt: AT,
    placedByUserId: r.userId,
    refreshedByUserId: r.userId,
    queryChecksum,
    resultChecksum: checksum,
  };
}

/**
 * `fixtures`: also the edge cases the tests need (legacy placeholder ids, the mixed GRANTED/DENIED
 * workbook, the workbook over the placement limit, in their own folder). The demo (`npm start`,
 * `npm run platform`, the e2e and bench servers) starts without them: its catalogue is the demo's.
 */
export async function seedIfEmpty(store: Store, o: { fixtures?: boolean } = {}): Promise<void> {
  const fixtures = o.fixtures ?? true;
  if (store.meta.get("seeded") === "1") return;
  const analystOwn = report(1, 1, "AnaOwnRpt001", "Analyst pipeline", 2, false);
  const adminShared = report(2, 1, "SharedRpt002", "Company revenue", 1, true);
  const outsiderPrivate = report(3, 1, "OscarPriv003", "Outsider private margins", 4, false);
  const outsiderOther = report(4, 2, "OscarFin0004", "Finance forecast", 4, false);
  const viewerVisible = report(5, 2, "FinShared005", "Finance shared", 1, true);
  const legacy = [LEGACY_UNIQUE_ID, ...LEGACY_SHARED_IDS].map((id) => report(id, 1, null, `Legacy report ${id}`, 2, true));
  const big = [10, 11, 12].map((id) => ({
    ...report(id, 1, `OversizeRp${id}`, `Oversized ${id}`, 1, true),
    externalWorkbookId: OVERSIZED_WORKBOOK,
  }));
  for (const r of [...legacy, ...big]) r.folderId = 9; // edge cases the tests need, out of the demo user's way
  const demo = DEMO.map((d) => {
    const r: StoredReport = {
      ...report(d.id, 1, `DemoReport${String(d.id).padStart(2, "0")}`, d.name, 2, true),
      folderId: d.folderId,
      jsonQuery: JSON.stringify(d.jsonQuery),
      ...(d.pivotItems ? { pivotItems: d.pivotItems } : {}),
    };
    delete r.externalWorkbookId;
    r.currentQueryChecksum = queryChecksum(r);
    return r;
  });
  const reports = [
    analystOwn,
    adminShared,
    outsiderPrivate,
    outsiderOther,
    viewerVisible,
    ...demo,
    ...(fixtures ? [...legacy, ...big] : []),
  ];

  const placements: StoredPlacement[] = [
    placement("plc-mixed-01", analystOwn, MIXED_WORKBOOK, "Pipeline", "A1", "C5", analystOwn.currentQueryChecksum!),
    placement("plc-mixed-02", adminShared, MIXED_WORKBOOK, "Revenue", "B2", "D6", adminShared.currentQueryChecksum!),
    placement("plc-mixed-03", adminShared, MIXED_WORKBOOK, "Revenue", "H2", "J6", "stale-checksum"),
    placement("plc-mixed-04", outsiderPrivate, MIXED_WORKBOOK, "Margins", "A1", "C5", outsiderPrivate.currentQueryChecksum!),
    placement("plc-mixed-05", outsiderOther, MIXED_WORKBOOK, "Forecast", "A1", "C5", ""),
  ];
  if (!fixtures) placements.length = 0;
  // 2001 placements over three reports: one over the 2000 limit.
  for (let i = 0; fixtures && i < 2001; i++) {
    const r = big[i % 3]!;
    placements.push(
      placement(
        `plc-over-${String(i).padStart(4, "0")}`,
        r,
        OVERSIZED_WORKBOOK,
        `S${i % 3}`,
        `A${i * 10 + 1}`,
        `C${i * 10 + 5}`,
        r.currentQueryChecksum!,
      ),
    );
  }
  await store.commit({ reports, placements, meta: { seeded: "1" } });
}

export const seededIds = {
  legacyPublicIds: { unique: placeholderPublicId(LEGACY_UNIQUE_ID), ambiguous: placeholderPublicId(LEGACY_SHARED_IDS[0]!) },
  externalWorkbooks: { mixed: MIXED_WORKBOOK, oversized: OVERSIZED_WORKBOOK },
};
