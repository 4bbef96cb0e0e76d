// Reads Parquet files with DuckDB (its Node package, @duckdb/node-api) as
// duckdb.mjs does, one JSON line a file, but a file DuckDB refuses is a
// line with its error rather than the end of the run.
import { DuckDBInstance } from '@duckdb/node-api';

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
for (const file of process.argv.slice(2)) {
  const q = file.replaceAll("'", "''");
  try {
    const count = await conn.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet('${q}')`);
    const rows = await conn.runAndReadAll(`SELECT to_json(trevni_row_)::VARCHAR AS j FROM read_parquet('${q}') trevni_row_`);
    const out = {
      file,
      count: Number(count.getRowObjects()[0].n),
      rows: rows.getRowObjects().map((r) => r.j),
    };
    process.stdout.write(JSON.stringify(out) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ file, error: String(e.message ?? e) }) + '\n');
  }
}
