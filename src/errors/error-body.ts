/**
 * The body of every error response, as the OpenAPI document shows it (its `Error` component):
 * errorBody (api-error.ts) builds exactly this type.
 */
import { z } from "@hono/zod-openapi";
import { ERROR_CODE_NAMES, ERROR_TYPES } from "./codes.ts";

export const ErrorBodySchema = z
  .object({
    error: z.object({
      type: z.enum(ERROR_TYPES),
      code: z.enum(ERROR_CODE_NAMES),
      message: z.string(),
      status: z.number().int(),
      doc_url: z.string().openapi({ format: "uri" }),
      details: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: "Every validation problem found, with a dotted path." }),
    }),
    request_id: z.string().openapi({ description: "Also sent as the `Request-Id` response header." }),
  })
  .openapi("Error");
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
