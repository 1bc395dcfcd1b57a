// The workbook operations of a Workspace, on the sync engine (src/sync) and the Office.js adapter.
import type { DataClient, PlatformClient } from "../../api";
import type { Workspace } from "../model";

export type WorkbookOps = Pick<Workspace, "home" | "place" | "refresh" | "refreshAll" | "locate" | "disconnect" | "watch" | "close">;

export interface EngineDeps {
  client: PlatformClient;
  data: DataClient;
  deploymentId: number;
}

export async function openWorkbookOps(_deps: EngineDeps): Promise<WorkbookOps> {
  // Wired to src/sync once its engine surface lands (see the report); until then the pane says so.
  throw new Error("This build has no sync engine yet: placements cannot be listed or refreshed.");
}
