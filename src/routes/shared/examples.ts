/**
 * Examples for the OpenAPI document: one realistic value of each thing the API answers with, all
 * one story, so each agrees with its operation and with the others. A candidate is created at
 * 10:00 with the inline contract below (OPEN), a purchase at 10:15 fulfils it (PENDING), it is
 * resolved CONFIRMED at 16:00, and the confirmation is delivered to the billing endpoint.
 */
export const contractExample = {
  price: 49.5,
  activity_window: 604800,
  review_window: 86400,
  fulfillment_condition: { event: "purchase", field: "total", gte: 100 },
  timeout_outcome: "fail",
};

export const schemaExample = {
  id: "01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f",
  user_id: "01936f0e-0000-7000-8000-00000000a11c",
  name: "Purchase of 100 or more",
  contract: contractExample,
  created_at: "2026-11-22T09:00:00.000Z",
  updated_at: "2026-11-22T09:00:00.000Z",
};

/** As `POST /v1/candidates` answers: OPEN since its creation, its activity window a week long. */
export const createdCandidateExample = {
  id: "01936f10-2b3c-7d4e-8f90-a1b2c3d4e5f6",
  candidate_alias: "order-2026-0001",
  customer_uuid: "cust_42",
  schema_id: null, // the contract was given inline
  status: "OPEN",
  status_since: "2026-11-22T10:00:00.000Z",
  scheduled_outcome: null,
  activity_ends_at: "2026-11-29T10:00:00.000Z",
  review_ends_at: null,
  created_at: "2026-11-22T10:00:00.000Z",
  metadata: { order_id: "ord_8812" },
  contract: contractExample,
};

/** After the fulfilling purchase at 10:15: PENDING, the activity window ended then, a day's review. */
export const candidateExample = {
  ...createdCandidateExample,
  status: "PENDING",
  status_since: "2026-11-22T10:15:00.000Z",
  scheduled_outcome: "CONFIRMED",
  activity_ends_at: "2026-11-22T10:15:00.000Z",
  review_ends_at: "2026-11-23T10:15:00.000Z",
};

/** Resolved CONFIRMED at 16:00, before its review window would have ended. */
export const resolvedCandidateExample = {
  ...candidateExample,
  status: "CONFIRMED",
  status_since: "2026-11-22T16:00:00.000Z",
  review_ends_at: "2026-11-22T16:00:00.000Z",
};

export const eventExample = {
  id: "01936f1e-4c5d-7e6f-8a9b-0c1d2e3f4a5b",
  type: "purchase",
  value: { total: 120 },
  received_at: "2026-11-22T10:15:00.000Z",
  matched: true,
};

export const candidateWithEventsExample = {
  ...candidateExample,
  condition_progress: {
    fulfilled: true,
    leaves: [
      {
        path: "fulfillment_condition",
        event: "purchase",
        satisfied: true,
        event_id: eventExample.id,
        satisfied_at: eventExample.received_at,
      },
    ],
  },
  events: [eventExample],
};

export const notificationExample = {
  id: "ntf_01936f102b3c7d4e8f90a1b2c3d4e5f6_pending",
  type: "candidate.pending",
  timestamp: "2026-11-22T10:15:00.000Z",
  data: { candidate: candidateExample, cause: { kind: "event", event_id: eventExample.id } },
};

export const webhookEndpointExample = {
  id: "01936f20-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
  url: "https://billing.example.com/hooks/candidates",
  description: "Billing system",
  enabled_events: ["candidate.confirmed", "candidate.failed"],
  status: "enabled",
  created_at: "2026-11-22T09:30:00.000Z",
  updated_at: "2026-11-22T09:30:00.000Z",
};

/** The confirmation's delivery to the billing endpoint, which takes only final statuses. */
export const deliveryAttemptExample = {
  id: "01936f21-0000-7000-8000-000000000002",
  delivery_id: "01936f20-ffff-7000-8000-00000000000a",
  notification_id: "ntf_01936f102b3c7d4e8f90a1b2c3d4e5f6_confirmed",
  type: "candidate.confirmed",
  attempt: 2,
  status: "succeeded",
  response_status: 200,
  error: null,
  duration_ms: 84,
  attempted_at: "2026-11-22T16:00:06.900Z",
  next_attempt_at: null,
};

/** The attempt before it: failed, and retried. */
export const failedAttemptExample = {
  ...deliveryAttemptExample,
  id: "01936f21-0000-7000-8000-000000000001",
  attempt: 1,
  status: "failed",
  response_status: 503,
  error: "answered 503, not a 2xx",
  duration_ms: 212,
  attempted_at: "2026-11-22T16:00:01.200Z",
  next_attempt_at: "2026-11-22T16:00:06.700Z",
};

export const webhookTestExample = {
  event_id: "test_01936f2a4b5c7d6e8f90a1b2c3d4e5f6",
  type: "webhook.test",
  webhook_endpoint_id: webhookEndpointExample.id,
  status: "succeeded",
  response_status: 200,
  error: null,
  duration_ms: 97,
  attempted_at: "2026-11-22T10:20:00.000Z",
};

const totals = {
  OPEN: { count: 3, amount: "148.5" },
  PENDING: { count: 2, amount: "99", scheduled_confirmed: { count: 1, amount: "49.5" } },
  CONFIRMED: { count: 7, amount: "346.5" },
  FAILED: { count: 2, amount: "99" },
};

export const summaryExample = {
  as_of: "2026-12-01T08:00:00.000Z",
  customer_uuid: null,
  status_since_gte: "2026-11-01T00:00:00.000Z",
  status_since_lt: "2026-12-01T00:00:00.000Z",
  ...totals,
};
