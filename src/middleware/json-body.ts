// Guards JSON request bodies before schema validation: 415 for another content type, 413 past
// the size cap, 400 for malformed JSON or a non-object (docs/decisions.md D1).
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { readBodyCapped } from "../lib/body";
import { badRequest, unsupportedMediaType } from "../lib/errors";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export const jsonBody = (maxBytes = 64 * 1024) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const type = c.req.header("content-type") ?? "";
    if (!JSON_TYPE.test(type)) throw unsupportedMediaType();
    const bytes = await readBodyCapped(c.req.raw, maxBytes);
    let text: string;
    let parsed: unknown;
    try {
      // RFC 8259 §8.1: JSON text is UTF-8; malformed encoding is as invalid as malformed syntax.
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
      parsed = JSON.parse(text);
    } catch {
      throw badRequest("The request body is not valid JSON.");
    }
    // The validators downstream read the body through Hono's cache (which holds promises, whatever
    // its declared type says), never the stream consumed above.
    Object.assign(c.req.bodyCache, { text: Promise.resolve(text) });
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw badRequest("The request body must be a JSON object.");
    }
    await next();
  });
