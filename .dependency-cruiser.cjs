// The layer rules of docs/architecture.md, checked in CI (`npm run lint:deps`).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "No import loop anywhere in src/: shared verbs move down a layer instead.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "core-is-pure",
      severity: "error",
      comment: "src/core imports only src/core and src/lib (I/O only through injected ports).",
      from: { path: "^src/core/" },
      to: { path: "^src/", pathNot: "^src/(core|lib)/" },
    },
    {
      name: "lib-is-a-leaf",
      severity: "error",
      comment: "src/lib is shared by every layer and imports nothing of the project but itself.",
      from: { path: "^src/lib/" },
      to: { path: "^src/", pathNot: "^src/lib/" },
    },
    {
      name: "services-import-no-face",
      severity: "error",
      comment: "Services are called by faces (routes, pages, mcp, queues, cron, email); they never import one, nor hono.",
      from: { path: "^src/services(/|\\.ts$)" },
      to: { path: ["^src/(routes|pages|mcp|queues|cron|email|middleware)/", "^src/(app|app-router|context|index)\\.ts$", "node_modules/hono/"] },
    },
    {
      name: "core-imports-no-framework",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: ["node_modules/(hono|@hono|drizzle-orm)/"] },
    },
    {
      name: "faces-do-not-import-each-other",
      severity: "error",
      comment: "A face reaches another face's work only through a service verb.",
      from: { path: "^src/(routes|pages|mcp|queues|cron|email)/" },
      to: { path: "^src/(routes|pages|mcp|queues|cron|email)/", pathNot: "^src/$1/" },
    },
    {
      name: "src-does-not-import-tests",
      severity: "error",
      from: { path: "^src/", pathNot: "\\.test\\.ts$" },
      to: { path: ["^test/", "\\.test\\.ts$", "/testdata/", "test-fixtures\\.ts$"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    combinedDependencies: false,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
