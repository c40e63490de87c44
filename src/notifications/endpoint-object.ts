/**
 * EndpointObject: one SQLite-backed Durable Object per webhook endpoint, named by its id, which
 * holds that endpoint's deliveries until they end and makes their attempts from its alarm.
 *
 * Why an object and not the queue consumer: an attempt may wait the whole timeout for an
 * endpoint that never answers, and a queue hands its consumer one batch at a time (Miniflare)
 * or a few (Cloudflare), so a hanging endpoint held up every other account's deliveries. Here an
 * endpoint waits only on itself; the queue consumer just hands each delivery to its object.
 *
 * Each delivery is stored once (a repeated hand-off is the same delivery) with the number of
 * attempts made and when the next is due; retries are due times, and the alarm is set for the
 * earliest. An attempt under way keeps its log id in storage, so one cut short by an eviction is
 * made again under the same id and number.
 */
import { DurableObject } from "cloudflare:workers";
import { uuidv7 } from "uuidv7";
import { attemptDelivery, type DeliveryMessage } from "./attempt";
import { backoffSeconds } from "./retry-schedule";
import type { ShardName } from "../shards";

/** Cloudflare lets one invocation hold 6 connections at once: a 7th request would wait, its timeout running. */
export const MAX_ATTEMPTS_AT_ONCE = 6;
/** Ended deliveries are remembered this long, so a hand-off repeated by the queue is not sent again. */
const REMEMBER_ENDED_MS = 24 * 3_600_000;
/** An alarm starts no attempt after this long (Cloudflare ends an alarm at 15 minutes); the next alarm goes on. */
const ALARM_BUDGET_MS = 5 * 60_000;

const TABLES = `
  CREATE TABLE IF NOT EXISTS deliveries (
    delivery_id     TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL,
    shard           TEXT,                       -- the account's shard (NULL in rows from before shards: the primary)
    attempts        INTEGER NOT NULL DEFAULT 0, -- attempts made and logged
    attempt_id      TEXT,                       -- the log id of the attempt under way
    due_at          INTEGER,                    -- when the next attempt is due; NULL once ended
    ended_at        INTEGER,
    failures        INTEGER NOT NULL DEFAULT 0  -- attempts in a row that could not be made (D1 failing)
  );
  CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (due_at) WHERE due_at IS NOT NULL;`;

// A type, not an interface: SQL rows need the implicit index signature of a type literal.
type DeliveryRow = {
  delivery_id: string;
  notification_id: string;
  account_id: string;
  endpoint_id: string;
  shard: ShardName | null;
  attempts: number;
  attempt_id: string | null;
  failures: number;
};

export const endpointObject = (env: Env, endpointId: string) => env.ENDPOINTS.getByName(endpointId);

export class EndpointObject extends DurableObject<Env> {
  private readonly sql = this.ctx.storage.sql;
  /** Attempts under way in this instance, by delivery id. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** The alarm's drain, while it is starting attempts; `wake` makes it look again at once. */
  private drainRun?: Promise<void>;
  private draining = false;
  private wake = () => {};

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql.exec(TABLES);
    // An object made before shards has the table without the column: added once.
    if (this.sql.exec(`SELECT 1 FROM pragma_table_info('deliveries') WHERE name = 'shard'`).toArray().length === 0) {
      this.sql.exec(`ALTER TABLE deliveries ADD COLUMN shard TEXT`);
    }
  }

  /** Takes a delivery to make now; the queue's consumer calls this, and retries it if it throws. */
  async enqueue(delivery: DeliveryMessage): Promise<void> {
    const now = Date.now();
    this.sql.exec(
      `INSERT OR IGNORE INTO deliveries (delivery_id, notification_id, account_id, endpoint_id, shard, due_at) VALUES (?, ?, ?, ?, ?, ?)`,
      delivery.delivery_id,
      delivery.notification_id,
      delivery.account_id,
      delivery.endpoint_id,
      delivery.shard ?? null,
      now,
    );
    if (this.draining)
      this.wake(); // the running alarm takes it at once
    else await this.ctx.storage.setAlarm(now);
  }

  /** Of these notifications, the ones no delivery of which ever reached this object (redrive.ts). */
  async neverReceived(notificationIds: string[]): Promise<string[]> {
    return this.sql
      .exec<{ id: string }>(
        `SELECT value AS id FROM json_each(?) WHERE value NOT IN (SELECT notification_id FROM deliveries)`,
        JSON.stringify(notificationIds),
      )
      .toArray()
      .map((row) => row.id);
  }

  async alarm(): Promise<void> {
    // A second alarm while one drains (or a test running the alarm) waits for it: one drain at a time.
    if (this.draining) return this.drainRun;
    this.drainRun = this.drain();
    await this.drainRun;
  }

  /** Makes every due attempt, at most MAX_ATTEMPTS_AT_ONCE at once, then sets the alarm for what is left. */
  private async drain() {
    this.draining = true;
    const stopStartingAt = Date.now() + ALARM_BUDGET_MS;
    try {
      for (;;) {
        if (Date.now() < stopStartingAt) this.startDueAttempts();
        if (this.inFlight.size === 0) break;
        await this.somethingChanged();
      }
    } finally {
      // In the same synchronous block as the last look: a delivery enqueued from here on sets the alarm itself.
      this.draining = false;
    }
    const now = Date.now();
    this.sql.exec(`DELETE FROM deliveries WHERE due_at IS NULL AND ended_at <= ?`, now - REMEMBER_ENDED_MS);
    const [{ next }] = this.sql
      .exec<{ next: number | null }>(
        `SELECT MIN(COALESCE(due_at, ended_at + ?)) AS next FROM deliveries`,
        REMEMBER_ENDED_MS,
      )
      .toArray();
    // An alarm set for now from inside alarm() may be dropped (locally): never earlier than now + 1.
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.max(next, now + 1));
  }

  private startDueAttempts() {
    const due = this.sql
      .exec<DeliveryRow>(
        `SELECT delivery_id, notification_id, account_id, endpoint_id, shard, attempts, attempt_id, failures FROM deliveries
         WHERE due_at <= ? ORDER BY due_at LIMIT ?`,
        Date.now(),
        MAX_ATTEMPTS_AT_ONCE + this.inFlight.size,
      )
      .toArray()
      .filter((row) => !this.inFlight.has(row.delivery_id));
    for (const row of due.slice(0, MAX_ATTEMPTS_AT_ONCE - this.inFlight.size)) {
      const attemptId = row.attempt_id ?? uuidv7();
      this.sql.exec(`UPDATE deliveries SET attempt_id = ? WHERE delivery_id = ?`, attemptId, row.delivery_id);
      const attempt = this.attempt(row, attemptId).finally(() => this.inFlight.delete(row.delivery_id));
      this.inFlight.set(row.delivery_id, attempt);
    }
  }

  /** Until an attempt ends, a retry falls due, or a delivery arrives. */
  private async somethingChanged() {
    // What is due already waits for a free slot: an attempt's end wakes the drain for it.
    const now = Date.now();
    const [{ next }] = this.sql
      .exec<{ next: number | null }>(`SELECT MIN(due_at) AS next FROM deliveries WHERE due_at > ?`, now)
      .toArray();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const woken = new Promise<void>((resolve) => {
      this.wake = resolve;
      if (next !== null) timer = setTimeout(resolve, next - now);
    });
    await Promise.race([woken, ...this.inFlight.values()]);
    if (timer !== null) clearTimeout(timer);
    this.wake = () => {};
  }

  private async attempt(row: DeliveryRow, attemptId: string) {
    try {
      const { retryAt } = await attemptDelivery(this.env, row, row.attempts + 1, attemptId);
      if (retryAt === undefined) {
        this.sql.exec(
          `UPDATE deliveries SET due_at = NULL, ended_at = ?, attempt_id = NULL WHERE delivery_id = ?`,
          Date.now(),
          row.delivery_id,
        );
      } else {
        this.sql.exec(
          `UPDATE deliveries SET attempts = attempts + 1, attempt_id = NULL, failures = 0, due_at = ? WHERE delivery_id = ?`,
          retryAt,
          row.delivery_id,
        );
      }
    } catch (error) {
      // D1 failing, not the endpoint: the same attempt again after a backoff, under the same log id.
      console.error(`delivery ${row.delivery_id}: attempt could not be made or recorded; tried again`, error);
      const delay = backoffSeconds(row.failures + 1) * 1000;
      this.sql.exec(
        `UPDATE deliveries SET failures = failures + 1, due_at = ? WHERE delivery_id = ?`,
        Date.now() + delay,
        row.delivery_id,
      );
    }
  }
}
