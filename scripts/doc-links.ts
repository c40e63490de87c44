/**
 * `npm run lint` runs this too: fails when a relative link in the README or docs/ names a file or
 * folder that does not exist, so the reference keeps up with the code it points into when files
 * move. Web links and in-page anchors are not checked.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const pages = [
  "README.md",
  ...readdirSync("docs")
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name)),
];
const broken: string[] = [];
for (const page of pages) {
  const text = readFileSync(page, "utf8");
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target) || target.startsWith("#") || target.startsWith("/")) continue;
    const path = join(dirname(page), decodeURIComponent(target.split("#")[0]));
    if (!existsSync(path)) broken.push(`${page}: ${target}`);
  }
}
if (broken.length > 0) {
  console.error(`Links to files that do not exist:\n${broken.join("\n")}`);
  process.exit(1);
}
console.log(`Every relative link of ${pages.length} pages reaches its file.`);
