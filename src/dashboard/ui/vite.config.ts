/**
 * The dashboard's build: this folder's pages, bundled into static assets under public/dashboard/,
 * which the Worker's static assets serve (wrangler.toml). `npm ci` builds it (postinstall), and so
 * does `npm run dev` at every start; `npm run dashboard:build` after a change.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  // Served at /dashboard/; its files under /dashboard/assets/, which the platform serves without the Worker.
  base: "/dashboard/",
  publicDir: false,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../../../public/dashboard", import.meta.url)),
    emptyOutDir: true,
    // No inline script anywhere: the page's CSP allows scripts from this origin's files only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: "es2022",
    reportCompressedSize: false,
  },
});
