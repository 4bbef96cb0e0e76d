// copyto.mjs EXT WORK [THREADS]: one COPY (FROM read_parquet('WORK/large.parquet'))
// TO 'WORK/copy.trv' (FORMAT trevni, CODEC 'snappy') in DuckDB's Node package
// with the extension loaded (THREADS DuckDB threads; default all), for
// duckext.sh to alternate with trevni fromparquet. Prints the COPY's wall
// seconds and the CPU seconds (user and system, every thread of the
// process) it took.
import { DuckDBInstance } from '@duckdb/node-api';
const [ext, work, threads] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
const con = await db.connect();
await con.run(`LOAD '${ext}'`);
if (threads) await con.run(`SET threads = ${threads}`);
const cpu0 = process.cpuUsage();
const start = performance.now();
await con.run(`COPY (FROM read_parquet('${work}/large.parquet')) TO '${work}/copy.trv' (FORMAT trevni, CODEC 'snappy')`);
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpu0);
console.log(`${(ms / 1000).toFixed(3)} ${((cpu.user + cpu.system) / 1e6).toFixed(3)}`);
