import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules", ".wrangler", "**/dist/", "bench/.build", "worker-configuration.d.ts", "public", "test/artifacts/", "clients/typescript/src/generated.ts"] },
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
    // Every operation declares the permission it needs through routes/route.ts (docs/keys-and-permissions.md).
    files: ["src/**/*.ts"],
    ignores: ["src/routes/route.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "@hono/zod-openapi", importNames: ["createRoute"], message: "Use createRoute from src/routes/route.ts: it takes the permission the operation needs." }] },
      ],
    },
  },
);
