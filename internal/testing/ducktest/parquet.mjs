// Serves ducktest.ReadParquet: reads requests from standard input, one a
// line, each a JSON array whose first element is the mode and the rest
// Parquet files, and reads the files in a fresh in-memory DuckDB (its
// Node package, @duckdb/node-api), printing for each one JSON line: the
// file, its columns' names and types (DESCRIBE), its row count, and each
// row as DuckDB's to_json renders it. An
// argument "sql:STATEMENT" runs the statement instead (to write files).
// Mode "stop" ends the request at a file DuckDB refuses (ERROR and its
// message), "keep-going" prints a line with the error and goes on. Each
// request ends with the line END. One process serves the requests of a
// test binary: starting node and loading the package is most of the cost.
import { DuckDBInstance } from '@duckdb/node-api';
import readline from 'node:readline';

const END = '__trevni_ducktest_end__';
const ERROR = '__trevni_ducktest_error__';
for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let instance;
  try {
    const [mode, ...args] = JSON.parse(line);
    instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    for (const file of args) {
      if (file.startsWith('sql:')) {
        await conn.run(file.slice(4));
        continue;
      }
      const q = file.replaceAll("'", "''");
      try {
        const count = await conn.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet('${q}')`);
        // The alias is one no column of a test file has: a column named
        // as the alias would be what to_json renders.
        const rows = await conn.runAndReadAll(`SELECT to_json(trevni_row_)::VARCHAR AS j FROM read_parquet('${q}') trevni_row_`);
        const described = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${q}')`);
        const out = {
          file,
          columns: described.getRowObjects().map((r) => `${r.column_name} ${r.column_type}`),
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
    conn.closeSync?.();
  } catch (e) {
    process.stdout.write(ERROR + ' ' + JSON.stringify(String(e.message ?? e)) + '\n');
  }
  instance?.closeSync?.();
  process.stdout.write(END + '\n');
}
