// Request validation with the API layer's own zod schemas: a malformed body, a wrong type
// or an oversized value becomes a 400 whose JSON body names the field.
import type { Context } from "hono";
import type { z } from "zod";
import { ERROR_CODES } from "../../src/api/management-client";
import { HttpProblem } from "./service";

export function problemFromZod(error: z.ZodError, name?: string): HttpProblem {
  const issue = error.issues[0]!;
  const field = issue.path.length
    ? issue.path.join(".")
    : name !== undefined
      ? name
      : issue.code === "unrecognized_keys"
        ? (issue as { keys: string[] }).keys.join(",")
        : "(body)";
  const tooLong = issue.code === "too_big" && (issue as { origin?: string }).origin === "string";
  return new HttpProblem(400, `${field}: ${issue.message}`, tooLong ? ERROR_CODES.tooLong : ERROR_CODES.invalid, field);
}

/** Validates `value`; `name` is the field reported when the value itself (not a member) is bad. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, name?: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw problemFromZod(r.error, name);
  return r.data;
}

/** The JSON body (undefined when empty and `optional`), validated by `schema`. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S, optional = false): Promise<z.output<S>> {
  const text = await c.req.text();
  if (text.trim() === "") {
    if (optional) return parseWith(schema, {});
    throw new HttpProblem(400, "A JSON body is required", ERROR_CODES.invalid, "(body)");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HttpProblem(400, "The body is not valid JSON", ERROR_CODES.invalid, "(body)");
  }
  return parseWith(schema, json);
}

export function intParam(c: Context, name: string): number {
  const v = c.req.param(name) ?? "";
  if (!/^\d{1,9}$/.test(v)) throw new HttpProblem(400, `${name} must be an integer`, ERROR_CODES.invalid, name);
  return Number(v);
}
