/**
 * A worker of this project built as wrangler deploys it and served by Miniflare (workerd, no
 * `wrangler dev` proxy): what the benchmark measures and what the OpenAPI document is read from.
 */
import { basename, resolve } from "node:path";
import { convertV4MiniflareOptions, Miniflare, type V4MiniflareOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { runWrangler } from "./wrangler.ts";

export type WorkerOptions = ReturnType<typeof unstable_getMiniflareWorkerOptions>["workerOptions"];

export interface BuildOptions {
  /** Where the bundle goes. */
  outdir: string;
  /** An entry module instead of the config's `main`. */
  entry?: string;
  /** Readable function names (for CPU profiles). */
  noMinify?: boolean;
  /** Changes to the options wrangler derives from the config (bindings, limits). */
  adjust?: (options: WorkerOptions) => WorkerOptions;
}

/** Bundles the worker of `config` as `wrangler deploy` would, and the Miniflare options to serve it. */
export async function buildWorker(
  name: string,
  config: string,
  { outdir, entry, noMinify, adjust = (o) => o }: BuildOptions,
) {
  // Absolute, as wrangler reads a relative --outdir from the config's folder.
  const args = ["deploy", ...(entry ? [entry] : []), "--dry-run", "--outdir", resolve(outdir), "-c", config];
  if (noMinify) args.push("--no-minify");
  await runWrangler(args);
  const scriptPath = `${outdir}/${entry ? basename(entry, ".ts") : config === "wrangler.toml" ? "index" : name}.js`;
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
  // Paths relative to this folder, where the bundle is (not to the config's folder).
  return { ...adjust(workerOptions), name, rootPath: undefined, modules: true, scriptPath, modulesRules: undefined };
}

/** One Miniflare instance on its own port, serving `worker`. */
export async function serveWorker(worker: Awaited<ReturnType<typeof buildWorker>>, inspectorPort?: number) {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      cf: false,
      inspectorPort,
      workers: [worker],
    } as V4MiniflareOptions),
  );
  const url = (await mf.ready).toString().replace(/\/$/, "");
  return { mf, url, scriptPath: worker.scriptPath };
}
