// queryloop.mjs EXT WORK QUERY[:p] [RUNS] [THREADS]: one of duckext.sh's
// queries run RUNS (200) times in one Node process with THREADS (1)
// DuckDB threads, over read_trevni('WORK/large.trv'), or with ":p" over
// read_parquet('WORK/large.parquet'); prints the least and the mean wall
// time of a query and the CPU time (user and system, every thread of
// the process) a query. For profiles (perf record -g node queryloop.mjs
// ...) and for two builds of the extension side by side, alternating.
// QUERY: g (the GROUP BY), f (the filtered aggregate), c (count(*)), or
// the max of one column: small, id, score. Node finds @duckdb/node-api
// beside the script: copy it into the directory of the npm install
// first, as duckext.sh does with its scripts (.ci/node).
import { DuckDBInstance } from '@duckdb/node-api';
const [ext, work, query, runsArg, threadsArg] = process.argv.slice(2);
const runs = Number(runsArg || 200);
const db = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
const con = await db.connect();
await con.run(`LOAD '${ext}'`);
await con.run(`SET threads = ${Number(threadsArg || 1)}`);
const queries = {
  g: (t) => `SELECT small % 100 AS k, count(*) AS n, sum(score) AS s, max(id) AS m FROM ${t} GROUP BY k ORDER BY k`,
  f: (t) => `SELECT count(*), sum(score), max(id) FROM ${t} WHERE small < 1000`,
  c: (t) => `SELECT count(*) FROM ${t}`,
  small: (t) => `SELECT max(small) FROM ${t}`,
  id: (t) => `SELECT max(id) FROM ${t}`,
  score: (t) => `SELECT max(score) FROM ${t}`,
};
const [name, side] = query.split(':');
if (!(name in queries)) throw new Error(`no query ${name}: one of ${Object.keys(queries).join(', ')}`);
const t = side === 'p' ? `read_parquet('${work}/large.parquet')` : `read_trevni('${work}/large.trv')`;
let best = Infinity;
const c0 = process.cpuUsage();
const w0 = performance.now();
for (let i = 0; i < runs; i++) {
  const s = performance.now();
  await con.runAndReadAll(queries[name](t));
  best = Math.min(best, performance.now() - s);
}
const c = process.cpuUsage(c0);
console.log(`${query}: least ${best.toFixed(2)} ms, mean ${((performance.now() - w0) / runs).toFixed(2)} ms, CPU ${((c.user + c.system) / 1000 / runs).toFixed(2)} ms a query`);
