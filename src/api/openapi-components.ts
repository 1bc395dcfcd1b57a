// The component schemas of the OpenAPI document (src/api/openapi.ts), one registry of the zod
// schemas by id, and the small builders its paths are written with. An operation names a schema
// by the zod object itself (`ok(M.Report)`); its id comes from the registry, so a path can never
// point at a component the document lacks.
import { z } from "zod";
import { ErrorBody, PageInfo } from "./schemas/common";
import * as M from "./schemas/management";
import * as D from "./schemas/data";
import * as S from "./schemas/scheduled-tasks";
import * as E from "./embed/schemas";
import * as C from "./comments/schemas";

/** In the document's order: management, data, exports, scheduled tasks, then embed and comments. */
const COMPONENTS: Record<string, z.ZodType> = {
  ErrorBody,
  PageInfo,
  Report: M.Report,
  Placement: M.Placement,
  ResultChecksum: M.ResultChecksum,
  PivotItems: M.PivotItems,
  UserRef: M.UserRef,
  ReportInput: M.ReportInput,
  RefreshInput: M.RefreshInput,
  ConnectInput: M.ConnectInput,
  DisconnectInput: M.DisconnectInput,
  ExternalPlacement: M.ExternalPlacement,
  ReportPage: M.ReportPage,
  ExternalPlacementPage: M.ExternalPlacementPage,
  DeploymentTokenInput: M.DeploymentTokenInput,
  DeploymentToken: M.DeploymentToken,
  Deployment: M.Deployment,
  DeploymentPage: M.DeploymentPage,
  Me: M.Me,
  LoadRequest: D.LoadRequest,
  LoadResponse: D.LoadResponse,
  SqlRequest: D.SqlRequest,
  SqlResponse: D.SqlResponse,
  MetaResponse: D.MetaResponse,
  DataErrorBody: D.DataErrorBody,
  ContinueWait: D.ContinueWait,
  DashboardExportInput: M.DashboardExportInput,
  DashboardExportJob: M.DashboardExportJob,
  ScheduledTask: S.ScheduledTask,
  ScheduledTaskInput: S.ScheduledTaskInput,
  ScheduledTaskUpdate: S.ScheduledTaskUpdate,
  ScheduledTaskPage: S.ScheduledTaskPage,
  ScheduledTaskRun: S.ScheduledTaskRun,
  ScheduledTaskRunPage: S.ScheduledTaskRunPage,
  RunStarted: S.RunStarted,
  GenerateSessionInput: E.GenerateSessionInput,
  EmbedTheme: E.EmbedTheme,
  SessionSettings: E.SessionSettings,
  SessionIdBody: E.SessionIdBody,
  SessionMinted: E.SessionMinted,
  EmbedToken: E.EmbedToken,
  EmbedDashboard: E.EmbedDashboard,
  DashboardWidget: E.DashboardWidget,
  DashboardList: E.DashboardList,
  Comment: C.Comment,
  Thread: C.Thread,
  CommentPageInfo: C.CommentPageInfo,
  ThreadList: C.ThreadList,
  MentionableUser: C.MentionableUser,
  MentionableUserList: C.MentionableUserList,
  PostCommentInput: C.PostCommentInput,
  EditCommentInput: C.EditCommentInput,
  ResolveInput: C.ResolveInput,
};

const registry = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });

/** `components.schemas`: every registered schema as JSON Schema, `$ref`s between them. */
export function componentSchemas(): Record<string, unknown> {
  const out = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
    io: "input",
  }) as { schemas: Record<string, Record<string, unknown>> };
  for (const s of Object.values(out.schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return out.schemas;
}

function idOf(schema: z.ZodType): string {
  const id = registry.get(schema)?.id;
  if (id === undefined) throw new Error("OpenAPI: a path names a schema that is not among the document's components");
  return id;
}

export const ref = (schema: z.ZodType) => ({ $ref: `#/components/schemas/${idOf(schema)}` });
export const json = (schema: z.ZodType) => ({ "application/json": { schema: ref(schema) } });
export const ok = (schema: z.ZodType, description = "OK") => ({ description, content: json(schema) });
export const err = (description: string) => ({ description, content: json(ErrorBody) });
export const body = (schema: z.ZodType) => ({ required: true, content: json(schema) });
