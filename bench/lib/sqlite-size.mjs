// Bytes on disk of the local SQLite files behind a bench server's D1 and Durable Objects, measured
// the way issue 19 asks: a VACUUMed copy (`VACUUM INTO`, a consistent snapshot taken from a read-only
// connection while the server runs), then page_count * page_size for the whole file and the dbstat
// virtual table for each table with its indexes. Uses Node's built-in node:sqlite.
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** Every *.sqlite file under `dir` (recursively). */
export function sqliteFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sqliteFiles(p));
    else if (e.name.endsWith(".sqlite")) out.push(p);
  }
  return out;
}

/** The local D1 file of a bench server's state folder (one D1 binding). */
export function d1File(persist) {
  const files = sqliteFiles(join(persist, "v3", "d1")).filter((f) => !f.includes("metadata"));
  if (files.length !== 1) throw new Error(`expected one D1 file under ${persist}, found ${files.length}`);
  return files[0];
}

/** The largest SQLite file of a Durable Object class under a bench server's state folder. */
export function largestObjectFile(persist, classPart) {
  const dir = join(persist, "v3", "do");
  const files = sqliteFiles(dir).filter((f) => f.includes(classPart));
  if (files.length === 0) throw new Error(`no ${classPart} object under ${dir}`);
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
}

/** Every SQLite file of a Durable Object class under a bench server's state folder (none: an empty list). */
export function objectFiles(persist, classPart) {
  const dir = join(persist, "v3", "do");
  try {
    return sqliteFiles(dir).filter((f) => f.includes(classPart));
  } catch {
    return [];
  }
}

/** The first column of the first row of `query`, read live (read-only). */
export function scalar(file, query) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare(query).get();
    return row ? Object.values(row)[0] : undefined;
  } finally {
    db.close();
  }
}

/** Row counts of `tables` read live (read-only: the server keeps writing). */
export function counts(file, tables) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const have = new Set(
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => r.name),
    );
    return Object.fromEntries(tables.map((t) => [t, have.has(t) ? Number(db.prepare(`SELECT COUNT(*) AS n FROM "${t}"`).get().n) : 0]));
  } finally {
    db.close();
  }
}

/** A VACUUMed copy of `file` at `copy` (replaced). */
export function vacuumCopy(file, copy) {
  rmSync(copy, { force: true });
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    db.exec(`VACUUM INTO '${copy.replaceAll("'", "''")}'`);
  } finally {
    db.close();
  }
  return copy;
}

/**
 * Sizes of an (already VACUUMed) file: total bytes, and per table its rows, bytes and used bytes (table
 * pages plus the pages of its indexes, from dbstat).
 */
export function measure(file) {
  const db = new DatabaseSync(file);
  try {
    const pageSize = Number(db.prepare("PRAGMA page_size").get().page_size);
    const total = Number(db.prepare("PRAGMA page_count").get().page_count) * pageSize;
    const owner = new Map(
      db
        .prepare("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")
        .all()
        .map((r) => [r.name, r.tbl_name]),
    );
    const tables = {};
    // bytes: whole pages; used: without each page's unused space (after VACUUM only the last page of
    // each b-tree has much), the figure that scales with rows.
    for (const r of db.prepare("SELECT name, SUM(pgsize) AS bytes, SUM(pgsize - unused) AS used FROM dbstat GROUP BY name").all()) {
      const t = owner.get(r.name) ?? r.name;
      tables[t] ??= { rows: 0, bytes: 0, used: 0 };
      tables[t].bytes += Number(r.bytes);
      tables[t].used += Number(r.used);
    }
    for (const t of Object.keys(tables)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(t) || t.startsWith("sqlite_")) continue;
      try {
        tables[t].rows = Number(db.prepare(`SELECT COUNT(*) AS n FROM "${t}"`).get().n);
      } catch {
        /* a virtual or internal table */
      }
    }
    return { total, pageSize, tables };
  } finally {
    db.close();
  }
}

/** Runs `statements` (plain SQL) on a copy, then VACUUMs it in place. */
export function mutate(file, statements) {
  const db = new DatabaseSync(file);
  try {
    for (const s of statements) db.exec(s);
    db.exec("VACUUM");
  } finally {
    db.close();
  }
}

/**
 * A stand-in for a Durable Object's `ctx.storage` over a node:sqlite file: what drizzle's
 * durable-sqlite driver calls (sql.exec with cursors, transactionSync), so the object's own
 * maintenance code can run on a copy of its file.
 */
export function storageOver(file) {
  const db = new DatabaseSync(file);
  const exec = (query, ...params) => {
    const stmt = db.prepare(query);
    const rows = stmt.all(...params);
    let i = 0;
    return {
      toArray: () => rows,
      next: () => (i < rows.length ? { value: rows[i++], done: false } : { value: undefined, done: true }),
      raw: () => {
        const arrays = db.prepare(query);
        arrays.setReturnArrays(true);
        const all = arrays.all(...params);
        return { toArray: () => all };
      },
      [Symbol.iterator]() {
        return rows[Symbol.iterator]();
      },
    };
  };
  return {
    storage: {
      sql: { exec },
      transactionSync: (fn) => {
        db.exec("BEGIN");
        try {
          const out = fn();
          db.exec("COMMIT");
          return out;
        } catch (e) {
          db.exec("ROLLBACK");
          throw e;
        }
      },
    },
    close: () => db.close(),
  };
}
