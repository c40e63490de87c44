/**
 * Bench "floor": per request, only the storage work each scenario cannot avoid, with no auth,
 * validation or logic. Its object stores events in the same table shape as CandidateObject, and
 * its D1 has the service's migrations, so the same rows are written and read.
 */
import { DurableObject } from "cloudflare:workers";
import { listPageQuery } from "../../src/db/candidates";
import { bindNamed } from "../../src/db/sql-params";
import type { Status } from "../../src/domain/timeline";

interface FloorEnv {
  DB: D1Database;
  FLOOR: DurableObjectNamespace<FloorObject>;
}

export class FloorObject extends DurableObject<FloorEnv> {
  constructor(ctx: DurableObjectState, env: FloorEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(`
      CREATE TABLE IF NOT EXISTS candidate (singleton INTEGER PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS events (
        seq INTEGER PRIMARY KEY, id TEXT NOT NULL, type TEXT NOT NULL, value TEXT,
        received_at INTEGER NOT NULL, matched INTEGER NOT NULL
      );`);
  }

  /** An event: one row inserted. */
  insertEvent(type: string, value: string) {
    this.ctx.storage.sql.exec(
      `INSERT INTO events (id, type, value, received_at, matched) VALUES (?, ?, ?, ?, 0)`,
      crypto.randomUUID(),
      type,
      value,
      Date.now(),
    );
    return { ok: true };
  }

  /** A read: the candidate's rows. */
  read() {
    return {
      candidate: this.ctx.storage.sql.exec(`SELECT record FROM candidate`).toArray(),
      events: this.ctx.storage.sql.exec(`SELECT * FROM events ORDER BY seq`).toArray(),
    };
  }

  /** A create: one row written. */
  create(record: string) {
    this.ctx.storage.sql.exec(`INSERT OR REPLACE INTO candidate (singleton, record) VALUES (1, ?)`, record);
    return { ok: true };
  }
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const [, action, name] = url.pathname.split("/");
    switch (action) {
      case "event": {
        const { type, value } = await request.json<{ type: string; value?: unknown }>();
        return json(await env.FLOOR.getByName(name).insertEvent(type, JSON.stringify(value ?? null)), 201);
      }
      case "batch": {
        // The same object inserts a service batch makes, all issued at once.
        const { events } = await request.json<{ events: { name: string; type: string; value?: unknown }[] }>();
        const results = await Promise.all(
          events.map((e) => env.FLOOR.getByName(e.name).insertEvent(e.type, JSON.stringify(e.value ?? null))),
        );
        return json({ data: results });
      }
      case "post-many": {
        // The notification bench's floor: as many bare POSTs as there are webhooks, all at once.
        const body = await request.text();
        const target = url.searchParams.get("url")!;
        const n = Number(url.searchParams.get("n"));
        await Promise.all(
          Array.from({ length: n }, () =>
            fetch(target, { method: "POST", body, headers: { "content-type": "application/json" } }),
          ),
        );
        return json({ ok: true });
      }
      case "read":
        return json(await env.FLOOR.getByName(name).read());
      case "list": {
        const account = url.searchParams.get("account")!;
        const status = url.searchParams.get("status") as Status | null;
        if (status) {
          // A status is the union of walks the query needs to be exact (src/db/candidates.ts): its own SQL.
          const [sql, params] = listPageQuery(account, { status, limit: 50 }, Date.now());
          return json({ data: (await bindNamed(env.DB, sql, params).all()).results });
        }
        const { results } = await env.DB.prepare(
          `SELECT * FROM candidates WHERE account_id = ? ORDER BY id DESC LIMIT 50`,
        )
          .bind(account)
          .all();
        return json({ data: results });
      }
      case "create": {
        const body = await request.text();
        await env.FLOOR.getByName(name).create(body);
        await env.DB.prepare(
          `INSERT INTO candidates (id, account_id, alias, customer_uuid, schema_id, contract, created_at,
                                   open_until, pending_until, final_status, version, price_units, price_scale)
           VALUES (?, 'floor', ?, 'c', NULL, ?, ?, ?, ?, 'FAILED', 1, 25, 0)`,
        )
          .bind(crypto.randomUUID(), name, body, Date.now(), Date.now() + 3_600_000, Date.now() + 7_200_000)
          .run();
        return json({ ok: true }, 201);
      }
    }
    return json({ error: "unknown" }, 404);
  },
} satisfies ExportedHandler<FloorEnv>;
