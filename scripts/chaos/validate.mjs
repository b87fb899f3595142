// Response validation against the served OpenAPI 3.1 document: every schema of components/schemas is
// registered with Ajv (JSON Schema 2020-12, OpenAPI's dialect), and refs point into it.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** Rewrites "#/components/..." refs to "<id>#/components/..." so one registered document serves all. */
function rebase(node, id) {
  if (Array.isArray(node)) return node.map((n) => rebase(n, id));
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "example" || k === "examples") continue; // OpenAPI annotations, not JSON Schema keywords to check
    out[k] = k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${id}${v}` : rebase(v, id);
  }
  return out;
}

/** validator(doc).check(schema, value) → null when valid, else a short description of the first errors. */
export function createValidator(doc, id = "api") {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default ? addFormats.default(ajv) : addFormats(ajv);
  ajv.addSchema({ $id: id, components: rebase(doc.components ?? {}, id) });
  const cache = new Map();
  return {
    check(schema, value) {
      const key = JSON.stringify(schema);
      let fn = cache.get(key);
      if (!fn) {
        fn = ajv.compile(rebase(schema, id));
        cache.set(key, fn);
      }
      if (fn(value)) return null;
      return (fn.errors ?? [])
        .slice(0, 4)
        .map((e) => `${e.instancePath || "/"} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`)
        .join("; ");
    },
  };
}
