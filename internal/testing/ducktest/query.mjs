// Serves ducktest.Query: reads requests from standard input, one a line,
// each a JSON array of SQL queries, runs each request's queries in order
// in a fresh in-memory DuckDB (its Node package, @duckdb/node-api), and
// prints for each query one line of JSON: the column names, their types
// and the rows (values as DuckDB's JSON rendering), or DuckDB's error;
// then the line END, and for a request that failed as a whole, ERROR and
// its message before it. One process serves the requests of a test
// binary: starting node and loading the package is most of the cost.
import { DuckDBInstance } from '@duckdb/node-api';
import readline from 'node:readline';

const END = '__trevni_ducktest_end__';
const ERROR = '__trevni_ducktest_error__';
for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let db;
  try {
    db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    for (const q of JSON.parse(line)) {
      try {
        const r = await c.runAndReadAll(q);
        process.stdout.write(JSON.stringify({ names: r.columnNames(), types: r.columnTypes().map((t) => t.toString()), rows: r.getRowsJson() }) + '\n');
      } catch (e) {
        process.stdout.write(JSON.stringify({ error: String(e.message ?? e) }) + '\n');
      }
    }
    c.closeSync?.();
  } catch (e) {
    process.stdout.write(ERROR + ' ' + JSON.stringify(String(e.stack ?? e)) + '\n');
  }
  db?.closeSync?.();
  process.stdout.write(END + '\n');
}
