/** Queue names as wrangler.toml declares them: a consumer batch says which queue it came from. */
export const NOTIFICATIONS_QUEUE = "ccs-notifications";
export const NOTIFICATIONS_DEAD_LETTER_QUEUE = "ccs-notifications-dlq";
export const DELIVERIES_QUEUE = "ccs-webhook-deliveries";
export const DELIVERIES_DEAD_LETTER_QUEUE = "ccs-webhook-deliveries-dlq";
