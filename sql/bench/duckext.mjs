// duckext.mjs EXT WORK: the queries of duckext.sh, in DuckDB's Node
// package with the extension loaded: each query over read_trevni and over
// read_parquet, alternating, 5 runs each, the best wall time kept, with
// 1, 2 and all threads (duckext.sh times the COPY with copyto.mjs).
// Prints one line a query and setting.
import { DuckDBInstance } from '@duckdb/node-api';
const [ext, work] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
const con = await db.connect();
await con.run(`LOAD '${ext}'`);
const all = (await con.runAndReadAll('SELECT current_setting(\'threads\')')).getRows()[0][0];
const queries = {
  'group by': (t) => `SELECT small % 100 AS k, count(*) AS n, sum(score) AS s, max(id) AS m FROM ${t} GROUP BY k ORDER BY k`,
  'filtered aggregate': (t) => `SELECT count(*), sum(score), max(id) FROM ${t} WHERE small < 1000`,
};
const tables = { trevni: `read_trevni('${work}/large.trv')`, parquet: `read_parquet('${work}/large.parquet')` };
for (const threads of [1, 2, Number(all)]) {
  await con.run(`SET threads = ${threads}`);
  for (const [name, q] of Object.entries(queries)) {
    const best = {};
    const out = {};
    for (let run = 0; run < 5; run++) {
      for (const [side, t] of Object.entries(tables)) {
        const start = performance.now();
        const r = await con.runAndReadAll(q(t));
        const ms = performance.now() - start;
        out[side] = JSON.stringify(r.getRowsJson());
        if (!(side in best) || ms < best[side]) best[side] = ms;
      }
    }
    const same = out.trevni === out.parquet ? '' : '  (results differ in their text: float sums in another order?)';
    console.log(`${name.padEnd(18)} threads ${String(threads).padStart(2)}  trevni ${(best.trevni / 1000).toFixed(3)}s  parquet ${(best.parquet / 1000).toFixed(3)}s  ratio ${(best.trevni / best.parquet).toFixed(2)}${same}`);
  }
}

