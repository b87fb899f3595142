// Guards JSON request bodies before schema validation: 415 for another content type, 413 past
// the size cap, 400 for malformed JSON or a non-object (api-decisions.md "Errors").
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { badRequest, payloadTooLarge, unsupportedMediaType } from "../lib/errors";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export const jsonBody = (maxBytes = 64 * 1024) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const type = c.req.header("content-type") ?? "";
    if (!JSON_TYPE.test(type)) throw unsupportedMediaType();
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > maxBytes) throw payloadTooLarge(`The request body must be at most ${maxBytes} bytes.`);
    const text = await c.req.text();
    if (new TextEncoder().encode(text).byteLength > maxBytes) {
      throw payloadTooLarge(`The request body must be at most ${maxBytes} bytes.`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest("The request body is not valid JSON.");
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw badRequest("The request body must be a JSON object.");
    }
    await next();
  });
