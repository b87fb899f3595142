// fast-check arbitraries generated from the OpenAPI document's JSON Schemas: values that follow the
// schema ("valid"), values on and just past its bounds ("boundary"), and values no schema allows
// ("hostile"). Only the keywords the service's documents use are interpreted; others are ignored.
import fc from "fast-check";

/** Follows a local $ref ("#/components/schemas/X") in `doc`. */
export function deref(doc, schema) {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++)
    s = s.$ref
      .split("/")
      .slice(1)
      .reduce((o, k) => o?.[decodeURIComponent(k)], doc);
  return s ?? {};
}

/** allOf merged into one object schema (properties and required united), refs resolved. */
export function flatten(doc, schema) {
  const s = deref(doc, schema);
  if (!s.allOf) return s;
  const parts = s.allOf.map((p) => flatten(doc, p));
  return {
    ...s,
    allOf: undefined,
    type: "object",
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {}), s.properties ?? {}),
    required: [...new Set(parts.flatMap((p) => p.required ?? []).concat(s.required ?? []))],
  };
}

const types = (s) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** An arbitrary of values that follow `schema`. Strings are kept short unless the schema asks for more. */
export function validArb(doc, schema, depth = 0) {
  const s = flatten(doc, schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alts = s.oneOf ?? s.anyOf;
  if (alts) return fc.oneof(...alts.map((a) => validArb(doc, a, depth + 1)));
  const ts = types(s);
  if (ts.length > 1) return fc.oneof(...ts.map((t) => validArb(doc, { ...s, type: t }, depth)));
  const withExample = (arb) => (s.example !== undefined && depth > 0 ? fc.oneof(fc.constant(s.example), arb) : arb);
  switch (ts[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return withExample(fc.integer({ min: lowest(s, -1e6), max: highest(s, 1e6) }));
    case "number":
      return withExample(fc.double({ min: lowest(s, -1e6), max: highest(s, 1e6), noNaN: true, noDefaultInfinity: true }));
    case "string": {
      if (s.format === "email") return withExample(fc.emailAddress());
      if (s.format === "date-time") return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
      if (s.format === "uri" || s.format === "url") return withExample(fc.webUrl());
      if (s.pattern)
        return withExample(fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? 1e9)));
      const min = s.minLength ?? 0;
      return withExample(fc.string({ minLength: min, maxLength: Math.max(min, Math.min(s.maxLength ?? 40, 40)), unit: "grapheme" }));
    }
    case "array": {
      const min = s.minItems ?? 0;
      return fc.array(validArb(doc, s.items ?? {}, depth + 1), { minLength: min, maxLength: Math.max(min, Math.min(s.maxItems ?? 4, 4)) });
    }
    default: {
      if (!s.properties) return fc.constant({});
      const props = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, validArb(doc, v, depth + 1)]));
      return fc.record(props, { requiredKeys: s.required ?? [] });
    }
  }
}

function lowest(s, fallback) {
  if (s.exclusiveMinimum !== undefined) return s.exclusiveMinimum + 1;
  return s.minimum ?? fallback;
}
function highest(s, fallback) {
  if (s.exclusiveMaximum !== undefined) return s.exclusiveMaximum - 1;
  return Math.min(s.maximum ?? fallback, Number.MAX_SAFE_INTEGER);
}

/** Values on and just past the schema's bounds (some valid, some not). */
export function boundaryValues(doc, schema) {
  const s = flatten(doc, schema);
  const ts = types(s);
  const out = [];
  if (ts.includes("integer") || ts.includes("number")) {
    const lo = lowest(s, 0);
    const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : undefined);
    out.push(lo, lo - 1, 0, -1, 2 ** 31, 2 ** 53 + 2, -(2 ** 63));
    if (hi !== undefined) out.push(hi, hi + 1);
    if (ts.includes("integer")) out.push(1.5);
  }
  if (ts.includes("string")) {
    const min = s.minLength ?? 0;
    out.push("", "x".repeat(min), "x".repeat(Math.max(0, min - 1)));
    if (s.maxLength !== undefined) out.push("a".repeat(s.maxLength), "a".repeat(s.maxLength + 1));
    if (s.enum) out.push(String(s.enum[0]).toUpperCase(), ` ${s.enum[0]}`);
  }
  if (ts.includes("array")) {
    out.push([]);
    if (s.maxItems !== undefined) out.push(Array(s.maxItems + 1).fill(s.items?.example ?? "x"));
  }
  if (ts.includes("boolean")) out.push("true", 1);
  if (out.length === 0) out.push(null, {});
  return out;
}

/** Strings and values no field of this service should take, nor crash on. */
export const HOSTILE_STRINGS = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "'; DROP TABLE domains;--",
  '" OR 1=1 --',
  "%00%2e%2e%2f",
  "../../../../etc/passwd",
  "<script>alert(1)</script>",
  "$" + "{jndi:ldap://127.0.0.1/a}", // a log4j lookup string, kept literal
  "%s%s%s%n",
  "\r\nX-Injected: 1",
  "‮moc.elpmaxe",
  "xn--",
  "ａｂｃ.ｃｏｍ",
  "a".repeat(70_000),
  "1e309",
  "-0",
  "NaN",
  "Infinity",
  "0x10",
  "__proto__",
  "constructor",
  "😀".repeat(300),
];
export const HOSTILE_VALUES = [
  null,
  true,
  -1,
  1.7976931348623157e308,
  [],
  {},
  [[[[[[[[[[[]]]]]]]]]]],
  { __proto__: { admin: true } },
  JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"x": 1}}}'),
  Array(5000).fill(1),
];

/** An arbitrary of hostile values for one field. */
export const hostileArb = () => fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.constantFrom(...HOSTILE_VALUES), fc.string({ unit: "binary", maxLength: 30 }));

/** Every field path of an object schema (one level deep plus nested objects), for one-field mutations. */
export function fieldPaths(doc, schema, prefix = [], depth = 0) {
  const s = flatten(doc, schema);
  if (depth > 3 || !s.properties) return [];
  return Object.entries(s.properties).flatMap(([k, v]) => [
    { path: [...prefix, k], schema: v },
    ...(types(flatten(doc, v)).includes("object") ? fieldPaths(doc, v, [...prefix, k], depth + 1) : []),
  ]);
}

/** A copy of `value` with the field at `path` set to `v` (intermediate objects created). */
export function setPath(value, path, v) {
  const root = value !== null && typeof value === "object" && !Array.isArray(value) ? structuredClone(value) : {};
  let o = root;
  for (const k of path.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== "object" || Array.isArray(o[k])) o[k] = {};
    o = o[k];
  }
  Object.defineProperty(o, path[path.length - 1], { value: v, enumerable: true, writable: true, configurable: true });
  return root;
}
