/** @jsxImportSource hono/jsx */
// The API reference at /api/v1/docs: server-rendered from the served OpenAPI document, so it needs no
// CDN, no script and no build step; its stylesheet is an asset, so the page keeps the one CSP (D149). Every operation with its parameters, body and responses, every
// webhook event, and the component schemas they reference.
import type { FC } from "hono/jsx";
import { ASSET_URLS } from "./assets/serve";

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: Json }>;
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Json }>; $ref?: string }>;
  security?: Array<Record<string, unknown>>;
}
export interface ReferenceDocument {
  info: { title: string; description?: string; version: string };
  tags?: Array<{ name: string; description?: string }>;
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Json> };
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const refName = (ref: string) => ref.split("/").pop() ?? ref;
const anchor = (name: string) => `schema-${name}`;

/** A short type label for a schema: a link for a component, element types for arrays, enums spelled out. */
const TypeOf: FC<{ schema?: Json }> = ({ schema }) => {
  if (!schema) return <span>any</span>;
  if (typeof schema.$ref === "string") return <a href={`#${anchor(refName(schema.$ref))}`}>{refName(schema.$ref)}</a>;
  if (Array.isArray(schema.enum)) return <code>{schema.enum.map((v) => JSON.stringify(v)).join(" | ")}</code>;
  if (schema.const !== undefined) return <code>{JSON.stringify(schema.const)}</code>;
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(union)) {
    return (
      <span>
        {union.map((s, i) => (
          <>
            {i > 0 ? " | " : ""}
            <TypeOf schema={s} />
          </>
        ))}
      </span>
    );
  }
  if (schema.type === "array") {
    return (
      <span>
        array of <TypeOf schema={schema.items as Json | undefined} />
      </span>
    );
  }
  const props = schema.properties as Record<string, Json> | undefined;
  if (props && Object.keys(props).length <= 3) {
    // Inline envelopes ({data}, {data, meta}) read better spelled out than as "object".
    return (
      <span>
        {"{ "}
        {Object.entries(props).map(([k, v], i) => (
          <>
            {i > 0 ? ", " : ""}
            <code>{k}</code>: <TypeOf schema={v} />
          </>
        ))}
        {" }"}
      </span>
    );
  }
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "object");
  return <span>{type}</span>;
};

const Properties: FC<{ schema: Json }> = ({ schema }) => {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  if (Object.keys(props).length === 0) return <p class="muted">{String(schema.description ?? "")}</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(props).map(([name, p]) => (
          <tr>
            <td>
              <code>{name}</code>
              {required.has(name) ? "" : " (optional)"}
            </td>
            <td>
              <TypeOf schema={p} />
            </td>
            <td>{String(p.description ?? "")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
};

const OperationView: FC<{ method: string; path: string; op: Operation }> = ({ method, path, op }) => (
  <section class="op" id={op.operationId}>
    <h3>
      <span class={`method ${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
    </h3>
    <p>
      <strong>{op.summary}</strong>
    </p>
    {op.description ? <p>{op.description}</p> : null}
    {op.parameters && op.parameters.length > 0 ? (
      <table>
        <caption>Parameters</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">In</th>
            <th scope="col">Type</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {op.parameters.map((p) => (
            <tr>
              <td>
                <code>{p.name}</code>
                {p.required ? " (required)" : ""}
              </td>
              <td>{p.in}</td>
              <td>
                <TypeOf schema={p.schema} />
              </td>
              <td>{p.description ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    ) : null}
    {op.requestBody?.content ? (
      <p>
        Body:{" "}
        {Object.entries(op.requestBody.content).map(([type, c]) => (
          <span class="body">
            <code>{type}</code> <TypeOf schema={c.schema} />{" "}
          </span>
        ))}
      </p>
    ) : null}
    <ul class="responses">
      {Object.entries(op.responses ?? {}).map(([status, r]) => (
        <li>
          <code>{status}</code> {r.$ref ? <a href="#schema-Error">Error</a> : r.description}{" "}
          {r.content?.["application/json"] ? <TypeOf schema={r.content["application/json"].schema} /> : null}
        </li>
      ))}
    </ul>
  </section>
);

export const ApiReference: FC<{ doc: ReferenceDocument }> = ({ doc }) => {
  const ops = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m as string, path, op: item[m] as Operation })),
  );
  const tags = doc.tags ?? [];
  const hooks = Object.entries(doc.webhooks ?? {}).map(([name, item]) => ({ name, op: item.post as Operation }));
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{doc.info.title}</title>
        <link rel="stylesheet" href={ASSET_URLS.apiCss} />
      </head>
      <body>
        <main>
          <h1>{doc.info.title}</h1>
          <p>{doc.info.description}</p>
          <p>
            Version {doc.info.version}. Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).
          </p>
          <nav aria-label="Operations">
            <ul>
              {ops.map((o) => (
                <li>
                  <a href={`#${o.op.operationId}`}>{o.op.summary ?? `${o.method.toUpperCase()} ${o.path}`}</a>
                </li>
              ))}
            </ul>
          </nav>
          {tags.map((t) => (
            <>
              <h2>{t.name}</h2>
              <p>{t.description}</p>
              {ops
                .filter((o) => o.op.tags?.includes(t.name))
                .map((o) => (
                  <OperationView method={o.method} path={o.path} op={o.op} />
                ))}
            </>
          ))}
          <h2>Webhook events</h2>
          <p>Each event is POSTed to subscribed endpoints, signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).</p>
          {hooks.map((h) => (
            <section class="op" id={`event-${h.name}`}>
              <h3>
                <code>{h.name}</code>
              </h3>
              <p>
                Payload: <TypeOf schema={h.op?.requestBody?.content?.["application/json"]?.schema} />
              </p>
            </section>
          ))}
          <h2>Schemas</h2>
          {Object.entries(doc.components?.schemas ?? {}).map(([name, schema]) => (
            <section id={anchor(name)}>
              <h3>{name}</h3>
              <Properties schema={schema} />
            </section>
          ))}
        </main>
      </body>
    </html>
  );
};

export const renderApiReference = (doc: ReferenceDocument): string => `<!doctype html>${(<ApiReference doc={doc} />).toString()}`;
