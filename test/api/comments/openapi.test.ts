// The embed and comments endpoints are part of the served OpenAPI document, generated from their schemas.
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildOpenApiDocument } from "../../../src/api/openapi";

describe("OpenAPI: embed and comments", () => {
  it("stays a valid 3.1 document and describes every embed endpoint from the zod schemas", async () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }> };
    };
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/embed/generate-session",
        "/api/v1/embed/session/token",
        "/api/v1/embed/session/revoke",
        "/api/v1/embed/dashboard/{publicId}",
        "/api/v1/embed/dashboard/{publicId}/comments",
        "/api/v1/embed/dashboard/{publicId}/comments/mentionable-users",
        "/api/v1/embed/dashboard/{publicId}/comments/{commentId}",
        "/api/v1/embed/dashboard/{publicId}/comments/{commentId}/resolve",
      ]),
    );
    expect(Object.keys(doc.paths["/api/v1/embed/dashboard/{publicId}/comments/{commentId}"]!).sort()).toEqual(["delete", "patch"]);
    const s = doc.components.schemas;
    expect(s.Comment!.required).toEqual(expect.arrayContaining(["id", "dashboardId", "body", "createdAt", "isOwn"]));
    expect(s.PostCommentInput!.properties!.body).toBeDefined();
    expect(s.Thread!.required).toEqual(expect.arrayContaining(["root", "replies"]));
  });
});
