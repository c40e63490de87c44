/**
 * `npm run dashboard:size [-- --max-kib N]`: the dashboard's own JavaScript and CSS as a browser
 * downloads them (gzip), file by file and in all, from its build in public/dashboard/assets/; with
 * --max-kib, fails when the total is over it (CI holds it to 150 KiB).
 */
import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { parseArgs } from "node:util";

const DIR = "public/dashboard/assets";
const { values } = parseArgs({ options: { "max-kib": { type: "string" } } });
const files = readdirSync(DIR).filter((name) => /\.(js|css)$/.test(name));
if (files.length === 0) throw new Error(`no dashboard build in ${DIR}: run npm run dashboard:build`);
let total = 0;
for (const name of files.sort()) {
  const kib = gzipSync(readFileSync(`${DIR}/${name}`), { level: 9 }).length / 1024;
  total += kib;
  console.log(`${name.padEnd(36)} ${kib.toFixed(1).padStart(7)} KiB gzip`);
}
console.log(`${"dashboard JavaScript and CSS".padEnd(36)} ${total.toFixed(1).padStart(7)} KiB gzip`);
const max = values["max-kib"] === undefined ? undefined : Number(values["max-kib"]);
if (max !== undefined && !(total <= max)) {
  console.error(`over the ${max} KiB target`);
  process.exit(1);
}
