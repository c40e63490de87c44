/**
 * What the Worker may ask a candidate object, and what each call answers: the object's RPC
 * surface (object.ts implements it). Importing this module, not the object's, keeps routes free
 * of the object's code.
 */
import type { SubmittedEvent } from "../domain/condition";
import type { Contract } from "../domain/contract";
import type { JsonText } from "../domain/json";
import type { Metadata } from "../domain/metadata";
import type { FinalStatus, Status } from "../domain/timeline";
import type { IdempotentRequest } from "../idempotency";
import type { ShardName } from "../shards";
import type { CandidateView, CandidateWithEvents, RecordedEvent } from "../models";

export interface NewCandidate {
  accountId: string;
  /** The account's shard (the request's): stored with the candidate, its index and feed go there. */
  shard: ShardName;
  alias: string;
  customerUuid: string;
  schemaId: string | null;
  contract: Contract;
  metadata: Metadata;
}

/** A refusal; one member per code (distributive), so a caller can rule out a code it handled. */
export type Failure<C extends string> = C extends string ? { ok: false; code: C } : never;
/**
 * A success carries its response body as JSON text, serialised by the object from the data it
 * holds, so the Worker sends it as it is without parsing it again.
 */
export type Answer<T> = { ok: true; body: JsonText<T> };
export type KeyReused = "IDEMPOTENCY_KEY_REUSED";
/** Another request holds the key and nothing is stored under it yet (see IdempotentRequest.heldElsewhere). */
export type KeyInUse = "IDEMPOTENCY_KEY_IN_USE";
/** A final candidate cannot be resolved: the refusal says what it is. */
export type NotResolvable = { ok: false; code: "INVALID_STATE"; status: Status };
/**
 * What a call that may write the D1 index answers besides: the bookmark of that write (`bookmarkOn`), for the
 * Worker's response; null or absent when it wrote none (nothing the index shows moved, or the write
 * failed and waits for the alarm, or D1 gave no bookmark). A replay answers the index's last point.
 */
export type Indexed<T> = T & { bookmark?: string | null };
/** A keyed call's answer; `replayed` when it is the result stored under the key by an earlier call. */
export type Keyed<T> = T & { replayed?: true };

/** One event's outcome: recorded (or replayed), or refused with nothing recorded. */
export type EventResult = Answer<RecordedEvent> | Failure<"EVENT_LIMIT_REACHED" | KeyReused>;

/** An event of a batch, with its own Idempotency key (docs/idempotency.md, "Item keys in batches"). */
export interface EventItem {
  event: SubmittedEvent;
  /** The item's `idempotency_key` and a fingerprint of what it asks (its type and value). */
  key?: ItemKey;
}

export interface ItemKey {
  key: string;
  fingerprint: string;
}

/**
 * The object's RPC surface. Declared by hand because the runtime's generated stub type cannot
 * expand the recursive contract type; the class is checked against it.
 */
export interface CandidateRpc {
  create(
    input: NewCandidate,
    request?: IdempotentRequest,
  ): Promise<Indexed<Keyed<Answer<CandidateView>> | Failure<"CANDIDATE_ALIAS_TAKEN" | KeyReused | KeyInUse>>>;
  /**
   * What this object answered a keyed create, if it made the candidate under that key (or refuses
   * it: another request's, IN_USE); null otherwise. For a retry that can no longer build the input.
   */
  replayCreate(
    accountId: string,
    request: IdempotentRequest,
  ): Promise<Indexed<Keyed<Answer<CandidateView>> | Failure<KeyReused | KeyInUse>> | null>;
  get(accountId: string): Promise<Answer<CandidateWithEvents> | Failure<"CANDIDATE_NOT_FOUND">>;
  recordEvent(
    accountId: string,
    event: SubmittedEvent,
    request?: IdempotentRequest,
  ): Promise<Indexed<Keyed<EventResult> | Failure<"CANDIDATE_NOT_FOUND" | KeyReused | KeyInUse>>>;
  /** Several events, in order, in one transaction: one result per item (a batch's share). */
  recordEvents(
    accountId: string,
    items: EventItem[],
    request?: IdempotentRequest,
  ): Promise<
    Indexed<Keyed<{ ok: true; results: EventResult[] }> | Failure<"CANDIDATE_NOT_FOUND" | KeyReused | KeyInUse>>
  >;
  resolve(
    accountId: string,
    outcome: FinalStatus,
    request?: IdempotentRequest,
  ): Promise<
    Indexed<Keyed<Answer<CandidateView>> | Failure<"CANDIDATE_NOT_FOUND" | KeyReused | KeyInUse> | NotResolvable>
  >;
  /** Merges metadata changes (a key set to "" is removed); refused whole past the key limit. */
  updateMetadata(
    accountId: string,
    changes: Metadata,
  ): Promise<
    Indexed<
      Answer<CandidateView> | Failure<"CANDIDATE_NOT_FOUND"> | { ok: false; code: "METADATA_LIMIT"; keys: number }
    >
  >;
  /** The sweep's wake-up: settle what time decided, and rewrite the index row and feed. */
  settle(): Promise<void>;
}

/** The candidate's Durable Object, named by its alias (see CandidateRpc for why the cast). */
export const candidateObject = (env: Env, alias: string) => env.CANDIDATES.getByName(alias) as unknown as CandidateRpc;
