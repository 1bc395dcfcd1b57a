// Hono routes of the dashboard comments API (/api/v1/embed/dashboard/{publicId}/comments, seeds 02
// §4.1): every call needs an externalId session's embed token (§5), then the dashboard is looked up
// (404) before access is checked (403), then the input is validated (400), then CommentService rules.
import { Hono, type Context } from "hono";
import { EditCommentInput, MentionableQuery, PostCommentInput, ResolveInput, ThreadListQuery } from "../../src/api/comments/schemas";
import type { CommentService } from "./comments";
import type { EmbedService } from "./embed";
import { HttpProblem } from "./service";
import { jsonBody, parseWith } from "./validation";

export function commentsRoutes(embed: EmbedService, comments: CommentService): Hono {
  const app = new Hono();

  const enter = (c: Context) => {
    const caller = embed.tenantCaller(c.req.header("Authorization"));
    const publicId = c.req.param("publicId") ?? "";
    embed.readableDashboard(caller, publicId);
    return { caller, publicId };
  };
  const commentId = (c: Context) => {
    const v = c.req.param("commentId") ?? "";
    if (!/^\d{1,15}$/.test(v)) throw new HttpProblem(404, `Comment ${v} not found`);
    return Number(v);
  };
  const query = (c: Context) => Object.fromEntries(new URL(c.req.url).searchParams);

  app.get("/", (c) => {
    const { caller, publicId } = enter(c);
    const q = parseWith(ThreadListQuery, query(c));
    // resolvedOnly wins over includeResolved (§4.1 rule 4).
    const filter = q.resolvedOnly ? "resolved" : q.includeResolved ? "all" : "open";
    return c.json(comments.list(caller, publicId, { filter, first: q.first, after: q.after }));
  });

  app.post("/", async (c) => {
    const { caller, publicId } = enter(c);
    const input = await jsonBody(c, PostCommentInput);
    return c.json(await comments.post(caller, publicId, input.body, input.parentId), 201);
  });

  app.get("/mentionable-users", (c) => {
    const { caller } = enter(c);
    return c.json(comments.mentionable(caller, parseWith(MentionableQuery, query(c))));
  });

  app.patch("/:commentId", async (c) => {
    const { caller, publicId } = enter(c);
    const id = commentId(c);
    const body = (await jsonBody(c, EditCommentInput)).body;
    return c.json(await comments.edit(caller, publicId, id, body));
  });

  app.delete("/:commentId", async (c) => {
    const { caller, publicId } = enter(c);
    await comments.remove(caller, publicId, commentId(c));
    return c.body(null, 204);
  });

  app.post("/:commentId/resolve", async (c) => {
    const { caller, publicId } = enter(c);
    const id = commentId(c);
    const { resolved } = await jsonBody(c, ResolveInput);
    return c.json(await comments.resolve(caller, publicId, id, resolved));
  });

  return app;
}
