import js from "@eslint/js";
import tseslint from "typescript-eslint";

const CREATE_ROUTE = {
  name: "@hono/zod-openapi",
  importNames: ["createRoute"],
  message: "Use createRoute from src/routes/shared/route.ts: it takes the permission the operation needs.",
};
// Dependencies run one way: app.ts mounts the route files; a route file uses routes/shared/ and
// the rest of src/, never another route file; routes/shared/ and the rest of src/ use no route file.
const ROUTES_FROM_OUTSIDE = {
  regex: "(^|/)routes/",
  message: "Only src/app.ts imports the routes: move what is shared out of them.",
};
const ROUTE_FROM_ROUTE = {
  regex: "^\\./(?!shared/)",
  message: "A route file imports no other route file: move what both need to src/routes/shared/.",
};
const ROUTE_FROM_SHARED = { regex: "^\\.\\./[^./]", message: "src/routes/shared/ imports no route file." };

export default tseslint.config(
  {
    ignores: [
      "node_modules",
      ".wrangler",
      "**/dist/",
      "bench/.build",
      "worker-configuration.d.ts",
      "public",
      "test/artifacts/",
      "clients/typescript/src/generated.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      // TypeScript checks names itself, with the right globals for Workers and for Node scripts.
      "no-undef": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["src/**/*.ts", "src/**/*.tsx"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          // Hono's `c.var` copies every variable of the request into a new object at each read.
          selector: "MemberExpression[property.name='var'][object.type='Identifier']",
          message: 'Read a request variable with c.get("name"): c.var copies them all on every read.',
        },
      ],
    },
  },
  {
    // Every operation declares the permission it needs through routes/shared/route.ts (docs/keys-and-permissions.md).
    files: ["src/**/*.ts"],
    ignores: ["src/routes/shared/route.ts"],
    rules: { "no-restricted-imports": ["error", { paths: [CREATE_ROUTE], patterns: [ROUTES_FROM_OUTSIDE] }] },
  },
  {
    files: ["src/app.ts"],
    rules: { "no-restricted-imports": ["error", { paths: [CREATE_ROUTE] }] },
  },
  {
    files: ["src/routes/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: [CREATE_ROUTE], patterns: [ROUTE_FROM_ROUTE] }] },
  },
  {
    files: ["src/routes/shared/*.ts"],
    ignores: ["src/routes/shared/route.ts"],
    rules: { "no-restricted-imports": ["error", { paths: [CREATE_ROUTE], patterns: [ROUTE_FROM_SHARED] }] },
  },
  {
    files: ["src/routes/shared/route.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [ROUTE_FROM_SHARED] }] },
  },
);
