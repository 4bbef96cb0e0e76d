// Reads Parquet files with DuckDB (its Node package, @duckdb/node-api), all
// in one DuckDB, and prints for each file named on the command line one
// JSON line: the file, its row count, and each row as DuckDB's to_json
// renders it. An argument "sql:STATEMENT" runs the statement instead (to
// write files). The first argument is the mode: "stop" ends the run at a
// file DuckDB refuses (with its error on standard error), "keep-going"
// prints a line with the error and goes on. Used by ducktest.ReadParquet.
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, ...args] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
for (const file of args) {
  if (file.startsWith('sql:')) {
    await conn.run(file.slice(4));
    continue;
  }
  const q = file.replaceAll("'", "''");
  try {
    const count = await conn.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet('${q}')`);
    // The alias is one no column of a test file has: a column named as
    // the alias would be what to_json renders.
    const rows = await conn.runAndReadAll(`SELECT to_json(trevni_row_)::VARCHAR AS j FROM read_parquet('${q}') trevni_row_`);
    const out = {
      file,
      count: Number(count.getRowObjects()[0].n),
      rows: rows.getRowObjects().map((r) => r.j),
    };
    process.stdout.write(JSON.stringify(out) + '\n');
  } catch (e) {
    if (mode !== 'keep-going') {
      throw e;
    }
    process.stdout.write(JSON.stringify({ file, error: String(e.message ?? e) }) + '\n');
  }
}
