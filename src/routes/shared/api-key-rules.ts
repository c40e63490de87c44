/**
 * What a key may do to keys, and the refusals of /v1/api_keys that say why not
 * (docs/keys-and-permissions.md): no key makes or manages a key that can do more than itself or
 * outlive it, a key rolls once while active, and an account holds at most 100 keys not revoked.
 */
import { ApiError } from "../../errors/api-error";
import * as db from "../../db/tokens";
import { escalation, grantOfStored, outranks, type Permission } from "../../domain/permissions";
import { isoTime } from "../../domain/iso-time";
import { keyStatus } from "../../key-view";

/** A key gives only permissions it holds, and only a full-access key makes (or rolls) a full-access key. */
export function refuseEscalation(
  holder: Parameters<typeof escalation>[0],
  wanted: readonly Permission[] | null,
  rolling = false,
) {
  const denied = escalation(holder, wanted, rolling);
  if (denied) throw new ApiError("PERMISSION_DENIED", denied);
}

/** A key manages only keys that can do no more than it. */
export function refuseOutranked(holder: Parameters<typeof outranks>[0], target: db.KeyRow) {
  const denied = outranks(holder, grantOfStored(target.permissions).listed);
  if (denied) throw new ApiError("PERMISSION_DENIED", denied);
}

/**
 * A key that expires never makes a key that outlives it (`expiresAt` null: never expires). `how`
 * ends the refusal: what the caller can do, in the operation's own fields.
 */
export function refuseOutliving(holderExpiresAt: number | null, expiresAt: number | null, how: string) {
  if (holderExpiresAt === null || (expiresAt !== null && expiresAt <= holderExpiresAt)) return;
  throw new ApiError(
    "PERMISSION_DENIED",
    `This API key expires at ${isoTime(holderExpiresAt)}: a key it makes must expire no later. ${how}`,
  );
}

/** Why the key cannot be rolled at `now` (revoked, expired, or rolled already), or null when it can. */
export function whyNotRollable(row: db.KeyRow, now: number): ApiError | null {
  const refusal = (what: string, instead: string) =>
    new ApiError("INVALID_STATE", `The API key '${row.id}' ${what}: ${instead}`);
  if (row.revoked_at !== null)
    return refusal(
      `was revoked at ${isoTime(row.revoked_at)}`,
      "only an active key can be rolled. Create a new key instead.",
    );
  if (row.replaced_by !== null) {
    const until = `, and it ${keyStatus(row, now) === "active" ? "stops working" : "expired"} at ${isoTime(row.expires_at!)}`;
    return refusal(
      `was rolled already`,
      `the key '${row.replaced_by}' replaced it${until}. A key is rolled once: roll '${row.replaced_by}' instead.`,
    );
  }
  if (keyStatus(row, now) === "expired")
    return refusal(
      `expired at ${isoTime(row.expires_at!)}`,
      "only an active key can be rolled. Create a new key instead.",
    );
  return null;
}

export const limitReached = () =>
  new ApiError(
    "API_KEY_LIMIT_REACHED",
    `An account can have at most ${db.MAX_KEYS_PER_ACCOUNT} API keys that are not revoked; expired keys count until revoked. Revoke one you no longer use (an expired one, or one a roll replaced), then try again.`,
  );
