/** A candidate object's in-memory state, made without an object, for the unit tests of its pure steps. */
import type { Contract } from "../../src/domain/contract";
import { timelineAtCreation } from "../../src/domain/timeline";
import { stateOf, type StoredState } from "../../src/candidate/state";

export const T0 = 1_700_000_000_000;

/** A candidate created at T0: OPEN for 60 s, then 30 s of review, fulfilled by a purchase of 100 or more. */
export function storedState(
  over: Partial<Omit<StoredState, "record" | "condition" | "contractJson">> = {},
  contractOver: Partial<Contract> = {},
): StoredState {
  const contract: Contract = {
    price: 10,
    activity_window: 60,
    review_window: 30,
    fulfillment_condition: { event: "purchase", gte: 100 },
    timeout_outcome: "fail",
    ...contractOver,
  };
  const record = {
    id: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    accountId: "acct",
    alias: "alias-unit",
    customerUuid: "c",
    schemaId: null,
    contract,
    timeline: timelineAtCreation(contract, T0),
    metadata: {},
    version: 1,
  };
  return stateOf(record, {
    satisfiedMask: 0,
    eventCount: 0,
    settledStatus: "OPEN",
    settledSince: T0,
    indexedVersion: 1,
    indexBookmark: null,
    unflushed: false,
    ...over,
  });
}
