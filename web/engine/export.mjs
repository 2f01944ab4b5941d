// A database leaving the browser for a real vector database once it outgrows
// one: its passages (id, URL, source, title trail, language, text, and a
// site's page metadata and filters) with
// their vectors as pgvector SQL, Qdrant's create-and-upsert JSON, or a
// LanceDB table. Vectors are unit length, so cosine distance ranks them as
// vesper's vector search does.
//
//   const sql = pgvectorSql(engine.require('site'));
//   const json = qdrantJson(engine.require('site'));
//   await lancedbTable(engine.require('site'), { dir, lancedb: await import('@lancedb/lancedb') });
import { VesperError } from './errors.mjs';
import { fieldsOf, pageOf } from './results.mjs';

// Rows per INSERT statement: big enough to load fast, small enough for any client.
const SQL_BATCH = 200;
// Digits kept per vector component: a float32 round-trips through 9.
const FLOAT_DIGITS = 9;

// The passages of a database that has vectors, each with its vector.
export function exportRows(db) {
  if (!db.model) throw new VesperError('invalid_argument', `database '${db.name}' is lexical only: it has no vectors to export`);
  return db.chunks().map((c) => {
    const { metadata = null, filters = null } = fieldsOf(c);
    return {
      id: c.id, url: pageOf(c.source) === null ? null : c.source, source: c.source, title: c.title, language: c.language, text: c.text,
      metadata, filters, vector: db.vector(c.id),
    };
  });
}

const sqlText = (s) => (s === null ? 'NULL' : `'${String(s).replace(/\u0000/g, '').replace(/'/g, "''")}'`);
const sqlName = (s) => `"${String(s).replace(/\u0000/g, '').replace(/"/g, '""')}"`;
const sqlJson = (o) => (o === null ? 'NULL' : `${sqlText(JSON.stringify(o))}::jsonb`);
const vectorText = (v) => `[${Array.from(v, (x) => Number(x.toPrecision(FLOAT_DIGITS))).join(',')}]`;

// SQL for PostgreSQL with pgvector: the extension, a table named after the
// database (or `table`), its rows, and an HNSW index for cosine distance.
export function pgvectorSql(db, { table = db.name } = {}) {
  const rows = exportRows(db);
  const name = sqlName(table);
  const out = [
    `-- vesper export of '${String(db.name).replace(/[\r\n]/g, ' ')}': ${rows.length} passages, ${db.model.id}, ${db.model.dims} dims`,
    'CREATE EXTENSION IF NOT EXISTS vector;',
    `CREATE TABLE ${name} (id text PRIMARY KEY, url text, source text NOT NULL, title text[] NOT NULL, language text, text text NOT NULL, metadata jsonb, filters jsonb, embedding vector(${db.model.dims}) NOT NULL);`,
  ];
  for (let i = 0; i < rows.length; i += SQL_BATCH) {
    const values = rows.slice(i, i + SQL_BATCH).map((r) => `(${[
      sqlText(r.id), sqlText(r.url), sqlText(r.source), `ARRAY[${r.title.map(sqlText).join(',')}]::text[]`, sqlText(r.language || null), sqlText(r.text),
      sqlJson(r.metadata), sqlJson(r.filters), `'${vectorText(r.vector)}'`,
    ].join(', ')})`);
    out.push(`INSERT INTO ${name} (id, url, source, title, language, text, metadata, filters, embedding) VALUES\n${values.join(',\n')};`);
  }
  out.push(`CREATE INDEX ON ${name} USING hnsw (embedding vector_cosine_ops);`, '');
  return out.join('\n');
}

// Qdrant: the collection to create (PUT /collections/NAME) and the points to
// upsert (PUT /collections/NAME/points). Point ids are numbers (Qdrant takes
// integers or UUIDs); the passage's own id is in its payload.
export function qdrantJson(db, { collection = db.name } = {}) {
  const rows = exportRows(db);
  return {
    collection: { name: collection, vectors: { size: db.model.dims, distance: 'Cosine' } },
    points: rows.map((r, i) => ({
      id: i + 1,
      vector: Array.from(r.vector, (x) => Number(x.toPrecision(FLOAT_DIGITS))),
      payload: {
        chunk_id: r.id, url: r.url, source: r.source, title: r.title, language: r.language, text: r.text, model: db.model.id,
        ...(r.metadata ? { metadata: r.metadata } : {}), ...(r.filters ? { filters: r.filters } : {}),
      },
    })),
  };
}

// A LanceDB table in `dir` (created, or replaced with overwrite), through
// the caller's @lancedb/lancedb module. Metadata and filters are JSON text
// columns ("{}" when none): one schema for every row.
export async function lancedbTable(db, { dir, lancedb, table = db.name, overwrite = false }) {
  const rows = exportRows(db).map((r) => ({
    ...r, url: r.url ?? '', language: r.language ?? '', metadata: JSON.stringify(r.metadata ?? {}), filters: JSON.stringify(r.filters ?? {}),
    vector: Array.from(r.vector),
  }));
  const conn = await lancedb.connect(dir);
  const t = await conn.createTable(table, rows, { mode: overwrite ? 'overwrite' : 'create' });
  return { table, rows: await t.countRows() };
}
