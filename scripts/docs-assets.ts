/**
 * Puts the API reference's browser bundle (Scalar's standalone build, from node_modules) where
 * the Worker's static assets are served from: `/docs/scalar.js`, so /docs works with no internet,
 * locally and deployed. Run after every install (package.json `postinstall`); idempotent.
 */
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("public/docs", { recursive: true });
copyFileSync("node_modules/@scalar/api-reference/dist/browser/standalone.js", "public/docs/scalar.js");
