/**
 * What the API answers with in more than one place, as zod schemas: each is a component of the
 * OpenAPI document and, by the same name, the TypeScript type of the view the code builds
 * (z.infer), so the document, the routes and the candidate object agree by construction. A shape
 * only one route answers with stays in its route file.
 */
import { z } from "@hono/zod-openapi";
import { ContractSchema } from "./domain/contract";
import { JsonValueSchema } from "./domain/json";
import { STATUSES } from "./domain/timeline";

/** An instant in an answer: ISO 8601 in UTC, to the millisecond (as isoTime writes it). */
export const timestamp = (description: string) =>
  z.string().openapi({ format: "date-time", description, example: "2026-11-22T01:02:03.456Z" });

export const SchemaView = z
  .object({
    id: z.string().uuid(),
    user_id: z.string().uuid().openapi({ description: "The owning account." }),
    name: z.string().nullable().openapi({
      description: "Extension. The schema's name; null when it has none.",
      example: "Purchase of 100 or more",
    }),
    contract: ContractSchema,
    created_at: timestamp("When the schema was created."),
    updated_at: timestamp("When the contract or name last changed."),
  })
  .openapi("Schema");
export type SchemaView = z.infer<typeof SchemaView>;

export const CandidateView = z
  .object({
    id: z.string().uuid().openapi({ description: "Extension. The list cursor." }),
    candidate_alias: z.string(),
    customer_uuid: z.string(),
    schema_id: z.string().nullable().openapi({ description: "Extension. The schema the contract came from, if any." }),
    contract: ContractSchema,
    status: z.enum(STATUSES).openapi({
      description:
        "`OPEN` during the activity window; `PENDING` from the fulfilling event (or the window's end) through the review " +
        "window; then `CONFIRMED` or `FAILED`, final. Exact at the instant of the request.",
    }),
    status_since: timestamp(
      "The exact instant the current status began: creation, the fulfilling event, the end of the activity window, or the end of the review window (or the resolve).",
    ),
    scheduled_outcome: z.enum(["CONFIRMED", "FAILED"]).nullable().openapi({
      description:
        "null while `OPEN`; from `PENDING` on, what the candidate becomes (or became) when its review ends: `CONFIRMED` after a fulfilling event, else per `timeout_outcome`.",
    }),
    activity_ends_at: timestamp(
      "Extension. End of the activity window: the fulfilling event's instant once fulfilled, the resolve's once resolved from `OPEN`.",
    ),
    review_ends_at: timestamp(
      "Extension. End of the review window, once the candidate has been PENDING; null while OPEN, and when it went from OPEN straight to its final status (a `review_window` of 0, or resolved while OPEN).",
    ).nullable(),
    created_at: timestamp("Extension. When the candidate was created."),
    metadata: z.record(z.string(), z.string()).openapi({
      description: "Extension. Your own key-value strings (`{}` when none): set at creation, changed with `PATCH`.",
      example: { order_id: "ord_8812" },
    }),
  })
  .openapi("Candidate");
export type CandidateView = z.infer<typeof CandidateView>;

export const EventView = z
  .object({
    id: z.string().uuid(),
    type: z.string(),
    value: JsonValueSchema.optional().openapi({ description: "Omitted when the event was sent without a value." }),
    received_at: timestamp("When the service received the event."),
    matched: z.boolean().openapi({ description: "True when this event satisfied a condition leaf while OPEN." }),
  })
  .openapi("Event");
export type EventView = z.infer<typeof EventView>;

export const ConditionProgress = z
  .object({
    fulfilled: z.boolean().openapi({ description: "Whether the satisfied leaves make the whole condition hold." }),
    leaves: z
      .array(
        z.object({
          path: z
            .string()
            .openapi({ description: "Where the leaf is in the contract.", example: "fulfillment_condition.all.1" }),
          event: z.string().openapi({ description: "The event type the leaf names." }),
          satisfied: z
            .boolean()
            .openapi({ description: "Whether an event inside the activity window has satisfied it." }),
          event_id: z.string().uuid().nullable().openapi({
            description:
              "The first event that satisfied it; null while unmet (or when it was met before this was kept, by an event that no longer matches it).",
          }),
          satisfied_at: timestamp("When that event was received; null while unmet.").nullable(),
        }),
      )
      .openapi({ description: "Every leaf of the condition, in contract order." }),
  })
  .openapi("ConditionProgress", {
    description:
      "Extension. What the condition still needs: each leaf, met or not, and the first event that met it. A compound `all` " +
      "with one leaf met shows that leaf satisfied and `fulfilled: false` while the candidate stays `OPEN`.",
  });
export type ConditionProgress = z.infer<typeof ConditionProgress>;

export const CandidateWithEvents = CandidateView.extend({
  condition_progress: ConditionProgress,
  events: z.array(EventView).openapi({ description: "Recorded events, oldest first." }),
}).openapi("CandidateWithEvents");
export type CandidateWithEvents = z.infer<typeof CandidateWithEvents>;

/** What recording an event answers (and a batch item's success): the event, and the candidate after it. */
export const RecordedEvent = z.object({ event: EventView, candidate: CandidateView });
export type RecordedEvent = z.infer<typeof RecordedEvent>;
