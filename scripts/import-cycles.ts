/**
 * `npm run lint` runs this after ESLint: fails when modules in src/ import each other in a circle
 * (type-only imports count too), and names each circle. Dependencies run one way, so a module can
 * be read, tested and moved without the ones that use it; ESLint checks the direction between the
 * route files, this the whole tree.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = "src";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a relative import names (with or without its extension), or null for a package. */
function resolved(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  const found = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find(
    (path) => existsSync(path) && statSync(path).isFile(),
  );
  return found === undefined ? null : relative(".", found);
}

const files = sourceFiles(ROOT);
const imports = new Map(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map(({ fileName }) => resolved(file, fileName))
      .filter((target): target is string => target !== null);
    return [file, [...new Set(targets)]];
  }),
);

/** Strongly connected components of more than one module (Tarjan), or a module that imports itself. */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || imports.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

const found = circles();
if (found.length > 0) {
  for (const component of found) {
    const members = new Set(component);
    console.error(`Modules that import each other in a circle:`);
    for (const file of component) {
      for (const target of imports.get(file) ?? []) if (members.has(target)) console.error(`  ${file} -> ${target}`);
    }
  }
  process.exit(1);
}
console.log(`No import cycles among the ${files.length} modules of ${ROOT}/.`);
